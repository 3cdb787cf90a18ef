//! Every word true: a caption that quotes a value of the run quotes the
//! value the locals show at that step (issue 44, point 1). The output line
//! a tool run reports is the result's last line: its caption says that
//! line, in every shipped scenario and both languages.
//!
//! Lessons tested: lesson_one.

use agent_loop_core::i18n::Lang;
use agent_loop_core::lesson;
use agent_loop_core::programs::lesson_one;
use agent_loop_core::run::record_scenario;
use agent_loop_core::scenario::load_shipped;

#[test]
fn the_reported_line_is_the_last_line_the_locals_show() {
    let mut checked = 0;
    for (_, scenario) in load_shipped() {
        let Ok(scenario) = scenario else { continue };
        if !lesson_one::FUNCTIONS.contains(&scenario.function) {
            continue;
        }
        for code in ["zh", "en"] {
            let lang = Lang::parse(code).unwrap();
            let trace = record_scenario(&scenario.localized(lang));
            for (i, step) in trace.steps.iter().enumerate().filter(|(_, s)| s.label == "loop.report_tool") {
                let locals = trace.locals_json(step);
                let last = locals["last_line"].as_str().expect("report_tool has last_line");
                let (_, body) = lesson::caption(lang, &trace, i);
                let shown: String = last.chars().take(80).collect();
                assert!(body.contains(&shown), "{} {code} step {i}: {body:?} does not say {last:?}", scenario.id);
                checked += 1;
            }
        }
    }
    assert!(checked > 20, "{checked} steps checked");
}
