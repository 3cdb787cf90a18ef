//! A recorded run as bytes (issue 46, break 8: a long author's file is
//! recorded in the page's worker, and the page shows what it recorded).
//! Every shipped scenario's run, in each language, reads back to the same
//! run: written again, byte for byte; as JSON, the same trace. Bytes that
//! are not such a run are refused, never a panic. A session given a run
//! recorded elsewhere shows it without recording, and only for the
//! scenario, language and limits it was recorded for. A localized scenario
//! replays the replies its JSON holds (the page's key and doubles read it).
//! A run shown again (another scenario, then it; the other language) is
//! read back a slice per call first, never whole in the call that shows it.
//!
//! Lessons tested: lesson_one, lesson_two.

use agent_loop_core::i18n::Lang;
use agent_loop_core::lesson;
use agent_loop_core::pack::Refusal;
use agent_loop_core::run::CheckRun;
use agent_loop_core::scenario::{load_shipped, Scenario};
use agent_loop_core::session::recorder::{
    give, read_at_once, read_more, record_elsewhere, run_key, runs_read,
};
use agent_loop_core::session::{FixtureDoubles, Options, Session};
use agent_loop_core::trace::recordings;
use agent_loop_core::wire;
use serde_json::Value;

fn json_of(run: &CheckRun) -> String {
    serde_json::to_string(&lesson::trace_json(&run.trace)).unwrap()
}

#[test]
fn every_shipped_run_reads_back_to_the_same_run() {
    let mut runs = 0;
    for (file, scenario) in load_shipped() {
        let Ok(scenario) = scenario else { continue };
        for code in ["zh", "en"] {
            let localized = scenario.localized(Lang::parse(code).unwrap());
            let run = CheckRun::record(&localized, 100_000);
            let bytes = wire::write(&run, 7);
            assert_eq!(wire::key(&bytes), Ok(7));
            let read = wire::read(&bytes).unwrap_or_else(|e| panic!("{file} {code}: {e:?}"));
            assert_eq!(wire::write(&read, 7), bytes, "{file} {code}: written again");
            assert_eq!(json_of(&read), json_of(&run), "{file} {code}: the same trace");
            assert_eq!(read.counts(), run.counts(), "{file} {code}: what the doubles handed out");
            runs += 1;
        }
    }
    assert!(runs >= 40, "every shipped scenario in both languages ({runs})");
}

