//! `agent-loop-cli import`, as properties: every conversation the
//! lesson's own loop records imports and replays exactly; odd and garbled
//! inputs are answered, never a panic.

#![cfg(not(target_arch = "wasm32"))]

mod common;

use agent_loop_cli::import::import;
use agent_loop_core::run::record_scenario;
use agent_loop_core::scenario::Scenario;
use common::*;
use proptest::prelude::*;
use serde_json::{json, Value};

#[test]
fn odd_inputs_are_answers_never_panics() {
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    for text in
        ["", "null", "\"x\"", "{", "{\"messages\": null}", &deep, "{\"messages\": [{\"role\": \"user\"}]}"]
    {
        assert!(import(text, "x", "x.json").is_err(), "{text:.40}");
    }
    let long = json!({"messages": [{"role": "user", "content": "q"}],
        "response": {"content": vec![tool_use("a"); 3], "stop_reason": "tool_use"}});
    let imported = import_value(&long).unwrap();
    assert_eq!(imported.scenario["expect"]["status"], "protocol_error", "duplicate ids: the loop refuses");
}

/// A process outcome in fixture shape.
fn outcome() -> impl Strategy<Value = Value> {
    let text = prop_oneof![
        "[a-z :\n\t]{0,12}",
        "[ \n]{0,3}[A-Za-z.é]{1,8}[ \n]{0,3}",
        (1990usize..2010, 0usize..20).prop_map(|(n, spaces)| format!(
            "{}{}!",
            "é".repeat(n),
            " ".repeat(spaces)
        )),
    ];
    prop_oneof![
        (prop_oneof![-3i64..4, any::<i64>()], text.clone(), text)
            .prop_map(|(rc, stdout, stderr)| json!({"returncode": rc, "stdout": stdout, "stderr": stderr})),
        Just(json!({"timeout": true})),
        "[A-Za-z\\[\\]: ']{0,20}".prop_map(|e| json!({"os_error": e})),
    ]
}

/// One tool request: mostly run_main, sometimes another tool or arguments.
fn call(id: String) -> impl Strategy<Value = Value> {
    prop_oneof![
        3 => Just(json!({"type": "tool_use", "id": id, "name": "run_main", "input": {}})),
        1 => Just(json!({"type": "tool_use", "id": id, "name": "read_file", "input": {"path": "main.py"}})),
        1 => Just(json!({"type": "tool_use", "id": id, "name": "run_main", "input": {"x": 1}})),
    ]
}

fn round(r: usize) -> impl Strategy<Value = Value> {
    let calls = (1usize..4)
        .prop_flat_map(move |n| (0..n).map(|k| call(format!("toolu_{r}_{k}"))).collect::<Vec<_>>());
    (proptest::option::of("[A-Za-z ]{0,10}"), calls).prop_map(|(text, calls)| {
        let mut content: Vec<Value> = text.map(|t| json!({"type": "text", "text": t})).into_iter().collect();
        content.extend(calls);
        json!({"stop_reason": "tool_use", "content": content})
    })
}

