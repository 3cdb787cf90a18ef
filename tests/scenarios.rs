//! Every shipped scenario, recorded with the Rust doubles, against what the
//! lesson says must happen. A new fixture without a row here fails the suite.

use agent_loop_playground::run::{record_scenario, Trace};
use agent_loop_playground::scenario::{load_shipped, Scenario};
use agent_loop_playground::trace::Function;
use serde_json::Value;

mod common;

/// What a run_loop scenario must produce.
struct Loop {
    id: &'static str,
    status: &'static str,
    calls: i64,
    /// `role:kinds` per message, kinds joined with `+` (`str` = plain string).
    record: &'static str,
    /// First content line of each tool_result, with its is_error flag.
    results: &'static [(&'static str, bool)],
    output_lines: usize,
}

const LOOPS: &[Loop] = &[
    Loop {
        id: "report",
        status: "answered",
        calls: 2,
        record: "user:str|assistant:tool_use|user:tool_result|assistant:text",
        results: &[("exit_code=1", true)],
        output_lines: 5,
    },
    Loop {
        id: "limit",
        status: "call_limit",
        calls: 1,
        record: "user:str|assistant:tool_use|user:tool_result",
        results: &[("exit_code=1", true)],
        output_lines: 4,
    },
    Loop {
        id: "truncated",
        status: "model_stopped",
        calls: 1,
        record: "user:str|assistant:",
        results: &[],
        output_lines: 1,
    },
    Loop {
        id: "loop-success",
        status: "answered",
        calls: 2,
        record: "user:str|assistant:tool_use|user:tool_result|assistant:text",
        results: &[("exit_code=0", false)],
        output_lines: 5,
    },
    Loop {
        id: "loop-timeout",
        status: "answered",
        calls: 2,
        record: "user:str|assistant:tool_use|user:tool_result|assistant:text",
        results: &[("timed out after 3 s", true)],
        output_lines: 5,
    },
    Loop {
        id: "unknown-block",
        status: "protocol_error",
        calls: 1,
        record: "user:str",
        results: &[],
        output_lines: 1,
    },
    Loop {
        id: "content-not-list",
        status: "protocol_error",
        calls: 1,
        record: "user:str",
        results: &[],
        output_lines: 1,
    },
    Loop {
        id: "duplicate-ids",
        status: "protocol_error",
        calls: 1,
        record: "user:str|assistant:tool_use+tool_use",
        results: &[],
        output_lines: 1,
    },
    Loop {
        id: "empty-id",
        status: "protocol_error",
        calls: 1,
        record: "user:str|assistant:tool_use",
        results: &[],
        output_lines: 1,
    },
    Loop {
        id: "tool-use-end-turn",
        status: "protocol_error",
        calls: 1,
        record: "user:str|assistant:tool_use",
        results: &[],
        output_lines: 1,
    },
    Loop {
        id: "blank-text",
        status: "protocol_error",
        calls: 1,
        record: "user:str|assistant:text",
        results: &[],
        output_lines: 1,
    },
    Loop {
        id: "refusal",
        status: "model_stopped",
        calls: 1,
        record: "user:str|assistant:text",
        results: &[],
        output_lines: 1,
    },
    Loop {
        id: "pause-turn",
        status: "model_stopped",
        calls: 1,
        record: "user:str|assistant:",
        results: &[],
        output_lines: 1,
    },
    Loop {
        id: "missing-stop-reason",
        status: "model_stopped",
        calls: 1,
        record: "user:str|assistant:text",
        results: &[],
        output_lines: 1,
    },
    Loop {
        id: "model-throws",
        status: "model_error",
        calls: 2,
        record: "user:str|assistant:tool_use|user:tool_result",
        results: &[("exit_code=1", true)],
        output_lines: 5,
    },
    Loop {
        id: "model-throws-first",
        status: "model_error",
        calls: 1,
        record: "user:str",
        results: &[],
        output_lines: 1,
    },
    Loop {
        id: "unknown-tool",
        status: "answered",
        calls: 2,
        record: "user:str|assistant:tool_use|user:tool_result|assistant:text",
        results: &[("unsupported tool or arguments", true)],
        output_lines: 5,
    },
    Loop {
        id: "two-calls",
        status: "answered",
        calls: 2,
        record: "user:str|assistant:tool_use+tool_use|user:tool_result+tool_result|assistant:text",
        results: &[("exit_code=1", true), ("exit_code=0", false)],
        output_lines: 7,
    },
    Loop {
        id: "mixed-text-tool",
        status: "answered",
        calls: 2,
        record: "user:str|assistant:text+tool_use|user:tool_result|assistant:text",
        results: &[("exit_code=0", false)],
        output_lines: 5,
    },
    Loop {
        id: "tool-use-no-calls",
        status: "protocol_error",
        calls: 1,
        record: "user:str|assistant:text",
        results: &[],
        output_lines: 1,
    },
    Loop {
        id: "script-exhausted",
        status: "model_error",
        calls: 2,
        record: "user:str|assistant:tool_use|user:tool_result",
        results: &[("exit_code=1", true)],
        output_lines: 5,
    },
    Loop {
        id: "keeps-asking",
        status: "call_limit",
        calls: 3,
        record: "user:str|assistant:tool_use|user:tool_result|assistant:tool_use|user:tool_result|assistant:tool_use|user:tool_result",
        results: &[("exit_code=1", true), ("exit_code=1", true), ("exit_code=1", true)],
        output_lines: 12,
    },
    Loop {
        id: "markup-text",
        status: "answered",
        calls: 2,
        record: "user:str|assistant:tool_use|user:tool_result|assistant:text",
        results: &[("exit_code=1", true)],
        output_lines: 5,
    },
];

