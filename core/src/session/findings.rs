//! Everything `check` finds in one scenario file, at once, with its line:
//! what the CLI prints and what the page's notice says of a `src=` file
//! (issue 44: an author fixed one problem and met three more).
//!
//! Its format's problems; the labels it names that are not its program's
//! (read without a run); what one recording of it shows (a question on a
//! line the run never reaches, a tool name misspelt in `tool_results` that
//! ends the run in `ValueError`); and its warnings. A file whose only
//! problems are in fields its run does not read (`expect`, a question, the
//! id, the title, an unknown key) is still recorded without them, so a
//! broken `expect` does not hide an unreachable question.

use crate::predict;
use crate::programs;
use crate::run::{unexpected_warnings, CheckRun};
use crate::scenario::{json_lines, known_fields, near_misses, Phrase, Problem, Scenario};
use serde_json::{json, Value};

/// How an author's file is recorded for its checks (the CLI: its own
/// doubles; the page: its doubles, in its language, within its budgets).
pub type Check<'a> = &'a mut dyn FnMut(&Scenario) -> CheckRun;

/// What [`of`] found.
pub struct Findings {
    /// The scenario, or every problem of the file.
    pub parsed: Result<Scenario, Vec<Problem>>,
    /// What `check` warns about (the file may have problems too).
    pub warnings: Vec<Problem>,
    /// The recording of a valid file, for its display.
    pub run: Option<CheckRun>,
}

/// Every finding of a file read as `parsed` (from `text`, when there is
/// one: each finding then names its line).
pub fn of(parsed: Result<Scenario, Vec<Problem>>, text: Option<&str>, check: Check) -> Findings {
    let mut found = match parsed {
        Ok(scenario) => {
            let run = check(&scenario);
            let (problems, warnings) = of_run(&scenario, &run, &[]);
            let problems = [predict::label_problems(&scenario.raw, scenario.function), problems].concat();
            match problems.is_empty() {
                true => Findings { parsed: Ok(scenario), warnings, run: Some(run) },
                false => Findings { parsed: Err(problems), warnings, run: None },
            }
        }
        Err(problems) => broken(problems, text, check),
    };
    if let Some(text) = text {
        json_lines::at_lines(found.parsed.as_mut().err().map_or(&mut [][..], |p| &mut p[..]), &[("", text)]);
        json_lines::at_lines(&mut found.warnings, &[("", text)]);
    }
    found
}

/// A file with format problems: those, its labels, and, when its run does
/// not read the broken fields, what its recording shows.
fn broken(mut problems: Vec<Problem>, text: Option<&str>, check: Check) -> Findings {
    let raw: Option<Value> = text.and_then(|t| serde_json::from_str(t).ok());
    let function = raw.as_ref().and_then(|r| r["function"].as_str()).and_then(programs::function);
    let (Some(raw), Some(function)) = (raw, function) else {
        return Findings { parsed: Err(problems), warnings: Vec::new(), run: None };
    };
    // (its checks read the program's texts: none before they arrive)
    if !programs::of(function).loaded() {
        return Findings { parsed: Err(problems), warnings: Vec::new(), run: None };
    }
    problems.extend(predict::label_problems(&raw, function));
    let expected = raw["expect"]["warnings"].as_array().cloned().unwrap_or_default();
    // (the value becomes the scenario: no second copy of it while it runs)
    let warnings = match runnable(raw, &problems) {
        Ok((scenario, kept)) => {
            let (found, warnings) = of_run(&scenario, &check(&scenario), &kept);
            problems.extend(found);
            // (the run was recorded without `expect`: what it declares
            // expected is taken out here)
            warnings.into_iter().filter(|w| !expected.contains(&json!(w.field))).collect()
        }
        Err(raw) => {
            near_misses(&raw, function).into_iter().filter(|w| !expected.contains(&json!(w.field))).collect()
        }
    };
    Findings { parsed: Err(problems), warnings, run: None }
}

