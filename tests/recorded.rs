//! A recorded program (`program-src`): lesson three's pack, an author's
//! Python recorded by CPython, made a program and stepped through the
//! session like a built-in one. Every scenario in both languages goes
//! from its first line to its end; each step is the pack's step (its
//! function, line, depth, record and output, its locals); breakpoints by
//! line and by label stop where the pack's steps say; on a line that
//! appends to the record, the record is one message shorter than at the
//! next step (captions: recorded_captions.rs). A pack changed after it
//! was recorded, or not a pack, is refused with a notice, and nothing of
//! it is shown.
//!
//! (No program name is written here: the functions, labels and lines come
//! from the pack.)

#![cfg(not(target_arch = "wasm32"))]

use agent_loop_core::debugger::Command;
use agent_loop_core::i18n::Lang;
use agent_loop_core::lesson::{line_in, listing_shown};
use agent_loop_core::preview::text_hash;
use agent_loop_core::programs::recorded::first_line;
use agent_loop_core::session::Session;
use agent_loop_core::vocab::Code;
use serde_json::{json, Value};

#[path = "common/lesson_three.rs"]
mod lesson_three;
use lesson_three::{pack, session_of, FILE, PACK};

fn session(lang: &str) -> Session {
    session_of(lang, PACK)
}

/// The pack's statements, as `[first, last]` pairs.
fn statements(pack: &Value) -> Vec<(u32, u32)> {
    let pairs = pack["statements"].as_array().unwrap().iter();
    pairs.map(|p| (p[0].as_u64().unwrap() as u32, p[1].as_u64().unwrap() as u32)).collect()
}

/// Each scenario's id and its run in `lang`.
fn runs<'a>(pack: &'a Value, lang: &'a str) -> impl Iterator<Item = (&'a str, &'a Value)> {
    pack["scenarios"].as_array().unwrap().iter().map(move |s| (s["id"].as_str().unwrap(), &s["runs"][lang]))
}

/// Where a raw step stands: `(function, shown line)`.
fn place(step: &Value, statements: &[(u32, u32)]) -> (String, u32) {
    let line = first_line(statements, step["line"].as_u64().unwrap() as u32);
    (step["function"].as_str().unwrap().to_string(), line)
}

fn stops_at(step: &Value) -> bool {
    matches!(step["event"].as_str(), Some("line" | "call"))
}

#[test]
fn each_step_of_the_trace_is_the_packs_step() {
    let pack = pack();
    let statements = statements(&pack);
    for lang in ["zh", "en"] {
        let mut s = session(lang);
        for (id, run) in runs(&pack, lang) {
            s.load(id).unwrap();
            let trace = s.replay().trace();
            let raw = run["steps"].as_array().unwrap();
            assert_eq!(trace.steps.len(), raw.len(), "{id} {lang}");
            for (i, (step, raw)) in trace.steps.iter().zip(raw).enumerate() {
                let at = format!("{id} {lang} step {i}");
                assert_eq!(
                    (step.function.name().to_string(), line_in(Code::Python, step)),
                    place(raw, &statements),
                    "{at}"
                );
                assert_eq!(step.depth as u64, raw["depth"].as_u64().unwrap(), "{at}");
                assert_eq!(step.record_len as u64, raw["record_len"].as_u64().unwrap(), "{at}");
                assert_eq!(step.output_len as u64, raw["output_len"].as_u64().unwrap(), "{at}");
                let event = serde_json::to_value(step.event).unwrap();
                assert_eq!(event, raw["event"], "{at}");
                let locals = trace.locals_json(step);
                for (name, index) in raw["locals"].as_object().unwrap() {
                    let value = &run["values"][index.as_u64().unwrap() as usize];
                    assert_eq!(&locals[name], value, "{at}: {name}");
                }
            }
            assert_eq!(trace.record, run["record"].as_array().unwrap().clone(), "{id} {lang}");
            assert_eq!(
                trace.output,
                run["output"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|l| l.as_str().unwrap().to_string())
                    .collect::<Vec<_>>()
            );
            let printed: Vec<&str> =
                run["printed"].as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect();
            assert_eq!(trace.printed, printed, "{id} {lang}: what CPython printed at the end");
            assert_eq!(trace.result, run["values"][run["end"]["returned"].as_u64().unwrap() as usize]);
        }
    }
}

