//! The session: everything a playground holds and decides, natively.
//!
//! Lessons tested: lesson_one.

use agent_loop_core::debugger::Command;
use agent_loop_core::i18n::Lang;
use agent_loop_core::lesson::line_of_label;
use agent_loop_core::programs::lesson_one;
use agent_loop_core::protocol::{Model, ModelError, Request};
use agent_loop_core::scenario::Scenario;
use agent_loop_core::session::{parse_breakpoint, FixtureDoubles, Maker, Options, Override, Session};
use agent_loop_core::vocab::{Code, Function};
use serde_json::{json, Value};

/// Most tests count lines in the Rust listing (the Python has its own tests).
fn session(scenario: &str, lang: &str, breakpoints: &str) -> Session {
    let mut s = session_in("rust", scenario, breakpoints);
    s.set_lang(Lang::parse(lang).unwrap()).unwrap();
    s
}

fn session_in(listing: &str, scenario: &str, breakpoints: &str) -> Session {
    let options = Options {
        scenario: scenario.into(),
        lang: "en".into(),
        breakpoints: breakpoints.into(),
        listing: listing.into(),
        ..Options::default()
    };
    Session::new(Box::new(FixtureDoubles), &options).expect("a session")
}

#[test]
fn one_breakpoint_grammar_labels_numbers_and_function_lines() {
    let (f, ask) = line_of_label("loop.ask").unwrap();
    assert_eq!(f, lesson_one::RUN_LOOP);
    assert_eq!(
        parse_breakpoint("loop.ask", lesson_one::RUN_MAIN, Code::Rust),
        Ok((lesson_one::RUN_LOOP, ask))
    );
    assert_eq!(
        parse_breakpoint(&ask.to_string(), lesson_one::RUN_LOOP, Code::Rust),
        Ok((lesson_one::RUN_LOOP, ask))
    );
    assert_eq!(
        parse_breakpoint(&format!(" run_loop:{ask} "), lesson_one::ASK_CLAUDE, Code::Rust),
        Ok((lesson_one::RUN_LOOP, ask))
    );
    let refused = [
        ("loop.save_result", "unknown label \"loop.save_result\""),
        ("run_loop:999", "run_loop has no line 999"),
        ("3.5", "\"3.5\" is not a line number"),
        ("bogus:3", "unknown function \"bogus\""),
    ];
    for (item, why) in refused {
        assert_eq!(parse_breakpoint(item, lesson_one::RUN_LOOP, Code::Rust), Err(why.to_string()), "{item}");
    }
}

#[test]
fn author_mistakes_become_notices_and_the_defaults_still_work() {
    let s = session("nope", "en", "loop.ask, loop.save_result");
    assert_eq!(s.scenario().unwrap().id, "report", "the default scenario is shown");
    let en = Lang::parse("en").unwrap();
    let notices: Vec<String> = s.notices().iter().map(|n| n.text(en)).collect();
    assert_eq!(notices.len(), 2, "{notices:?}");
    assert!(notices[0].contains("nope") && notices[0].contains("report"), "{}", notices[0]);
    assert!(notices[1].contains("loop.save_result"), "{}", notices[1]);
    assert_eq!(s.replay().debugger().breakpoints().count(), 1, "the good breakpoint is set");
    let zh = Lang::parse("zh").unwrap();
    assert_ne!(s.notices()[0].text(zh), notices[0], "notices follow the language");
}

