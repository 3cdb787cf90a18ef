//! The lesson's Python beside the Rust that ran: the listing of
//! `runtime.py` (a program's Python listing) per function, and where each recorded step stands in it.
//!
//! A step is known by its *key*: the label of the `before!`/`head!` that
//! took it and which occurrence of that label in runtime.rs it is (`call`
//! for a frame's start). runtime.py marks each line with the keys it stands
//! for (`#| loop.ask`, `#| main.return@2`); tests/python.rs proves with
//! CPython that the marks are right. A key stands on the last Python line
//! that carries it (a `try:` and its call, an `except` and its body are one
//! step). Breakpoints are sets of keys, so they mean the same in both
//! listings.

use super::listing::{each, each_program, listing, Listing, ListingLine};
use crate::pack::Cache;
use crate::programs::{self, Program};
use crate::trace::{Attach, Event, Step};
use crate::vocab::{Code, Function};

/// What a step stands for, the same in every listing.
pub type Key = (Function, &'static str, u16);

/// One snapshot point of runtime.rs.
pub(super) struct Point {
    pub(super) key: Key,
    source: u32,
    attach: Attach,
}

/// Every snapshot point of a program's Rust, with its function.
fn points(program: &'static Program) -> &'static [Point] {
    static POINTS: Cache<Vec<(&'static str, Vec<Point>)>> = Cache::new();
    each_program(&POINTS, program, points_of)
}

/// Every point of every program.
pub(super) fn all_points() -> impl Iterator<Item = &'static Point> {
    programs::ALL.iter().flat_map(|p| points(p))
}

fn points_of(program: &'static Program) -> Vec<Point> {
    let mut seen: Vec<(&'static str, u16)> = Vec::new();
    let mut out = Vec::new();
    for (i, line) in program.rust.get().lines().enumerate() {
        let t = line.trim_start();
        let (attach, rest) = match (t.strip_prefix("before!(\""), t.strip_prefix("head!(\"")) {
            (Some(rest), _) => (Attach::Next, rest),
            (_, Some(rest)) => (Attach::Above, rest),
            _ => continue,
        };
        let label = rest.split('"').next().unwrap_or("");
        let source = i as u32 + 1;
        let Some(function) = program.functions.iter().copied().find(|f| {
            let l = listing(*f);
            l.lines.first().is_some_and(|a| a.source <= source)
                && l.lines.last().is_some_and(|z| z.source >= source)
        }) else {
            continue;
        };
        let k = match seen.iter_mut().find(|(l, _)| *l == label) {
            Some((_, n)) => {
                *n += 1;
                *n
            }
            None => {
                seen.push((label, 1));
                1
            }
        };
        out.push(Point { key: (function, label, k), source, attach });
    }
    out
}

/// The key of a step (a `return` or `error` step stands where its frame
/// last stood).
/// A recorded program's step is known by its function and line (a key
/// with no label: its listing is the one that ran, so a line means the
/// same in every language).
pub fn step_key(step: &Step) -> Key {
    if programs::recorded::of(step.function).is_some() {
        return (step.function, "", step.source_line() as u16);
    }
    if step.event == Event::Call {
        return (step.function, "call", 0);
    }
    let points = points(programs::of(step.function));
    points.iter().find(|p| p.source == step.source_line()).map_or((step.function, "call", 0), |p| p.key)
}

/// Every label of every program, program by program, in source order.
pub(super) fn labels() -> Vec<&'static str> {
    all_points().map(|p| p.key.1).collect()
}

/// Every label of one program, in source order.
pub fn labels_of(program: &'static Program) -> Vec<&'static str> {
    points(program).iter().map(|p| p.key.1).collect()
}

/// Every key of a function: its call, then its snapshot points.
/// (A recorded program's function: the lines its runs stop at.)
pub fn keys(function: Function) -> Vec<Key> {
    if let Some(r) = programs::recorded::of(function) {
        let stops = r.stops.iter().find(|(f, _)| *f == function).map_or(&[][..], |(_, l)| l);
        return stops.iter().map(|n| (function, "", *n as u16)).collect();
    }
    std::iter::once((function, "call", 0))
        .chain(points(programs::of(function)).iter().filter(|p| p.key.0 == function).map(|p| p.key))
        .collect()
}

/// A line of runtime.py: its function, its number in the file, its text
/// without the mark, and the keys it carries.
pub(super) struct PyLine {
    pub(super) function: Option<Function>,
    pub(super) source: u32,
    pub(super) text: &'static str,
    pub(super) marks: Vec<&'static str>,
}

fn py_lines(program: &'static Program) -> &'static [PyLine] {
    static LINES: Cache<Vec<(&'static str, Vec<PyLine>)>> = Cache::new();
    each_program(&LINES, program, py_lines_of)
}

fn py_lines_of(program: &'static Program) -> Vec<PyLine> {
    py_lines_in(program, program.python_in(""))
}

/// The lines of one of a program's Python listings.
pub(super) fn py_lines_in(program: &'static Program, text: &'static str) -> Vec<PyLine> {
    let mut current = None;
    text.lines()
        .enumerate()
        .map(|(i, line)| {
            if let Some(rest) = line.strip_prefix("def ") {
                let name = rest.split('(').next().unwrap_or("");
                current = program.functions.iter().copied().find(|f| f.name() == name);
            } else if !line.starts_with(' ') && !line.trim().is_empty() {
                current = None;
            }
            let (text, marks) = match line.split_once("  #| ") {
                Some((code, marks)) => (code.trim_end(), marks.split_whitespace().collect()),
                None => (line, Vec::new()),
            };
            PyLine { function: current, source: i as u32 + 1, text, marks }
        })
        .collect()
}

/// The Python listing of one function: from its `def` to its last line,
/// numbered from 1.
pub fn python_listing(function: Function) -> &'static Listing {
    static LISTINGS: Cache<Vec<(Function, Listing)>> = Cache::new();
    each(&LISTINGS, function, |f| listing_of(py_lines(programs::of(f)), f))
}

/// The listing of `function` in a Python text's lines: from its `def` to
/// its last line, numbered from 1.
pub(super) fn listing_of(py_lines: &[PyLine], function: Function) -> Listing {
    let mut lines: Vec<ListingLine> = py_lines
        .iter()
        .filter(|l| l.function == Some(function))
        .map(|l| ListingLine { source: l.source, number: None, text: l.text, hidden: false })
        .collect();
    while lines.last().is_some_and(|l| l.text.trim().is_empty()) {
        lines.pop();
    }
    for (n, line) in lines.iter_mut().enumerate() {
        line.number = Some(n as u32 + 1);
    }
    Listing::plain(function, lines)
}

/// The Python listing of one function as its program writes it in the
/// language `lang` (a code; the default listing when it has none). The
/// lines and their numbers are the default listing's: only the words
/// differ.
pub fn python_listing_in(function: Function, lang: &str) -> &'static Listing {
    type Written = Vec<((Function, &'static str), Listing)>;
    static LISTINGS: Cache<Written> = Cache::new();
    let all = LISTINGS.get_or_init(|| {
        let mut all = Vec::new();
        for program in programs::ALL.iter().filter(|p| p.loaded()) {
            for (code, text) in program.python.iter().skip(1) {
                let lines = py_lines_in(program, text.get());
                for f in program.functions {
                    let shown = python_listing(*f).lines.iter().map(|l| {
                        let text = lines.get(l.source as usize - 1).map_or("", |x| x.text);
                        ListingLine { text, ..l.clone() }
                    });
                    all.push(((*f, *code), Listing::plain(*f, shown.collect())));
                }
            }
        }
        all
    });
    all.iter().find(|(key, _)| *key == (function, lang)).map_or_else(|| python_listing(function), |(_, l)| l)
}

/// Every key of a function with its line in the Rust or the program's own
/// Python listing, worked out once: the page asks for them at every step
/// and for every line it draws.
pub(super) fn key_lines(code: Code, function: Function) -> &'static [(Key, u32)] {
    /// Per function: each key and its line in the Rust and in the Python.
    type Table = [Vec<(Key, u32)>; 2];
    static TABLES: Cache<Vec<(Function, Table)>> = Cache::new();
    let tables = each(&TABLES, function, |f| {
        [Code::Rust, Code::Python].map(|code| keys(f).into_iter().map(|k| (k, find_line(code, k))).collect())
    });
    &tables[usize::from(code.is_python())]
}

/// Where a key stands in a listing, looked up in the sources.
fn find_line(code: Code, key: Key) -> u32 {
    let (function, label, k) = key;
    match code {
        Code::Rust => {
            let l = listing(function);
            if label == "call" {
                return l.signature_line();
            }
            let points = points(programs::of(function));
            points.iter().find(|p| p.key == key).map_or(0, |p| l.display_line(p.source, p.attach))
        }
        Code::Python | Code::Authored(_) => {
            let first = python_listing(function).lines.first().map_or(0, |l| l.source);
            if label == "call" {
                return 1;
            }
            let numbered = format!("{label}@{k}");
            py_lines(programs::of(function))
                .iter()
                .filter(|l| l.function == Some(function))
                .filter(|l| l.marks.iter().any(|m| *m == label || *m == numbered))
                .map(|l| l.source + 1 - first)
                .next_back()
                .unwrap_or(0)
        }
    }
}

/// The names a Python function has: its parameters and every name it
/// assigns (`x = …`, `for x in`, `except … as x`, a nested `def x`). The
/// page shows a recorded local in the Python listing only under a name the
/// Python has.
pub fn python_names(function: Function) -> &'static [String] {
    static NAMES: Cache<Vec<(Function, Vec<String>)>> = Cache::new();
    each::<Vec<String>>(&NAMES, function, |f| names_of(python_listing(f), f))
}

/// The parameter names of a `def` from the text after its `(` (a def
/// over several lines too): `question, max_calls=5):` → question,
/// max_calls; `*args` is `args`.
pub(super) fn parameters(after_open: &str) -> Vec<String> {
    // The text between the parentheses, cut at the commas outside brackets and quotes.
    let (mut depth, mut quote, mut names, mut piece) = (0, None, Vec::new(), String::new());
    for c in after_open.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '(' | '[' | '{') => depth += 1,
            (None, ')') if depth == 0 => break,
            (None, ')' | ']' | '}') => depth -= 1,
            (None, ',') if depth == 0 => names.push(std::mem::take(&mut piece)),
            (None, c) => piece.push(c),
        }
    }
    names.push(piece);
    let name =
        |p: &String| p.split([':', '=']).next().unwrap_or("").trim().trim_start_matches('*').to_string();
    names.iter().map(name).filter(|n| !n.is_empty() && n != "/").collect()
}

/// The names of a Python function in its listing (see [`python_names`]).
pub(super) fn names_of(listing: &Listing, f: Function) -> Vec<String> {
    {
        let mut names = Vec::new();
        let word =
            |s: &str| s.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect::<String>();
        for line in listing.lines.iter().map(|l| l.text.trim()) {
            if let Some(params) = line.strip_prefix(&format!("def {}(", f.name())) {
                names.extend(parameters(params));
            } else if let Some(rest) = line.strip_prefix("def ").or_else(|| line.strip_prefix("for ")) {
                names.push(word(rest));
            } else if let Some((_, rest)) = line.split_once(" as ").filter(|_| line.starts_with("except ")) {
                names.push(word(rest));
            } else if let Some((left, _)) = line.split_once(" = ") {
                let left = left.trim();
                if word(left) == left {
                    names.push(left.to_string());
                }
            }
        }
        crate::vocab::sort_small(&mut names);
        names.dedup();
        names
    }
}
