//! Every word true: a caption that quotes a value of the run quotes the
//! value the locals show at that step (issue 44, point 1). The output line
//! a tool run reports is the result's last line: its caption says that
//! line, in every shipped scenario and both languages.
//!
//! No Chinese question, answer, explanation or caption quotes a sentence
//! of the English program, and no English one the Chinese (point 2).
//!
//! An exception without a message is named alone, and the line that
//! makes the record is not said to append to it (point 8).
//!
//! Lessons tested: lesson_one, lesson_two.

use agent_loop_core::i18n::Lang;
use agent_loop_core::lesson;
use agent_loop_core::programs::lesson_one;
use agent_loop_core::run::record_scenario;
use agent_loop_core::scenario::load_shipped;
use agent_loop_core::session::{FixtureDoubles, Options, Session};

/// Every step labelled `label` of every shipped lesson-one scenario, in zh
/// and en: `check(place, the step's locals, the caption's body)`. How many.
fn each_labelled(label: &str, mut check: impl FnMut(&str, &serde_json::Value, &str)) -> usize {
    let mut checked = 0;
    for (_, scenario) in load_shipped() {
        let Ok(scenario) = scenario else { continue };
        if !lesson_one::FUNCTIONS.contains(&scenario.function) {
            continue;
        }
        for code in ["zh", "en"] {
            let lang = Lang::parse(code).unwrap();
            let trace = record_scenario(&scenario.localized(lang));
            for (i, step) in trace.steps.iter().enumerate().filter(|(_, s)| s.label == label) {
                let (_, body) = lesson::caption(lang, &trace, i);
                check(&format!("{} {code} step {i}", scenario.id), &trace.locals_json(step), &body);
                checked += 1;
            }
        }
    }
    checked
}

#[test]
fn the_reported_line_is_the_last_line_the_locals_show() {
    let checked = each_labelled("loop.report_tool", |at, locals, body| {
        let last = locals["last_line"].as_str().expect("report_tool has last_line");
        let shown: String = last.chars().take(80).collect();
        assert!(body.contains(&shown), "{at}: {body:?} does not say {last:?}");
    });
    assert!(checked > 20, "{checked} steps checked");
}

/// The literal pieces (placeholders cut out) of the program's sentences in
/// `code` (fixtures/i18n/<code>.json, `said`) at least `min` characters long.
fn sentences(code: &str, min: usize) -> Vec<String> {
    let path = format!("{}/fixtures/i18n/{code}.json", env!("CARGO_MANIFEST_DIR"));
    let table: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut pieces = Vec::new();
    for template in table["said"].as_object().unwrap().values().filter_map(|v| v.as_str()) {
        let mut rest = template;
        while !rest.is_empty() {
            let (piece, after) = rest.split_once('{').unwrap_or((rest, ""));
            if piece.trim().chars().count() >= min {
                pieces.push(piece.trim().to_string());
            }
            rest = after.split_once('}').map_or("", |(_, r)| r);
        }
    }
    pieces
}

/// Every question, choice and explanation a learner can be asked and every
/// caption of every step, of every shipped scenario, in `code`.
fn everything_said(code: &str) -> Vec<(String, String)> {
    let lang = Lang::parse(code).unwrap();
    let mut said = Vec::new();
    for (_, scenario) in load_shipped() {
        let Ok(scenario) = scenario else { continue };
        let options = Options { scenario: scenario.id.clone(), lang: code.into(), ..Options::default() };
        let Ok(mut session) = Session::new(Box::new(FixtureDoubles), &options) else { continue };
        session.set_predict(true);
        for q in session.predictions().questions() {
            let all = [q.text.clone(), q.explain.clone()].into_iter().chain(q.choices.iter().cloned());
            said.extend(all.map(|t| (format!("{} question {}", scenario.id, q.key), t)));
        }
        let trace = record_scenario(&scenario.localized(lang));
        for i in 0..trace.steps.len() {
            let (title, body) = lesson::caption(lang, &trace, i);
            said.push((format!("{} caption at step {i}", scenario.id), format!("{title} {body}")));
        }
    }
    said
}

#[test]
fn no_chinese_feedback_quotes_the_english_program_and_no_english_the_chinese() {
    for (code, other, min) in [("zh", "en", 8), ("en", "zh", 3)] {
        let foreign = sentences(other, min);
        let said = everything_said(code);
        assert!(said.len() > 1000, "{code}: {} texts", said.len());
        let found: Vec<String> = said
            .iter()
            .flat_map(|(at, text)| {
                foreign
                    .iter()
                    .filter(|s| text.contains(s.as_str()))
                    .map(move |s| format!("{at}: {s:?} in {text:?}"))
            })
            .collect();
        assert!(found.is_empty(), "{code} says the {other} program's words:\n{}", found.join("\n"));
    }
}

/// An exception raised without a message is named alone: no caption of
/// any lesson-two scenario, run on any of its four loops (the run beside
/// included), leaves an empty message after a colon ("StopIteration：。",
/// issue 44, point 8).
#[test]
fn an_exception_without_a_message_is_named_alone() {
    use agent_loop_core::programs::lesson_two;
    let mut raised = 0;
    for (_, scenario) in load_shipped() {
        let Ok(scenario) = scenario else { continue };
        if !lesson_two::LOOPS.contains(&scenario.function) {
            continue;
        }
        for function in lesson_two::LOOPS {
            for code in ["zh", "en"] {
                let lang = Lang::parse(code).unwrap();
                let mut s = scenario.localized(lang);
                s.function = function;
                let trace = record_scenario(&s);
                raised += usize::from(trace.error.is_some());
                for i in 0..trace.steps.len() {
                    let (title, body) = lesson::caption(lang, &trace, i);
                    for empty in ["：。", ": .", "：，", ": ,"] {
                        assert!(
                            !body.contains(empty),
                            "{} on {} {code} step {i}: {title}: {body}",
                            s.id,
                            function.name()
                        );
                    }
                }
            }
        }
    }
    assert!(raised > 0, "some run raises");
}

/// The line that makes the record is not said to append to it: a record
/// question at a step with no record yet explains that the line makes one
/// (`messages = [...]`, issue 44, point 8), in every shipped scenario.
#[test]
fn the_line_that_makes_the_record_is_not_said_to_append() {
    let mut made = 0;
    for (_, scenario) in load_shipped() {
        let Ok(scenario) = scenario else { continue };
        for code in ["zh", "en"] {
            let options = Options { scenario: scenario.id.clone(), lang: code.into(), ..Options::default() };
            let Ok(mut session) = Session::new(Box::new(FixtureDoubles), &options) else { continue };
            session.set_predict(true);
            let trace = session.replay().trace();
            for q in session.predictions().questions().iter().filter(|q| q.key.starts_with("record-")) {
                if trace.steps[q.step].record_len == 0 {
                    made += 1;
                    for appends in ["追加", "append"] {
                        assert!(!q.explain.contains(appends), "{} {code}: {}", scenario.id, q.explain);
                    }
                }
            }
        }
    }
    assert!(made > 0, "some record question is asked where the record is made");
}

/// The refusal says what was asked, name and input: a request for
/// run_main with an input is not said to be refused for its name alone
/// (non-empty-input, issue 44, point 8), in every scenario that refuses.
#[test]
fn a_refusal_names_the_input_it_refuses() {
    let refused = each_labelled("main.reject", |at, locals, body| {
        let input = locals["call"]["input"].to_string();
        assert!(body.contains(&input), "{at}: {body:?} does not say the input {input}");
    });
    assert!(refused >= 4, "{refused} refusals checked");
}