#[test]
fn stepping_moves_and_reports_what_changed() {
    let mut s = session("report", "en", "loop.save_results");
    assert_eq!(s.replay().status(), "ready");
    assert!(s.take_changes().trace, "a new session has everything to draw");
    assert!(!s.take_changes().any(), "nothing changed since");
    s.command(Command::Debug);
    let changes = s.take_changes();
    assert!(changes.step && !changes.trace && !changes.lang);
    let state = s.state();
    assert_eq!(state["label"], "loop.save_results");
    assert_eq!(state["status"], "paused");
    assert_eq!(state["recordLength"], 2);
    assert_eq!(state["line"], line_of_label("loop.save_results").unwrap().1);
    s.command(Command::Step);
    assert_eq!(s.replay().previous_len(), 2, "the figure marks what this step added");
    assert_eq!(s.replay().record_len(), 3);
    s.command(Command::Run);
    assert_eq!(s.replay().status(), "answered");
    assert_eq!(s.state()["finalStatus"], "answered");
    s.command(Command::Reset);
    assert_eq!(s.replay().status(), "ready");
    assert_eq!(s.state()["recordLength"], 0);
}

#[test]
fn replacing_a_scenario_keeps_it_on_screen_and_rerecords_it() {
    let mut s = session("report", "en", "");
    let mut fixture: Value = serde_json::from_str(
        agent_loop_core::scenario::shipped().iter().find(|(f, _)| *f == "report.json").unwrap().1,
    )
    .unwrap();
    fixture["max_calls"] = json!(1);
    // (its questions are about the run with four calls)
    fixture.as_object_mut().unwrap().remove("questions");
    let id = s.add_file(agent_loop_core::session::ADDED, Scenario::from_value(fixture), None).unwrap();
    assert_eq!(id, "report");
    assert_eq!(s.scenario().unwrap().id, "report", "still the same scenario");
    assert_eq!(s.replay().trace().ending(), Some("call_limit"), "re-recorded with the new fixture");
    assert_eq!(
        s.catalogue().entries().iter().filter(|e| e.parsed.as_ref().is_ok_and(|p| p.id == "report")).count(),
        1
    );
    let broken = s.add_file(agent_loop_core::session::ADDED, Scenario::from_value(json!({"id": 3})), None);
    assert!(broken.unwrap_err().to_string().contains("(added scenario): id: must be a string"));
    assert_eq!(s.scenario().unwrap().id, "report");
}

struct Answers;
impl Model for Answers {
    fn create(&mut self, request: &Request) -> Result<Value, ModelError> {
        let text = format!("I saw {} messages", request.messages.len());
        Ok(json!({"stop_reason": "end_turn", "content": [{"type": "text", "text": text}]}))
    }
}

#[test]
fn an_author_model_replaces_the_double_and_back() {
    let mut s = session("limit", "en", "");
    assert_eq!(s.replay().trace().ending(), Some("call_limit"));
    let maker: Maker<dyn Model> = Box::new(|| Box::new(Answers) as Box<dyn Model>);
    s.set_double(Override::Model(Some(maker)));
    assert_eq!(s.replay().trace().ending(), Some("answered"));
    assert_eq!(s.replay().trace().result["text"], "I saw 1 messages");
    s.set_double(Override::Model(None));
    assert_eq!(s.replay().trace().ending(), Some("call_limit"));
}

#[test]
fn load_language_and_function_limits() {
    let mut s = session("", "en-GB", "");
    assert_eq!(s.lang().code(), "en");
    assert!(s.load("nope").is_err());
    s.load("error").unwrap();
    assert_eq!(s.replay().trace().function, lesson_one::RUN_MAIN);
    assert_eq!(s.replay().shown_function(), lesson_one::RUN_MAIN);
    s.set_lang(Lang::parse("zh").unwrap()).unwrap();
    assert!(s.take_changes().lang);
    let only = Session::new(
        Box::new(FixtureDoubles),
        &Options { function: "run_main".into(), ..Options::default() },
    )
    .unwrap();
    assert_eq!(only.scenario().unwrap().function, lesson_one::RUN_MAIN);
    assert_eq!(only.lang().code(), "zh", "the course's language by default");
}

#[test]
fn a_small_step_cap_ends_the_trace_with_an_error_status() {
    let mut s = session("keeps-asking", "en", "");
    s.set_step_cap(50);
    assert_eq!(s.replay().trace().steps.len(), 50);
    s.command(Command::Run);
    assert_eq!(s.replay().status(), "step_cap");
}

