//! The shapes a developer saves a conversation in, each read as the one
//! the importer walks: a request body `{"messages": […], "response"?: …}`.
//!
//! - a request body, as sent (with the reply under `"response"`, if any);
//! - a list of messages (`json.dump(messages, f)`);
//! - a `{"request", "response"}` pair, or a list of them: the last pair
//!   (its request holds the whole conversation so far);
//! - JSONL, one request, response, pair or message per line: the last
//!   request and the response on a later line, or the messages in order.
//!
//! The Python SDK's `model_dump()` objects (`{"id", "type": "message",
//! "role": "assistant", "content", "stop_reason", "usage", …}`) are read
//! where a message or a response stands (importer.rs). Anything else is
//! refused with the shapes it could have been and how to save one.

use super::turns::note;
use agent_loop_core::scenario::{not_json, too_deep, Problem};
use serde_json::{json, Map, Value};

/// What was read: the request body, and how it was found (for the notes;
/// `None` for a request body as it is).
pub(super) struct Shaped {
    pub(super) body: Value,
    pub(super) read_as: Option<String>,
}

/// What every refusal of a shape ends with.
const SHAPES: &str = "import reads a request body {\"messages\": [...]} (with the reply under \
    \"response\"), a list of messages, {\"request\", \"response\"} pairs, or JSONL with one request \
    or response per line; in Python, json.dump({\"messages\": messages}, f) saves the first";

fn refused(at: impl Into<String>, why: &str) -> Vec<Problem> {
    vec![note(at, format!("{why}: {SHAPES}"))]
}

/// Text the JSON reader refused: not JSON (with the shapes import reads),
/// or JSON nested deeper than it reads (said as `check` says it).
fn unreadable(at: impl Into<String>, e: &serde_json::Error) -> Vec<Problem> {
    match too_deep(e) {
        true => vec![Problem::new(at, not_json(e))],
        false => refused(at, &format!("not valid JSON ({e})")),
    }
}

/// The request body in `text`, whichever shape it was saved in.
pub(super) fn request_body(text: &str) -> Result<Shaped, Vec<Problem>> {
    if text.trim().is_empty() {
        return Err(refused("(file)", "empty"));
    }
    match serde_json::from_str::<Value>(text) {
        Ok(value) => whole(value),
        Err(e) => {
            let lines: Vec<(usize, &str)> = text
                .lines()
                .enumerate()
                .filter(|(_, l)| !l.trim().is_empty())
                .map(|(n, l)| (n + 1, l))
                .collect();
            let first_parses = lines.first().is_some_and(|(_, l)| serde_json::from_str::<Value>(l).is_ok());
            if lines.len() > 1 && first_parses {
                jsonl(&lines)
            } else {
                Err(unreadable("(file)", &e))
            }
        }
    }
}

/// One JSON value: a request body, a pair, or a list of messages or pairs.
fn whole(value: Value) -> Result<Shaped, Vec<Problem>> {
    match value {
        Value::Object(map) if map.contains_key("messages") => {
            Ok(Shaped { body: Value::Object(map), read_as: None })
        }
        Value::Object(map) if map.contains_key("request") => {
            Ok(Shaped { body: pair(&map, "")?, read_as: Some("a {request, response} pair".into()) })
        }
        Value::Object(_) => Err(refused("(file)", "an object with neither \"messages\" nor \"request\"")),
        Value::Array(items) if items.is_empty() => Err(refused("(file)", "an empty list")),
        Value::Array(items) => {
            let entries: Vec<(String, Value)> =
                items.into_iter().enumerate().map(|(i, v)| (format!("[{i}]"), v)).collect();
            entries_body(entries, "a list")
        }
        _ => Err(refused("(file)", "neither an object nor a list")),
    }
}

/// The request body of a `{"request", "response"}` pair at `at`.
fn pair(map: &Map<String, Value>, at: &str) -> Result<Value, Vec<Problem>> {
    let Some(messages) = map.get("request").and_then(|r| r.get("messages")) else {
        return Err(refused(
            format!("{at}request.messages"),
            "missing (the pair's request holds the messages)",
        ));
    };
    let mut body = json!({ "messages": messages });
    keep_setup(&map["request"], &mut body);
    if let Some(response) = map.get("response").filter(|r| !r.is_null()) {
        body["response"] = response.clone();
    }
    Ok(body)
}

