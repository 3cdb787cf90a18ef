//! The Messages API's own checks of a request, before any model reads it.
//!
//! A real client that sends a request the API cannot accept gets an HTTP
//! 400 with an `invalid_request_error` and no reply. The doubles answer the
//! same way: [`Checked`] wraps any [`Model`] (the fixture doubles, the
//! author's callbacks) and refuses a request that breaks a rule with the
//! API's error, which the program receives as a failed request, exactly as
//! it would receive `anthropic.BadRequestError`. The messages are the API's
//! (docs/scenario-format.md, "The API's checks", cites where they come
//! from); each names the field the way the API does (`messages.2`,
//! `tools.0.name`).
//!
//! The rules, in the order they are checked (the API reports one):
//! 1. `model` is named and `max_tokens` is at least 1;
//! 2. there is at least one message;
//! 3. every tool definition has a valid, unique `name` and an `input_schema`;
//! 4. every message's role is `user` or `assistant`, the first is `user`,
//!    and the roles alternate;
//! 5. every message has content (only a final assistant message may be empty);
//! 6. a request with `tool_use` or `tool_result` blocks defines tools, and
//!    every `tool_use` block has an `id` and a `name`;
//! 7. every `tool_use` id of an assistant turn has a `tool_result` with that
//!    id in the next message, and every `tool_result` names an id the
//!    message before it requested.
//!
//! The lesson-two setup's stand-in client (programs/lesson_two/entry.py)
//! checks the same rules in the same order with the same words, and
//! tests/python.rs holds the two equal on every scenario.

use crate::protocol::{Model, ModelError, Request};
use serde_json::Value;
use std::collections::BTreeSet;

/// A set built one insert at a time (`collect` would sort, and the page's
/// module keeps the standard library's sort out: scripts/size-guard).
fn set<'a>(items: impl IntoIterator<Item = &'a str>) -> BTreeSet<&'a str> {
    let mut set = BTreeSet::new();
    for item in items {
        set.insert(item);
    }
    set
}

/// The name a client gives the API's 400 (`anthropic.BadRequestError`).
pub const BAD_REQUEST: &str = "BadRequestError";

/// The stop reasons the Messages API returns.
pub const STOP_REASONS: [&str; 6] =
    ["end_turn", "tool_use", "max_tokens", "stop_sequence", "pause_turn", "refusal"];

/// What the API says of a request it refuses, or `None` when it accepts it.
pub fn refusal(request: &Request) -> Option<String> {
    refusal_from(request, 0)
}

/// The same, when the first `known` messages are ones an accepted request
/// with the same tools already sent (a record only grows): only the new
/// messages and the one before them are checked again. What [`Checked`]
/// uses, so a run of n requests costs n checks of one turn, not n².
pub fn refusal_from(request: &Request, known: usize) -> Option<String> {
    if request.model.is_empty() {
        return Some("model: Field required".into());
    }
    if request.max_tokens < 1 {
        return Some("max_tokens: Input should be greater than or equal to 1".into());
    }
    if request.messages.is_empty() {
        return Some("messages: at least one message is required".into());
    }
    let from = known.min(request.messages.len()).saturating_sub(1);
    tools_refusal(request.tools).or_else(|| messages_refusal(request.messages, request.tools, from))
}

/// Rule 3: the tool definitions.
fn tools_refusal(tools: &Value) -> Option<String> {
    let tools = tools.as_array().map(Vec::as_slice).unwrap_or_default();
    // (sets, not scans: a reply of 100,000 blocks is checked in linear time)
    let mut names = BTreeSet::new();
    for (i, tool) in tools.iter().enumerate() {
        let name = tool["name"].as_str().unwrap_or("");
        let valid = (1..=64).contains(&name.len())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        if !valid {
            return Some(format!("tools.{i}.name: String should match pattern '^[a-zA-Z0-9_-]{{1,64}}$'"));
        }
        if !tool["input_schema"].is_object() {
            return Some(format!("tools.{i}.input_schema: Field required"));
        }
        if !names.insert(name) {
            return Some("tools: Tool names must be unique.".into());
        }
    }
    None
}

/// The blocks of a message (string content has none).
fn blocks(message: &Value) -> &[Value] {
    message["content"].as_array().map(Vec::as_slice).unwrap_or_default()
}

fn is_empty(content: &Value) -> bool {
    match content {
        Value::String(s) => s.is_empty(),
        Value::Array(list) => list.is_empty(),
        _ => true,
    }
}

