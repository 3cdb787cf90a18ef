//! The listings shown are the code that ran: every step points at a real
//! visible line, every statement has a snapshot, and every statement is
//! reached by some shipped scenario; lesson two's label tables in
//! docs/trace-format.md are its listings'.
//!
//! Lessons tested: lesson_one, lesson_two.

use agent_loop_core::lesson::{self, listing};
use agent_loop_core::programs::{self, lesson_one, lesson_two};
use agent_loop_core::run::record_scenario;
use agent_loop_core::scenario::load_shipped;
use agent_loop_core::trace::{Attach, Event, Function};
use agent_loop_core::vocab::Code;
use std::collections::BTreeSet;

/// Lines that some instrumentation line points at, per the same rules the
/// recorder uses.
fn instrumented(function: Function) -> BTreeSet<u32> {
    let l = listing(function);
    l.lines
        .iter()
        .filter(|line| line.hidden)
        .map(|line| {
            let attach =
                if line.text.trim_start().starts_with("head!(") { Attach::Above } else { Attach::Next };
            l.display_line(line.source, attach)
        })
        .collect()
}

#[test]
fn listings_are_cut_from_runtime_rs() {
    for f in lesson_one::FUNCTIONS {
        let l = listing(f);
        assert!(l.len() > 5, "{f:?} listing too short");
        let sig = l.line(l.signature_line()).unwrap();
        assert!(sig.text.starts_with(&format!("pub fn {}(", f.name())), "{f:?}: {}", sig.text);
        assert!(l.lines.iter().any(|x| x.hidden), "{f:?} has instrumentation to hide");
        for x in &l.lines {
            assert_eq!(lesson_one::PROGRAM.rust.compiled().lines().nth(x.source as usize - 1), Some(x.text));
            assert_eq!(x.hidden, x.number.is_none());
            if x.hidden {
                assert!(!x.text.contains("before!(") || x.text.trim_start().starts_with("before!("));
            }
        }
        // Numbers are 1..=n without gaps.
        let numbers: Vec<u32> = l.lines.iter().filter_map(|x| x.number).collect();
        assert_eq!(numbers, (1..=l.len()).collect::<Vec<_>>());
    }
}

#[test]
fn every_statement_has_a_snapshot() {
    for f in lesson_one::FUNCTIONS {
        let wanted: BTreeSet<u32> = listing(f).executable_lines().into_iter().collect();
        let have = instrumented(f);
        let missing: Vec<_> = wanted.difference(&have).map(|n| listing(f).line(*n).unwrap().text).collect();
        assert!(missing.is_empty(), "{f:?}: statements without a snapshot: {missing:#?}");
        let stray: Vec<_> = have.difference(&wanted).map(|n| listing(f).line(*n).map(|l| l.text)).collect();
        assert!(stray.is_empty(), "{f:?}: snapshots on non-statement lines: {stray:#?}");
    }
}

#[test]
fn every_executable_line_is_visited_and_every_step_line_exists() {
    let mut visited: BTreeSet<(Function, u32)> = BTreeSet::new();
    for (file, parsed) in load_shipped() {
        let trace = record_scenario(&parsed.unwrap_or_else(|p| panic!("{file}: {p:?}")));
        for step in &trace.steps {
            let l = listing(step.function);
            assert!(
                l.line(lesson::line(step)).is_some(),
                "{file}: step {} line {} not in {:?}",
                step.label,
                lesson::line(step),
                step.function
            );
            if step.event == Event::Line {
                visited.insert((step.function, lesson::line(step)));
            }
        }
    }
    for f in lesson_one::FUNCTIONS {
        let unvisited: Vec<_> = listing(f)
            .executable_lines()
            .into_iter()
            .filter(|n| !visited.contains(&(f, *n)))
            .map(|n| format!("{n}: {}", listing(f).line(n).unwrap().text.trim()))
            .collect();
        assert!(unvisited.is_empty(), "{f:?}: lines no shipped scenario reaches: {unvisited:#?}");
    }
}

