//! A recorded program has what the built-in lessons have beyond stepping
//! (lesson three's pack): predict-first asks the author's questions (the
//! manifest's and the scenario files', written into the pack) on the stop
//! their label and occurrence name, in the reader's language, and asks how
//! the run ends with the endings of the pack's runs (and the other way to
//! end when they all end alike: the record tests' good pack); the figure
//! draws the tool results a loop has collected until they are appended,
//! and the request in flight at the stop each request is sent from, with
//! the tools and max_tokens the pack kept; every word the page adds to a
//! recorded run comes from the language tables (the pseudo-locale of
//! tests/i18n.rs). A pack recorded before questions, tools and max_tokens
//! were kept still opens; one whose questions are not in their shape is
//! refused.
//!
//! (No program name is written here: labels, steps and texts come from the
//! pack.)

#![cfg(not(target_arch = "wasm32"))]

use agent_loop_core::debugger::Command;
use agent_loop_core::i18n::Lang;
use agent_loop_core::session::Session;
use agent_loop_playground::figure::{render_parts, Layout, Moment};
use serde_json::{json, Value};

#[path = "common/pseudo.rs"]
mod pseudo;

#[path = "common/lesson_three.rs"]
mod lesson_three;
use lesson_three::{pack, session_of, FILE, PACK};

/// The pack's scenarios, each with its id.
fn scenarios(pack: &Value) -> impl Iterator<Item = (&str, &Value)> {
    pack["scenarios"].as_array().unwrap().iter().map(|s| (s["id"].as_str().unwrap(), s))
}

