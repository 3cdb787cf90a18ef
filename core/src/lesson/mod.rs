//! What the page shows of a program: its listings (the Rust cut from the
//! source that was compiled, the Python with its marks — [`listing`],
//! `python`), the listing line of every step, the stage of every step (from
//! the program's table), the captions for those stages (words from
//! [`crate::i18n`]) and the trace format the CLI writes.

use crate::i18n::{self, Lang};
use crate::programs;
use crate::run::Trace;
use crate::trace::{Event, Step};
use crate::vocab::{Code, Function};
use serde::Serialize;
use serde_json::Value;

mod authored;
mod listing;
mod python;
mod recorded;
pub mod stamp;
pub use authored::{program_of as listing_program, register as register_listing, Finding};
pub use listing::{line, listing, Listing, ListingLine};
pub use python::{keys, labels_of, python_listing, python_listing_in, python_names, step_key, Key};

/// The listing of a function in a listing language: the Rust, the
/// program's Python, or an author's.
pub fn listing_in(code: Code, function: Function) -> &'static Listing {
    if let Some(r) = recorded::of(function) {
        return recorded::listing(r, function, "");
    }
    match code {
        Code::Rust => listing(function),
        Code::Python => python_listing(function),
        Code::Authored(id) => authored::listing(id, function).unwrap_or_else(|| python_listing(function)),
    }
}

/// The listing of a function as the page shows it: the program's Python
/// in the reader's language (the same lines in every language).
pub fn listing_shown(code: Code, function: Function, lang: Lang) -> &'static Listing {
    if let Some(r) = recorded::of(function) {
        return recorded::listing(r, function, lang.code());
    }
    match code {
        Code::Python => python_listing_in(function, lang.code()),
        other => listing_in(other, function),
    }
}

/// Every key of a function with its line in a listing.
fn key_lines(code: Code, function: Function) -> &'static [(Key, u32)] {
    if recorded::of(function).is_some() {
        return recorded::key_lines(function);
    }
    match code {
        Code::Authored(id) => authored::key_lines(id, function).unwrap_or_default(),
        other => python::key_lines(other, function),
    }
}

/// Where a key stands in a listing (its displayed line number; 0: nowhere).
pub fn line_of_key(code: Code, key: Key) -> u32 {
    key_lines(code, key.0).iter().find(|(k, _)| *k == key).map_or(0, |(_, line)| *line)
}

/// The line a step shows in a listing.
pub fn line_in(code: Code, step: &Step) -> u32 {
    if recorded::of(step.function).is_some() {
        return step.source_line();
    }
    match code {
        Code::Rust => line(step),
        other => line_of_key(other, step_key(step)),
    }
}

/// The keys that stand on a line of a listing (none: the run never stops
/// there).
pub fn keys_on_line(code: Code, function: Function, line: u32) -> Vec<Key> {
    key_lines(code, function).iter().filter(|(_, l)| *l == line).map(|(k, _)| *k).collect()
}

/// The lines of a listing where the run can stop, in order.
pub fn stoppable_lines_in(code: Code, function: Function) -> Vec<u32> {
    let mut lines: Vec<u32> = key_lines(code, function).iter().map(|(_, n)| *n).filter(|n| *n > 0).collect();
    crate::vocab::sort_small(&mut lines);
    lines.dedup();
    lines
}

/// The labels of `entry`'s program (a recorded program's are its own).
pub fn labels_of_entry(entry: Function) -> Vec<&'static str> {
    match recorded::of(entry) {
        Some(r) => r.labels.iter().map(|(label, _)| *label).collect(),
        None => python::labels_of(programs::of(entry)),
    }
}

/// Where a label of `entry`'s program sits in a listing: `(function,
/// line)` of its first use (a recorded program's labels are its own).
pub fn label_line(entry: Function, code: Code, label: &str) -> Option<(Function, u32)> {
    match recorded::of(entry) {
        Some(r) => recorded::line_of_label(r, label),
        None => line_of_label_in(code, label),
    }
}

/// Where a label sits in a listing: `(function, line)` of its first use.
/// Labels survive code moves, so authors set breakpoints by them.
pub fn line_of_label_in(code: Code, label: &str) -> Option<(Function, u32)> {
    python::all_points().find(|p| p.key.1 == label).map(|p| (p.key.0, line_of_key(code, p.key)))
}

/// The names a function has in a Python listing (the page shows a local
/// only under a name the listing on screen has).
pub fn names_in(code: Code, function: Function) -> &'static [String] {
    if let Some(r) = recorded::of(function) {
        return recorded::names(r, function);
    }
    match code {
        Code::Authored(id) => authored::names(id, function).unwrap_or_else(|| python_names(function)),
        _ => python_names(function),
    }
}