#[test]
fn budgets_come_from_attributes_or_default_and_bad_ones_are_named() {
    use agent_loop_core::session::parse_amount;
    let ms = [("ms", 1.0), ("s", 1000.0)];
    assert_eq!(parse_amount("2", &ms, 1000.0), Some(2000.0));
    assert_eq!(parse_amount(" 0.5s ", &ms, 1000.0), Some(500.0));
    assert_eq!(parse_amount("750ms", &ms, 1000.0), Some(750.0));
    for bad in ["", "0", "-1", "two", "1e3", "1.2.3", "NaN", "s"] {
        assert_eq!(parse_amount(bad, &ms, 1000.0), None, "{bad:?}");
    }
    fn clock() -> f64 {
        0.0
    }
    let options = Options {
        time_budget: "soon".into(),
        memory_budget: "64MB".into(),
        clock: Some(clock),
        ..Options::default()
    };
    let s = Session::new(Box::new(FixtureDoubles), &options).unwrap();
    assert_eq!(s.limits().millis, Some(2000.0), "the default stays");
    assert_eq!(s.limits().bytes, Some(64 << 20));
    let en = Lang::parse("en").unwrap();
    assert!(s.notices()[0].text(en).contains("time-budget soon"), "{}", s.notices()[0].text(en));
}

#[test]
fn a_breakpoint_only_sits_where_the_run_can_stop_and_unreached_ones_are_named() {
    use agent_loop_core::lesson::{listing, stoppable_lines};
    let _ = Code::Rust;
    let f = lesson_one::RUN_LOOP;
    let stoppable = stoppable_lines(f);
    let rows = listing(f);
    // A comment line of run_loop: the breakpoint goes to the next line that can stop.
    let comment = rows
        .lines
        .iter()
        .filter(|l| !l.hidden && l.text.trim_start().starts_with("//"))
        .find_map(|l| l.number)
        .expect("run_loop has a comment line");
    assert!(!stoppable.contains(&comment));
    let mut s = session("report", "en", "");
    assert_eq!(s.toggle_line(f, comment), Ok(true));
    let placed: Vec<(Function, u32)> = s.replay().debugger().breakpoints().collect();
    let next = *stoppable.iter().find(|n| **n > comment).unwrap();
    assert_eq!(placed, vec![(f, next)]);
    // The closing brace of the function: nothing after it can stop.
    let last = rows.len();
    assert!(s.toggle_line(f, last).is_err());
    assert!(s.notices().iter().any(|n| n.key == "notice_no_stop"));
    // In `limit` the model never answers: a breakpoint on loop.answered is never reached.
    let mut s = session("limit", "en", "loop.answered, loop.ask");
    let answered = line_of_label("loop.answered").unwrap();
    assert_eq!(s.replay().unreached_breakpoints(), vec![answered]);
    s.load("report").unwrap();
    assert!(s.replay().unreached_breakpoints().is_empty(), "report reaches both");
}

#[test]
fn after_run_only_what_the_last_step_added_is_new() {
    let mut s = session("report", "en", "");
    s.command(Command::Run);
    assert_eq!(s.replay().record_len(), 4);
    assert_eq!(s.replay().previous_len(), 4, "the last step (the return) added nothing");
    let mut s = session("report", "en", "");
    s.command(Command::Debug);
    s.command(Command::Step);
    assert_eq!(s.replay().previous_len(), 0, "a step marks what it added");
}

fn python_session(scenario: &str, breakpoints: &str) -> Session {
    session_in("python", scenario, breakpoints)
}

