//! Predictions and what-if, natively: every generated question's answer is
//! a fact of the trace; the lesson's scenarios carry their own questions;
//! a what-if edit re-records, compares, and a bad edit changes nothing.
//!
//! Lessons tested: lesson_one.

use agent_loop_core::debugger::Command;
use agent_loop_core::i18n::Lang;
use agent_loop_core::lesson;
use agent_loop_core::predict::{problems, questions};
use agent_loop_core::programs::lesson_one;
use agent_loop_core::run::record_scenario;
use agent_loop_core::scenario::Scenario;
use agent_loop_core::session::{stop_line, FixtureDoubles, Options, Session};
use agent_loop_core::trace::Event;
use agent_loop_core::vocab::{Code, Function};
use serde_json::{json, Value};

mod common;
use common::{langs, shipped};

#[test]
fn every_generated_answer_is_what_the_trace_does() {
    let mut checked = 0;
    for scenario in shipped() {
        let trace = record_scenario(&scenario);
        for lang in langs() {
            for code in [Code::Python, Code::Rust] {
                // Breakpoints that are hit and ones that are not, on the entry
                // line of a function (a call step) and inside it, in this listing.
                let lines: Vec<(Function, u32)> = ["loop.save_results", "main.timeout", "ask.create"]
                    .into_iter()
                    .filter_map(|label| lesson::line_of_label_in(code, label))
                    // (placed the way a click on line 1 places it)
                    .chain(lesson_one::FUNCTIONS.map(|f| (f, stop_line(code, f, 1).unwrap())))
                    .collect();
                for bp in lines.iter().map(|l| vec![*l]).chain([vec![]]) {
                    let asks = questions(&scenario, &trace, lang, code, &bp);
                    for a in asks.iter().filter(|a| !a.authored) {
                        assert!(a.answer < a.choices.len(), "{}: {}", scenario.id, a.key);
                        let unique: std::collections::BTreeSet<&String> = a.choices.iter().collect();
                        assert_eq!(
                            unique.len(),
                            a.choices.len(),
                            "{}: distinct choices {:?}",
                            scenario.id,
                            a.choices
                        );
                        let right = &a.choices[a.answer];
                        match a.key.as_str() {
                            "status" => {
                                assert_eq!(right, &lang.status(trace.status().unwrap()), "{}", scenario.id)
                            }
                            key if key.starts_with("breakpoint-") => {
                                let (f, line) = bp[0];
                                // A breakpoint stops on a line step, or on the call step of its `def` line.
                                let hit = trace.steps.iter().any(|s| {
                                    matches!(s.event, Event::Line | Event::Call)
                                        && s.function == f
                                        && lesson::line_in(code, s) == line
                                });
                                let yes = lang.word("choice_yes");
                                assert_eq!(right == yes, hit, "{}: {} {f:?}:{line}", scenario.id, a.text);
                                assert_eq!(a.step, 0, "asked on the first move");
                            }
                            key if key.starts_with("record-") => {
                                let after = trace.steps[a.step + 1].record_len;
                                assert_eq!(right, &after.to_string(), "{}: {key}", scenario.id);
                                assert!(trace.steps[a.step].record_len < after, "the line appends");
                            }
                            other => panic!("unexpected generated question {other}"),
                        }
                        checked += 1;
                    }
                    let steps: Vec<usize> = asks.iter().map(|a| a.step).collect();
                    let mut sorted = steps.clone();
                    sorted.dedup();
                    assert_eq!(steps, sorted, "{}: one question per step, in order", scenario.id);
                }
            }
        }
    }
    assert!(checked > 500, "only {checked} generated questions were checked");
}

#[test]
fn the_lessons_scenarios_carry_their_own_questions_and_every_one_is_asked() {
    for scenario in shipped() {
        let trace = record_scenario(&scenario);
        assert_eq!(problems(&scenario, &trace), vec![], "{}", scenario.id);
        if lesson_one::PROGRAM.scenarios.contains(&scenario.id.as_str()) {
            assert!(
                scenario.questions.len() >= 2,
                "{} has {} authored questions",
                scenario.id,
                scenario.questions.len()
            );
        }
        for lang in langs() {
            for q in &scenario.questions {
                let (text, choices, explain) = q.texts(lang.code());
                assert!(
                    !text.is_empty() && !explain.is_empty() && choices.iter().all(|c| !c.is_empty()),
                    "{}",
                    scenario.id
                );
            }
        }
    }
}

