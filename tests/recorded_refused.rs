//! A request the API refused in a recorded program (the pack's
//! `requests[k].refused`): where the program receives the
//! `BadRequestError`, the figure draws the API's error card with the
//! checker's message and the caption says it, whole, in the reader's
//! language; before the request is answered, no card; the chip drops the
//! last reply's stop_reason once another request is out. The pack is the
//! record tests' good one (its `forgets` scenario catches the error). A
//! plain user message after the first (a loop that sends "done" where the
//! results belong) is not called the question. A block kept as its repr
//! text is drawn as that text.

use agent_loop_core::session::{FixtureDoubles, Options, Session};
use agent_loop_core::step_view::step_view;
use agent_loop_core::trace::Event;
use agent_loop_playground::figure;

const PACK: &str = include_str!("../cli/tests/record/good.pack.json");

fn session(lang: &str) -> Session {
    let program_src = Some(("lessons/good.pack.json".to_string(), Ok(PACK.to_string())));
    let options =
        Options { lang: lang.into(), program_src, scenario: "forgets".into(), ..Options::default() };
    Session::new(Box::new(FixtureDoubles), &options).expect("a session")
}

/// The record part of the figure and the caption at `step`.
fn shown(s: &mut Session, step: usize) -> (String, String) {
    s.seek(step);
    let view = step_view(s);
    let moment = figure::Moment {
        started: view.started,
        ..figure::Moment::at(s.replay().trace(), view.position, s.lang(), figure::Layout::WIDE)
    };
    let [head, record, _] = figure::render_parts(&moment);
    (format!("{head}{record}"), format!("{} {}", view.caption.0, view.caption.1))
}

#[test]
fn a_refused_request_is_the_apis_error_card_where_the_program_receives_it() {
    for lang in ["en", "zh"] {
        let mut s = session(lang);
        assert_eq!(s.state()["scenario"], "forgets");
        let steps = &s.replay().trace().steps;
        let at = steps.iter().position(|st| st.event == Event::Exception).expect("the exception step");
        let (figure, caption) = shown(&mut s, at);
        assert!(
            figure.contains(r#"data-role="api-error""#),
            "{lang}: no error card at the exception: {figure}"
        );
        assert!(figure.contains("unexpected `tool_use_id` found in"), "{lang}: {figure}");
        assert!(caption.contains("unexpected `tool_use_id` found"), "{lang}: the caption: {caption}");
        assert!(!figure.contains("stop_reason"), "{lang}: a stale stop_reason at the exception: {figure}");
        let (before, _) = shown(&mut s, at - 1);
        assert!(!before.contains(r#"data-role="api-error""#), "{lang}: a card before the answer: {before}");
    }
}

/// The record part of the figure at the run's last step, its last
/// message replaced by `last`; and the record's length.
fn drawn_with_last(last: serde_json::Value) -> (String, usize) {
    let s = session("en");
    let mut trace = agent_loop_core::run::record_scenario(s.scenario().unwrap());
    let at = trace.steps.len() - 1;
    let len = trace.steps[at].record_len as usize;
    assert!(len >= 3, "{len}");
    trace.record[len - 1] = last;
    let moment =
        figure::Moment { started: true, ..figure::Moment::at(&trace, at, s.lang(), figure::Layout::WIDE) };
    let [_, record, _] = figure::render_parts(&moment);
    (record, len)
}

#[test]
fn a_plain_user_message_after_the_first_is_not_called_the_question() {
    let (record, len) = drawn_with_last(serde_json::json!({"role": "user", "content": "done"}));
    let heads: Vec<&str> =
        record.split("class=\"alp-card-head\"").skip(1).map(|h| &h[..h.find("</text>").unwrap()]).collect();
    assert!(heads[0].ends_with("question"), "{heads:?}");
    assert!(heads[len - 1].ends_with("user message"), "{heads:?}");
}

/// A block the recorder could only keep as its repr text (an author's
/// class with no fields it reads; `record` warns of it) is drawn as that
/// text, quoted: not as a block "not in this lesson".
#[test]
fn a_block_kept_as_its_repr_text_is_drawn_as_that_text() {
    let last = serde_json::json!({"role": "assistant", "content": ["<__main__.Opaque object>"]});
    let (record, _) = drawn_with_last(last);
    assert!(record.contains("“&lt;__main__.Opaque object&gt;”"), "{record}");
    assert!(!record.contains("not in this lesson"), "{record}");
}
