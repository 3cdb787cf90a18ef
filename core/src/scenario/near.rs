//! Near misses: what `check` warns about in a scenario that is valid but
//! probably not what its author meant — a stop reason the API never
//! returns (`tool-use`), a `tool_use` block without an id, a call to a tool
//! the scenario does not declare or that the program refuses (its default
//! tool, given arguments it does not take: `Defaults::accepts`), results
//! scripted for a tool no reply calls. A scenario that misses on purpose
//! lists the fields in `expect.warnings` (the test suite holds the two
//! equal).

use super::fields::Problem;
use crate::api::STOP_REASONS;
use crate::i18n::Phrase;
use crate::programs;
use crate::vocab::Function;
use serde_json::Value;

/// The near misses of a scenario's raw JSON, by field (`function`: what it
/// runs; its program's default tools are the ones declared without `tools`).
pub fn near_misses(raw: &Value, function: Function) -> Vec<Problem> {
    let mut out = Vec::new();
    let defaults = programs::defaults(function);
    let default_tools = (defaults.tools)("");
    let names = |tools: &[Value]| -> Vec<String> {
        tools.iter().filter_map(|t| t["name"].as_str()).map(str::to_string).collect()
    };
    let given = raw.get("tools").and_then(Value::as_array);
    let declared = names(given.or(default_tools.as_array()).map_or(&[], Vec::as_slice));
    let mut called: Vec<&str> = Vec::new();
    for (i, reply) in raw.get("model").and_then(Value::as_array).into_iter().flatten().enumerate() {
        if let Some(reason) = reply.get("stop_reason").and_then(Value::as_str) {
            if !STOP_REASONS.contains(&reason) {
                let values = [("name", format!("{reason:?}")), ("names", STOP_REASONS.join(", "))];
                out.push(Problem::new(
                    format!("model[{i}].stop_reason"),
                    Phrase::with("check_near_reason", &values),
                ));
            }
        }
        for (j, block) in reply.get("content").and_then(Value::as_array).into_iter().flatten().enumerate() {
            if block["type"] != "tool_use" {
                continue;
            }
            let at = format!("model[{i}].content[{j}]");
            if block["id"].as_str().is_none_or(str::is_empty) {
                out.push(Problem::word(format!("{at}.id"), "check_near_id"));
            }
            // (a default tool that takes no such arguments refuses the call)
            let default_tool = raw.get("tools").is_none() && declared.iter().any(|d| block["name"] == **d);
            let arguments = block["input"].as_object().is_some_and(|i| !i.is_empty());
            if default_tool && arguments && !(defaults.accepts)(block) {
                let say = Phrase::with("check_near_refused", &[("input", block["input"].to_string())]);
                out.push(Problem::new(format!("{at}.input"), say));
            }
            if let Some(name) = block["name"].as_str() {
                called.push(name);
                if !declared.iter().any(|d| d == name) {
                    let say = Phrase::with("check_near_tool", &[("name", format!("{name:?}"))]);
                    out.push(Problem::new(format!("{at}.name"), say));
                }
            }
        }
    }
    for name in raw.get("tool_results").and_then(Value::as_object).into_iter().flatten().map(|(k, _)| k) {
        if !called.contains(&name.as_str()) {
            let say = Phrase::with("check_near_unused", &[("name", format!("{name:?}"))]);
            out.push(Problem::new(format!("tool_results.{name}"), say));
        }
    }
    out
}
