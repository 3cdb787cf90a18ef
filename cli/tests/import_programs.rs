//! The CLI's `import <log> --manifest <manifest.json>` (and `--function`):
//! a log of an author's own program — examples/lesson-three/, each log
//! made from a run its own pack holds — becomes a scenario file that,
//! recorded by CPython, gives the log's messages back; the tools the log
//! uses that the program does not have are named; without python3 it says
//! it did not verify; bad input is said with its file and field, with
//! `record`'s and `check`'s exit codes; the Node build says the same bytes.

#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::record::{native, node, python_version, root, Ran};
use serde_json::{json, Value};
use std::path::PathBuf;

const MANIFEST: &str = "../examples/lesson-three/manifest.json";
/// A PATH without python3.
const NO_PYTHON: &str = "/nonexistent";

/// A fresh empty folder for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("alp-import-programs-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn english(text: &Value) -> Value {
    text.get("en").cloned().unwrap_or_else(|| text.clone())
}

/// Lesson three's runs as a developer would have logged them: each
/// scenario's system and tools (English) and its English run's record,
/// written into `dir`; their ids.
fn lesson_three_logs(dir: &std::path::Path) -> Vec<String> {
    let folder = root().join("examples/lesson-three");
    let pack: Value =
        serde_json::from_str(&std::fs::read_to_string(folder.join("lesson-three.pack.json")).unwrap())
            .unwrap();
    let mut ids = Vec::new();
    for scenario in pack["scenarios"].as_array().unwrap() {
        let file = scenario["file"].as_str().unwrap();
        let script: Value =
            serde_json::from_str(&std::fs::read_to_string(folder.join(file)).unwrap()).unwrap();
        let tools: Vec<Value> = script["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                let mut t = t.clone();
                t["description"] = english(&t["description"]);
                t
            })
            .collect();
        let log = json!({"model": "claude-sonnet-4-5", "max_tokens": 1024, "system": english(&script["system"]),
                         "tools": tools, "messages": scenario["runs"]["en"]["record"]});
        let id = scenario["id"].as_str().unwrap().to_string();
        std::fs::write(dir.join(format!("{id}.json")), log.to_string()).unwrap();
        ids.push(id);
    }
    ids
}

fn scenario_of(ran: &Ran) -> Value {
    serde_json::from_str(&ran.out).unwrap_or_else(|e| panic!("{e}: {ran:?}"))
}

fn notes(scenario: &Value) -> Vec<String> {
    scenario["notes"].as_array().unwrap().iter().map(|n| n.as_str().unwrap().to_string()).collect()
}

