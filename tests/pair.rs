//! The two records side by side (what if): aligned message by message,
//! the first message where they differ marked in both, the verdict, and
//! each run's place at the step shown — the lesson's at the step that
//! stands beside the one on screen, none past where two loops part.
//!
//! Lessons tested: lesson_one, lesson_two.

use agent_loop_core::debugger::Command;
use agent_loop_core::i18n::Lang;
use agent_loop_core::session::{counterpart, FixtureDoubles, Options, Session};
use agent_loop_core::step_view::{pair, Pair};
use agent_loop_playground::figure;
use serde_json::json;

fn open(scenario: &str, compare: &str) -> Session {
    let options = Options {
        scenario: scenario.into(),
        compare: compare.into(),
        lang: "en".into(),
        ..Options::default()
    };
    Session::new(Box::new(FixtureDoubles), &options).expect("a session")
}

fn html(p: &Pair) -> String {
    figure::pair(p, (("agent_loop", "stop_on_text"), true), Lang::parse("en").unwrap())
}

/// The rows of column `k` (0: the lesson's) that carry `class`.
fn marked(html: &str, k: usize, class: &str) -> Vec<usize> {
    let rows = html.split(r#"class="alp-pair-row""#).skip(1);
    let cell = |row: &str| row.split(r#"role="cell""#).nth(k + 1).unwrap_or_default().to_string();
    rows.enumerate()
        .filter(|(_, r)| cell(r).split('>').next().unwrap_or_default().contains(class))
        .map(|(i, _)| i)
        .collect()
}

#[test]
fn both_records_are_drawn_with_their_first_difference_marked_in_both() {
    let s = open("core-says-done", "stop_on_text");
    let p = pair(&s).expect("another loop beside the lesson's");
    let (a, b) = (&p.lesson.trace.record, &p.changed.trace.record);
    let at = p.differs_at.expect("the records differ");
    assert_eq!(a[..at], b[..at], "the same before");
    assert_ne!(a.get(at), b.get(at));
    let html = html(&p);
    assert_eq!(html.matches(r#"class="alp-pair-row""#).count(), a.len().max(b.len()), "a row per message");
    assert_eq!(
        [marked(&html, 0, "alp-pair-parts"), marked(&html, 1, "alp-pair-parts")],
        [vec![at], vec![at]]
    );
    let verdict = html.split("alp-pair-verdict\">").nth(1).unwrap_or_default();
    let verdict = &verdict[..verdict.find("</p>").unwrap_or(0)];
    for said in
        [format!("{} messages", a.len()), format!("#{at}"), "agent_loop".into(), "stop_on_text".into()]
    {
        assert!(verdict.contains(&said), "{said} in {verdict}");
    }
    assert!(!html.contains("alp-pair-here"), "before the start no run is anywhere");
    assert!(pair(&open("core-says-done", "")).is_none(), "nothing beside: no pair");
}

#[test]
fn stepping_moves_the_lesson_s_marker_beside_the_run_until_the_loops_part() {
    let mut s = open("core-four-turns", "cap_as_brake");
    let parts_at = s.what_if_state().comparison.as_ref().and_then(|c| c.parts_at).expect("they part");
    s.command(Command::Debug);
    let mut lesson_places = Vec::new();
    loop {
        let p = pair(&s).unwrap();
        let (lesson, changed, at) = (p.lesson.trace, p.changed.trace, s.replay().position());
        assert_eq!(p.changed.made, changed.steps[at].record_len as usize, "step {at}");
        let html = html(&p);
        if at <= parts_at {
            let beside = counterpart(lesson, changed, at).expect("a step beside");
            assert_eq!(p.lesson.made, lesson.steps[beside].record_len as usize, "step {at}");
            lesson_places.push(p.lesson.made);
        } else {
            // Past the parting no lesson step stands here: its column whole, unmarked.
            assert_eq!((p.lesson.made, p.lesson.here), (lesson.record.len(), false), "step {at}");
            assert!(
                marked(&html, 0, "alp-pair-here").is_empty() && marked(&html, 0, "alp-pair-later").is_empty()
            );
        }
        let marks = usize::from(p.lesson.here && p.lesson.made > 0) + usize::from(p.changed.made > 0);
        assert_eq!(html.matches("alp-pair-here").count(), marks, "step {at}");
        let before = s.replay().position();
        s.command(Command::Step);
        if s.replay().position() == before {
            break;
        }
    }
    assert!(s.replay().position() > parts_at, "the run went past the parting");
    lesson_places.dedup();
    assert!(lesson_places.len() > 1, "the lesson's marker moves: {lesson_places:?}");
}

#[test]
fn predicting_draws_only_what_each_run_has_made_and_no_verdict_until_the_end() {
    let mut s = open("core-says-done", "keep_text_only");
    s.set_predict(true);
    let html_now = |s: &Session| html(&pair(s).unwrap());
    assert!(!html_now(&s).contains("alp-pair-verdict"), "the verdict would answer the questions");
    assert_eq!(html_now(&s).matches("alp-pair-row").count(), 0, "nothing made before the start");
    s.command(Command::Debug);
    for _ in 0..200 {
        let p = pair(&s).unwrap();
        let html = html(&p);
        for (k, side) in [&p.lesson, &p.changed].into_iter().enumerate() {
            let shown = html.split(r#"class="alp-pair-row""#).skip(1).filter(|r| {
                let cell = r.split(r#"role="cell""#).nth(k + 1).unwrap_or_default();
                cell.contains("data-item")
            });
            assert!(shown.count() <= side.made, "only what was made is drawn");
        }
        if s.replay().status() == "done" || s.predictions().pending().is_some() {
            break;
        }
        s.command(Command::Step);
    }
}

#[test]
fn a_tool_run_s_comparison_and_a_what_if_of_the_same_loop() {
    // run_main's comparison sets the results side by side: no pair.
    let mut s = open("success", "");
    s.what_if(Some(&json!({"process": {"returncode": 3, "stdout": "", "stderr": "boom"}}))).expect("an edit");
    assert!(s.what_if_state().comparison.is_some() && pair(&s).is_none());
    // The same loop on other replies: the lesson's step is the one with the same number.
    let mut s = open("report", "");
    let reply = json!({"stop_reason": "end_turn", "content": [{"type": "text", "text": "Shipped."}]});
    s.what_if(Some(&json!({ "model": [reply] }))).expect("an edit");
    s.command(Command::Debug);
    s.command(Command::Step);
    let p = pair(&s).unwrap();
    let at = s.replay().position();
    assert_eq!(p.lesson.made, p.lesson.trace.steps[at].record_len as usize);
    // The verdict says each ending as the comparison's table does.
    let verdict = figure::pair(&p, (("The lesson", "Your version"), false), Lang::parse("zh").unwrap());
    assert!(verdict.contains("answered（已回答）") || verdict.contains("已回答"), "{verdict}");
    assert!(!verdict.contains(r#"translate="no">The lesson"#), "words of the page are translated");
}
