//! Property tests (proptest): whatever the fixture, the model or the
//! process says, the core never panics, every run ends in one of the
//! lesson's statuses (or a refused start / step cap), the record only grows,
//! and every tool_result answers the ids its assistant message asked for.
//!
//! Three kinds of input: garbage (any JSON as a reply, a call or a fixture),
//! VALID run_loop scenarios (plausible replies and process outcomes, checked
//! against the lesson's invariants and an independent oracle for the status
//! and the tool results), and BROKEN fixtures (wrong types in known fields,
//! which must be reported under that field). The `*_reach_*` tests sample
//! the generators and prove each property really exercises what it claims
//! (both parse outcomes, every status, every broken field).
//!
//! `PROPTEST_CASES=20000 cargo test --release --test properties` for a longer run.

#![cfg(not(target_arch = "wasm32"))]

use agent_loop_core::lesson::{self, listing};
use agent_loop_core::programs::lesson_one;
use agent_loop_core::protocol::{Model, ModelError, ProcessOutcome, Request, Status};
use agent_loop_core::run::record;
use agent_loop_core::scenario::{outcome_from_json, ProcessScript, Scenario};
use agent_loop_core::trace::Event;
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::TestRunner;
use serde_json::{json, Value};
use std::collections::BTreeSet;

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
    prop_assert_eq!(common::pairing_problem(&trace.record), None);
    Ok(())
}

// ---------------------------------------------------------------------------
// Valid scenarios: what a course author could plausibly write.

const TOOL_BLOCK: &str = "tool_use";

/// A non-blank sentence.
fn words() -> impl Strategy<Value = String> {
    "[a-z]{1,8}( [a-z]{1,8}){0,3}"
}

/// A tool_use block; the id is filled in later, fresh across the script.
fn tool_call() -> impl Strategy<Value = Value> {
    prop_oneof![
        6 => Just(json!({"type": TOOL_BLOCK, "name": "run_main", "input": {}})),
        1 => Just(json!({"type": TOOL_BLOCK, "name": "read_file", "input": {}})),
        1 => Just(json!({"type": TOOL_BLOCK, "name": "run_main", "input": {"path": "x.py"}})),
    ]
}