#[test]
fn the_python_listing_is_the_default_and_steps_one_python_line_at_a_time() {
    use agent_loop_core::lesson::line_in;
    let mut s = python_session("report", "");
    assert_eq!(s.replay().code(), Code::Python);
    assert_eq!(s.state()["listing"], "python");
    // Step into through the whole run: no two stops in a row are the same
    // Python line of the same frame (the Rust steps inside it collapse).
    let mut stops = vec![];
    s.command(Command::StepInto);
    loop {
        let step = *s.replay().step().unwrap();
        stops.push((
            s.replay().position(),
            step.function,
            step.depth,
            step.event,
            line_in(Code::Python, &step),
        ));
        let before = s.replay().position();
        s.command(Command::StepInto);
        if s.replay().position() == before {
            break;
        }
    }
    for pair in stops.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        let same_line = (a.1, a.2, a.4) == (b.1, b.2, b.4) && a.3 == b.3;
        assert!(!same_line, "two stops on one Python line: {a:?} {b:?}");
    }
    let rust_steps = s.replay().trace().steps.len();
    assert!(stops.len() < rust_steps, "{} Python stops for {rust_steps} Rust steps", stops.len());
    // Back walks the same stops in reverse.
    let mut back = vec![s.replay().position()];
    loop {
        let before = s.replay().position();
        s.command(Command::Back);
        if s.replay().position() == before {
            break;
        }
        back.push(s.replay().position());
    }
    back.reverse();
    let forward: Vec<usize> = stops.iter().map(|x| x.0).collect();
    assert_eq!(back, forward, "back visits every stop");
}

#[test]
fn breakpoints_and_the_position_survive_a_switch_of_listing() {
    use agent_loop_core::lesson::{line_of_label, python_listing};
    let mut s = python_session("report", "loop.save_results");
    let py_line = s.state()["breakpoints"][0]["line"].as_u64().unwrap() as u32;
    let text = python_listing(lesson_one::RUN_LOOP).line(py_line).unwrap().text;
    assert!(text.contains("messages.append({\"role\": \"user\""), "{text}");
    s.command(Command::Debug);
    assert_eq!(s.state()["label"], "loop.save_results");
    let position = s.replay().position();
    s.set_code(Code::Rust);
    assert_eq!(s.replay().position(), position, "the position stays");
    let (_, rust_line) = line_of_label("loop.save_results").unwrap();
    assert_eq!(s.state()["breakpoints"][0]["line"], rust_line);
    assert_eq!(s.state()["line"], rust_line);
    // A breakpoint set on a Python line stops at every step of that line.
    let mut s = python_session("report", "");
    let ask_line = (1..=python_listing(lesson_one::RUN_LOOP).len())
        .find(|n| {
            python_listing(lesson_one::RUN_LOOP).line(*n).unwrap().text.contains("response = ask(messages)")
        })
        .unwrap();
    assert_eq!(s.toggle_line(lesson_one::RUN_LOOP, ask_line), Ok(true));
    s.command(Command::Debug);
    assert_eq!(s.state()["label"], "loop.ask");
    s.command(Command::Continue);
    assert_eq!(s.state()["label"], "loop.ask", "the second call");
    assert_eq!(s.state()["recordLength"], 3);
}

#[test]
fn back_from_inside_a_python_line_goes_to_the_line_before() {
    use agent_loop_core::lesson::line_in;
    let mut s = python_session("report", "");
    // ask.build and ask.create are one Python line: land on the second one.
    let create = s.replay().trace().steps.iter().position(|st| st.label == "ask.create").unwrap();
    s.seek(create);
    let here = line_in(Code::Python, s.replay().step().unwrap());
    s.command(Command::Back);
    let back = s.replay().step().unwrap();
    assert_ne!(
        (back.function, line_in(Code::Python, back)),
        (lesson_one::ASK_CLAUDE, here),
        "Back moved to another line"
    );
}

/// A copy of a shipped scenario under another id, as a file would hold it.
fn fixture_as(id: &str, from: &str) -> String {
    let text = std::fs::read_to_string(format!("fixtures/scenarios/{from}.json")).unwrap();
    let mut value: Value = serde_json::from_str(&text).unwrap();
    value["id"] = json!(id);
    value.to_string()
}

