//! A label written wrong — a breakpoint, the step a page opens at — is
//! answered with the nearest label of the program on screen (for a step,
//! one its run reaches): a recorded program's own, never a built-in
//! lesson's.

use agent_loop_core::session::Session;
use agent_loop_core::session::{FixtureDoubles, Options};

#[path = "common/lesson_three.rs"]
mod lesson_three;
use lesson_three::{pack, session_of, FILE, PACK};

fn session(lang: &str) -> Session {
    session_of(lang, PACK)
}

/// A breakpoint or a start step that names no label of the program is
/// answered with the nearest label the program has (this run reaches, for
/// a step), not one of another lesson's.
#[test]
fn a_misspelt_label_is_answered_with_the_nearest_of_the_programs_own() {
    // (the label given is the pack's own)
    assert!(pack()["labels"].get("tool.find").is_some());
    let mut s = session("en");
    s.set_breakpoints("tool.fnd");
    let said: Vec<_> = s.notices().iter().map(|n| (n.key, n.values.clone())).collect();
    assert_eq!(
        said,
        vec![(
            "notice_breakpoint",
            vec![("value", "tool.fnd".to_string()), ("example", "tool.find".to_string())]
        )]
    );
    let program_src = Some((FILE.to_string(), Ok(PACK.to_string())));
    let options =
        Options { lang: "en".into(), program_src, step: "tool.envelop".into(), ..Options::default() };
    let s = Session::new(Box::new(FixtureDoubles), &options).unwrap();
    let said: Vec<_> = s.notices().iter().map(|n| (n.key, n.values.clone())).collect();
    assert_eq!(
        said,
        vec![(
            "notice_step",
            vec![("value", "tool.envelop".to_string()), ("example", "tool.envelope".to_string())]
        )]
    );
}

/// The step's example is one `step=` itself takes: a label of a line the
/// run reaches (never `call` or `return`, which name no line).
#[test]
fn a_start_step_s_example_is_a_label_the_step_attribute_takes() {
    for written in ["cal", "retur", "loop.sav_results"] {
        let options = Options {
            lang: "en".into(),
            scenario: "report".into(),
            step: written.into(),
            ..Options::default()
        };
        let s = Session::new(Box::new(FixtureDoubles), &options).unwrap();
        let example = s.notices()[0].values.iter().find(|(k, _)| *k == "example").unwrap().1.clone();
        let again = Options {
            lang: "en".into(),
            scenario: "report".into(),
            step: example.clone(),
            ..Options::default()
        };
        let s = Session::new(Box::new(FixtureDoubles), &again).unwrap();
        assert!(
            s.notices().is_empty(),
            "{written}: the example {example:?} is refused too: {:?}",
            s.notices()
        );
    }
}
