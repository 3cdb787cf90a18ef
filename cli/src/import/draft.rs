//! A logged conversation as a tool loop's scenario (lesson two's shape:
//! `question`, `system`, `tools`, `max_calls`, `model`, `tool_results`),
//! drafted before any replay: for lesson two's `agent_loop`, which the
//! core records here, or for an author's own program, which `record`'s
//! harness records (`crate::record::import`).

use super::importer::{Importer, Target};
use super::shapes;
use super::turns::*;
use agent_loop_core::programs::lesson_two;
use agent_loop_core::scenario::{load_shipped, Problem};
use serde_json::{json, Value};

/// A scenario drafted from a log, and what its replay must give back.
#[derive(Debug)]
pub struct Draft {
    /// `question`, `system`, `tools`, `max_calls`, `model`, `tool_results`
    /// (no `id`, `function` or `title`: the caller's).
    pub scenario: Value,
    /// What the replay cannot reproduce as it was logged, and the tools
    /// the program does not have.
    pub warnings: Vec<Problem>,
    /// What was read, for the notes.
    pub read: Vec<String>,
    /// The logged messages the replay's record must hold, each with its
    /// place in the log (the response last, as an assistant message).
    pub conversation: Vec<(String, Value)>,
    /// The conversation ends with the model's answer (a last reply replayed
    /// with `end_turn`): a loop that stops on it without saving it, as
    /// agent_loop does, records the conversation without that message.
    pub ends_with_answer: bool,
}

impl Draft {
    /// The messages a loop that saves the last answer (`true`) or stops
    /// without saving it (`false`) records.
    pub fn expected(&self, saves_answer: bool) -> &[(String, Value)] {
        match self.ends_with_answer && !saves_answer {
            true => &self.conversation[..self.conversation.len() - 1],
            false => &self.conversation,
        }
    }

    /// Where `record` parts from what it must give back, as a sentence;
    /// `None` when it is the conversation (`saves_answer` as in
    /// [`Draft::expected`]).
    pub fn difference(&self, record: &[Value], saves_answer: bool) -> Option<String> {
        difference(record, self.expected(saves_answer))
    }

    /// The scenario's notes: what was read, how the replay went
    /// (`replay`, sentences), then the warnings.
    pub fn notes(&self, replay: &[String]) -> Value {
        let mut notes: Vec<String> = self.read.iter().chain(replay).cloned().collect();
        if !self.warnings.is_empty() {
            notes.push("Warnings:".into());
            notes.extend(self.warnings.iter().map(Problem::to_string));
        }
        json!(notes)
    }
}

/// Which loop a draft is for: `target`, the program's tools (`None`: not
/// known) and whose they are, as the warnings name it.
pub(super) struct For<'a> {
    pub(super) target: Target,
    pub(super) tools: Option<Vec<String>>,
    pub(super) owner: &'a str,
}

/// Draft `text` (a log in any shape `shapes.rs` reads; `file_name` names
/// it in the notes) as a scenario of a tool loop. `Err`: the refusals.
pub(super) fn draft(text: &str, file_name: &str, wanted: For) -> Result<Draft, Vec<Problem>> {
    let shaped = shapes::request_body(text)?;
    let input = shaped.body;
    let mut importer = Importer {
        read_as: shaped.read_as,
        target: wanted.target,
        known_tools: wanted.tools,
        owner: wanted.owner.to_string(),
        ..Importer::default()
    };
    let conversation = importer.read(&input)?;
    let turns = conversation.turns.as_slice();
    let Some(first) = turns.first() else {
        return Err(vec![note("messages", "empty: the conversation must start with the user's question")]);
    };
    let question = importer.question(first).unwrap_or_default();
    let kept = importer.walk(turns);
    importer.final_error(conversation.error, turns, kept);
    let (system, tools) = importer.setup_of(&input);
    importer.compare_tools(&tools);
    if !importer.refusals.is_empty() {
        return Err(importer.refusals);
    }
    let last_is_reply = kept > 1 && turns.get(kept - 1).is_some_and(|t| t.role == Role::Assistant);
    let last_stop = importer.replies.last().and_then(|r| r.get("stop_reason"));
    let ends_with_answer = last_is_reply && last_stop == Some(&json!("end_turn"));
    let read = importer.read_notes(file_name);
    let scenario = json!({
        "question": question,
        "system": system,
        "tools": tools,
        "max_calls": importer.replies.len().max(1),
        "model": std::mem::take(&mut importer.replies),
        "tool_results": std::mem::take(&mut importer.tool_results),
    });
    let conversation = conversation.turns.into_iter().take(kept).map(|t| (t.at, t.message)).collect();
    Ok(Draft { scenario, warnings: importer.warnings, read, conversation, ends_with_answer })
}

impl Importer {
    /// What was read: the counts, the log's shape, what it lacked.
    fn read_notes(&self, file_name: &str) -> Vec<String> {
        let results: usize = self.tool_results.values().filter_map(Value::as_array).map(Vec::len).sum();
        let mut read = vec![format!(
            "Imported from {file_name} by the author CLI's `import`. Model replies: {}; tool results \
             scripted: {results}.",
            self.replies.len()
        )];
        read.extend(self.read_as.iter().map(|how| format!("Read as {how}.")));
        if self.sdk_messages > 0 {
            read.push(format!(
                "{} of its messages are the SDK's Message objects (model_dump()).",
                self.sdk_messages
            ));
        }
        read.extend(self.facts.iter().cloned());
        read
    }
}

/// The tools lesson two's scenarios declare, in the order they first do:
/// the lesson's tools, which a log for agent_loop is compared with.
pub(super) fn lesson_two_tools() -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for (_, scenario) in load_shipped() {
        let Ok(scenario) = scenario else { continue };
        if !lesson_two::LOOPS.contains(&scenario.function) {
            continue;
        }
        for tool in scenario.raw["tools"].as_array().into_iter().flatten() {
            if let Some(name) = tool["name"].as_str().filter(|n| !names.iter().any(|k| k == n)) {
                names.push(name.to_string());
            }
        }
    }
    names
}