#[test]
fn a_question_on_a_label_the_run_never_reaches_is_a_problem() {
    let mut raw: Value =
        serde_json::from_str(&std::fs::read_to_string("fixtures/scenarios/truncated.json").unwrap()).unwrap();
    let q = |at: &str| json!({"at": at, "text": "?", "choices": ["a", "b"], "answer": 0, "explain": "."});
    raw["questions"] = json!([q("loop.save_results"), q("loop.nowhere")]);
    let scenario = Scenario::from_value(raw).unwrap();
    // (a label of no line at all is said without a run: label_problems)
    let mut found = problems(&scenario, &record_scenario(&scenario));
    found.extend(agent_loop_core::predict::label_problems(&scenario.raw, scenario.function));
    let fields: Vec<&str> = found.iter().map(|p| p.field.as_str()).collect();
    assert_eq!(fields, ["questions[0].at", "questions[1].at"]);
    assert!(found[0].to_string().contains("never asked"), "{}", found[0]);
    assert!(found[1].to_string().contains("unknown label"), "{}", found[1]);
}

#[test]
fn bad_question_shapes_are_named_by_path() {
    let mut raw: Value =
        serde_json::from_str(&std::fs::read_to_string("fixtures/scenarios/report.json").unwrap()).unwrap();
    raw["questions"] = json!([
        {"at": "loop.ask", "text": "?", "choices": ["only one"], "answer": 0, "explain": "."},
        {"at": "loop.ask", "text": "?", "choices": ["a", "b"], "answer": 2, "explain": ".", "hint": "x"},
        {"text": 3, "choices": ["a", ""], "explain": "."}
    ]);
    let fields: Vec<String> = Scenario::from_value(raw).unwrap_err().into_iter().map(|p| p.field).collect();
    for field in [
        "questions[0].choices",
        "questions[1].answer",
        "questions[1].hint",
        "questions[2].at",
        "questions[2].text",
        "questions[2].choices[1]",
        "questions[2].answer",
    ] {
        assert!(fields.iter().any(|f| f == field), "{field} missing from {fields:?}");
    }
}

fn session(scenario: &str, breakpoints: &str, predict: bool) -> Session {
    let options = Options {
        scenario: scenario.into(),
        lang: "en".into(),
        breakpoints: breakpoints.into(),
        predict,
        ..Options::default()
    };
    Session::new(Box::new(FixtureDoubles), &options).unwrap()
}

#[test]
fn a_move_stops_before_a_question_and_goes_on_after_the_answer() {
    let mut s = session("report", "loop.save_results", true);
    s.command(Command::Debug);
    let ask = s.predictions().pending().expect("the breakpoint question is asked first").clone();
    assert!(ask.key.starts_with("breakpoint-"), "{}", ask.key);
    assert_eq!(s.replay().position(), 0);
    // Stepping on without an answer does nothing.
    s.command(Command::Step);
    assert_eq!(s.replay().position(), 0);
    assert!(s.answer(9).is_err(), "no such choice");
    let wrong = 1 - ask.answer;
    let detail = s.answer(wrong).unwrap();
    assert_eq!(detail["correct"], json!(false));
    assert_eq!(detail["scenario"], json!("report"));
    assert_eq!(s.predictions().score(), (0, 1));
    // The move goes on and stops at the next question (the status one, on the first line).
    let next = s.predictions().pending().expect("the status question").clone();
    assert_eq!(next.key, "status");
    s.answer(next.answer).unwrap();
    assert_eq!(s.predictions().score(), (1, 2));
    assert_eq!(s.take_answers().len(), 2, "two playground-answer events");
    // Debug's target was the breakpoint: the questions on the way stop it
    // first (the record after `messages = [question]`, saving the reply),
    // and the breakpoint's own line asks on arrival (where the results go).
    let mut keys = Vec::new();
    while let Some(a) = s.predictions().pending().cloned() {
        keys.push(a.key.clone());
        s.answer(a.answer).unwrap();
    }
    assert_eq!(keys, ["record-2", "q0", "q2"]);
    assert_eq!(s.replay().step().unwrap().label, "loop.save_results", "the move ends where Debug was going");
    assert_eq!(s.state()["score"], json!({"right": 4, "answered": 5}));
    // Answered questions are not asked again; try again forgets them.
    s.command(Command::Debug);
    assert!(s.predictions().pending().is_none());
    s.try_again();
    assert_eq!(s.predictions().score(), (0, 0));
    s.command(Command::Debug);
    assert!(s.predictions().pending().is_some());
}

