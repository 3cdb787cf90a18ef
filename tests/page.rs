//! Browser tests for the page: rendering and stepping through the real DOM.
//! Run with `CHROMEDRIVER=/usr/bin/chromedriver cargo test --target wasm32-unknown-unknown -p agent-loop-playground --test page`.
//!
//! Lessons tested: lesson_one.
#![cfg(target_arch = "wasm32")]

use agent_loop_core::lesson::line_of_label;
use agent_loop_playground::Playground;
use js_sys::Reflect;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;
use web_sys::{Element, HtmlElement};

wasm_bindgen_test_configure!(run_in_browser);

mod common;

fn mount(options: &[(&str, &str)]) -> (HtmlElement, Playground) {
    let doc = web_sys::window().unwrap().document().unwrap();
    let host: HtmlElement = doc.create_element("div").unwrap().dyn_into().unwrap();
    doc.body().unwrap().append_child(&host).unwrap();
    let opts = js_sys::Object::new();
    Reflect::set(&opts, &JsValue::from_str("doubles"), &common::web::fixture_doubles()).unwrap();
    // These tests count lines in the Rust listing (E2E covers the Python one).
    Reflect::set(&opts, &JsValue::from_str("listing"), &JsValue::from_str("rust")).unwrap();
    for (k, v) in options {
        Reflect::set(&opts, &JsValue::from_str(k), &JsValue::from_str(v)).unwrap();
    }
    let pg = Playground::new(host.clone(), opts.into()).unwrap();
    (host, pg)
}

fn q(host: &HtmlElement, sel: &str) -> Option<Element> {
    host.query_selector(sel).unwrap()
}

fn click(host: &HtmlElement, sel: &str) {
    q(host, sel).unwrap_or_else(|| panic!("no {sel}")).dyn_into::<HtmlElement>().unwrap().click();
}

fn state(pg: &Playground, key: &str) -> JsValue {
    Reflect::get(&pg.state(), &JsValue::from_str(key)).unwrap()
}