#[test]
fn every_scenario_steps_from_its_first_line_to_its_end_in_both_languages() {
    let pack = pack();
    for lang in ["zh", "en"] {
        let mut s = session(lang);
        let listing = pack["listings"][lang]["text"].as_str().unwrap();
        for (id, run) in runs(&pack, lang) {
            s.load(id).unwrap();
            assert_eq!(s.state()["program"], FILE);
            s.command(Command::Debug);
            let first = run["steps"].as_array().unwrap().iter().position(|st| st["event"] == "line").unwrap();
            assert_eq!(s.replay().position(), first, "{id} {lang}: Debug stops on the first line");
            let mut moves = 0;
            while s.replay().status() == "paused" {
                let (before, state) = (s.replay().position(), s.state());
                let (function, line) =
                    (state["currentFunction"].as_str().unwrap(), state["line"].as_u64().unwrap());
                // The line shown is a line of the listing, with code.
                let text = listing.lines().nth(line as usize - 1).unwrap();
                assert!(!text.trim().is_empty(), "{id} {lang}: line {line} of {function} is blank");
                let shown = listing_shown(
                    Code::Python,
                    s.replay().step().unwrap().function,
                    Lang::parse(lang).unwrap(),
                );
                assert!(
                    shown.line(line as u32).is_some_and(|l| l.text == text),
                    "{id} {lang}: {function}:{line}"
                );
                s.command(Command::StepInto);
                assert!(s.replay().position() > before, "{id} {lang}: a step moves on");
                moves += 1;
                assert!(moves < 10_000);
            }
            let state = s.state();
            assert_eq!(
                state["status"],
                run["values"][run["end"]["returned"].as_u64().unwrap() as usize]["status"]
            );
            assert_eq!(
                state["recordLength"].as_u64().unwrap() as usize,
                run["record"].as_array().unwrap().len()
            );
            assert_eq!(s.replay().position() + 1, s.replay().trace().steps.len(), "{id} {lang}: at the end");
        }
    }
}

#[test]
fn a_breakpoint_on_a_line_or_a_label_stops_where_the_packs_steps_say() {
    let pack = pack();
    let statements = statements(&pack);
    let labels = pack["labels"].as_object().unwrap();
    let mut s = session("en");
    for (id, run) in runs(&pack, "en") {
        s.load(id).unwrap();
        let raw = run["steps"].as_array().unwrap();
        let hits = |f: &str, line: u32| -> Vec<usize> {
            let at = |i: usize| stops_at(&raw[i]) && place(&raw[i], &statements) == (f.to_string(), line);
            // (a stop is its first step: the steps of one line after it are the same stop)
            (0..raw.len())
                .filter(|&i| {
                    at(i)
                        && !(i > 0 && at(i - 1) && raw[i]["event"] == "line" && raw[i - 1]["event"] == "line")
                })
                .collect()
        };
        let mut lines: Vec<(String, u32)> =
            raw.iter().filter(|st| stops_at(st)).map(|st| place(st, &statements)).collect();
        lines.dedup();
        for (function, line) in lines.iter().take(40) {
            s.set_breakpoints(&format!("{function}:{line}"));
            let expected = hits(function, *line);
            // (the timeline's ticks: one a stop, as Debug and Continue stop)
            let ticks = s.replay().debugger().hit_positions(&s.replay().trace().steps);
            assert_eq!(ticks, expected, "{id}: {function}:{line}: ticks");
            s.command(Command::Debug);
            assert_eq!(s.replay().position(), expected[0], "{id}: {function}:{line}");
            for next in &expected[1..] {
                s.command(Command::Continue);
                assert_eq!(s.replay().position(), *next, "{id}: {function}:{line} again");
            }
            s.toggle_breakpoint(function, &line.to_string()).unwrap();
            assert_eq!(s.replay().debugger().breakpoints().count(), 0, "{function}:{line} off");
        }
        for (label, line) in labels {
            let line = first_line(&statements, line.as_u64().unwrap() as u32);
            let function = pack["functions"]
                .as_array()
                .unwrap()
                .iter()
                .find(|f| {
                    f["start"].as_u64().unwrap() as u32 <= line && line <= f["end"].as_u64().unwrap() as u32
                })
                .unwrap();
            let expected = hits(function["name"].as_str().unwrap(), line);
            let name = function["name"].as_str().unwrap();
            assert!(s.toggle_breakpoint(name, label).unwrap(), "{label} on");
            s.command(Command::Debug);
            match expected.first() {
                Some(first) => assert_eq!(s.replay().position(), *first, "{id}: {label}"),
                None => {
                    assert_ne!(s.replay().status(), "paused", "{id}: {label} is never reached: the run ends");
                    assert_eq!(
                        s.replay().unreached_breakpoints().len(),
                        1,
                        "{id}: {label} is said unreached"
                    );
                }
            }
            assert!(!s.toggle_breakpoint(name, label).unwrap(), "{label} off");
            s.command(Command::Reset);
        }
    }
}

