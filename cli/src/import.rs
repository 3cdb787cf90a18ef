//! Import a recorded conversation as a `run_loop` scenario.
//!
//! The input is a logged Anthropic Messages API request body,
//! `{"model", "system", "tools", "max_tokens", "messages": […]}` (only
//! `messages` is read), optionally with the final reply under a top-level
//! `"response"` (a Messages API response object). The output is a scenario
//! whose doubles replay it:
//!
//! - the first user message's text becomes `question`;
//! - every assistant message (and the response) becomes a `model` reply, its
//!   `stop_reason` read from its shape (`tool_use` when it has `tool_use`
//!   blocks, else `end_turn`), or taken from `response.stop_reason`;
//! - every `tool_result` that `run_main` wrote (`exit_code=N\n<output>`,
//!   `timed out after N s`, `cannot start: …`) is read back into a `process`
//!   outcome;
//! - `max_calls` is the number of replies, and `expect` is filled in by
//!   recording the scenario.
//!
//! **The promise:** when [`import`] gives no warning, recording the scenario
//! reproduces the conversation's messages exactly (plus the response's
//! assistant message). The importer does not take this on trust: it records
//! the scenario and compares, and any difference is one more warning.
//!
//! What the loop cannot replay is named by its place in the input
//! (`messages[3].content[1]: thinking block: dropped …`) and is either
//! approximated — a warning, also written into the scenario's `notes` — or
//! refused: an error, and no scenario. The decisions are tabled in
//! docs/scenario-format.md, "Import a recorded conversation".
//!
//! Pure: text in, a scenario JSON value and its notes out. No file system;
//! any input (malformed JSON, wrong types) is an answer, never a panic.

use agent_loop_core::programs::lesson_one;
use agent_loop_core::protocol::Said;
use agent_loop_core::run::{record_scenario, Trace};
use agent_loop_core::runtime::OUTPUT_LIMIT;
use agent_loop_core::scenario::{is_id, is_id_char, Expect, Problem, Scenario};
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};

fn note(at: impl Into<String>, message: impl Into<String>) -> Problem {
    // (the core's one finding type: a place and a message, as `check` says it)
    Problem::at(at, message)
}

/// A conversation that could be imported.
#[derive(Clone, Debug)]
pub struct Imported {
    /// The scenario, ready for `check`, `trace` and `fixtures/scenarios/`.
    pub scenario: Value,
    /// Every approximation (also listed in the scenario's `notes`). Empty
    /// means the replay reproduces the conversation exactly.
    pub warnings: Vec<Problem>,
}

/// The text `run_main` answers a call it does not support with.
const UNSUPPORTED: &str = "unsupported tool or arguments";

/// The order of keys in [`to_pretty_json`], the way the shipped fixtures
/// read (a key not listed follows, in alphabetical order).
#[rustfmt::skip]
const KEY_ORDER: [&str; 34] = [
    "type", "id", "function", "title", "zh", "en", "notes", "question", "max_calls", "timeout_s", "role",
    "stop_reason", "model", "process", "tool_use_id", "name", "input", "text", "content", "is_error",
    "returncode", "stdout", "stderr", "timeout", "os_error", "error", "status", "calls", "record",
    "results", "output_lines", "hits", "misses", "expect",
];

