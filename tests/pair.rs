//! The two records side by side (what if): aligned message by message,
//! the first message where they differ marked in both, the verdict, and
//! each run's place at the step shown — the lesson's at the step that
//! stands beside the one on screen.
//!
//! Lessons tested: lesson_two.

use agent_loop_core::debugger::Command;
use agent_loop_core::i18n::Lang;
use agent_loop_core::session::{counterpart, FixtureDoubles, Options, Session};
use agent_loop_core::step_view::pair;
use agent_loop_playground::figure;
use serde_json::json;

fn beside(compare: &str) -> Session {
    let options = Options {
        scenario: "core-says-done".into(),
        compare: compare.into(),
        lang: "en".into(),
        ..Options::default()
    };
    Session::new(Box::new(FixtureDoubles), &options).expect("a session")
}

#[test]
fn both_records_are_drawn_with_their_first_difference_marked_in_both() {
    let s = beside("stop_on_text");
    let p = pair(&s).expect("another loop beside the lesson's");
    let (a, b) = (&p.lesson.0.record, &p.changed.0.record);
    let at = p.differs_at.expect("the records differ");
    assert_eq!(a[..at], b[..at], "the same before");
    assert_ne!(a.get(at), b.get(at));
    let en = Lang::parse("en").unwrap();
    let html = figure::pair(&p, ("agent_loop", "stop_on_text"), en);
    assert_eq!(html.matches(r#"class="alp-pair-row""#).count(), a.len().max(b.len()), "a row per message");
    assert_eq!(html.matches("alp-pair-parts").count(), 2, "the first difference, in both columns: {html}");
    let verdict = html.split("alp-pair-verdict\">").nth(1).unwrap_or_default();
    let verdict = &verdict[..verdict.find("</p>").unwrap_or(0)];
    for said in
        [format!("{} messages", a.len()), format!("#{at}"), "agent_loop".into(), "stop_on_text".into()]
    {
        assert!(verdict.contains(&said), "{said} in {verdict}");
    }
    assert!(!html.contains("alp-pair-here"), "before the start no run is anywhere");
    assert!(pair(&beside("")).is_none(), "nothing beside: no pair");
}

#[test]
fn stepping_the_run_on_screen_moves_the_lesson_s_marker_beside_it() {
    let mut s = beside("stop_on_text");
    s.command(Command::Debug);
    let mut lesson_places = Vec::new();
    loop {
        let p = pair(&s).unwrap();
        let (lesson, changed, at) = (p.lesson.0, p.changed.0, s.replay().position());
        assert_eq!(p.changed.1, changed.steps[at].record_len as usize, "step {at}");
        let beside = counterpart(lesson, changed, at).expect("a step beside");
        assert_eq!(p.lesson.1, lesson.steps[beside].record_len as usize, "step {at}");
        lesson_places.push(p.lesson.1);
        let html = figure::pair(&p, ("a", "b"), s.lang());
        assert_eq!(
            html.matches("alp-pair-here").count(),
            usize::from(p.lesson.1 > 0) + usize::from(p.changed.1 > 0)
        );
        let before = s.replay().position();
        s.command(Command::Step);
        if s.replay().position() == before {
            break;
        }
    }
    lesson_places.dedup();
    assert!(lesson_places.len() > 1, "the lesson's marker moves: {lesson_places:?}");

    // A version of the same loop with other replies: the lesson's step is the one with the same number.
    let mut s = beside("");
    let reply = json!({"stop_reason": "end_turn", "content": [{"type": "text", "text": "Shipped."}]});
    s.what_if(Some(&json!({ "model": [reply] }))).expect("an edit");
    s.command(Command::Debug);
    s.command(Command::Continue);
    let p = pair(&s).unwrap();
    let at = s.replay().position().min(p.lesson.0.steps.len() - 1);
    assert_eq!(p.lesson.1, p.lesson.0.steps[at].record_len as usize);
}