fn current(host: &HtmlElement) -> (String, u32) {
    let row = q(host, r#"[aria-current="step"]"#).expect("a current row");
    (row.get_attribute("data-function").unwrap(), row.get_attribute("data-line").unwrap().parse().unwrap())
}

fn groups(host: &HtmlElement) -> u32 {
    host.query_selector_all(r#"svg[data-role="record"] [data-message-index]"#).unwrap().length()
}

#[wasm_bindgen_test]
fn breakpoints_toggle_by_click_and_debug_continue_stop_there() {
    let (host, pg) = mount(&[("scenario", "report"), ("lang", "en")]);
    let (_, ask) = line_of_label("loop.ask").unwrap();
    let (_, save) = line_of_label("loop.save_results").unwrap();
    let bp = |n: u32| format!(r#".alp-bp[data-function="run_loop"][data-line="{n}"]"#);
    click(&host, &bp(ask));
    click(&host, &bp(save));
    assert_eq!(q(&host, &bp(ask)).unwrap().get_attribute("aria-pressed").as_deref(), Some("true"));
    assert_eq!(state(&pg, "breakpoints").dyn_into::<js_sys::Array>().unwrap().length(), 2);
    // Ticks on the timeline: loop.ask twice, save_results once.
    assert_eq!(host.query_selector_all(".alp-tick").unwrap().length(), 3);

    click(&host, r#"[data-command="debug"]"#);
    assert_eq!(current(&host), ("run_loop".into(), ask));
    assert_eq!(groups(&host), 1);
    click(&host, r#"[data-command="continue"]"#);
    assert_eq!(current(&host), ("run_loop".into(), save));
    assert_eq!(groups(&host), 2);
    assert!(q(&host, r#"[data-role="staged"]"#).is_some(), "results are drawn as staged");
    click(&host, r#"[data-command="step"]"#);
    assert_eq!(groups(&host), 3);
    assert!(q(&host, ".alp-card.alp-changed").is_some(), "the new card is marked");
    click(&host, r#"[data-command="continue"]"#);
    assert_eq!(current(&host), ("run_loop".into(), ask));
    click(&host, r#"[data-command="continue"]"#);
    assert_eq!(state(&pg, "status"), "answered");
    assert_eq!(groups(&host), 4);
    // A second click removes the breakpoint.
    click(&host, &bp(ask));
    assert_eq!(q(&host, &bp(ask)).unwrap().get_attribute("aria-pressed").as_deref(), Some("false"));
    drop(pg);
    assert_eq!(host.child_element_count(), 0, "freeing the handle clears the element");
    host.remove();
}

#[wasm_bindgen_test]
fn step_into_and_out_switch_listings_and_back_returns() {
    let (host, pg) = mount(&[("scenario", "report"), ("lang", "zh")]);
    pg.toggle_breakpoint("run_loop", JsValue::from_str("loop.execute")).map_err(JsValue::from).unwrap();
    pg.command("debug").map_err(JsValue::from).unwrap();
    assert_eq!(state(&pg, "label"), "loop.execute");
    assert!(q(&host, r#".alp-row[data-function="run_loop"]"#).is_some());
    pg.command("stepInto").map_err(JsValue::from).unwrap();
    assert_eq!(state(&pg, "currentFunction"), "run_main");
    assert!(q(&host, r#".alp-row[data-function="run_main"]"#).is_some(), "listing switched to run_main");
    assert!(q(&host, r#".alp-row[data-function="run_loop"]"#).is_none());
    assert_eq!(q(&host, ".alp-stack").unwrap().text_content().unwrap(), "run_loop › run_main");
    pg.command("stepInto").map_err(JsValue::from).unwrap();
    assert_eq!(current(&host).0, "run_main");
    pg.command("stepOut").map_err(JsValue::from).unwrap();
    assert_eq!(state(&pg, "currentFunction"), "run_loop");
    assert_eq!(state(&pg, "label"), "loop.collect");
    assert!(q(&host, r#".alp-row[data-function="run_loop"]"#).is_some(), "listing switched back");
    pg.command("back").map_err(JsValue::from).unwrap();
    assert_eq!(state(&pg, "currentFunction"), "run_main");
    assert_eq!(state(&pg, "label"), "return");
    // Step over from loop.execute skips the whole run_main frame.
    pg.command("reset").map_err(JsValue::from).unwrap();
    pg.command("debug").map_err(JsValue::from).unwrap();
    pg.command("step").map_err(JsValue::from).unwrap();
    assert_eq!(state(&pg, "label"), "loop.collect");
    drop(pg);
    host.remove();
}

#[wasm_bindgen_test]
fn the_record_svg_has_record_len_groups_at_every_step() {
    for id in ["report", "two-calls", "keeps-asking", "truncated", "request", "error", "model-throws"] {
        let (host, pg) = mount(&[("scenario", id)]);
        let steps = state(&pg, "steps").as_f64().unwrap() as u32;
        pg.command("stepInto").map_err(JsValue::from).unwrap();
        for _ in 0..steps {
            let len = state(&pg, "recordLength").as_f64().unwrap() as u32;
            assert_eq!(groups(&host), len, "{id} at step {:?}", state(&pg, "step"));
            let text_items = host.query_selector_all(".alp-figure-text li[data-item]").unwrap().length();
            assert_eq!(text_items, len, "{id}: text alternative");
            pg.command("stepInto").map_err(JsValue::from).unwrap();
        }
        drop(pg);
        host.remove();
    }
}

#[wasm_bindgen_test]
fn markup_in_model_text_is_shown_as_text() {
    let (host, pg) = mount(&[("scenario", "markup-text"), ("lang", "en")]);
    pg.command("run").map_err(JsValue::from).unwrap();
    assert_eq!(state(&pg, "status"), "answered");
    assert!(host.query_selector("script").unwrap().is_none());
    assert!(host.query_selector("img").unwrap().is_none());
    let svg = q(&host, r#"svg[data-role="record"]"#).unwrap();
    assert!(svg.text_content().unwrap().contains("<script>"), "the tag is visible as text");
    drop(pg);
    host.remove();
}

#[wasm_bindgen_test]
fn language_switch_relabels_controls_and_captions() {
    let (host, pg) = mount(&[("scenario", "report"), ("lang", "en")]);
    pg.command("debug").map_err(JsValue::from).unwrap();
    let en = q(&host, ".alp-caption-title").unwrap().text_content().unwrap();
    click(&host, r#"[data-lang="zh"]"#);
    assert_eq!(state(&pg, "lang"), "zh");
    let zh = q(&host, ".alp-caption-title").unwrap().text_content().unwrap();
    assert_ne!(en, zh);
    assert_eq!(q(&host, r#"[data-command="debug"]"#).unwrap().text_content().unwrap(), "调试");
    assert_eq!(state(&pg, "step").as_f64(), Some(1.0), "switching language keeps the position");
    drop(pg);
    host.remove();
}

#[wasm_bindgen_test]
fn a_bad_added_fixture_is_reported_and_others_still_work() {
    let (host, pg) = mount(&[("scenario", "report")]);
    let err = pg.add_scenario(JsValue::from_str(
        "{\"id\": \"x\", \"function\": \"run_loop\", \"max_calls\": \"many\"}",
    ));
    assert!(err.is_err());
    // (the element flushes once the script that added scenarios is done)
    pg.flush().map_err(JsValue::from).unwrap();
    let problems = q(&host, ".alp-problems").unwrap();
    assert!(!problems.has_attribute("hidden"));
    // (said in the element's language: the page is in Chinese; the thrown
    // error, in English, is checked by tests/e2e/hostile-input.spec.mjs)
    assert!(problems.text_content().unwrap().contains("第 1 行，max_calls：必须是整数"));
    pg.load("limit").unwrap();
    pg.command("run").map_err(JsValue::from).unwrap();
    assert_eq!(state(&pg, "status"), "call_limit");
    let good = pg
        .add_scenario(JsValue::from_str(
            r#"{"id": "mine", "function": "run_loop", "title": {"zh": "我的", "en": "Mine"},
                "model": [{"stop_reason": "end_turn", "content": [{"type": "text", "text": "hi"}]}]}"#,
        ))
        .unwrap();
    pg.load(&good).unwrap();
    pg.command("run").map_err(JsValue::from).unwrap();
    assert_eq!(state(&pg, "status"), "answered");
    drop(pg);
    host.remove();
}