/// Import `text` (a request body) as the scenario `id`; `file_name` names
/// the source in the title and the notes. `Err` holds the refusals:
/// nothing was imported.
pub fn import(text: &str, id: &str, file_name: &str) -> Result<Imported, Vec<Problem>> {
    if !is_id(id) {
        return Err(vec![note("--id", format!("{id:?}: use letters, digits, '-' or '_' (1-64 chars)"))]);
    }
    let input: Value =
        serde_json::from_str(text).map_err(|e| vec![note("(file)", format!("not valid JSON: {e}"))])?;
    let mut importer = Importer::default();
    let conversation = importer.read(&input)?;
    let turns = conversation.turns.as_slice();
    let Some(first) = turns.first() else {
        return Err(vec![note("messages", "empty: the conversation must start with the user's question")]);
    };
    let question = importer.question(first);
    let kept = importer.walk(turns);
    importer.final_error(conversation.error, turns, kept);
    if !importer.refusals.is_empty() {
        return Err(importer.refusals);
    }
    let mut scenario = importer.scenario(id, file_name, &question.unwrap_or_default());
    let trace = replay(&scenario)?;
    importer.compare(&trace.record, turns.get(..kept).unwrap_or(turns));
    if let Some(map) = scenario.as_object_mut() {
        map.insert("notes".into(), importer.notes(file_name, &trace));
        map.insert("expect".into(), Expect::of(&trace));
    }
    validated(&scenario)?;
    Ok(Imported { scenario, warnings: importer.warnings })
}

/// A scenario id made from a file name: the name without its extension,
/// any character an id may not hold turned into `-`, at most 64 characters
/// (`imported` when nothing is left).
pub fn id_from_file_name(name: &str) -> String {
    let stem = name.rsplit_once('.').map_or(name, |(stem, _)| stem);
    let id: String = stem.chars().take(64).map(|c| if is_id_char(c) { c } else { '-' }).collect();
    let id = id.trim_matches('-');
    if id.is_empty() {
        "imported".to_string()
    } else {
        id.to_string()
    }
}

/// The scenario as text: pretty JSON with two-space indents, keys in the
/// order the shipped fixtures use (id, function, title, …, expect), ending
/// in a newline.
pub fn to_pretty_json(scenario: &Value) -> String {
    let mut out = String::new();
    write_pretty(scenario, 0, &mut out);
    out.push('\n');
    out
}

fn write_pretty(value: &Value, depth: usize, out: &mut String) {
    let inner = "  ".repeat(depth + 1);
    match value {
        Value::Array(items) if !items.is_empty() => {
            out.push_str("[\n");
            for (n, item) in items.iter().enumerate() {
                out.push_str(if n == 0 { "" } else { ",\n" });
                out.push_str(&inner);
                write_pretty(item, depth + 1, out);
            }
            out.push_str(&format!("\n{}]", "  ".repeat(depth)));
        }
        Value::Object(map) if !map.is_empty() => {
            let listed = KEY_ORDER.iter().filter_map(|k| map.get_key_value(*k));
            let rest = map.iter().filter(|(k, _)| !KEY_ORDER.contains(&k.as_str()));
            out.push_str("{\n");
            for (n, (key, item)) in listed.chain(rest).enumerate() {
                out.push_str(if n == 0 { "" } else { ",\n" });
                out.push_str(&format!("{inner}{}: ", Value::String(key.clone())));
                write_pretty(item, depth + 1, out);
            }
            out.push_str(&format!("\n{}}}", "  ".repeat(depth)));
        }
        other => out.push_str(&other.to_string()),
    }
}

/// A block's `type`, when it is an object with a string type.
fn block_type(block: &Value) -> Option<&str> {
    block.get("type").and_then(Value::as_str)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    User,
    Assistant,
}

/// One message of the conversation: where it came from, and the message
/// the replay's record must hold in its place.
struct Turn<'a> {
    at: String,
    role: Role,
    content: &'a Value,
    message: Value,
    /// `Some` for the response: its `stop_reason` (`None` inside when absent).
    stop_reason: Option<Option<&'a Value>>,
}

/// The turns in order (the response last), and the name of an API error
/// given as the response.
struct Conversation<'a> {
    turns: Vec<Turn<'a>>,
    error: Option<String>,
}

/// What the `response` key holds.
enum Response<'a> {
    Reply(Turn<'a>),
    Error(String),
}

/// A tool request of a reply, with its place in the input.
struct Call {
    at: String,
    block: Value,
}

/// One run of `python main.py` read back from a tool result.
struct Run {
    outcome: Value,
    is_error: bool,
    timeout: Option<f64>,
}

