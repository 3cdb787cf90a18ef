//! What a teaching program is: the [`Program`] value, what a scenario hands
//! its entry point ([`Inputs`]) and what the entry point came to ([`Ran`]).

use crate::i18n::{Lang, Phrase};
use crate::pack::Text;
use crate::protocol::{Model, Process, Setup, TraceError};
use crate::vocab::Function;
use serde_json::{Map, Value};

/// One teaching program.
pub struct Program {
    /// Its name (`lesson_one`).
    pub name: &'static str,
    /// Its functions, in the order a picker lists them.
    pub functions: &'static [Function],
    /// The pack its texts come in when they are not compiled in (the
    /// page's module has lesson one's only: `crate::pack`), or none.
    pub pack: Option<&'static str>,
    /// The Rust file the functions are in, as compiled (`include_str!`):
    /// the Rust listing is cut from it, and a snapshot's raw `line!()` is a
    /// line of it.
    pub rust: Text,
    /// The Python listing in each language it is written in, the default
    /// first: the same functions, each line marked with the labels it
    /// stands for (`#| loop.ask`). Every language's listing has the same
    /// lines and marks; only its words differ (tests/python.rs).
    pub python: &'static [InLanguage],
    /// The setup templates its `setup` fills, by language (the default
    /// first).
    pub templates: &'static [InLanguage],
    /// The first words of its labels and caption stages (`core` of
    /// `core.ask`), its own: the captions under them travel in its pack.
    pub namespaces: &'static [&'static str],
    /// The teaching setup and the entry call of `function` as Python text,
    /// filled in for one scenario and in its language: what the setup
    /// panel shows and what CPython runs after the listing.
    pub setup: fn(function: Function, inputs: &Inputs, script: &Script) -> String,
    /// What that entry prints once `function` returned (`Ok`: its result)
    /// or raised (`Err`: what Python says of the exception, the last line
    /// of its traceback), line by line, in `lang`.
    pub prints: fn(function: Function, returned: Result<&Value, &TraceError>, lang: Lang) -> Vec<String>,
    /// The caption stage of a step of `function` with this label (`call`
    /// and `return` for a frame's ends).
    pub stage: fn(function: Function, label: &str) -> &'static str,
    /// The part of the figure a caption stage is about, drawn marked
    /// beside its caption (the way a lesson draws its stage boxes).
    pub part: fn(stage: &str) -> Part,
    /// Run the entry point `function` on `inputs` under the recorder
    /// (the caller has started the recording).
    pub run: fn(function: Function, inputs: &Inputs, model: &mut dyn Model, process: &mut dyn Process) -> Ran,
    /// What a scenario of `function` must hold beyond the fields every
    /// scenario shares: each problem by field.
    pub check: fn(function: Function, scenario: &Map<String, Value>, problem: Problems),
    /// Labels worth pinning in a scenario's `expect.hits` when a run
    /// reaches them (and in `misses` when a run that errs does not).
    pub milestones: &'static [&'static str],
    /// The lesson's own scenarios, in the lesson's order: the picker lists
    /// them first.
    pub scenarios: &'static [&'static str],
    /// The scenarios a playground opens with when none is asked for, the
    /// first that fits first.
    pub opens: &'static [&'static str],
    /// Entry points that run on the same inputs, to be laid beside one
    /// another on a scenario's replies (the lesson's loop and the loops
    /// it warns about); each has a word `beside_<name>` saying what it
    /// does. Empty: nothing to run beside.
    pub beside: &'static [Function],
    /// Functions that run only inside another (`execute_tool`): never a
    /// scenario's entry, never the `function` attribute.
    pub nested: &'static [Function],
}

/// A part of the figure a stage can be about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// Nothing in particular (a frame's ends, a process's own stages).
    None,
    /// The call budget.
    Calls,
    /// The latest stop_reason and the checks on the reply.
    Reason,
    /// How the run ends.
    Status,
    /// The request or reply in flight.
    Flight,
    /// The tool results waiting to be saved.
    Staged,
    /// The message record itself.
    Record,
}

/// A text in one language: the language's code and the text.
pub type InLanguage = (&'static str, Text);

impl Program {
    /// The Python listing written in `lang` (a language code), or the
    /// default one.
    pub fn python_in(&self, lang: &str) -> &'static str {
        in_language(self.python, lang)
    }

    /// Every text of the program: what its pack holds.
    pub fn texts(&self) -> Vec<Text> {
        let each = self.python.iter().chain(self.templates).map(|(_, text)| *text);
        std::iter::once(self.rust).chain(each).collect()
    }

    /// Whether a caption key (`core.ask`, `tool.run.bad_request`) is one
    /// of its own.
    pub fn owns_caption(&self, key: &str) -> bool {
        self.namespaces.contains(&key.split('.').next().unwrap_or(""))
    }

    /// Whether its texts are here (compiled in, or its pack arrived): a
    /// program that is not is never shown (`crate::pack`).
    pub fn loaded(&self) -> bool {
        self.pack.is_none_or(crate::pack::has)
    }
}

/// The text written in `lang` (a code), or the default (first) one.
pub fn in_language(texts: &[InLanguage], lang: &str) -> &'static str {
    let found = texts.iter().find(|(code, _)| *code == lang);
    found.or(texts.first()).map_or("", |(_, text)| text.get())
}

/// A scenario's doubles as the setup shows them: the model's replies in
/// order and the process outcome (one object for every run, or a list).
pub struct Script<'a> {
    pub replies: &'a [Value],
    pub process: &'a Value,
}

/// Where a check says a problem: the field, and what is wrong with it.
pub type Problems<'a> = &'a mut dyn FnMut(&str, Phrase);

/// What a scenario gives an entry point.
pub struct Inputs<'a> {
    pub question: &'a str,
    /// SYSTEM and the tools, in the scenario's language.
    pub setup: &'a Setup,
    pub max_calls: i64,
    /// The tool call a `run_main`-like entry point is given.
    pub call: &'a Value,
    /// The scenario's scripted tool outcomes by tool name (`tool_results`;
    /// null when it has none).
    pub tool_results: &'a Value,
    pub timeout_s: f64,
    /// The language the run speaks: its sentences ([`crate::protocol::Said`])
    /// in the words of that language's listing.
    pub lang: Lang,
}

/// What an entry point came to.
pub struct Ran {
    /// Its return value (a loop's without the messages: those are `record`).
    pub result: Value,
    pub error: Option<TraceError>,
    /// The message record.
    pub record: Vec<Value>,
    /// Whether the return value holds the record (`messages`), kept once.
    pub returns_record: bool,
    /// The call budget the run had (0 when it has none).
    pub max_calls: i64,
}
