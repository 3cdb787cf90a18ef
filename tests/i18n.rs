//! One source for every word: a third language is one more table, and no
//! word of the page is written anywhere else.
//!
//! The pseudo-locale test registers a language `xx` whose every word is
//! wrapped in ⟪…⟫, renders every panel of the page for every step of every
//! shipped scenario (the same markup builders the browser uses), and fails
//! on any word outside ⟪…⟫ that is not marked as data (`translate="no"` or
//! the SVG class `alp-data`): such a word was hard-coded.
//!
//! Lessons tested: lesson_one.

use agent_loop_core::debugger::Command;
use agent_loop_core::i18n::{self, Lang};
use agent_loop_core::lesson::{self, caption};
use agent_loop_core::predict;
use agent_loop_core::programs::lesson_one;
use agent_loop_core::protocol::{Said, Seconds};
use agent_loop_core::run::{record_scenario, Trace};
use agent_loop_core::scenario::{load_shipped, Problem, Scenario};
use agent_loop_core::session::{Answer, Comparison, Entry, Notice, Summary};
use agent_loop_core::step_view::Places;
use agent_loop_core::vocab::Code;
use agent_loop_playground::{explore, figure, shell, view};

#[path = "common/pseudo.rs"]
mod pseudo;
use pseudo::{check, hard_coded, pseudo_locale, words_in};

#[test]
fn a_pseudo_locale_reaches_every_word_of_the_page() {
    let xx = pseudo_locale();
    assert_eq!(Lang::parse("xx"), Some(xx));
    assert!(Lang::all().contains(&xx), "a registered language is offered");
    let mut found = Vec::new();
    let entries = check_frame(xx, &mut found);
    let mut steps = 0;
    for entry in &entries {
        let Ok(scenario) = &entry.parsed else { continue };
        // The run speaks the page's language (its sentences are the listing's).
        let scenario = &scenario.localized(xx);
        let trace = record_scenario(scenario);
        steps += check_steps(xx, scenario, &trace, &mut found);
        check_panels(xx, scenario, &trace, &mut found);
    }
    assert!(steps > 1000, "only {steps} steps rendered");
    found.sort();
    found.dedup();
    none_of(&found, "hard-coded words");
}

/// The frame: labels, controls, the picker (with a broken file), notices,
/// the listings. Returns the catalogue it drew.
fn check_frame(xx: Lang, found: &mut Vec<String>) -> Vec<Entry> {
    // The frame: labels, controls, the picker (with a broken file), notices.
    for (selector, key) in shell::LABELS.iter().chain(&shell::NAMED) {
        check(selector, &format!("<span>{}</span>", xx.word(key)), found);
    }
    check("controls", &view::controls(xx, &Command::ALL), found);
    for key in ["not_started", "figure_title"] {
        check(key, xx.word(key), found);
    }
    let mut entries: Vec<Entry> = load_shipped()
        .into_iter()
        .map(|(file, parsed)| Entry { file, parsed, warnings: Vec::new() })
        .collect();
    let broken = vec![Problem::word("id", "check_missing")];
    entries.push(Entry { file: "broken.json".into(), parsed: Err(broken), warnings: Vec::new() });
    let notices = [
        Notice { key: "notice_scenario", values: vec![("value", "nope".into()), ("shown", "report".into())] },
        Notice {
            key: "notice_breakpoint",
            values: vec![("value", "loop.nope".into()), ("example", "loop.ask".into())],
        },
    ];
    check("problems", &view::problems(&entries, &notices, xx), found);
    // The picker's options are the scenarios' own titles (author content).
    let picker = view::picker(&entries, 0, Default::default(), xx);
    let without_options: String =
        picker.split("<option").map(|p| p.split_once("</option>").map_or(p, |x| x.1)).collect();
    check("picker", &without_options, found);
    for f in lesson_one::FUNCTIONS {
        for code in Code::ALL {
            let rows = view::listing_rows(lesson::listing_in(code, f), code, xx);
            check(&format!("{} {}", f.name(), code.name()), &rows, found);
        }
    }
    entries
}

