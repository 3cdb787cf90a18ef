//! Lesson two: the right loop and the loops the lesson warns about, run on
//! the same replies, part where the lesson says they part — and the API's
//! checks make the text-only loop fail where the lesson says "the next call
//! will fail".
//!
//! Lessons tested: lesson_one, lesson_two.

use agent_loop_core::lesson::{line_in, listing_shown};
use agent_loop_core::programs::lesson_two::{AGENT_LOOP, CAP_AS_BRAKE, KEEP_TEXT_ONLY, STOP_ON_TEXT};
use agent_loop_core::run::{record_scenario, Trace};
use agent_loop_core::scenario::{load_shipped, Scenario};
use agent_loop_core::session::{beside, counterpart, FixtureDoubles, Options, Session};
use agent_loop_core::vocab::{Code, Function};
use serde_json::json;

fn scenario(id: &str) -> Scenario {
    let file = format!("{id}.json");
    load_shipped().into_iter().find(|(f, _)| *f == file).and_then(|(_, s)| s.ok()).expect(id)
}

fn run(id: &str, function: Function) -> Trace {
    record_scenario(&Scenario { function, ..scenario(id) })
}

/// Where the two runs part: each one's label there and the text of its line
/// in the Python listing shown in English.
fn parting(id: &str, variant: Function) -> ((&'static str, String), (&'static str, String)) {
    let (right, wrong) = (run(id, AGENT_LOOP), run(id, variant));
    let (a, b) = beside(&right, &wrong).expect("the runs part");
    let place = |t: &Trace, i: usize| {
        let step = &t.steps[i];
        let n = line_in(Code::Python, step);
        let lang = agent_loop_core::i18n::Lang::parse("en").unwrap();
        let listing = listing_shown(Code::Python, step.function, lang);
        let text = listing.lines.iter().find(|l| l.number == Some(n)).map_or("", |l| l.text.trim());
        (step.label, text.to_string())
    };
    (place(&right, a), place(&wrong, b))
}

#[test]
fn a_reply_that_says_done_while_asking_for_a_tool_stops_the_text_loop_early() {
    let (right, wrong) = parting("core-says-done", STOP_ON_TEXT);
    assert_eq!(right.0, "core.save_reply", "the right loop saves the reply and goes on: {right:?}");
    assert_eq!(wrong, ("core.stop", "break".to_string()));
    let stopped = run("core-says-done", STOP_ON_TEXT);
    assert!(stopped.error.is_none());
    // The request for lookup_order is never answered.
    assert_eq!(stopped.record.len(), 1, "only the question: {:?}", stopped.record);
    assert_eq!(stopped.result["text"], "Done! Let me look that order up.");
}

#[test]
fn a_stream_that_never_says_done_sends_the_text_loop_on_until_the_api_refuses() {
    let (right, wrong) = parting("core-weather", STOP_ON_TEXT);
    assert_eq!(right.0, "core.stop");
    assert_eq!(wrong.0, "core.save_reply");
    let refused = run("core-weather", STOP_ON_TEXT);
    let error = refused.error.expect("the API refuses the empty user message");
    assert_eq!(error.kind, "bad_request");
    assert!(error.message.contains("all messages must have non-empty content"), "{}", error.message);
}

#[test]
fn a_cap_of_three_cuts_a_task_of_four_turns() {
    let (right, wrong) = parting("core-four-turns", CAP_AS_BRAKE);
    assert_eq!(right.0, "core.next_turn", "the right loop goes on to turn 4");
    assert_eq!(wrong.0, "core.final", "the brake reads a final text after turn 3");
    let cut = run("core-four-turns", CAP_AS_BRAKE);
    assert_eq!(cut.result["text"], "Checking order 3 of 4.", "cut-off work passed off as an answer");
    assert_eq!(run("core-four-turns", AGENT_LOOP).result["text"], "All four orders have shipped.");
}

