//! The `expect` field of a fixture: what the run must produce (the schema
//! is in the parent module's doc and docs/scenario-format.md). Only its
//! shape is checked here; the test suite runs the scenario and compares.

use crate::programs::lesson_one;
use crate::protocol::Status;
use crate::vocab::Function;
use serde_json::{Map, Value};

/// A fixture's expected outcome (`expect`, see the module doc). Absent keys
/// are `None` (or empty for `hits` / `misses`) and are not checked.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Expect {
    pub status: Option<Status>,
    pub error: Option<String>,
    pub calls: Option<i64>,
    /// `"role:kinds"` per message.
    pub record: Option<Vec<String>>,
    /// `(first content line, is_error)` per tool_result.
    pub results: Option<Vec<(String, bool)>>,
    pub stop_reason: Option<String>,
    pub output_lines: Option<u64>,
    pub hits: Vec<String>,
    pub misses: Vec<String>,
    /// The fields `check` warns about (a near miss on purpose), in order.
    pub warnings: Vec<String>,
}

const EXPECT_FIELDS: [&str; 10] = [
    "status",
    "error",
    "calls",
    "record",
    "results",
    "stop_reason",
    "output_lines",
    "hits",
    "misses",
    "warnings",
];

/// Something that is told a problem of a field.
type Say<'a> = &'a mut dyn FnMut(&str, String);

/// Validate the shape of `expect`. `function` is `None` when the fixture's
/// own `function` is broken; then the per-function rules are skipped (that
/// problem is reported once, on `function`).
pub(super) fn parse_expect(
    v: &Value,
    function: Option<Function>,
    problem: &mut impl FnMut(&str, String),
) -> Expect {
    let mut expect = Expect::default();
    let Some(obj) = v.as_object() else {
        problem("expect", "must be an object, e.g. {\"status\": \"answered\", \"calls\": 2}".into());
        return expect;
    };
    for key in obj.keys() {
        if !EXPECT_FIELDS.contains(&key.as_str()) {
            problem(&format!("expect.{key}"), format!("unknown field (known: {})", EXPECT_FIELDS.join(", ")));
        }
    }
    (expect.status, expect.error) = read_ending(obj, problem);
    expect.calls = read_calls(obj, problem);
    expect.record = obj.get("record").and_then(|v| read_record(v, problem));
    expect.results = obj.get("results").and_then(|v| read_results(v, problem));
    expect.stop_reason = match obj.get("stop_reason") {
        None => None,
        Some(Value::String(reason)) => Some(reason.clone()),
        Some(_) => {
            problem("expect.stop_reason", "must be a string".into());
            None
        }
    };
    expect.output_lines = match obj.get("output_lines") {
        None => None,
        Some(n) => n.as_u64().or_else(|| {
            problem("expect.output_lines", "must be a non-negative integer".into());
            None
        }),
    };
    expect.hits = read_labels(obj, "hits", problem);
    expect.misses = read_labels(obj, "misses", problem);
    expect.warnings = read_labels(obj, "warnings", problem);
    for (i, label) in expect.misses.iter().enumerate() {
        if expect.hits.contains(label) {
            problem(&format!("expect.misses[{i}]"), format!("{label:?} is also in expect.hits"));
        }
    }
    if let Some(function) = function {
        lesson_rules(obj, function, problem);
    }
    expect
}

/// `status` or `error`: how the run ends.
fn read_ending(obj: &Map<String, Value>, problem: Say) -> (Option<Status>, Option<String>) {
    let statuses = || Status::ALL.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ");
    let status = match obj.get("status") {
        None => None,
        Some(Value::String(name)) => {
            let status = Status::ALL.iter().copied().find(|s| s.as_str() == name);
            if status.is_none() {
                problem("expect.status", format!("unknown status {name:?} ({})", statuses()));
            }
            status
        }
        Some(_) => {
            problem("expect.status", format!("must be a string ({})", statuses()));
            None
        }
    };
    let error = match obj.get("error") {
        None => None,
        Some(Value::String(kind)) if !kind.is_empty() => Some(kind.clone()),
        Some(_) => {
            let message = "must be a non-empty string (a trace error kind, e.g. \"value_error\")";
            problem("expect.error", message.into());
            None
        }
    };
    if obj.contains_key("status") && obj.contains_key("error") {
        problem("expect.error", "give expect.status or expect.error, not both".into());
    }
    (status, error)
}

