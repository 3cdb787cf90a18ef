//! One import's state (what was read, the findings) and the reading of the
//! conversation: the question, and each reply with its tool calls and stop
//! reason.

use super::turns::*;
use agent_loop_core::scenario::Problem;
use serde_json::{json, Map, Value};

/// The loop an import replays: lesson one's `run_loop` (its results read
/// back into runs of main.py), or a loop over tools (lesson two's shape:
/// its results read back into each tool's outcomes).
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) enum Target {
    #[default]
    RunLoop,
    /// Lesson two's `agent_loop`: every tool the log calls is scripted.
    AgentLoop,
    /// An author's own program, recorded by `record`: a tool it does not
    /// have is not scripted (it answers it as it answers an unknown tool).
    Program,
}

/// The state of one import: what was read so far, and the findings.
#[derive(Default)]
pub(super) struct Importer {
    pub(super) target: Target,
    /// A tool loop's scripted outcomes, by tool name.
    pub(super) tool_results: Map<String, Value>,
    /// Each tool the log calls, with the place of its first call.
    pub(super) used: Vec<(String, String)>,
    /// The program's tools (those its scenarios declare), `None` when not
    /// known, and whose they are (`agent_loop`, a manifest's name).
    pub(super) known_tools: Option<Vec<String>>,
    pub(super) owner: String,
    /// What was read besides the messages, for the notes.
    pub(super) facts: Vec<String>,
    pub(super) warnings: Vec<Problem>,
    pub(super) refusals: Vec<Problem>,
    pub(super) replies: Vec<Value>,
    pub(super) outcomes: Vec<Value>,
    /// The first timeout read back, and where.
    pub(super) timeout: Option<(f64, String)>,
    /// How the file's shape was read (shapes.rs), for the notes.
    pub(super) read_as: Option<String>,
    /// Messages that are the SDK's Message objects (model_dump()).
    pub(super) sdk_messages: usize,
}

/// The fields of the SDK's Message object (`response.model_dump()`) that
/// describe the call, not the message: read (stop_reason) or left out
/// without a warning when such an object stands in `messages`.
const MESSAGE_OBJECT: [&str; 8] =
    ["id", "type", "model", "stop_reason", "stop_sequence", "usage", "container", "context_management"];

impl Importer {
    pub(super) fn warn(&mut self, at: impl Into<String>, message: impl Into<String>) {
        self.warnings.push(note(at, message));
    }

    pub(super) fn refuse(&mut self, at: impl Into<String>, message: impl Into<String>) {
        self.refusals.push(note(at, message));
    }