#[test]
fn with_predict_off_nothing_is_asked_and_switching_it_on_asks() {
    let mut s = session("report", "", false);
    s.command(Command::Run);
    assert!(s.predictions().pending().is_none() && s.predictions().questions().is_empty());
    s.command(Command::Reset);
    s.set_predict(true);
    assert!(!s.predictions().questions().is_empty());
    s.command(Command::Run);
    let ask = s.predictions().pending().expect("Run stops at the first question").clone();
    assert_eq!(s.replay().position(), ask.step);
    assert_eq!(s.state()["question"]["key"], json!(ask.key));
}

#[test]
fn what_if_the_second_reply_had_stopped_at_max_tokens() {
    let mut s = session("report", "", false);
    let lesson_steps = s.replay().trace().steps.len();
    let first = s.scenario().unwrap().localized(Lang::parse("en").unwrap()).model[0].clone();
    let edit = json!({"model": [first, {"stop_reason": "max_tokens", "content": []}]});
    s.what_if(Some(&edit)).unwrap();
    assert!(s.what_if_state().changed.is_some());
    assert_eq!(s.replay().trace().ending(), Some("model_stopped"));
    assert_eq!(s.state()["whatIf"], json!(true));
    let c = s.what_if_state().comparison.as_ref().unwrap();
    assert_eq!((c.lesson.ending.as_str(), c.changed.ending.as_str()), ("answered", "model_stopped"));
    let at = c.parts_at.expect("they part");
    // The values differ from where the second model call returns its reply;
    // the runs part where their lines do: two different places.
    let (values, names) = c.values_from.clone().expect("the reply differs first");
    assert_eq!(s.replay().trace().steps[values].label, "ask.return");
    assert!(names.contains(&"response".to_string()), "{names:?}");
    assert!(s.replay().trace().steps[..values].iter().filter(|st| st.label == "loop.ask").count() == 2);
    let (mine, lessons) =
        (s.replay().trace().steps[at].label, s.what_if_state().lesson_step(at, s.replay().code()).unwrap().0);
    assert_ne!(mine, lessons, "two different places");
    assert!(at > values);
    // A value differs only where both steps have it (else it is the line).
    let lesson_run = s.what_if_state().lesson_run.as_ref().unwrap();
    let (a, b) = (
        lesson_run.locals_json(&lesson_run.steps[at]),
        s.replay().trace().locals_json(&s.replay().trace().steps[at]),
    );
    for name in c.differs.iter().filter(|d| !["line", "record", "end"].contains(&d.as_str())) {
        assert!(a.get(name).is_some() && b.get(name).is_some(), "{name} in {:?}", c.differs);
    }
    s.to_parting();
    assert_eq!(s.replay().position(), at);
    s.what_if(None).unwrap();
    assert!(s.what_if_state().changed.is_none() && s.what_if_state().comparison.as_ref().is_none());
    assert_eq!(s.replay().trace().steps.len(), lesson_steps, "back to the lesson's run");
}

