//! The locals panel of a Python listing: the names a CPython frame holds
//! at a line, read from snapshots that hold only what their line uses.
//!
//! A snapshot of the Rust recording names the locals its line reads. The
//! Python frame holds more: every name bound earlier in the call keeps its
//! last value (a loop's variable outlives the loop), and the record is
//! there under its name once the frame has it. So the panel walks back
//! through the frame's earlier steps. Two rules of Python's scoping are
//! read from the listing itself: at a `for` line this pass's item is not
//! bound yet, and a name bound by `except … as name` is gone once the
//! handler ends. tests/python.rs holds the result to CPython's `f_locals`
//! at every stop of every shipped scenario.

use crate::i18n::Lang;
use crate::lesson::{line_in, listing_shown, names_in};
use crate::run::Trace;
use crate::trace::{Attach, Event, Step};
use crate::vocab::Code;
use serde_json::Value;

/// A name's value id, or [`GONE`]: out of scope here (kept so that an
/// older value is not taken instead).
type Kept = Vec<(&'static str, u32)>;
const GONE: u32 = u32::MAX;

/// A step's locals as the listing shows them. In the Rust, what the
/// snapshot holds. In the Python, every name of the Python function the
/// frame holds at that line (and `return`). A recorded program's steps
/// already hold CPython's whole frame.
pub fn frame_locals(trace: &Trace, at: usize, code: Code) -> Value {
    let Some(step) = trace.steps.get(at) else { return Value::Null };
    if !code.is_python() {
        return trace.locals_json(step);
    }
    let names = names_in(code, step.function);
    let scope = Scope::of(code, step, trace.lang);
    let mut kept = Kept::new();
    for (name, value) in trace.locals.pairs(step.locals) {
        if scope.wanted(name, names) && !scope.items.contains(&name) {
            kept.push((name, value));
        }
    }
    let recorded = crate::programs::recorded::of(step.function).is_some();
    let has_record = !recorded && walk_back(trace, at, &scope, names, &mut kept);
    let mut map = serde_json::Map::new();
    let record = crate::programs::of(step.function).record;
    if has_record && names.iter().any(|n| n == record) {
        let len = (step.record_len as usize).min(trace.record.len());
        map.insert(record.into(), Value::String(crate::preview::record_ref(len)));
    }
    kept.retain(|(_, v)| *v != GONE);
    crate::vocab::sort_small_by_key(&mut kept, |(k, _)| *k);
    for (name, value) in kept {
        map.insert(name.into(), trace.locals.value_json(value));
    }
    Value::Object(map)
}

/// Add what the frame's earlier steps bound to `kept`: back until every
/// name the recording has for the function is found (or is an argument of
/// the call), then the call's arguments; whether the frame has the record.
/// (A long loop finds its names within a pass: the walk does not go back
/// over every pass to the arguments, which only the call step holds.)
fn walk_back(trace: &Trace, at: usize, scope: &Scope, names: &[String], kept: &mut Kept) -> bool {
    let steps = &trace.steps;
    let step = &steps[at];
    // The frame's call: a quick scan of depths (no locals read).
    let inside = (0..at).rev().take_while(|&i| steps[i].depth >= step.depth);
    let call = inside.filter(|&i| steps[i].depth == step.depth).find(|&i| steps[i].event == Event::Call);
    let called: Vec<&str> =
        call.map_or(Vec::new(), |i| trace.locals.pairs(steps[i].locals).map(|p| p.0).collect());
    let findable: Vec<&str> = trace
        .locals
        .names_of(step.function, step.locals)
        .filter(|n| *n != "return" && scope.wanted(n, names))
        .collect();
    let record = crate::programs::of(step.function).record;
    let wants_record = names.iter().any(|n| n == record);
    let missing =
        |kept: &Kept| findable.iter().any(|n| !called.contains(n) && kept.iter().all(|(k, _)| k != n));
    let mut has_record = step.has_record();
    let mut last_set = step.locals;
    for s in steps[call.map_or(0, |c| c + 1)..at].iter().rev() {
        if s.depth < step.depth || (!missing(kept) && (has_record || !wants_record)) {
            break;
        }
        if s.depth > step.depth || s.event == Event::Return {
            continue;
        }
        has_record |= s.has_record();
        if s.locals != last_set || !scope.items.is_empty() {
            add(trace, s, scope, names, kept);
            last_set = s.locals;
        }
    }
    if let Some(c) = call {
        add(trace, &steps[c], scope, names, kept);
    }
    has_record
}

/// The names of `s`'s snapshot that `kept` has no value for yet.
fn add(trace: &Trace, s: &Step, scope: &Scope, names: &[String], kept: &mut Kept) {
    let line = if scope.handlers.is_empty() { 0 } else { line_in(scope.code, s) };
    for (name, value) in trace.locals.pairs(s.locals) {
        if scope.wanted(name, names) && kept.iter().all(|(k, _)| *k != name) {
            kept.push((name, if scope.ended(name, line) { GONE } else { value }));
        }
    }
}

/// What the listing says of the line a step stands on.
struct Scope {
    code: Code,
    /// Its line.
    line: u32,
    /// The names a `for` line binds (`for call in calls:` binds `call`).
    items: Vec<&'static str>,
    /// Each `except … as name` of the function: the name and the lines of
    /// its handler (after the `except` line, to the last one indented
    /// under it).
    handlers: Vec<(&'static str, u32, u32)>,
}

impl Scope {
    fn of(code: Code, step: &Step, lang: Lang) -> Scope {
        // (a frame that returns has left every handler: CPython unbinds
        // the name before the return event)
        let line = if step.event == Event::Return { 0 } else { line_in(code, step) };
        let lines = &listing_shown(code, step.function, lang).lines;
        let text = |n: u32| lines.iter().find(|l| l.number == Some(n)).map_or("", |l| l.text);
        let head = step.attach() == Attach::Above && step.event == Event::Line;
        let items = match text(line).trim().strip_prefix("for ").and_then(|t| t.split_once(" in ")) {
            Some((target, _)) if head => {
                target.split(',').map(|t| t.trim_matches([' ', '(', ')', '[', ']', '*'])).collect()
            }
            _ => Vec::new(),
        };
        let numbered: Vec<(u32, &'static str)> =
            lines.iter().filter_map(|l| Some((l.number?, l.text))).collect();
        Scope { code, line, items, handlers: handlers(&numbered) }
    }

    fn wanted(&self, name: &str, names: &[String]) -> bool {
        name == "return" || names.iter().any(|n| n == name)
    }

    /// A value of `name` bound on `line` is gone here: its handler ended.
    fn ended(&self, name: &str, line: u32) -> bool {
        let inside = |n: u32, a: u32, b: u32| a < n && n <= b;
        self.handlers.iter().any(|&(x, a, b)| x == name && inside(line, a, b) && !inside(self.line, a, b))
    }
}

/// The `except … as name` handlers of a function's lines.
fn handlers(lines: &[(u32, &'static str)]) -> Vec<(&'static str, u32, u32)> {
    let indent = |t: &str| t.len() - t.trim_start().len();
    let mut found = Vec::new();
    for (i, &(n, text)) in lines.iter().enumerate() {
        let Some(rest) = text.trim().strip_prefix("except ") else { continue };
        let rest = rest.split('#').next().unwrap_or("").trim_end();
        let Some(name) = rest.split(" as ").nth(1).map(|r| r.trim_end_matches(':').trim()) else { continue };
        let body = lines[i + 1..].iter().take_while(|(_, t)| t.trim().is_empty() || indent(t) > indent(text));
        let end = body.filter(|(_, t)| !t.trim().is_empty()).map(|(m, _)| *m).last().unwrap_or(n);
        found.push((name, n, end));
    }
    found
}
