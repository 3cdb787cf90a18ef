//! The step view: every decision about what the page shows for a step is
//! made in the core, where these tests read it (the page only writes it).
//!
//! Lessons tested: lesson_one.

use agent_loop_core::debugger::Command;
use agent_loop_core::i18n::Lang;
use agent_loop_core::lesson;
use agent_loop_core::session::{FixtureDoubles, Options, Session};
use agent_loop_core::step_view::{comparison_places, question_line, step_view};
use agent_loop_core::vocab::Code;
use serde_json::json;

fn session(scenario: &str, lang: &str, predict: bool) -> Session {
    let options = Options { scenario: scenario.into(), lang: lang.into(), predict, ..Options::default() };
    Session::new(Box::new(FixtureDoubles), &options).unwrap()
}

#[test]
fn before_the_start_the_view_names_the_scenario_and_nothing_runs() {
    let s = session("report", "en", false);
    let v = step_view(&s);
    assert!(!v.started);
    assert_eq!((v.current, v.locals.clone(), v.output_len), (None, None, 0));
    assert_eq!(v.caption.0, s.scenario().unwrap().title("en"));
    assert_eq!(
        v.counter,
        Lang::parse("en").unwrap().fill("step_counter", &[("n", "0".into()), ("total", v.total.to_string())])
    );
    assert_eq!(v.status, "ready");
}

#[test]
fn the_caption_waits_while_a_question_does() {
    let mut s = session("report", "zh", true);
    for _ in 0..500 {
        if s.predictions().pending().is_some() {
            break;
        }
        s.command(Command::Step);
    }
    assert!(s.predictions().pending().is_some(), "report asks something on the way");
    let zh = Lang::parse("zh").unwrap();
    let v = step_view(&s);
    assert_eq!(
        v.caption,
        (zh.word("caption_predict_title").to_string(), zh.word("caption_predict").to_string())
    );
    assert_ne!(
        v.caption,
        lesson::caption(zh, s.replay().trace(), s.replay().position()),
        "the caption would give it away"
    );
    assert!(v.live.contains(&v.caption.0), "{}", v.live);
    s.answer(0).unwrap();
    let v = step_view(&s);
    assert_eq!(v.caption, lesson::caption(zh, s.replay().trace(), s.replay().position()));
}

#[test]
fn the_python_listing_shows_only_the_locals_the_python_has() {
    let mut s = session("report", "en", false);
    let (mut dropped, mut moved) = (false, false);
    s.command(Command::Step);
    for _ in 0..s.replay().trace().steps.len() {
        let step = *s.replay().step().unwrap();
        let python = step_view(&s).locals.unwrap();
        let names = lesson::python_names(step.function);
        for key in python.as_object().unwrap().keys() {
            assert!(key == "return" || names.contains(key), "{key} at {}", step.label);
        }
        s.set_code(Code::Rust);
        let rust = step_view(&s).locals.unwrap();
        assert_eq!(rust, s.replay().trace().locals_json(&step), "the Rust shows every local");
        dropped |= rust.as_object().unwrap().len() > python.as_object().unwrap().len();
        // The line on screen is a line of the listing shown, of the step's function.
        let (f, rust_line) = step_view(&s).current.unwrap();
        assert_eq!(f, step.function);
        let rust_text = lesson::listing_in(Code::Rust, f).line(rust_line).unwrap().text;
        s.set_code(Code::Python);
        let (_, python_line) = step_view(&s).current.unwrap();
        let python_text = lesson::listing_in(Code::Python, f).line(python_line).unwrap().text;
        moved |= rust_line != python_line;
        assert!(!python_text.contains("before!(") && !rust_text.trim().is_empty(), "{}", step.label);
        s.command(Command::Step);
    }
    assert!(dropped, "some Rust local has no Python name in report");
    assert!(moved, "the two listings number some line differently, so the view follows the listing");
}