/// One plausible model reply (ids not yet filled).
fn plausible_reply() -> impl Strategy<Value = Value> {
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
fn reply_script() -> impl Strategy<Value = Vec<Value>> {
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

fn plausible_outcome() -> impl Strategy<Value = Value> {
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
fn process_script() -> impl Strategy<Value = Value> {
    prop_oneof![plausible_outcome(), prop::collection::vec(plausible_outcome(), 0..5).prop_map(Value::Array)]
}

fn title() -> Value {
    json!({"zh": "生成", "en": "generated"})
}

/// A valid run_loop fixture.
fn valid_loop() -> impl Strategy<Value = Value> {
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
fn valid_scenario() -> impl Strategy<Value = Value> {
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

// ---------------------------------------------------------------------------
// Invariants of a valid run_loop scenario.

/// Passes every request to the scripted model and keeps what it was sent.
struct Spy<'a> {
    inner: &'a mut dyn Model,
    seen: Vec<Vec<Value>>,
}

impl Model for Spy<'_> {
    fn create(&mut self, request: &Request) -> Result<Value, ModelError> {
        self.seen.push(request.messages.to_vec());
        self.inner.create(request)
    }
}

/// What the loop must make of one reply, from the lesson's rules alone.
#[derive(Debug, PartialEq)]
enum Verdict {
    Thrown,
    BadFormat,
    Ends(&'static str),
    Continues,
}

fn verdict(reply: Option<&Value>) -> Verdict {
    let Some(reply) = reply.filter(|r| r.get("error").is_none()) else { return Verdict::Thrown };
    let Some(blocks) = reply["content"]
        .as_array()
        .filter(|b| b.iter().all(|b| b["type"] == "text" || b["type"] == TOOL_BLOCK))
    else {
        return Verdict::BadFormat;
    };
    let reason = reply["stop_reason"].as_str().unwrap_or("(none)");
    let calls: Vec<&Value> = blocks.iter().filter(|b| b["type"] == TOOL_BLOCK).collect();
    let text: Vec<&str> =
        blocks.iter().filter(|b| b["type"] == "text").map(|b| b["text"].as_str().unwrap_or("")).collect();
    if reason == "end_turn" && calls.is_empty() && !text.join("\n").trim().is_empty() {
        return Verdict::Ends("answered");
    }
    if reason != "end_turn" && reason != "tool_use" {
        return Verdict::Ends("model_stopped");
    }
    let ids: Vec<&Value> = calls.iter().map(|c| &c["id"]).collect();
    let filled = ids.iter().all(|id| id.as_str().is_some_and(|id| !id.is_empty()));
    let unique = (1..ids.len()).all(|i| !ids[..i].contains(&ids[i]));
    if reason != "tool_use" || calls.is_empty() || !filled || !unique {
        return Verdict::Ends("protocol_error");
    }
    Verdict::Continues
}

/// The tool_result content run_main must produce for `call`, consuming
/// `outcomes` as the process double does.
fn expected_result(
    call: &Value,
    outcomes: &ProcessScript,
    next: &mut usize,
    timeout_s: f64,
) -> (String, bool) {
    if call["name"] != "run_main" || call["input"] != json!({}) {
        return ("unsupported tool or arguments".into(), true);
    }
    let outcome = match outcomes {
        ProcessScript::Always(v) => Some(v),
        ProcessScript::Each(runs) => runs.get(*next),
    };
    *next += 1;
    match outcome.map(|v| outcome_from_json(v).unwrap()) {
        None => ("cannot start: the fixture has no more process outcomes".into(), true),
        Some(ProcessOutcome::Exited { returncode, stdout, stderr }) => {
            let output: String = format!("{stdout}{stderr}").trim().chars().take(2000).collect();
            let output = if output.is_empty() { "(no output)".to_string() } else { output };
            (format!("exit_code={returncode}\n{output}"), returncode != 0)
        }
        Some(ProcessOutcome::TimedOut) => (format!("timed out after {timeout_s} s"), true),
        Some(ProcessOutcome::CannotStart(e)) => (format!("cannot start: {e}"), true),
    }
}

fn check_valid_loop(s: &Scenario) -> Result<(), TestCaseError> {
    let (mut model, mut process) = s.doubles();
    let mut spy = Spy { inner: &mut model, seen: Vec::new() };
    let trace = record(s, &mut spy, &mut process, 200_000);
    let seen = spy.seen;
    let record = &trace.record;

    // A valid budget always runs: a status, never an error.
    prop_assert_eq!(&trace.error, &None);
    let status = trace.status().unwrap_or("(none)");
    prop_assert!(Status::ALL.iter().any(|st| st.as_str() == status), "status {}", status);
    let calls = trace.result["calls"].as_i64().unwrap();
    prop_assert!(1 <= calls && calls <= s.max_calls, "calls {} of {}", calls, s.max_calls);
    prop_assert_eq!(seen.len() as i64, calls, "one request per call");
    prop_assert_eq!(trace.steps.iter().filter(|st| st.label == "loop.ask").count() as i64, calls);
    prop_assert_eq!(
        trace.output.iter().filter(|l| matches!(l, agent_loop_core::protocol::Said::ModelCall { .. })).count()
            as i64,
        calls
    );
    let written = serde_json::to_value(lesson::trace_json(&trace)).unwrap();
    prop_assert_eq!(written["result"]["messages"].as_array(), Some(record));

    // The record starts with the question and only grows: step by step, and
    // every request is a prefix of the next one and of the final record.
    prop_assert_eq!(&record[0], &json!({"role": "user", "content": s.question}));
    let mut last = 0;
    for step in &trace.steps {
        prop_assert!(step.record_len >= last, "record shrank at {}", step.label);
        last = step.record_len;
    }
    prop_assert!(last as usize <= record.len());
    for (k, sent) in seen.iter().enumerate() {
        prop_assert!(record.starts_with(sent), "request {} is not a prefix of the final record", k + 1);
        prop_assert_eq!(
            sent.len(),
            1 + 2 * k,
            "request {}: question + (answer, results) per earlier call",
            k + 1
        );
    }

    // Each reply: the loop continues only on a valid tool_use; the final one
    // decides the status; a reply the loop can read is saved before any
    // status check, so it is in the record whatever the status.
    let n = calls as usize;
    for (k, sent) in seen.iter().enumerate() {
        let reply = s.model.get(k);
        let verdict = verdict(reply);
        let is_last = k + 1 == n;
        match &verdict {
            Verdict::Thrown | Verdict::BadFormat => {
                prop_assert!(is_last, "call {}: {:?} must end the loop", k + 1, verdict);
                prop_assert_eq!(
                    record.len(),
                    sent.len(),
                    "call {}: nothing saved after {:?}",
                    k + 1,
                    verdict
                );
            }
            Verdict::Ends(_) | Verdict::Continues => {
                let saved = json!({"role": "assistant", "content": reply.unwrap()["content"]});
                prop_assert_eq!(
                    record.get(sent.len()),
                    Some(&saved),
                    "call {}: the reply is saved as it came",
                    k + 1
                );
                if !is_last {
                    prop_assert_eq!(
                        &verdict,
                        &Verdict::Continues,
                        "call {}: the loop went on after it",
                        k + 1
                    );
                }
            }
        }
        if is_last {
            let expected = match verdict {
                Verdict::Thrown => "model_error",
                Verdict::BadFormat => "protocol_error",
                Verdict::Ends(status) => status,
                Verdict::Continues => "call_limit",
            };
            prop_assert_eq!(status, expected, "final reply {:?}", reply);
        }
    }

    // Status by status.
    let last_message = record.last().unwrap();
    match status {
        "answered" => {
            prop_assert_eq!(&last_message["role"], "assistant");
            let blocks = last_message["content"].as_array().unwrap();
            prop_assert!(blocks.iter().all(|b| b["type"] == "text"));
            let text: Vec<&str> = blocks.iter().map(|b| b["text"].as_str().unwrap()).collect();
            prop_assert!(!text.join("\n").trim().is_empty());
            prop_assert_eq!(&trace.result["text"], &json!(text.join("\n")));
            prop_assert_eq!(&s.model[n - 1]["stop_reason"], "end_turn");
        }
        "call_limit" => {
            prop_assert_eq!(calls, s.max_calls);
            prop_assert_eq!(&last_message["role"], "user");
            prop_assert!(last_message["content"]
                .as_array()
                .unwrap()
                .iter()
                .all(|b| b["type"] == "tool_result"));
        }
        _ => {}
    }

    // Every tool_result answers the ids of the message before it, in order,
    // and says what the process did for that call.
    prop_assert_eq!(common::pairing_problem(record), None);
    let results: Vec<&Value> = record.iter().filter(|m| m["content"][0]["type"] == "tool_result").collect();
    let rounds = n - 1 + usize::from(status == "call_limit");
    prop_assert_eq!(results.len(), rounds, "one results message per call that went on");
    let mut next = 0;
    for (i, message) in record.iter().enumerate().skip(1) {
        let Some(blocks) = message["content"].as_array().filter(|_| message["role"] == "user") else {
            continue;
        };
        let requests: Vec<&Value> =
            record[i - 1]["content"].as_array().unwrap().iter().filter(|b| b["type"] == TOOL_BLOCK).collect();
        for (call, result) in requests.iter().zip(blocks) {
            let (content, is_error) = expected_result(call, &s.process, &mut next, s.timeout_s);
            prop_assert_eq!(&result["content"], &json!(content), "result for {}", call["id"]);
            prop_assert_eq!(&result["is_error"], &json!(is_error), "is_error for {}", call["id"]);
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Editing a fixture, and breaking it.

use agent_loop_core::scenario::KNOWN_FIELDS;

/// The field a problem is about, without `.sub` or `[i]`.
fn root(field: &str) -> &str {
    field.split(['.', '[']).next().unwrap_or(field)
}

/// A valid fixture with 0-3 edits: a field removed, replaced by any JSON, or
/// a new (possibly unknown) key. Returns the fixture and the edited keys.
fn edited_fixture() -> impl Strategy<Value = (Value, BTreeSet<String>)> {
    let key = prop_oneof![prop::sample::select(KNOWN_FIELDS.to_vec()).prop_map(String::from), "[a-z]{1,6}"];
    let edit = (key, prop::option::of(any_json()));
    (valid_scenario(), prop::collection::vec(edit, 0..4)).prop_map(|(mut v, edits)| {
        let mut keys = BTreeSet::new();
        let obj = v.as_object_mut().unwrap();
        for (key, value) in edits {
            match value {
                None => obj.remove(&key),
                Some(value) => obj.insert(key.clone(), value),
            };
            keys.insert(key);
        }
        (v, keys)
    })
}

/// The problems editing `edited` may cause besides the edited keys
/// themselves: `function` decides which of model / process is required and
/// which expect keys fit; `call` decides whether run_main needs a process.
fn may_blame(edited: &BTreeSet<String>, field: &str) -> bool {
    edited.contains(field)
        || (edited.contains("function") && ["model", "process", "expect"].contains(&field))
        || (edited.contains("call") && field == "process")
}

fn check_edited(v: &Value, edited: &BTreeSet<String>) -> Result<(), TestCaseError> {
    match Scenario::from_value(v.clone()) {
        Ok(s) => {
            prop_assert_eq!(&s.raw, v);
            prop_assert_eq!(&json!(s.id), &v["id"]);
            prop_assert_eq!(&json!(s.function.name()), &v["function"]);
            prop_assert_eq!(Some(s.max_calls), v.get("max_calls").map_or(Some(4), Value::as_i64));
            prop_assert_eq!(s.expect.is_some(), v.get("expect").is_some());
            check_run(&s)?;
        }
        Err(problems) => {
            prop_assert!(!problems.is_empty());
            for p in &problems {
                prop_assert!(!p.message.is_empty());
                prop_assert!(
                    may_blame(edited, root(&p.field)),
                    "{} blames a field that was not edited ({:?})",
                    p,
                    edited
                );
            }
            // An unknown key is always named.
            for key in
                edited.iter().filter(|k| !KNOWN_FIELDS.contains(&k.as_str()) && v.get(k.as_str()).is_some())
            {
                prop_assert!(
                    problems.iter().any(|p| &p.field == key),
                    "unknown field {} not reported: {:?}",
                    key,
                    problems
                );
            }
        }
    }
    Ok(())
}

/// Fixture text: an edited fixture written compact or pretty (2 in 5), then
/// cut short, given a stray character, or replaced by any text (1 in 5 each).
fn fixture_text() -> impl Strategy<Value = String> {
    let written = (edited_fixture(), any::<bool>()).prop_map(|((v, _), pretty)| {
        if pretty {
            serde_json::to_string_pretty(&v).unwrap()
        } else {
            v.to_string()
        }
    });
    (written, 0usize..5, any::<prop::sample::Index>(), any::<char>(), ".{0,200}").prop_map(
        |(text, how, at, c, other)| {
            let chars: Vec<char> = text.chars().collect();
            let i = at.index(chars.len() + 1);
            match how {
                0 | 1 => text,
                2 => chars[..i].iter().collect(),
                3 => {
                    let mut chars = chars;
                    chars.insert(i, c);
                    chars.into_iter().collect()
                }
                _ => other,
            }
        },
    )
}

/// For each known field, values of the wrong type (or out of range).
fn wrong_values() -> Vec<(&'static str, Vec<Value>)> {
    let not_a_string = vec![json!(1), json!(null), json!(["q"]), json!({"q": 1}), json!(true)];
    vec![
        ("id", vec![json!(7), json!(null), json!("has space"), json!(""), json!(["a"])]),
        ("function", vec![json!(1), json!("run_everything"), json!(null), json!("")]),
        (
            "title",
            vec![
                json!("t"),
                json!({"zh": "x"}),
                json!({"zh": "x", "en": ""}),
                json!({"zh": 1, "en": "x"}),
                json!(null),
            ],
        ),
        ("question", not_a_string.clone()),
        ("program", not_a_string),
        ("max_calls", vec![json!("4"), json!(1.5), json!(true), json!(null), json!([4])]),
        ("timeout_s", vec![json!(0), json!(-1), json!("3"), json!(null)]),
        ("call", vec![json!("run_main"), json!([]), json!(3), json!(null)]),
        (
            "model",
            vec![
                json!("x"),
                json!({"stop_reason": "end_turn"}),
                json!(3),
                json!([{"error": 5}]),
                json!([{"error": ""}]),
            ],
        ),
        (
            "process",
            vec![
                json!("ok"),
                json!(3),
                json!({"returncode": "1"}),
                json!([{"timeout": false}]),
                json!({}),
                json!({"os_error": 1}),
                json!({"returncode": 0, "stdout": 5}),
            ],
        ),
        (
            "expect",
            vec![
                json!("answered"),
                json!([]),
                json!({"status": 3}),
                json!({"status": "done"}),
                json!({"calls": "2"}),
                json!({"output_lines": -1}),
                json!({"hits": "loop.ask"}),
                json!({"colour": 1}),
            ],
        ),
        ("colour", vec![json!("red"), json!(1)]),
    ]
}

/// A valid fixture with 1-3 fields broken. Returns the valid one, the broken
/// one and the broken fields.
fn broken_fixture() -> impl Strategy<Value = (Value, Value, Vec<&'static str>)> {
    let table = wrong_values();
    let picks = prop::sample::subsequence((0..table.len()).collect::<Vec<_>>(), 1..=3);
    (valid_scenario(), picks, prop::collection::vec(any::<prop::sample::Index>(), 3)).prop_map(
        move |(valid, picks, which)| {
            let mut broken = valid.clone();
            let mut fields = Vec::new();
            for (pick, which) in picks.iter().zip(which) {
                let (field, values) = &table[*pick];
                broken[*field] = which.get(values).clone();
                fields.push(*field);
            }
            (valid, broken, fields)
        },
    )
}

fn check_broken(valid: &Value, broken: &Value, fields: &[&str]) -> Result<(), TestCaseError> {
    prop_assert!(
        Scenario::from_value(valid.clone()).is_ok(),
        "the generator must start from a valid fixture"
    );
    let problems = match Scenario::from_value(broken.clone()) {
        Ok(_) => return Err(TestCaseError::fail(format!("{fields:?} broken, yet it parses: {broken}"))),
        Err(problems) => problems,
    };
    for field in fields {
        prop_assert!(
            problems.iter().any(|p| root(&p.field) == *field),
            "broken {} is not named: {:?}",
            field,
            problems.iter().map(ToString::to_string).collect::<Vec<_>>()
        );
    }
    // Nothing else is blamed, except what a broken `function` decides.
    for p in &problems {
        let f = root(&p.field);
        let by_function = fields.contains(&"function") && (f == "model" || f == "process");
        prop_assert!(fields.contains(&f) || by_function, "{} blamed, but {:?} were broken", p, fields);
    }
    Ok(())
}

// ---------------------------------------------------------------------------

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn an_edited_fixture_parses_and_runs_or_names_the_edited_fields((v, edited) in edited_fixture()) {
        check_edited(&v, &edited)?;
    }

    #[test]
    fn previews_are_bounded_and_valid_json(v in any_json(), long in 0usize..3, deep in 0usize..40) {
        use agent_loop_core::trace::{preview, PREVIEW_CHARS, PREVIEW_DEPTH, PREVIEW_ITEMS};
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
                agent_loop_core::trace::Local::write(&v, &mut written);
                prop_assert_eq!(String::from_utf8(written).unwrap(), v.to_string());
            }
        }
        // A list of locals is previewed item by item.
        let list: Vec<&Value> = vec![&v, &v];
        prop_assert_eq!(preview(&list).to_string(), json!([shown.clone(), shown]).to_string());
    }

    #[test]
    fn a_decimal_reads_like_rusts_own_float_display(bits in any::<u64>(), small in -1.0e6f64..1.0e6, step in 0u32..4000) {
        use agent_loop_core::vocab::Decimal;
        // Any bit pattern (NaN, infinities, subnormals, huge, tiny), plain
        // numbers, and the halves and tenths a drawing uses.
        let edges = [0.0, -0.0, 1e21, 1e-7, 1.5e-7, 5e-324, f64::MAX, f64::MIN_POSITIVE, 0.1 + 0.2, 1.5, 3.0, 1e15, 1e16, 123456789012345680.0, 0.000123, 999999999999999.9];
        for x in edges.into_iter().chain([f64::from_bits(bits), small, f64::from(step) / 2.0, f64::from(step) / 10.0, -f64::from(step) * 0.3]) {
            let (mine, rusts) = (Decimal(x).to_string(), format!("{x}"));
            // The same text wherever the shortest form has up to 15 digits
            // (then only one such form exists); past that both are shortest
            // forms that read back as x, and may differ in the last digit.
            let significant = rusts.trim_start_matches('-').replace('.', "").trim_matches('0').len();
            if significant <= 15 || !x.is_finite() {
                prop_assert_eq!(&mine, &rusts, "{:?}", x);
            } else {
                prop_assert_eq!(mine.len(), rusts.len(), "{:?}: {} vs {}", x, mine, rusts);
                prop_assert_eq!(mine.parse::<f64>().ok(), Some(x), "{:?}: {}", x, mine);
            }
        }
    }

    #[test]
    fn the_small_sorts_sort_like_the_standard_library(items in proptest::collection::vec((0u8..6, any::<u16>()), 0..80)) {
        use agent_loop_core::vocab::{sort_small, sort_small_by_key};
        let mut mine = items.clone();
        let mut theirs = items.clone();
        sort_small(&mut mine);
        theirs.sort();
        prop_assert_eq!(&mine, &theirs);
        // By a key, stably: equal keys keep their order.
        let (mut mine, mut theirs) = (items.clone(), items);
        sort_small_by_key(&mut mine, |x| x.0);
        theirs.sort_by_key(|x| x.0);
        prop_assert_eq!(mine, theirs);
    }

    #[test]
    fn a_request_is_previewed_like_the_same_request_as_json(
        system in "[a-zé\"\\\\ \n<>]{0,900}", model in "[a-z-]{0,20}", tools in any_json(),
        n in 0usize..5000, max_tokens in 0u32..100_000,
    ) {
        use agent_loop_core::protocol::Request;
        use agent_loop_core::preview::record_ref;
        use agent_loop_core::trace::Local;
        // The recorder writes a request straight from its fields; it must
        // read exactly as the object it stands for would.
        let messages = vec![Value::Null; n];
        let request = Request { model: &model, system: &system, messages: &messages, tools: &tools, max_tokens };
        let as_json = json!({"model": model, "system": system, "messages": record_ref(n), "tools": tools, "max_tokens": max_tokens});
        let (mut direct, mut reference) = (Vec::new(), Vec::new());
        request.write(&mut direct);
        as_json.write(&mut reference);
        prop_assert_eq!(String::from_utf8(direct).unwrap(), String::from_utf8(reference).unwrap());
    }

    #[test]
    fn fixture_text_is_read_as_its_json_or_reported_as_not_json(text in fixture_text()) {
        let parsed = Scenario::parse(&text);
        match serde_json::from_str::<Value>(&text) {
            Ok(_) => {
                // JSON is JSON: space around the text changes nothing (a
                // number parsed twice may differ in its last digit, so the
                // text itself is kept), and no problem says it is not JSON.
                prop_assert_eq!(&parsed, &Scenario::parse(&format!(" \n\t{text}\r\n ")));
                let problems = parsed.err().unwrap_or_default();
                prop_assert!(problems.iter().all(|p| p.field != "(file)"), "{:?}", problems);
            }
            Err(_) => {
                let problems = parsed.err().unwrap_or_default();
                prop_assert_eq!(problems.len(), 1);
                prop_assert_eq!(problems[0].field.as_str(), "(file)");
                prop_assert!(problems[0].message.starts_with("not valid JSON: "), "{}", problems[0]);
            }
        }
    }

    #[test]
    fn a_valid_loop_keeps_the_lessons_invariants(v in valid_loop()) {
        let s = Scenario::from_value(v.clone());
        prop_assert!(s.is_ok(), "the generator makes valid fixtures: {:?}", s.err());
        let s = s.unwrap();
        check_valid_loop(&s)?;
        check_run(&s)?;
    }

    #[test]
    fn a_broken_field_is_named_and_nothing_else((valid, broken, fields) in broken_fixture()) {
        check_broken(&valid, &broken, &fields)?;
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

// ---------------------------------------------------------------------------
// The generators reach what the properties claim (fixed seed, so stable).

fn sample<S: Strategy>(strategy: S, n: usize) -> Vec<S::Value> {
    let mut runner = TestRunner::deterministic();
    (0..n).map(|_| strategy.new_tree(&mut runner).unwrap().current()).collect()
}

#[test]
fn edited_fixtures_reach_both_parse_outcomes() {
    let results: Vec<bool> =
        sample(edited_fixture(), 512).into_iter().map(|(v, _)| Scenario::from_value(v).is_ok()).collect();
    let ok = results.iter().filter(|ok| **ok).count();
    assert!(ok >= 100 && results.len() - ok >= 100, "{ok} of {} parse", results.len());
}

#[test]
fn fixture_texts_reach_json_and_not_json() {
    let (mut not_json, mut ok, mut problems) = (0, 0, 0);
    for text in sample(fixture_text(), 512) {
        match (serde_json::from_str::<Value>(&text).is_ok(), Scenario::parse(&text).is_ok()) {
            (false, _) => not_json += 1,
            (true, true) => ok += 1,
            (true, false) => problems += 1,
        }
    }
    assert!(
        not_json >= 50 && ok >= 50 && problems >= 50,
        "not JSON {not_json}, ok {ok}, problems {problems}"
    );
}

#[test]
fn valid_loops_reach_every_status_and_several_calls() {
    let mut statuses = BTreeSet::new();
    let mut longest = 0;
    for v in sample(valid_loop(), 512) {
        let s = Scenario::from_value(v).unwrap();
        let (mut model, mut process) = s.doubles();
        let trace = record(&s, &mut model, &mut process, 200_000);
        statuses.insert(trace.status().unwrap().to_string());
        longest = longest.max(trace.result["calls"].as_i64().unwrap());
    }
    let all: BTreeSet<String> = Status::ALL.iter().map(|s| s.as_str().to_string()).collect();
    assert_eq!(statuses, all);
    assert!(longest >= 4, "the longest run made {longest} calls");
}

#[test]
fn broken_fixtures_break_every_field_of_every_function() {
    let mut broken = BTreeSet::new();
    let mut functions = BTreeSet::new();
    for (valid, _, fields) in sample(broken_fixture(), 512) {
        broken.extend(fields);
        functions.insert(valid["function"].as_str().unwrap().to_string());
    }
    let all: BTreeSet<&str> = wrong_values().iter().map(|(f, _)| *f).collect();
    assert_eq!(broken, all);
    assert_eq!(functions.len(), 3);
}
