//! The generators the property tests share: any JSON, replies and process
//! outcomes (garbage and plausible), and valid scenarios. Included by
//! `#[path]` from the property test files (proptest is native only).
//!
//! Lessons tested: lesson_one.
#![allow(dead_code)]

use agent_loop_core::lesson::{self, listing};
use agent_loop_core::programs::lesson_one;
use agent_loop_core::protocol::Status;
use agent_loop_core::run::record;
use agent_loop_core::scenario::Scenario;
use agent_loop_core::trace::Event;
use proptest::prelude::*;
use serde_json::{json, Value};

pub(crate) fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(|f| json!(f)),
        ".{0,12}".prop_map(Value::String),
        prop_oneof![
            Just("text"),
            Just("tool_use"),
            Just("run_main"),
            Just("end_turn"),
            Just("call_1"),
            Just("")
        ]
        .prop_map(|s| json!(s)),
    ];
    leaf.prop_recursive(4, 32, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::btree_map(
                prop_oneof![
                    Just("type".to_string()),
                    Just("id".to_string()),
                    Just("name".to_string()),
                    Just("input".to_string()),
                    Just("text".to_string()),
                    Just("content".to_string()),
                    Just("stop_reason".to_string()),
                    "[a-z]{1,6}"
                ],
                inner,
                0..5
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// A block a model might send: mostly well-formed, sometimes not.
pub(crate) fn block() -> impl Strategy<Value = Value> {
    let id = prop_oneof![
        Just(json!("call_1")),
        Just(json!("call_2")),
        Just(json!("")),
        Just(json!(7)),
        Just(Value::Null)
    ];
    let name = prop_oneof![Just("run_main"), Just("other_tool")];
    let input = prop_oneof![Just(json!({})), Just(json!({"path": "x.py"})), Just(json!([]))];
    prop_oneof![
        4 => (id, name, input).prop_map(|(id, name, input)| json!({"type": "tool_use", "id": id, "name": name, "input": input})),
        3 => ".{0,20}".prop_map(|t| json!({"type": "text", "text": t})),
        1 => any_json(),
    ]
}

pub(crate) fn response() -> impl Strategy<Value = Value> {
    let reason = prop_oneof![
        4 => Just(json!("tool_use")),
        3 => Just(json!("end_turn")),
        1 => Just(json!("max_tokens")),
        1 => Just(json!("refusal")),
        1 => Just(Value::Null),
        1 => any_json(),
    ];
    let content = prop_oneof![
        6 => prop::collection::vec(block(), 0..4).prop_map(Value::Array),
        1 => any_json(),
    ];
    prop_oneof![
        8 => (reason, content).prop_map(|(r, c)| json!({"stop_reason": r, "content": c})),
        1 => Just(json!({"error": "APIConnectionError"})),
        1 => any_json(),
    ]
}

pub(crate) fn outcome() -> impl Strategy<Value = Value> {
    prop_oneof![
        4 => (-2i64..3, ".{0,30}", ".{0,30}").prop_map(|(rc, o, e)| json!({"returncode": rc, "stdout": o, "stderr": e})),
        1 => Just(json!({"timeout": true})),
        1 => ".{0,10}".prop_map(|e| json!({"os_error": e})),
    ]
}

/// 256 cases per property in the test command; `PROPTEST_CASES` for more.
pub(crate) fn cases() -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(256)
}

// Valid scenarios: what a course author could plausibly write.

pub(crate) const TOOL_BLOCK: &str = "tool_use";

/// A non-blank sentence.
pub(crate) fn words() -> impl Strategy<Value = String> {
    "[a-z]{1,8}( [a-z]{1,8}){0,3}"
}

/// A tool_use block; the id is filled in later, fresh across the script.
pub(crate) fn tool_call() -> impl Strategy<Value = Value> {
    prop_oneof![
        6 => Just(json!({"type": TOOL_BLOCK, "name": "run_main", "input": {}})),
        1 => Just(json!({"type": TOOL_BLOCK, "name": "read_file", "input": {}})),
        1 => Just(json!({"type": TOOL_BLOCK, "name": "run_main", "input": {"path": "x.py"}})),
    ]
}

/// One plausible model reply (ids not yet filled).
pub(crate) fn plausible_reply() -> impl Strategy<Value = Value> {
    let text = |t: String| json!({"type": "text", "text": t});
    prop_oneof![
        // The answer.
        4 => words().prop_map(move |t| json!({"stop_reason": "end_turn", "content": [text(t)]})),
        // 1-3 tool requests, sometimes after a sentence.
        5 => (prop::option::of(words()), prop::collection::vec(tool_call(), 1..=3))
            .prop_map(move |(lead, calls)| {
                let content: Vec<Value> = lead.map(text).into_iter().chain(calls).collect();
                json!({"stop_reason": "tool_use", "content": content})
            }),
        // The model stopped for its own reason.
        2 => (prop::sample::select(vec!["max_tokens", "refusal", "pause_turn"]), prop::option::of(words()))
            .prop_map(move |(reason, t)| {
                let content: Vec<Value> = t.map(text).into_iter().collect();
                json!({"stop_reason": reason, "content": content})
            }),
        // The request failed.
        1 => prop::sample::select(vec!["APIConnectionError", "RateLimitError", "InternalServerError"])
            .prop_map(|name| json!({"error": name})),
        // Well-formed, but the stop reason and the blocks disagree.
        1 => prop_oneof![
            Just(json!({"stop_reason": "end_turn", "content": [{"type": "text", "text": "  "}]})),
            Just(json!({"stop_reason": "end_turn", "content": []})),
            words().prop_map(move |t| json!({"stop_reason": "tool_use", "content": [text(t)]})),
            tool_call().prop_map(|c| json!({"stop_reason": "end_turn", "content": [c]})),
        ],
        // Not a format this lesson supports.
        1 => prop_oneof![
            Just(json!({"stop_reason": "end_turn", "content": "just a string"})),
            Just(json!({"stop_reason": "end_turn", "content": [{"type": "thinking", "thinking": "hmm"}]})),
            Just(json!({"stop_reason": "tool_use", "content": [{"type": "text", "text": "x"}, {"type": "img"}]})),
        ],
    ]
}

/// A reply script with fresh ids (`call_1`, `call_2`, … across the script).
pub(crate) fn reply_script() -> impl Strategy<Value = Vec<Value>> {
    prop::collection::vec(plausible_reply(), 0..=7).prop_map(|mut replies| {
        let mut n = 0;
        for reply in &mut replies {
            for block in reply["content"].as_array_mut().into_iter().flatten() {
                if block["type"] == TOOL_BLOCK {
                    n += 1;
                    block["id"] = json!(format!("call_{n}"));
                }
            }
        }
        replies
    })
}

pub(crate) fn plausible_outcome() -> impl Strategy<Value = Value> {
    let stdout = prop_oneof![
        Just(String::new()),
        Just("ok\n".to_string()),
        Just("a\nb\n".into()),
        Just("x".repeat(2500))
    ];
    let stderr = prop_oneof![
        Just(String::new()),
        Just("Traceback (most recent call last):\nZeroDivisionError: division by zero\n".to_string()),
        Just("  \n".to_string()),
    ];
    prop_oneof![
        5 => (-1i64..3, stdout, stderr)
            .prop_map(|(rc, o, e)| json!({"returncode": rc, "stdout": o, "stderr": e})),
        1 => Just(json!({"timeout": true})),
        1 => prop::sample::select(vec!["[Errno 2] No such file or directory: 'python'", "[Errno 13] EACCES"])
            .prop_map(|e| json!({"os_error": e})),
    ]
}

/// The same outcome every run, or one per run (possibly too few).
pub(crate) fn process_script() -> impl Strategy<Value = Value> {
    prop_oneof![plausible_outcome(), prop::collection::vec(plausible_outcome(), 0..5).prop_map(Value::Array)]
}

pub(crate) fn title() -> Value {
    json!({"zh": "生成", "en": "generated"})
}

/// A valid run_loop fixture.
pub(crate) fn valid_loop() -> impl Strategy<Value = Value> {
    (reply_script(), process_script(), 1i64..=6, prop::option::of(words()), prop::option::of(0.5f64..5.0))
        .prop_map(|(model, process, max_calls, question, timeout)| {
            let mut v = json!({"id": "gen-loop", "function": "run_loop", "title": title(),
                "max_calls": max_calls, "model": model, "process": process});
            if let Some(q) = question {
                v["question"] = json!(q);
            }
            if let Some(t) = timeout {
                v["timeout_s"] = json!(t);
            }
            v
        })
}

/// A valid fixture of any function, sometimes with a (shape-valid) expect.
pub(crate) fn valid_scenario() -> impl Strategy<Value = Value> {
    let main =
        (tool_call(), plausible_outcome(), prop::option::of(words())).prop_map(|(call, process, program)| {
            let mut call = call;
            call["id"] = json!("call_1");
            let mut v = json!({"id": "gen-main", "function": "run_main", "title": title()});
            v["call"] = call;
            v["process"] = process;
            if let Some(p) = program {
                v["program"] = json!(p);
            }
            v
        });
    let ask = reply_script().prop_map(
        |model| json!({"id": "gen-ask", "function": "ask_claude", "title": title(), "model": model}),
    );
    let base = prop_oneof![3 => valid_loop(), 1 => main, 1 => ask];
    (base, prop::option::of(prop::sample::select(Status::ALL.to_vec()))).prop_map(|(mut v, status)| {
        if let Some(status) = status {
            v["notes"] = json!("generated");
            v["expect"] = match v["function"].as_str() {
                Some("run_loop") => json!({"status": status.as_str(), "calls": 1, "record": ["user:str"],
                    "results": [], "output_lines": 1, "hits": ["loop.ask"], "misses": ["loop.bad_budget"]}),
                Some("run_main") => json!({"results": [["exit_code=0", false]], "output_lines": 0}),
                _ => json!({"stop_reason": "end_turn", "record": ["user:str"]}),
            };
        }
        v
    })
}

/// The invariants of any run: a lesson status or an explicit error, a
/// record that only grows, every step on a listing line, paired results.
pub(crate) fn check_run(scenario: &Scenario) -> Result<(), TestCaseError> {
    let (mut model, mut process) = scenario.doubles();
    let trace = record(scenario, &mut model, &mut process, 50_000);
    // Ends in a lesson status, or an explicit error.
    match (&trace.result, &trace.error) {
        (_, Some(e)) => {
            prop_assert!(["value_error", "model_error", "step_cap"].contains(&e.kind.as_str()), "{:?}", e)
        }
        (r, None) if scenario.function == lesson_one::RUN_LOOP => {
            let status = r["status"].as_str().unwrap_or("?");
            prop_assert!(Status::ALL.iter().any(|s| s.as_str() == status), "status {status}");
            let calls = r["calls"].as_i64().unwrap();
            prop_assert!(calls >= 1 && calls <= scenario.max_calls);
        }
        (r, None) if scenario.function == lesson_one::RUN_MAIN => {
            prop_assert_eq!(&r["type"], "tool_result");
            prop_assert!(r["is_error"].is_boolean());
            prop_assert!(r["content"].is_string());
        }
        (r, None) => {
            // ask_claude hands back the model's first reply untouched.
            prop_assert_eq!(scenario.function, lesson_one::ASK_CLAUDE);
            prop_assert_eq!(Some(r), scenario.model.first());
        }
    }
    // The record only grows, and never past the final record.
    let mut last = 0;
    for step in &trace.steps {
        prop_assert!(step.record_len >= last);
        last = step.record_len;
        prop_assert!(listing(step.function).line(lesson::line(step)).is_some());
    }
    prop_assert!(last as usize <= trace.record.len(), "steps saw {last} messages of {}", trace.record.len());
    if trace.error.is_none() {
        // A run that ended normally saw its whole record by its last step.
        prop_assert_eq!(last as usize, trace.record.len());
    }
    if trace.error.as_ref().is_none_or(|e| e.kind != "step_cap") {
        prop_assert_eq!(trace.steps.last().map(|s| s.event), Some(Event::Return));
    }
    // Every tool_result answers the ids of the message before it, in order.
    prop_assert_eq!(super::common::pairing_problem(&trace.record), None);
    Ok(())
}
