//! The teaching programs. A program is a value ([`Program`]): its
//! functions, the Rust that runs (its source as compiled, for the listings),
//! its Python listing with the `#|` marks, the caption stage of each of its
//! snapshot labels, how a recording wires a model and a process into each
//! entry point, and what its scenarios must hold beyond the shared fields.
//! Everything above this module — recording, listings, stepping,
//! breakpoints, predictions, the session, `check` — reads a program through
//! this value and knows no program by name.
//!
//! Adding a program is adding one module here (its Rust source, its Python
//! listing, its table) and one line in [`ALL`], plus its fixtures and words.
//! [`lesson_one`] is the course's first lesson (`ask_claude`, `run_main`,
//! `run_loop`); [`ask_once`] is a tiny program that only asks the model once
//! and prints the text, compiled only for the tests (feature
//! `test-program`) to show that nothing above knows the lesson.
//! [`recorded`] makes a program of an author's Python recorded by CPython
//! (a program pack, read at run time): not in [`ALL`], found from its
//! functions by [`of`].

use crate::pack;
use crate::vocab::Function;

#[cfg(feature = "test-program")]
pub mod ask_once;
pub mod lesson_one;
pub mod lesson_two;
pub mod program;
pub mod recorded;

pub use program::{
    Asks, Defaults, Field, Figure, InLanguage, Inputs, Part, Pipe, Program, Ran, Script, ToolRun,
};

/// Every program this build has, the lesson's first (a static: one copy of
/// each program's table, however many crates read it).
pub static ALL: &[&Program] = &[
    &lesson_one::PROGRAM,
    &lesson_two::PROGRAM,
    #[cfg(feature = "test-program")]
    &ask_once::PROGRAM,
];

/// Every program's own scenarios, program by program, each in its
/// lesson's order.
pub fn lesson_scenarios() -> impl Iterator<Item = &'static str> {
    ALL.iter().flat_map(|p| p.scenarios).copied()
}

/// The function with this name, in any program.
pub fn function(name: &str) -> Option<Function> {
    ALL.iter().flat_map(|p| p.functions).copied().find(|f| f.name() == name)
}

/// Every function of every program, program by program.
pub fn functions() -> impl Iterator<Item = Function> {
    ALL.iter().flat_map(|p| p.functions).copied()
}

/// Every function a scenario (or the `function` attribute) may start
/// from, program by program: all but the nested ones.
pub fn entries() -> impl Iterator<Item = Function> {
    functions().filter(|f| !of(*f).nested.contains(f))
}

/// Whether `a` and `b` are loops of one program that run beside each
/// other on the same inputs (its `beside` list), and not the same loop.
pub fn beside(a: Function, b: Function) -> bool {
    a != b && of(a).beside.contains(&a) && of(a).beside.contains(&b)
}

/// The program a function belongs to: a built-in one, or the recorded
/// program it came from ([`recorded`]); the first program for a function
/// none has (a function only comes from [`function`] or a recorded
/// program, so it cannot happen).
pub fn of(function: Function) -> &'static Program {
    if let Some(program) = recorded::program(function) {
        return program;
    }
    ALL.iter().find(|p| p.functions.contains(&function)).copied().unwrap_or(ALL[0])
}

/// The function named `name` as seen from `near`: one of `near`'s own
/// program (a recorded program's functions are found only so), else any
/// built-in program's.
pub fn function_near(near: Function, name: &str) -> Option<Function> {
    let own = of(near).functions.iter().copied().find(|f| f.name() == name);
    own.or_else(|| function(name))
}

/// What a scenario runs when its `function` is broken, and a trace of
/// nothing: the first program's whole run.
pub fn first_main() -> Function {
    ALL[0].main
}

/// What a scenario of `function` reads where it leaves out a field every
/// scenario may give: its program's defaults, else the first program's.
pub fn defaults(function: Function) -> &'static program::Defaults {
    match of(function).defaults.or(ALL[0].defaults) {
        Some(defaults) => defaults,
        None => &program::Defaults::NONE,
    }
}

/// The example of a label in `check`'s words: the first label that asks
/// the model, of `function`'s program (or the first program's).
pub fn example_label(function: Option<Function>) -> &'static str {
    let program = function.map_or(ALL[0], of);
    program.asks.first().or(ALL[0].asks.first()).copied().unwrap_or("")
}

/// The entry functions' names, for a message: `a, b, c`.
pub fn names() -> String {
    // (joined with ", ": a problem says the list in the reader's language)
    entries().map(Function::name).collect::<Vec<_>>().join(", ")
}

/// Add a pack from its file (`data/<pack>.json`): a program's texts and
/// its captions into each language's table, or a language's table.
/// Returns the pack's name.
pub fn add_pack(expected: &str, file: &str) -> Result<String, String> {
    let mut hash = crate::preview::Fnv::new();
    hash.bytes(file.as_bytes());
    let (name, pack) = pack::register(expected, file, hash.0)?;
    if pack["language"].is_object() {
        crate::i18n::arrive(&pack["language"])?;
    }
    for (code, captions) in pack["captions"].as_object().into_iter().flatten() {
        crate::i18n::add_captions(code, captions)?;
    }
    Ok(name)
}
