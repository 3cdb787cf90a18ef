//! A function's listing cut from its program's real Rust source, and the
//! number a step shows in it.
//!
//! Listings are built from the program's `include_str!` of the very file
//! that was compiled (`runtime.rs` for the lesson), so the code shown is
//! the code that ran. Instrumentation
//! lines (`before!`, `head!`) are kept but marked hidden; visible lines are
//! numbered 1, 2, 3 … per function, and those numbers are what trace steps
//! carry.

use crate::pack::Cache;
use crate::programs::{self, Program};
use crate::trace::{Attach, Event, Step};
use crate::vocab::Function;
use serde::Serialize;

/// One line of a listing.
#[derive(Clone, Debug, Serialize)]
pub struct ListingLine {
    /// Line number in `runtime.rs`.
    pub source: u32,
    /// Number as displayed; `None` for hidden instrumentation lines.
    pub number: Option<u32>,
    pub text: &'static str,
    pub hidden: bool,
}

/// The source of one function as the page shows it.
#[derive(Clone, Debug, Serialize)]
pub struct Listing {
    pub function: Function,
    pub lines: Vec<ListingLine>,
    /// Per source line (from the first line): the displayed number of the
    /// next and of the previous visible line — what a snapshot attaches to.
    #[serde(skip)]
    attach: Vec<(u32, u32)>,
}

impl Listing {
    /// A listing whose every line shows (the Python).
    pub(super) fn plain(function: Function, lines: Vec<ListingLine>) -> Listing {
        Listing { function, lines, attach: Vec::new() }
    }

    fn cut(function: Function) -> Listing {
        let program = programs::of(function);
        let all: Vec<&'static str> = program.rust.get().lines().collect();
        let signature = format!("pub fn {}(", function.name());
        let start = all
            .iter()
            .position(|l| l.starts_with(&signature))
            .unwrap_or_else(|| panic!("the Rust of {} has no `{signature}`", program.name));
        // Doc comments directly above belong to the function.
        let mut first = start;
        while first > 0 && all[first - 1].starts_with("///") {
            first -= 1;
        }
        let end = function_end(&all, start);
        let mut number = 0;
        let lines = (first..=end)
            .map(|i| {
                let text = all[i];
                let hidden = is_instrumentation(text);
                let shown = if hidden {
                    None
                } else {
                    number += 1;
                    Some(number)
                };
                ListingLine { source: i as u32 + 1, number: shown, text, hidden }
            })
            .collect::<Vec<ListingLine>>();
        let attach = lines
            .iter()
            .map(|l| {
                let next = lines.iter().find(|x| x.source > l.source && !x.hidden).and_then(|x| x.number);
                let above =
                    lines.iter().rev().find(|x| x.source < l.source && !x.hidden).and_then(|x| x.number);
                (next.unwrap_or(0), above.unwrap_or(0))
            })
            .collect();
        Listing { function, lines, attach }
    }

    /// Displayed number of the `pub fn` line (where `call` events sit).
    pub fn signature_line(&self) -> u32 {
        let signature = format!("pub fn {}(", self.function.name());
        self.lines.iter().find(|l| l.text.starts_with(&signature)).and_then(|l| l.number).unwrap_or(1)
    }

    /// Displayed number for a snapshot taken at `source_line`.
    pub fn display_line(&self, source_line: u32, attach: Attach) -> u32 {
        let first = self.lines.first().map_or(0, |l| l.source);
        if let Some(&(next, above)) = source_line.checked_sub(first).and_then(|i| self.attach.get(i as usize))
        {
            return if attach == Attach::Next { next } else { above };
        }
        let found = match attach {
            Attach::Next => self.lines.iter().find(|l| l.source > source_line && !l.hidden),
            Attach::Above => self.lines.iter().rev().find(|l| l.source < source_line && !l.hidden),
        };
        found.and_then(|l| l.number).unwrap_or(0)
    }