#[test]
fn a_bad_edit_names_the_field_and_leaves_the_run_as_it_was() {
    let mut s = session("report", "", false);
    s.command(Command::Step);
    s.command(Command::Step);
    let before = (s.state(), s.replay().trace().steps.len());
    let cases: [(&str, &str, &str); 7] = [
        ("model", "[{", "model"),
        ("model", "{}", "model"),
        ("model", "[]", "model"),
        ("model", r#"[{"stop_reason": 5, "content": []}]"#, "model[0].stop_reason"),
        // A misspelt field is not a reply without that field.
        ("model", r#"[{"stop_reasn": "end_turn", "content": []}]"#, "model[0].stop_reasn"),
        ("process", r#"{"returncode": "one"}"#, "process"),
        ("process", "[]", "process"),
    ];
    for (edited, text, field) in cases {
        let problems = s.what_if_texts(&[(edited, text)], None).expect_err(field);
        assert!(problems.iter().any(|p| p.field.starts_with(field)), "{field}: {problems:?}");
        assert_eq!((s.state(), s.replay().trace().steps.len()), before, "{field}: nothing changed");
    }
    assert!(s.what_if(Some(&json!({"expect": {}}))).is_err(), "only model and process");
}

#[test]
fn a_start_step_is_a_number_or_a_label_and_past_the_end_is_the_last() {
    let at = |step: &str| {
        let options = Options { scenario: "report".into(), step: step.into(), ..Options::default() };
        let s = Session::new(Box::new(FixtureDoubles), &options).unwrap();
        (
            s.replay().position(),
            s.replay().started(),
            s.notices().iter().map(|n| n.key).collect::<Vec<_>>(),
            s.replay().trace().steps.len(),
        )
    };
    assert_eq!(at("12").0, 12);
    let (p, started, notices, len) = at("99999");
    assert_eq!((p, started, notices), (len - 1, true, vec!["notice_step_past_end"]));
    let (p, _, _, _) = at("loop.save_results");
    assert!(p > 0);
    assert_eq!(at("loop.nowhere").2, vec!["notice_step"]);
    assert!(!at("").1);
}

#[test]
fn removing_the_breakpoint_of_an_open_question_does_not_leave_the_learner_stuck() {
    let mut s = session("report", "loop.save_results", true);
    s.command(Command::Debug);
    assert_eq!(s.predictions().pending().map(|a| a.key.starts_with("breakpoint")), Some(true));
    let (f, line) = lesson::line_of_label_in(Code::Python, "loop.save_results").unwrap();
    s.toggle_line(f, line).unwrap();
    assert!(s.predictions().pending().is_none(), "its question is gone");
    let at = s.replay().position();
    s.command(Command::Step);
    assert!(s.replay().position() > at || s.predictions().pending().is_some(), "stepping works again");
}

#[test]
fn the_breakpoint_question_counts_stops_as_the_debugger_makes_them() {
    // A breakpoint on the def line stops when the function is entered (a call step);
    // one Python line that stands for several steps stops once.
    for (breakpoint, scenario) in
        [("run_main:1", "report"), ("ask_claude:4", "report"), ("ask_claude:3", "report")]
    {
        let mut s = session(scenario, breakpoint, true);
        let ask =
            s.predictions().questions().iter().find(|a| a.key.starts_with("breakpoint")).cloned().unwrap();
        // What the learner sees: Debug, then Continue until the end.
        let mut probe = session(scenario, breakpoint, false);
        let last = probe.replay().trace().steps.len() - 1;
        let mut stops = 0;
        probe.command(Command::Debug);
        while probe.replay().position() < last {
            stops += 1;
            probe.command(Command::Continue);
        }
        let said_yes = ask.answer == 0;
        assert_eq!(said_yes, stops > 0, "{breakpoint}: {}", ask.explain);
        if stops > 0 {
            assert!(
                ask.explain.contains(&format!("stops: {stops}")),
                "{breakpoint}: {stops} stops, {}",
                ask.explain
            );
        }
        s.command(Command::Debug);
    }
}

#[test]
fn a_changed_breakpoint_asks_its_question_again() {
    let mut s = session("report", "loop.save_results", true);
    s.command(Command::Debug);
    let first = s.predictions().pending().unwrap().clone();
    s.answer(first.answer).unwrap();
    while let Some(a) = s.predictions().pending().cloned() {
        s.answer(a.answer).unwrap();
    }
    s.command(Command::Reset);
    s.set_breakpoints("loop.ask");
    s.command(Command::Debug);
    let again = s.predictions().pending().expect("a question about the new breakpoint").clone();
    assert!(again.key.starts_with("breakpoint") && again.key != first.key, "{} vs {}", again.key, first.key);
}

#[test]
fn answers_given_in_a_what_if_run_do_not_count_for_the_lesson() {
    let mut s = session("report", "", true);
    let first = s.scenario().unwrap().localized(Lang::parse("en").unwrap()).model.to_vec();
    s.what_if(Some(&json!({"model": first}))).unwrap();
    s.command(Command::Run);
    let ask = s.predictions().pending().unwrap().clone();
    s.answer(ask.answer).unwrap();
    s.what_if(None).unwrap();
    assert_eq!(s.predictions().score(), (0, 0));
    s.command(Command::Run);
    assert_eq!(s.predictions().pending().map(|a| a.key.clone()), Some(ask.key), "the lesson asks it again");
}

#[test]
fn an_unchanged_reply_follows_the_language_in_a_what_if_run() {
    let mut s = session("report", "", false);
    let en = s.scenario().unwrap().localized(Lang::parse("en").unwrap()).model.to_vec();
    s.what_if(Some(&json!({ "model": en }))).unwrap();
    assert_eq!(
        s.what_if_state().comparison.as_ref().unwrap().parts_at,
        None,
        "the same replies: the same run"
    );
    s.set_lang(Lang::parse("zh").unwrap()).unwrap();
    assert_eq!(
        s.what_if_state().comparison.as_ref().unwrap().parts_at,
        None,
        "still the same run in Chinese"
    );
}

#[test]
fn a_fetched_file_is_checked_like_check_does_and_replacing_the_shown_one_leaves_what_if() {
    let mut raw: Value =
        serde_json::from_str(&std::fs::read_to_string("fixtures/scenarios/report.json").unwrap()).unwrap();
    raw["id"] = json!("mine");
    raw["questions"][0]["at"] = json!("loop.save_respons");
    let options =
        Options { files: vec![("lessons/mine.json".into(), Ok(raw.to_string()))], ..Options::default() };
    let s = Session::new(Box::new(FixtureDoubles), &options).unwrap();
    let entry = s.catalogue().entries().iter().find(|e| e.file == "lessons/mine.json").unwrap();
    let problems = entry.parsed.as_ref().expect_err("a question on an unknown label is refused");
    assert_eq!(problems[0].field, "questions[0].at");

    let mut s = session("report", "", false);
    let first = s.scenario().unwrap().localized(Lang::parse("en").unwrap()).model[0].clone();
    s.what_if(Some(&json!({"model": [first]}))).unwrap();
    let report = std::fs::read_to_string("fixtures/scenarios/report.json").unwrap();
    s.add_file("lessons/report.json", Scenario::parse(&report), Some(&report)).unwrap();
    assert!(s.what_if_state().changed.is_none(), "a new version of the scenario on screen ends what-if");
}

#[test]
fn a_question_opens_on_arrival_at_its_line_before_the_caption_could_tell() {
    // Stepping one line at a time: the learner never sits on a question's line
    // with the question closed.
    let mut s = session("limit", "", true);
    let mut asked = Vec::new();
    for _ in 0..200 {
        if let Some(a) = s.predictions().pending().cloned() {
            assert_eq!(s.replay().position(), a.step, "the question is about the line on screen");
            asked.push(a.key.clone());
            s.answer(a.answer).unwrap();
            continue;
        }
        let before = (s.replay().position(), s.replay().started());
        s.command(Command::StepInto);
        if (s.replay().position(), s.replay().started()) == before && s.predictions().pending().is_none() {
            break;
        }
        if s.predictions().pending().is_none() {
            let on_line = s
                .predictions()
                .questions()
                .iter()
                .find(|a| a.step == s.replay().position())
                .map(|a| a.key.clone());
            assert!(
                on_line.as_ref().is_none_or(|k| asked.contains(k)),
                "arrived on the line of {on_line:?} without its question"
            );
        }
    }
    assert!(asked.len() >= 3, "{asked:?}");
}

#[test]
fn debug_onto_a_breakpoint_on_the_first_line_asks_there_and_quotes_the_breakpoint() {
    let mut s = session("report", "run_loop:1", true);
    s.command(Command::Debug);
    let ask = s.predictions().pending().expect("asked at once").clone();
    assert!(ask.key.starts_with("breakpoint-"));
    assert_eq!(ask.about, Some((lesson_one::RUN_LOOP, 1)), "the question is about the breakpoint's line");
    let mut s = session("report", "ask_claude:4", true);
    s.command(Command::Debug);
    assert_eq!(s.predictions().pending().and_then(|a| a.about), Some((lesson_one::ASK_CLAUDE, 4)));
}

#[test]
fn the_lessons_score_survives_a_what_if_run_and_comes_back() {
    let mut s = session("report", "", true);
    s.command(Command::Run);
    let ask = s.predictions().pending().unwrap().clone();
    s.answer(ask.answer).unwrap();
    assert_eq!(s.predictions().score(), (1, 1));
    let replies = s.scenario().unwrap().localized(Lang::parse("en").unwrap()).model.to_vec();
    s.what_if(Some(&json!({ "model": replies }))).unwrap();
    assert_eq!(s.predictions().score(), (0, 0), "the changed run keeps its own score");
    s.what_if(None).unwrap();
    assert_eq!(s.predictions().score(), (1, 1), "the lesson's score is back");
}

#[test]
fn chinese_questions_have_no_space_beside_full_width_punctuation() {
    let zh = Lang::parse("zh").unwrap();
    for scenario in shipped() {
        let trace = record_scenario(&scenario);
        for a in questions(&scenario, &trace, zh, Code::Python, &[]).iter().filter(|a| !a.authored) {
            for text in a.choices.iter().chain([&a.text, &a.explain]) {
                let odd = ["） ", " （", " ，", " 。", " ：", "： "].iter().find(|p| text.contains(*p));
                assert!(odd.is_none(), "{}: {:?} in {text}", scenario.id, odd);
            }
        }
    }
}
