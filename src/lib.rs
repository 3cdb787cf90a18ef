//! Agent Loop Playground's page: the browser side of the playground, and
//! the only crate that knows wasm-bindgen, js-sys and web-sys. It turns an
//! [`agent_loop_core::session::Session`] into DOM and events and decides
//! nothing itself (ARCHITECTURE.md).
//!
//! - [`markup`]: escaping and clipping, the rules every panel follows.
//! - [`view`], [`figure`], [`explore`]: the markup of the panels, the SVG
//!   record figure, and the prediction / what-if panels, as escaped
//!   strings. Pure: they compile and are tested natively.
//! - `handle`: the opaque `Playground` handle JS holds (one per element).
//! - `dom`: the small DOM moves the renderer repeats (hide, press, scroll, focus).
//! - `render`: draws what changed in the session.
//! - `events`: DOM events → session calls → draw → `playground-step`.
//! - `callbacks`: the model and the process as JS functions.
//! - `bench` (feature `bench` only): a heap counter for the benchmark.

pub mod explore;
pub mod figure;
pub mod markup;
pub mod view;

#[cfg(all(target_arch = "wasm32", feature = "bench"))]
pub mod bench;
#[cfg(target_arch = "wasm32")]
pub mod callbacks;
#[cfg(target_arch = "wasm32")]
mod dom;
#[cfg(target_arch = "wasm32")]
mod events;
#[cfg(target_arch = "wasm32")]
pub mod handle;
#[cfg(target_arch = "wasm32")]
mod render;

#[cfg(target_arch = "wasm32")]
pub use handle::Playground;

/// Show Rust panics as a message in the page instead of a dead page.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen(start)]
pub fn start() {
    use wasm_bindgen::JsValue;
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