/// A run_loop scenario a well-behaved model plays: rounds of tool requests,
/// then maybe an answer; any process outcomes and timeout.
fn lesson_scenario() -> impl Strategy<Value = Value> {
    let rounds = (0usize..4).prop_flat_map(|n| (0..n).map(round).collect::<Vec<_>>());
    let answer = proptest::option::of("[A-Za-z][a-z .]{0,20}");
    let timeout = prop_oneof![Just(json!(3)), Just(json!(1.5)), Just(json!(0.1)), Just(json!(10))];
    (rounds, answer, prop::collection::vec(outcome(), 0..6), timeout, ".{0,12}").prop_map(
        |(mut model, answer, process, timeout, question)| {
            if answer.is_some() || model.is_empty() {
                let text = answer.unwrap_or_else(|| "Done.".into());
                model.push(json!({"stop_reason": "end_turn", "content": [{"type": "text", "text": text}]}));
            }
            json!({"id": "p", "function": "run_loop", "title": {"zh": "p", "en": "p"}, "question": question,
                   "max_calls": model.len(), "timeout_s": timeout, "model": model, "process": process})
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    /// Record a conversation with the lesson's loop, import it, replay it:
    /// no warning, and the very same messages.
    #[test]
    fn what_the_lesson_records_imports_exactly(scenario in lesson_scenario(), as_response in any::<bool>()) {
        let scenario = Scenario::from_value(scenario).unwrap();
        let record = record_scenario(&scenario).record;
        let mut input = json!({"model": "claude", "max_tokens": 1024, "messages": record});
        let ends_with_reply = record.last().is_some_and(|m| m["role"] == "assistant");
        if as_response && ends_with_reply {
            let reply = input["messages"].as_array_mut().unwrap().pop().unwrap();
            input["response"] = json!({"id": "msg", "type": "message", "role": "assistant",
                "content": reply["content"], "stop_reason": "end_turn", "usage": {"output_tokens": 3}});
        }
        let imported = import_value(&input).map_err(|r| TestCaseError::fail(format!("{r:?}")))?;
        prop_assert_eq!(warnings(&imported), Vec::<String>::new());
        prop_assert_eq!(replayed(&imported), record);
    }

    /// Any mix of the pieces a conversation is made of: an answer or a
    /// refusal, never a panic; an imported scenario passes `check` and
    /// notes every warning; no warning means an exact replay.
    #[test]
    fn any_conversation_is_imported_or_refused(input in garbled_conversation()) {
        match import_value(&input) {
            Err(refusals) => prop_assert!(!refusals.is_empty()),
            Ok(imported) => {
                let replay = replayed(&imported);
                let notes = imported.scenario["notes"].as_array().cloned().unwrap_or_default();
                for w in &imported.warnings {
                    prop_assert!(notes.contains(&json!(w.to_string())), "{} not in the notes", w);
                }
                if imported.warnings.is_empty() {
                    prop_assert_eq!(replay, conversation(&input));
                }
            }
        }
    }
}

fn garbled_block() -> impl Strategy<Value = Value> {
    let id = prop_oneof![Just(json!("a")), Just(json!("b")), Just(json!(null))];
    let content = prop_oneof![
        Just(json!("exit_code=1\nboom")),
        Just(json!("exit_code=0\n(no output)")),
        Just(json!("timed out after 3 s")),
        Just(json!("cannot start: no")),
        Just(json!("unsupported tool or arguments")),
        Just(json!([{"type": "text", "text": "exit_code=0\nok"}])),
        Just(json!(5)),
        ".{0,8}".prop_map(Value::String),
    ];
    let name = prop_oneof![Just("run_main"), Just("bash")];
    prop_oneof![
        ".{0,6}".prop_map(|t| json!({"type": "text", "text": t})),
        (id.clone(), name)
            .prop_map(|(id, name)| json!({"type": "tool_use", "id": id, "name": name, "input": {}})),
        (id, content, proptest::option::of(any::<bool>())).prop_map(|(id, content, flag)| {
            let mut block = json!({"type": "tool_result", "tool_use_id": id, "content": content});
            if let Some(flag) = flag {
                block["is_error"] = json!(flag);
            }
            block
        }),
        Just(json!({"type": "thinking", "thinking": "t"})),
        Just(json!({"type": "image", "source": {}})),
        Just(json!(3)),
    ]
}

fn garbled_conversation() -> impl Strategy<Value = Value> {
    let role = prop_oneof![4 => Just(json!("user")), 4 => Just(json!("assistant")), 1 => Just(json!(1))];
    let content = prop_oneof![
        4 => prop::collection::vec(garbled_block(), 0..4).prop_map(Value::Array),
        1 => ".{0,6}".prop_map(Value::String),
        1 => Just(json!(null)),
    ];
    let message = (role, content).prop_map(|(role, content)| json!({"role": role, "content": content}));
    let response = proptest::option::of(prop_oneof![
        prop::collection::vec(garbled_block(), 0..3).prop_map(
            |c| json!({"type": "message", "role": "assistant", "content": c, "stop_reason": "end_turn"})
        ),
        Just(json!({"type": "error", "error": {"type": "overloaded_error"}})),
        Just(json!(7)),
    ]);
    (prop::collection::vec(message, 0..7), response).prop_map(|(messages, response)| {
        let mut input = json!({"messages": messages});
        if let Some(response) = response {
            input["response"] = response;
        }
        input
    })
}