    /// The turns of the request body; refused when it is not a conversation
    /// the loop could have had (shape, roles, order).
    pub(super) fn read<'a>(&mut self, input: &'a Value) -> Result<Conversation<'a>, Vec<Problem>> {
        let Some(request) = input.as_object() else {
            return Err(vec![note("(file)", "must be a JSON object (a Messages API request body)")]);
        };
        let messages = match request.get("messages") {
            Some(Value::Array(m)) if !m.is_empty() => m,
            Some(Value::Array(_)) => {
                return Err(vec![note(
                    "messages",
                    "empty: the conversation must start with the user's question",
                )])
            }
            Some(_) => return Err(vec![note("messages", "must be a list of messages")]),
            None => return Err(vec![note("messages", "missing (a request body has a messages list)")]),
        };
        let mut turns = Vec::new();
        let mut refusals = Vec::new();
        for (i, message) in messages.iter().enumerate() {
            match self.message_turn(i, message) {
                Ok(turn) => turns.push(turn),
                Err(refusal) => refusals.push(refusal),
            }
        }
        let mut error = None;
        match request.get("response").map(response_turn) {
            None => {}
            Some(Ok(Response::Reply(turn))) => turns.push(turn),
            Some(Ok(Response::Error(name))) => error = Some(name),
            Some(Err(refusal)) => refusals.push(refusal),
        }
        if refusals.is_empty() {
            refusals = alternation(&turns);
        }
        if refusals.is_empty() {
            Ok(Conversation { turns, error })
        } else {
            Err(refusals)
        }
    }

    pub(super) fn message_turn<'a>(&mut self, i: usize, message: &'a Value) -> Result<Turn<'a>, Problem> {
        let at = format!("messages[{i}]");
        let Some(fields) = message.as_object() else {
            return Err(note(at, "must be an object {\"role\", \"content\"}"));
        };
        let role = match fields.get("role").and_then(Value::as_str) {
            Some("user") => Role::User,
            Some("assistant") => Role::Assistant,
            _ => return Err(note(format!("{at}.role"), "must be \"user\" or \"assistant\"")),
        };
        let Some(content) = fields.get("content").filter(|c| c.is_string() || c.is_array()) else {
            return Err(note(format!("{at}.content"), "must be a string or a list of blocks"));
        };
        // `messages.append(response.model_dump())`: the reply with its call's details.
        let sdk = role == Role::Assistant && fields.get("type").and_then(Value::as_str) == Some("message");
        let extra =
            |k: &&String| *k != "role" && *k != "content" && !(sdk && MESSAGE_OBJECT.contains(&k.as_str()));
        for key in fields.keys().filter(extra) {
            self.warn(format!("{at}.{key}"), "dropped (the loop's messages hold only role and content)");
        }
        if !sdk {
            return Ok(Turn { at, role, content, message: message.clone(), stop_reason: None });
        }
        self.sdk_messages += 1;
        let message = json!({"role": "assistant", "content": content});
        Ok(Turn { at, role, content, message, stop_reason: Some(fields.get("stop_reason")) })
    }

    /// The question: the first message's text. A list of blocks gives its
    /// texts joined by newlines (the record then holds a string).
    pub(super) fn question(&mut self, turn: &Turn) -> Option<String> {
        let blocks = match turn.content {
            Value::String(text) => return Some(text.clone()),
            Value::Array(blocks) => blocks,
            _ => return None,
        };
        let mut texts = Vec::new();
        for (j, block) in blocks.iter().enumerate() {
            let at = format!("{}.content[{j}]", turn.at);
            match (block_type(block), block.get("text").and_then(Value::as_str)) {
                (Some("text"), Some(text)) => texts.push(text),
                (Some("tool_result"), _) => self.refuse(
                    at,
                    "tool_result in the first message: the conversation must start with the user's question",
                ),
                (kind, _) => self.warn(
                    at,
                    format!(
                        "{} block: dropped (the lesson's question is text only)",
                        kind.unwrap_or("untyped")
                    ),
                ),
            }
        }
        if texts.is_empty() {
            self.refuse(
                &turn.at,
                "the conversation must start with a user text (the question); this message has none",
            );
            return None;
        }
        self.warn(
            format!("{}.content", turn.at),
            "a list of blocks: the loop's question is one string (the texts joined by newlines)",
        );
        Some(texts.join("\n"))
    }

    /// Read the replies and their results, from `turns[1]` on. Returns how
    /// many turns the replay covers (fewer when a new question follows an
    /// answer).
    pub(super) fn walk(&mut self, turns: &[Turn]) -> usize {
        let mut i = 1;
        while let Some(reply) = turns.get(i) {
            let calls = self.reply(reply, turns.get(i + 1).is_some());
            let Some(results) = turns.get(i + 1) else {
                if !calls.is_empty() {
                    let then = match self.target {
                        Target::RunLoop => "run_main with no recorded outcome cannot start",
                        _ => "a tool with no recorded outcome raises ScriptExhausted",
                    };
                    self.warn(
                        &reply.at,
                        format!(
                            "the conversation ends with tool requests and no results: the replay goes \
                             on where the recording stopped ({then})"
                        ),
                    );
                }
                return i + 1;
            };
            if calls.is_empty() {
                self.after_answer(reply, results);
                return i + 1;
            }
            self.results(results, &reply.at, &calls);
            i += 2;
        }
        turns.len()
    }

    /// One model reply: its text and tool_use blocks, untouched (the loop
    /// saves them as they are), and its stop_reason; `answered`: a turn
    /// follows it. Returns its calls.
    pub(super) fn reply(&mut self, turn: &Turn, answered: bool) -> Vec<Call> {
        let blocks = self.reply_blocks(turn);
        let calls: Vec<Call> = blocks
            .iter()
            .filter(|(_, block)| block_type(block) == Some("tool_use"))
            .map(|(j, block)| Call { at: format!("{}.content[{j}]", turn.at), block: block.clone() })
            .collect();
        if self.target != Target::RunLoop {
            self.tool_calls(&calls);
        }
        let stop_reason = self.stop_reason(turn, !calls.is_empty(), answered);
        let content: Vec<Value> = blocks.into_iter().map(|(_, block)| block).collect();
        self.replies.push(json!({"stop_reason": stop_reason, "content": content}));
        calls
    }

    /// The blocks the loop can save, with their index in the input.
    pub(super) fn reply_blocks(&mut self, turn: &Turn) -> Vec<(usize, Value)> {
        let blocks = match turn.content {
            Value::String(text) => {
                self.warn(
                    format!("{}.content", turn.at),
                    "a string: the loop saves a list of blocks, so the replay has one text block",
                );
                return vec![(0, json!({"type": "text", "text": text}))];
            }
            Value::Array(blocks) => blocks,
            _ => return Vec::new(),
        };
        let mut kept = Vec::new();
        for (j, block) in blocks.iter().enumerate() {
            let at = format!("{}.content[{j}]", turn.at);
            match block_type(block) {
                Some("text" | "tool_use") => kept.push((j, block.clone())),
                // (a tool loop saves the reply's content whole)
                Some(_) if self.target != Target::RunLoop => kept.push((j, block.clone())),
                Some(kind @ ("thinking" | "redacted_thinking")) => {
                    self.warn(at, format!("{kind} block: dropped (the lesson's loop never sees thinking)"))
                }
                Some(kind) => self.warn(
                    at,
                    format!("{kind} block: dropped (the lesson's loop reads only text and tool_use blocks)"),
                ),
                None => self.warn(at, "not a block with a type: dropped"),
            }
        }
        kept
    }

    pub(super) fn stop_reason(&mut self, turn: &Turn, has_calls: bool, answered: bool) -> Value {
        let derived = if has_calls { "tool_use" } else { "end_turn" };
        // (agent_loop runs the tools of any reply but end_turn; run_loop,
        // and a loop like lesson three's, only on tool_use)
        let stops = |given: &Value| match self.target {
            Target::AgentLoop => given == "end_turn",
            _ => given != "tool_use",
        };
        match turn.stop_reason {
            None => json!(derived),
            // Tool requests whose results follow: the loop went on, which it
            // does not on this stop reason (an SDK object logged with another).
            Some(Some(given)) if has_calls && answered && stops(given) && !given.is_null() => {
                let on =
                    if self.target == Target::AgentLoop { "on all but end_turn" } else { "only on tool_use" };
                self.warn(
                    format!("{}.stop_reason", turn.at),
                    format!(
                        "{given}, but its tool requests were answered: replayed as \"tool_use\" (the \
                         loop runs tools {on})"
                    ),
                );
                json!(derived)
            }
            Some(Some(given)) if !given.is_null() => given.clone(),
            Some(_) => {
                self.warn(
                    format!("{}.stop_reason", turn.at),
                    format!("missing: replayed as {derived:?}, read from the content"),
                );
                json!(derived)
            }
        }
    }

    /// A user turn after a reply without tool requests: a new question the
    /// loop never asks (the replay stops at the answer), or results nobody
    /// requested (refused).
    pub(super) fn after_answer(&mut self, reply: &Turn, next: &Turn) {
        let blocks = next.content.as_array().map(Vec::as_slice).unwrap_or_default();
        match blocks.iter().position(|b| block_type(b) == Some("tool_result")) {
            Some(j) => self.refuse(
                format!("{}.content[{j}]", next.at),
                format!("tool_result, but {} requests no tool", reply.at),
            ),
            None => self.warn(
                &next.at,
                format!(
                    "a new user turn after the answer in {}: the loop answers one question, so the \
                     replay stops at that answer; everything from here on is dropped",
                    reply.at
                ),
            ),
        }
    }
}
