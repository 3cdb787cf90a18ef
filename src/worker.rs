//! What the page's recording worker calls (www/recorder.js, a second
//! instance of this module): an author's file recorded off the page's
//! thread, as bytes the page's own instance shows
//! (`agent_loop_core::session::recorder::give`). The worker records with the same
//! doubles (doubles.js), in the language and under the budgets the
//! element asked for; the page reads the run back only for exactly that
//! file, language and budgets, and records it itself otherwise.

use crate::callbacks::{opt_str, JsDoubles};
use agent_loop_core::scenario::Scenario;
use agent_loop_core::session::recorder;
use agent_loop_core::session::{Options, Settings};
use js_sys::Function as JsFunction;
use wasm_bindgen::prelude::*;

/// The run of the scenario file `text` for its checks and display, as
/// bytes: `options` gives `lang`, `timeBudget` and `memoryBudget` as the
/// element has them. `undefined` when the text is not a valid scenario, or
/// its program's pack or its language's table is not here (the page then
/// records it itself).
#[wasm_bindgen(js_name = recordElsewhere)]
pub fn record_elsewhere(doubles: JsFunction, text: &str, options: JsValue) -> Option<Vec<u8>> {
    let wanted = Options {
        lang: opt_str(&options, "lang"),
        time_budget: opt_str(&options, "timeBudget"),
        memory_budget: opt_str(&options, "memoryBudget"),
        clock: Some(crate::builtins::now),
        ..Options::default()
    };
    let settings = Settings::read(&wanted);
    let scenario = Scenario::parse(text).ok()?;
    recorder::record_elsewhere(&JsDoubles { factory: doubles }, &scenario, settings.lang, settings.limits)
}

/// Keep a run the worker recorded (`recordElsewhere`'s bytes) for every
/// playground of the page, to be read back now when `read_now` (by
/// `readGiven`, before it is shown); false when the bytes are not such a
/// run.
#[wasm_bindgen(js_name = giveRun)]
pub fn give_run(bytes: Vec<u8>, read_now: bool) -> bool {
    recorder::give(bytes, read_now).is_ok()
}

/// One slice more of a run given to be read now: true while there is
/// more (the element reads each slice in a task of its own, so that no
/// task of the page's reads a long run whole).
#[wasm_bindgen(js_name = readGiven)]
pub fn read_given() -> bool {
    recorder::read_more()
}

/// Parse a long file's text now, in a task of its own before the one
/// that opens it (which takes this parse of exactly that text).
#[wasm_bindgen(js_name = parseAhead)]
pub fn parse_ahead(text: &str) {
    agent_loop_core::session::ahead::parse_ahead(text);
}

/// How many recordings this instance has made (the tests count the work:
/// a file the worker recorded is not recorded here).
#[wasm_bindgen(js_name = recordingsHere)]
pub fn recordings_here() -> f64 {
    agent_loop_core::trace::recordings() as f64
}

/// How many runs given this instance read back whole in the call that
/// showed them (the tests count the work: a run shown again is read a
/// slice per task first, so none is).
#[wasm_bindgen(js_name = readAtOnceHere)]
pub fn read_at_once_here() -> f64 {
    recorder::read_at_once() as f64
}