/// Rules 4 to 7: the messages, from message `from` on.
fn messages_refusal(messages: &[Value], tools: &Value, from: usize) -> Option<String> {
    let last = messages.len() - 1;
    for (i, message) in messages.iter().enumerate().skip(from) {
        let role = message["role"].as_str().unwrap_or("");
        if role != "user" && role != "assistant" {
            return Some(format!("messages.{i}.role: Input should be 'user' or 'assistant'"));
        }
        if i == 0 && role != "user" {
            return Some("messages: first message must use the \"user\" role".into());
        }
        if i > 0 && messages[i - 1]["role"] == role {
            return Some(format!(
                "messages: roles must alternate between \"user\" and \"assistant\", \
                 but found multiple \"{role}\" roles in a row"
            ));
        }
        if is_empty(&message["content"]) && !(i == last && role == "assistant") {
            return Some(format!(
                "messages.{i}: all messages must have non-empty content \
                 except for the optional final assistant message"
            ));
        }
    }
    let uses_tools =
        messages.iter().flat_map(blocks).any(|b| b["type"] == "tool_use" || b["type"] == "tool_result");
    if uses_tools && tools.as_array().is_none_or(Vec::is_empty) {
        return Some("Requests which include `tool_use` or `tool_result` blocks must define tools.".into());
    }
    (from..messages.len()).find_map(|i| pairing_refusal(messages, i))
}

/// Rules 6 and 7 at message `i`.
fn pairing_refusal(messages: &[Value], i: usize) -> Option<String> {
    for (j, block) in blocks(&messages[i]).iter().enumerate() {
        if block["type"] == "tool_use" {
            for field in ["id", "name"] {
                if block[field].as_str().is_none() {
                    return Some(format!("messages.{i}.content.{j}.tool_use.{field}: Field required"));
                }
            }
        }
    }
    let requested = |k: usize| -> Vec<&str> {
        let from = if messages[k]["role"] == "assistant" { blocks(&messages[k]) } else { &[] };
        from.iter().filter(|b| b["type"] == "tool_use").filter_map(|b| b["id"].as_str()).collect()
    };
    let answered: Vec<&str> = blocks(&messages[i])
        .iter()
        .filter(|b| b["type"] == "tool_result")
        .map(|b| b["tool_use_id"].as_str().unwrap_or(""))
        .collect();
    let asked = if i > 0 { set(requested(i - 1)) } else { BTreeSet::new() };
    if let Some((j, id)) = answered.iter().enumerate().find(|(_, id)| !asked.contains(*id)) {
        return Some(format!(
            "messages.{i}.content.{j}: unexpected `tool_use_id` found in `tool_result` blocks: {id}. \
             Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
        ));
    }
    let ids = requested(i);
    let next = match messages.get(i + 1) {
        Some(next) => set(blocks(next)
            .iter()
            .filter(|b| b["type"] == "tool_result")
            .map(|b| b["tool_use_id"].as_str().unwrap_or(""))),
        None => return None,
    };
    let missing: Vec<&str> = ids.iter().copied().filter(|id| !next.contains(*id)).collect();
    (!missing.is_empty()).then(|| {
        format!(
            "messages.{i}: `tool_use` ids were found without `tool_result` blocks immediately after: {}. \
             Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
            missing.join(", ")
        )
    })
}

/// The API's 400 for a refused request, as the program receives it.
pub fn bad_request(message: String) -> ModelError {
    ModelError { name: BAD_REQUEST.into(), message }
}

/// What Python prints of the client's exception for a 400
/// (`str(anthropic.BadRequestError)`): the status and the error body.
pub fn python_text(message: &str) -> String {
    let message = crate::vocab::py_repr(&Value::String(message.to_string()));
    format!("Error code: 400 - {{'type': 'error', 'error': {{'type': 'invalid_request_error', 'message': {message}}}}}")
}

/// The API's own message inside a trace's error text for a refused
/// request (`BadRequestError: Error code: 400 - {…'message': '…'}}`, as
/// [`python_text`] and the program write it; `anthropic.BadRequestError:
/// …` as a recorded program's traceback names it); `None` for any other
/// text.
pub fn refused_message(error: &str) -> Option<String> {
    let error = error.strip_prefix("anthropic.").unwrap_or(error);
    let rest = error.strip_prefix(BAD_REQUEST).and_then(|r| r.strip_prefix(": "))?;
    let head = "Error code: 400 - {'type': 'error', 'error': {'type': 'invalid_request_error', 'message': ";
    let quoted = rest.strip_prefix(head)?.strip_suffix("}}")?;
    let quote = quoted.chars().next().filter(|q| *q == '\'' || *q == '"')?;
    let inner = quoted.strip_prefix(quote)?.strip_suffix(quote)?;
    // Python's escapes, undone.
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next()? {
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            'x' => {
                let hex: String = chars.by_ref().take(2).collect();
                out.push(char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?);
            }
            other => out.push(other),
        }
    }
    Some(out)
}