/// The state of one import: what was read so far, and the findings.
#[derive(Default)]
struct Importer {
    warnings: Vec<Problem>,
    refusals: Vec<Problem>,
    replies: Vec<Value>,
    outcomes: Vec<Value>,
    /// The first timeout read back, and where.
    timeout: Option<(f64, String)>,
}

impl Importer {
    fn warn(&mut self, at: impl Into<String>, message: impl Into<String>) {
        self.warnings.push(note(at, message));
    }

    fn refuse(&mut self, at: impl Into<String>, message: impl Into<String>) {
        self.refusals.push(note(at, message));
    }

    /// The turns of the request body; refused when it is not a conversation
    /// the loop could have had (shape, roles, order).
    fn read<'a>(&mut self, input: &'a Value) -> Result<Conversation<'a>, Vec<Problem>> {
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

    fn message_turn<'a>(&mut self, i: usize, message: &'a Value) -> Result<Turn<'a>, Problem> {
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
        for key in fields.keys().filter(|k| *k != "role" && *k != "content") {
            self.warn(format!("{at}.{key}"), "dropped (the loop's messages hold only role and content)");
        }
        Ok(Turn { at, role, content, message: message.clone(), stop_reason: None })
    }

    /// The question: the first message's text. A list of blocks gives its
    /// texts joined by newlines (the record then holds a string).
    fn question(&mut self, turn: &Turn) -> Option<String> {
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
    fn walk(&mut self, turns: &[Turn]) -> usize {
        let mut i = 1;
        while let Some(reply) = turns.get(i) {
            let calls = self.reply(reply);
            let Some(results) = turns.get(i + 1) else {
                if !calls.is_empty() {
                    self.warn(
                        &reply.at,
                        "the conversation ends with tool requests and no results: the replay goes on \
                         where the recording stopped (run_main with no recorded outcome cannot start)",
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
    /// saves them as they are), and its stop_reason. Returns its calls.
    fn reply(&mut self, turn: &Turn) -> Vec<Call> {
        let blocks = self.reply_blocks(turn);
        let calls: Vec<Call> = blocks
            .iter()
            .filter(|(_, block)| block_type(block) == Some("tool_use"))
            .map(|(j, block)| Call { at: format!("{}.content[{j}]", turn.at), block: block.clone() })
            .collect();
        let stop_reason = self.stop_reason(turn, !calls.is_empty());
        let content: Vec<Value> = blocks.into_iter().map(|(_, block)| block).collect();
        self.replies.push(json!({"stop_reason": stop_reason, "content": content}));
        calls
    }

    /// The blocks the loop can save, with their index in the input.
    fn reply_blocks(&mut self, turn: &Turn) -> Vec<(usize, Value)> {
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

    fn stop_reason(&mut self, turn: &Turn, has_calls: bool) -> Value {
        let derived = if has_calls { "tool_use" } else { "end_turn" };
        match turn.stop_reason {
            None => json!(derived),
            Some(Some(given)) => given.clone(),
            Some(None) => {
                self.warn(
                    "response.stop_reason",
                    format!("missing: replayed as {derived:?}, read from the content"),
                );
                json!(derived)
            }
        }
    }

    /// A user turn after a reply without tool requests: a new question the
    /// loop never asks (the replay stops at the answer), or results nobody
    /// requested (refused).
    fn after_answer(&mut self, reply: &Turn, next: &Turn) {
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

    /// The user turn answering `calls`: one tool_result per call, paired by id.
    fn results(&mut self, turn: &Turn, reply_at: &str, calls: &[Call]) {
        let blocks = turn.content.as_array().map(Vec::as_slice).unwrap_or_default();
        let requested: HashSet<String> = calls.iter().map(|c| c.block["id"].to_string()).collect();
        let mut by_id: HashMap<String, (usize, usize)> = HashMap::new();
        for (j, block) in blocks.iter().enumerate() {
            let at = format!("{}.content[{j}]", turn.at);
            match block_type(block) {
                Some("tool_result") => {
                    let id = block["tool_use_id"].to_string();
                    if !requested.contains(&id) {
                        self.refuse(
                            at,
                            format!("tool_result for id {id}, which {reply_at} does not request"),
                        );
                    } else if by_id.insert(id.clone(), (j, by_id.len())).is_some() {
                        self.refuse(at, format!("a second tool_result for id {id}"));
                    }
                }
                Some(kind) => self.warn(
                    at,
                    format!("{kind} block: dropped (the loop's results message holds only tool results)"),
                ),
                None => self.warn(at, "not a block with a type: dropped"),
            }
        }
        let mut reordered = false; // said once per message
        for (n, call) in calls.iter().enumerate() {
            let id = call.block["id"].to_string();
            let Some(&(j, position)) = by_id.get(&id) else {
                self.refuse(&turn.at, format!("no tool_result for {} (id {id})", call.at));
                continue;
            };
            let at = format!("{}.content[{j}]", turn.at);
            if position != n && !reordered {
                reordered = true;
                self.warn(&at, "out of order: the replay writes the results in the order of the requests");
            }
            if let Some(block) = blocks.get(j) {
                self.result(&at, block, call);
            }
        }
    }

    /// One tool result: read back into a process outcome when `run_main`
    /// ran for it.
    fn result(&mut self, at: &str, block: &Value, call: &Call) {
        if let Some(fields) = block.as_object() {
            let known = ["type", "tool_use_id", "content", "is_error"];
            for key in fields.keys().filter(|k| !known.contains(&k.as_str())) {
                self.warn(format!("{at}.{key}"), "dropped (the loop writes its own tool results)");
            }
        }
        let text = self.result_text(at, block);
        let is_error = block.get("is_error");
        if !lesson_one::accepts(&call.block) {
            self.other_call(call, &text, is_error);
            return;
        }
        let run = read_run(&text).unwrap_or_else(|| {
            let run = approximate_run(&text, is_error);
            self.warn(
                at,
                format!(
                    "content is not what run_main writes (\"exit_code=N\\n…\", \"timed out after N s\" or \
                     \"cannot start: …\"): replayed as a run that exits with {} and prints this text",
                    if run.is_error { 1 } else { 0 }
                ),
            );
            run
        });
        self.check_flag(at, is_error, run.is_error);
        self.check_timeout(at, run.timeout);
        self.outcomes.push(run.outcome);
    }

    /// A tool result's content as one text.
    fn result_text(&mut self, at: &str, block: &Value) -> String {
        let parts = match block.get("content") {
            Some(Value::String(text)) => return text.clone(),
            Some(Value::Array(parts)) => parts,
            None => {
                self.warn(format!("{at}.content"), "missing: read as an empty text");
                return String::new();
            }
            Some(_) => {
                self.warn(format!("{at}.content"), "not a string or a list of blocks: read as an empty text");
                return String::new();
            }
        };
        self.warn(
            format!("{at}.content"),
            "a list of blocks: the replay writes one string (the texts joined by newlines)",
        );
        let mut texts = Vec::new();
        for (k, part) in parts.iter().enumerate() {
            match (block_type(part), part.get("text").and_then(Value::as_str)) {
                (Some("text"), Some(text)) => texts.push(text),
                (kind, _) => self.warn(
                    format!("{at}.content[{k}]"),
                    format!("{} block: dropped (run_main's result is text)", kind.unwrap_or("untyped")),
                ),
            }
        }
        texts.join("\n")
    }

    /// A call `run_main` rejects: the replay answers "unsupported tool or
    /// arguments" and runs nothing. Exact when that is what was recorded.
    fn other_call(&mut self, call: &Call, text: &str, is_error: Option<&Value>) {
        if text == UNSUPPORTED && is_error == Some(&Value::Bool(true)) {
            return;
        }
        let what = match call.block["name"].as_str() {
            Some("run_main") => "run_main with arguments: the lesson's run_main takes none".to_string(),
            Some(name) => format!("tool {name:?}: the lesson has only run_main"),
            None => "a tool_use without a name: the lesson has only run_main".to_string(),
        };
        self.warn(
            &call.at,
            format!("{what}, so the replay answers {UNSUPPORTED:?} instead of the recorded result"),
        );
    }

    fn check_flag(&mut self, at: &str, recorded: Option<&Value>, replayed: bool) {
        match recorded {
            Some(Value::Bool(flag)) if *flag == replayed => {}
            None => self
                .warn(format!("{at}.is_error"), format!("missing: the replay writes is_error: {replayed}")),
            Some(other) => self.warn(
                format!("{at}.is_error"),
                format!("{other}, but the replay writes is_error: {replayed} for this content"),
            ),
        }
    }

    /// A scenario has one `timeout_s`: the first timeout read back sets it.
    fn check_timeout(&mut self, at: &str, seconds: Option<f64>) {
        let Some(seconds) = seconds else { return };
        match self.timeout.clone() {
            None => self.timeout = Some((seconds, at.to_string())),
            Some((first, first_at)) if first != seconds => self.warn(
                at,
                format!(
                    "timed out after {seconds} s, but {first_at} after {first} s: a scenario has one \
                     timeout_s, so the replay says {first} s"
                ),
            ),
            Some(_) => {}
        }
    }

    /// An API error as the response: the last model call throws it, when
    /// the loop asks again at all.
    fn final_error(&mut self, error: Option<String>, turns: &[Turn], kept: usize) {
        let Some(name) = error else { return };
        if kept < turns.len() {
            return; // dropped with everything after the answer
        }
        match turns.last().map(|t| t.role) {
            Some(Role::User) => self.replies.push(json!({ "error": name })),
            _ => self.warn(
                "response",
                "an API error, but the conversation already ends with a reply the loop stops at: dropped",
            ),
        }
    }

    fn scenario(&self, id: &str, file_name: &str, question: &str) -> Value {
        let mut scenario = json!({
            "id": id,
            "function": "run_loop",
            "title": {"zh": format!("导入的对话：{file_name}"), "en": format!("Imported conversation: {file_name}")},
            "question": question,
            "max_calls": self.replies.len().max(1),
            "model": self.replies,
            "process": self.outcomes,
        });
        if let (Some(map), Some((seconds, _))) = (scenario.as_object_mut(), &self.timeout) {
            let whole = seconds.fract() == 0.0 && seconds.abs() < 1e15;
            map.insert("timeout_s".into(), if whole { json!(*seconds as i64) } else { json!(seconds) });
        }
        scenario
    }

    /// The replay must give back the conversation; a difference no warning
    /// announced is a warning too (so no warning means an exact replay).
    fn compare(&mut self, record: &[Value], turns: &[Turn]) {
        let len = record.len().max(turns.len());
        let differs = |k: &usize| record.get(*k) != turns.get(*k).map(|t| &t.message);
        let Some(first) = (0..len).find(differs) else { return };
        let count = (first..len).filter(differs).count();
        let place = turns.get(first).map_or_else(|| format!("record[{first}]"), |t| t.at.clone());
        let why = if self.warnings.is_empty() {
            "unexpected: please report it"
        } else {
            "because of the approximations above"
        };
        self.warn(
            "(replay)",
            format!(
                "the replayed record differs from the conversation first at {place}: {count} of {len} \
                 messages differ (the replay has {}, the conversation {}), {why}",
                record.len(),
                turns.len()
            ),
        );
    }

    fn notes(&self, file_name: &str, trace: &Trace) -> Value {
        let ending = trace.ending().unwrap_or("no status");
        let mut notes = vec![format!(
            "Imported from {file_name} by `agent-loop-playground import`. Model replies: {}; runs of \
             main.py: {}; the replay ends with {ending}.",
            self.replies.len(),
            self.outcomes.len()
        )];
        if self.warnings.is_empty() {
            notes.push("The replay reproduces the recorded messages exactly.".into());
        } else {
            notes.push("Approximations (the replay differs from the recording here):".into());
            notes.extend(self.warnings.iter().map(Problem::to_string));
        }
        json!(notes)
    }
}

/// The response: a reply (its content becomes an assistant message) or an
/// API error (`{"type": "error", "error": {"type": …}}`).
fn response_turn(response: &Value) -> Result<Response<'_>, Problem> {
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
fn alternation(turns: &[Turn]) -> Vec<Problem> {
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

/// Read a tool result back into the run that wrote it, when the text is
/// exactly what `run_main` writes (so the replay writes it again).
fn read_run(text: &str) -> Option<Run> {
    if let Some(rest) = text.strip_prefix("exit_code=") {
        return read_exit(rest);
    }
    match Said::recognise(text)? {
        Said::TimedOut { seconds } => {
            let seconds = read_seconds(&seconds)?;
            Some(Run { outcome: json!({"timeout": true}), is_error: true, timeout: Some(seconds) })
        }
        Said::CannotStart { error } => {
            Some(Run { outcome: json!({"os_error": error}), is_error: true, timeout: None })
        }
        _ => None,
    }
}

/// `N\n<output>`: the exit code as Rust prints it, then the output as
/// `run_main` leaves it: trimmed, then cut to OUTPUT_LIMIT characters (a
/// cut may end in spaces), or the `(no output)` placeholder.
fn read_exit(rest: &str) -> Option<Run> {
    let (code, output) = rest.split_once('\n')?;
    let returncode: i64 = code.parse().ok().filter(|rc: &i64| rc.to_string() == code)?;
    let printed = if output == "(no output)" {
        String::new()
    } else if !output.is_empty() && output.trim() == output && output.chars().nth(OUTPUT_LIMIT).is_none() {
        format!("{output}\n")
    } else if is_cut(output) {
        // The cut ended in spaces; the replay cuts this marker off again.
        format!("{output}\n[… cut at {OUTPUT_LIMIT} characters]\n")
    } else {
        return None;
    };
    Some(exited(returncode, printed))
}

/// A trimmed output cut to exactly OUTPUT_LIMIT characters (so its end may
/// be spaces).
fn is_cut(output: &str) -> bool {
    let mut chars = output.chars();
    output.trim_start() == output
        && !output.trim().is_empty()
        && chars.nth(OUTPUT_LIMIT - 1).is_some()
        && chars.next().is_none()
}

/// A timeout as `run_main` prints it: a positive number that prints back
/// the same (`3`, `1.5`; not `3.0`).
fn read_seconds(text: &str) -> Option<f64> {
    let seconds: f64 = text.parse().ok()?;
    (seconds.is_finite() && seconds > 0.0 && seconds.to_string() == text).then_some(seconds)
}

/// A run that exited: what it printed goes to stderr for a failure, to
/// stdout otherwise (`run_main` joins the two, so the record is the same).
fn exited(returncode: i64, printed: String) -> Run {
    let (stdout, stderr) = if returncode == 0 { (printed, String::new()) } else { (String::new(), printed) };
    Run {
        outcome: json!({"returncode": returncode, "stdout": stdout, "stderr": stderr}),
        is_error: returncode != 0,
        timeout: None,
    }
}

/// A tool result `run_main` did not write: a run that exits with 1 when the
/// result was an error (0 otherwise) and prints the text.
fn approximate_run(text: &str, is_error: Option<&Value>) -> Run {
    let failed = is_error == Some(&Value::Bool(true));
    exited(i64::from(failed), text.to_string())
}

/// The scenario as `check` reads it, or why not (an importer bug).
fn validated(scenario: &Value) -> Result<Scenario, Vec<Problem>> {
    Scenario::from_value(scenario.clone()).map_err(|problems| {
        problems.iter().map(|p| note("(import)", format!("the scenario does not validate: {p}"))).collect()
    })
}

/// Record the scenario, as `trace` would.
fn replay(scenario: &Value) -> Result<Trace, Vec<Problem>> {
    Ok(record_scenario(&validated(scenario)?))
}
