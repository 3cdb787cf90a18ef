//! A tool loop's side of an import (lesson two's `agent_loop`, or an
//! author's own program recorded by `record`): each tool result read back
//! into the outcome its tool plays (`{"returns": text}`, or for an
//! `is_error` result `{"raises": Name, "message": …}`), the calls checked
//! for what the loop hands its tools, the log's `system` and `tools`
//! kept, and the tools the log uses set against the program's.

use super::importer::{Importer, Target};
use super::turns::*;
use serde_json::{json, Value};

impl Importer {
    /// Keys of a tool_result the loop does not write: dropped (every loop
    /// writes its own results).
    pub(super) fn extra_result_keys(&mut self, at: &str, block: &Value) {
        let Some(fields) = block.as_object() else { return };
        let known = ["type", "tool_use_id", "content", "is_error"];
        for key in fields.keys().filter(|k| !known.contains(&k.as_str())) {
            self.warn(format!("{at}.{key}"), "dropped (the loop writes its own tool results)");
        }
    }

    /// A tool result's content as one text.
    pub(super) fn result_text(&mut self, at: &str, block: &Value) -> String {
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
        let whose = if self.target == Target::RunLoop { "run_main's" } else { "a scripted tool's" };
        let mut texts = Vec::new();
        for (k, part) in parts.iter().enumerate() {
            match (block_type(part), part.get("text").and_then(Value::as_str)) {
                (Some("text"), Some(text)) => texts.push(text),
                (kind, _) => self.warn(
                    format!("{at}.content[{k}]"),
                    format!("{} block: dropped ({whose} result is text)", kind.unwrap_or("untyped")),
                ),
            }
        }
        texts.join("\n")
    }

    /// The calls of one reply: each names its tool and gives it an object
    /// of arguments (the loop calls `tool(**input)`); the first call of
    /// each tool is remembered for the comparison of tools.
    pub(super) fn tool_calls(&mut self, calls: &[Call]) {
        for call in calls {
            let Some(name) = call.block.get("name").and_then(Value::as_str) else {
                self.refuse(&call.at, "a tool_use without a name: the API refuses it, and no tool could run");
                continue;
            };
            if !call.block.get("input").is_some_and(Value::is_object) {
                self.refuse(
                    format!("{}.input", call.at),
                    "must be an object: the loop passes it to the tool as its arguments",
                );
            }
            if !self.used.iter().any(|(used, _)| used == name) {
                self.used.push((name.to_string(), call.at.clone()));
            }
        }
    }

    /// One tool result read back into its tool's next outcome: the text it
    /// returned, or — `is_error: true` — the exception it raised.
    pub(super) fn tool_result(&mut self, at: &str, block: &Value, call: &Call) {
        let Some(name) = call.block.get("name").and_then(Value::as_str) else { return };
        let text = self.result_text(at, block);
        let lesson_two = self.target == Target::AgentLoop;
        let outcome = match block.get("is_error") {
            Some(Value::Bool(true)) => {
                let (error, message) = raised(&text);
                if lesson_two {
                    self.warn(
                        format!("{at}.is_error"),
                        format!(
                            "true: read as {name} raising {error}; agent_loop catches no exception, so \
                             the replay stops there and never sends this result"
                        ),
                    );
                }
                json!({"raises": error, "message": message})
            }
            Some(Value::Bool(false)) | None => {
                if lesson_two && block.get("is_error").is_some() {
                    self.warn(
                        format!("{at}.is_error"),
                        "false: dropped (agent_loop's results carry no is_error)",
                    );
                }
                json!({"returns": text})
            }
            Some(other) => {
                self.warn(
                    format!("{at}.is_error"),
                    format!("{other}: neither true nor false, read as false"),
                );
                json!({"returns": text})
            }
        };
        if !self.scripts(name) {
            return;
        }
        let outcomes = self.tool_results.entry(name.to_string()).or_insert_with(|| json!([]));
        if let Some(list) = outcomes.as_array_mut() {
            list.push(outcome);
        }
    }

    /// Whether a tool's recorded results are scripted: always for
    /// agent_loop (its tools are its scenario's); for an author's program,
    /// only a tool it has, so that it answers any other as it answers a
    /// tool it does not know.
    fn scripts(&self, name: &str) -> bool {
        match (&self.target, &self.known_tools) {
            (Target::Program, Some(known)) => known.iter().any(|k| k == name),
            _ => true,
        }
    }

    /// The log's `system` (a list of text blocks joined) and `tools` (kept
    /// as they are), what every request of a tool loop sends.
    pub(super) fn setup_of(&mut self, body: &Value) -> (Value, Value) {
        let system = match body.get("system") {
            Some(Value::String(text)) => json!(text),
            Some(Value::Array(blocks)) => {
                self.warn(
                    "system",
                    "a list of blocks: the scenario's system is one string (their texts joined by newlines)",
                );
                let texts: Vec<&str> = blocks.iter().filter_map(|b| b.get("text")?.as_str()).collect();
                json!(texts.join("\n"))
            }
            None => {
                self.facts.push("The log has no system prompt: the scenario's is empty.".into());
                json!("")
            }
            Some(_) => {
                self.refuse("system", "must be a string or a list of text blocks");
                json!("")
            }
        };
        let tools = match body.get("tools") {
            Some(tools @ Value::Array(_)) => tools.clone(),
            None if !self.used.is_empty() => {
                self.warn(
                    "tools",
                    "missing: the log defines no tools, so the API refuses every request after a tool \
                     call (log the request body with its tools)",
                );
                json!([])
            }
            None => {
                self.facts.push("The log has no tools: the scenario's tools are empty.".into());
                json!([])
            }
            Some(_) => {
                self.refuse("tools", "must be a list of tool definitions");
                json!([])
            }
        };
        (system, tools)
    }

    /// The tools the log uses and declares, set against the program's:
    /// each one the program does not have is named where it is first
    /// called (or declared, when it is never called).
    pub(super) fn compare_tools(&mut self, declared: &Value) {
        let Some(known) = self.known_tools.clone() else {
            self.warn(
                "tools",
                format!(
                    "not compared with the program's: none of {}'s file scenarios gives tools",
                    self.owner
                ),
            );
            return;
        };
        let theirs = format!("{}'s scenarios declare {}", self.owner, known.join(", "));
        let then = match self.target {
            Target::Program => {
                "its results are not scripted, so the program answers it as a tool it does not have"
            }
            _ => "the replay plays its recorded results all the same",
        };
        for (name, at) in self.used.clone() {
            if !known.contains(&name) {
                self.warn(at, format!("tool {name:?} is not among the program's tools ({theirs}): {then}"));
            }
        }
        for (k, tool) in declared.as_array().into_iter().flatten().enumerate() {
            let name = tool.get("name").and_then(Value::as_str).unwrap_or("");
            if !known.iter().any(|n| n == name) && !self.used.iter().any(|(u, _)| u == name) {
                self.warn(
                    format!("tools[{k}]"),
                    format!("{name:?} is not among the program's tools ({theirs}); the scenario keeps it"),
                );
            }
        }
    }
}

/// An `is_error` text as the exception that wrote it: `Name: message`
/// when it starts with a Python name and a colon (`f"{type(e).__name__}:
/// {e}"`, the way a loop reports a tool's exception), else `Exception`
/// with the whole text.
fn raised(text: &str) -> (String, String) {
    let named = text.split_once(": ").filter(|(name, _)| is_python_name(name));
    match named {
        Some((name, message)) => (name.to_string(), message.to_string()),
        None => ("Exception".to_string(), text.to_string()),
    }
}

fn is_python_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}
