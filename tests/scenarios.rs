//! Every shipped scenario, recorded with the Rust doubles, against the
//! `expect` object in its own fixture file (format: the module doc of
//! `core/src/scenario/`, or docs/scenario-format.md). A new scenario is one JSON
//! file; a fixture without `expect`, or with less than the lesson needs for
//! its function, fails the suite.
//!
//! Lessons tested: lesson_one, lesson_two.

use agent_loop_core::lesson;
use agent_loop_core::programs::{lesson_one, lesson_two};
use agent_loop_core::protocol::Status;
use agent_loop_core::run::{message_shape, tool_results};
use agent_loop_core::run::{record_scenario, Trace};
use agent_loop_core::scenario::{load_shipped, Expect, Scenario};

use serde_json::{json, Value};

mod common;

fn shipped() -> Vec<(String, Scenario)> {
    load_shipped()
        .into_iter()
        .map(|(file, parsed)| {
            let s = parsed.unwrap_or_else(|p| panic!("{file} does not parse: {p:?}"));
            (file, s)
        })
        .collect()
}

fn scenario(id: &str) -> Scenario {
    shipped().into_iter().map(|(_, s)| s).find(|s| s.id == id).unwrap_or_else(|| panic!("no scenario {id}"))
}

fn count(trace: &Trace, label: &str) -> usize {
    trace.steps.iter().filter(|st| st.label == label).count()
}

/// The keys a shipped fixture must give for its function: at least what the
/// old per-function tables checked for every scenario of that kind.
fn required_keys(s: &Scenario, e: &Expect) -> &'static [&'static str] {
    match s.function {
        lesson_one::RUN_LOOP if e.error.is_some() => &["error", "output_lines", "misses"],
        lesson_one::RUN_LOOP => &["status", "calls", "record", "results", "output_lines"],
        lesson_one::RUN_MAIN => &["results"],
        lesson_one::ASK_CLAUDE => &["stop_reason"],
        _ => &[],
    }
}

fn has_key(e: &Expect, key: &str) -> bool {
    match key {
        "status" => e.status.is_some(),
        "error" => e.error.is_some(),
        "calls" => e.calls.is_some(),
        "record" => e.record.is_some(),
        "results" => e.results.is_some(),
        "stop_reason" => e.stop_reason.is_some(),
        "output_lines" => e.output_lines.is_some(),
        "hits" => !e.hits.is_empty(),
        "misses" => !e.misses.is_empty(),
        _ => unreachable!("{key}"),
    }
}

/// Where a check says a mismatch: the `expect` field and what is wrong.
type Fail<'a> = &'a mut dyn FnMut(&str, String);

/// Record `s` and compare the trace with the fixture's own `expect`. Every
/// mismatch comes back as `expect.<field>: …`; nothing is checked before
/// everything is collected. Besides the keys, the invariants every trace of
/// that function must satisfy are checked too (pairing, `loop.ask` per call,
/// `result.messages` = the record, run_main's id and spawn rule, the
/// ask_claude request).
fn mismatches(s: &Scenario) -> Vec<String> {
    let Some(e) = &s.expect else {
        return vec!["expect: missing (every shipped fixture says what must happen)".into()];
    };
    let trace = record_scenario(s);
    let mut out = Vec::new();
    let mut fail = |field: &str, message: String| out.push(format!("expect.{field}: {message}"));
    labels_and_error(e, &trace, &mut fail);
    match s.function {
        lesson_one::RUN_LOOP => loop_mismatches(e, &trace, &mut fail),
        lesson_one::RUN_MAIN => main_mismatches(s, e, &trace, &mut fail),
        lesson_one::ASK_CLAUDE => ask_mismatches(e, &trace, &mut fail),
        f if lesson_two::LOOPS.contains(&f) => core_mismatches(e, &trace, &mut fail),
        other => fail("function", format!("{} is not a function of the lesson", other.name())),
    }
    record_and_output(e, &trace, &mut fail);
    warnings(s, e, &mut fail);
    out
}

