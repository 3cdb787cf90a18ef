//! Agent Loop Playground: the agent loop in Rust, recorded line by line and
//! replayed in the browser.
//!
//! Module map (see ARCHITECTURE.md):
//! - [`runtime`] — THE TEACHING SOURCE: `ask_claude`, `run_main`, `run_loop`.
//! - [`protocol`] — message, response and tool types; the `Model` / `Process` traits.
//! - [`trace`] — snapshots and the recorder `runtime` reports to.
//! - [`run`] — wires doubles into an entry point and produces a [`run::Trace`].
//! - [`debugger`] — breakpoints and stepping over a recorded trace (pure).
//! - [`scenario`] — fixture format, validation, Rust doubles.
//! - [`lesson`] — listings cut from `runtime.rs`, stages, captions.
//! - `web` — the only module that knows wasm-bindgen / js-sys / web-sys.
//!
//! Everything outside `web` compiles and is tested natively.

pub mod debugger;
pub mod i18n;
pub mod import;
pub mod lesson;
pub mod predict;
pub mod preview;
pub mod protocol;
pub mod run;
pub mod runtime;
pub mod scenario;
pub mod session;
pub mod trace;
pub mod vocab;

pub mod web;
