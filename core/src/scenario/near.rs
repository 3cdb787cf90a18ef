//! Near misses: what `check` warns about in a scenario that is valid but
//! probably not what its author meant — a stop reason the API never
//! returns (`tool-use`), a `tool_use` block without an id, a call to a tool
//! the scenario does not declare, results scripted for a tool no reply
//! calls. A scenario that misses on purpose lists the fields in
//! `expect.warnings` (the test suite holds the two equal).

use super::fields::Problem;
use crate::programs::lesson_two::entry::STOP_REASONS;
use serde_json::Value;

/// The near misses of a scenario's raw JSON, by field.
pub fn near_misses(raw: &Value) -> Vec<Problem> {
    let mut out = Vec::new();
    let declared: Vec<&str> = match raw.get("tools").and_then(Value::as_array) {
        Some(tools) => tools.iter().filter_map(|t| t["name"].as_str()).collect(),
        None => vec!["run_main"],
    };
    let mut called: Vec<&str> = Vec::new();
    for (i, reply) in raw.get("model").and_then(Value::as_array).into_iter().flatten().enumerate() {
        if let Some(reason) = reply.get("stop_reason").and_then(Value::as_str) {
            if !STOP_REASONS.contains(&reason) {
                let known = STOP_REASONS.join(", ");
                let message = format!("{reason:?} is not a stop reason the API returns ({known})");
                out.push(Problem::at(format!("model[{i}].stop_reason"), message));
            }
        }
        for (j, block) in reply.get("content").and_then(Value::as_array).into_iter().flatten().enumerate() {
            if block["type"] != "tool_use" {
                continue;
            }
            let at = format!("model[{i}].content[{j}]");
            if block["id"].as_str().is_none_or(str::is_empty) {
                let message = "a tool_use block without an id: its tool_result cannot name it";
                out.push(Problem::at(format!("{at}.id"), message));
            }
            if let Some(name) = block["name"].as_str() {
                called.push(name);
                if !declared.contains(&name) {
                    let message = format!("calls {name:?}, a tool the scenario's tools do not declare");
                    out.push(Problem::at(format!("{at}.name"), message));
                }
            }
        }
    }
    for name in raw.get("tool_results").and_then(Value::as_object).into_iter().flatten().map(|(k, _)| k) {
        if !called.contains(&name.as_str()) {
            let message = format!("results are scripted for {name:?}, but no reply calls it");
            out.push(Problem::at(format!("tool_results.{name}"), message));
        }
    }
    out
}