/// What a run_main scenario must return: first content line, is_error.
const MAINS: &[(&str, &str, bool)] = &[
    ("error", "exit_code=1", true),
    ("success", "exit_code=0", false),
    ("timeout", "timed out after 3 s", true),
    ("reject", "unsupported tool or arguments", true),
    ("non-empty-input", "unsupported tool or arguments", true),
    ("long-output", "exit_code=0", false),
    ("no-output", "exit_code=0", false),
    ("os-error", "cannot start: [Errno 2] No such file or directory: 'python'", true),
];

/// ask_claude scenarios: expected stop_reason of the returned response.
const ASKS: &[(&str, &str)] = &[("request", "tool_use")];

/// Scenarios whose entry point refuses to run: expected error kind.
const REFUSED: &[(&str, &str)] = &[("max-calls-zero", "value_error")];

fn shipped() -> Vec<Scenario> {
    load_shipped()
        .into_iter()
        .map(|(file, parsed)| parsed.unwrap_or_else(|p| panic!("{file} does not parse: {p:?}")))
        .collect()
}

fn kinds(message: &Value) -> String {
    let role = message["role"].as_str().unwrap_or("?");
    let kinds = match &message["content"] {
        Value::String(_) => "str".to_string(),
        Value::Array(blocks) => {
            blocks.iter().map(|b| b["type"].as_str().unwrap_or("?")).collect::<Vec<_>>().join("+")
        }
        other => format!("{other}"),
    };
    format!("{role}:{kinds}")
}

fn first_line(result: &Value) -> &str {
    result["content"].as_str().unwrap_or("").lines().next().unwrap_or("")
}

/// Every tool_result answers exactly the tool_use ids of the message before.
fn assert_paired(trace: &Trace) {
    if let Some(problem) = common::pairing_problem(&trace.record) {
        panic!("{}: {problem}", trace.scenario);
    }
}

#[test]
fn every_shipped_scenario_has_an_expectation() {
    let covered: Vec<&str> = LOOPS
        .iter()
        .map(|l| l.id)
        .chain(MAINS.iter().map(|m| m.0))
        .chain(ASKS.iter().map(|a| a.0))
        .chain(REFUSED.iter().map(|r| r.0))
        .collect();
    let scenarios = shipped();
    assert!(scenarios.len() >= 20, "the lesson needs at least 20 scenarios, found {}", scenarios.len());
    for s in &scenarios {
        assert!(
            covered.contains(&s.id.as_str()),
            "scenario {} has no expectation in tests/scenarios.rs",
            s.id
        );
    }
    for id in &covered {
        assert!(scenarios.iter().any(|s| s.id == *id), "expectation for missing scenario {id}");
    }
}

#[test]
fn run_loop_scenarios_end_as_the_lesson_says() {
    let scenarios = shipped();
    for expect in LOOPS {
        let s = scenarios.iter().find(|s| s.id == expect.id).unwrap();
        assert_eq!(s.function, Function::RunLoop, "{}", expect.id);
        let trace = record_scenario(s);
        assert_eq!(trace.error, None, "{}", expect.id);
        assert_eq!(trace.status(), Some(expect.status), "{}: status", expect.id);
        assert_eq!(trace.result["calls"], expect.calls, "{}: calls", expect.id);
        let record: Vec<String> = trace.record.iter().map(kinds).collect();
        assert_eq!(record.join("|"), expect.record, "{}: record", expect.id);
        let results: Vec<(&str, bool)> = trace
            .record
            .iter()
            .filter_map(|m| m["content"].as_array())
            .flatten()
            .filter(|b| b["type"] == "tool_result")
            .map(|r| (first_line(r), r["is_error"].as_bool().unwrap()))
            .collect();
        assert_eq!(results, expect.results, "{}: tool results", expect.id);
        assert_eq!(trace.output.len(), expect.output_lines, "{}: output {:?}", expect.id, trace.output);
        assert_paired(&trace);
        // One ask per call actually made (a throwing ask still counts).
        let asks = trace.steps.iter().filter(|st| st.label == "loop.ask").count() as i64;
        assert_eq!(asks, expect.calls, "{}: loop.ask hits", expect.id);
    }
}

