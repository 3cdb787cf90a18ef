//! The first view (src/first_view.rs): the frame filled natively by the
//! renderer's own panel functions, for every program and language; the
//! learner's breakpoints and step marked as the renderer marks them; text
//! escaped; and its width the one the figure and element.css agree on.
//! (That the element's own first draw is the same markup, and that taking
//! it over shifts nothing, is tests/e2e/first-view.spec.mjs.)

#![cfg(not(target_arch = "wasm32"))]

use agent_loop_core::i18n::Lang;
use agent_loop_core::programs;
use agent_loop_core::session::{FixtureDoubles, Options, Session};
use agent_loop_playground::figure::Layout;
use agent_loop_playground::first_view::{
    boxes_named, first_view, FirstBox, BESIDE_FROM, BOXES, SETUP_OPEN_FROM, WIDE_ALONE_FROM, WIDE_FROM,
};
use agent_loop_playground::markup::esc;
use agent_loop_playground::panels;

fn session(options: Options) -> Session {
    Session::new(Box::new(FixtureDoubles), &options).unwrap()
}

/// The boxes a view has unless asked for others.
fn two() -> Vec<FirstBox> {
    boxes_named("wide,narrow").unwrap()
}

fn count(text: &str, what: &str) -> usize {
    text.matches(what).count()
}

