//! Agent Loop Playground's page: the browser side of the playground, and
//! the only crate that knows wasm-bindgen, js-sys and web-sys. It turns an
//! [`agent_loop_core::session::Session`] into DOM and events and decides
//! nothing itself (ARCHITECTURE.md).
//!
//! - [`markup`]: escaping and clipping, the rules every panel follows.
//! - [`shell`], [`view`], [`figure`], [`explore`]: the frame, the markup of the panels, the SVG
//!   record figure, and the prediction / what-if panels, as escaped
//!   strings. Pure: they compile and are tested natively.
//! - `handle`: the opaque `Playground` handle JS holds (one per element).
//! - `dom`: the small DOM moves the renderer repeats (hide, press, scroll, focus).
//! - `render`: draws what changed in the session.
//! - `events`: DOM events → session calls → draw → `playground-step`.
//! - `callbacks`: the model and the process as JS functions.
//! - `builtins`: the host page's clock and `innerHTML` as they were at
//!   start, through `catch` bindings, and the Trusted Types policy.
//! - `worker`: what the page's recording worker calls, and the run it hands back.
//! - `bench` (feature `bench` only): a heap counter for the benchmark.

pub mod explore;
pub mod figure;
pub mod first_view;
pub mod markup;
pub mod panels;
pub mod shell;
pub mod view;

#[cfg(all(target_arch = "wasm32", feature = "bench"))]
pub mod bench;
#[cfg(all(target_arch = "wasm32", feature = "dom"))]
mod builtins;
#[cfg(all(target_arch = "wasm32", feature = "dom"))]
pub mod callbacks;
#[cfg(all(target_arch = "wasm32", feature = "dom"))]
mod dom;
#[cfg(all(target_arch = "wasm32", feature = "dom"))]
mod events;
#[cfg(all(target_arch = "wasm32", feature = "dom"))]
pub mod handle;
#[cfg(all(target_arch = "wasm32", feature = "dom"))]
mod render;
#[cfg(all(target_arch = "wasm32", feature = "dom"))]
pub mod worker;

#[cfg(all(target_arch = "wasm32", feature = "dom"))]
pub use handle::Playground;

/// Capture the page's built-ins (see `builtins`) and say a Rust panic in
/// the console. Nothing is put into the host page: the element shows the
/// failure inside its own shadow root, where the error reaches it.
#[cfg(all(target_arch = "wasm32", feature = "dom"))]
#[wasm_bindgen::prelude::wasm_bindgen(start)]
pub fn start() {
    builtins::capture();
    std::panic::set_hook(Box::new(|info| {
        let message = format!("Agent Loop Playground crashed: {info}");
        web_sys::console::error_1(&wasm_bindgen::JsValue::from_str(&message));
    }));
}