#[test]
fn keeping_only_the_text_makes_the_next_request_fail_with_the_api_s_400() {
    for id in ["core-weather", "core-two-tools", "core-says-done", "core-four-turns"] {
        let t = run(id, KEEP_TEXT_ONLY);
        let error = t.error.as_ref().unwrap_or_else(|| panic!("{id}: the text-only loop must fail"));
        assert_eq!(error.kind, "bad_request", "{id}");
        assert!(error.message.starts_with("BadRequestError: Error code: 400 - "), "{id}: {}", error.message);
        // With text beside the tool_use, the saved text is kept and the
        // results name ids nobody asked for; with none, the saved turn is empty.
        let why = if id == "core-two-tools" {
            "messages.1: all messages must have non-empty content"
        } else {
            "messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks"
        };
        assert!(error.message.contains(why), "{id}: {}", error.message);
        // The right loop on the same replies is not refused.
        assert!(run(id, AGENT_LOOP).error.is_none(), "{id}");
    }
    // They part where the reply goes into the record: the whole content,
    // or only its text (the same length of record, another message).
    let (right, wrong) = parting("core-weather", KEEP_TEXT_ONLY);
    assert_eq!(right.0, "core.save_reply");
    assert_eq!(
        wrong,
        ("only.save_text", r#"messages.append({"role": "assistant", "content": text})"#.into())
    );
}

#[test]
fn the_same_run_beside_itself_never_parts() {
    let t = run("core-two-tools", AGENT_LOOP);
    assert_eq!(beside(&t, &run("core-two-tools", AGENT_LOOP)), None);
    // Both tool_use ids come back in one user message.
    let results = t.record[2]["content"].as_array().unwrap();
    let ids: Vec<&str> = results.iter().map(|r| r["tool_use_id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["toolu_01", "toolu_02"]);
}

#[test]
fn a_what_if_edit_runs_an_anti_pattern_beside_the_lesson_s_loop() {
    let options = Options { scenario: "core-weather".into(), lang: "en".into(), ..Options::default() };
    let mut s = Session::new(Box::new(FixtureDoubles), &options).expect("a session");
    s.what_if(Some(&json!({"function": "keep_text_only"}))).expect("a loop of the same lesson");
    let c = s.what_if_state().comparison.clone().expect("a comparison");
    assert_eq!(c.lesson.ending, "done");
    assert_eq!(c.changed.ending, "bad_request");
    assert_eq!((c.lesson.calls, c.changed.calls), (2, 2));
    assert_ne!(c.lesson_at, c.parts_at, "two programs part at different steps of each");
    let places = agent_loop_core::step_view::comparison_places(&s).unwrap();
    assert_eq!(places.parting.0.map(|p| p.0), Some("core.save_reply"));
    assert_eq!(places.parting.1.map(|p| p.0), Some("only.save_text"));
    // Another lesson's function, or no function at all, is refused by field.
    for bad in [json!({"function": "run_loop"}), json!({"function": 3})] {
        let problems = s.what_if(Some(&bad)).unwrap_err();
        assert_eq!(problems[0].field, "function", "{bad}");
    }
}

#[test]
fn a_learner_s_edit_that_breaks_the_record_gets_the_api_s_error() {
    // A learner turns the first reply into a cut-off one: the loop takes it
    // for a tool turn, appends an empty result list, and the API refuses.
    let options = Options { scenario: "core-weather".into(), lang: "en".into(), ..Options::default() };
    let mut s = Session::new(Box::new(FixtureDoubles), &options).expect("a session");
    let replies = json!([{"stop_reason": "max_tokens", "content": [{"type": "text", "text": "It is"}]},
                         {"stop_reason": "end_turn", "content": [{"type": "text", "text": "ok"}]}]);
    s.what_if(Some(&json!({"model": replies}))).expect("a valid edit");
    let c = s.what_if_state().comparison.clone().unwrap();
    assert_eq!(c.changed.ending, "bad_request", "an empty user message is refused");
}

#[test]
fn stepping_one_loop_names_where_the_other_stands() {
    let (right, wrong) = (run("core-weather", AGENT_LOOP), run("core-weather", KEEP_TEXT_ONLY));
    // Every step of the text-only loop the right loop has too stands beside
    // a step with the same label; one only it has, beside the last shared one.
    for (i, step) in wrong.steps.iter().enumerate() {
        let l = counterpart(&right, &wrong, i).expect("a step beside it");
        let shared = !step.label.starts_with("only.");
        if shared && step.event == agent_loop_core::trace::Event::Line {
            assert_eq!(right.steps[l].label, step.label, "step {i}");
        }
    }
    let saved = wrong.steps.iter().position(|s| s.label == "core.save_results").unwrap();
    let l = counterpart(&right, &wrong, saved).unwrap();
    assert_eq!(right.steps[l].label, "core.save_results");
    assert_ne!(l, saved, "the same place, not the same step number");
}

fn session(options: Options) -> Session {
    Session::new(Box::new(FixtureDoubles), &Options { lang: "en".into(), ..options }).expect("a session")
}

/// The figure at step `position` of the run on screen.
fn figure_at(s: &Session, position: usize) -> String {
    use agent_loop_playground::figure;
    figure::render(&figure::Moment::at(s.replay().trace(), position, s.lang(), figure::Layout::WIDE))
}

#[test]
fn a_refused_request_is_drawn_as_the_api_s_error_card_where_the_program_gets_it() {
    let mut s = session(Options { scenario: "core-weather".into(), ..Options::default() });
    let last = s.replay().trace().steps.len() - 1;
    assert!(!figure_at(&s, last).contains("api-error"), "the right loop is never refused");
    s.what_if(Some(&json!({"function": "keep_text_only"}))).unwrap();
    let last = s.replay().trace().steps.len() - 1;
    let card = figure_at(&s, last);
    assert!(card.contains(r#"data-role="api-error""#), "{card}");
    assert!(card.contains("400 · invalid_request_error"));
    // The API's own words, escaped once, not Python's repr of them.
    assert!(card.contains("unexpected `tool_use_id`"), "{card}");
    assert!(!card.contains("Error code: 400"), "the card shows the API's message, not the client's text");
    assert!(!figure_at(&s, last - 1).contains("api-error"), "before the request, nothing was refused");
}

#[test]
fn the_program_attribute_offers_one_lesson_and_state_names_it() {
    use agent_loop_playground::view;
    let s = session(Options { program: "lesson_two".into(), ..Options::default() });
    assert_eq!(s.state()["program"], "lesson_two");
    assert_eq!(s.state()["function"], "agent_loop", "a lesson-two scenario opens");
    let picker =
        view::picker(s.catalogue().entries(), s.catalogue().current(), s.catalogue().scope(), s.lang());
    assert!(picker.contains("core-weather") && !picker.contains(r#"value="report""#), "{picker}");
    // A scenario of the other lesson, or a program that is not one, is a notice.
    let s =
        session(Options { program: "lesson_two".into(), scenario: "report".into(), ..Options::default() });
    assert_eq!(s.state()["program"], "lesson_two");
    assert!(s.notices().iter().any(|n| n.key == "notice_scenario_program"), "{:?}", s.notices());
    let s = session(Options { program: "lesson_3".into(), ..Options::default() });
    let notice = s.notices().iter().find(|n| n.key == "notice_program").expect("a notice");
    assert!(notice.text(s.lang()).contains("lesson_one, lesson_two"), "{}", notice.text(s.lang()));
    // In Chinese the names are listed with 、
    let zh = agent_loop_core::i18n::Lang::parse("zh").unwrap();
    assert!(notice.text(zh).contains("lesson_one、lesson_two"), "{}", notice.text(zh));
    assert_eq!(s.state()["program"], "lesson_one", "every program is offered; lesson one opens");
}

#[test]
fn the_compare_attribute_opens_an_anti_pattern_beside_the_lesson_s_loop() {
    let s = session(Options {
        scenario: "core-says-done".into(),
        compare: "stop_on_text".into(),
        ..Options::default()
    });
    let state = s.state();
    assert_eq!(state["function"], "stop_on_text", "the variant is on screen");
    assert_eq!(state["compare"]["function"], "agent_loop", "the lesson's loop beside it");
    assert!(state["compare"]["partsAt"].is_u64() && state["compare"]["lessonPartsAt"].is_u64(), "{state}");
    assert!(s.notices().is_empty(), "{:?}", s.notices());
    // Another lesson's function beside a lesson-two scenario, or a loop
    // beside a lesson-one scenario, is a notice; the lesson's run is shown.
    for (scenario, compare) in [("core-weather", "run_loop"), ("report", "stop_on_text")] {
        let s = session(Options { scenario: scenario.into(), compare: compare.into(), ..Options::default() });
        assert!(s.notices().iter().any(|n| n.key == "notice_compare"), "{compare}");
        assert!(s.state()["compare"].is_null() && s.what_if_state().problems.is_empty(), "{compare}");
    }
}

#[test]
fn the_page_offers_the_other_loops_and_names_each_run_by_its_loop() {
    use agent_loop_playground::explore;
    let mut s = session(Options { scenario: "core-four-turns".into(), ..Options::default() });
    let shown = s.catalogue().shown().unwrap().clone();
    let bar = explore::beside(&shown, None, s.lang());
    for f in ["stop_on_text", "cap_as_brake", "keep_text_only"] {
        assert!(bar.contains(&format!(r#"data-function="{f}" aria-pressed="false""#)), "{f}: {bar}");
    }
    assert!(!bar.contains(r#"data-function="agent_loop""#), "not beside itself");
    let lesson_one = scenario("report");
    assert_eq!(explore::beside(&lesson_one, None, s.lang()), "", "lesson one has no loops to lay beside");
    // Run through the editors' texts as the page sends them.
    let replies = serde_json::to_string(&shown.localized(s.lang()).model[..]).unwrap();
    s.what_if_texts(&[("model", &replies)], Some("cap_as_brake")).expect("the shown replies, another loop");
    let places = agent_loop_core::step_view::comparison_places(&s).unwrap();
    let html = explore::compare(s.what_if_state().comparison.as_ref().unwrap(), &places, s.lang());
    assert!(html.contains("cap_as_brake beside agent_loop"), "{html}");
    // (each place said by its stage's title, not its trace label)
    assert!(
        html.contains("agent_loop at Ask, with the whole record (line ") && html.contains("cap_as_brake at "),
        "{html}"
    );
    assert!(!html.contains(" at core."), "{html}");
    assert!(!html.contains("Your version"), "{html}");
}

#[test]
fn a_tool_s_scripted_result_is_editable_and_a_raise_reaches_the_loop() {
    let mut s = session(Options { scenario: "core-weather".into(), ..Options::default() });
    let raises = r#"{"get_weather": [{"raises": "TimeoutError", "message": "no answer"}]}"#;
    s.what_if_texts(&[("tool_results", raises)], None).expect("a valid edit");
    let c = s.what_if_state().comparison.clone().unwrap();
    assert_eq!(
        (c.lesson.ending.as_str(), c.changed.ending.as_str()),
        ("done", "raised"),
        "nothing catches a tool's error"
    );
    let problems = s.what_if_texts(&[("tool_results", "{")], None).unwrap_err();
    assert_eq!(problems[0].field, "tool_results");
    let problems = s.what_if_texts(&[("tool_results", r#"{"get_weather": 3}"#)], None).unwrap_err();
    assert!(problems[0].field.starts_with("tool_results"), "{problems:?}");
}

#[test]
fn a_loop_as_the_function_attribute_runs_beside_the_lesson_s_loop_and_no_scope_is_fatal() {
    let s = session(Options { function: "stop_on_text".into(), ..Options::default() });
    assert_eq!(s.state()["function"], "stop_on_text");
    assert_eq!(s.state()["compare"]["function"], "agent_loop");
    assert!(s.notices().is_empty(), "{:?}", s.notices());
    // A function that runs only inside another is not an entry.
    let s = session(Options { function: "execute_tool".into(), ..Options::default() });
    let notice = s.notices().iter().find(|n| n.key == "notice_function").expect("a notice");
    assert!(!notice.text(s.lang()).contains("execute_tool, "), "{}", notice.text(s.lang()));
    // A function and a program no scenario fits: said, and every scenario offered.
    let s =
        session(Options { function: "run_loop".into(), program: "lesson_two".into(), ..Options::default() });
    assert!(s.notices().iter().any(|n| n.key == "notice_scope_empty"), "{:?}", s.notices());
    assert!(s.scenario().is_some());
}

#[test]
fn only_the_lesson_s_other_loops_run_beside_it() {
    for (scenario, compare) in
        [("core-weather", "agent_loop"), ("core-weather", "execute_tool"), ("report", "ask_claude")]
    {
        let s = session(Options { scenario: scenario.into(), compare: compare.into(), ..Options::default() });
        assert!(s.notices().iter().any(|n| n.key == "notice_compare"), "{scenario} {compare}");
        assert_eq!(s.state()["whatIf"], false, "{scenario} {compare}");
    }
}

#[test]
fn loops_that_never_part_say_so_and_past_the_parting_no_step_stands_beside() {
    use agent_loop_playground::explore;
    // On four turns the text loop never reads "done"... but on the weather
    // replies the cap of 3 is never reached: the shared steps are the same.
    let s = session(Options {
        scenario: "core-weather".into(),
        compare: "cap_as_brake".into(),
        ..Options::default()
    });
    let c = s.what_if_state().comparison.clone().unwrap();
    if c.parts_at.is_none() {
        assert!(c.differs.is_empty(), "nothing differs where nothing parts: {c:?}");
        let places = agent_loop_core::step_view::comparison_places(&s).unwrap();
        let html = explore::compare(&c, &places, s.lang());
        assert!(html.contains("Every step the two loops share") && !html.contains("differ in"), "{html}");
    }
    let mut s = session(Options {
        scenario: "core-says-done".into(),
        compare: "stop_on_text".into(),
        ..Options::default()
    });
    let at = s.what_if_state().comparison.as_ref().and_then(|c| c.parts_at).expect("they part");
    let last = s.replay().trace().steps.len() - 1;
    assert!(last > at);
    s.seek(last);
    let places = agent_loop_core::step_view::comparison_places(&s).unwrap();
    assert!(places.parted);
    let html = explore::compare(s.what_if_state().comparison.as_ref().unwrap(), &places, s.lang());
    assert!(html.contains("no step of the lesson&#39;s loop stands beside this one"), "{html}");
    s.seek(at);
    assert!(!agent_loop_core::step_view::comparison_places(&s).unwrap().parted, "at the parting itself");
}

#[test]
fn a_refused_request_has_its_own_caption_where_the_program_gets_it() {
    let t = run("core-weather", KEEP_TEXT_ONLY);
    let en = agent_loop_core::i18n::Lang::parse("en").unwrap();
    let (title, body) = agent_loop_core::lesson::caption(en, &t, t.steps.len() - 1);
    assert_eq!(title, "The API refused the request");
    assert!(body.contains("BadRequestError") && !body.contains("is_error"), "{body}");
    // A tool's own error keeps the stage's caption.
    let t = run("core-tool-raises", AGENT_LOOP);
    let (title, _) = agent_loop_core::lesson::caption(en, &t, t.steps.len() - 1);
    assert_ne!(title, "The API refused the request");
}

#[test]
fn an_edit_error_is_said_in_the_reader_s_language_with_its_line() {
    let replies = "[\n  {\n    \"stop_reason\": \"tool_use\",\n    \"content\": []\n  },\n  {\n    \"stop_reason\": 5,\n    \"content\": []\n  }\n]";
    for (lang, expected) in
        [("zh", "第 7 行，model[1].stop_reason："), ("en", "line 7, model[1].stop_reason: ")]
    {
        let mut s = session(Options { scenario: "core-weather".into(), ..Options::default() });
        s.set_lang(agent_loop_core::i18n::Lang::parse(lang).unwrap()).unwrap();
        let api = s.what_if_texts(&[("model", replies)], None).unwrap_err();
        assert_eq!(api[0].field, "model[1].stop_reason", "the API's problems keep their field");
        let shown = agent_loop_core::step_view::edit_problems(&s);
        assert!(shown[0].starts_with(expected), "{lang}: {shown:?}");
        // Text that is not JSON: its line, in the reader's words (not the parser's).
        s.what_if_texts(&[("model", "[\n  {\"stop_reason\": \"end_turn\",\n")], None).unwrap_err();
        let shown = agent_loop_core::step_view::edit_problems(&s);
        let eof = if lang == "zh" {
            "第 3 行：JSON 还没写完就结束了"
        } else {
            "line 3: not valid JSON, it ends before it is complete"
        };
        assert!(shown[0].contains(eof), "{lang}: {shown:?}");
        assert!(!shown[0].contains("EOF while parsing"), "{shown:?}");
        s.what_if_texts(&[("tool_results", "{\"get_weather\": [}")], None).unwrap_err();
        let shown = agent_loop_core::step_view::edit_problems(&s);
        let syntax = if lang == "zh" { "第 1 行第 18 列" } else { "line 1, column 18" };
        assert!(shown[0].contains(syntax), "{lang}: {shown:?}");
    }
}

#[test]
fn the_tool_call_of_a_run_main_scenario_is_editable() {
    use agent_loop_playground::explore;
    let mut s = session(Options { scenario: "reject".into(), ..Options::default() });
    let shown = s.catalogue().shown().unwrap().clone();
    let html = explore::editors(&shown.localized(s.lang()), s.lang(), &[]);
    assert!(html.contains(r#"data-edit="call""#) && !html.contains(r#"data-edit="model""#), "{html}");
    let before = s.what_if_state().comparison.is_none();
    let call = r#"{"type": "tool_use", "id": "call_1", "name": "run_main", "input": {}}"#;
    let ran = r#"{"returncode": 0, "stdout": "42\n", "stderr": ""}"#;
    s.what_if_texts(&[("call", call), ("process", ran)], None).expect("a valid call");
    let c = s.what_if_state().comparison.clone().unwrap();
    assert!(before && c.lesson.tool_result.is_some() && c.changed.tool_result.is_some());
    assert_ne!(c.lesson.tool_result, c.changed.tool_result, "a valid call runs main.py: {c:?}");
}
