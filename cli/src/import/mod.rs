//! Import a recorded conversation as a `run_loop` scenario.
//!
//! The file may be saved in any of the shapes `shapes.rs` reads (a list of
//! messages, `{request, response}` pairs, JSONL, the SDK's `model_dump()`
//! objects); each is read as the request body below.
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

use agent_loop_core::run::{record_scenario, Trace};
use agent_loop_core::scenario::{is_id, is_id_char, Expect, Problem, Scenario};
use importer::Importer;
use serde_json::{json, Value};
use turns::*;

mod importer;
mod results;
mod runs;
mod shapes;
mod turns;

/// A conversation that could be imported.
#[derive(Clone, Debug)]
pub struct Imported {
    /// The scenario, ready for `check`, `trace` and `fixtures/scenarios/`.
    pub scenario: Value,
    /// Every approximation (also listed in the scenario's `notes`). Empty
    /// means the replay reproduces the conversation exactly.
    pub warnings: Vec<Problem>,
}

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
    let shaped = shapes::request_body(text)?;
    let input = shaped.body;
    let mut importer = Importer { read_as: shaped.read_as, ..Importer::default() };
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
    let counts = (importer.replies.len(), importer.outcomes.len());
    // The replay is compared with the messages kept, taken out of the
    // turns; the input is let go before the replay.
    let kept: Vec<(String, Value)> =
        conversation.turns.into_iter().take(kept).map(|t| (t.at, t.message)).collect();
    drop(input);
    // The scenario is recorded as `trace` would, and read as `check` reads
    // it; each step hands the same value on (a big one is not copied).
    let checked = validated(importer.scenario(id, file_name, &question.unwrap_or_default()))?;
    let trace = record_scenario(&checked);
    importer.compare(&trace.record, &kept);
    drop(kept);
    let mut scenario = checked.raw;
    if let Some(map) = scenario.as_object_mut() {
        map.insert("notes".into(), importer.notes(file_name, &trace, counts));
        map.insert("expect".into(), Expect::of(&trace));
    }
    drop(trace);
    let scenario = validated(scenario)?.raw;
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

impl Importer {
    /// The scenario, the replies and the outcomes moved into it.
    fn scenario(&mut self, id: &str, file_name: &str, question: &str) -> Value {
        let mut scenario = json!({
            "id": id,
            "function": "run_loop",
            "title": {"zh": format!("导入的对话：{file_name}"), "en": format!("Imported conversation: {file_name}")},
            "question": question,
            "max_calls": self.replies.len().max(1),
        });
        if let Some(map) = scenario.as_object_mut() {
            map.insert("process".into(), Value::Array(std::mem::take(&mut self.outcomes)));
            map.insert("model".into(), Value::Array(std::mem::take(&mut self.replies)));
        }
        if let (Some(map), Some((seconds, _))) = (scenario.as_object_mut(), &self.timeout) {
            let whole = seconds.fract() == 0.0 && seconds.abs() < 1e15;
            map.insert("timeout_s".into(), if whole { json!(*seconds as i64) } else { json!(seconds) });
        }
        scenario
    }

    /// The replay must give back the conversation; a difference no warning
    /// announced is a warning too (so no warning means an exact replay).
    /// The replayed record against the conversation's messages (each with
    /// its place).
    fn compare(&mut self, record: &[Value], turns: &[(String, Value)]) {
        let len = record.len().max(turns.len());
        let differs = |k: &usize| record.get(*k) != turns.get(*k).map(|t| &t.1);
        let Some(first) = (0..len).find(differs) else { return };
        let count = (first..len).filter(differs).count();
        let place = turns.get(first).map_or_else(|| format!("record[{first}]"), |t| t.0.clone());
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

    /// The notes: what was imported (`(replies, runs)` of main.py) and how.
    fn notes(&self, file_name: &str, trace: &Trace, (replies, runs): (usize, usize)) -> Value {
        let ending = trace.ending().unwrap_or("no status");
        let mut notes = vec![format!(
            "Imported from {file_name} by the author CLI's `import`. Model replies: {replies}; runs of \
             main.py: {runs}; the replay ends with {ending}."
        )];
        let sdk = (self.sdk_messages > 0).then(|| {
            format!("{} of its messages are the SDK's Message objects (model_dump())", self.sdk_messages)
        });
        match (&self.read_as, sdk) {
            (Some(read_as), Some(sdk)) => notes.push(format!("Read as {read_as}; {sdk}.")),
            (Some(read_as), None) => notes.push(format!("Read as {read_as}.")),
            (None, Some(sdk)) => notes.push(format!("Read as a request body; {sdk}.")),
            (None, None) => {}
        }
        if self.warnings.is_empty() {
            notes.push("The replay reproduces the recorded messages exactly.".into());
        } else {
            notes.push("Approximations (the replay differs from the recording here):".into());
            notes.extend(self.warnings.iter().map(Problem::to_string));
        }
        json!(notes)
    }
}

/// The scenario as `check` reads it (its `raw` is the value given), or
/// why not (an importer bug).
fn validated(scenario: Value) -> Result<Scenario, Vec<Problem>> {
    Scenario::from_value(scenario).map_err(|problems| {
        problems.iter().map(|p| note("(import)", format!("the scenario does not validate: {p}"))).collect()
    })
}