/// The caption stage of a step.
pub fn stage(step: &Step) -> &'static str {
    (programs::of(step.function).stage)(step.function, step.label)
}

/// The title a labelled line is said by (its own caption's, else its
/// stage's), for a place named in the learner's words.
pub fn label_title(function: Function, label: &str, lang: Lang) -> Option<&'static str> {
    let stage = (programs::of(function).stage)(function, label);
    let own = lang.caption(label).map(|(title, _)| title).filter(|t| !t.is_empty());
    own.or_else(|| lang.caption(stage).map(|(title, _)| title)).filter(|t| !t.is_empty())
}

/// The part of the figure a step's stage is about.
pub fn part(step: &Step) -> programs::Part {
    (programs::of(step.function).part)(stage(step))
}

/// A step as the trace format writes it (docs/trace-format.md).
#[derive(Serialize)]
struct StepOut<'a> {
    function: Function,
    line: u32,
    label: &'a str,
    depth: u16,
    event: Event,
    locals: Value,
    record_len: u32,
    output_len: u32,
    stage: &'a str,
}

fn step_out<'a>(trace: &Trace, st: &'a Step) -> StepOut<'a> {
    StepOut {
        function: st.function,
        line: line(st),
        label: st.label,
        depth: st.depth,
        event: st.event,
        locals: trace.locals_json(st),
        record_len: st.record_len,
        output_len: st.output_len,
        stage: stage(st),
    }
}

/// One step in the trace format's JSON shape, locals included.
pub fn step_json(trace: &Trace, st: &Step) -> Value {
    serde_json::to_value(step_out(trace, st)).unwrap_or(Value::Null)
}

/// A whole trace in the trace format (docs/trace-format.md): what the CLI's
/// `trace` command prints and the golden files hold.
pub fn trace_json(trace: &Trace) -> impl Serialize + '_ {
    TraceOut(trace)
}

struct TraceOut<'a>(&'a Trace);

impl Serialize for TraceOut<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        struct Steps<'a>(&'a Trace);
        impl Serialize for Steps<'_> {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_seq(self.0.steps.iter().map(|st| step_out(self.0, st)))
            }
        }
        let t = self.0;
        let mut out = s.serialize_struct("Trace", 10)?;
        out.serialize_field("scenario", &t.scenario)?;
        out.serialize_field("function", &t.function)?;
        out.serialize_field("result", &t.returned())?;
        out.serialize_field("error", &t.error)?;
        out.serialize_field("output", &t.output)?;
        out.serialize_field("printed", &t.printed)?;
        out.serialize_field("lang", t.lang.code())?;
        out.serialize_field("record", &t.record)?;
        out.serialize_field("steps", &Steps(t))?;
        out.serialize_field("max_calls", &t.max_calls)?;
        out.end()
    }
}

/// The model request a recorded program's run sends from the stop at
/// `position` (docs/program-format.md, `requests`), if it sends one there.
pub fn request_at(trace: &Trace, position: usize) -> Option<&'static programs::recorded::Sent> {
    recorded::request_at(recorded::of(trace.function)?, trace, position)
}

/// The caption of step `position` in `lang`, with live values filled in:
/// `(title, body)`. Placeholders are `{name}`; see [`fill_value`]. A value
/// is quoted as the run has it (the run speaks the caption's language); a
/// value this run really does not have is said in words.
pub fn caption(lang: Lang, trace: &Trace, position: usize) -> (String, String) {
    let Some(step) = trace.steps.get(position) else { return (String::new(), String::new()) };
    if let Some(r) = recorded::of(step.function) {
        return recorded::caption(r, lang, trace, position);
    }
    let fill = |text: &str| {
        i18n::fill(text, |key| {
            // `{said_no_output}`: a sentence of the program, in the listing's words.
            if let Some(kind) = key.strip_prefix("said_") {
                return Some(lang.said_template(kind).to_string());
            }
            // `{raised}`: the exception's name, and its message when it has one.
            if key == "raised" {
                let Some(name) = fill_value("raised_name", trace, position) else {
                    return Some(lang.word("value_missing").to_string());
                };
                let message = fill_value("raised_message", trace, position).filter(|m| !m.is_empty());
                let said = message
                    .map(|m| lang.fill("raised_with_message", &[("name", name.clone()), ("message", m)]));
                return Some(said.unwrap_or(name));
            }
            let value = fill_value(key, trace, position);
            let shown = |v: String| if key == "status" { lang.status(&v) } else { v };
            Some(value.map_or_else(|| lang.word("value_missing").to_string(), shown))
        })
    };
    // An error with a caption of its own where the program receives it
    // (`core.raised.bad_request`), else the stage's.
    let own = trace.error.as_ref().filter(|_| position + 1 == trace.steps.len());
    let own = own.and_then(|e| lang.caption(&format!("{}.{}", stage(step), e.kind)));
    let stage_caption = lang.caption(stage(step));
    // A line of a stage that spans several says what it adds (a caption
    // under its own label, with an empty title: the stage's).
    let line = lang.caption(step.label).filter(|(title, _)| title.is_empty() && step.label != stage(step));
    let line = line.map(|(_, body)| (stage_caption.map_or(step.label, |(title, _)| title), body));
    match own.or(line).or(stage_caption) {
        Some((title, body)) => (fill(title), fill(body)),
        None => (step.label.to_string(), String::new()),
    }
}