#[test]
fn the_stack_output_and_end_follow_the_run() {
    let mut s = session("report", "en", false);
    s.command(Command::Step);
    for _ in 0..100 {
        if s.replay().step().unwrap().depth > 0 {
            break;
        }
        s.command(Command::StepInto);
    }
    let v = step_view(&s);
    assert_eq!(v.stack, format!("run_loop › {}", s.replay().step().unwrap().function.name()));
    s.command(Command::Run);
    let v = step_view(&s);
    assert!(v.at_end);
    assert_eq!((v.output_len, v.status.as_str()), (s.replay().trace().output.len(), "answered"));
}

#[test]
fn a_refused_edit_is_said_in_the_readers_language() {
    let mut s = session("report", "zh", false);
    assert!(step_view(&s).edit_problems.is_empty());
    assert!(s.what_if(Some(&json!({"model": []}))).is_err());
    let zh = Lang::parse("zh").unwrap();
    assert_eq!(step_view(&s).edit_problems, [format!("model：{}", zh.word("edit_empty"))]);
    s.set_lang(Lang::parse("en").unwrap()).unwrap();
    let en = Lang::parse("en").unwrap();
    assert_eq!(step_view(&s).edit_problems, [format!("model: {}", en.word("edit_empty"))]);
}

#[test]
fn a_waiting_question_quotes_the_line_it_is_about() {
    let mut s = session("report", "en", true);
    assert_eq!(question_line(&s), None, "no question before the start");
    while s.predictions().pending().is_none() && !step_view(&s).at_end {
        s.command(Command::Step);
    }
    let ask = s.predictions().pending().expect("report asks on the way").clone();
    let (function, n, text) = question_line(&s).unwrap();
    let step = &s.replay().trace().steps[ask.step];
    let expected = ask.about.unwrap_or((step.function, lesson::line_in(Code::Python, step)));
    assert_eq!((function, n), expected);
    let listed = lesson::listing_in(Code::Python, function).lines.iter().find(|l| l.number == Some(n));
    assert_eq!(text, listed.unwrap().text.trim());
    assert!(!text.is_empty(), "a question stops on a line with code");
    s.set_code(Code::Rust);
    let (_, rust_n, rust_text) = question_line(&s).unwrap();
    assert_ne!((rust_n, rust_text), (n, text), "the Rust listing quotes its own line");
}

#[test]
fn the_comparison_places_both_runs_where_they_part_and_in_lockstep() {
    let mut s = session("report", "en", false);
    assert_eq!(comparison_places(&s), None, "no comparison without a changed version");
    let first = s.scenario().unwrap().localized(Lang::parse("en").unwrap()).model[0].clone();
    s.what_if(Some(&json!({"model": [first]}))).unwrap();
    let places = comparison_places(&s).unwrap();
    let parts = s.what_if_state().comparison.as_ref().unwrap().parts_at.expect("one reply parts somewhere");
    assert_eq!(places.position, None, "not started");
    assert_eq!(places.lesson_here, None);
    let changed = &s.replay().trace().steps[parts];
    assert_eq!(places.parting.1, Some((changed.label, lesson::line_in(Code::Python, changed))));
    assert_eq!(places.parting.0, s.what_if_state().lesson_step(parts, s.replay().code()));
    assert_ne!(places.parting.0, places.parting.1, "they part there");
    s.command(Command::Step);
    let places = comparison_places(&s).unwrap();
    assert_eq!(places.position, Some(0));
    assert_eq!(places.here, places.lesson_here, "the first step is the same in both runs");
}