#[test]
fn on_a_line_that_appends_to_the_record_the_record_is_one_shorter_than_at_the_next_step() {
    let pack = pack();
    let statements = statements(&pack);
    let listing = pack["listings"]["en"]["text"].as_str().unwrap();
    let appends = format!("{}.append(", pack["record"].as_str().unwrap());
    let mut s = session("en");
    let mut checked = 0;
    for (id, run) in runs(&pack, "en") {
        s.load(id).unwrap();
        let raw = run["steps"].as_array().unwrap();
        let mut lines: Vec<(String, u32)> = raw
            .iter()
            .filter(|st| st["event"] == "line")
            .map(|st| place(st, &statements))
            .filter(|(_, l)| listing.lines().nth(*l as usize - 1).unwrap().contains(&appends))
            .collect();
        lines.dedup();
        assert!(!lines.is_empty(), "{id}: some line appends to the record");
        for (function, line) in lines {
            s.set_breakpoints(&format!("{function}:{line}"));
            s.command(Command::Debug);
            while s.replay().status() == "paused" && s.state()["line"] == line {
                let before = s.state()["recordLength"].as_u64().unwrap();
                s.command(Command::Step);
                assert_eq!(
                    s.state()["recordLength"].as_u64().unwrap(),
                    before + 1,
                    "{id}: {function}:{line}"
                );
                checked += 1;
                s.command(Command::Back);
                s.command(Command::Continue);
            }
            s.toggle_breakpoint(&function, &line.to_string()).unwrap();
            assert_eq!(s.replay().debugger().breakpoints().count(), 0);
        }
    }
    assert!(checked > 10, "{checked} appends checked");
}

#[test]
fn the_listing_and_setup_follow_the_readers_language() {
    let pack = pack();
    for lang in ["zh", "en"] {
        let s = session(lang);
        let setup =
            agent_loop_core::run::setup_text(&s.scenario().unwrap().localized(Lang::parse(lang).unwrap()));
        assert_eq!(setup, pack["setup"][lang]["text"].as_str().unwrap());
        let f = s.replay().trace().function;
        let listing = listing_shown(Code::Rust, f, Lang::parse(lang).unwrap());
        let text = pack["listings"][lang]["text"].as_str().unwrap();
        for line in &listing.lines {
            assert_eq!(line.number, Some(line.source), "the file's own numbers");
            assert_eq!(Some(line.text), text.lines().nth(line.source as usize - 1));
        }
    }
}

#[test]
fn the_picker_offers_the_packs_scenarios_and_a_recorded_run_cannot_be_changed() {
    let pack = pack();
    let mut s = session("en");
    let offered: Vec<String> = s
        .catalogue()
        .entries()
        .iter()
        .filter_map(|e| e.parsed.as_ref().ok())
        .filter(|sc| s.catalogue().scope().fits(sc))
        .map(|sc| sc.id.clone())
        .collect();
    let ids: Vec<String> = runs(&pack, "en").map(|(id, _)| id.to_string()).collect();
    assert_eq!(offered, ids);
    assert!(s.notices().is_empty(), "{:?}", s.notices());
    let refused = s.what_if(Some(&json!({"model": []}))).unwrap_err();
    assert!(refused[0].text(Lang::parse("en").unwrap()).contains("agent-loop-cli record"), "{refused:?}");
    // The listing switch stays on the Python that ran.
    s.set_code(Code::Rust);
    assert_eq!(s.replay().code(), Code::Python);
    // Two playgrounds of one pack share its program.
    let other = session("zh");
    assert_eq!(other.replay().trace().function, s.replay().trace().function);
}

/// The notice a playground given `text` says, and the program it shows.
fn refused(text: &str) -> (String, String) {
    let s = session_of("en", text);
    let en = Lang::parse("en").unwrap();
    let said: Vec<String> = s.notices().iter().map(|n| n.text(en)).collect();
    (said.join("\n"), s.state()["program"].as_str().unwrap().to_string())
}

