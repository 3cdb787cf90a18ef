//! One run of a program pack read and checked: its values, its steps
//! (each in a traced function, on a line of it that holds code, with
//! locals the run has, a record and an output no longer than the run's),
//! its record, output and end.

use super::read::{field, first_line, leak, list, text, whole, Miss, Recorded, Run, RunStep, Sent};
use crate::preview::text_hash;
use crate::trace::Event;
use serde_json::Value;

/// A value kept as the recorder keeps one: its JSON text and its hash.
fn kept(value: &Value) -> (Box<str>, u64) {
    let text = value.to_string();
    let hash = text_hash(&text);
    (text.into_boxed_str(), hash)
}

/// `v[key]`: a list of texts.
fn texts(v: &Value, key: &'static str) -> Result<Vec<String>, Miss> {
    let all = list(v, key)?.iter().map(|t| t.as_str().map(str::to_string));
    all.collect::<Option<Vec<String>>>().ok_or(field(key))
}

/// What is wrong with a run: the step it is in (none: the run itself).
type Wrong = (Option<usize>, Miss);

/// Read the run `v` of `recorded`, whose listing in its language is
/// `listing`.
pub(super) fn run(recorded: &Recorded, listing: &str, v: &Value) -> Result<Run, Wrong> {
    let whole_run = |m: Miss| (None, m);
    let python = text(v, "python").map_err(whole_run)?.to_string();
    let mut values: Vec<(Box<str>, u64)> = list(v, "values").map_err(whole_run)?.iter().map(kept).collect();
    let record = list(v, "record").map_err(whole_run)?.to_vec();
    let output = texts(v, "output").map_err(whole_run)?;
    let printed = texts(v, "printed").map_err(whole_run)?;
    let end = match (whole(&v["end"], "returned"), v["end"].get("raised").and_then(Value::as_str)) {
        (Ok(i), _) if (i as usize) < values.len() => Ok(i),
        (_, Some(line)) => Err(line.to_string()),
        _ => return Err(whole_run(field("end"))),
    };
    let lines: Vec<&str> = listing.lines().collect();
    let sizes = (record.len(), output.len());
    let raw = list(v, "steps").map_err(whole_run)?;
    let mut steps = Vec::with_capacity(raw.len());
    for (k, step) in raw.iter().enumerate() {
        steps.push(step_of(recorded, &lines, sizes, &mut values, step).map_err(|m| (Some(k), m))?);
    }
    if steps.is_empty() {
        return Err(whole_run(field("steps")));
    }
    let requests = requests(v, steps.len()).map_err(whole_run)?;
    Ok(Run { python, steps, values, record, output, printed, end, requests })
}

/// `requests` (left out: none): each `{step, refused}` and, in a pack
/// recorded since they were kept, `tools` (their names), `max_tokens` and
/// `messages` (how many).
/// A request's step is one of the run's.
fn requests(v: &Value, steps: usize) -> Result<Vec<Sent>, Miss> {
    let Some(all) = v.get("requests").filter(|r| !r.is_null()) else { return Ok(Vec::new()) };
    let mut out = Vec::new();
    for r in all.as_array().ok_or(field("requests"))? {
        let step = match &r["step"] {
            Value::Null => None,
            _ => {
                Some(whole(r, "step").ok().filter(|s| (*s as usize) < steps).ok_or(("departs", "requests"))?)
            }
        };
        let tools = match &r["tools"] {
            Value::Null => None,
            _ => Some(texts(r, "tools").map_err(|_| field("requests"))?),
        };
        let number = |key| match &r[key] {
            Value::Null => Ok(None),
            _ => whole(r, key).map(Some).map_err(|_| field("requests")),
        };
        let (max_tokens, messages) = (number("max_tokens")?, number("messages")?);
        let refused = r["refused"].as_str().map(str::to_string);
        out.push(Sent { step, tools, max_tokens, messages, refused });
    }
    Ok(out)
}

/// One step, checked against its listing's `lines`, the run's record and
/// output sizes and its values (a step's end, a returned value or the
/// exception, joins them as a value of its own).
fn step_of(
    recorded: &Recorded,
    lines: &[&str],
    (records, outputs): (usize, usize),
    values: &mut Vec<(Box<str>, u64)>,
    v: &Value,
) -> Result<RunStep, Miss> {
    let name = text(v, "function")?;
    let span = recorded.spans.iter().find(|s| s.function.name() == name).ok_or(field("function"))?;
    let line = whole(v, "line")?;
    let event = match text(v, "event")? {
        "call" => Event::Call,
        "line" => Event::Line,
        "return" => Event::Return,
        "exception" => Event::Exception,
        _ => return Err(field("event")),
    };
    let code = lines.get(line.saturating_sub(1) as usize).map_or("", |l| l.trim());
    let on_code = !code.is_empty() && !code.starts_with('#');
    if line < span.start || line > span.end || (event == Event::Line && !on_code) {
        return Err(("departs", "line"));
    }
    let (depth, record_len, output_len) =
        (whole(v, "depth")?, whole(v, "record_len")?, whole(v, "output_len")?);
    if record_len as usize > records || output_len as usize > outputs || depth > u32::from(u16::MAX) {
        return Err(("departs", "record_len"));
    }
    let mut locals = Vec::new();
    for (local, index) in v.get("locals").and_then(Value::as_object).ok_or(field("locals"))? {
        let index = index.as_u64().filter(|i| (*i as usize) < values.len()).ok_or(field("locals"))?;
        locals.push((leak(local), index as u32));
    }
    let raised = v.get("raised").and_then(Value::as_str);
    let mut value = |v: Value| {
        values.push(kept(&v));
        (values.len() - 1) as u32
    };
    let ended = match (event, whole(v, "returned"), raised) {
        (Event::Return, Ok(i), _) => Some(("return", i)),
        (Event::Return, _, Some(line)) => Some(("return", value(serde_json::json!({ "raised": line })))),
        (Event::Exception, _, Some(line)) => Some(("raise", value(Value::String(line.to_string())))),
        (Event::Return | Event::Exception, _, _) => return Err(field("raised")),
        _ => None,
    };
    if ended.is_some_and(|(_, i)| i as usize >= values.len()) {
        return Err(field("returned"));
    }
    locals.extend(ended);
    let line = first_line(&recorded.statements, line);
    let label = match event {
        Event::Call => "call",
        Event::Return if raised.is_some() => "raise",
        Event::Return => "return",
        Event::Exception => "exception",
        _ => recorded.labels.iter().find(|(_, l)| *l == line).map_or("", |(label, _)| label),
    };
    Ok(RunStep {
        function: span.function,
        event,
        depth: depth as u16,
        line,
        label,
        locals,
        record_len,
        output_len,
    })
}