/// The raw steps where a run stops on `label` (the first of each row of
/// steps on its line: a statement over several lines is one stop).
fn stops_on(pack: &Value, run: &Value, label: &str) -> Vec<usize> {
    let line = pack["labels"][label].as_u64().unwrap();
    let statements: Vec<(u64, u64)> = pack["statements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p[0].as_u64().unwrap(), p[1].as_u64().unwrap()))
        .collect();
    let shown =
        |l: u64| statements.iter().filter(|(a, b)| *a <= l && l <= *b).map(|(a, _)| *a).max().unwrap_or(l);
    let steps = run["steps"].as_array().unwrap();
    let place = |s: &Value| (s["function"].clone(), s["depth"].clone(), shown(s["line"].as_u64().unwrap()));
    let on = |s: &Value| s["event"] == "line" && shown(s["line"].as_u64().unwrap()) == shown(line);
    (0..steps.len())
        .filter(|&i| on(&steps[i]))
        .filter(|&i| i == 0 || !(steps[i - 1]["event"] == "line" && place(&steps[i - 1]) == place(&steps[i])))
        .collect()
}

/// Moves from the start with predictions on until `key`'s question waits,
/// answering every other one right; `None` when the run ends first.
fn until_asked(s: &mut Session, key: &str) -> Option<usize> {
    s.command(Command::Step);
    for _ in 0..500 {
        match s.predictions().pending().cloned() {
            Some(ask) if ask.key == key => return Some(ask.step),
            Some(ask) => {
                s.answer(ask.answer).unwrap();
            }
            None if s.replay().status() == "paused" => s.command(Command::Step),
            None => return None,
        }
    }
    None
}

#[test]
fn the_authors_questions_are_asked_on_their_labels_stop_in_the_readers_language() {
    let pack = pack();
    let mut asked = 0;
    for lang in ["zh", "en"] {
        for (id, scenario) in scenarios(&pack) {
            let questions = scenario["questions"].as_array().cloned().unwrap_or_default();
            for (i, q) in questions.iter().enumerate() {
                let run = &scenario["runs"][lang];
                let occurrence = q["occurrence"].as_u64().unwrap_or(1) as usize;
                let want = stops_on(&pack, run, q["at"].as_str().unwrap())[occurrence - 1];
                let mut s = session_of(lang, PACK);
                s.load(id).unwrap();
                s.set_predict(true);
                let step =
                    until_asked(&mut s, &format!("q{i}")).unwrap_or_else(|| panic!("{id} q{i} {lang}"));
                assert_eq!(step, want, "{id} q{i} {lang}: asked on the stop its label and occurrence name");
                assert_eq!(s.replay().position(), step, "the move waits on the question's line");
                let ask = s.predictions().pending().unwrap().clone();
                assert_eq!(ask.text, q["text"][lang].as_str().unwrap());
                assert_eq!(ask.explain, q["explain"][lang].as_str().unwrap());
                let right = q["choices"][q["answer"].as_u64().unwrap() as usize][lang].as_str().unwrap();
                assert_eq!(ask.choices[ask.answer], right, "{id} q{i} {lang}: the author's right choice");
                let wrong = (ask.answer + 1) % ask.choices.len();
                assert_eq!(s.answer(wrong).unwrap()["correct"], false);
                asked += 1;
            }
        }
    }
    assert!(asked >= 6, "lesson three's pack has questions in the manifest and in a scenario file: {asked}");
}

/// How a run of the pack ends, as the question's right choice says it.
fn ending(run: &Value, lang: Lang) -> String {
    let returned = &run["values"][run["end"]["returned"].as_u64().unwrap() as usize];
    let status = returned["status"].as_str().unwrap();
    lang.fill("recorded_end_status", &[("status", format!("\"{status}\""))])
}

#[test]
fn how_each_run_ends_is_asked_on_its_first_line_with_the_packs_endings() {
    let pack = pack();
    for code in ["zh", "en"] {
        let lang = Lang::parse(code).unwrap();
        let all: Vec<String> = scenarios(&pack).map(|(_, s)| ending(&s["runs"][code], lang)).collect();
        for (id, scenario) in scenarios(&pack) {
            let mut s = session_of(code, PACK);
            s.load(id).unwrap();
            s.set_predict(true);
            let step =
                until_asked(&mut s, "status").unwrap_or_else(|| panic!("{id} {code}: no ending question"));
            let first = s
                .replay()
                .trace()
                .steps
                .iter()
                .position(|st| st.event == agent_loop_core::trace::Event::Line);
            assert_eq!(Some(step), first, "{id} {code}: before the first line runs");
            let ask = s.predictions().pending().unwrap().clone();
            assert_eq!(ask.choices[ask.answer], ending(&scenario["runs"][code], lang), "{id} {code}");
            assert!(
                all.iter().all(|e| ask.choices.contains(e)),
                "{id} {code}: every ending of the pack: {ask:?}"
            );
            assert!(ask.choices.len() >= 2);
            let detail = s.answer(ask.answer).unwrap();
            assert_eq!(
                (detail["question"].as_str(), detail["correct"].as_bool()),
                (Some("status"), Some(true))
            );
            assert!(ask.explain.contains(&ask.choices[ask.answer]), "{}", ask.explain);
        }
    }
}

/// The figure's three drawings at `position` of the run on screen.
fn drawn(s: &Session, position: usize) -> [String; 3] {
    render_parts(&Moment::at(s.replay().trace(), position, s.lang(), Layout::WIDE))
}

#[test]
fn collected_tool_results_are_drawn_below_the_record_until_they_are_appended() {
    let pack = pack();
    let mut seen = 0;
    for (id, scenario) in scenarios(&pack) {
        let s = {
            let mut s = session_of("en", PACK);
            s.load(id).unwrap();
            s
        };
        let trace = s.replay().trace();
        for (i, pair) in trace.steps.windows(2).enumerate() {
            let (before, after) = (pair[0].record_len as usize, pair[1].record_len as usize);
            let Some(appended) = trace.record.get(before).filter(|_| after > before) else { continue };
            let Some(results) = appended["content"].as_array().filter(|c| c[0]["type"] == "tool_result")
            else {
                continue;
            };
            let [_, _, staged] = drawn(&s, i);
            for r in results {
                let id = r["tool_use_id"].as_str().unwrap();
                assert!(
                    staged.contains(id),
                    "{id} at step {i}: the results are drawn before they are appended"
                );
            }
            // (is_error is drawn as the program wrote it, and not where it wrote none)
            let flagged = results.iter().filter(|r| r.get("is_error").is_some()).count();
            assert_eq!(staged.matches("is_error=").count(), flagged, "{id} step {i}: {staged}");
            assert!(staged.contains("results (tool results collected"), "named by its local: {staged}");
            assert_eq!(drawn(&s, i + 1)[2], "", "{id} step {}: appended, they are the record's", i + 1);
            seen += 1;
        }
        let never = scenario["runs"]["en"]["record"]
            .as_array()
            .unwrap()
            .iter()
            .all(|m| m["role"] != "user" || m["content"].is_string());
        assert_eq!(
            never,
            (0..trace.steps.len()).all(|i| drawn(&s, i)[2].is_empty()),
            "{id}: staged only in runs with results"
        );
    }
    assert!(seen >= 6, "{seen}");
}

#[test]
fn the_request_in_flight_is_drawn_at_the_stop_it_is_sent_from() {
    let pack = pack();
    for code in ["zh", "en"] {
        for (id, scenario) in scenarios(&pack) {
            let requests = scenario["runs"][code]["requests"].as_array().unwrap();
            let mut s = session_of(code, PACK);
            s.load(id).unwrap();
            let title = s.lang().word("recorded_flight");
            let mut stops = Vec::new();
            s.command(Command::StepInto);
            while s.replay().status() == "paused" {
                stops.push(s.replay().position());
                s.command(Command::StepInto);
            }
            // The stop that holds each request's step draws it.
            let holding = |step: usize| stops.iter().copied().filter(|&p| p <= step).max().unwrap();
            let sent: Vec<usize> =
                requests.iter().map(|r| holding(r["step"].as_u64().unwrap() as usize)).collect();
            assert!(!sent.is_empty(), "{id}: a scenario file's run sends requests");
            for (k, &stop) in sent.iter().enumerate() {
                let [head, _, _] = drawn(&s, stop);
                let r = &requests[k];
                assert!(head.contains(title), "{id} {code} request {k} at {stop}");
                let tools: Vec<&str> =
                    r["tools"].as_array().unwrap().iter().map(|t| t.as_str().unwrap()).collect();
                assert!(head.contains(&format!("tools: [{}]", tools.join(", "))), "{head}");
                assert!(head.contains(&format!("max_tokens: {}", r["max_tokens"])), "{head}");
                assert_eq!(r["messages"].as_u64(), Some(s.replay().trace().steps[stop].record_len as u64));
                // The reply before is forgotten while the new request waits; the next stop reads its own.
                assert!(!head.contains("stop_reason:"), "{id} {code} request {k}: {head}");
                let next = stops.iter().copied().find(|&p| p > stop).unwrap();
                assert!(drawn(&s, next)[0].contains("stop_reason:"), "{id} {code} after request {k}");
            }
            for &stop in stops.iter().filter(|p| !sent.contains(p)) {
                assert!(!drawn(&s, stop)[0].contains(title), "{id} {code}: nothing in flight at {stop}");
            }
        }
    }
}

#[test]
fn a_pack_recorded_before_questions_and_the_requests_contents_were_kept_still_opens() {
    let mut old = pack();
    for scenario in old["scenarios"].as_array_mut().unwrap() {
        scenario.as_object_mut().unwrap().remove("questions");
        for run in scenario["runs"].as_object_mut().unwrap().values_mut() {
            for r in run["requests"].as_array_mut().unwrap() {
                *r = json!({"step": r["step"], "refused": r["refused"]});
            }
        }
    }
    let mut s = session_of("en", &old.to_string());
    assert!(s.notices().is_empty());
    s.load("refund-over").unwrap();
    s.set_predict(true);
    assert!(s.predictions().questions().iter().all(|q| !q.authored), "no authored question left");
    let step = old["scenarios"][2]["runs"]["en"]["requests"][0]["step"].as_u64().unwrap() as usize;
    let [head, _, _] = drawn(&s, step);
    assert!(head.contains(s.lang().word("recorded_flight")) && !head.contains("max_tokens"), "{head}");
}

#[test]
fn a_pack_whose_questions_are_not_in_their_shape_is_refused() {
    let mut bad = pack();
    bad["scenarios"][2]["questions"][0]["choices"] = json!(["only one"]);
    let s = session_of("en", &bad.to_string());
    let en = Lang::parse("en").unwrap();
    let said: Vec<String> = s.notices().iter().map(|n| n.text(en)).collect();
    assert!(said.join(" ").contains("scenarios[2].questions[0].choices"), "{said:?}");
    assert_ne!(s.state()["program"], FILE, "nothing of it is shown");
}

#[test]
fn a_run_whose_functions_runs_all_end_alike_is_weighed_against_the_other_way_to_end() {
    // (the record tests' good pack: three entry functions, one scenario each)
    let text = include_str!("../cli/tests/record/good.pack.json");
    let pack: Value = serde_json::from_str(text).unwrap();
    let en = Lang::parse("en").unwrap();
    for (id, scenario) in scenarios(&pack) {
        let run = &scenario["runs"]["en"];
        let returned = &run["values"][run["end"]["returned"].as_u64().unwrap() as usize];
        // (a value without a status is said as Python writes it: runs that
        // return different texts are told apart)
        let ending = match returned["status"].as_str() {
            Some(status) => en.fill("recorded_end_status", &[("status", format!("\"{status}\""))]),
            None => en.fill("recorded_end_value", &[("value", agent_loop_core::vocab::py_repr(returned))]),
        };
        let mut s = session_of("en", text);
        s.load(id).unwrap();
        s.set_predict(true);
        until_asked(&mut s, "status").unwrap_or_else(|| panic!("{id}: no ending question"));
        let ask = s.predictions().pending().unwrap().clone();
        let mut choices = ask.choices.clone();
        choices.sort();
        let mut want = vec![ending.clone(), en.word("recorded_end_raised_any").to_string()];
        want.sort();
        assert_eq!(choices, want, "{id}");
        assert_eq!(ask.choices[ask.answer], ending, "{id}");
    }
}

/// Runs of one function that return different values (an author's loop
/// that returns the reply's text) are as many choices, each the value as
/// Python writes it, not one "returns a value" for all; the record
/// returned is said as the locals say it.
#[test]
fn runs_that_return_different_values_are_told_apart() {
    let text = include_str!("../cli/tests/record/good.pack.json");
    let mut pack: Value = serde_json::from_str(text).unwrap();
    let scenarios = pack["scenarios"].as_array_mut().unwrap();
    let at = scenarios.iter().position(|s| s["id"] == "count").unwrap();
    let mut other = scenarios[at].clone();
    other["id"] = json!("count-again");
    let returned = other["runs"]["en"]["end"]["returned"].as_u64().unwrap() as usize;
    let mut whole = other.clone();
    other["runs"]["en"]["values"][returned] = json!("counted it's three");
    scenarios.push(other);
    // (a loop that returns its record: said as the locals say it)
    whole["id"] = json!("count-record");
    whole["runs"]["en"]["values"][returned] = json!(agent_loop_core::preview::record_ref(4));
    scenarios.push(whole);
    let en = Lang::parse("en").unwrap();
    let mut s = session_of("en", &pack.to_string());
    s.load("count-again").unwrap();
    s.set_predict(true);
    until_asked(&mut s, "status").expect("an ending question");
    let ask = s.predictions().pending().unwrap().clone();
    let mut choices = ask.choices.clone();
    choices.sort();
    let said = |value: &str| en.fill("recorded_end_value", &[("value", value.to_string())]);
    let record = en.fill("record_ref", &[("n", "4".to_string())]);
    assert_eq!(choices, vec![said("\"counted it's three\""), said(&record), said("None")]);
    assert_eq!(ask.choices[ask.answer], said("\"counted it's three\""));
}

#[test]
fn a_pseudo_locale_reaches_every_word_the_page_adds_to_a_recorded_run() {
    let xx = pseudo::pseudo_locale();
    let pack = pack();
    let (mut found, mut asked) = (Vec::new(), 0);
    let mut s = session_of("xx", PACK);
    s.set_predict(true);
    for (id, _) in scenarios(&pack) {
        s.load(id).unwrap();
        let trace = s.replay().trace();
        for position in 0..trace.steps.len() {
            let place = format!("{id} step {position}");
            let moment = Moment { lang: xx, ..Moment::at(trace, position, xx, Layout::WIDE) };
            pseudo::check(
                &format!("{place} figure"),
                &agent_loop_playground::figure::render(&moment),
                &mut found,
            );
            // (a marked line's caption is the author's, in the author's words)
            let label = trace.steps[position].label;
            if pack["captions"].get(label).is_none() {
                let (title, body) = agent_loop_core::lesson::caption(xx, trace, position);
                let esc = agent_loop_playground::markup::esc;
                pseudo::check(
                    &format!("{place} caption"),
                    &format!("<p>{}</p><p>{}</p>", esc(&title), esc(&body)),
                    &mut found,
                );
            }
        }
        for ask in s.predictions().questions().iter().filter(|a| !a.authored) {
            let answer = agent_loop_core::session::Answer { key: ask.key.clone(), choice: 0, correct: false };
            let panel = agent_loop_playground::explore::predict_panel(
                Some(ask),
                None,
                Some((ask, &answer)),
                (0, 1),
                xx,
            );
            pseudo::check(&format!("{id} question {}", ask.key), &panel, &mut found);
            asked += 1;
        }
    }
    assert!(asked >= 7, "every scenario's ending, at least: {asked}");
    found.dedup();
    assert!(found.is_empty(), "hard-coded words:\n{}", found[..found.len().min(30)].join("\n"));
}

#[test]
fn an_ending_question_offers_at_most_six_choices_the_right_one_among_them() {
    // (lesson three's seven scenarios, each made to end with a status of its own)
    let mut pack = pack();
    for (k, scenario) in pack["scenarios"].as_array_mut().unwrap().iter_mut().enumerate() {
        for lang in ["zh", "en"] {
            let run = &mut scenario["runs"][lang];
            let values = run["values"].as_array_mut().unwrap();
            values.push(json!({ "status": format!("ending-{k}") }));
            let at = values.len() - 1;
            run["end"] = json!({ "returned": at });
        }
    }
    let text = pack.to_string();
    let mut asked = 0;
    for (k, (id, _)) in scenarios(&pack).enumerate() {
        let mut s = session_of("en", &text);
        s.load(id).unwrap();
        s.set_predict(true);
        until_asked(&mut s, "status").unwrap_or_else(|| panic!("{id}: no ending question"));
        let ask = s.predictions().pending().unwrap().clone();
        assert!(ask.choices.len() <= 6, "{id}: {:?}", ask.choices);
        assert!(ask.choices[ask.answer].contains(&format!("\"ending-{k}\"")), "{id}: {:?}", ask.choices);
        asked += 1;
    }
    assert_eq!(asked, 7);
}

#[test]
fn a_run_without_its_record_local_draws_no_record_and_the_record_is_named_as_the_pack_names_it() {
    // (the record tests' good pack: `count` keeps no `messages` at all)
    let text = include_str!("../cli/tests/record/good.pack.json");
    for lang in ["zh", "en"] {
        let l = Lang::parse(lang).unwrap();
        let mut s = session_of(lang, text);
        s.load("count").unwrap();
        let [head, record, _] = drawn(&s, 0);
        let figure = format!("{head}{record}");
        assert!(!figure.contains(l.word("empty_record")), "{lang}: {figure}");
        assert!(figure.contains(&l.fill("no_record", &[("name", "messages".into())])), "{lang}: {figure}");
        // The figure's text alternative says the same.
        let said = agent_loop_playground::figure::text_alternative(s.replay().trace(), 0, l);
        assert!(said.contains(&l.fill("no_record", &[("name", "messages".into())])), "{lang}: {said}");
        // A pack whose record is called otherwise is drawn under that name.
        let renamed = text
            .replace("\"record\": \"messages\"", "\"record\": \"history\"")
            .replace("\"messages\":", "\"history\":");
        let mut s = session_of(lang, &renamed);
        s.load("weather").unwrap();
        let [head, record, _] = drawn(&s, s.replay().trace().steps.len() - 1);
        assert!(format!("{head}{record}").contains("history"), "{lang}");
    }
}
