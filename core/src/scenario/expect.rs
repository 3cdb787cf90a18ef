//! The `expect` field of a fixture: what the run must produce (the schema
//! is in the parent module's doc and docs/scenario-format.md). Only its
//! shape is checked here; the test suite runs the scenario and compares.

use super::fields::{label_expected, unknown_field};
use crate::i18n::Phrase;
use crate::programs;
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
type Tell<'a> = &'a mut dyn FnMut(&str, Phrase);

/// Validate the shape of `expect`. `function` is `None` when the fixture's
/// own `function` is broken; then the per-function rules are skipped (that
/// problem is reported once, on `function`).
pub(super) fn parse_expect(
    v: &Value,
    function: Option<Function>,
    problem: &mut impl FnMut(&str, Phrase),
) -> Expect {
    let mut expect = Expect::default();
    let Some(obj) = v.as_object() else {
        problem("expect", Phrase::word("check_expect"));
        return expect;
    };
    for key in obj.keys() {
        if !EXPECT_FIELDS.contains(&key.as_str()) {
            problem(&format!("expect.{key}"), unknown_field(&EXPECT_FIELDS));
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
            problem("expect.stop_reason", Phrase::word("check_string"));
            None
        }
    };
    expect.output_lines = match obj.get("output_lines") {
        None => None,
        Some(n) => n.as_u64().or_else(|| {
            problem("expect.output_lines", Phrase::word("check_count"));
            None
        }),
    };
    let example = programs::example_label(function);
    expect.hits = read_labels(obj, "hits", example, problem);
    expect.misses = read_labels(obj, "misses", example, problem);
    expect.warnings = read_labels(obj, "warnings", example, problem);
    for (i, label) in expect.misses.iter().enumerate() {
        if expect.hits.contains(label) {
            problem(
                &format!("expect.misses[{i}]"),
                Phrase::with("check_also_hit", &[("label", format!("{label:?}"))]),
            );
        }
    }
    if let Some(function) = function {
        program_rules(obj, function, problem);
    }
    expect
}

/// `status` or `error`: how the run ends.
fn read_ending(obj: &Map<String, Value>, problem: Tell) -> (Option<Status>, Option<String>) {
    let statuses = || Status::ALL.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ");
    let status = match obj.get("status") {
        None => None,
        Some(Value::String(name)) => {
            let status = Status::ALL.iter().copied().find(|s| s.as_str() == name);
            if status.is_none() {
                let values = [("name", format!("{name:?}")), ("names", statuses())];
                problem("expect.status", Phrase::with("check_status", &values));
            }
            status
        }
        Some(_) => {
            problem("expect.status", Phrase::with("check_status_string", &[("names", statuses())]));
            None
        }
    };
    let error = match obj.get("error") {
        None => None,
        Some(Value::String(kind)) if !kind.is_empty() => Some(kind.clone()),
        Some(_) => {
            problem("expect.error", Phrase::word("check_error_kind"));
            None
        }
    };
    if obj.contains_key("status") && obj.contains_key("error") {
        problem("expect.error", Phrase::word("check_status_or_error"));
    }
    (status, error)
}

/// `calls`: how many model calls the run made.
fn read_calls(obj: &Map<String, Value>, problem: Tell) -> Option<i64> {
    let calls = match obj.get("calls") {
        None => None,
        Some(n) => match n.as_i64() {
            Some(n) if n >= 1 => Some(n),
            Some(_) => {
                problem("expect.calls", Phrase::word("check_calls"));
                None
            }
            None => {
                problem("expect.calls", Phrase::word("check_integer"));
                None
            }
        },
    };
    if obj.contains_key("calls") && obj.contains_key("error") {
        problem("expect.calls", Phrase::word("check_calls_error"));
    }
    calls
}

/// `record`: the messages' shapes, `role:kinds`.
fn read_record(v: &Value, problem: Tell) -> Option<Vec<String>> {
    let list = list_of(v, "expect.record", "check_record", problem)?;
    let mut record = Vec::new();
    for (i, item) in list.iter().enumerate() {
        match item.as_str() {
            Some(s) if s.split_once(':').is_some_and(|(role, _)| !role.is_empty()) => {
                record.push(s.to_string())
            }
            _ => problem(&format!("expect.record[{i}]"), Phrase::word("check_record_item")),
        }
    }
    Some(record)
}

/// `results`: `[first line, is_error]` per tool result.
fn read_results(v: &Value, problem: Tell) -> Option<Vec<(String, bool)>> {
    let list = list_of(v, "expect.results", "check_results", problem)?;
    let mut results = Vec::new();
    for (i, item) in list.iter().enumerate() {
        match item.as_array().map(Vec::as_slice) {
            Some([Value::String(line), Value::Bool(is_error)]) => results.push((line.clone(), *is_error)),
            _ => problem(&format!("expect.results[{i}]"), Phrase::word("check_results_item")),
        }
    }
    Some(results)
}

/// `hits` or `misses`: labels the run must (not) reach.
fn read_labels(obj: &Map<String, Value>, key: &str, example: &str, problem: Tell) -> Vec<String> {
    let Some(list) = obj.get(key).and_then(|v| list_of(v, &format!("expect.{key}"), "check_labels", problem))
    else {
        return Vec::new();
    };
    let mut labels = Vec::new();
    for (i, item) in list.iter().enumerate() {
        match item.as_str() {
            Some(label) if !label.is_empty() => labels.push(label.to_string()),
            _ => problem(&format!("expect.{key}[{i}]"), label_expected(example)),
        }
    }
    labels
}

/// Which keys fit which functions: a key some program keeps to some of
/// its functions (`Program::expect_only`) is said for any other, with the
/// functions every program keeps it to; then what the function's program
/// asks of its `expect` (`Program::check_expect`).
fn program_rules(obj: &Map<String, Value>, function: Function, problem: Tell) {
    // Each key once, in the programs' order, with every function it fits.
    let mut keys: Vec<(&str, Vec<&str>)> = Vec::new();
    for program in programs::ALL {
        for (key, functions) in program.expect_only {
            let at = keys.iter().position(|(k, _)| k == key).unwrap_or_else(|| {
                keys.push((key, Vec::new()));
                keys.len() - 1
            });
            keys[at].1.extend(functions.iter().map(|f| f.name()));
        }
    }
    for (key, allowed) in keys.into_iter().filter(|(key, _)| obj.contains_key(*key)) {
        if !allowed.contains(&function.name()) {
            let values = [("names", allowed.join(", ")), ("function", function.name().to_string())];
            problem(&format!("expect.{key}"), Phrase::with("check_only_for", &values));
        }
    }
    (programs::of(function).check_expect)(function, obj, problem);
}

/// `v` as a list, or the problem `must_be` (`must be a list of …`).
fn list_of<'a>(v: &'a Value, field: &str, must_be: &'static str, problem: Tell) -> Option<&'a Vec<Value>> {
    let list = v.as_array();
    if list.is_none() {
        problem(field, Phrase::word(must_be));
    }
    list
}
