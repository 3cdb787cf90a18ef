//! `import --function agent_loop` and `import --manifest <manifest.json>`:
//! a logged conversation becomes a scenario of a tool loop — lesson two's
//! `agent_loop`, or an author's own program recorded by CPython — keeping
//! the log's `system`, `tools` and tool results, whose replay gives the
//! log's messages back; what differs, and a tool the program does not
//! have, is warned by its place. The samples are in tests/import/agent-loop/;
//! the author's program is examples/lesson-three/, its logs made from its
//! own pack.

#![cfg(not(target_arch = "wasm32"))]

mod common;

use agent_loop_cli::import::{import_agent_loop, Imported};
use agent_loop_core::i18n::Lang;
use agent_loop_core::run::record_scenario;
use agent_loop_core::scenario::{load_shipped, Scenario};
use common::{replayed, warnings};
use serde_json::{json, Value};

fn sample(name: &str) -> String {
    let path = format!("{}/tests/import/agent-loop/{name}.json", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The messages agent_loop's replay must hold: the log's, without the
/// final answer it reads and does not save.
fn kept_by_agent_loop(log: &Value) -> Vec<Value> {
    log["messages"].as_array().cloned().unwrap_or_default()
}

/// Each sample, the warnings it gives (each the start of one, in order),
/// and whether its replay gives the log's messages back.
fn samples() -> Vec<(&'static str, Vec<&'static str>, bool)> {
    vec![
        ("two-tools", vec![], true),
        (
            "other-tools",
            vec![
                "system: a list of blocks: the scenario's system is one string",
                "messages[1].content[0]: tool \"search_docs\" is not among the program's tools (agent_loop's \
                 scenarios declare get_weather, lookup_order)",
                "tools[1]: \"send_email\" is not among the program's tools",
            ],
            true,
        ),
        (
            "tool-error",
            vec![
                "messages[2].content[0].is_error: true: read as lookup_order raising TimeoutError; agent_loop \
                 catches no exception",
                "(replay): the replayed record differs from the conversation first at messages[2]",
            ],
            false,
        ),
    ]
}

#[test]
fn each_lesson_two_sample_imports_with_its_warnings() {
    for (name, expected, exact) in samples() {
        let text = sample(name);
        let imported = import_agent_loop(&text, name, &format!("{name}.json"))
            .unwrap_or_else(|r| panic!("{name}: refused {r:?}"));
        let found = warnings(&imported);
        assert_eq!(found.len(), expected.len(), "{name}: {found:#?}");
        for (said, start) in found.iter().zip(&expected) {
            assert!(said.starts_with(start), "{name}: expected `{start}`, got `{said}`");
        }
        let notes = imported.scenario["notes"].to_string();
        assert!(found.iter().all(|w| notes.contains(&json!(w).to_string())), "{name}: notes {notes}");
        let log: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(replayed(&imported) == kept_by_agent_loop(&log), exact, "{name}");
        let s = &imported.scenario;
        assert_eq!((s["id"].as_str(), s["function"].as_str()), (Some(name), Some("agent_loop")));
        assert_eq!(s["tools"], log["tools"], "{name}: the log's tools are kept");
        assert_eq!(s["question"], log["messages"][0]["content"], "{name}");
    }
}

#[test]
fn tool_results_become_the_tools_outcomes() {
    let two = import_agent_loop(&sample("two-tools"), "t", "t.json").unwrap().scenario;
    let log: Value = serde_json::from_str(&sample("two-tools")).unwrap();
    assert_eq!(two["system"], log["system"]);
    let results = &log["messages"][2]["content"];
    assert_eq!(
        two["tool_results"],
        json!({"get_weather": [{"returns": results[0]["content"]}],
               "lookup_order": [{"returns": results[1]["content"]}]})
    );
    assert_eq!(two["model"][1]["stop_reason"], "end_turn");
    assert_eq!(two["max_calls"], 2);
    let raised = import_agent_loop(&sample("tool-error"), "e", "e.json").unwrap().scenario;
    assert_eq!(
        raised["tool_results"],
        json!({"lookup_order": [{"raises": "TimeoutError", "message": "order service did not answer in 5 s"}]})
    );
    assert_eq!(raised["expect"]["error"], "raised");
    // An is_error text that names no exception raises Exception with it whole.
    let mut log: Value = serde_json::from_str(&sample("tool-error")).unwrap();
    log["messages"][2]["content"][0]["content"] = json!("the service is down");
    let odd = import_agent_loop(&log.to_string(), "e", "e.json").unwrap().scenario;
    assert_eq!(
        odd["tool_results"]["lookup_order"][0],
        json!({"raises": "Exception", "message": "the service is down"})
    );
}

/// The log every lesson-two fixture's own run would write: its system and
/// tools (English), the record, and the answer it stopped on.
fn log_of(scenario: &Scenario) -> Option<Value> {
    let english = scenario.localized(Lang::english());
    let trace = record_scenario(&english);
    if trace.error.is_some() {
        return None;
    }
    let turns = trace.result["turns"].as_u64()? as usize;
    let setup = english.setup();
    let mut log =
        json!({"model": "m", "system": setup.system, "tools": setup.tools, "messages": trace.record});
    let last = &english.model[turns - 1];
    if last["stop_reason"] == "end_turn" {
        log["response"] = json!({"type": "message", "role": "assistant", "content": last["content"],
                                 "stop_reason": "end_turn"});
    }
    Some(log)
}

/// Every agent_loop fixture that runs to its end, logged and imported,
/// replays its own record exactly, with no warning.
#[test]
fn every_lesson_two_run_imports_back_exactly() {
    let mut seen = 0;
    for (file, scenario) in load_shipped() {
        let Ok(scenario) = scenario else { continue };
        if scenario.function.name() != "agent_loop" {
            continue;
        }
        let Some(log) = log_of(&scenario) else { continue };
        let imported = import_agent_loop(&log.to_string(), &scenario.id, &file)
            .unwrap_or_else(|r| panic!("{file}: refused {r:?}"));
        assert_eq!(warnings(&imported), Vec::<String>::new(), "{file}");
        assert_eq!(replayed(&imported), kept_by_agent_loop(&log), "{file}");
        seen += 1;
    }
    assert!(seen >= 3, "only {seen} lesson-two runs end normally");
}

/// The same log saved as JSONL of {request, response} pairs keeps its
/// system and tools.
#[test]
fn a_log_saved_as_pairs_keeps_its_system_and_tools() {
    let body: Value = serde_json::from_str(&sample("two-tools")).unwrap();
    let messages = body["messages"].as_array().unwrap();
    let request = |n: usize| json!({"model": "m", "system": body["system"], "tools": body["tools"], "messages": messages[..n]});
    let first = json!({"request": request(1), "response": messages[1]});
    let second = json!({"request": request(3), "response": body["response"]});
    let text = format!("{first}\n{second}\n");
    let plain = import_agent_loop(&sample("two-tools"), "x", "x.json").unwrap();
    let pairs = import_agent_loop(&text, "x", "x.json").unwrap();
    assert_eq!(warnings(&pairs), Vec::<String>::new());
    for key in ["system", "tools", "model", "tool_results", "expect"] {
        assert_eq!(pairs.scenario[key], plain.scenario[key], "{key}");
    }
    // A list of messages has no tools, though it calls them: said.
    let listed = import_agent_loop(&json!(messages).to_string(), "x", "x.json").unwrap();
    let said = warnings(&listed);
    assert_eq!(said.len(), 1, "{said:#?}");
    assert!(said[0].starts_with("tools: missing: the log defines no tools"), "{said:#?}");
    assert_eq!(listed.scenario["tools"], json!([]));
}

#[test]
fn a_log_a_tool_loop_cannot_take_is_refused_by_place() {
    let body: Value = serde_json::from_str(&sample("two-tools")).unwrap();
    let mut no_input = body.clone();
    no_input["messages"][1]["content"][1]["input"] = json!("Paris");
    let mut bad_system = body.clone();
    bad_system["system"] = json!(3);
    let mut bad_tools = body.clone();
    bad_tools["tools"] = json!({"name": "get_weather"});
    let mut two_users = body.clone();
    two_users["messages"][1] = json!({"role": "user", "content": "Hello?"});
    let cases = [
        (no_input, "messages[1].content[1].input: must be an object"),
        (bad_system, "system: must be a string or a list of text blocks"),
        (bad_tools, "tools: must be a list of tool definitions"),
        (two_users, "messages[1]: two user messages in a row"),
    ];
    for (log, expected) in cases {
        let refused: Vec<String> = import_agent_loop(&log.to_string(), "x", "x.json")
            .map(|i: Imported| panic!("imported: {:#}", i.scenario))
            .unwrap_err()
            .iter()
            .map(ToString::to_string)
            .collect();
        assert!(refused.iter().any(|r| r.starts_with(expected)), "expected `{expected}` in {refused:#?}");
    }
}

/// A logged reply whose stop reason agent_loop runs tools on (any but
/// end_turn) is replayed with it; end_turn with answered tool requests
/// cannot be (the loop would stop), and is warned.
#[test]
fn a_logged_stop_reason_is_kept_where_agent_loop_runs_tools_on_it() {
    let mut log: Value = serde_json::from_str(&sample("two-tools")).unwrap();
    let reply = log["messages"][1].clone();
    log["messages"][1] = json!({"id": "msg_0", "type": "message", "role": "assistant",
        "content": reply["content"], "stop_reason": "max_tokens", "usage": {"output_tokens": 1024}});
    let kept = import_agent_loop(&log.to_string(), "x", "x.json").unwrap();
    assert_eq!(warnings(&kept), Vec::<String>::new());
    assert_eq!(kept.scenario["model"][0]["stop_reason"], "max_tokens");
    assert_eq!(replayed(&kept), vec![log["messages"][0].clone(), reply.clone(), log["messages"][2].clone()]);
    log["messages"][1]["stop_reason"] = json!("end_turn");
    let warned = import_agent_loop(&log.to_string(), "x", "x.json").unwrap();
    assert_eq!(
        warnings(&warned),
        ["messages[1].stop_reason: \"end_turn\", but its tool requests were answered: replayed as \"tool_use\" \
          (the loop runs tools on all but end_turn)"]
    );
    assert_eq!(warned.scenario["model"][0]["stop_reason"], "tool_use");
}
