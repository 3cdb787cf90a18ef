//! Property tests (proptest): whatever the fixture, the model or the
//! process says, the core never panics, every run ends in one of the
//! lesson's statuses (or a refused start / step cap), the record only grows,
//! and every tool_result answers the ids its assistant message asked for.
//!
//! `PROPTEST_CASES=20000 cargo test --release --test properties` for a longer run.

#![cfg(not(target_arch = "wasm32"))]

use agent_loop_playground::lesson::{self, listing};
use agent_loop_playground::protocol::Status;
use agent_loop_playground::run::record;
use agent_loop_playground::scenario::Scenario;
use agent_loop_playground::trace::{Event, Function};
use proptest::prelude::*;
use serde_json::{json, Value};

mod common;

fn any_json() -> impl Strategy<Value = Value> {
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
fn block() -> impl Strategy<Value = Value> {
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

fn response() -> impl Strategy<Value = Value> {
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

fn outcome() -> impl Strategy<Value = Value> {
    prop_oneof![
        4 => (-2i64..3, ".{0,30}", ".{0,30}").prop_map(|(rc, o, e)| json!({"returncode": rc, "stdout": o, "stderr": e})),
        1 => Just(json!({"timeout": true})),
        1 => ".{0,10}".prop_map(|e| json!({"os_error": e})),
    ]
}

/// 256 cases per property in the test command; `PROPTEST_CASES` for more.
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(256)
}

fn check_run(scenario: &Scenario) -> Result<(), TestCaseError> {
    let (mut model, mut process) = scenario.doubles();
    let trace = record(scenario, &mut model, &mut process, 50_000);
    // Ends in a lesson status, or an explicit error.
    match (&trace.result, &trace.error) {
        (_, Some(e)) => {
            prop_assert!(["value_error", "model_error", "step_cap"].contains(&e.kind.as_str()), "{:?}", e)
        }
        (r, None) if scenario.function == Function::RunLoop => {
            let status = r["status"].as_str().unwrap_or("?");
            prop_assert!(Status::ALL.iter().any(|s| s.as_str() == status), "status {status}");
            let calls = r["calls"].as_i64().unwrap();
            prop_assert!(calls >= 1 && calls <= scenario.max_calls);
        }
        (r, None) if scenario.function == Function::RunMain => {
            prop_assert_eq!(&r["type"], "tool_result");
            prop_assert!(r["is_error"].is_boolean());
            prop_assert!(r["content"].is_string());
        }
        _ => {}
    }
    // The record only grows, and never past the final record.
    let mut last = 0;
    for step in &trace.steps {
        prop_assert!(step.record_len >= last);
        last = step.record_len;
        prop_assert!(listing(step.function).line(lesson::line(step)).is_some());
    }
    prop_assert!(last as usize <= trace.record.len().max(1));
    if trace.error.as_ref().is_none_or(|e| e.kind != "step_cap") {
        prop_assert_eq!(trace.steps.last().map(|s| s.event), Some(Event::Return));
    }
    // Every tool_result answers the ids of the message before it, in order.
    prop_assert_eq!(common::pairing_problem(&trace.record), None);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn any_fixture_json_parses_or_reports_problems(v in any_json()) {
        match Scenario::from_value(v) {
            Ok(s) => check_run(&s)?,
            Err(problems) => prop_assert!(!problems.is_empty()),
        }
    }

    #[test]
    fn previews_are_bounded_and_valid_json(v in any_json(), long in 0usize..3, deep in 0usize..40) {
        use agent_loop_playground::trace::{preview, PREVIEW_CHARS, PREVIEW_DEPTH, PREVIEW_ITEMS};
        // Grow the value past the preview limits: long strings, long lists, deep nesting.
        let mut v = v;
        if long > 0 {
            v = json!({"s": "ü".repeat(450 * long), "list": vec![v; 60 * long]});
        }
        for _ in 0..deep {
            v = json!([v]);
        }
        fn check(p: &Value, depth: usize) -> Result<(), TestCaseError> {
            prop_assert!(depth <= PREVIEW_DEPTH, "nesting {} past the limit", depth);
            match p {
                Value::String(s) => {
                    let n = s.chars().count();
                    prop_assert!(n <= PREVIEW_CHARS + 24, "a string of {} chars", n);
                }
                Value::Array(items) => {
                    prop_assert!(items.len() <= PREVIEW_ITEMS + 1, "a list of {} items", items.len());
                    for x in items {
                        check(x, depth + 1)?;
                    }
                }
                Value::Object(map) => {
                    for x in map.values() {
                        check(x, depth + 1)?;
                    }
                }
                _ => {}
            }
            Ok(())
        }
        let shown = preview(&v);
        check(&shown, 0)?;
        // Short, shallow values are shown exactly as they are.
        if long == 0 && deep == 0 && v.to_string().len() < PREVIEW_CHARS {
            let depth_ok = !v.to_string().contains(&"[".repeat(PREVIEW_DEPTH));
            if depth_ok {
                let mut written = Vec::new();
                agent_loop_playground::trace::Local::write(&v, &mut written);
                prop_assert_eq!(String::from_utf8(written).unwrap(), v.to_string());
            }
        }
        // A list of locals is previewed item by item.
        let list: Vec<&Value> = vec![&v, &v];
        prop_assert_eq!(preview(&list).to_string(), json!([shown.clone(), shown]).to_string());
    }

    #[test]
    fn any_fixture_text_parses_or_reports_problems(text in ".{0,200}") {
        if let Err(problems) = Scenario::parse(&text) {
            prop_assert!(problems.iter().all(|p| !p.field.is_empty() && !p.message.is_empty()));
        }
    }

    #[test]
    fn any_model_and_process_end_in_a_lesson_status(
        replies in prop::collection::vec(response(), 0..6),
        runs in prop::collection::vec(outcome(), 0..6),
        max_calls in -1i64..6,
    ) {
        let s = Scenario::from_value(json!({"id": "p", "function": "run_loop", "title": {"zh": "p", "en": "p"},
            "max_calls": max_calls, "model": replies, "process": runs})).unwrap();
        check_run(&s)?;
    }

    #[test]
    fn any_call_gets_a_paired_result(call in any_json(), run in outcome(), timeout in 0.1f64..10.0) {
        let call = if call.is_object() { call } else { json!({"type": "tool_use", "id": "c", "name": "run_main", "input": call}) };
        let s = Scenario::from_value(json!({"id": "p", "function": "run_main", "title": {"zh": "p", "en": "p"},
            "call": call, "process": run, "timeout_s": timeout})).unwrap();
        check_run(&s)?;
    }
}
