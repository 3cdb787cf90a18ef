//! `check` says every problem of a file in one pass (issue 44, "check in
//! one pass"): each case of `bad-fixtures/once/` is a scenario file and,
//! beside it, every line `check` must print of it (`<case>.txt`, the file's
//! name left out), in order: its format's problems, its labels that are not
//! its program's, what its run shows (a question the run never asks, a tool
//! name misspelt in `tool_results` that ends the run), then its warnings.
//! A problem of one field never hides another's.
//!
//! Lessons tested: lesson_one, lesson_two.

// The CLI is a native tool.
#![cfg(not(target_arch = "wasm32"))]

use std::process::Command;

const CASES: &str = "tests/bad-fixtures/once";

#[test]
fn check_says_every_problem_of_a_file_at_once_with_its_line() {
    let mut cases: Vec<_> = std::fs::read_dir(CASES)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    cases.sort();
    assert!(cases.len() >= 4, "the cases are there: {cases:?}");
    let mut wrong = Vec::new();
    for case in cases {
        let file = case.to_str().unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_agent-loop-cli")).args(["check", file]).output().unwrap();
        let said = String::from_utf8(out.stdout).unwrap();
        let expected = std::fs::read_to_string(case.with_extension("txt")).unwrap();
        let mut wanted: Vec<String> = expected.lines().map(|l| format!("{file}: {l}")).collect();
        wanted.push("checked 1 fixture(s): 0 ok, 1 with problems".into());
        let said: Vec<&str> = said.lines().collect();
        if said != wanted || out.status.code() != Some(1) {
            wrong.push(format!(
                "{file} (exit {:?}) said:\n{}\nnot:\n{}",
                out.status.code(),
                said.join("\n"),
                wanted.join("\n")
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
}