/// `calls`: how many model calls the run made.
fn read_calls(obj: &Map<String, Value>, problem: Say) -> Option<i64> {
    let calls = match obj.get("calls") {
        None => None,
        Some(n) => match n.as_i64() {
            Some(n) if n >= 1 => Some(n),
            Some(_) => {
                problem("expect.calls", "must be at least 1 (the loop always asks once)".into());
                None
            }
            None => {
                problem("expect.calls", "must be an integer".into());
                None
            }
        },
    };
    if obj.contains_key("calls") && obj.contains_key("error") {
        let message = "a run with expect.error returns nothing, so there are no calls to count";
        problem("expect.calls", message.into());
    }
    calls
}

/// `record`: the messages' shapes, `role:kinds`.
fn read_record(v: &Value, problem: Say) -> Option<Vec<String>> {
    let list = list_of(v, "expect.record", "a list of \"role:kinds\" strings", problem)?;
    let mut record = Vec::new();
    for (i, item) in list.iter().enumerate() {
        match item.as_str() {
            Some(s) if s.split_once(':').is_some_and(|(role, _)| !role.is_empty()) => {
                record.push(s.to_string())
            }
            _ => problem(
                &format!("expect.record[{i}]"),
                "must be a \"role:kinds\" string, e.g. \"assistant:text+tool_use\"".into(),
            ),
        }
    }
    Some(record)
}

/// `results`: `[first line, is_error]` per tool result.
fn read_results(v: &Value, problem: Say) -> Option<Vec<(String, bool)>> {
    let list = list_of(v, "expect.results", "a list of [first line, is_error] pairs", problem)?;
    let mut results = Vec::new();
    for (i, item) in list.iter().enumerate() {
        match item.as_array().map(Vec::as_slice) {
            Some([Value::String(line), Value::Bool(is_error)]) => results.push((line.clone(), *is_error)),
            _ => problem(
                &format!("expect.results[{i}]"),
                "must be a [first line, is_error] pair, e.g. [\"exit_code=1\", true]".into(),
            ),
        }
    }
    Some(results)
}

/// `hits` or `misses`: labels the run must (not) reach.
fn read_labels(obj: &Map<String, Value>, key: &str, problem: Say) -> Vec<String> {
    let Some(list) =
        obj.get(key).and_then(|v| list_of(v, &format!("expect.{key}"), "a list of labels", problem))
    else {
        return Vec::new();
    };
    let mut labels = Vec::new();
    for (i, item) in list.iter().enumerate() {
        match item.as_str() {
            Some(label) if !label.is_empty() => labels.push(label.to_string()),
            _ => problem(&format!("expect.{key}[{i}]"), "must be a label, e.g. \"loop.ask\"".into()),
        }
    }
    labels
}

/// Which fields fit which of the lesson's functions (the lesson-specific
/// part of `expect`; ARCHITECTURE.md, "A program is a value").
fn lesson_rules(obj: &Map<String, Value>, function: Function, problem: Say) {
    let mut only_for = |key: &str, allowed: &[Function]| {
        if obj.contains_key(key) && !allowed.contains(&function) {
            let names: Vec<&str> = allowed.iter().map(|f| f.name()).collect();
            let names = match names.split_last() {
                Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
                _ => names.join(""),
            };
            let message = format!("only for {names} scenarios, not {}", function.name());
            problem(&format!("expect.{key}"), message);
        }
    };
    only_for("status", &[lesson_one::RUN_LOOP]);
    only_for("calls", &[lesson_one::RUN_LOOP]);
    let mut with_results = vec![lesson_one::RUN_LOOP, lesson_one::RUN_MAIN];
    with_results.extend(crate::programs::lesson_two::LOOPS);
    only_for("results", &with_results);
    only_for("stop_reason", &[lesson_one::ASK_CLAUDE]);
    if function == lesson_one::RUN_LOOP && !obj.contains_key("status") && !obj.contains_key("error") {
        problem("expect.status", "missing: a run_loop expectation needs status (or error)".into());
    }
    let results = obj.get("results").and_then(Value::as_array);
    if function == lesson_one::RUN_MAIN && results.is_some_and(|r| r.len() != 1) {
        problem("expect.results", "run_main returns exactly one result: give one pair".into());
    }
}

/// `v` as a list, or a `must be …` problem.
fn list_of<'a>(v: &'a Value, field: &str, what: &str, problem: Say) -> Option<&'a Vec<Value>> {
    let list = v.as_array();
    if list.is_none() {
        problem(field, format!("must be {what}"));
    }
    list
}
