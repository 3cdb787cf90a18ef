//! Property tests (proptest) of fixtures: an edited fixture parses and runs
//! or names the edited fields; any text is read as its JSON or reported as
//! not JSON; a BROKEN fixture (a wrong type in a known field) is reported
//! under that field and nothing else. The `*_reach_*` tests sample the
//! generators and prove each property exercises what it claims (both parse
//! outcomes, every broken field).
//!
//! Lessons tested: lesson_one.

#![cfg(not(target_arch = "wasm32"))]

use agent_loop_core::i18n::Lang;
use agent_loop_core::scenario::Scenario;
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::TestRunner;
use serde_json::{json, Value};
use std::collections::BTreeSet;

mod common;
#[path = "common/strategies.rs"]
mod strategies;
use strategies::*;

// Editing a fixture, and breaking it.

use agent_loop_core::scenario::known_fields;

/// The field a problem is about, without `.sub` or `[i]`.
fn root(field: &str) -> &str {
    field.split(['.', '[']).next().unwrap_or(field)
}

/// A valid fixture with 0-3 edits: a field removed, replaced by any JSON, or
/// a new (possibly unknown) key. Returns the fixture and the edited keys.
fn edited_fixture() -> impl Strategy<Value = (Value, BTreeSet<String>)> {
    let key = prop_oneof![prop::sample::select(known_fields()).prop_map(String::from), "[a-z]{1,6}"];
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
            prop_assert_eq!(&*s.raw, v);
            prop_assert_eq!(&json!(s.id), &v["id"]);
            prop_assert_eq!(&json!(s.function.name()), &v["function"]);
            prop_assert_eq!(Some(s.max_calls), v.get("max_calls").map_or(Some(4), Value::as_i64));
            prop_assert_eq!(s.expect.is_some(), v.get("expect").is_some());
            check_run(&s)?;
        }
        Err(problems) => {
            prop_assert!(!problems.is_empty());
            for p in &problems {
                prop_assert!(!p.message(Lang::english()).is_empty());
                prop_assert!(
                    may_blame(edited, root(&p.field)),
                    "{} blames a field that was not edited ({:?})",
                    p,
                    edited
                );
            }
            // An unknown key is always named.
            for key in
                edited.iter().filter(|k| !known_fields().contains(&k.as_str()) && v.get(k.as_str()).is_some())
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


    #[test]
    fn an_edited_fixture_parses_and_runs_or_names_the_edited_fields((v, edited) in edited_fixture()) {
        check_edited(&v, &edited)?;
    }

    #[test]
    fn fixture_text_is_read_as_its_json_or_reported_as_not_json(text in fixture_text()) {
        let parsed = Scenario::parse(&text);
        match serde_json::from_str::<Value>(&text) {
            Ok(_) => {
                // JSON is JSON: space around the text changes nothing but
                // the lines the problems name, one further down (a number
                // parsed twice may differ in its last digit, so the text
                // itself is kept), and no problem says it is not JSON (one
                // may say the file is not an object: `0`, `[]`).
                let padded = Scenario::parse(&format!(" \n\t{text}\r\n ")).map_err(|problems| {
                    problems.into_iter().map(|mut p| { p.line = p.line.map(|n| n - 1); p }).collect::<Vec<_>>()
                });
                prop_assert_eq!(&parsed, &padded);
                let problems = parsed.err().unwrap_or_default();
                let not_json = |p: &agent_loop_core::scenario::Problem| ["check_json_syntax", "check_json_eof", "check_json_too_deep"].contains(&p.say.key);
                prop_assert!(!problems.iter().any(not_json), "{:?}", problems);
                prop_assert!(problems.iter().all(|p| p.field != "(file)" || p.say.key == "check_object"), "{:?}", problems);
            }
            Err(_) => {
                let problems = parsed.err().unwrap_or_default();
                prop_assert_eq!(problems.len(), 1);
                prop_assert_eq!(problems[0].field.as_str(), "(file)");
                prop_assert!(["check_json_syntax", "check_json_eof", "check_json_too_deep"].contains(&problems[0].say.key), "{}", problems[0]);
            }
        }
    }

    #[test]
    fn a_broken_field_is_named_and_nothing_else((valid, broken, fields) in broken_fixture()) {
        check_broken(&valid, &broken, &fields)?;
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
