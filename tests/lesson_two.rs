//! Lesson two: the right loop and the loops the lesson warns about, run on
//! the same replies, part where the lesson says they part — and the API's
//! checks make the text-only loop fail where the lesson says "the next call
//! will fail".

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
    let (right, wrong) = parting("core-weather", KEEP_TEXT_ONLY);
    assert_eq!(right.0, "core.announce", "the right loop gets turn 2's reply");
    assert_eq!(wrong.0, "raise", "the text-only loop's turn 2 request is refused");
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
    assert_eq!(places.parting.0.map(|p| p.0), Some("core.announce"));
    assert_eq!(places.parting.1.map(|p| p.0), Some("raise"));
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
