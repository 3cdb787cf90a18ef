//! Big but legal inputs are shown bounded (issue 23 §1): whatever one
//! record holds — thousands of blocks in one reply, a multi-megabyte error
//! text — every piece the page draws at a step stays small, so that a move
//! costs the same as on a lesson's own scenario.
//!
//! Lessons tested: lesson_one.

use agent_loop_core::debugger::Command;
use agent_loop_core::scenario::Scenario;
use agent_loop_core::session::{FixtureDoubles, Options, Session};
use agent_loop_core::step_view::step_view;
use agent_loop_playground::{figure, view};
use serde_json::{json, Value};

/// A lesson-one scenario whose first reply holds `blocks`.
fn big(id: &str, blocks: Vec<Value>, process: Value) -> Scenario {
    Scenario::from_value(json!({
        "id": id, "function": "run_loop", "title": {"en": id, "zh": id}, "max_calls": 2,
        "model": [{"stop_reason": "tool_use", "content": blocks},
                  {"stop_reason": "end_turn", "content": [{"type": "text", "text": "done"}]}],
        "process": process,
    }))
    .unwrap()
}

fn ok() -> Value {
    json!({"returncode": 0, "stdout": "ok"})
}

fn cases() -> Vec<Scenario> {
    let uses = (0..3_000)
        .map(|i| json!({"type": "tool_use", "id": format!("u{i}"), "name": "run_main", "input": {}}));
    let mut texts: Vec<Value> = (0..130_000).map(|_| json!({"type": "text", "text": ""})).collect();
    texts.push(json!({"type": "tool_use", "id": "t", "name": "run_main", "input": {}}));
    let one = vec![json!({"type": "tool_use", "id": "t", "name": "run_main", "input": {}})];
    vec![
        big("uses", uses.collect(), ok()),
        big("texts", texts, ok()),
        big("oserror", one.clone(), json!({"os_error": "E".repeat(3_900_000)})),
        big(
            "stdout",
            one,
            json!({"returncode": 1, "stdout": "x".repeat(3_900_000), "stderr": "y".repeat(3_900_000)}),
        ),
    ]
}

/// Everything the page writes for the step on screen (render.rs, draw_step).
fn drawn(s: &Session) -> Vec<(&'static str, String)> {
    let view = step_view(s);
    let (lang, trace, replay) = (s.lang(), s.replay().trace(), s.replay());
    let moment = figure::Moment {
        previous_len: replay.previous_len(),
        opened: replay.opened(),
        part: view.part,
        started: view.started,
        ..figure::Moment::at(trace, view.position, lang, figure::Layout::WIDE)
    };
    let [head, record, staged] = figure::render_parts(&moment);
    vec![
        ("head", head),
        ("record", record),
        ("staged", staged),
        ("card", figure::card_text(trace, replay.opened(), replay.record_len(), lang)),
        ("text alternative", figure::text_alternative(trace, replay.record_len(), lang)),
        ("locals", view.locals.as_ref().map(|l| view::locals(l, lang, true)).unwrap_or_default()),
        ("output", view::output_with(&trace.output, view.output_len, lang, view.at_end.then_some(trace))),
        ("caption", format!("{}{}{}{}", view.caption.0, view.caption.1, view.live, view.stack)),
    ]
}

/// At most this many bytes for one piece of one step (the opened card's
/// full text: three times as many, it is escaped JSON of up to
/// `CARD_CHARS`).
const PIECE: usize = 60_000;

