//! `breakpoints` and `step` set again on a playground already open: the
//! new list takes the place of every breakpoint set before (the learner's
//! clicks too) and of what the old list was told; the new step is gone
//! to, as the page would open at it, and what an old step was told is
//! said no more. (Lesson three's pack: its labels come from the pack.)

#![cfg(not(target_arch = "wasm32"))]

use agent_loop_core::session::{FixtureDoubles, Options, Session};
use agent_loop_core::trace::Event;

#[path = "common/lesson_three.rs"]
#[allow(dead_code)]
mod lesson_three;
use lesson_three::{pack, FILE, PACK};

fn session(breakpoints: &str, step: &str) -> Session {
    let program_src = Some((FILE.to_string(), Ok(PACK.to_string())));
    let options = Options {
        lang: "en".into(),
        program_src,
        breakpoints: breakpoints.into(),
        step: step.into(),
        ..Options::default()
    };
    Session::new(Box::new(FixtureDoubles), &options).unwrap()
}

/// Two labels of the pack that the first scenario's run reaches on a line.
fn reached_labels(s: &Session) -> (String, String) {
    let labels = pack()["labels"].as_object().unwrap().clone();
    let steps = &s.replay().trace().steps;
    let mut reached =
        labels.keys().filter(|l| steps.iter().any(|st| st.event == Event::Line && st.label == *l));
    (reached.next().unwrap().clone(), reached.next().unwrap().clone())
}

fn keys(s: &Session) -> Vec<&'static str> {
    s.notices().iter().map(|n| n.key).collect()
}

#[test]
fn a_new_breakpoints_list_replaces_the_old_one_and_what_it_was_told() {
    let mut s = session("", "");
    let (first, second) = reached_labels(&s);
    s.set_breakpoints(&format!("{first}, no.such_label"));
    assert_eq!(s.replay().debugger().breakpoints().count(), 1);
    assert_eq!(keys(&s), vec!["notice_breakpoint"]);
    let one: Vec<_> = s.replay().debugger().breakpoints().collect();
    // (a line the learner clicked goes too)
    let clicked = s.replay().trace().steps.iter().find(|st| st.label == second).unwrap();
    let (f, line) = (clicked.function, agent_loop_core::lesson::line_in(s.replay().code(), clicked));
    assert!(s.toggle_line(f, line).unwrap());
    s.set_breakpoints(&second);
    let now: Vec<_> = s.replay().debugger().breakpoints().collect();
    assert_eq!(now, vec![(f, line)], "only the new list's: was {one:?}");
    assert!(keys(&s).is_empty(), "{:?}", keys(&s));
    s.set_breakpoints("");
    assert_eq!(s.replay().debugger().breakpoints().count(), 0);
}

#[test]
fn a_new_step_is_gone_to_and_an_old_step_s_mistake_is_said_no_more() {
    let mut s = session("", "no.such_label");
    assert_eq!(keys(&s), vec!["notice_step"]);
    assert!(!s.replay().started());
    s.start_at("3");
    assert_eq!((s.replay().position(), s.replay().started()), (3, true));
    assert!(keys(&s).is_empty(), "{:?}", keys(&s));
    let (_, second) = reached_labels(&s);
    s.start_at(&second);
    let at = s.replay().trace().steps.iter().position(|st| st.event == Event::Line && st.label == second);
    assert_eq!(Some(s.replay().position()), at);
    s.start_at("999999");
    assert_eq!(keys(&s), vec!["notice_step_past_end"]);
    let last = s.replay().trace().steps.len() - 1;
    assert_eq!(s.replay().position(), last);
    // (numbered as the counter numbers it, from 1)
    assert_eq!(s.notices()[0].values[1], ("last", (last + 1).to_string()));
    // Digits too many for a number are past the end too, not a label.
    s.start_at("3");
    s.start_at("99999999999999999999999");
    assert_eq!((keys(&s), s.replay().position()), (vec!["notice_step_past_end"], last));
}

#[test]
fn a_step_that_cannot_be_used_leaves_an_open_playground_where_it_is() {
    let mut s = session("", "");
    s.start_at("4");
    s.take_changes();
    s.start_at("no.such_label");
    // (it says so, and it does not say it starts at the beginning)
    assert_eq!(keys(&s), vec!["notice_step_stays"]);
    assert_eq!(s.replay().position(), 4);
    let changed = s.take_changes();
    assert!(changed.notices && !changed.step, "{changed:?}");
    // A value a page long is quoted by its start.
    s.start_at(&"x".repeat(100_000));
    let said = s.notices()[0].text(agent_loop_core::i18n::Lang::parse("en").unwrap());
    assert!(said.len() < 1_000 && said.contains("(+99700 chars)"), "{} characters", said.len());
    // The attribute removed: what it said goes.
    s.start_at("");
    assert!(keys(&s).is_empty());
    assert_eq!(s.replay().position(), 4);
}