/// The labels hit and missed, and the error (a refused run is a trace
/// error with a null result; otherwise no error).
fn labels_and_error(e: &Expect, trace: &Trace, fail: Fail) {
    // Labels: they must exist in the listing, then be hit (or not).
    let labels = lesson::labels();
    for (key, list, want_hit) in [("hits", &e.hits, true), ("misses", &e.misses, false)] {
        for (i, label) in list.iter().enumerate() {
            let field = format!("{key}[{i}]");
            if !labels.contains(&label.as_str()) {
                fail(&field, format!("unknown label {label:?} (see lesson::labels())"));
                continue;
            }
            match (want_hit, trace.steps.iter().position(|st| st.label == label)) {
                (true, None) => fail(&field, format!("no step carries {label:?}")),
                (false, Some(at)) => fail(&field, format!("step {at} carries {label:?}")),
                _ => {}
            }
        }
    }

    let error = trace.error.as_ref().map(|err| err.kind.as_str());
    if error != e.error.as_deref() {
        let detail = trace.error.as_ref().map(|err| format!(" ({})", err.message)).unwrap_or_default();
        fail("error", format!("expected {:?}, got {error:?}{detail}", e.error));
    }
    if e.error.is_some() && !trace.result.is_null() {
        fail("error", format!("a run that errs returns nothing, got result {}", trace.result));
    }
}

/// run_loop: the status, one `loop.ask` per call, the record given back.
fn loop_mismatches(e: &Expect, trace: &Trace, fail: Fail) {
    if let Some(status) = e.status {
        if trace.status() != Some(status.as_str()) {
            let got = trace.status().map_or("no status".to_string(), |s| format!("{s:?}"));
            fail("status", format!("expected {:?}, got {got}", status.as_str()));
        }
    }
    let asks = count(trace, "loop.ask") as i64;
    if let Some(calls) = e.calls {
        if trace.result["calls"] != calls {
            fail("calls", format!("expected {calls}, result.calls is {}", trace.result["calls"]));
        }
        if asks != calls {
            fail("calls", format!("expected {calls} loop.ask steps (one per call), got {asks}"));
        }
    }
    if !trace.result.is_null() {
        // One ask per call actually made (a throwing ask still counts).
        if trace.result["calls"] != asks {
            fail("calls", format!("result.calls is {} but {asks} loop.ask steps", trace.result["calls"]));
        }
        // The written trace gives run_loop's result its record back.
        let written = serde_json::to_value(lesson::trace_json(trace)).unwrap_or_default();
        let returned = written["result"]["messages"].as_array().map(Vec::len);
        if returned != Some(trace.record.len()) {
            fail(
                "record",
                format!("result.messages has {returned:?} messages, the record {}", trace.record.len()),
            );
        }
    }
    if let Some(results) = &e.results {
        let actual = tool_results(&trace.record);
        if &actual != results {
            fail("results", format!("expected {results:?}, got {actual:?}"));
        }
    }
}

/// Lesson two's loops: the tool results in the record, one model request
/// per turn, the turns a finished run reports.
fn core_mismatches(e: &Expect, trace: &Trace, fail: Fail) {
    if let Some(results) = &e.results {
        let actual = tool_results(&trace.record);
        if &actual != results {
            fail("results", format!("expected {results:?}, got {actual:?}"));
        }
    }
    let asks = count(trace, "core.ask") as i64;
    if !trace.result.is_null() && trace.result["turns"] != asks {
        fail("record", format!("result.turns is {} but {asks} core.ask steps", trace.result["turns"]));
    }
}

/// What `check` warns about is what the fixture says it misses on purpose.
fn warnings(s: &Scenario, e: &Expect, fail: Fail) {
    let said: Vec<String> = agent_loop_core::run::warnings(s, agent_loop_core::trace::STEP_CAP)
        .into_iter()
        .map(|w| w.field)
        .collect();
    if said != e.warnings {
        fail("warnings", format!("expected {:?}, check warns about {said:?}", e.warnings));
    }
}

/// run_main: its tool result for the call's id, the spawn rule, no record.
fn main_mismatches(s: &Scenario, e: &Expect, trace: &Trace, fail: Fail) {
    let r = &trace.result;
    if let Some(results) = &e.results {
        let actual = tool_results(&[json!({"role": "user", "content": [r]})]);
        if &actual != results {
            fail("results", format!("expected {results:?}, got {actual:?}"));
        }
    }
    if r["type"] != "tool_result" || r["tool_use_id"] != s.own["call"]["id"] {
        fail("results", format!("expected a tool_result for id {}, got {r}", s.own["call"]["id"]));
    }
    let spawned = count(trace, "main.spawn") > 0;
    let valid = lesson_one::accepts(&s.own["call"]);
    if spawned != valid {
        fail(
            "results",
            format!("the process must start only for a valid call (valid {valid}, spawned {spawned})"),
        );
    }
    if !trace.record.is_empty() {
        fail("record", format!("run_main does not touch the record, got {} messages", trace.record.len()));
    }
}

