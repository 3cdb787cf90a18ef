//! Import a recorded conversation as a scenario: lesson one's `run_loop`
//! (below; [`import`]), lesson two's `agent_loop` ([`import_agent_loop`]),
//! or a scenario file for an author's own program, drafted here
//! ([`draft_for_program`]) and recorded by `crate::record`. The two tool
//! loops keep the log's `system` and `tools` and read each tool result back
//! into its tool's outcome (`draft.rs`, `tools.rs`).
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

use crate::shown;
use agent_loop_core::run::{record_scenario, Trace};
use agent_loop_core::scenario::{is_id, is_id_char, Expect, Problem};
pub use draft::Draft;
use importer::{Importer, Target};
use serde_json::{json, Value};
use std::ffi::OsString;
use std::path::PathBuf;
use std::rc::Rc;
use turns::*;

mod draft;
mod importer;
mod results;
mod runs;
mod shapes;
mod tools;
mod turns;

/// The built-in functions `import --function` makes a scenario for: lesson
/// one's loop (the default) and lesson two's.
pub const FUNCTIONS: [&str; 2] = ["run_loop", "agent_loop"];

/// A conversation that could be imported.
#[derive(Clone, Debug)]
pub struct Imported {
    /// The scenario, ready for `check`, `trace` and `fixtures/scenarios/`.
    pub scenario: Value,
    /// Every approximation (also listed in the scenario's `notes`). Empty
    /// means the replay reproduces the conversation exactly.
    pub warnings: Vec<Problem>,
}

/// The command line of `import`.
#[derive(Debug, Default)]
pub struct Args {
    /// The log.
    pub file: PathBuf,
    /// `--id`: the scenario's id (else made from the file's name).
    pub id: Option<String>,
    /// `--function`: a built-in function of [`FUNCTIONS`] (`None`: run_loop).
    pub function: Option<String>,
    /// `--manifest`: an author's own program instead.
    pub manifest: Option<PathBuf>,
    /// `-o`: where the scenario goes (`None`: standard output).
    pub out: Option<PathBuf>,
}

/// Read `import`'s arguments (after `import`): the log, and `--id`,
/// `--function`, `--manifest`, `-o` in any order; `Err` says what is wrong
/// (said before the usage, exit code 2).
pub fn args(args: &[OsString]) -> Result<Args, String> {
    let (mut wanted, mut file) = (Args::default(), None);
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        let flag = arg.to_str().filter(|a| a.starts_with('-') && a.len() > 1);
        let mut value = |name: &str| rest.next().ok_or_else(|| format!("{name} needs a value"));
        match flag {
            Some("--id") => wanted.id = Some(utf8(value("--id")?, "--id")?),
            Some("--function") => {
                wanted.function = Some(function(utf8(value("--function")?, "--function")?)?)
            }
            Some("--manifest") => wanted.manifest = Some(PathBuf::from(value("--manifest")?)),
            Some("-o" | "--out") => wanted.out = Some(PathBuf::from(value("-o")?)),
            Some(other) => return Err(format!("import: unknown option {}", shown::text(other))),
            None if file.is_none() => file = Some(PathBuf::from(arg)),
            None => return Err("import takes one log file".into()),
        }
    }
    if wanted.function.is_some() && wanted.manifest.is_some() {
        return Err("--function and --manifest do not go together: --function names a built-in program, \
                    --manifest your own"
            .into());
    }
    wanted.file = file.ok_or("import needs a log file: import <file>")?;
    Ok(wanted)
}

fn utf8(value: &OsString, flag: &str) -> Result<String, String> {
    value.to_str().map(str::to_string).ok_or_else(|| format!("{flag}: not UTF-8 text"))
}

/// A function `--function` takes, or the ones it does.
fn function(name: String) -> Result<String, String> {
    match FUNCTIONS.contains(&name.as_str()) {
        true => Ok(name),
        false => Err(format!(
            "--function: unknown function {name:?} (import makes scenarios for {}; for your own program, \
             --manifest <manifest.json>)",
            FUNCTIONS.join(", ")
        )),
    }
}

/// The order of keys in [`to_pretty_json`], the way the shipped fixtures
/// read (a key not listed follows, in alphabetical order).
#[rustfmt::skip]
const KEY_ORDER: [&str; 38] = [
    "type", "id", "function", "title", "zh", "en", "notes", "question", "system", "tools", "max_calls",
    "timeout_s", "role", "stop_reason", "model", "process", "tool_results", "raises", "tool_use_id", "name",
    "input", "text", "content", "is_error",
    "returncode", "stdout", "stderr", "timeout", "os_error", "error", "status", "calls", "record",
    "results", "output_lines", "hits", "misses", "expect",
];

