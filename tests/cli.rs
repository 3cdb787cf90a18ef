//! The author CLI: `trace` prints the trace contract, `check` reports
//! `file: field: problem` and exits non-zero.

use std::process::Command;

fn cli(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_agent-loop-playground")).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn trace_prints_the_contract_fields() {
    let (code, out, _) = cli(&["trace", "fixtures/scenarios/report.json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    for key in ["scenario", "function", "result", "error", "output", "record", "steps"] {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    assert_eq!(v["result"]["status"], "answered");
    let step = &v["steps"][1];
    for key in ["function", "line", "label", "depth", "event", "locals", "record_len", "output_len", "stage"]
    {
        assert!(step.get(key).is_some(), "step misses {key}");
    }
}

#[test]
fn check_accepts_the_shipped_fixtures() {
    let (code, out, _) = cli(&["check", "fixtures/scenarios"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("0 with problems"), "{out}");
}

#[test]
fn check_names_file_and_field_for_bad_fixtures() {
    let (code, out, _) = cli(&["check", "tests/bad-fixtures"]);
    assert_eq!(code, 1, "{out}");
    for expected in [
        "not-json.json: (file): not valid JSON",
        "wrong-types.json: max_calls: must be an integer",
        "wrong-types.json: title.en: missing",
        "wrong-types.json: model: must be a list of replies",
        "missing-fields.json: id: missing",
        "missing-fields.json: function: missing",
        "bad-process.json: process[1]: returncode must be an integer",
        "unknown-function.json: function: unknown function \"run_everything\"",
        "bad-expect.json: expect.status: unknown status \"done\" (answered, call_limit, model_stopped, protocol_error, model_error)",
        "bad-expect.json: expect.calls: must be an integer",
        "bad-expect.json: expect.record[1]: must be a \"role:kinds\" string",
        "bad-expect.json: expect.results[0]: must be a [first line, is_error] pair",
        "bad-expect.json: expect.stop_reason: only for ask_claude scenarios, not run_loop",
        "bad-expect.json: expect.hits[1]: must be a label",
        "bad-expect.json: expect.misses[0]: \"loop.ask\" is also in expect.hits",
        "bad-expect.json: expect.colour: unknown field",
    ] {
        assert!(out.contains(expected), "expected `{expected}` in:\n{out}");
    }
}

#[test]
fn trace_of_a_bad_fixture_fails_with_the_field() {
    let (code, _, err) = cli(&["trace", "tests/bad-fixtures/wrong-types.json"]);
    assert_eq!(code, 1);
    assert!(err.contains("wrong-types.json: max_calls: must be an integer"), "{err}");
    let (code, _, err) = cli(&["frobnicate"]);
    assert_eq!(code, 2);
    assert!(err.contains("usage"));
}