/// A request's `system` and `tools` kept beside its messages: what a tool
/// loop's scenario sends (lesson one's import does not read them).
fn keep_setup(request: &Value, body: &mut Value) {
    for key in ["system", "tools"] {
        if let Some(value) = request.get(key) {
            body[key] = value.clone();
        }
    }
}

/// What one entry of a list or a JSONL line is.
enum Entry {
    Pair,
    Request,
    Response,
    Message,
}

fn entry_kind(value: &Value) -> Option<Entry> {
    let map = value.as_object()?;
    let kind = map.get("type").and_then(Value::as_str);
    Some(match () {
        () if map.contains_key("request") => Entry::Pair,
        () if map.contains_key("messages") => Entry::Request,
        // (in a list of messages, a model_dump()'d response is one of them)
        () if matches!(kind, Some("message" | "error")) => Entry::Response,
        () if map.contains_key("role") => Entry::Message,
        () => return None,
    })
}

/// JSONL: every non-empty line one JSON value.
fn jsonl(lines: &[(usize, &str)]) -> Result<Shaped, Vec<Problem>> {
    let mut entries = Vec::new();
    for (n, line) in lines {
        match serde_json::from_str::<Value>(line) {
            Ok(value) => entries.push((format!("line {n}"), value)),
            Err(e) => return Err(unreadable(format!("line {n}"), &e)),
        }
    }
    entries_body(entries, "JSONL")
}

/// A list (or JSONL) of entries as a request body: the last pair, the last
/// request with the response after it, or the messages in order.
fn entries_body(entries: Vec<(String, Value)>, what: &str) -> Result<Shaped, Vec<Problem>> {
    let mut kinds = Vec::new();
    for (at, value) in &entries {
        match entry_kind(value) {
            Some(kind) => kinds.push(kind),
            None => {
                return Err(refused(
                    at,
                    "neither a request {\"messages\"}, a response {\"type\": \"message\"}, a pair \
                     {\"request\", \"response\"} nor a message {\"role\", \"content\"}",
                ))
            }
        }
    }
    let last = |want: fn(&Entry) -> bool| kinds.iter().rposition(want);
    if let Some(i) = last(|k| matches!(k, Entry::Pair)) {
        let (at, value) = &entries[i];
        let count = kinds.iter().filter(|k| matches!(k, Entry::Pair)).count();
        let map = value.as_object().cloned().unwrap_or_default();
        let prefix = if what == "JSONL" { String::new() } else { format!("{at}.") };
        let body = pair(&map, &prefix)?;
        return Ok(Shaped {
            body,
            read_as: Some(format!("{what}: the {{request, response}} pair at {at} (the last of {count})")),
        });
    }
    if let Some(i) = last(|k| matches!(k, Entry::Request)) {
        let (at, request) = &entries[i];
        let count = kinds.iter().filter(|k| matches!(k, Entry::Request)).count();
        let mut body = json!({ "messages": request["messages"] });
        keep_setup(request, &mut body);
        let mut read_as = format!("{what}: the request at {at} (the last of {count})");
        if let Some(j) = (i + 1..entries.len()).find(|j| matches!(kinds[*j], Entry::Response)) {
            body["response"] = entries[j].1.clone();
            read_as.push_str(&format!(" and the response at {}", entries[j].0));
        }
        return Ok(Shaped { body, read_as: Some(read_as) });
    }
    if kinds.iter().all(|k| matches!(k, Entry::Response)) {
        return Err(refused(
            &entries[0].0,
            "only responses: the conversation is in the requests' messages, so log each request body too",
        ));
    }
    let count = entries.len();
    let messages: Vec<Value> = entries.into_iter().map(|(_, v)| v).collect();
    Ok(Shaped { body: json!({ "messages": messages }), read_as: Some(format!("{what} of {count} messages")) })
}