#[test]
fn every_piece_of_a_step_stays_small_whatever_the_record_holds() {
    for scenario in cases() {
        let id = scenario.id.clone();
        let options = Options { scenario: "report".into(), lang: "en".into(), ..Options::default() };
        let mut s = Session::new(Box::new(FixtureDoubles), &options).unwrap();
        s.set_step_cap(40_000);
        // The setup panel (drawn once per scenario) shows a bounded part.
        let setup = view::setup(&scenario, agent_loop_core::i18n::Lang::default_lang(), &[]);
        let code = &setup[setup.find("<pre").unwrap()..setup.find("</pre>").unwrap()];
        assert!(code.len() <= PIECE, "{id}: the setup code is {} bytes", code.len());
        // What it shows is the start of the setup CPython runs, line for line.
        let full = agent_loop_core::run::setup_text(&scenario);
        let (head, more) = agent_loop_core::run::setup_head(&scenario, view::SETUP_LINES);
        let lines = head.lines().count();
        assert!(
            full.lines().take(lines).eq(head.lines()),
            "{id}: the setup shown is the start of the setup run"
        );
        assert_eq!(more, full.lines().count() > lines, "{id}");
        // (and an editor is offered only for a field small enough to edit)
        assert!(
            setup.len() <= 3 * agent_loop_playground::explore::EDIT_CHARS,
            "{id}: the setup is {} bytes",
            setup.len()
        );
        s.add_file("big.json", Ok(scenario), None).unwrap();
        s.load(&id).unwrap();
        s.command(Command::Debug);
        let total = s.replay().trace().steps.len();
        let mut worst = (0, "", 0);
        for position in (0..total).step_by((total / 200).max(1)).chain([total - 1]) {
            s.seek(position);
            // (the last message's card opened, as a reader would to see it all)
            let len = s.replay().record_len();
            if len > 0 && s.replay().opened() != Some(len - 1) {
                s.toggle_card(len - 1);
            }
            for (piece, text) in drawn(&s) {
                let text = if piece == "card" { &text[..text.len() / 3] } else { &text[..] };
                if text.len() > worst.2 {
                    worst = (position, piece, text.len());
                }
            }
        }
        let (position, piece, bytes) = worst;
        assert!(bytes <= PIECE, "{id}: the {piece} at step {position} is {bytes} bytes");
        let shown = drawn(&s).into_iter().find(|(p, _)| *p == "record").unwrap().1;
        if id == "uses" || id == "texts" {
            assert!(shown.contains("blocks not shown"), "{id}: the figure says what it leaves out");
            // (a big count is written as a reader reads it: 2,988)
            let count = shown.split(" blocks not shown").next().and_then(|s| s.rsplit("… ").next());
            assert!(count.is_some_and(|c| c.contains(',')), "{id}: the count is grouped: {count:?}");
        }
    }
}

#[test]
fn a_step_at_the_end_of_a_long_tool_loop_looks_back_only_as_far_as_it_moved() {
    // The figure's last stop_reason was seen before the loop over 3,000
    // tool requests began, some 50,000 steps back.
    let scenario = cases().remove(0);
    let options = Options { scenario: "report".into(), lang: "en".into(), ..Options::default() };
    let mut s = Session::new(Box::new(FixtureDoubles), &options).unwrap();
    s.set_step_cap(80_000);
    s.add_file("big.json", Ok(scenario), None).unwrap();
    s.load("uses").unwrap();
    s.command(Command::Debug);
    let total = s.replay().trace().steps.len();
    assert!(total > 50_000, "{total} steps");
    let reason = |s: &Session| drawn(s)[0].1.contains("stop_reason: tool_use");
    // (where the loop has saved its 3,000 results)
    let saved = s.replay().trace().steps.iter().rposition(|step| step.label == "loop.save_results").unwrap();
    s.seek(saved);
    let before = agent_loop_core::walk::looked_at();
    assert!(reason(&s), "the last stop_reason is shown after the loop");
    let first = agent_loop_core::walk::looked_at() - before;
    // Fifty steps back and forth: each looks at the steps it moved over.
    let before = agent_loop_core::walk::looked_at();
    for command in [Command::Back; 25].into_iter().chain([Command::StepInto; 25]) {
        s.command(command);
        assert!(reason(&s), "at step {}", s.replay().position());
    }
    let moves = agent_loop_core::walk::looked_at() - before;
    assert!(first > 40_000, "the first look walks the loop back: {first} steps");
    assert!(moves <= 100, "fifty moves looked at {moves} steps");
    // Back and forth across the step where the next request starts (no
    // stop_reason there, the loop's before it).
    let steps = &s.replay().trace().steps;
    let ask = saved + steps[saved..].iter().position(|step| step.label == "loop.ask").unwrap();
    s.seek(ask);
    assert!(!reason(&s), "a new request: no stop_reason yet");
    let before = agent_loop_core::walk::looked_at();
    for _ in 0..25 {
        s.command(Command::Back);
        assert!(reason(&s), "back from the new request, at step {}", s.replay().position());
        s.command(Command::StepInto);
        assert!(!reason(&s), "at the new request again, step {}", s.replay().position());
    }
    let across = agent_loop_core::walk::looked_at() - before;
    assert!(across <= 100, "fifty moves across a new request looked at {across} steps");
}