#[test]
fn a_pack_changed_after_it_was_recorded_or_not_a_pack_is_refused_and_not_shown() {
    let pack = pack();
    let listing = pack["listings"]["en"]["text"].as_str().unwrap();
    let line = listing.lines().nth(59).unwrap();
    // One listing line changed: its hash no longer matches.
    let mut tampered = pack.clone();
    tampered["listings"]["en"]["text"] = json!(listing.replacen(line, "    pass  # changed", 1));
    let (said, program) = refused(&tampered.to_string());
    assert!(said.contains(FILE) && said.contains("hash"), "{said}");
    assert_ne!(program, FILE, "nothing of the pack is shown");
    // The same, its hash made again: the listing no longer stands where its run does.
    let moved = format!("# moved\n{listing}");
    tampered["listings"]["en"]["text"] = json!(moved);
    tampered["listings"]["en"]["hash"] = json!(format!("{:016x}", text_hash(&moved)));
    let (said, program) = refused(&tampered.to_string());
    assert!(said.contains(FILE) && said.contains("run"), "{said}");
    assert_ne!(program, FILE);
    let mut other = pack.clone();
    other["version"] = json!(2);
    let (said, _) = refused(&other.to_string());
    assert!(said.contains("version 2"), "{said}");
    let mut missing = pack.clone();
    missing["scenarios"][0]["runs"]["en"].as_object_mut().unwrap().remove("steps");
    let (said, _) = refused(&missing.to_string());
    assert!(said.contains("scenarios[0].runs.en.steps"), "{said}");
    let (said, _) = refused("{not json");
    assert!(said.contains("not JSON"), "{said}");
    let s = session_of("zh", "[]");
    let zh = Lang::parse("zh").unwrap();
    assert!(s.notices()[0].text(zh).contains(FILE), "said in the reader's language, naming the file");
}

#[test]
fn a_pack_in_one_language_is_shown_in_every_language_and_steps_into_its_nested_function() {
    let text = include_str!("../examples/lesson-one-own/lesson-one-own.pack.json");
    let pack: Value = serde_json::from_str(text).unwrap();
    let only = pack["languages"][0].as_str().unwrap();
    for lang in ["zh", "en"] {
        let mut s = session_of(lang, text);
        assert!(s.notices().is_empty(), "{:?}", s.notices());
        for (id, run) in runs(&pack, only) {
            s.load(id).unwrap();
            s.command(Command::Run);
            let trace = s.replay().trace();
            assert_eq!(trace.steps.len(), run["steps"].as_array().unwrap().len(), "{id} {lang}");
            let printed: Vec<&str> =
                run["printed"].as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect();
            assert_eq!(trace.printed, printed);
            // A nested function's frame is one deeper, in its function's listing.
            for (step, raw) in trace.steps.iter().zip(run["steps"].as_array().unwrap()) {
                assert_eq!(u64::from(step.depth), raw["depth"].as_u64().unwrap());
                assert_eq!(step.function.name(), raw["function"].as_str().unwrap());
            }
            let shown = listing_shown(Code::Python, trace.function, Lang::parse(lang).unwrap());
            let listing = pack["listings"][only]["text"].as_str().unwrap();
            assert!(shown.lines.iter().all(|l| Some(l.text) == listing.lines().nth(l.source as usize - 1)));
        }
    }
}

#[test]
fn predict_first_asks_the_questions_the_trace_answers() {
    let mut s = session("en");
    s.load("refund-under").unwrap();
    s.set_predict(true);
    s.command(Command::Run);
    let mut asked = 0;
    while let Some(ask) = s.predictions().pending() {
        let (step, right, ask) = (ask.step, ask.answer, ask.clone());
        let before = s.replay().trace().steps[step].record_len;
        assert_eq!(s.replay().position(), step, "the question waits on its line");
        let detail = s.answer(right).unwrap();
        assert_eq!(detail["correct"], true, "{detail}");
        let appends = s.replay().trace().steps[step + 1].record_len > before;
        assert!(appends || !ask.key.starts_with("record-"), "a record question is about a line that appends");
        asked += 1;
        assert!(asked < 20);
    }
    assert!(asked > 0, "some question was asked");
    assert_ne!(s.replay().status(), "paused");
}

/// A learner's move: a command, a jump on the timeline, a breakpoint
/// flipped on a line, a scenario or a language.
#[derive(Clone, Debug)]
enum Move {
    Command(usize),
    Seek(usize),
    Toggle(u32),
    Scenario(usize),
    Lang(bool),
}