#[test]
fn bytes_that_are_not_a_run_are_refused_without_a_panic() {
    let (_, scenario) = load_shipped().into_iter().find(|(f, _)| f.contains("report")).unwrap();
    let run = CheckRun::record(&scenario.unwrap(), 100_000);
    let bytes = wire::write(&run, 1);
    for cut in 0..bytes.len() {
        assert!(wire::read(&bytes[..cut]).is_err(), "cut at {cut} of {}", bytes.len());
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(wire::read(&longer).is_err(), "a byte after the run");
    // Every byte changed in turn: read back or refused, never a panic (and
    // what reads back is a run every step of which fits its tables).
    let mut read_back = 0;
    for at in (0..bytes.len()).step_by(3) {
        let mut changed = bytes.clone();
        changed[at] ^= 0x5a;
        if let Ok(run) = wire::read(&changed) {
            let json = json_of(&run);
            assert!(!json.is_empty());
            read_back += 1;
        }
    }
    assert!(read_back < bytes.len() / 3, "most changes are refused");
}

fn file(id: &str) -> String {
    let text = std::fs::read_to_string("fixtures/scenarios/report.json").unwrap();
    let mut value: serde_json::Value = serde_json::from_str(&text).unwrap();
    value["id"] = id.into();
    value.to_string()
}

fn opening(text: &str, lang: &str, time_budget: &str) -> Options {
    Options {
        scenario: "given".into(),
        lang: lang.into(),
        time_budget: time_budget.into(),
        clock: Some(|| 0.0),
        files: vec![("lessons/given.json".into(), Ok(text.to_string()))],
        ..Options::default()
    }
}

#[test]
fn a_run_given_from_elsewhere_is_shown_without_recording_it_again() {
    let text = file("given");
    let scenario = Scenario::parse(&text).unwrap();
    let en = Lang::parse("en").unwrap();
    let limits =
        Session::new(Box::new(FixtureDoubles), &opening(&text, "en", "")).unwrap().limits().to_owned();
    let bytes = record_elsewhere(&FixtureDoubles, &scenario, en, limits).unwrap();
    assert_eq!(wire::key(&bytes), Ok(run_key(&scenario.localized(en), &limits)));
    give(bytes.clone(), true).unwrap();

    let before = recordings();
    let mut s = Session::new(Box::new(FixtureDoubles), &opening(&text, "en", "")).unwrap();
    assert_eq!(s.scenario().unwrap().id, "given");
    assert_eq!(recordings() - before, 0, "its checks and its display read the run given");
    let shown = s.replay().trace().steps.len();
    assert!(shown > 10);
    s.load("report").unwrap();
    assert_eq!(s.load("given"), Err(Refusal::Reading), "read back a slice per task first");
    while read_more() {}
    s.load("given").unwrap();
    assert_eq!(recordings() - before, 1, "loading it again reads it again (report was recorded)");
    // Given again without reading it now: read when it is shown.
    give(bytes, false).unwrap();
    let before = recordings();
    let again = Session::new(Box::new(FixtureDoubles), &opening(&text, "en", "")).unwrap();
    assert_eq!((recordings() - before, again.replay().trace().steps.len()), (0, shown));
    let before = recordings();

    // Another language, other limits, another content: recorded here.
    s.set_lang(Lang::parse("zh").unwrap()).unwrap();
    assert_eq!(recordings() - before, 1, "not given in Chinese");
    let before = recordings();
    Session::new(Box::new(FixtureDoubles), &opening(&text, "en", "5s")).unwrap();
    assert_eq!(recordings() - before, 1, "not given under a time budget of 5 s");
    let before = recordings();
    let other = file("given").replace("\"max_calls\"", "\"note\": \"other\", \"max_calls\"");
    assert_ne!(other, text);
    Session::new(Box::new(FixtureDoubles), &opening(&other, "en", "")).unwrap();
    assert_eq!(recordings() - before, 1, "not given for another file's content");
    assert!(give(b"not a run".to_vec(), true).is_err());
}

#[test]
fn a_language_whose_table_has_not_arrived_is_not_recorded_elsewhere() {
    // (its words would be "?": the run the page showed said "?" for the
    // question and the output, found by the review of the worker)
    let waiting = agent_loop_core::i18n::expect("xw", "Waiting", "xw", "xw");
    let scenario = Scenario::parse(&file("given")).unwrap();
    let limits = *Session::new(Box::new(FixtureDoubles), &Options::default()).unwrap().limits();
    assert!(record_elsewhere(&FixtureDoubles, &scenario, waiting, limits).is_none());
    assert!(record_elsewhere(&FixtureDoubles, &scenario, Lang::parse("en").unwrap(), limits).is_some());
}

#[test]
fn a_run_is_read_back_a_slice_at_a_time_to_the_same_run() {
    // (break 8: the page reads a long run over several tasks, none of
    // which reads it whole)
    let (_, scenario) = load_shipped().into_iter().find(|(f, _)| f.contains("report")).unwrap();
    let run = CheckRun::record(&scenario.unwrap(), 100_000);
    let bytes = wire::write(&run, 3);
    let steps = run.trace.steps.len();
    for slice in [1, 7, 50, steps, wire::SLICE_STEPS] {
        let mut reading = wire::Reading::in_slices_of(slice);
        let mut slices = 1;
        while !reading.advance(&bytes).unwrap() {
            slices += 1;
        }
        // the head, the steps a slice at a time, the locals, the record (a
        // few short messages: one slice), the rest
        assert_eq!(slices, 1 + steps.div_ceil(slice) + 3, "slices of {slice} steps");
        let read = reading.finish(&bytes).unwrap();
        assert_eq!(wire::write(&read, 3), bytes, "read in slices of {slice}");
    }
    // A record of long messages (a reply of 6,000 tool calls, their
    // results): each long message is a slice of its own.
    let mut value: Value = serde_json::from_str(&file("long")).unwrap();
    let calls: Vec<Value> = (0..6_000)
        .map(|i| serde_json::json!({ "type": "tool_use", "id": format!("u{i}"), "name": "run_main", "input": {} }))
        .collect();
    value["model"][0] = serde_json::json!({ "stop_reason": "tool_use", "content": calls });
    let long = CheckRun::record(&Scenario::parse(&value.to_string()).unwrap(), 1_000_000);
    let long_bytes = wire::write(&long, 3);
    let (steps, record) = (long.trace.steps.len(), &long.trace.record);
    let over = record.iter().filter(|m| m.to_string().len() >= wire::SLICE_RECORD_BYTES).count();
    assert!(over >= 2, "the reply and its results are long");
    let mut reading = wire::Reading::default();
    let mut slices = 1;
    while !reading.advance(&long_bytes).unwrap() {
        slices += 1;
    }
    let record_slices = slices - (1 + steps.div_ceil(wire::SLICE_STEPS) + 2);
    assert!(
        record_slices >= over && record_slices <= record.len(),
        "{record_slices} slices, {over} long messages"
    );
    assert_eq!(wire::write(&reading.finish(&long_bytes).unwrap(), 3), long_bytes);
    // Cut anywhere, read in slices: refused at some slice, never a panic.
    for cut in (0..bytes.len()).step_by(11) {
        let mut reading = wire::Reading::in_slices_of(7);
        assert!(std::iter::repeat_with(|| reading.advance(&bytes[..cut]))
            .find(|r| r != &Ok(false))
            .unwrap()
            .is_err());
    }
}

#[test]
fn a_run_given_to_be_read_now_is_read_a_slice_per_call_then_shown() {
    let text = file("sliced");
    let scenario = Scenario::parse(&text).unwrap();
    let en = Lang::parse("en").unwrap();
    let mut options = opening(&text, "en", "");
    options.scenario = "sliced".into();
    let limits = Session::new(Box::new(FixtureDoubles), &options).unwrap().limits().to_owned();
    let bytes = record_elsewhere(&FixtureDoubles, &scenario, en, limits).unwrap();
    let steps = wire::read(&bytes).unwrap().trace.steps.len();
    give(bytes, true).unwrap();
    let mut calls = 1;
    while read_more() {
        calls += 1;
    }
    assert_eq!(
        calls,
        1 + steps.div_ceil(wire::SLICE_STEPS) + 3,
        "the head, the steps, the locals, the record, the rest"
    );
    assert!(!read_more(), "nothing is left to read");
    let before = recordings();
    let s = Session::new(Box::new(FixtureDoubles), &options).unwrap();
    assert_eq!((recordings() - before, s.replay().trace().steps.len()), (0, steps), "shown as read");
    // A run whose bytes do not read is not shown: its file is recorded here.
    let mut broken = record_elsewhere(&FixtureDoubles, &scenario, en, limits).unwrap();
    let last = broken.len() - 1;
    broken[last] = 0xff;
    give(broken, true).unwrap();
    while read_more() {}
    let before = recordings();
    Session::new(Box::new(FixtureDoubles), &options).unwrap();
    assert_eq!(recordings() - before, 1, "recorded here");
}

#[test]
fn a_run_is_keyed_by_the_whole_file() {
    // (found by review: the key hashed a long string's preview only, so two
    // versions of a file that differ past its 400th character were one)
    let en = Lang::parse("en").unwrap();
    let limits = *Session::new(Box::new(FixtureDoubles), &Options::default()).unwrap().limits();
    let with = |fix: char| {
        let mut value: serde_json::Value = serde_json::from_str(&file("long")).unwrap();
        let mut said = "E".repeat(5_000);
        said.replace_range(2_500..2_501, &fix.to_string());
        value["process"] = serde_json::json!({ "os_error": said });
        Scenario::parse(&value.to_string()).unwrap().localized(en)
    };
    assert_ne!(
        run_key(&with('x'), &limits),
        run_key(&with('y'), &limits),
        "a character in the middle of a long text"
    );
    assert_eq!(run_key(&with('x'), &limits), run_key(&with('x'), &limits));
}

#[test]
fn a_localized_scenario_replays_the_replies_its_json_holds() {
    // (its replies are read where they are in its JSON: the two never part,
    // and a scenario with nothing to translate shares its JSON)
    let mut shared = 0;
    for (file, scenario) in load_shipped() {
        let Ok(scenario) = scenario else { continue };
        for code in ["zh", "en"] {
            let local = scenario.localized(Lang::parse(code).unwrap());
            let in_json = local.raw.get("model").and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
            assert_eq!(&local.model[..], in_json, "{file} {code}");
            let texts = serde_json::to_string(&local.model[..]).unwrap();
            assert!(!texts.contains("\"zh\":") || !texts.contains("\"en\":"), "{file} {code}: one language");
            let one_question =
                scenario.raw.get("question").is_none_or(|q| q.as_str() == Some(&local.question));
            let replies = serde_json::to_string(&scenario.raw["model"]).unwrap();
            if one_question && !replies.contains("\"zh\"") {
                assert!(std::rc::Rc::ptr_eq(&local.raw, &scenario.raw), "{file} {code}: shared");
                shared += 1;
            }
        }
    }
    assert!(shared > 0, "some scenario has nothing to translate");
}

#[test]
fn a_file_being_recorded_is_said_until_it_is_added() {
    let options =
        Options { recording: "big/a.json big/b.json".into(), clock: Some(|| 0.0), ..Options::default() };
    let mut s = Session::new(Box::new(FixtureDoubles), &options).unwrap();
    let recording = |s: &Session| {
        let said = s.notices().iter().filter(|n| n.key == "notice_src_recording" && n.is_progress());
        said.flat_map(|n| n.values.iter().map(|(_, v)| v.clone())).collect::<Vec<_>>()
    };
    assert_eq!(recording(&s), ["big/a.json", "big/b.json"]);
    let text = file("arrived");
    s.add_file("big/a.json", Scenario::parse(&text), Some(&text)).unwrap();
    assert_eq!(recording(&s), ["big/b.json"], "said until it is added");
    assert!(s.take_changes().notices, "the notice box is drawn again");
}

#[test]
fn the_scenario_asked_for_is_said_missing_only_once_no_file_being_recorded_holds_it() {
    // (the notice box said "there is no scenario uses" beside "uses.json is
    // being recorded" while the file that holds it was on its way)
    let missing = |s: &Session| s.notices().iter().filter(|n| n.key == "notice_scenario").count();
    let options = |recording: &str| Options {
        scenario: "uses".into(),
        recording: recording.into(),
        clock: Some(|| 0.0),
        ..Options::default()
    };
    assert_eq!(
        missing(&Session::new(Box::new(FixtureDoubles), &options("")).unwrap()),
        1,
        "no file on its way"
    );
    let mut s = Session::new(Box::new(FixtureDoubles), &options("big/a.json big/b.json")).unwrap();
    assert_eq!(missing(&s), 0, "a file on its way may hold it");
    let other = file("other");
    s.add_file("big/a.json", Scenario::parse(&other), Some(&other)).unwrap();
    assert_eq!(missing(&s), 0, "big/b.json is still on its way");
    s.take_changes();
    let another = file("another");
    s.add_file("big/b.json", Scenario::parse(&another), Some(&another)).unwrap();
    assert_eq!(missing(&s), 1, "neither file held it: said");
    assert!(s.take_changes().notices);
    // A file on its way that holds it: never said.
    let mut s = Session::new(Box::new(FixtureDoubles), &options("big/uses.json")).unwrap();
    let uses = file("uses");
    s.add_file("big/uses.json", Scenario::parse(&uses), Some(&uses)).unwrap();
    assert_eq!(missing(&s), 0);
    // A long file come after the opening (said missing then): kept back
    // while it is recorded, said again if it does not hold it.
    let mut s = Session::new(Box::new(FixtureDoubles), &options("")).unwrap();
    assert_eq!(missing(&s), 1);
    s.file_notice(agent_loop_core::session::notice::recording("big/late.json"));
    let progress = |s: &Session| s.notices().iter().filter(|n| n.is_progress()).count();
    assert_eq!((missing(&s), progress(&s)), (0, 1), "being recorded, not missing");
    s.add_file("big/late.json", Scenario::parse(&other), Some(&other)).unwrap();
    assert_eq!((missing(&s), progress(&s)), (1, 0), "it did not hold it");
}

#[test]
fn a_run_shown_again_is_read_a_slice_per_call_before_it_is_shown() {
    // (break 8: a switch of language or a load of the file again read the
    // run's bytes whole, in the task that showed it)
    let text = file("again");
    let scenario = Scenario::parse(&text).unwrap();
    let mut options = opening(&text, "en", "");
    options.scenario = "again".into();
    let limits = *Session::new(Box::new(FixtureDoubles), &options).unwrap().limits();
    let [en, zh] = ["en", "zh"].map(|c| Lang::parse(c).unwrap());
    let bytes = record_elsewhere(&FixtureDoubles, &scenario, en, limits).unwrap();
    let steps = wire::read(&bytes).unwrap().trace.steps.len();
    give(bytes.clone(), true).unwrap();
    while read_more() {}
    // A file just added opens on the run its checks read: nothing to read first.
    let mut added = Session::new(
        Box::new(FixtureDoubles),
        &Options { files: vec![], scenario: "report".into(), ..options.clone() },
    )
    .unwrap();
    added.add_file("lessons/again.json", Scenario::parse(&text), Some(&text)).unwrap();
    assert_eq!(added.load("again"), Ok(()));
    give(bytes, true).unwrap();
    while read_more() {}
    give(record_elsewhere(&FixtureDoubles, &scenario, zh, limits).unwrap(), false).unwrap();
    let (before, whole) = (recordings(), read_at_once());
    let mut s = Session::new(Box::new(FixtureDoubles), &options).unwrap();
    assert_eq!((recordings() - before, read_at_once() - whole), (0, 0), "opened on the run read as it came");

    // The other language: refused, nothing changed, until its slices are read.
    for _ in 0..3 {
        s.command(agent_loop_core::debugger::Command::Step);
    }
    let at = s.replay().position();
    assert!(at > 0);
    s.take_changes();
    assert_eq!(s.set_lang(zh), Err(Refusal::Reading));
    assert_eq!((s.lang(), s.replay().position(), s.take_changes().lang), (en, at, false), "nothing changed");
    let mut calls = 0;
    while read_more() {
        calls += 1;
    }
    assert_eq!(
        calls + 1,
        1 + steps.div_ceil(wire::SLICE_STEPS) + 3,
        "the head, the steps, the locals, the record, the rest"
    );
    s.set_lang(zh).unwrap();
    assert_eq!((s.lang(), s.replay().position()), (zh, at), "switched, at the same step");
    // Another scenario, then the file again: read again, a slice per call.
    s.load("report").unwrap();
    assert_eq!(s.load("again"), Err(Refusal::Reading));
    assert_eq!(s.replay().trace().scenario, "report", "still on report");
    while read_more() {}
    s.load("again").unwrap();
    assert_eq!(s.replay().trace().steps.len(), steps);
    assert_eq!(read_at_once() - whole, 0, "no run read whole in the call that showed it");
    assert_eq!(recordings() - before, 1, "report alone was recorded");
    // A second playground adding the same file: refused until its run is
    // read again, a slice per call, then added on it.
    let mut second =
        Session::new(Box::new(FixtureDoubles), &Options { files: vec![], ..options.clone() }).unwrap();
    let (before, parsed) = (recordings(), Scenario::parse(&text));
    assert_eq!(second.add_file("lessons/again.json", parsed.clone(), Some(&text)), Err(Refusal::Reading));
    while read_more() {}
    assert_eq!(second.add_file("lessons/again.json", parsed, Some(&text)), Ok("again".into()));
    assert_eq!((recordings() - before, read_at_once() - whole), (0, 0), "its checks read the run read");
    // A run read for a show that did not happen is let go once another is read.
    assert_eq!(s.load("again"), Err(Refusal::Reading));
    while read_more() {}
    assert_eq!(runs_read(), 1);
    assert_eq!(s.set_lang(en), Err(Refusal::Reading), "the other language's reading starts");
    assert_eq!(runs_read(), 0, "the one read before is let go");
    s.load("report").unwrap();
    // A run given but not read is read whole when nothing asks first (a
    // session opened on it): counted.
    s.load("report").unwrap();
    Session::new(Box::new(FixtureDoubles), &options).unwrap();
    assert_eq!(read_at_once() - whole, 1);
}

#[test]
fn back_from_a_what_if_the_lessons_run_kept_beside_it_is_shown() {
    // (it was recorded again, or, for a long file from the worker, read
    // again whole in the task that showed it)
    let mut s =
        Session::new(Box::new(FixtureDoubles), &Options { clock: Some(|| 0.0), ..Options::default() })
            .unwrap();
    let json_of_trace =
        |t: &agent_loop_core::run::Trace| serde_json::to_string(&lesson::trace_json(t)).unwrap();
    let lesson = json_of_trace(s.replay().trace());
    let edit = serde_json::json!({ "model": [{ "stop_reason": "end_turn", "content": [{ "type": "text", "text": "no" }] }] });
    s.what_if(Some(&edit)).unwrap();
    assert!(s.what_if_state().changed.is_some());
    let before = recordings();
    s.what_if(None).unwrap();
    assert_eq!(recordings() - before, 0, "not recorded again");
    assert_eq!(json_of_trace(s.replay().trace()), lesson, "the lesson's run");
}