#[test]
fn the_setup_head_is_the_start_of_the_setup_for_every_shipped_scenario() {
    for (file, parsed) in agent_loop_core::scenario::load_shipped() {
        let scenario = parsed.unwrap_or_else(|p| panic!("{file}: {p:?}"));
        let full = agent_loop_core::run::setup_text(&scenario);
        for lines in [1, 3, 10, 40, view::SETUP_LINES] {
            let (head, more) = agent_loop_core::run::setup_head(&scenario, lines);
            let n = head.lines().count();
            assert_eq!(n, lines.min(full.lines().count()), "{file}, {lines} lines");
            assert!(full.lines().take(n).eq(head.lines()), "{file}, {lines} lines");
            assert_eq!(more, full.lines().count() > n, "{file}, {lines} lines");
        }
    }
}

#[test]
fn a_growing_list_is_read_back_with_its_count_at_every_step() {
    // (past 50 items a list's preview changes only in its closing count;
    // the table keeps such a value as the one before it with a new count)
    let scenario = cases().remove(0);
    let trace = agent_loop_core::run::record_scenario(&scenario);
    let mut seen = 0;
    for step in trace.steps.iter().filter(|s| s.label == "loop.stage_result") {
        let results = trace.local(step, "results").unwrap();
        let items = results.as_array().unwrap();
        let shown = items.iter().filter(|r| r.is_object()).count();
        let more = items
            .last()
            .and_then(Value::as_str)
            .map_or(0, |m| m.trim_start_matches("… (+").trim_end_matches(" more)").parse::<usize>().unwrap());
        assert_eq!(shown + more, seen, "the results before tool {seen}");
        assert_eq!(shown, seen.min(agent_loop_core::preview::PREVIEW_ITEMS));
        seen += 1;
    }
    assert_eq!(seen, 3_000);
    // 3,000 copies of a 50-item preview would be some 13 MB.
    let held = trace.locals.held();
    assert!(held < 4_000_000, "the locals hold {held} bytes");
}

#[test]
fn big_counts_are_grouped_by_thousands() {
    let counts =
        [(0, "0"), (7, "7"), (999, "999"), (1_000, "1,000"), (49_988, "49,988"), (1_234_567, "1,234,567")];
    for (n, written) in counts {
        assert_eq!(agent_loop_core::i18n::grouped(n), written);
    }
    // What the editor note and the step counter say, in both languages: a
    // model field of 3,000 tool calls is too big to edit; its run has
    // thousands of steps. (The figure's count: the test above.)
    let uses = cases().into_iter().next().unwrap();
    for code in ["en", "zh"] {
        let lang = agent_loop_core::i18n::Lang::parse(code).unwrap();
        let editors = agent_loop_playground::explore::editors(&uses.localized(lang), lang, &[]);
        let note = editors.split("data-edit-skipped=\"model\"").nth(1).expect("the model is not editable");
        let note = note.split("<span>").nth(2).unwrap_or_default();
        let at = note.find(|c: char| c.is_ascii_digit()).unwrap_or(note.len());
        let number: String = note[at..].chars().take_while(|c| c.is_ascii_digit() || *c == ',').collect();
        assert_eq!(
            number,
            agent_loop_core::i18n::grouped(number.replace(',', "").parse().unwrap_or(0)),
            "{code}"
        );
        assert!(number.contains(','), "{code}: {note:.300}");
        let options = Options { scenario: "report".into(), lang: code.into(), ..Options::default() };
        let mut s = Session::new(Box::new(FixtureDoubles), &options).unwrap();
        s.add_file("uses.json", Ok(uses.clone()), None).unwrap();
        s.load("uses").unwrap();
        s.command(Command::Debug);
        s.seek(2_500);
        let counter = step_view(&s).counter;
        assert!(counter.contains("2,501") && counter.matches(',').count() == 2, "{code}: {counter}");
    }
}

#[test]
fn the_editor_limit_counts_characters_not_bytes() {
    // 40,000 Chinese characters are 120,000 bytes: under the limit of
    // 100,000 characters (docs/element-api.md#limits), so editable.
    let text = json!({"type": "text", "text": "字".repeat(40_000)});
    let scenario = big(
        "zh-text",
        vec![text, json!({"type": "tool_use", "id": "t", "name": "run_main", "input": {}})],
        ok(),
    );
    let lang = agent_loop_core::i18n::Lang::parse("zh").unwrap();
    let editors = agent_loop_playground::explore::editors(&scenario, lang, &[]);
    assert!(editors.contains(r#"data-edit="model""#) && !editors.contains(r#"data-edit-skipped="model""#));
}
