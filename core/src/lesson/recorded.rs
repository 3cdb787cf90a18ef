//! What the page shows of a recorded program (`programs::recorded`): its
//! listing per language, as the file has it (its own line numbers), where
//! a step stands in it (the line CPython reported, on its statement's
//! first), the lines a run stops at, and the captions — the author's,
//! with `{name}` filled from the step's locals, else one said from the
//! step's event in the reader's language.
//!
//! A step of a recorded program is known by its function and line (its
//! key's label is empty, its occurrence the line): its listing is the one
//! that ran, so a line means the same in every language.

use super::listing::{Listing, ListingLine};
use super::python::Key;
use crate::i18n::{self, Lang};
use crate::preview::read_record_ref;
use crate::programs::recorded::{Recorded, Sent};
use crate::run::Trace;
use crate::trace::{Event, Step};
use crate::vocab::Function;
use serde_json::Value;
use std::sync::RwLock;

/// The recorded program `function` belongs to, if it is one's.
pub(super) fn of(function: Function) -> Option<&'static Recorded> {
    crate::programs::recorded::of(function)
}

/// The listing of `function` in `lang` (the pack's first language when it
/// has none), numbered as the file is; built once.
pub(super) fn listing(recorded: &'static Recorded, function: Function, lang: &str) -> &'static Listing {
    type Built = Vec<(Function, &'static str, &'static Listing)>;
    static BUILT: RwLock<Built> = RwLock::new(Vec::new());
    let text: &'static str = recorded.listing(lang);
    let find =
        |built: &Built| built.iter().find(|(f, t, _)| *f == function && std::ptr::eq(*t, text)).map(|b| b.2);
    if let Some(found) = find(&BUILT.read().unwrap_or_else(|e| e.into_inner())) {
        return found;
    }
    let (start, end) = recorded.span(function).map_or((1, 0), |s| (s.start, s.end));
    let lines = text.lines().enumerate().map(|(i, line)| (i as u32 + 1, line));
    let lines = lines.filter(|(n, _)| (start..=end).contains(n));
    let lines = lines.map(|(n, text)| ListingLine { source: n, number: Some(n), text, hidden: false });
    let listing: &'static Listing = Box::leak(Box::new(Listing::plain(function, lines.collect())));
    BUILT.write().unwrap_or_else(|e| e.into_inner()).push((function, text, listing));
    listing
}

/// Every key of a function with its line: the lines its runs stop at.
pub(super) fn key_lines(function: Function) -> &'static [(Key, u32)] {
    type Built = Vec<(Function, &'static [(Key, u32)])>;
    static BUILT: RwLock<Built> = RwLock::new(Vec::new());
    if let Some(found) = BUILT.read().unwrap_or_else(|e| e.into_inner()).iter().find(|(f, _)| *f == function)
    {
        return found.1;
    }
    let keys: Vec<(Key, u32)> =
        super::python::keys(function).into_iter().map(|k| (k, u32::from(k.2))).collect();
    let keys: &'static [(Key, u32)] = Box::leak(keys.into_boxed_slice());
    BUILT.write().unwrap_or_else(|e| e.into_inner()).push((function, keys));
    keys
}

/// The names a function's steps have.
pub(super) fn names(recorded: &'static Recorded, function: Function) -> &'static [String] {
    recorded.names.iter().find(|(f, _)| *f == function).map_or(&[], |(_, names)| names.as_slice())
}

/// Where a label stands: the function whose lines hold it, and its line.
pub(super) fn line_of_label(recorded: &'static Recorded, label: &str) -> Option<(Function, u32)> {
    let (_, line) = recorded.labels.iter().find(|(l, _)| *l == label)?;
    let span = recorded.spans.iter().find(|s| (s.start..=s.end).contains(line))?;
    Some((span.function, *line))
}

/// The parameters of `function` as its `def` line in the listing names
/// them (`def agent_loop(question, max_calls=5):` → question, max_calls).
fn parameters(recorded: &Recorded, function: Function) -> Vec<String> {
    let Some(span) = recorded.spans.iter().find(|s| s.function == function) else { return Vec::new() };
    let Some((_, text)) = recorded.listings.first() else { return Vec::new() };
    let from: String = text.lines().skip(span.start as usize - 1).take(20).collect::<Vec<_>>().join("\n");
    let Some(open) = from.find(&format!("def {}(", function.name())).map(|at| at + 5 + function.name().len())
    else {
        return Vec::new();
    };
    super::python::parameters(&from[open..])
}

/// The characters of a value a caption shows.
const SHOWN: usize = 80;

/// A value as a caption quotes it: a text as it is, anything else as
/// Python writes it (as the locals beside it), the record in words; at
/// most [`SHOWN`] characters.
fn quoted(value: &Value, lang: Lang) -> String {
    let text = match value {
        Value::String(s) => match read_record_ref(s) {
            Some(n) => lang.fill("record_ref", &[("n", n.to_string())]),
            None => s.clone(),
        },
        other => said_refs(&crate::vocab::py_repr(other), lang),
    };
    let short: String = text.chars().take(SHOWN).collect();
    if short.len() < text.len() {
        format!("{short}…")
    } else {
        short
    }
}

/// A value as a call or a return writes it, as the code would: a text
/// in Python's quotes (`question='Where is A-17?'`; a long one cut inside
/// them), anything else as [`quoted`] says it.
fn as_code(value: &Value, lang: Lang) -> String {
    match value.as_str().filter(|s| read_record_ref(s).is_none()) {
        Some(text) => crate::vocab::py_repr_cut(text, SHOWN),
        None => quoted(value, lang),
    }
}

/// `text` (a value as Python writes it) with each record it holds, the
/// preview's `'(the record, n = 4)'`, said in the reader's language as the
/// locals say it.
fn said_refs(text: &str, lang: Lang) -> String {
    const OPEN: &str = "(the record, n = ";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(OPEN) {
        let quote = rest[..at].chars().next_back().filter(|c| *c == '\'' || *c == '"');
        let after = &rest[at..];
        let end = after.find(')').map(|e| e + 1);
        match (quote, end.and_then(|e| Some((e, read_record_ref(&after[..e])?)))) {
            (Some(q), Some((e, n))) if after[e..].starts_with(q) => {
                out.push_str(&rest[..at]);
                out.push_str(&lang.fill("record_ref", &[("n", n.to_string())]));
                rest = &after[e..];
            }
            _ => {
                out.push_str(&rest[..at + OPEN.len()]);
                rest = &rest[at + OPEN.len()..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The caption of step `position` of a recorded program's run:
/// `(title, body)`. The title names the function and line; the body is
/// the author's caption of the line's label, else what the step does.
pub(super) fn caption(
    recorded: &'static Recorded,
    lang: Lang,
    trace: &Trace,
    position: usize,
) -> (String, String) {
    let Some(step) = trace.steps.get(position) else { return (String::new(), String::new()) };
    let locals = trace.locals_json(step);
    let function = ("function", step.function.name().to_string());
    let title = lang.fill("recorded_title", &[function.clone(), ("line", step.source_line().to_string())]);
    let body = match step.event {
        Event::Call => {
            let mut args: Vec<_> = locals.as_object().into_iter().flatten().collect();
            // (as the def line lists them; a name it lacks after them, as the locals are)
            let order = parameters(recorded, step.function);
            crate::vocab::sort_small_by_key(&mut args, |(k, _)| {
                order.iter().position(|p| p == *k).unwrap_or(order.len())
            });
            let args: Vec<String> = args.iter().map(|(k, v)| format!("{k}={}", as_code(v, lang))).collect();
            lang.fill("recorded_call", &[function, ("args", args.join(", "))])
        }
        Event::Return if step.label == "raise" => {
            let message = quoted(&locals["return"]["raised"], lang);
            lang.fill("recorded_raise", &[function, ("message", message)])
        }
        Event::Return => {
            lang.fill("recorded_return", &[function, ("value", as_code(&locals["return"], lang))])
        }
        Event::Exception => match locals["raise"].as_str().and_then(crate::api::refused_message) {
            // (a refused request: the API's own words, whole; the card shows them too)
            Some(message) => {
                let kind = locals["raise"].as_str().and_then(|r| r.split(':').next()).unwrap_or_default();
                lang.fill("recorded_refused", &[("kind", kind.to_string()), ("message", message)])
            }
            None => lang.fill("recorded_exception", &[("message", quoted(&locals["raise"], lang))]),
        },
        Event::Error => return (step.label.to_string(), String::new()),
        Event::Line => line_caption(recorded, lang, trace, position, &locals),
    };
    (title, body)
}

/// A line's caption: the author's for its label (placeholders from the
/// locals), else the record's new length when the line appends to it,
/// else the line's number.
fn line_caption(
    recorded: &'static Recorded,
    lang: Lang,
    trace: &Trace,
    position: usize,
    locals: &Value,
) -> String {
    let step = &trace.steps[position];
    if let Some(text) = recorded.caption(step.label, lang.code()).filter(|_| !step.label.is_empty()) {
        let missing = lang.word("value_missing");
        return i18n::fill(text, |name| {
            Some(locals.get(name).map_or(missing.to_string(), |v| quoted(v, lang)))
        });
    }
    // (after the steps of this line: a statement over several lines may
    // have several)
    let same = |s: &Step| s.event == Event::Line && (s.function, s.depth) == (step.function, step.depth);
    let after =
        trace.steps[position + 1..].iter().find(|s| !(same(s) && s.source_line() == step.source_line()));
    match after.filter(|s| s.record_len > step.record_len) {
        Some(next) => lang.fill("recorded_append", &[("n", next.record_len.to_string())]),
        None => lang.fill("recorded_line", &[("line", step.source_line().to_string())]),
    }
}

/// The model request a recorded run sends from the stop at `position`:
/// one whose step is this one or a later step of the same line in a row
/// (CPython reports a call over several lines more than once; the learner
/// stands on the first of them). None: no request is sent from here.
pub(super) fn request_at(
    recorded: &'static Recorded,
    trace: &Trace,
    position: usize,
) -> Option<&'static Sent> {
    let run = recorded.scenario(&trace.scenario)?.run(trace.lang.code());
    let here = trace.steps.get(position)?;
    let place = |s: &Step| (s.function, s.depth, s.source_line());
    let same = |s: &&Step| s.event == Event::Line && place(s) == place(here);
    let last = position + trace.steps[position..].iter().take_while(same).count().saturating_sub(1);
    let sent_here = |r: &&Sent| r.step.is_some_and(|s| (position..=last).contains(&(s as usize)));
    run.requests.iter().find(sent_here)
}