/// A view's two boxes: the wide one (after the stylesheet's link) and the narrow one.
fn boxes(view: &str) -> (&str, &str) {
    let at =
        view.find(r#" data-first="narrow""#).and_then(|i| view[..i].rfind("<div")).expect("a narrow box");
    (&view[..at], &view[at..])
}

#[test]
fn every_program_opens_in_every_language_with_its_listing_figure_and_caption() {
    for program in programs::ALL {
        for lang in Lang::all() {
            let s = session(Options {
                program: program.name.into(),
                lang: lang.code().into(),
                ..Options::default()
            });
            let view = first_view(&s, "first-view.css", "[]", false, &two());
            let step = panels::step(&s, Layout::WIDE).unwrap();
            let at = format!("{} in {}", program.name, lang.code());
            assert!(view.starts_with(
                r#"<template shadowrootmode="open"><link rel="stylesheet" href="first-view.css">"#
            ));
            assert!(view.ends_with("</div></template>"), "{at}");
            assert!(view.contains(&format!(r#"lang="{}""#, lang.html_lang())), "{at}");
            assert!(view.contains(&step.record) && view.contains(&step.head), "{at}: the wide figure");
            assert!(view.contains(&esc(&step.view.caption.0)), "{at}: the caption");
            assert!(view.contains(&esc(&step.view.counter)), "{at}: the counter");
            assert!(view.contains(r#"class="alp-row"#), "{at}: the listing");
            assert_eq!(count(&view, "<template"), 1, "{at}");
            // Each language's word on its own button, the language shown pressed.
            let code = lang.code();
            assert!(view
                .contains(&format!(r#"data-lang="{code}" lang="{}" aria-pressed="true""#, lang.html_lang())));
            // (and the phone's code | record switch on code, as the frame has it), in each box
            let (wide, narrow) = boxes(&view);
            for one in [wide, narrow] {
                assert_eq!(
                    count(one, r#"aria-pressed="true""#),
                    3,
                    "{at}: the language and the listing pressed"
                );
            }
        }
    }
}

#[test]
fn a_started_step_marks_its_row_and_a_breakpoint_is_pressed() {
    let opened = |breakpoints: &str| {
        session(Options { step: "5".into(), breakpoints: breakpoints.into(), ..Options::default() })
    };
    let s = opened("");
    let (function, line) =
        panels::step(&s, Layout::WIDE).unwrap().view.current.expect("a started step has a line");
    let s = opened(&format!("{}:{line}", function.name()));
    let view = first_view(&s, "first-view.css", "[]", false, &two());
    let (wide, narrow) = boxes(&view);
    for view in [wide, narrow] {
        let row = format!(r#"data-function="{}" data-line="{line}" aria-current="step">"#, function.name());
        assert_eq!(count(view, r#"aria-current="step""#), 1);
        assert!(view.contains(&row), "the step's row is marked");
        let button = format!(
            r#"class="alp-bp" data-function="{}" data-line="{line}" aria-pressed="true""#,
            function.name()
        );
        assert!(view.contains(&button), "its breakpoint is pressed");
        // One Tab stop among the line numbers, the first.
        assert_eq!(count(view, r#"tabindex="0">"#), 1);
        let slider = format!(r#"value="{}""#, s.replay().position());
        assert!(view.contains(&slider), "the timeline is at the step");
    }
}

#[test]
fn a_compact_view_is_marked_so_and_its_setup_starts_closed() {
    let s = session(Options::default());
    let (wide, compact) =
        (first_view(&s, "v.css", "[]", false, &two()), first_view(&s, "v.css", "[]", true, &two()));
    let setup = r#"<details class="alp-setup" data-role="setup""#;
    assert!(wide.contains(&format!("{setup} open>")), "a wide element's setup is open");
    assert!(compact.contains(&format!("{setup}>")), "a compact one's is closed: {compact}");
    assert!(compact.contains(r#"<div class="alp-root alp alp-compact" data-first="wide""#));
    assert!(wide.contains(r#"<div class="alp-root alp" data-first="wide""#));
    // Nothing else differs: the same run, the same panels.
    let same =
        |v: &str| v.replace(" alp-compact", "").replace(&format!("{setup} open>"), &format!("{setup}>"));
    assert_eq!(same(&wide), same(&compact));
}

#[test]
fn an_authors_text_is_escaped() {
    let scenario = include_str!("../fixtures/scenarios/blank-text.json")
        .replacen(r#""id": "blank-text""#, r#""id": "marked""#, 1)
        .replace("end_turn 但文字为空白", "<img src=x onerror=alert(1)>")
        .replace("end_turn with blank text", "<img src=x onerror=alert(1)>");
    let files = vec![("marked.json".to_string(), Ok(scenario))];
    let s = session(Options { scenario: "marked".into(), files, ..Options::default() });
    let view = first_view(&s, "\"><script>", r#"[["scenario","marked"]]"#, false, &two());
    assert!(!view.contains("<img") && !view.contains("<script"), "no markup of theirs");
    assert!(view.contains("&lt;img src=x onerror=alert(1)&gt;"), "their title, as text");
    assert!(view.contains(r#"data-for="[[&quot;scenario&quot;,&quot;marked&quot;]]""#));
}

#[test]
fn one_box_is_shown_at_each_width_the_one_the_element_draws_itself_as() {
    for width in 200..1600 {
        let shown: Vec<&str> = BOXES.iter().filter(|b| b.shown_at(width)).map(|b| b.name).collect();
        assert_eq!(shown.len(), 1, "{width} px: {shown:?}");
    }
    let at = |width: u32| BOXES.iter().find(|b| b.shown_at(width)).unwrap().name;
    let edges = [(WIDE_ALONE_FROM, "narrow", "column"), (BESIDE_FROM, "column", "narrow")];
    let edges =
        edges.into_iter().chain([(SETUP_OPEN_FROM, "narrow", "medium"), (WIDE_FROM, "medium", "wide")]);
    for (edge, below, from) in edges {
        assert_eq!((at(edge - 1), at(edge)), (below, from), "at {edge} px");
    }
    assert_eq!(boxes_named("wide, narrow").unwrap().len(), 2);
    assert!(boxes_named("wide,tiny").unwrap_err().contains("no box named \"tiny\""));
    assert!(boxes_named("narrow,narrow").unwrap_err().contains("named twice"));
}

#[test]
fn element_css_shows_each_box_only_where_it_is_drawn_for() {
    let css = std::fs::read_to_string("www/element.css").unwrap();
    let hide = |name: &str, query: String| {
        format!(
            r#"@container alp ({query}) {{ .alp-root[data-first="{name}"][hidden] {{ display: none; }} }}"#
        )
    };
    let below = |px: u32| format!("width < {px}px");
    let from = |px: u32| format!("width >= {px}px");
    for rule in [
        hide("wide", below(WIDE_FROM)),
        hide("medium", below(SETUP_OPEN_FROM)),
        hide("medium", from(WIDE_FROM)),
        hide("column", below(WIDE_ALONE_FROM)),
        hide("column", from(BESIDE_FROM)),
        hide("narrow", format!("{WIDE_ALONE_FROM}px <= width < {BESIDE_FROM}px")),
        hide("narrow", from(SETUP_OPEN_FROM)),
    ] {
        assert!(css.contains(&rule), "element.css: {rule}");
    }
}

#[test]
fn the_two_boxes_differ_only_in_the_figure_and_the_setup_panel() {
    let s = session(Options::default());
    let view = first_view(&s, "v.css", "[]", false, &two());
    let (wide, narrow) = boxes(&view);
    let (w, n) = (panels::step(&s, Layout::WIDE).unwrap(), panels::step(&s, Layout::NARROW).unwrap());
    assert_ne!(w.head, n.head);
    assert!(wide.contains(&w.head) && !wide.contains(&n.head));
    assert!(narrow.contains(&n.head) && !narrow.contains(&w.head));
    let setup = r#"<details class="alp-setup" data-role="setup""#;
    assert!(wide.contains(&format!("{setup} open>")) && narrow.contains(&format!("{setup}>")));
    let same = |v: &str| {
        v.replace(&w.head, "")
            .replace(&n.head, "")
            .replace(&w.record, "")
            .replace(&n.record, "")
            .replace(&w.staged, "")
            .replace(&n.staged, "")
            .replace(" open>", ">")
            .replace(r#"data-first="narrow""#, r#"data-first="wide""#)
    };
    assert_eq!(
        same(
            wide.trim_start_matches(
                r#"<template shadowrootmode="open"><link rel="stylesheet" href="v.css">"#
            )
        ),
        same(narrow.trim_end_matches("</template>"))
    );
}