/// ask_claude: the stop reason and the lesson's whole request, once.
fn ask_mismatches(e: &Expect, trace: &Trace, fail: Fail) {
    if let Some(reason) = &e.stop_reason {
        if trace.result["stop_reason"] != json!(reason) {
            fail("stop_reason", format!("expected {reason:?}, got {}", trace.result["stop_reason"]));
        }
    }
    // The whole request, once.
    let creates = count(trace, "ask.create");
    if creates != 1 {
        fail("stop_reason", format!("expected one ask.create step, got {creates}"));
    }
    if let Some(create) = trace.steps.iter().find(|st| st.label == "ask.create") {
        let request = &trace.locals_json(create)["request"];
        let system_ok = request["system"].as_str().is_some_and(|s| !s.is_empty());
        if request["max_tokens"] != 1024
            || request["messages"] != "(the record, n = 1)"
            || request["tools"][0]["name"] != "run_main"
            || !system_ok
        {
            fail("stop_reason", format!("the request is not the lesson's: {request}"));
        }
    }
}

/// Every function: the record's shape and pairing, the output's length.
fn record_and_output(e: &Expect, trace: &Trace, fail: Fail) {
    if let Some(record) = &e.record {
        let actual: Vec<String> = trace.record.iter().map(message_shape).collect();
        if &actual != record {
            fail("record", format!("expected {record:?}, got {actual:?}"));
        }
    }
    // (a run that raised may stop between a request and its result)
    if let Some(problem) = common::pairing_problem(&trace.record).filter(|_| trace.error.is_none()) {
        fail("record", problem);
    }
    if let Some(lines) = e.output_lines {
        if trace.output.len() as u64 != lines {
            fail("output_lines", format!("expected {lines}, got {}: {:?}", trace.output.len(), trace.output));
        }
    }
}

