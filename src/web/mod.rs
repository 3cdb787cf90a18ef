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

/// The JS fixture doubles for a scenario, as callbacks. `factory` is
/// `fixtureDoubles(fixture) -> {model, process}` from www/doubles.js (passed
/// in by the page, so the wasm module imports no script of its own).
pub fn js_doubles(factory: &Function, scenario: &Scenario) -> (Function, Function) {
    let doubles =
        factory.call1(&JsValue::NULL, &callbacks::from_json(&scenario.raw)).unwrap_or(JsValue::NULL);
    let get = |k: &str| {
        Reflect::get(&doubles, &JsValue::from_str(k)).ok().and_then(|f| f.dyn_into::<Function>().ok())
    };
    let noop = || Function::new_no_args("throw new Error('no double')");
    (get("model").unwrap_or_else(noop), get("process").unwrap_or_else(noop))
}

/// Record a scenario through JS callbacks (the fixture doubles unless
/// `model` / `process` are given).
pub fn record_with_callbacks(
    factory: &Function,
    scenario: &Scenario,
    model: Option<Function>,
    process: Option<Function>,
) -> Trace {
    let (double_model, double_process) = js_doubles(factory, scenario);
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

/// Counts live heap bytes so the benchmark can report what a trace really
/// holds (wasm linear memory only ever grows, so it shows the peak).
struct CountingAllocator;

static LIVE_HEAP: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

// SAFETY: forwards every call to the system allocator unchanged; only counts.
unsafe impl std::alloc::GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        LIVE_HEAP.fetch_add(layout.size(), std::sync::atomic::Ordering::Relaxed);
        unsafe { std::alloc::System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        LIVE_HEAP.fetch_sub(layout.size(), std::sync::atomic::Ordering::Relaxed);
        unsafe { std::alloc::System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

/// Live heap bytes held by Rust in this module (for the benchmark harness).
#[wasm_bindgen(js_name = heapBytes)]
pub fn heap_bytes() -> f64 {
    LIVE_HEAP.load(std::sync::atomic::Ordering::Relaxed) as f64
}