/// The file without what its run does not read and its problems are in
/// (`expect`, the broken questions, an unknown key; a placeholder id and
/// title), as a scenario, with the index in the file of each question it
/// kept; the file as it is when a problem is in a field the run reads.
fn runnable(mut raw: Value, problems: &[Problem]) -> Result<(Scenario, Vec<usize>), Value> {
    let known = known_fields();
    let top = |p: &Problem| p.field.split(['.', '[']).next().unwrap_or("").to_string();
    let unread = |p: &Problem| match top(p).as_str() {
        "expect" | "questions" | "id" | "title" => true,
        key => !known.contains(&key) && p.field == key,
    };
    if !raw.is_object() || !problems.iter().all(unread) {
        return Err(raw);
    }
    // (a new map, not `remove`: no B-tree removal code in the page's module)
    let mut dropped: Vec<String> = Vec::new();
    let mut broken_questions = Vec::new();
    for p in problems {
        match top(p).as_str() {
            "questions" => match p.field.strip_prefix("questions[").and_then(|r| r.split(']').next()) {
                Some(i) => broken_questions.extend(i.parse::<usize>().ok()),
                None => dropped.push("questions".into()),
            },
            "id" | "title" => {}
            key => dropped.push(key.into()),
        }
    }
    let mut v = serde_json::Map::new();
    for (key, value) in std::mem::take(raw.as_object_mut().expect("an object")) {
        if !dropped.contains(&key) {
            v.insert(key, value);
        }
    }
    if problems.iter().any(|p| top(p) == "id") {
        v.insert("id".into(), json!("unchecked"));
    }
    if problems.iter().any(|p| top(p) == "title") {
        v.insert("title".into(), json!({"zh": "-", "en": "-"}));
    }
    let mut kept = Vec::new();
    if let Some(Value::Array(questions)) = v.get_mut("questions") {
        let all = std::mem::take(questions);
        for (i, q) in all.into_iter().enumerate().filter(|(i, _)| !broken_questions.contains(i)) {
            kept.push(i);
            questions.push(q);
        }
    }
    Scenario::from_value(Value::Object(v)).map(|s| (s, kept)).map_err(|_| Value::Null)
}

/// What a recording shows of a scenario: its problems (questions it never
/// asks, a misspelt tool that ends it) and its warnings. `kept`: the index
/// in the file of each of its questions (none: the same as its own).
fn of_run(scenario: &Scenario, run: &CheckRun, kept: &[usize]) -> (Vec<Problem>, Vec<Problem>) {
    let mut problems = predict::problems_within(scenario, run);
    for p in problems.iter_mut() {
        let i = p.field.strip_prefix("questions[").and_then(|r| r.split(']').next()?.parse::<usize>().ok());
        if let Some(file_index) = i.and_then(|i| kept.get(i)) {
            p.field = p.field.replacen(
                &format!("questions[{}]", i.unwrap_or(0)),
                &format!("questions[{file_index}]"),
                1,
            );
        }
    }
    let misspelt = misspelt_tools(scenario, run);
    let warnings = unexpected_warnings(scenario, run)
        .into_iter()
        .filter(|w| misspelt.iter().all(|m| m.field != w.field));
    let warnings = warnings.collect();
    problems.extend(misspelt);
    (problems, warnings)
}

/// Results scripted for a tool no reply calls, under a name near the one
/// the run could not find (`get_wether` for `get_weather`), when that ends
/// the run in `ValueError`: a problem, not a warning, for the run ends so
/// because of it. (A name further off stays a warning: a model asking for
/// a tool the program lacks is a lesson of its own.)
fn misspelt_tools(scenario: &Scenario, run: &CheckRun) -> Vec<Problem> {
    let trace = &run.trace;
    let Some(ending) = trace.error.as_ref().filter(|e| e.kind == "value_error") else { return Vec::new() };
    let Some(results) = scenario.raw.get("tool_results").and_then(Value::as_object) else {
        return Vec::new();
    };
    let calls = |reply: &'_ Value| -> Vec<String> {
        let blocks = reply["content"].as_array().into_iter().flatten().filter(|b| b["type"] == "tool_use");
        blocks.filter_map(|b| b["name"].as_str().map(str::to_string)).collect()
    };
    // (the run stops at the first call of its last reply that has no results)
    let last = trace.record.iter().rev().find(|m| m["role"] == "assistant");
    let Some(missing) = last.map(calls).into_iter().flatten().find(|name| !results.contains_key(name)) else {
        return Vec::new();
    };
    let called: Vec<String> = scenario.model.iter().flat_map(calls).collect();
    let near = |name: &str| !called.iter().any(|c| c == name) && predict::distance(name, &missing) <= 2;
    let values = |name: &str| {
        [
            ("name", format!("{name:?}")),
            ("called", format!("{missing:?}")),
            ("ending", ending.message.clone()),
        ]
    };
    (results.keys().filter(|name| near(name)))
        .map(|name| {
            Problem::new(format!("tool_results.{name}"), Phrase::with("check_tool_misspelt", &values(name)))
        })
        .collect()
}
