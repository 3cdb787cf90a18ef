//! Browser tests (wasm-bindgen-test, headless Chromium):
//! `CHROMEDRIVER=/usr/bin/chromedriver cargo test --target wasm32-unknown-unknown -p agent-loop-playground --test browser`.
//!
//! Lessons tested: lesson_one.
#![cfg(target_arch = "wasm32")]

use agent_loop_core::lesson::trace_json;
use agent_loop_core::run::{record, record_scenario};
use agent_loop_core::scenario::load_shipped;
use agent_loop_core::session::Doubles;
use agent_loop_core::trace::STEP_CAP;
use agent_loop_playground::callbacks::{JsDoubles, JsModel, JsProcess};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

mod common;

fn record_with_callbacks(
    s: &agent_loop_core::scenario::Scenario,
    model: Option<js_sys::Function>,
    process: Option<js_sys::Function>,
) -> agent_loop_core::run::Trace {
    let doubles = JsDoubles { factory: common::web::fixture_doubles() };
    let (mut m, mut p) = doubles.for_scenario(s);
    if let Some(f) = model {
        m = Box::new(JsModel::new(f));
    }
    if let Some(f) = process {
        p = Box::new(JsProcess::new(f));
    }
    record(s, m.as_mut(), p.as_mut(), STEP_CAP)
}

#[wasm_bindgen_test]
fn js_doubles_record_the_same_trace_as_rust_doubles() {
    let mut compared = 0;
    for (file, parsed) in load_shipped() {
        let scenario = parsed.unwrap_or_else(|p| panic!("{file}: {p:?}"));
        let native = record_scenario(&scenario);
        let native = serde_json::to_string_pretty(&trace_json(&native)).unwrap();
        let through_js = record_with_callbacks(&scenario, None, None);
        let through_js = serde_json::to_string_pretty(&trace_json(&through_js)).unwrap();
        if native != through_js {
            let line = native.lines().zip(through_js.lines()).position(|(a, b)| a != b).unwrap_or(0);
            panic!(
                "{file}: traces differ at line {}:\n  rust: {}\n  js:   {}",
                line + 1,
                native.lines().nth(line).unwrap_or(""),
                through_js.lines().nth(line).unwrap_or("")
            );
        }
        compared += 1;
    }
    assert!(compared >= 20, "compared {compared} scenarios");
}

fn report() -> agent_loop_core::scenario::Scenario {
    load_shipped().into_iter().filter_map(|(_, p)| p.ok()).find(|s| s.id == "report").unwrap()
}

#[wasm_bindgen_test]
fn a_throwing_js_model_is_a_model_error_status() {
    let model = js_sys::Function::new_with_args(
        "request",
        "const e = new Error('down'); e.name = 'APITimeoutError'; throw e;",
    );
    let trace = record_with_callbacks(&report(), Some(model), None);
    assert_eq!(trace.status(), Some("model_error"));
    assert_eq!(trace.result["text"], "model request failed: APITimeoutError");
}

#[wasm_bindgen_test]
fn garbage_from_js_callbacks_becomes_statuses() {
    for body in [
        "return 42",
        "return undefined",
        "return Promise.resolve({})",
        "const o = {}; o.self = o; return o;",
        "return {stop_reason: 'end_turn', content: [{type: 'text', text: 1n}]}",
    ] {
        let model = js_sys::Function::new_with_args("request", body);
        let trace = record_with_callbacks(&report(), Some(model), None);
        assert_eq!(trace.status(), Some("protocol_error"), "{body}");
        assert_eq!(trace.record.len(), 1, "{body}");
    }
    let process = js_sys::Function::new_with_args("command, options", "return 'nope'");
    let trace = record_with_callbacks(&report(), None, Some(process));
    let result = &trace.record[2]["content"][0];
    assert_eq!(result["is_error"], true);
    assert!(result["content"].as_str().unwrap().starts_with("cannot start: bad outcome"), "{result}");
}

