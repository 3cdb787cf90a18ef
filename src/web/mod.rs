//! The browser side — the only module that knows wasm-bindgen, js-sys and
//! web-sys.
//!
//! - [`callbacks`]: the model and process as JS functions (trait adapters).
//! - [`playground`]: the opaque [`playground::Playground`] handle JS holds;
//!   the trace stays in wasm memory, JS asks for the current snapshot.
//! - [`view`], [`figure`]: DOM and SVG rendering of one snapshot.

pub mod callbacks;
pub mod figure;
pub mod playground;
pub mod view;

use crate::run::{record, Trace};
use crate::scenario::Scenario;
use crate::trace::STEP_CAP;
use callbacks::{JsModel, JsProcess};
use js_sys::{Function, Reflect};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/www/doubles.js")]
extern "C" {
    /// `fixtureDoubles(fixture) -> {model, process}` from www/doubles.js.
    #[wasm_bindgen(js_name = fixtureDoubles)]
    fn fixture_doubles(fixture: &JsValue) -> JsValue;
}

/// The JS fixture doubles for a scenario, as callbacks.
pub fn js_doubles(scenario: &Scenario) -> (Function, Function) {
    let doubles = fixture_doubles(&callbacks::from_json(&scenario.raw));
    let get = |k: &str| {
        Reflect::get(&doubles, &JsValue::from_str(k)).ok().and_then(|f| f.dyn_into::<Function>().ok())
    };
    let noop = || Function::new_no_args("throw new Error('no double')");
    (get("model").unwrap_or_else(noop), get("process").unwrap_or_else(noop))
}

/// Record a scenario through JS callbacks (the fixture doubles unless
/// `model` / `process` are given).
pub fn record_with_callbacks(
    scenario: &Scenario,
    model: Option<Function>,
    process: Option<Function>,
) -> Trace {
    let (double_model, double_process) = js_doubles(scenario);
    let mut model = JsModel::new(model.unwrap_or(double_model));
    let mut process = JsProcess::new(process.unwrap_or(double_process));
    record(scenario, &mut model, &mut process, STEP_CAP)
}

/// Show Rust panics as a message in the page instead of a dead page.
#[wasm_bindgen(start)]
pub fn start() {
    std::panic::set_hook(Box::new(|info| {
        let message = format!("Agent Loop Playground crashed: {info}");
        web_sys::console::error_1(&JsValue::from_str(&message));
        if let Some(document) = web_sys::window().and_then(|w| w.document()) {
            if let Ok(Some(body)) = document.query_selector("body") {
                if let Ok(banner) = document.create_element("div") {
                    banner.set_class_name("alp-crash");
                    let _ = banner.set_attribute("role", "alert");
                    banner.set_text_content(Some(&message));
                    let _ = body.prepend_with_node_1(&banner);
                }
            }
        }
    }));
}