/// Every step of a run: figure, text alternative, caption, output.
fn check_steps(xx: Lang, scenario: &Scenario, trace: &Trace, found: &mut Vec<String>) -> usize {
    let mut steps = 0;
    for (position, step) in trace.steps.iter().enumerate() {
        let place = format!("{} step {position} ({})", scenario.id, step.label);
        let opened = (step.record_len > 0).then_some(0);
        let moment = figure::Moment {
            trace,
            position,
            previous_len: 0,
            lang: xx,
            started: true,
            opened,
            layout: if position % 2 == 0 { figure::Layout::WIDE } else { figure::Layout::NARROW },
            part: agent_loop_core::lesson::part(&trace.steps[position]),
        };
        check(&format!("{place} figure"), &figure::render(&moment), found);
        let len = step.record_len as usize;
        check(&format!("{place} text"), &figure::text_alternative(trace, len, xx), found);
        let (title, body) = caption(xx, trace, position);
        // (the page sets the caption as text: the model's words in it stay text)
        let (title, body) =
            (agent_loop_playground::markup::esc(&title), agent_loop_playground::markup::esc(&body));
        check(&format!("{place} caption"), &format!("<p>{title}</p><p>{body}</p>"), found);
        let counter = xx.fill("step_counter", &[("n", "1".into()), ("total", "2".into())]);
        check(&format!("{place} counter"), &counter, found);
        check(&format!("{place} output"), &view::output(&trace.output, step.output_len as usize, xx), found);
        steps += 1;
    }
    steps
}

/// Before the start; the predictions (the generated ones: authored texts
/// are the author's), the what-if editors with a refused edit, and the
/// comparison.
fn check_panels(xx: Lang, scenario: &Scenario, trace: &Trace, found: &mut Vec<String>) {
    let before = figure::Moment {
        trace,
        position: 0,
        previous_len: 0,
        lang: xx,
        started: false,
        opened: None,
        layout: figure::Layout::NARROW,
        part: agent_loop_core::programs::Part::None,
    };
    check(&format!("{} not started", scenario.id), &figure::render(&before), found);
    check(&format!("{} no output", scenario.id), &view::output(&trace.output, 0, xx), found);
    let breakpoint =
        lesson::line_of_label_in(Code::Python, "loop.save_results").into_iter().collect::<Vec<_>>();
    for ask in
        predict::questions(scenario, trace, xx, Code::Python, &breakpoint).iter().filter(|a| !a.authored)
    {
        for correct in [true, false] {
            let answer = Answer { key: ask.key.clone(), choice: 0, correct };
            let panel = explore::predict_panel(
                Some(ask),
                Some((lesson_one::RUN_LOOP, 7, "messages = []")),
                Some((ask, &answer)),
                (1, 2),
                xx,
            );
            check(&format!("{} question {}", scenario.id, ask.key), &panel, found);
        }
    }
    let editors =
        explore::editors(&scenario.localized(xx), xx, &["model: must hold at least one reply".into()]);
    check(&format!("{} editors", scenario.id), &editors, found);
    let summary = |t: &Trace| Summary {
        function: t.function,
        ending: t.ending().unwrap_or("done").into(),
        calls: 2,
        record: t.record.len(),
        steps: t.steps.len(),
        tool_result: None,
    };
    let comparison = Comparison {
        lesson: summary(trace),
        changed: summary(trace),
        parts_at: Some(3),
        lesson_at: Some(3),
        differs: vec!["line".into(), "response".into()],
        values_from: Some((2, vec!["response".into()])),
    };
    for (here, there) in [(Some(("loop.ask", 9)), Some(("loop.ask", 9))), (Some(("loop.read", 10)), None)] {
        let places = Places {
            position: Some(3),
            here,
            lesson_here: there,
            parting: (here, there),
            parted: false,
            values: here,
            restart: Some((7, "compare_restart_parted")),
            doing: Some((lesson::caption(xx, trace, 3).0, lesson::caption(xx, trace, 4).0)),
        };
        let html = explore::compare(&comparison, &places, xx);
        check(&format!("{} comparison", scenario.id), &html, found);
    }
}

/// Fails naming the first findings, if there are any.
fn none_of(found: &[String], what: &str) {
    let shown = found[..found.len().min(40)].join("\n");
    assert!(found.is_empty(), "{} {what}:\n{shown}", found.len());
}

