//! One run of a program pack read and checked: its values, its steps
//! (each in a traced function, on a line of it that holds code, with
//! locals the run has, a record and an output no longer than the run's),
//! its record, output and end.

use super::read::{first_line, leak, Recorded, Refused, Run, RunStep};
use crate::preview::text_hash;
use crate::trace::Event;
use serde_json::{Map, Value};

fn field_err(at: &str) -> Refused {
    ("field", at.to_string())
}

fn get<'a>(obj: &'a Map<String, Value>, key: &str, at: &str) -> Result<&'a Value, Refused> {
    obj.get(key).ok_or_else(|| field_err(&format!("{at}.{key}")))
}

fn strings(v: &Value, at: &str) -> Result<Vec<String>, Refused> {
    let items = v.as_array().ok_or_else(|| field_err(at))?;
    items.iter().map(|t| t.as_str().map(str::to_string).ok_or_else(|| field_err(at))).collect()
}

fn count(v: Option<&Value>, at: &str) -> Result<u32, Refused> {
    v.and_then(Value::as_u64).and_then(|n| u32::try_from(n).ok()).ok_or_else(|| field_err(at))
}

/// A value kept as the recorder keeps one: its JSON text and its hash.
fn kept(value: &Value) -> (Box<str>, u64) {
    let text = value.to_string();
    let hash = text_hash(&text);
    (text.into_boxed_str(), hash)
}

/// Read the run at `at` of `recorded`, whose listing in its language is
/// `listing`.
pub(super) fn run(recorded: &Recorded, listing: &str, v: &Value, at: &str) -> Result<Run, Refused> {
    let map = v.as_object().ok_or_else(|| field_err(at))?;
    let python = get(map, "python", at)?.as_str().ok_or_else(|| field_err(&format!("{at}.python")))?;
    let mut values: Vec<(Box<str>, u64)> = get(map, "values", at)?
        .as_array()
        .ok_or_else(|| field_err(&format!("{at}.values")))?
        .iter()
        .map(kept)
        .collect();
    let record =
        get(map, "record", at)?.as_array().ok_or_else(|| field_err(&format!("{at}.record")))?.clone();
    let output = strings(get(map, "output", at)?, &format!("{at}.output"))?;
    let printed = strings(get(map, "printed", at)?, &format!("{at}.printed"))?;
    let end = get(map, "end", at)?;
    let end = match (end.get("returned"), end.get("raised").and_then(Value::as_str)) {
        (Some(v), _) => Ok(count(Some(v), &format!("{at}.end"))?),
        (None, Some(line)) => Err(line.to_string()),
        _ => return Err(field_err(&format!("{at}.end"))),
    };
    if end.as_ref().is_ok_and(|i| *i as usize >= values.len()) {
        return Err(field_err(&format!("{at}.end")));
    }
    let lines: Vec<&str> = listing.lines().collect();
    let sizes = (record.len(), output.len());
    let raw = get(map, "steps", at)?.as_array().ok_or_else(|| field_err(&format!("{at}.steps")))?;
    let mut steps = Vec::with_capacity(raw.len());
    for (k, step) in raw.iter().enumerate() {
        steps.push(step_of(recorded, &lines, sizes, &mut values, step, &format!("{at}.steps[{k}]"))?);
    }
    if steps.is_empty() {
        return Err(field_err(&format!("{at}.steps")));
    }
    Ok(Run { python: python.to_string(), steps, values, record, output, printed, end })
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
    at: &str,
) -> Result<RunStep, Refused> {
    let map = v.as_object().ok_or_else(|| field_err(at))?;
    let name = get(map, "function", at)?.as_str().unwrap_or("");
    let span = recorded.spans.iter().find(|s| s.function.name() == name);
    let span = span.ok_or_else(|| field_err(&format!("{at}.function")))?;
    let line = count(map.get("line"), &format!("{at}.line"))?;
    let event = match get(map, "event", at)?.as_str() {
        Some("call") => Event::Call,
        Some("line") => Event::Line,
        Some("return") => Event::Return,
        Some("exception") => Event::Exception,
        _ => return Err(field_err(&format!("{at}.event"))),
    };
    let code = lines.get(line.saturating_sub(1) as usize).map_or("", |l| l.trim());
    let on_code = !code.is_empty() && !code.starts_with('#');
    if line < span.start || line > span.end || (event == Event::Line && !on_code) {
        return Err(("departs", format!("{at}: {name}, line {line}")));
    }
    let depth = count(map.get("depth"), &format!("{at}.depth"))?;
    let record_len = count(map.get("record_len"), &format!("{at}.record_len"))?;
    let output_len = count(map.get("output_len"), &format!("{at}.output_len"))?;
    if record_len as usize > records || output_len as usize > outputs || depth > u32::from(u16::MAX) {
        return Err(("departs", format!("{at}: record_len, output_len or depth")));
    }
    let mut locals = Vec::new();
    let given = get(map, "locals", at)?.as_object().ok_or_else(|| field_err(&format!("{at}.locals")))?;
    for (local, index) in given {
        let index = count(Some(index), &format!("{at}.locals.{local}"))?;
        if index as usize >= values.len() {
            return Err(field_err(&format!("{at}.locals.{local}")));
        }
        locals.push((leak(local), index));
    }
    let raised = map.get("raised").and_then(Value::as_str);
    let ended = match (event, map.get("returned"), raised) {
        (Event::Return, Some(v), _) => Some(("return", count(Some(v), &format!("{at}.returned"))?)),
        (Event::Return, None, Some(line)) => {
            Some(("return", push(values, &serde_json::json!({ "raised": line }))))
        }
        (Event::Exception, _, Some(line)) => Some(("raise", push(values, &Value::String(line.to_string())))),
        (Event::Return | Event::Exception, _, _) => return Err(field_err(&format!("{at}.raised"))),
        _ => None,
    };
    if ended.is_some_and(|(_, i)| i as usize >= values.len()) {
        return Err(field_err(&format!("{at}.returned")));
    }
    locals.extend(ended);
    let label = match event {
        Event::Call => "call",
        Event::Return if raised.is_some() => "raise",
        Event::Return => "return",
        Event::Exception => "exception",
        _ => label_on(recorded, first_line(&recorded.statements, line)),
    };
    let line = first_line(&recorded.statements, line);
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

/// A value the run's values do not have yet; its index.
fn push(values: &mut Vec<(Box<str>, u64)>, value: &Value) -> u32 {
    values.push(kept(value));
    (values.len() - 1) as u32
}

/// The label of a line (`""`: it carries none).
fn label_on(recorded: &Recorded, line: u32) -> &'static str {
    recorded.labels.iter().find(|(_, l)| *l == line).map_or("", |(label, _)| label)
}
