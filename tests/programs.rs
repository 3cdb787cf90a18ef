//! The programs seam: a second teaching program (`ask_once`, compiled for
//! the tests only) goes through the very code the lesson does — parsed and
//! checked as a scenario, recorded, listed in Rust and in Python, stepped
//! with breakpoints in a session — with no line of the lesson touched.
//! (The CLI's `check` of it is in cli/tests/cli.rs.)
//!
//! Lessons tested: ask_once, lesson_one.

use agent_loop_core::debugger::Command;
use agent_loop_core::lesson::{self, line_in, listing_in};
use agent_loop_core::programs::{self, ask_once::ASK_ONCE, lesson_one};
use agent_loop_core::run::record_scenario;
use agent_loop_core::scenario::Scenario;
use agent_loop_core::session::{FixtureDoubles, Options, Session};
use agent_loop_core::trace::Event;
use agent_loop_core::vocab::Code;

fn fixture() -> Scenario {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/programs/ask-once.json"))
        .unwrap();
    Scenario::parse(&text).unwrap()
}

#[test]
fn function_names_are_unique_across_programs() {
    let names: Vec<&str> = programs::functions().map(|f| f.name()).collect();
    let mut unique = names.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), names.len(), "{names:?}");
    assert_eq!(programs::function("ask_once"), Some(ASK_ONCE));
    assert_eq!(programs::of(ASK_ONCE).name, "ask_once");
    assert_eq!(programs::of(lesson_one::RUN_LOOP).name, "lesson_one");
}

#[test]
fn the_second_program_is_checked_as_a_scenario() {
    assert_eq!(fixture().function, ASK_ONCE);
    // Its own rule: a model reply is needed.
    let problems =
        Scenario::parse(r#"{"id": "x", "function": "ask_once", "title": {"en": "x"}}"#).unwrap_err();
    let said: Vec<String> = problems.iter().map(|p| p.to_string()).collect();
    assert!(said.contains(&"model: missing: ask_once needs model replies".to_string()), "{said:?}");
    // The lesson's rules are not its rules: no process is asked for.
    assert!(!said.iter().any(|p| p.starts_with("process")), "{said:?}");
}

#[test]
fn the_second_program_is_recorded_line_by_line() {
    let trace = record_scenario(&fixture());
    assert_eq!(trace.error, None);
    assert_eq!(trace.result, "Hello\nagain");
    let output: Vec<String> = trace.output.iter().map(|s| s.to_string()).collect();
    assert_eq!(output, ["Hello", "again"]);
    let labels: Vec<&str> = trace.steps.iter().map(|s| s.label).collect();
    assert_eq!(
        labels,
        [
            "call",
            "once.start",
            "once.tools",
            "once.request",
            "once.ask",
            "once.texts",
            "once.next_block",
            "once.print",
            "once.keep",
            "once.next_block",
            "once.print",
            "once.keep",
            "once.return",
            "return",
        ]
    );
    assert!(trace.steps.iter().all(|s| s.function == ASK_ONCE));
    assert_eq!(trace.steps.last().map(|s| s.event), Some(Event::Return));
    // Its stages come from its own table.
    assert_eq!(lesson::stage(&trace.steps[7]), "once.print");
    assert_eq!(lesson::stage(&trace.steps[0]), "once.call");
}

#[test]
fn the_second_program_is_listed_in_rust_and_in_python() {
    let rust = listing_in(Code::Rust, ASK_ONCE);
    let python = listing_in(Code::Python, ASK_ONCE);
    assert!(rust.line(rust.signature_line()).unwrap().text.starts_with("pub fn ask_once("));
    assert!(python.line(1).unwrap().text.starts_with("def ask_once("));
    // Instrumentation is hidden; the Python carries no marks.
    assert!(rust.lines.iter().filter(|l| l.text.contains("before!(")).all(|l| l.hidden));
    assert!(python.lines.iter().all(|l| !l.text.contains("#|")));
    // Every statement of the Rust has a snapshot, and every step stands on a
    // line of both listings.
    let trace = record_scenario(&fixture());
    let reached: Vec<u32> = trace.steps.iter().map(|s| line_in(Code::Rust, s)).collect();
    for line in rust.executable_lines() {
        assert!(reached.contains(&line), "line {line} of ask_once ({:?}) is never reached", rust.line(line));
    }
    for step in &trace.steps {
        for code in Code::ALL {
            let n = line_in(code, step);
            assert!(listing_in(code, ASK_ONCE).line(n).is_some(), "{code:?} {} at line {n}", step.label);
        }
    }
    let print = trace.steps.iter().find(|s| s.label == "once.print").unwrap();
    assert_eq!(python.line(line_in(Code::Python, print)).unwrap().text.trim(), "print(block.text)");
}

#[test]
fn the_second_program_is_stepped_with_breakpoints_in_a_session() {
    let mut s = Session::new(Box::new(FixtureDoubles), &Options::default()).unwrap();
    let id = s.add_file(agent_loop_core::session::ADDED, Ok(fixture()), None).unwrap();
    s.load(&id).unwrap();
    assert_eq!(s.replay().trace().function, ASK_ONCE);
    s.set_breakpoints("once.print");
    s.command(Command::Debug);
    assert_eq!((s.replay().status(), s.replay().step().map(|st| st.label)), ("paused", Some("once.print")));
    assert_eq!(s.state()["currentFunction"], "ask_once");
    let line = s.state()["line"].as_u64().unwrap() as u32;
    assert_eq!(listing_in(Code::Python, ASK_ONCE).line(line).unwrap().text.trim(), "print(block.text)");
    s.command(Command::Continue);
    assert_eq!(s.replay().step().map(|st| st.label), Some("once.print"), "the second text block");
    assert_eq!(s.replay().trace().output.len(), 2);
    s.command(Command::Continue);
    assert_eq!(s.replay().status(), "done");
    // A breakpoint by line number in the Rust listing means the same step.
    s.set_code(Code::Rust);
    s.command(Command::Reset);
    let rust_line = lesson::line_of_label_in(Code::Rust, "once.keep").unwrap();
    assert_eq!(rust_line.0, ASK_ONCE);
    s.toggle_line(ASK_ONCE, rust_line.1).unwrap();
    s.command(Command::Debug);
    assert_eq!(
        s.replay().step().map(|st| st.label),
        Some("once.print"),
        "the first breakpoint still comes first"
    );
    s.command(Command::Continue);
    assert_eq!(s.replay().step().map(|st| st.label), Some("once.keep"));
}