#[test]
fn labels_are_unique_except_shared_return_and_resolve_to_lines() {
    let labels = lesson::labels();
    for label in &labels {
        let (f, line) = lesson::line_of_label(label).unwrap_or_else(|| panic!("{label} has no line"));
        assert!(listing(f).line(line).is_some());
        assert_ne!((programs::of(f).stage)(f, label), "other", "{label} has no stage");
    }
    for required in [
        "ask.create",
        "main.validate",
        "main.spawn",
        "loop.ask",
        "loop.save_response",
        "loop.execute",
        "loop.save_results",
        "loop.call_limit",
    ] {
        assert!(labels.contains(&required), "required label {required} missing");
    }
    let (f, line) = lesson::line_of_label("loop.save_results").unwrap();
    assert_eq!(f, lesson_one::RUN_LOOP);
    assert!(listing(f).line(line).unwrap().text.contains("messages.push(json!({\"role\": \"user\""));
    let (_, ask) = lesson::line_of_label("loop.ask").unwrap();
    assert!(listing(f).line(ask).unwrap().text.contains("ask(&messages)"));
}

#[test]
fn every_reached_stage_has_captions_in_both_languages() {
    use agent_loop_core::i18n::Lang;
    use agent_loop_core::lesson::caption;
    // `{name}` left in a text: a placeholder nobody filled.
    let unfilled = |text: &str| {
        text.split('{').skip(1).any(|rest| {
            let name = rest.split('}').next().unwrap_or("");
            rest.contains('}')
                && !name.is_empty()
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
    };
    let mut stages = BTreeSet::new();
    for (file, parsed) in load_shipped() {
        let trace = record_scenario(&parsed.unwrap_or_else(|p| panic!("{file}: {p:?}")));
        for (i, step) in trace.steps.iter().enumerate() {
            stages.insert(lesson::stage(step));
            for code in ["zh", "en"] {
                let lang = Lang::parse(code).unwrap();
                let (title, body) = caption(lang, &trace, i);
                assert!(
                    !title.is_empty() && !body.is_empty(),
                    "{file}: {} has no {code} caption",
                    lesson::stage(step)
                );
                assert!(
                    !unfilled(&body) && !unfilled(&title),
                    "{file}: unfilled placeholder in {code} {}: {body}",
                    lesson::stage(step)
                );
            }
        }
    }
    for lang in Lang::all() {
        for stage in &stages {
            let (title, _) =
                lang.caption(stage).unwrap_or_else(|| panic!("{}: no caption for {stage}", lang.code()));
            assert!(!title.is_empty(), "{} {stage}", lang.code());
        }
    }
    assert!(stages.len() >= 30, "only {} stages reached", stages.len());
}

#[test]
fn captions_fill_live_values() {
    use agent_loop_core::i18n::Lang;
    use agent_loop_core::lesson::caption;
    let (zh, en) = (Lang::parse("zh").unwrap(), Lang::parse("en").unwrap());
    let s = load_shipped().into_iter().filter_map(|(_, p)| p.ok()).find(|s| s.id == "report").unwrap();
    let trace = record_scenario(&s);
    let at = |label: &str| trace.steps.iter().position(|s| s.label == label).unwrap();
    let (_, text) = caption(en, &trace, at("loop.save_results"));
    assert!(text.contains("the record has 2 messages"), "{text}");
    let (title, _) = caption(zh, &trace, at("loop.next_call"));
    assert_eq!(title, "第 1 / 4 次模型调用");
    assert!(caption(en, &trace, at("loop.collect")).1.contains("exit_code=1"));
}

#[test]
fn the_label_table_of_the_trace_format_is_the_listings() {
    // docs/trace-format.md tabulates every label: its function, Rust and
    // Python lines, stage. The table must say what the listings say.
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/trace-format.md")).unwrap();
    let rows: Vec<Vec<&str>> = text
        .lines()
        .filter(|l| l.starts_with("| `") && l.matches('|').count() >= 8)
        .map(|l| l.trim_matches('|').split('|').map(str::trim).collect())
        .filter(|cells: &Vec<&str>| lesson_one::FUNCTIONS.iter().any(|f| f.name() == cells[1]))
        .collect();
    let labels = lesson::labels_of(&lesson_one::PROGRAM);
    assert!(rows.len() >= labels.len() - 1, "{} rows for {} labels", rows.len(), labels.len());
    let numbers = |cell: &str| -> Vec<u32> { cell.split(',').map(|n| n.trim().parse().unwrap()).collect() };
    for cells in rows {
        let named = cells[0].trim_matches('`');
        let label =
            labels.iter().copied().find(|l| *l == named).unwrap_or_else(|| panic!("no label {named}"));
        let f = programs::function(cells[1]).unwrap();
        let uses = labels.iter().filter(|l| **l == label).count() as u16;
        let rust: Vec<u32> = (1..=uses).map(|k| lesson::line_of_key(Code::Rust, (f, label, k))).collect();
        assert_eq!(numbers(cells[2]), rust, "{label}: Rust line");
        let python = lesson::line_of_key(Code::Python, (f, label, 1));
        assert!(
            numbers(cells[3]).contains(&python),
            "{label}: Python line {python}, the table says {}",
            cells[3]
        );
        assert_eq!(cells[4].trim_matches('`'), lesson_one::stage_of(label), "{label}: stage");
    }
}

/// The cells of docs/trace-format.md's label tables (rows of seven).
fn label_rows(text: &str) -> Vec<Vec<&str>> {
    text.lines()
        .filter(|l| l.starts_with("| `") && l.matches('|').count() == 8)
        .map(|l| l.trim_matches('|').split('|').map(str::trim).collect())
        .collect()
}

#[test]
fn lesson_two_s_label_tables_are_its_listings() {
    // docs/trace-format.md tabulates lesson two's labels twice: the
    // lesson's loop and execute_tool by row, the three other loops by
    // column ("Rust / Python", — where the loop has no such line).
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/trace-format.md")).unwrap();
    let program = &lesson_two::PROGRAM;
    // (a key's occurrence counts the label over the program's source, so
    // it is found among the function's own keys)
    let lines = |f: Function, label: &str| match lesson::keys(f).into_iter().find(|k| k.1 == label) {
        Some(key) => (lesson::line_of_key(Code::Rust, key), lesson::line_of_key(Code::Python, key)),
        None => (0, 0),
    };
    let mut documented = BTreeSet::new();
    for cells in label_rows(&text) {
        let label = cells[0].trim_matches('`');
        let Some(f) = programs::function(cells[1]).filter(|f| program.functions.contains(f)) else {
            let loops = [lesson_two::STOP_ON_TEXT, lesson_two::CAP_AS_BRAKE, lesson_two::KEEP_TEXT_ONLY];
            if !label.starts_with("core.") && !label.starts_with("text.") && !label.starts_with("only.") {
                continue;
            }
            for (f, cell) in loops.into_iter().zip(&cells[1..4]) {
                let shown = match lines(f, label) {
                    (0, _) => "—".to_string(),
                    (rust, python) => format!("{rust} / {python}"),
                };
                assert_eq!(*cell, shown, "{label} in {}", f.name());
                documented.insert((f, label.to_string()));
            }
            continue;
        };
        let (rust, python) = lines(f, label);
        assert_eq!((cells[2], cells[3]), (rust.to_string().as_str(), python.to_string().as_str()), "{label}");
        assert_eq!(cells[4].trim_matches('`'), (program.stage)(f, label), "{label}: stage");
        documented.insert((f, label.to_string()));
    }
    // Every label of every function of the program is in a table.
    for &f in program.functions {
        for key in lesson::keys(f).into_iter().filter(|k| k.1 != "call") {
            assert!(documented.contains(&(f, key.1.to_string())), "{} of {} is not tabled", key.1, f.name());
        }
    }
}

#[test]
fn a_docstring_over_several_rows_is_a_string_on_each_and_rows_carry_their_indent() {
    let en = agent_loop_core::i18n::Lang::parse("en").unwrap();
    let listing = lesson::listing_in(Code::Python, lesson_one::RUN_LOOP);
    let html = agent_loop_playground::view::listing_rows(listing, Code::Python, en);
    let rows: Vec<&str> = html.split("<div class=\"alp-row").skip(1).collect();
    // Rows 2–4 are the docstring: strings only, no keyword inside.
    for row in &rows[1..4] {
        let code = row.split("<code translate=\"no\">").nth(1).unwrap();
        // (the indentation in a span of its own, which a phone draws narrower)
        let code = code.strip_prefix("<span class=\"alp-lead\">    </span>").unwrap_or(code);
        assert!(code.starts_with("<span class=\"tk-s\">"), "{code}");
        assert!(!code.contains("tk-k"), "{code}");
    }
    assert!(rows[4].contains("tk-k"), "the code after the docstring is highlighted: {}", rows[4]);
    assert!(rows[0].starts_with(" alp-i0\""), "def is not indented: {}", &rows[0][..30]);
    assert!(rows[4].starts_with(" alp-i4\""), "the body is: {}", &rows[4][..30]);
}

/// A stage that spans several lines says on each what that line adds: no
/// caption is the same on three lines in a row, in any shipped scenario.
#[test]
fn no_caption_repeats_over_three_lines() {
    let mut found = Vec::new();
    for scenario in load_shipped().into_iter().filter_map(|(_, p)| p.ok()) {
        for lang in ["en", "zh"].map(|c| agent_loop_core::i18n::Lang::parse(c).unwrap()) {
            let trace = record_scenario(&scenario.localized(lang));
            let (mut last, mut lines) = ((String::new(), String::new()), Vec::new());
            for position in 0..trace.steps.len() {
                let step = &trace.steps[position];
                let caption = lesson::caption(lang, &trace, position);
                let line = (step.function, step.label);
                if caption != last {
                    (last, lines) = (caption, vec![line]);
                } else if !lines.contains(&line) {
                    lines.push(line);
                    if lines.len() == 3 {
                        found.push(format!("{} {}: {:?} on {:?}", scenario.id, lang.code(), last.0, lines));
                    }
                }
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn unreached_breakpoints_are_listed_in_the_language_s_own_way() {
    use agent_loop_core::i18n::Lang;
    use agent_loop_playground::view;
    let f = lesson_one::RUN_LOOP;
    let zh = Lang::parse("zh").unwrap();
    let said = view::unreached(&[(f, 12), (f, 30)], zh);
    let one = |n: u32| zh.fill("unreached_line", &[("function", f.name().into()), ("n", n.to_string())]);
    assert!(said.contains(&format!("{}{}{}", one(12), zh.word("list_sep"), one(30))), "{said}");
}

#[test]
fn under_the_python_listing_a_local_is_written_as_python_writes_it() {
    use agent_loop_core::i18n::Lang;
    use agent_loop_playground::view;
    let locals = serde_json::json!({"filled": true, "id": null, "text": "it's", "call": {"id": "call_1"}});
    let zh = Lang::parse("zh").unwrap();
    let python = view::locals(&locals, zh, true);
    for shown in ["True", "None", "\"it's\"", "{'id': 'call_1'}"] {
        assert!(python.contains(&agent_loop_playground::markup::esc(shown)), "{shown} in {python}");
    }
    // Under the Rust listing, JSON as the recording holds it.
    let rust = view::locals(&locals, zh, false);
    assert!(rust.contains("true") && rust.contains("null"), "{rust}");
}