/// Import `text` (a request body) as the scenario `id`; `file_name` names
/// the source in the title and the notes. `Err` holds the refusals:
/// nothing was imported.
pub fn import(text: &str, id: &str, file_name: &str) -> Result<Imported, Vec<Problem>> {
    check_id(id)?;
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
    let mut scenario = Rc::unwrap_or_clone(checked.raw);
    if let Some(map) = scenario.as_object_mut() {
        map.insert("notes".into(), importer.notes(file_name, &trace, counts));
        map.insert("expect".into(), Expect::of(&trace));
    }
    drop(trace);
    let scenario = Rc::unwrap_or_clone(validated(scenario)?.raw);
    Ok(Imported { scenario, warnings: importer.warnings })
}

fn check_id(id: &str) -> Result<(), Vec<Problem>> {
    match is_id(id) {
        true => Ok(()),
        false => Err(vec![note("--id", format!("{id:?}: use letters, digits, '-' or '_' (1-64 chars)"))]),
    }
}

/// The title of a scenario imported from `file_name`.
fn title(file_name: &str) -> Value {
    json!({"zh": format!("导入的对话：{file_name}"), "en": format!("Imported conversation: {file_name}")})
}

/// Import `text` (a log, in any shape [`import`] reads) as the scenario
/// `id` of lesson two's `agent_loop`: the log's `system`, `tools` and
/// tool results kept, each result read back into its tool's outcome.
/// Recorded by the core and compared with the log's messages like
/// [`import`]'s scenario; every difference, and every tool lesson two's
/// scenarios do not declare, is a warning.
pub fn import_agent_loop(text: &str, id: &str, file_name: &str) -> Result<Imported, Vec<Problem>> {
    check_id(id)?;
    let wanted =
        draft::For { target: Target::AgentLoop, tools: Some(draft::lesson_two_tools()), owner: "agent_loop" };
    let mut drafted = draft::draft(text, file_name, wanted)?;
    let mut scenario = std::mem::take(&mut drafted.scenario);
    scenario["id"] = json!(id);
    scenario["function"] = json!("agent_loop");
    scenario["title"] = title(file_name);
    let checked = validated(scenario)?;
    let trace = record_scenario(&checked);
    let mut replay = vec![match &trace.error {
        Some(error) => format!("The replay stops with {}.", error.message),
        None => "The replay returns its final text.".to_string(),
    }];
    match drafted.difference(&trace.record, false) {
        None if drafted.ends_with_answer => replay.push(
            "The replay reproduces the recorded messages exactly; agent_loop reads the last answer and \
             stops without saving it, so its record ends before that answer."
                .into(),
        ),
        None => replay.push("The replay reproduces the recorded messages exactly.".into()),
        Some(differs) => {
            let why = match drafted.warnings.is_empty() {
                true => "unexpected: please report it",
                false => "because of the warnings above",
            };
            drafted.warnings.push(note("(replay)", format!("{differs}, {why}")));
        }
    }
    let mut scenario = Rc::unwrap_or_clone(checked.raw);
    scenario["notes"] = drafted.notes(&replay);
    scenario["expect"] = Expect::of(&trace);
    drop(trace);
    let scenario = Rc::unwrap_or_clone(validated(scenario)?.raw);
    Ok(Imported { scenario, warnings: drafted.warnings })
}

/// Draft `text` as a scenario file for an author's own program (the
/// `file` of a manifest's scenario): `owner` names the program (its
/// manifest, as the CLI says it) and `tools` are the tools its file
/// scenarios declare (`None`: none declares any). The caller records it
/// with the program and compares ([`Draft::difference`]).
pub fn draft_for_program(
    text: &str,
    file_name: &str,
    owner: &str,
    tools: Option<Vec<String>>,
) -> Result<Draft, Vec<Problem>> {
    draft::draft(text, file_name, draft::For { target: Target::Program, tools, owner })
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
            "title": title(file_name),
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
        let Some(differs) = difference(record, turns) else { return };
        let why = if self.warnings.is_empty() {
            "unexpected: please report it"
        } else {
            "because of the approximations above"
        };
        self.warn("(replay)", format!("{differs}, {why}"));
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