#[test]
fn the_comparison_says_what_each_run_goes_on_to_do_where_they_part() {
    let mut s = session("report", "en", false);
    let en = Lang::parse("en").unwrap();
    let mut replies = s.scenario().unwrap().localized(en).model.to_vec();
    replies[1] = json!({"stop_reason": "max_tokens", "content": [{"type": "text", "text": "Half a"}]});
    s.what_if(Some(&json!({ "model": replies }))).unwrap();
    let places = comparison_places(&s).unwrap();
    let (lesson, changed) = places.doing.clone().expect("they part, each doing something");
    let c = s.what_if_state().comparison.clone().unwrap();
    let lesson_run = s.what_if_state().lesson_run.as_ref().unwrap();
    assert_eq!(lesson, lesson::caption(en, lesson_run, c.lesson_at.unwrap()).0);
    assert_eq!(changed, lesson::caption(en, s.replay().trace(), c.parts_at.unwrap()).0);
    let html = agent_loop_playground::explore::compare(&c, &places, en);
    let said = format!("The lesson's run goes on with “{lesson}”, yours with “{changed}”.");
    assert!(html.contains(&said.replace('\'', "&#39;")), "{said}\n{html}");
}

#[test]
fn a_frame_that_raises_is_captioned_as_raising_and_the_output_ends_as_python_s_traceback() {
    for (scenario, stage, printed) in [
        ("model-throws-first", "ask.raised", None),
        ("max-calls-zero", "loop.raised", Some("ValueError: max_calls 至少为 1，收到的是 0")),
    ] {
        let mut s = session(scenario, "zh", false);
        s.command(Command::Run);
        let trace = s.replay().trace();
        let at = trace.steps.iter().position(|st| st.label == "raise").expect("a raise step");
        s.seek(at);
        let zh = Lang::parse("zh").unwrap();
        assert_eq!(step_view(&s).caption.0, zh.caption(stage).unwrap().0, "{scenario}");
        assert!(!step_view(&s).caption.1.contains('{'), "{scenario}: {}", step_view(&s).caption.1);
        if let Some(line) = printed {
            assert_eq!(s.replay().trace().printed, [line], "{scenario}");
        }
    }
    // A timeout is quoted as the code writes it: 3, not 3.0.
    let mut s = session("timeout", "zh", false);
    s.command(Command::Run);
    let trace = s.replay().trace();
    let at = trace.steps.iter().position(|st| st.label == "main.timeout").unwrap();
    let (_, body) = lesson::caption(Lang::parse("zh").unwrap(), trace, at);
    assert!(body.contains("timeout=3（秒）") && !body.contains("3.0"), "{body}");
}

#[test]
fn a_what_if_run_keeps_the_place_with_nothing_new_or_says_why_it_starts_over() {
    let mut s = session("report", "en", false);
    let en = Lang::parse("en").unwrap();
    let mut replies = s.scenario().unwrap().localized(en).model.to_vec();
    replies[1] = json!({"stop_reason": "max_tokens", "content": []});
    // Before the runs part: the same step, and nothing on it is "new".
    for _ in 0..20 {
        s.command(Command::Step);
    }
    let was = s.replay().position();
    s.what_if(Some(&json!({ "model": replies.clone() }))).unwrap();
    assert_eq!(s.replay().position(), was, "the place is kept");
    assert_eq!(s.replay().previous_len(), s.replay().record_len(), "nothing is new at a kept place");
    assert_eq!(comparison_places(&s).unwrap().restart, None);
    // Past the parting (at the end of the lesson's run): over, with the reason.
    s.what_if(None).unwrap();
    s.command(Command::Run);
    let end = s.replay().position();
    s.what_if(Some(&json!({ "model": replies.clone() }))).unwrap();
    assert!(!s.replay().started(), "the new run starts over");
    assert_eq!(comparison_places(&s).unwrap().restart, Some((end, "compare_restart_parted")));
    // From one changed version to another that walks the same steps: kept.
    for _ in 0..20 {
        s.command(Command::Step);
    }
    let was = s.replay().position();
    let mut other = replies.clone();
    other[1] = json!({"stop_reason": "end_turn", "content": [{"type": "text", "text": "Done."}]});
    s.what_if(Some(&json!({ "model": other.clone() }))).unwrap();
    assert_eq!(s.replay().position(), was, "the same steps so far: the place is kept");
    assert_eq!(comparison_places(&s).unwrap().restart, None);
    // Past the step where the new version takes another road: over, and said so.
    s.command(Command::Run);
    s.what_if(Some(&json!({ "model": replies }))).unwrap();
    assert!(!s.replay().started(), "the new version parts before the learner's step");
    assert_eq!(comparison_places(&s).unwrap().restart.map(|r| r.1), Some("compare_restart_version"));
    s.what_if(None).unwrap();
    assert_eq!(s.what_if_state().restart, None, "back to the lesson: nothing to explain");
}