/// How far back a caption looks for a value within its stage.
const LOOK_BACK: usize = 16;

/// The live value for a caption placeholder at step `position`: from that
/// step's locals, else from the earlier steps of the same stage in the same
/// frame (a stage that spans several lines keeps its values on each of
/// them), else `None` when this run has none.
pub fn fill_value(key: &str, trace: &Trace, position: usize) -> Option<String> {
    let step = trace.steps.get(position)?;
    match key {
        "record_len" => return Some(step.record_len.to_string()),
        "record_len_next" => return Some((step.record_len + 1).to_string()),
        "max_calls" => return Some(trace.max_calls.to_string()),
        "status" => return trace.ending().map(str::to_string),
        // A text as the code writes it: quoted, `""` when empty.
        "text_repr" => return fill_value("text", trace, position).map(|t| format!("{t:?}")),
        // A run that was refused made no model call.
        "calls" => return Some(trace.result["calls"].as_i64().unwrap_or(0).to_string()),
        _ => {}
    }
    let first = position.saturating_sub(LOOK_BACK);
    for i in (first..=position).rev() {
        let earlier = &trace.steps[i];
        let same = earlier.function == step.function && earlier.depth == step.depth;
        if !same || stage(earlier) != stage(step) {
            break;
        }
        if let Some(value) = local_value(key, &trace.locals_json(earlier)) {
            return Some(value);
        }
    }
    None
}

/// A placeholder's value in one step's locals.
fn local_value(key: &str, locals: &Value) -> Option<String> {
    let show = |v: &Value| -> Option<String> {
        let text = match v {
            Value::Null => return None,
            Value::String(s) => s.clone(),
            // A number as Python writes it (`3`, not `3.0`).
            Value::Number(n) if n.is_f64() => crate::vocab::Decimal(n.as_f64().unwrap_or(0.0)).to_string(),
            other => other.to_string(),
        };
        let short: String = text.chars().take(80).collect();
        Some(if short.len() < text.len() { format!("{short}…") } else { short })
    };
    let first_line = |v: &Value| v["content"].as_str().map(|c| c.lines().next().unwrap_or("").to_string());
    match key {
        "id" | "name" => show(&locals["call"][key]).or_else(|| show(&locals[key])),
        "call_id" => show(&locals["call"]["id"]),
        "input" => show(&locals["call"]["input"]),
        "error_name" => show(&locals["error"]["name"]),
        "raised_name" => show(&locals["return"]["raised"]["name"]),
        "raised_message" => show(&locals["return"]["raised"]["message"]),
        "is_error" => show(&locals["result"]["is_error"]).or_else(|| show(&locals["return"]["is_error"])),
        "first_line" => first_line(&locals["result"]).or_else(|| first_line(&locals["return"])),
        "reason" => show(&locals["reason"]).or_else(|| show(&locals["response"]["stop_reason"])),
        other => show(&locals[other]),
    }
}

/// Where a trace label sits: `(function, displayed line)`. Lets authors set
/// breakpoints by label (`loop.ask`) that survive code moves.
pub fn line_of_label(label: &str) -> Option<(Function, u32)> {
    line_of_label_in(Code::Rust, label)
}

/// The lines of a function's Rust listing where a run can stop (see
/// [`stoppable_lines_in`]).
pub fn stoppable_lines(function: Function) -> Vec<u32> {
    stoppable_lines_in(Code::Rust, function)
}

/// Every label used in `runtime.rs`, in source order.
pub fn labels() -> Vec<&'static str> {
    python::labels()
}
