//! The conversation as turns: each message (and the response) with its
//! place in the input, the message the replay's record must hold there,
//! and the checks of their order.

use agent_loop_core::scenario::{Phrase, Problem, Scenario};
use serde_json::{json, Value};

pub(super) fn note(at: impl Into<String>, message: impl Into<String>) -> Problem {
    // (the core's one finding type, as `check` says it; import is English only)
    Problem::new(at, Phrase::english(message))
}

/// A block's `type`, when it is an object with a string type.
pub(super) fn block_type(block: &Value) -> Option<&str> {
    block.get("type").and_then(Value::as_str)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Role {
    User,
    Assistant,
}

/// One message of the conversation: where it came from, and the message
/// the replay's record must hold in its place.
pub(super) struct Turn<'a> {
    pub(super) at: String,
    pub(super) role: Role,
    pub(super) content: &'a Value,
    pub(super) message: Value,
    /// `Some` for the response and an SDK Message object (model_dump()):
    /// its `stop_reason` (`None` inside when absent).
    pub(super) stop_reason: Option<Option<&'a Value>>,
}

/// The turns in order (the response last), and the name of an API error
/// given as the response.
pub(super) struct Conversation<'a> {
    pub(super) turns: Vec<Turn<'a>>,
    pub(super) error: Option<String>,
}

/// What the `response` key holds.
pub(super) enum Response<'a> {
    Reply(Turn<'a>),
    Error(String),
}

/// A tool request of a reply, with its place in the input.
pub(super) struct Call {
    pub(super) at: String,
    pub(super) block: Value,
}

/// The response: a reply (its content becomes an assistant message) or an
/// API error (`{"type": "error", "error": {"type": …}}`).
pub(super) fn response_turn(response: &Value) -> Result<Response<'_>, Problem> {
    let Some(fields) = response.as_object() else {
        return Err(note("response", "must be a Messages API response object"));
    };
    if fields.get("type").and_then(Value::as_str) == Some("error") {
        let name = response["error"]["type"].as_str().filter(|n| !n.is_empty()).unwrap_or("api_error");
        return Ok(Response::Error(name.to_string()));
    }
    if fields.get("role").is_some_and(|role| role != "assistant") {
        return Err(note("response.role", "must be \"assistant\""));
    }
    let Some(content) = fields.get("content").filter(|c| c.is_string() || c.is_array()) else {
        return Err(note("response.content", "must be a list of blocks"));
    };
    Ok(Response::Reply(Turn {
        at: "response".into(),
        role: Role::Assistant,
        content,
        message: json!({"role": "assistant", "content": content}),
        stop_reason: Some(fields.get("stop_reason")),
    }))
}

/// The loop's order: the user's question, then reply and results in turn.
pub(super) fn alternation(turns: &[Turn]) -> Vec<Problem> {
    let mut refusals = Vec::new();
    if let Some(first) = turns.first().filter(|t| t.role != Role::User) {
        refusals.push(note(
            &first.at,
            "the conversation must start with the user's question, not an assistant message",
        ));
    }
    for pair in turns.windows(2) {
        let [before, turn] = pair else { continue };
        if before.role != turn.role {
            continue;
        }
        let (what, why) = match turn.role {
            Role::User => ("user", "the loop sends one question, then only tool results"),
            Role::Assistant => (
                "assistant",
                "the loop saves one reply per model call (a prefilled reply cannot be replayed)",
            ),
        };
        refusals.push(note(
            &turn.at,
            format!("two {what} messages in a row ({} and {}): {why}", before.at, turn.at),
        ));
    }
    refusals
}

/// Where a replayed record parts from the conversation (each message with
/// its place), said as a sentence: `None` when they are equal.
pub(super) fn difference(record: &[Value], turns: &[(String, Value)]) -> Option<String> {
    let len = record.len().max(turns.len());
    let differs = |k: &usize| record.get(*k) != turns.get(*k).map(|t| &t.1);
    let first = (0..len).find(differs)?;
    let count = (first..len).filter(differs).count();
    let place = turns.get(first).map_or_else(|| format!("record[{first}]"), |t| t.0.clone());
    Some(format!(
        "the replayed record differs from the conversation first at {place}: {count} of {len} messages \
         differ (the replay has {}, the conversation {})",
        record.len(),
        turns.len()
    ))
}

/// The scenario as `check` reads it (its `raw` is the value given), or
/// why not (an importer bug).
pub(super) fn validated(scenario: Value) -> Result<Scenario, Vec<Problem>> {
    Scenario::from_value(scenario).map_err(|problems| {
        problems.iter().map(|p| note("(import)", format!("the scenario does not validate: {p}"))).collect()
    })
}