#[test]
fn the_figure_marks_the_part_the_caption_is_about() {
    use agent_loop_core::programs::Part;
    use agent_loop_playground::figure;
    let mut s = session("report", "en", false);
    let mut seen = Vec::new();
    loop {
        s.command(Command::Step);
        let view = step_view(&s);
        let trace = s.replay().trace();
        let moment = figure::Moment {
            part: view.part,
            ..figure::Moment::at(trace, view.position, s.lang(), figure::Layout::WIDE)
        };
        let [head, record, _] = figure::render_parts(&moment);
        let label = trace.steps[view.position].label;
        match view.part {
            Part::Reason => assert!(
                head.contains("alp-chip-reason alp-on") || !head.contains("alp-chip-reason"),
                "{label}"
            ),
            Part::Calls => assert!(head.contains("alp-chip-calls alp-on"), "{label}"),
            Part::Status => {
                let at = head.find(r#"class="alp-chip alp-status"#).expect("a status chip");
                let class = head[at + 7..].split('"').next().unwrap();
                assert!(class.ends_with(" alp-on"), "{label}: {class}");
            }
            Part::Record => assert!(record.contains(r#"class="alp-on""#), "{label}"),
            _ => {}
        }
        let marks = head.matches("alp-on").count() + record.matches("alp-on").count();
        assert!(marks <= 1, "{label}: one part marked at a time");
        seen.push(view.part);
        if view.at_end {
            break;
        }
    }
    for part in [Part::Calls, Part::Reason, Part::Status, Part::Record, Part::Staged] {
        assert!(seen.contains(&part), "report's run has a {part:?} stage");
    }
}

#[test]
fn an_english_count_agrees_with_its_noun() {
    let en = Lang::parse("en").unwrap();
    let said = |n: &str| agent_loop_core::i18n::fill("all {n:message}, {n}", |_| Some(n.to_string()));
    assert_eq!(
        [said("1"), said("2"), said("0")],
        ["all 1 message, 1", "all 2 messages, 2", "all 0 messages, 0"]
    );
    assert_eq!(en.fill("folded", &[("n", "1".into())]), "… 1 message folded …");
}

#[test]
fn every_shipped_scenario_s_own_replies_and_outcome_pass_the_edit_check() {
    use agent_loop_core::scenario::load_shipped;
    let en = Lang::parse("en").unwrap();
    for scenario in load_shipped().into_iter().filter_map(|(_, p)| p.ok()) {
        let mut s = session(&scenario.id, "en", false);
        let shown = scenario.localized(en);
        let mut edit = serde_json::Map::new();
        if !shown.model.is_empty() {
            edit.insert("model".into(), json!(shown.model[..]));
        }
        if let Some(process) = scenario.raw.get("process") {
            edit.insert("process".into(), process.clone());
        }
        if edit.is_empty() {
            continue;
        }
        let said = s.what_if(Some(&serde_json::Value::Object(edit)));
        assert!(said.is_ok(), "{}: {said:?}", scenario.id);
    }
    // A misspelt field of an outcome is named, not passed over.
    let mut s = session("error", "en", false);
    let bad = s.what_if(Some(&json!({"process": {"returncode": 0, "stdot": "hi"}}))).unwrap_err();
    assert!(bad.iter().any(|p| p.field == "process.stdot"), "{bad:?}");
}

/// The phone's record button: it counts the record the figure draws, and
/// marks exactly the moves that made it longer (a Step, a Continue past
/// several appends), never a move back.
#[test]
fn the_record_count_marks_the_moves_that_added_a_message() {
    let mut s = session("report", "en", false);
    assert_eq!((step_view(&s).record_len, step_view(&s).record_grew), (0, false));
    s.command(Command::Debug);
    let (mut grew, mut steps) = (0, 0);
    let mut before = step_view(&s).record_len;
    while s.replay().position() + 1 < s.replay().trace().steps.len() && steps < 500 {
        s.command(Command::StepInto);
        let v = step_view(&s);
        assert_eq!(v.record_len, s.replay().record_len());
        assert_eq!(v.record_grew, v.record_len > before, "step {}: {before} → {}", v.position, v.record_len);
        grew += usize::from(v.record_grew);
        before = v.record_len;
        steps += 1;
    }
    assert!(grew >= 3, "report appends at least three messages one step at a time: {grew}");
    s.command(Command::Back);
    assert!(!step_view(&s).record_grew, "a move back adds nothing");
    s.command(Command::Reset);
    s.command(Command::Debug);
    s.command(Command::Continue);
    let v = step_view(&s);
    assert!(
        v.record_len >= 4 && v.record_grew,
        "Continue to the end adds messages at once: {}",
        v.record_len
    );
}

#[test]
fn a_breakpoint_says_how_many_times_the_run_has_stopped_on_it() {
    // The lesson's breakpoint on `response = ask(messages)` is hit once per
    // model call: report makes two.
    let mut s = session("report", "zh", false);
    s.set_breakpoints("loop.ask");
    s.command(Command::Debug);
    let zh = Lang::parse("zh").unwrap();
    let said = |n: usize, v: &agent_loop_core::step_view::StepView| {
        let plain =
            zh.fill("step_counter", &[("n", (v.position + 1).to_string()), ("total", v.total.to_string())]);
        zh.fill("step_counter_hit", &[("counter", plain), ("hits", n.to_string())])
    };
    let v = step_view(&s);
    assert_eq!(v.breakpoint_hits, Some(1));
    assert_eq!(v.counter, said(1, &v));
    s.command(Command::Step);
    let v = step_view(&s);
    assert_eq!(v.breakpoint_hits, None, "a step off the breakpoint counts nothing");
    assert!(!v.counter.contains(" · "), "{}", v.counter);
    s.command(Command::Continue);
    let v = step_view(&s);
    assert_eq!((v.breakpoint_hits, v.counter.clone()), (Some(2), said(2, &v)));
    // Debug again from the top: the first stop counts as the first again.
    s.command(Command::Reset);
    s.command(Command::Debug);
    assert_eq!(step_view(&s).breakpoint_hits, Some(1));
}

#[test]
fn the_status_chip_says_paused_on_the_way_never_running() {
    // A learner is always paused at a line while the run is on the way.
    use agent_loop_playground::figure;
    for lang in ["zh", "en"] {
        let mut s = session("report", lang, false);
        s.command(Command::Step);
        let view = step_view(&s);
        let moment = figure::Moment::at(s.replay().trace(), view.position, s.lang(), figure::Layout::WIDE);
        let [head, _, _] = figure::render_parts(&moment);
        let l = Lang::parse(lang).unwrap();
        assert!(head.contains(l.word("status_paused")), "{lang}: {head}");
        assert!(!head.contains(if lang == "zh" { "运行中" } else { "running" }), "{lang}");
    }
}

#[test]
fn a_breakpoint_set_in_the_rust_counts_its_python_line_s_stops() {
    // In the Rust, `model.create` is a line of its own (ask.create); in the
    // Python it shares a line with ask.build. A breakpoint set there holds
    // only the second step of the Python line's stop, which still counts.
    let mut s = session("report", "en", false);
    s.set_code(Code::Rust);
    s.set_breakpoints("ask.create");
    s.set_code(Code::Python);
    s.command(Command::Debug);
    assert_eq!(s.replay().step().unwrap().label, "ask.create");
    assert_eq!(step_view(&s).breakpoint_hits, Some(1));
    s.command(Command::Continue);
    assert_eq!(step_view(&s).breakpoint_hits, Some(2));
}