/// A model behind the API's checks: a request that breaks a rule is
/// refused with the API's 400 and never reaches the model. It remembers
/// how much of the record an accepted request held (with which tools), and
/// checks only what is new: the programs' records only grow.
pub struct Checked<'a> {
    model: &'a mut dyn Model,
    known: usize,
    tools: Value,
}

impl<'a> Checked<'a> {
    pub fn new(model: &'a mut dyn Model) -> Checked<'a> {
        Checked { model, known: 0, tools: Value::Null }
    }
}

impl Model for Checked<'_> {
    fn create(&mut self, request: &Request) -> Result<Value, ModelError> {
        let known = if *request.tools == self.tools { self.known } else { 0 };
        if let Some(message) = refusal_from(request, known) {
            return Err(bad_request(message));
        }
        (self.known, self.tools) = (request.messages.len(), request.tools.clone());
        self.model.create(request)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_api_message_is_read_back_from_the_error_text() {
        for message in ["messages.1: unexpected `tool_use_id`", "it's \"odd\"\n\ttab \\ \u{1}", "id 'a'", ""]
        {
            let error = format!("{BAD_REQUEST}: {}", python_text(message));
            assert_eq!(refused_message(&error).as_deref(), Some(message), "{error}");
        }
        assert_eq!(refused_message("ValueError: unknown tool: x"), None);
        assert_eq!(refused_message(&format!("{BAD_REQUEST}: something else")), None);
    }

    fn tools() -> Value {
        json!([{"name": "get_weather", "description": "d", "input_schema": {"type": "object"}}])
    }

    fn said(messages: Value, tools: &Value) -> Option<String> {
        let messages = messages.as_array().unwrap().clone();
        refusal(&Request { model: "m", system: "", messages: &messages, tools, max_tokens: 1024 })
    }

    fn turn() -> Value {
        json!({"role": "assistant", "content": [
            {"type": "text", "text": "Let me check."},
            {"type": "tool_use", "id": "t1", "name": "get_weather", "input": {"city": "Paris"}},
            {"type": "tool_use", "id": "t2", "name": "get_weather", "input": {"city": "Rome"}}]})
    }

    fn results(ids: &[&str]) -> Value {
        let blocks: Vec<Value> =
            ids.iter().map(|id| json!({"type": "tool_result", "tool_use_id": id, "content": "18"})).collect();
        json!({"role": "user", "content": blocks})
    }

    fn user() -> Value {
        json!({"role": "user", "content": "Weather?"})
    }

    #[test]
    fn a_well_formed_record_passes() {
        assert_eq!(said(json!([user()]), &tools()), None);
        assert_eq!(said(json!([user(), turn(), results(&["t1", "t2"])]), &tools()), None);
        // A final assistant message may be empty (a prefill), and may wait for its results.
        assert_eq!(said(json!([user(), {"role": "assistant", "content": []}]), &tools()), None);
        assert_eq!(said(json!([user(), turn()]), &tools()), None);
    }

    #[test]
    fn the_request_s_own_fields() {
        let messages = vec![user()];
        let t = tools();
        let r = |model, max_tokens| {
            refusal(&Request { model, system: "", messages: &messages, tools: &t, max_tokens })
        };
        assert_eq!(r("", 10).unwrap(), "model: Field required");
        assert!(r("m", 0).unwrap().starts_with("max_tokens:"));
        assert_eq!(said(json!([]), &t).unwrap(), "messages: at least one message is required");
    }

    #[test]
    fn tool_definitions_need_a_pattern_name_a_schema_and_no_twin() {
        let bad = json!([{"name": "get weather", "input_schema": {}}]);
        assert!(said(json!([user()]), &bad).unwrap().starts_with("tools.0.name: String should match"));
        let no_schema = json!([{"name": "get_weather"}]);
        assert_eq!(said(json!([user()]), &no_schema).unwrap(), "tools.0.input_schema: Field required");
        let twins = json!([{"name": "a", "input_schema": {}}, {"name": "a", "input_schema": {}}]);
        assert_eq!(said(json!([user()]), &twins).unwrap(), "tools: Tool names must be unique.");
    }

    #[test]
    fn roles_start_with_the_user_and_alternate() {
        let t = tools();
        let a = json!({"role": "assistant", "content": "hi"});
        assert_eq!(said(json!([a]), &t).unwrap(), "messages: first message must use the \"user\" role");
        let twice = said(json!([user(), user()]), &t).unwrap();
        assert!(twice.contains("found multiple \"user\" roles in a row"), "{twice}");
        assert!(said(json!([{"role": "system", "content": "x"}]), &t)
            .unwrap()
            .starts_with("messages.0.role"));
    }

    #[test]
    fn only_a_final_assistant_message_may_be_empty() {
        let empty = json!({"role": "user", "content": []});
        let said = said(
            json!([user(), turn(), results(&["t1", "t2"]), {"role": "assistant", "content": "ok"}, empty]),
            &tools(),
        );
        assert!(said.unwrap().starts_with("messages.4: all messages must have non-empty content"));
    }

    #[test]
    fn every_tool_use_needs_its_result_in_the_next_message() {
        let said_ = said(json!([user(), turn(), results(&["t1"])]), &tools()).unwrap();
        assert_eq!(
            said_,
            "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: t2. \
             Each `tool_use` block must have a corresponding `tool_result` block in the next message."
        );
    }

    #[test]
    fn a_result_names_only_an_id_the_message_before_requested() {
        // The text-only anti-pattern: the assistant turn kept its text and lost its tool_use blocks.
        let text_only = json!({"role": "assistant", "content": "Let me check."});
        let said_ = said(json!([user(), text_only, results(&["t1", "t2"])]), &tools()).unwrap();
        assert!(said_.starts_with(
            "messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: t1."
        ));
        let stray = said(json!([user(), turn(), results(&["t1", "t2", "t9"])]), &tools()).unwrap();
        assert!(stray.contains("blocks: t9."), "{stray}");
    }

    #[test]
    fn tool_blocks_need_tools_and_their_ids() {
        let said_ = said(json!([user(), turn(), results(&["t1", "t2"])]), &json!([])).unwrap();
        assert_eq!(said_, "Requests which include `tool_use` or `tool_result` blocks must define tools.");
        let no_id = json!({"role": "assistant", "content": [{"type": "tool_use", "name": "get_weather", "input": {}}]});
        assert_eq!(
            said(json!([user(), no_id]), &tools()).unwrap(),
            "messages.1.content.0.tool_use.id: Field required"
        );
    }

    #[test]
    fn checking_only_the_new_turn_says_what_checking_the_whole_record_says() {
        let t = tools();
        let empty_user = json!({"role": "user", "content": []});
        let records = [
            json!([user(), turn(), results(&["t1", "t2"])]),
            json!([user(), turn(), results(&["t1"])]),
            json!([user(), {"role": "assistant", "content": "x"}, results(&["t1"])]),
            json!([user(), turn(), results(&["t1", "t2"]), {"role": "assistant", "content": "ok"}, empty_user]),
            json!([user(), turn(), results(&["t1", "t2"]), user()]),
        ];
        for record in &records {
            let messages = record.as_array().unwrap();
            for known in 0..=messages.len() {
                // Only prefixes an accepted request could have sent count as known.
                let prefix = Request {
                    model: "m",
                    system: "",
                    messages: &messages[..known],
                    tools: &t,
                    max_tokens: 1,
                };
                if known > 0 && refusal(&prefix).is_some() {
                    continue;
                }
                let whole = Request { model: "m", system: "", messages, tools: &t, max_tokens: 1 };
                assert_eq!(refusal_from(&whole, known), refusal(&whole), "{record} known {known}");
            }
        }
    }

    #[test]
    fn the_checked_model_refuses_before_the_model_reads() {
        struct Never;
        impl Model for Never {
            fn create(&mut self, _: &Request) -> Result<Value, ModelError> {
                panic!("a refused request reached the model")
            }
        }
        let messages = vec![json!({"role": "assistant", "content": "x"})];
        let t = tools();
        let request = Request { model: "m", system: "", messages: &messages, tools: &t, max_tokens: 1 };
        let refused = Checked::new(&mut Never).create(&request).unwrap_err();
        assert_eq!(refused.name, BAD_REQUEST);
        assert!(python_text(&refused.message).starts_with("Error code: 400 - {'type': 'error', 'error': {'type': 'invalid_request_error', 'message': 'messages: first"));
    }
}