#[test]
fn fetched_files_join_the_catalogue_and_their_problems_name_the_file() {
    let options = Options {
        scenario: "my-case".into(),
        function: "run_loop".into(),
        files: vec![
            ("lessons/my-case.json".into(), Ok(fixture_as("my-case", "report"))),
            (
                "lessons/broken.json".into(),
                Ok(r#"{"id": "broken", "function": "run_loop", "max_calls": "4"}"#.into()),
            ),
            ("lessons/missing.json".into(), Err(("status".into(), "404 Not Found".into()))),
        ],
        ..Options::default()
    };
    let s = Session::new(Box::new(FixtureDoubles), &options).unwrap();
    assert_eq!(s.scenario().unwrap().id, "my-case", "the fetched scenario can be the one shown");
    assert_eq!(s.replay().trace().ending(), Some("answered"), "and it records like the shipped one");
    let en = Lang::parse("en").unwrap();
    let notices: Vec<String> = s.notices().iter().map(|n| n.text(en)).collect();
    assert_eq!(
        notices,
        ["src lessons/missing.json could not be fetched: the server answered 404 Not Found. The built-in scenarios are still here."]
    );
    let broken: Vec<String> =
        s.catalogue().entries().iter().filter(|e| e.parsed.is_err()).map(|e| e.file.clone()).collect();
    assert_eq!(broken, ["lessons/broken.json"]);
    let problems = s.catalogue().entries().iter().find(|e| e.file == "lessons/broken.json").unwrap();
    let fields: Vec<String> = problems.parsed.as_ref().unwrap_err().iter().map(|p| p.field.clone()).collect();
    assert!(fields.iter().any(|f| f == "max_calls"), "the field is named: {fields:?}");
    assert!(
        s.catalogue().entries().iter().any(|e| e.parsed.as_ref().is_ok_and(|p| p.id == "success")),
        "shipped ones stay"
    );
}

#[test]
fn a_scenario_asked_for_that_arrives_late_loses_its_notice_when_shown() {
    let options = Options { scenario: "my-case".into(), function: "run_loop".into(), ..Options::default() };
    let mut s = Session::new(Box::new(FixtureDoubles), &options).unwrap();
    let en = Lang::parse("en").unwrap();
    let said = |s: &Session| s.notices().iter().map(|n| n.text(en)).collect::<Vec<_>>();
    assert!(said(&s).iter().any(|n| n.contains("my-case")), "not there yet: {:?}", said(&s));
    let text = fixture_as("my-case", "report");
    let id = s.add_file("lessons/my-case.json", Scenario::parse(&text), Some(&text)).unwrap();
    s.load("success").unwrap();
    assert!(said(&s).iter().any(|n| n.contains("my-case")), "another one shown: the notice stays");
    s.load(&id).unwrap();
    assert_eq!(s.scenario().unwrap().id, "my-case");
    assert_eq!(said(&s), Vec::<String>::new(), "shown now: the notice is gone");
}

#[test]
fn a_fetched_file_with_a_shipped_id_replaces_it() {
    let mut changed: Value = serde_json::from_str(&fixture_as("report", "report")).unwrap();
    changed["max_calls"] = json!(1);
    changed.as_object_mut().unwrap().remove("questions");
    let options = Options {
        scenario: "report".into(),
        files: vec![("mine/report.json".into(), Ok(changed.to_string()))],
        ..Options::default()
    };
    let s = Session::new(Box::new(FixtureDoubles), &options).unwrap();
    let reports =
        s.catalogue().entries().iter().filter(|e| e.parsed.as_ref().is_ok_and(|p| p.id == "report")).count();
    assert_eq!(reports, 1);
    assert_eq!(s.scenario().unwrap().max_calls, 1, "the author's version is the one shown");
}

#[test]
fn presentation_attributes_are_checked_too() {
    let options = Options {
        controls: "debug, stepp step".into(),
        heading_level: "7".into(),
        theme: "night".into(),
        ..Options::default()
    };
    let s = Session::new(Box::new(FixtureDoubles), &options).unwrap();
    assert_eq!(s.presentation().controls, [Command::Debug, Command::Step], "the known controls are kept");
    assert_eq!(s.presentation().heading_level, None);
    let keys: Vec<&str> = s.notices().iter().map(|n| n.key).collect();
    assert_eq!(keys, ["notice_controls", "notice_heading_level", "notice_theme"]);
    let en = Lang::parse("en").unwrap();
    assert!(s.notices()[0].text(en).contains("stepp"), "the wrong value is named");

    let good = Options { heading_level: "3".into(), theme: "dark".into(), ..Options::default() };
    let s = Session::new(Box::new(FixtureDoubles), &good).unwrap();
    let p = s.presentation();
    assert_eq!((p.heading_level, s.notices().len(), p.controls.len()), (Some(3), 0, Command::ALL.len()));
}

#[test]
fn an_authors_file_is_recorded_once_for_its_checks_and_its_display() {
    // (issue 46, break 8: a src= file of 50,000 tool calls was recorded
    // twice on arrival, each up to the time budget)
    use agent_loop_core::trace::recordings;
    let text = fixture_as("my-case", "report");
    let options = Options {
        scenario: "my-case".into(),
        files: vec![("lessons/my-case.json".into(), Ok(text.clone()))],
        ..Options::default()
    };
    let before = recordings();
    let s = Session::new(Box::new(FixtureDoubles), &options).unwrap();
    assert_eq!(s.scenario().unwrap().id, "my-case");
    assert_eq!(recordings() - before, 1, "a file there when the playground opens");
    let shown = s.replay().trace().steps.len();

    let mut s = session("report", "en", "");
    let before = recordings();
    let id = s.add_file("lessons/my-case.json", Scenario::parse(&text), Some(&text)).unwrap();
    s.load(&id).unwrap();
    assert_eq!(recordings() - before, 1, "a file that arrives, then shown");
    assert_eq!(s.replay().trace().steps.len(), shown, "the same run");

    let mut changed: Value = serde_json::from_str(&fixture_as("report", "report")).unwrap();
    changed["max_calls"] = json!(1);
    changed.as_object_mut().unwrap().remove("questions");
    let before = recordings();
    s.load("report").unwrap();
    s.add_file("mine/report.json", Ok(Scenario::from_value(changed).unwrap()), None).unwrap();
    assert_eq!(recordings() - before, 2, "the shipped report, then the author's on screen, once");
    assert_eq!(s.scenario().unwrap().max_calls, 1);
    // (what is kept is for the display that follows, not a cache: later
    // loads record again, and another language is another run)
    let before = recordings();
    s.set_lang(Lang::parse("zh").unwrap()).unwrap();
    s.load(&id).unwrap();
    assert_eq!(recordings() - before, 2);
}

#[test]
fn a_pack_on_its_way_is_said_until_a_choice_or_its_failure_replaces_it() {
    use agent_loop_core::session::notice;
    let options = Options { waiting: "data/a-pack.json".into(), lang: "en".into(), ..Options::default() };
    let open = || Session::new(Box::new(FixtureDoubles), &options).unwrap();
    let en = Lang::parse("en").unwrap();
    let said = |s: &Session| s.notices().iter().map(|n| (n.is_progress(), n.text(en))).collect::<Vec<_>>();
    let mut s = open();
    let waiting = "The lesson you asked for is loading from data/a-pack.json; it opens here when it arrives.";
    assert_eq!(said(&s), [(true, waiting.to_string())], "under way: the page says it, the console does not");
    // A choice made meanwhile wins: what was asked for is no longer opened.
    s.load("limit").unwrap();
    assert_eq!(said(&s), []);
    // The pack fails: its failure takes the place of the notice, once.
    let mut s = open();
    for _ in 0..2 {
        s.file_notice(notice::unreadable_file("data/a-pack.json", "pack", "404"));
    }
    let said = said(&s);
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(!said[0].0 && said[0].1.contains("could not be loaded from data/a-pack.json (404)"), "{said:?}");
}