/// With python3, each log of lesson three imports to a scenario whose
/// recording by the program gives the log's messages back; the one that
/// calls a tool the shop does not have says so, and nothing else.
#[test]
fn every_lesson_three_log_replays_exactly_with_its_program() {
    let Some(_) = python_version() else {
        eprintln!("python3 is not on the PATH: the recording is not compared");
        return;
    };
    let dir = scratch("lesson-three");
    for id in lesson_three_logs(&dir) {
        let log = dir.join(format!("{id}.json"));
        let ran = native(&["import", log.to_str().unwrap(), "--manifest", MANIFEST], None);
        assert_eq!(ran.code, 0, "{id}: {ran:?}");
        let scenario = scenario_of(&ran);
        let said = notes(&scenario);
        let exact = |n: &String| n.contains("en run") && n.contains("the recorded messages exactly");
        assert!(said.iter().any(exact), "{id}: {said:#?}");
        let warned: Vec<&str> = ran.err.lines().collect();
        if id == "unknown-tool" {
            assert_eq!(warned.len(), 1, "{ran:?}");
            assert!(warned[0].contains("warning: messages[1].content[0]: tool \"cancel_membership\" is not among the program's tools (../examples/lesson-three/manifest.json's scenarios declare lookup_order, refund)"), "{ran:?}");
        } else {
            assert_eq!(warned, Vec::<&str>::new(), "{id}");
        }
        for key in ["id", "function", "title", "expect"] {
            assert!(scenario.get(key).is_none(), "{id}: a manifest's file scenario has no {key}");
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// The log the docs import (examples/lesson-three/logs/) imports without
/// a warning; its refund the code refused is scripted as raising.
#[test]
fn the_example_log_imports_without_a_warning() {
    let Some(_) = python_version() else {
        eprintln!("python3 is not on the PATH: the recording is not compared");
        return;
    };
    let log = "../examples/lesson-three/logs/refund-twice.json";
    let ran = native(&["import", log, "--manifest", MANIFEST], None);
    assert_eq!((ran.code, ran.err.as_str()), (0, ""), "{ran:?}");
    let scenario = scenario_of(&ran);
    assert!(notes(&scenario).contains(&"The en run reproduces the recorded messages exactly.".to_string()));
    assert_eq!(scenario["tool_results"]["refund"][1]["raises"], "Exception");
    // The manifest has a refund-twice scenario and file already: the advice
    // names another, so following it overwrites nothing.
    let advice = notes(&scenario).into_iter().find(|n| n.starts_with("To record it")).unwrap();
    assert!(advice.contains("scenarios/refund-twice-imported.json"), "{advice}");
    assert!(advice.contains("\"id\":\"refund-twice-imported\""), "{advice}");
}

/// The scenario file goes where `-o` says, and nowhere else.
#[test]
fn the_scenario_goes_to_o_s_file() {
    let dir = scratch("out");
    lesson_three_logs(&dir);
    let (log, out) = (dir.join("refund-twice.json"), dir.join("imported.json"));
    let ran =
        native(&["import", log.to_str().unwrap(), "--manifest", MANIFEST, "-o", out.to_str().unwrap()], None);
    assert_eq!((ran.code, ran.out.as_str()), (0, ""), "{ran:?}");
    let written: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let refund = &written["tool_results"]["refund"];
    assert_eq!(refund[0], json!({"returns": "refunded 60 for A-17"}));
    assert_eq!(refund[1]["raises"], "Exception", "a refusal that names no exception: {refund}");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert!(files.contains(&"imported.json".to_string()), "{files:?}");
    assert_eq!(files.len(), 8, "the logs and -o's file, nothing more: {files:?}");
    std::fs::remove_dir_all(&dir).ok();
}

/// Without python3 the scenario is still written, and it says it was not
/// verified.
#[test]
fn without_python3_it_says_it_was_not_verified() {
    let dir = scratch("no-python");
    lesson_three_logs(&dir);
    let log = dir.join("recovered-error.json");
    let ran = native(&["import", log.to_str().unwrap(), "--manifest", MANIFEST], Some(NO_PYTHON));
    assert_eq!(ran.code, 0, "{ran:?}");
    assert!(ran.err.contains("warning: (replay): not verified: python3 was not found"), "{ran:?}");
    let scenario = scenario_of(&ran);
    assert!(notes(&scenario).iter().any(|n| n.starts_with("Not verified: python3 was not found")));
    assert_eq!(scenario["tool_results"]["lookup_order"][0]["raises"], "TimeoutError");
    std::fs::remove_dir_all(&dir).ok();
}

/// The log's tools are set against the program's: those its file
/// scenarios declare, or, when none declares any, said not compared.
#[test]
fn a_tool_the_program_does_not_have_is_named_where_it_is_used() {
    let other = "tests/import/agent-loop/other-tools.json";
    let ran = native(&["import", other, "--manifest", MANIFEST], Some(NO_PYTHON));
    assert_eq!(ran.code, 0, "{ran:?}");
    for expected in [
        "other-tools.json: warning: messages[1].content[0]: tool \"search_docs\" is not among the program's tools (../examples/lesson-three/manifest.json's scenarios declare lookup_order, refund): its results are not scripted",
        "other-tools.json: warning: tools[1]: \"send_email\" is not among the program's tools",
    ] {
        assert!(ran.err.contains(expected), "expected `{expected}` in {}", ran.err);
    }
    assert_eq!(scenario_of(&ran)["tool_results"], json!({}));
    let own = "../examples/lesson-one-own/manifest.json";
    let ran = native(&["import", other, "--manifest", own], Some(NO_PYTHON));
    assert!(
        ran.err.contains(&format!(
            "warning: tools: not compared with the program's: none of {own}'s file scenarios gives tools"
        )),
        "{ran:?}"
    );
}

/// `--function run_loop` is the import of old, byte for byte.
#[test]
fn function_run_loop_is_the_default() {
    let sample = "tests/import/zero-division.json";
    let plain = native(&["import", sample], None);
    assert_eq!(plain.code, 0);
    assert_eq!(native(&["import", "--function", "run_loop", sample], None), plain);
}

#[test]
fn bad_input_is_said_with_its_file_and_field() {
    let dir = scratch("bad");
    let log = "tests/import/agent-loop/two-tools.json";
    let bad_manifest = dir.join("manifest.json");
    std::fs::write(&bad_manifest, r#"{"program": 3, "scenarios": []}"#).unwrap();
    let broken_file = dir.join("broken/manifest.json");
    std::fs::create_dir_all(dir.join("broken")).unwrap();
    std::fs::write(&broken_file, r#"{"program": "p.py", "scenarios": [{"id": "a", "title": {"zh": "甲", "en": "A"}, "file": "a.json"}]}"#).unwrap();
    std::fs::write(dir.join("broken/a.json"), r#"{"model": 3}"#).unwrap();
    let two_users = dir.join("two-users.json");
    std::fs::write(
        &two_users,
        r#"{"messages": [{"role": "user", "content": "Hi"}, {"role": "user", "content": "Go"}]}"#,
    )
    .unwrap();
    let (bad, broken, users) =
        (bad_manifest.to_str().unwrap(), broken_file.to_str().unwrap(), two_users.to_str().unwrap());
    let missing = dir.join("missing.json");
    let cannot = dir.join("no/such/folder/out.json");
    let cases: Vec<(Vec<&str>, i32, Vec<String>)> = vec![
        (vec!["import", log, "--function", "nope"], 2, vec!["--function: unknown function \"nope\" (import makes scenarios for run_loop, agent_loop; for your own program, --manifest <manifest.json>)\nusage:".into()]),
        (vec!["import", log, "--function", "agent_loop", "--manifest", MANIFEST], 2, vec!["--function and --manifest do not go together".into()]),
        (vec!["import", log, "--manifest"], 2, vec!["--manifest needs a value\nusage:".into()]),
        (vec!["import", log, "--manifest", missing.to_str().unwrap()], 2, vec![format!("{}: cannot read: No such file or directory", missing.display())]),
        (vec!["import", log, "--manifest", bad], 1, vec![format!("{bad}: program: must be a .py file's path"), format!("{bad}: scenarios: must be a list of at least one scenario"), format!("{log}: not imported")]),
        (vec!["import", log, "--manifest", broken], 1, vec![format!("{}: model: must be a list of replies (line 1)", dir.join("broken/a.json").display()), format!("{log}: not imported")]),
        (vec!["import", log, "--manifest", MANIFEST, "--id", "a b"], 1, vec![format!("{log}: --id: \"a b\": use letters")]),
        (vec!["import", users, "--function", "agent_loop"], 1, vec![format!("{users}: messages[1]: two user messages in a row"), format!("{users}: not imported")]),
        (vec!["import", log, "--function", "agent_loop", "-o", cannot.to_str().unwrap()], 1, vec![format!("{}: cannot write: No such file or directory", cannot.display())]),
    ];
    for (args, code, said) in cases {
        let ran = native(&args, Some(NO_PYTHON));
        assert_eq!((ran.code, ran.out.as_str()), (code, ""), "{args:?}: {ran:?}");
        for line in said {
            assert!(ran.err.contains(&line), "{args:?}: expected `{line}` in:\n{}", ran.err);
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// The Node build says the same bytes, with the same exit codes (a usage
/// error: the same reason before its usage).
#[test]
fn the_node_build_imports_the_same() {
    let Some(_) = node(&["--help"]) else { return };
    let dir = scratch("node");
    lesson_three_logs(&dir);
    let logs: Vec<String> = ["recovered-error", "unknown-tool"]
        .iter()
        .map(|id| dir.join(format!("{id}.json")).display().to_string())
        .collect();
    let cases: Vec<Vec<&str>> = vec![
        vec!["import", "tests/import/agent-loop/two-tools.json", "--function", "agent_loop"],
        vec!["import", "tests/import/agent-loop/tool-error.json", "--function", "agent_loop"],
        vec!["import", "tests/import/agent-loop/other-tools.json", "--manifest", MANIFEST],
        vec!["import", &logs[0], "--manifest", MANIFEST],
        vec!["import", &logs[1], "--manifest", MANIFEST],
        vec!["import", &logs[0], "--function", "nope"],
    ];
    let mut differ = Vec::new();
    for args in cases {
        let (mine, theirs) = (native(&args, None), node(&args).unwrap());
        let first = |r: &Ran| (r.code, r.out.clone(), r.err.lines().next().map(str::to_string));
        let same = if mine.code == 2 { first(&mine) == first(&theirs) } else { mine == theirs };
        if !same {
            differ.push(format!("{args:?}:\n  native: {mine:?}\n  node:   {theirs:?}"));
        }
    }
    std::fs::remove_dir_all(&dir).ok();
    assert!(differ.is_empty(), "{}", differ.join("\n"));
}
