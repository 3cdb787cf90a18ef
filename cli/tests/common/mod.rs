//! What the import tests share: the samples, the smallest conversation to
//! vary, and readers of what an import gave (its warnings, its replay).

#![allow(dead_code)] // each test file uses its own part

pub(crate) mod record;

use agent_loop_cli::import::{import, to_pretty_json, Imported};
use agent_loop_core::run::record_scenario;
use agent_loop_core::scenario::{Problem, Scenario};
use serde_json::{json, Value};

/// The samples made with the lesson's tool: each must replay exactly.
pub(crate) const EXACT_SAMPLES: [&str; 4] = ["zero-division", "two-rounds", "parallel-calls", "extra-fields"];

pub(crate) fn sample(name: &str) -> String {
    let path = format!("{}/tests/import/{name}.json", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

pub(crate) fn import_value(input: &Value) -> Result<Imported, Vec<Problem>> {
    import(&input.to_string(), "imported", "conversation.json")
}

/// The messages a replay must give back: `messages`, then the response's
/// assistant message.
pub(crate) fn conversation(input: &Value) -> Vec<Value> {
    let mut messages = input["messages"].as_array().cloned().unwrap_or_default();
    let response = input.get("response").filter(|r| r["type"] != "error");
    if let Some(content) = response.map(|r| &r["content"]) {
        messages.push(json!({"role": "assistant", "content": content}));
    }
    messages
}

/// The scenario read back from the printed text, exactly as `check` and
/// `trace` read a file.
pub(crate) fn checked(imported: &Imported) -> Scenario {
    let text = to_pretty_json(&imported.scenario);
    Scenario::parse(&text).unwrap_or_else(|p| panic!("check refuses the scenario: {p:?}\n{text}"))
}

pub(crate) fn replayed(imported: &Imported) -> Vec<Value> {
    record_scenario(&checked(imported)).record
}

pub(crate) fn warnings(imported: &Imported) -> Vec<String> {
    imported.warnings.iter().map(Problem::to_string).collect()
}

pub(crate) fn refusals(input: &Value) -> Vec<String> {
    match import_value(input) {
        Ok(imported) => panic!("imported, expected a refusal: {:#}", imported.scenario),
        Err(notes) => notes.iter().map(Problem::to_string).collect(),
    }
}

pub(crate) fn tool_use(id: &str) -> Value {
    json!({"type": "tool_use", "id": id, "name": "run_main", "input": {}})
}

pub(crate) fn tool_result(id: &str, content: &str, is_error: bool) -> Value {
    json!({"type": "tool_result", "tool_use_id": id, "content": content, "is_error": is_error})
}

/// question → run_main → a failing result → an answer: the smallest
/// conversation, for the tests to vary.
pub(crate) fn base() -> Value {
    json!({"messages": [
        {"role": "user", "content": "Run main.py and only report the result."},
        {"role": "assistant", "content": [tool_use("toolu_1")]},
        {"role": "user", "content": [tool_result("toolu_1", "exit_code=1\nZeroDivisionError: division by zero", true)]},
        {"role": "assistant", "content": [{"type": "text", "text": "It divides by zero."}]}
    ]})
}