#[wasm_bindgen_test]
fn a_kept_request_keeps_its_own_record() {
    // The model keeps every request, changes the array it was given (strict
    // mode: an assignment must work like on any plain object) and at the
    // end reports what each kept request says: each is the record as it was
    // at that call (plus its own change), whatever came after.
    let model = js_sys::Function::new_with_args(
        "request",
        "'use strict';\
         const kept = (globalThis.__kept ||= []);\
         const n = request.messages.length;\
         request.messages.push('mine');\
         request.messages = request.messages.slice();\
         kept.push([request, n]);\
         const frozen = Object.isFrozen(request.messages[0]);\
         if (kept.length < 3) return {stop_reason: 'tool_use', content: [{type: 'tool_use', id: 'x' + kept.length, name: 'run_main', input: {}}]};\
         const lengths = kept.map(([r, n]) => n + '/' + JSON.parse(JSON.stringify(r)).messages.length);\
         globalThis.__kept = undefined;\
         return {stop_reason: 'end_turn', content: [{type: 'text', text: lengths.join(',') + ' frozen=' + frozen}]};",
    );
    let trace = record_with_callbacks(&report(), Some(model), None);
    assert_eq!(trace.status(), Some("answered"));
    assert_eq!(trace.result["text"], "1/2,3/4,5/6 frozen=true");
}

#[wasm_bindgen_test]
fn built_ins_a_host_page_broke_do_not_unwind_through_wasm() {
    // A page that replaced Array.prototype.slice/push, Object.freeze and
    // JSON.parse with throwing functions: the run still ends with a status
    // (the callbacks get less, nothing panics).
    let patch = js_sys::Function::new_with_args(
        "on",
        "const saved = (globalThis.__saved ||= {slice: Array.prototype.slice, push: Array.prototype.push, freeze: Object.freeze, parse: JSON.parse});\
         const boom = () => { throw new Error('patched'); };\
         Array.prototype.slice = on ? boom : saved.slice;\
         Array.prototype.push = on ? boom : saved.push;\
         Object.freeze = on ? boom : saved.freeze;\
         JSON.parse = on ? boom : saved.parse;",
    );
    let model = js_sys::Function::new_with_args(
        "request",
        "return {stop_reason: 'end_turn', content: [{type: 'text', text: 'saw ' + (Array.isArray(request.messages) ? request.messages.length : typeof request.messages)}]};",
    );
    let process = js_sys::Function::new_with_args(
        "command",
        "return {returncode: 0, stdout: String(command.length), stderr: ''};",
    );
    let _ = patch.call1(&wasm_bindgen::JsValue::NULL, &wasm_bindgen::JsValue::TRUE);
    let trace = record_with_callbacks(&report(), Some(model), Some(process));
    let _ = patch.call1(&wasm_bindgen::JsValue::NULL, &wasm_bindgen::JsValue::FALSE);
    assert!(trace.status().is_some(), "a status, not a panic: {:?}", trace.status());
}

#[wasm_bindgen_test]
fn a_custom_js_model_sees_the_whole_record() {
    // Answers with the number of messages it was sent, then the roles.
    let model = js_sys::Function::new_with_args(
        "request",
        "if (request.messages.length === 1) return {stop_reason: 'tool_use', content: [{type: 'tool_use', id: 'x1', name: 'run_main', input: {}}]};\
         return {stop_reason: 'end_turn', content: [{type: 'text', text: request.messages.map(m => m.role).join(',') + ' max=' + request.max_tokens + ' tool=' + request.tools[0].name}]};",
    );
    let trace = record_with_callbacks(&report(), Some(model), None);
    assert_eq!(trace.status(), Some("answered"));
    assert_eq!(trace.result["text"], "user,assistant,user max=1024 tool=run_main");
    assert_eq!(trace.record[2]["content"][0]["tool_use_id"], "x1");
}