    /// Number of visible lines.
    pub fn len(&self) -> u32 {
        self.lines.iter().filter_map(|l| l.number).max().unwrap_or(0)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The visible line with this number.
    pub fn line(&self, number: u32) -> Option<&ListingLine> {
        self.lines.iter().find(|l| l.number == Some(number))
    }

    /// Visible lines that start a statement: where a snapshot must exist.
    /// (Blank lines, comments, braces, `else`, match arms that only pass a
    /// value on, and continuation lines of a longer statement are not.)
    pub fn executable_lines(&self) -> Vec<u32> {
        let mut out = Vec::new();
        let mut previous = "";
        let mut in_signature = false;
        let mut open = 0i32; // unclosed ( and [ : inside a longer expression
        for line in self.lines.iter().filter(|l| !l.hidden) {
            let t = line.text.trim();
            let nested = open > 0;
            open += paren_balance(t);
            let code = !(t.is_empty() || t.starts_with("//") || t.starts_with('}') || t.starts_with(')'));
            if t.starts_with("pub fn ") || in_signature {
                in_signature = !t.ends_with('{');
            } else if code {
                let continues = !(previous.ends_with(';')
                    || previous.ends_with('{')
                    || previous.ends_with('}')
                    || previous.ends_with("},")
                    || previous.starts_with("//"));
                let arm = t.contains("=> ") && t.ends_with(',');
                let arm_open = t.ends_with("=> {");
                if !continues && !arm && !arm_open && !nested {
                    out.push(line.number.unwrap_or(0));
                }
            }
            if !t.is_empty() && !t.starts_with("//") {
                previous = t;
            }
        }
        out
    }
}

/// The line that closes the function starting at `start`: where its braces
/// balance again (braces in strings and comments do not count).
fn function_end(all: &[&str], start: usize) -> usize {
    let mut depth = 0i32;
    let mut opened = false;
    for (i, line) in all.iter().enumerate().skip(start) {
        depth += balance(line, '{', '}');
        opened |= depth > 0;
        if opened && depth <= 0 {
            return i;
        }
    }
    all.len() - 1
}

/// `(`/`[` opened minus closed on a line, ignoring string literals.
fn paren_balance(line: &str) -> i32 {
    balance(line, '(', ')') + balance(line, '[', ']')
}

/// `open` minus `close` on a line, outside string literals and `//` comments.
fn balance(line: &str, open: char, close: char) -> i32 {
    let mut in_string = false;
    let mut escaped = false;
    let mut balance = 0;
    let mut previous = ' ';
    for c in line.chars() {
        match (in_string, c) {
            (true, '\\') if !escaped => {
                escaped = true;
                continue;
            }
            (true, '"') if !escaped => in_string = false,
            (false, '"') => in_string = true,
            (false, '/') if previous == '/' => break,
            (false, c) if c == open => balance += 1,
            (false, c) if c == close => balance -= 1,
            _ => {}
        }
        escaped = false;
        previous = c;
    }
    balance
}

fn is_instrumentation(text: &str) -> bool {
    let t = text.trim_start();
    t.starts_with("before!(") || t.starts_with("head!(")
}

/// The listing of one function (cut once, then shared).
pub fn listing(function: Function) -> &'static Listing {
    static LISTINGS: Cache<Vec<(Function, Listing)>> = Cache::new();
    each(&LISTINGS, function, Listing::cut)
}

/// A value worked out once for every function of every program whose
/// texts are here (a function without one gets the first one's: lesson
/// one's, always here), again after a pack arrives.
pub(super) fn each<T: Send + Sync>(
    cell: &'static Cache<Vec<(Function, T)>>,
    function: Function,
    make: fn(Function) -> T,
) -> &'static T {
    let here = programs::functions().filter(|f| programs::of(*f).loaded());
    let all = cell.get_or_init(|| here.map(|f| (f, make(f))).collect());
    &all.iter().find(|(f, _)| *f == function).unwrap_or(&all[0]).1
}

/// A list worked out once for every program whose texts are here (by its
/// name; empty for one whose pack has not arrived).
pub(super) fn each_program<T: Send + Sync>(
    cell: &'static Cache<Vec<(&'static str, Vec<T>)>>,
    program: &'static Program,
    make: fn(&'static Program) -> Vec<T>,
) -> &'static [T] {
    let all =
        cell.get_or_init(|| programs::ALL.iter().filter(|p| p.loaded()).map(|p| (p.name, make(p))).collect());
    all.iter().find(|(name, _)| *name == program.name).map_or(&[], |(_, items)| items)
}

/// The number a step shows in its function's listing: the signature line
/// for a `call` event, else the visible line its snapshot attaches to.
pub fn line(step: &Step) -> u32 {
    if crate::programs::recorded::of(step.function).is_some() {
        return step.source_line();
    }
    let listing = listing(step.function);
    if step.event == Event::Call {
        listing.signature_line()
    } else {
        listing.display_line(step.source_line(), step.attach())
    }
}