#[test]
fn the_check_finds_a_hard_coded_word() {
    assert_eq!(hard_coded("⟪Weiter⟫ (→)"), None);
    assert_eq!(hard_coded("⟪Weiter⟫ step"), Some("step".into()));
    assert_eq!(words_in(r#"<p title="Run">x<code translate="no">let y</code></p>"#), vec!["Run", "x"]);
    assert_eq!(words_in(r#"<svg><text class="a alp-data">id=1</text><text>new</text></svg>"#), vec!["new"]);
}

#[test]
fn every_language_has_every_word_caption_and_sentence() {
    let en = Lang::parse("en").unwrap();
    let labels = lesson::labels_of(&lesson_one::PROGRAM);
    let stages: Vec<&str> = labels.into_iter().map(lesson_one::stage_of).collect();
    for code in ["zh", "en"] {
        let lang = Lang::parse(code).unwrap();
        assert_eq!(lang.keys(), en.keys(), "{code}: the same words as English");
        for stage in &stages {
            assert!(lang.caption(stage).is_some(), "{code}: no caption for {stage}");
        }
    }
}

/// One of each sentence, with values that show where they go.
fn sentences() -> Vec<Said> {
    vec![
        Said::ModelCall { number: 7 },
        Said::Executing { name: "run_main".into() },
        Said::ToolResult { line: "X1".into() },
        Said::Saved,
        Said::Unsupported,
        Said::TimedOut { seconds: Seconds(0.5) },
        Said::CannotStart { error: "E1".into() },
        Said::NoOutput,
        Said::ModelFailed { name: "N1".into() },
        Said::BadFormat,
        Said::ModelStopped { reason: "R1".into() },
        Said::Mismatch,
        Said::CallLimit { max_calls: 9 },
        Said::BadBudget { max_calls: -2 },
        Said::Turn { turn: 7, reason: "R2".into() },
        Said::CapHit,
        Said::UnknownTool { name: "N2".into() },
        Said::DoneWord,
    ]
}

#[test]
fn every_language_says_every_sentence_of_the_program_in_its_own_words() {
    let sentences = sentences();
    assert_eq!(sentences.iter().map(Said::kind).collect::<Vec<_>>(), Said::KINDS, "one of each kind");
    let (zh, en) = (Lang::parse("zh").unwrap(), Lang::parse("en").unwrap());
    for s in &sentences {
        for lang in [zh, en] {
            let said = lang.say(s);
            let template = lang.said_template(s.kind());
            assert_ne!(template, "?", "{}: no said.{}", lang.code(), s.kind());
            // Every value appears, and no placeholder is left unfilled.
            for (_, value) in s.values() {
                assert!(said.contains(&value), "{}: {said:?} lacks {value:?}", lang.code());
            }
            assert!(!said.contains('{'), "{}: {said:?}", lang.code());
        }
        let (zh_said, en_said) = (zh.say(s), en.say(s));
        assert_ne!(zh_said, en_said, "zh has its own words for {}", s.kind());
        assert!(en_said.is_ascii(), "en: {en_said:?}");
        assert!(zh_said.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c)), "zh: {zh_said:?}");
    }
    assert_eq!(en.say(&Said::TimedOut { seconds: Seconds(3.0) }), "timed out after 3 s");
}

#[test]
fn a_sentence_is_read_back_from_its_template_exactly_or_not_at_all() {
    let template = Lang::parse("en").unwrap().said_template("timed_out");
    assert_eq!(i18n::unfill(template, "timed out after 3 s"), Some("3".into()));
    assert_eq!(i18n::unfill(template, "timed out after 0.5 s"), Some("0.5".into()));
    assert_eq!(i18n::unfill(template, "timed out after 3 s!"), None);
    assert_eq!(i18n::unfill(template, "exit_code=1"), None);
    assert_eq!(i18n::unfill("no value", "no value"), None, "a template without a placeholder");
}

#[test]
fn a_placeholder_is_only_a_plain_name() {
    let value = |name: &str| (name == "n").then(|| "3".to_string());
    assert_eq!(i18n::fill("{n} of {}", value), "3 of {}");
    assert_eq!(i18n::fill("{ n } {x} {n}", value), "{ n } {x} 3");
    assert_eq!(i18n::fill("{", value), "{");
}

#[test]
fn every_word_in_the_tables_is_used() {
    // The Rust of the page and the core, every folder of them.
    fn read_all(dir: &std::path::Path, code: &mut String) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                read_all(&path, code);
            } else if path.extension().is_some_and(|e| e == "rs") {
                code.push_str(&std::fs::read_to_string(&path).unwrap());
            }
        }
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut code = String::new();
    read_all(&root.join("src"), &mut code);
    read_all(&root.join("core/src"), &mut code);
    // Keys built at run time: a command's name, and these prefixes (group_<program>).
    let commands: Vec<&str> = Command::ALL.iter().map(|c| c.name()).collect();
    let dynamic = ["card_", "pipe_", "key_", "gloss_", "why_", "differs_"];
    // A program's words are built from its name and its loops' names: each
    // one is a word of a program that exists, and each program has its own.
    let programs = agent_loop_core::programs::ALL;
    let per_program: Vec<String> = programs
        .iter()
        .filter(|p| !p.scenarios.is_empty())
        .flat_map(|p| {
            let named = [format!("group_{}", p.name), format!("setup_hint_{}", p.name)];
            named.into_iter().chain(p.beside.iter().map(|f| format!("beside_{}", f.name())))
        })
        .collect();
    for lang in Lang::all() {
        let keys = lang.keys();
        for word in &per_program {
            assert!(keys.contains(&word.as_str()), "{}: no word {word}", lang.code());
        }
        let built = |k: &&&str| ["group_", "setup_hint_", "beside_"].iter().any(|p| k.starts_with(p));
        for key in keys.iter().filter(built).filter(|k| !["group_more", "beside_title"].contains(k)) {
            assert!(per_program.iter().any(|w| w == key), "{}: {key} is no program's", lang.code());
        }
    }
    let unused: Vec<&str> = Lang::parse("en")
        .unwrap()
        .keys()
        .into_iter()
        .filter(|k| !code.contains(&format!("\"{k}\"")))
        .filter(|k| !commands.contains(k) && !dynamic.iter().any(|p| k.starts_with(p)))
        .filter(|k| !per_program.iter().any(|w| w == k))
        .collect();
    assert!(unused.is_empty(), "words no code uses: {unused:?}");
}