#[test]
fn every_shipped_fixture_says_what_must_happen() {
    let scenarios = shipped();
    assert!(scenarios.len() >= 20, "the lesson needs at least 20 scenarios, found {}", scenarios.len());
    let mut problems = Vec::new();
    for (file, s) in &scenarios {
        let Some(e) = &s.expect else {
            problems.push(format!("{file}: expect: missing"));
            continue;
        };
        for key in required_keys(s, e) {
            if !has_key(e, key) {
                problems.push(format!(
                    "{file}: expect.{key}: missing (needed for every {} fixture)",
                    s.function.name()
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{} problem(s):\n{}", problems.len(), problems.join("\n"));
}

#[test]
fn every_shipped_scenario_does_what_its_fixture_expects() {
    let mut problems = Vec::new();
    let mut checked = 0;
    for (file, s) in shipped() {
        problems.extend(mismatches(&s).into_iter().map(|m| format!("{file}: {m}")));
        checked += 1;
    }
    assert!(checked >= 20);
    assert!(problems.is_empty(), "{} mismatch(es):\n{}", problems.len(), problems.join("\n"));
}

/// `id`'s fixture with `change` applied to its `expect` object.
fn mutated(id: &str, change: impl FnOnce(&mut Value)) -> Scenario {
    let mut raw = std::rc::Rc::unwrap_or_clone(scenario(id).raw);
    change(&mut raw["expect"]);
    Scenario::from_value(raw).unwrap_or_else(|p| panic!("{id}: the mutation must still parse: {p:?}"))
}

#[test]
fn the_checker_catches_a_wrong_expectation() {
    // The example from the issue: report answers, it does not hit the limit.
    let wrong = mutated("report", |e| e["status"] = json!("call_limit"));
    let found = mismatches(&wrong);
    assert_eq!(
        found,
        vec!["expect.status: expected \"call_limit\", got \"answered\"".to_string()],
        "exactly the status is wrong"
    );
    // Every key, on every kind of fixture, can fail on its own.
    type Change = fn(&mut Value);
    let cases: &[(&str, &str, Change)] = &[
        ("report", "calls", |e| e["calls"] = json!(3)),
        ("report", "record", |e| e["record"].as_array_mut().unwrap().truncate(3)),
        ("report", "record", |e| e["record"][1] = json!("assistant:text")),
        ("report", "results", |e| e["results"][0][1] = json!(false)),
        ("report", "results", |e| e["results"] = json!([])),
        ("report", "output_lines", |e| e["output_lines"] = json!(4)),
        ("report", "hits[0]", |e| e["hits"] = json!(["loop.call_limit"])),
        ("report", "hits[0]", |e| e["hits"] = json!(["loop.save_result"])),
        ("report", "misses[0]", |e| e["misses"] = json!(["loop.execute"])),
        ("report", "error", |e| {
            e.as_object_mut().unwrap().remove("status");
            e.as_object_mut().unwrap().remove("calls");
            e["error"] = json!("value_error");
        }),
        ("limit", "status", |e| e["status"] = json!("answered")),
        ("keeps-asking", "results", |e| e["results"][2][0] = json!("exit_code=0")),
        ("error", "results", |e| e["results"] = json!([["exit_code=0", true]])),
        ("reject", "results", |e| e["results"] = json!([["unsupported tool or arguments", false]])),
        ("success", "output_lines", |e| e["output_lines"] = json!(1)),
        ("request", "stop_reason", |e| e["stop_reason"] = json!("end_turn")),
        ("request", "record", |e| e["record"] = json!([])),
        ("max-calls-zero", "error", |e| e["error"] = json!("model_error")),
        ("max-calls-zero", "misses[1]", |e| e["misses"] = json!(["loop.start", "loop.check_budget"])),
    ];
    let mut uncaught = Vec::new();
    for (id, field, change) in cases {
        let found = mismatches(&mutated(id, change));
        let prefix = format!("expect.{field}: ");
        if !found.iter().any(|m| m.starts_with(&prefix)) {
            uncaught.push(format!("{id}: a wrong expect.{field} was not reported (got {found:?})"));
        }
    }
    assert!(uncaught.is_empty(), "{}", uncaught.join("\n"));
}

#[test]
fn the_checker_catches_a_changed_run() {
    // Keep report's expectation, change what runs: with one call the loop
    // stops at the limit instead of answering.
    let mut raw = std::rc::Rc::unwrap_or_clone(scenario("report").raw);
    raw["max_calls"] = json!(1);
    let s = Scenario::from_value(raw).unwrap();
    let found = mismatches(&s);
    for field in ["status", "calls", "record", "output_lines", "hits[2]"] {
        assert!(
            found.iter().any(|m| m.starts_with(&format!("expect.{field}: "))),
            "expect.{field} not reported in {found:?}"
        );
    }
    // No expect at all is a mismatch too.
    let mut raw = std::rc::Rc::unwrap_or_clone(scenario("report").raw);
    raw.as_object_mut().unwrap().remove("expect");
    assert_eq!(mismatches(&Scenario::from_value(raw).unwrap()).len(), 1);
}

#[test]
fn expect_is_parsed_typed_and_its_shape_is_checked() {
    let report = scenario("report");
    let e = report.expect.as_ref().unwrap();
    assert_eq!(e.status, Some(Status::Answered));
    assert_eq!(e.calls, Some(2));
    assert_eq!(e.results.as_deref(), Some(&[("exit_code=1".to_string(), true)][..]));
    assert_eq!(e.record.as_ref().map(Vec::len), Some(4));
    assert_eq!(e.output_lines, Some(5));
    assert!(e.hits.contains(&"loop.save_results".to_string()));

    let problems = |function: &str, expect: Value| -> Vec<String> {
        let mut raw = json!({"id": "x", "function": function, "title": {"zh": "x", "en": "x"},
            "model": [], "process": {"returncode": 0}, "expect": expect});
        if function == "run_main" {
            raw.as_object_mut().unwrap().remove("model");
        }
        match Scenario::from_value(raw) {
            Ok(_) => Vec::new(),
            Err(p) => p.iter().map(ToString::to_string).collect(),
        }
    };
    // Each mistake in an `expect` and the start of what is said about it.
    let cases: Vec<Value> =
        serde_json::from_str(include_str!("scenarios/expect-mistakes.json")).expect("the cases are JSON");
    assert!(cases.len() >= 20, "only {} cases", cases.len());
    let mut wrong = Vec::new();
    for case in &cases {
        let (function, expect) = (case["function"].as_str().unwrap(), &case["expect"]);
        let message = case["says"].as_str().unwrap();
        let found = problems(function, expect.clone());
        if !found.iter().any(|p| p.starts_with(message)) {
            wrong.push(format!("{function} {expect}: expected `{message}…`, got {found:?}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // What is valid parses; a broken `function` does not add expect problems.
    assert_eq!(
        problems("run_main", json!({"results": [["exit_code=0", false]], "output_lines": 0})),
        Vec::<String>::new()
    );
    assert_eq!(
        problems("ask_claude", json!({"stop_reason": "end_turn", "hits": ["ask.create"]})),
        Vec::<String>::new()
    );
    assert_eq!(problems("run_everything", json!({"stop_reason": "x"})).len(), 1);
}

#[test]
fn output_is_capped_and_placeholder_is_used() {
    let long = record_scenario(&scenario("long-output"));
    let content = long.result["content"].as_str().unwrap();
    let body = content.strip_prefix("exit_code=0\n").unwrap();
    assert_eq!(body.chars().count(), 2000);
    let empty = record_scenario(&scenario("no-output"));
    assert_eq!(empty.result["content"], "exit_code=0\n(no output)");
}

#[test]
fn snapshot_is_taken_before_the_line_runs() {
    let trace = record_scenario(&scenario("report"));
    let i = trace.steps.iter().position(|s| s.label == "loop.save_results").unwrap();
    assert_eq!(trace.steps[i].record_len, 2, "before the push the record has 2 messages");
    assert_eq!(trace.steps[i + 1].record_len, 3, "after the push it has 3");
    let results = &trace.locals_json(&trace.steps[i])["results"];
    assert_eq!(results.as_array().map(Vec::len), Some(1), "results are staged, not yet saved");
    assert_eq!(trace.steps.iter().filter(|s| s.label == "loop.ask").count(), 2);
    // limit: no second ask, the result is still saved.
    let limit = record_scenario(&scenario("limit"));
    assert_eq!(limit.steps.iter().filter(|s| s.label == "loop.ask").count(), 1);
    assert!(limit.steps.iter().any(|s| s.label == "loop.call_limit" && s.record_len == 3));
    // truncated: neither execute nor save_results.
    let cut = record_scenario(&scenario("truncated"));
    assert!(!cut.steps.iter().any(|s| s.label == "loop.execute" || s.label == "loop.save_results"));
}

#[test]
fn the_record_only_grows_and_frames_nest() {
    for (_, s) in shipped() {
        let trace = record_scenario(&s);
        let mut last = (0, 0);
        for (i, step) in trace.steps.iter().enumerate() {
            assert!(step.record_len >= last.0, "{}: record shrank at step {i}", s.id);
            assert!(step.output_len >= last.1, "{}: output shrank at step {i}", s.id);
            last = (step.record_len, step.output_len);
        }
        // The last step saw the whole record (a refused run has none).
        assert_eq!(last.0 as usize, trace.record.len(), "{}", s.id);
        assert_eq!(last.1 as usize, trace.output.len(), "{}", s.id);
        // Nested frames (ask_claude and run_main in run_loop, execute_tool in a loop) run one deeper.
        for step in &trace.steps {
            let expected = u16::from(step.function != s.function);
            assert_eq!(step.depth, expected, "{}: {} at depth {}", s.id, step.label, step.depth);
        }
    }
}

#[test]
fn what_a_run_expects_of_itself_is_what_its_fixture_says() {
    // Expect::of is the one derivation of `expect` (the importer writes it):
    // for every shipped fixture, the fields it states are what Expect::of
    // reads off the run.
    for (file, s) in shipped() {
        let Some(given) = s.raw.get("expect") else { continue };
        let derived = Expect::of(&record_scenario(&s));
        for key in ["status", "calls", "error", "record", "results", "output_lines"] {
            if let (Some(want), Some(got)) = (given.get(key), derived.get(key)) {
                assert_eq!(want, got, "{file}: expect.{key}");
            }
        }
        let hits = derived["hits"].as_array().cloned().unwrap_or_default();
        for hit in given["hits"].as_array().into_iter().flatten() {
            let milestone = lesson_one::MILESTONES.contains(&hit.as_str().unwrap_or(""));
            assert!(!milestone || hits.contains(hit), "{file}: {hit} is a hit the run has");
        }
    }
}

#[test]
fn ask_claude_s_entry_prints_the_id_the_next_step_answers() {
    // The id a tool_result must echo is the tool_use block's, not the
    // message's: the entry prints that one.
    let trace = record_scenario(&scenario("request"));
    let call_id = trace.result["content"]
        .as_array()
        .and_then(|blocks| blocks.iter().find(|b| b["type"] == "tool_use"))
        .map(|b| b["id"].as_str().unwrap().to_string())
        .expect("the request scenario's reply asks for a tool");
    assert!(trace.printed.contains(&format!("tool_use id: {call_id}")), "{:?}", trace.printed);
    assert!(!trace.printed.iter().any(|l| l.contains("msg_")), "{:?}", trace.printed);
}
