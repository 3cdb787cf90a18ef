//! The one breakpoint model, tested natively on real traces.
//!
//! Lessons tested: lesson_one.

use agent_loop_core::debugger::{Command, Debugger};
use agent_loop_core::lesson::line_of_label;
use agent_loop_core::programs::lesson_one;
use agent_loop_core::run::{record_scenario, Trace};
use agent_loop_core::scenario::load_shipped;
use agent_loop_core::trace::{Event, Function};

fn trace(id: &str) -> Trace {
    let s = load_shipped().into_iter().filter_map(|(_, p)| p.ok()).find(|s| s.id == id).unwrap();
    record_scenario(&s)
}

fn at(label: &str) -> (Function, u32) {
    line_of_label(label).unwrap()
}

#[test]
fn the_lesson_walk_through() {
    let t = trace("report");
    let mut d = Debugger::new();
    let (f, ask) = at("loop.ask");
    let (_, save) = at("loop.save_results");
    assert!(d.toggle(f, ask));
    assert!(d.toggle(f, save));
    let label = |d: &Debugger| t.steps[d.position()].label;
    d.command(Command::Debug, &t.steps);
    assert_eq!(label(&d), "loop.ask");
    assert_eq!(t.steps[d.position()].record_len, 1);
    d.command(Command::Continue, &t.steps);
    assert_eq!(label(&d), "loop.save_results");
    assert_eq!(t.steps[d.position()].record_len, 2);
    d.command(Command::Step, &t.steps);
    assert_eq!(t.steps[d.position()].record_len, 3);
    d.command(Command::Continue, &t.steps);
    assert_eq!(label(&d), "loop.ask");
    assert_eq!(t.locals_json(&t.steps[d.position()])["number"], 2);
    d.command(Command::Continue, &t.steps);
    assert_eq!(d.position(), t.steps.len() - 1, "no more hits: the end");
    assert_eq!(t.status(), Some("answered"));
    assert_eq!(d.hit_positions(&t.steps).len(), 3);
}

#[test]
fn step_over_skips_nested_frames_and_into_enters_them() {
    let t = trace("report");
    let mut d = Debugger::new();
    let (f, ask) = at("loop.ask");
    d.toggle(f, ask);
    d.command(Command::Debug, &t.steps);
    let here = d.position();
    d.command(Command::Step, &t.steps);
    assert_eq!(t.steps[d.position()].function, lesson_one::RUN_LOOP);
    assert_eq!(t.steps[d.position()].label, "loop.read");
    d.seek(here, &t.steps);
    d.command(Command::StepInto, &t.steps);
    assert_eq!(t.steps[d.position()].function, lesson_one::ASK_CLAUDE);
    assert_eq!(t.steps[d.position()].event, Event::Call);
    d.command(Command::StepInto, &t.steps);
    assert_eq!(t.steps[d.position()].depth, 1);
    d.command(Command::StepOut, &t.steps);
    assert_eq!(t.steps[d.position()].function, lesson_one::RUN_LOOP);
    assert_eq!(t.steps[d.position()].label, "loop.read");
    d.command(Command::Back, &t.steps);
    assert_eq!(t.steps[d.position()].event, Event::Return);
    assert_eq!(t.steps[d.position()].function, lesson_one::ASK_CLAUDE);
}

#[test]
fn debug_without_breakpoints_stops_at_the_first_line_and_reset_clears_start() {
    let t = trace("truncated");
    let mut d = Debugger::new();
    assert!(!d.started());
    d.command(Command::Debug, &t.steps);
    assert!(d.started());
    assert_eq!(t.steps[d.position()].event, Event::Line);
    assert_eq!(t.steps[d.position()].label, "loop.check_budget");
    d.command(Command::Run, &t.steps);
    assert_eq!(d.position(), t.steps.len() - 1);
    d.command(Command::Reset, &t.steps);
    assert_eq!((d.position(), d.started()), (0, false));
    // Back at the start stays at the start.
    d.command(Command::Back, &t.steps);
    assert_eq!(d.position(), 0);
}

#[test]
fn breakpoints_never_hit_run_to_the_end() {
    let t = trace("truncated");
    let mut d = Debugger::new();
    let (f, save) = at("loop.save_results");
    d.toggle(f, save);
    d.command(Command::Debug, &t.steps);
    assert_eq!(d.position(), t.steps.len() - 1);
    assert!(d.hit_positions(&t.steps).is_empty());
    assert!(!d.toggle(f, save), "second toggle removes it");
    assert_eq!(d.breakpoints().count(), 0);
}

#[test]
fn limit_hits_ask_once() {
    let t = trace("limit");
    let mut d = Debugger::new();
    let (f, ask) = at("loop.ask");
    d.toggle(f, ask);
    assert_eq!(d.hit_positions(&t.steps).len(), 1);
}

#[test]
fn command_names_round_trip() {
    for c in Command::ALL {
        assert_eq!(Command::from_name(c.name()), Some(c));
    }
    assert_eq!(Command::from_name("explode"), None);
}

#[test]
fn commands_on_an_empty_trace_do_not_panic() {
    let mut d = Debugger::new();
    for c in Command::ALL {
        assert_eq!(d.command(c, &[]), 0);
    }
}

#[test]
fn hits_by_place_are_the_hits_of_every_step() {
    // (the timeline's ticks, Continue and the unreached note look each
    // place up once; what they find is what `hits` finds step by step)
    let labels = agent_loop_core::lesson::labels_of(&lesson_one::PROGRAM);
    let mut hits = 0;
    for (file, scenario) in load_shipped() {
        let Ok(scenario) = scenario else { continue };
        let t = record_scenario(&scenario);
        for every in [2, 3] {
            let mut d = Debugger::new();
            for label in labels.iter().step_by(every) {
                let (f, line) = at(label);
                d.set_breakpoint(f, line, true);
            }
            let naive: Vec<usize> = (0..t.steps.len()).filter(|&i| d.hits(&t.steps[i])).collect();
            assert_eq!(d.hit_positions(&t.steps), naive, "{file}, every {every}th label");
            hits += naive.len();
        }
    }
    assert!(hits > 100, "the breakpoints are hit ({hits})");
}