#[test]
fn every_caption_of_every_step_has_every_value_in_both_languages() {
    let mut holes = Vec::new();
    let mut captions = 0;
    for (file, parsed) in load_shipped() {
        let trace = record_scenario(&parsed.unwrap());
        for (position, step) in trace.steps.iter().enumerate() {
            for code in ["zh", "en"] {
                let (title, body) = caption(Lang::parse(code).unwrap(), &trace, position);
                captions += 1;
                let text = format!("{title} {body}");
                // Said in words only where the run really lacks the value.
                let missing = text.contains("(missing)") || text.contains("（缺失）");
                // (a placeholder left unfilled; a quoted value may hold braces: `input {}`)
                let unfilled =
                    text.split('{').skip(1).filter_map(|r| r.split_once('}')).any(|(inside, _)| {
                        !inside.is_empty()
                            && inside.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
                    });
                if text.contains('—') || unfilled || (missing && file != "missing-stop-reason.json") {
                    holes.push(format!("{file} step {position} ({}) {code}: {text}", step.label));
                }
            }
        }
    }
    assert!(captions > 2000, "only {captions} captions");
    holes.dedup();
    none_of(&holes, "captions with holes");
}

#[test]
fn a_value_a_run_does_not_have_is_said_in_words() {
    let s = load_shipped()
        .into_iter()
        .filter_map(|(_, p)| p.ok())
        .find(|s| s.id == "missing-stop-reason")
        .unwrap();
    let trace = record_scenario(&s);
    let at = trace.steps.iter().position(|st| st.label == "loop.read").unwrap();
    let (_, en) = caption(Lang::parse("en").unwrap(), &trace, at);
    assert!(en.starts_with("stop_reason = (missing)."), "{en}");
    let (_, zh) = caption(Lang::parse("zh").unwrap(), &trace, at);
    assert!(zh.starts_with("stop_reason = （缺失）"), "{zh}");
}

#[test]
fn a_capped_output_shows_its_length_before_and_after() {
    use agent_loop_core::preview::full_length;
    assert_eq!(full_length("short"), 5);
    let long = "x".repeat(5000);
    let shown = agent_loop_core::trace::preview(&long);
    assert_eq!(full_length(shown.as_str().unwrap()), 5000);
    let s = load_shipped().into_iter().filter_map(|(_, p)| p.ok()).find(|s| s.id == "long-output").unwrap();
    let trace = record_scenario(&s);
    let en = Lang::parse("en").unwrap();
    let at = trace.steps.iter().position(|st| st.label == "main.cap").unwrap();
    let svg = figure::render(&figure::Moment::at(&trace, at, en, figure::Layout::WIDE));
    assert!(svg.contains("output length: 5000 → 2000 characters (cap 2000)"), "{svg}");
}