fn moves() -> impl proptest::strategy::Strategy<Value = Vec<Move>> {
    use proptest::prelude::*;
    let one = prop_oneof![
        4 => (0..Command::ALL.len()).prop_map(Move::Command),
        1 => (0usize..100).prop_map(Move::Seek),
        2 => (1u32..70).prop_map(Move::Toggle),
        1 => (0usize..7).prop_map(Move::Scenario),
        1 => any::<bool>().prop_map(Move::Lang),
    ];
    proptest::collection::vec(one, 1..60)
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

    /// Whatever the learner does, the step on screen is one of the pack's:
    /// its line is a line of its function's listing where a run stops, and
    /// the record shown is the pack's record up to that step's length.
    #[test]
    fn any_moves_keep_the_step_on_a_line_the_pack_ran(moves in moves()) {
        let pack = pack();
        let ids: Vec<&str> = runs(&pack, "en").map(|(id, _)| id).collect();
        let mut s = session("en");
        for m in moves {
            match m {
                Move::Command(i) => s.command(Command::ALL[i]),
                Move::Seek(n) => s.seek(n),
                Move::Toggle(line) => {
                    let f = s.replay().shown_function();
                    let _ = s.toggle_line(f, line);
                }
                Move::Scenario(i) => s.load(ids[i % ids.len()]).unwrap(),
                Move::Lang(zh) => s.set_lang(Lang::parse(if zh { "zh" } else { "en" }).unwrap()).unwrap(),
            }
            let state = s.state();
            let trace = s.replay().trace();
            proptest::prop_assert!(s.replay().position() < trace.steps.len());
            if let Some(step) = s.replay().step().filter(|_| s.replay().started()) {
                let line = state["line"].as_u64().unwrap() as u32;
                let listing = listing_shown(Code::Python, step.function, s.lang());
                proptest::prop_assert!(listing.line(line).is_some_and(|l| !l.text.trim().is_empty()), "{state}");
                let len = state["recordLength"].as_u64().unwrap() as usize;
                proptest::prop_assert_eq!(len, step.record_len as usize);
            }
            for (f, line) in s.replay().debugger().breakpoints() {
                proptest::prop_assert!(listing_shown(Code::Python, f, s.lang()).line(line).is_some());
            }
        }
    }
}

/// A pack's scenario may share its id with a built-in one (an author's
/// `error` or `limit`): the pack's is the one offered, opened and asked
/// for. (The picker listed it twice beside the built-in one, a pack
/// opened on its scenario that had a lesson's favourite id instead of its
/// first, and asking for it said it belonged to a lesson.)
#[test]
fn a_packs_scenario_that_shares_an_id_with_a_built_in_one_is_the_packs() {
    use agent_loop_core::programs::ALL;
    use agent_loop_core::session::{FixtureDoubles, Options};
    let mut pack = pack();
    let favourite = ALL[0].opens[0];
    let other = ALL[0].scenarios.iter().copied().find(|id| *id != favourite).unwrap();
    let scenarios = pack["scenarios"].as_array_mut().unwrap();
    scenarios[1]["id"] = json!(favourite);
    scenarios[2]["id"] = json!(other);
    let ids: Vec<String> = scenarios.iter().map(|s| s["id"].as_str().unwrap().to_string()).collect();
    let text = pack.to_string();
    let s = session_of("en", &text);
    assert_eq!(s.state()["scenario"], ids[0].as_str(), "the pack's first opens");
    let html = agent_loop_playground::view::picker(
        s.catalogue().entries(),
        s.catalogue().current(),
        s.catalogue().scope(),
        s.lang(),
    );
    let offered: Vec<&str> =
        html.split(r#"<option value=""#).skip(1).map(|o| o.split('"').next().unwrap()).collect();
    assert_eq!(offered, ids, "only the pack's, once each, in its order: {html}");
    let program_src = Some((FILE.to_string(), Ok(text.clone())));
    let options =
        Options { lang: "en".into(), program_src, scenario: favourite.into(), ..Options::default() };
    let asked = Session::new(Box::new(FixtureDoubles), &options).unwrap();
    assert_eq!(asked.state()["scenario"], favourite);
    assert_eq!(asked.state()["program"], s.state()["program"], "the pack's scenario, not the lesson's");
    assert!(asked.notices().is_empty(), "{:?}", asked.notices());
}