#[test]
fn run_main_scenarios_return_a_paired_result() {
    let scenarios = shipped();
    for (id, first, is_error) in MAINS {
        let s = scenarios.iter().find(|s| s.id == *id).unwrap();
        let trace = record_scenario(s);
        let r = &trace.result;
        assert_eq!(r["type"], "tool_result", "{id}");
        assert_eq!(r["tool_use_id"], s.call["id"], "{id}");
        assert_eq!(first_line(r), *first, "{id}");
        assert_eq!(r["is_error"], *is_error, "{id}");
        let spawned = trace.steps.iter().any(|st| st.label == "main.spawn");
        let valid = s.call["name"] == "run_main" && s.call["input"] == serde_json::json!({});
        assert_eq!(spawned, valid, "{id}: the process starts only for a valid call");
        assert!(trace.record.is_empty(), "{id}: run_main does not touch the record");
    }
}

#[test]
fn output_is_capped_and_placeholder_is_used() {
    let scenarios = shipped();
    let long = record_scenario(scenarios.iter().find(|s| s.id == "long-output").unwrap());
    let content = long.result["content"].as_str().unwrap();
    let body = content.strip_prefix("exit_code=0\n").unwrap();
    assert_eq!(body.chars().count(), 2000);
    let empty = record_scenario(scenarios.iter().find(|s| s.id == "no-output").unwrap());
    assert_eq!(empty.result["content"], "exit_code=0\n(no output)");
}

#[test]
fn ask_claude_sends_the_whole_request_once() {
    let scenarios = shipped();
    for (id, reason) in ASKS {
        let trace = record_scenario(scenarios.iter().find(|s| s.id == *id).unwrap());
        assert_eq!(trace.result["stop_reason"], *reason, "{id}");
        let create = trace.steps.iter().find(|s| s.label == "ask.create").expect("ask.create");
        let request = &trace.locals_json(create)["request"];
        assert_eq!(request["max_tokens"], 1024);
        assert_eq!(request["messages"], "(the record, n = 1)");
        assert_eq!(request["tools"][0]["name"], "run_main");
        assert!(request["system"].as_str().is_some_and(|s| !s.is_empty()));
        assert_eq!(trace.steps.iter().filter(|s| s.label == "ask.create").count(), 1);
    }
}

#[test]
fn refused_runs_are_errors_not_statuses() {
    let scenarios = shipped();
    for (id, kind) in REFUSED {
        let trace = record_scenario(scenarios.iter().find(|s| s.id == *id).unwrap());
        assert_eq!(trace.error.as_ref().map(|e| e.kind.as_str()), Some(*kind), "{id}");
        assert_eq!(trace.result, Value::Null);
        assert!(trace.output.is_empty(), "{id}: nothing was emitted");
        assert!(!trace.steps.iter().any(|s| s.label == "loop.ask"), "{id}: the model is never asked");
    }
}

#[test]
fn snapshot_is_taken_before_the_line_runs() {
    let scenarios = shipped();
    let trace = record_scenario(scenarios.iter().find(|s| s.id == "report").unwrap());
    let i = trace.steps.iter().position(|s| s.label == "loop.save_results").unwrap();
    assert_eq!(trace.steps[i].record_len, 2, "before the push the record has 2 messages");
    assert_eq!(trace.steps[i + 1].record_len, 3, "after the push it has 3");
    let results = &trace.locals_json(&trace.steps[i])["results"];
    assert_eq!(results.as_array().map(Vec::len), Some(1), "results are staged, not yet saved");
    assert_eq!(trace.steps.iter().filter(|s| s.label == "loop.ask").count(), 2);
    // limit: no second ask, the result is still saved.
    let limit = record_scenario(scenarios.iter().find(|s| s.id == "limit").unwrap());
    assert_eq!(limit.steps.iter().filter(|s| s.label == "loop.ask").count(), 1);
    assert!(limit.steps.iter().any(|s| s.label == "loop.call_limit" && s.record_len == 3));
    // truncated: neither execute nor save_results.
    let cut = record_scenario(scenarios.iter().find(|s| s.id == "truncated").unwrap());
    assert!(!cut.steps.iter().any(|s| s.label == "loop.execute" || s.label == "loop.save_results"));
}

#[test]
fn the_record_only_grows_and_frames_nest() {
    for s in shipped() {
        let trace = record_scenario(&s);
        let mut last = (0, 0);
        for (i, step) in trace.steps.iter().enumerate() {
            assert!(step.record_len >= last.0, "{}: record shrank at step {i}", s.id);
            assert!(step.output_len >= last.1, "{}: output shrank at step {i}", s.id);
            last = (step.record_len, step.output_len);
        }
        assert_eq!(last.0 as usize, trace.record.len().max(last.0 as usize), "{}", s.id);
        assert!(last.0 as usize <= trace.record.len().max(1), "{}", s.id);
        assert_eq!(last.1 as usize, trace.output.len(), "{}", s.id);
        // Nested frames: ask_claude and run_main run one deeper than run_loop.
        for step in &trace.steps {
            let expected =
                if s.function == Function::RunLoop && step.function != Function::RunLoop { 1 } else { 0 };
            assert_eq!(step.depth, expected, "{}: {} at depth {}", s.id, step.label, step.depth);
        }
    }
}
