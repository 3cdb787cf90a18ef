//! Helpers shared by the native test files.
#![allow(dead_code)]

use agent_loop_core::i18n::Lang;
use agent_loop_core::scenario::{load_shipped, Scenario};
use serde_json::Value;

/// Every shipped scenario that parses.
pub(crate) fn shipped() -> Vec<Scenario> {
    load_shipped().into_iter().filter_map(|(_, s)| s.ok()).collect()
}

/// Both languages, English first.
pub(crate) fn langs() -> [Lang; 2] {
    [Lang::parse("en").unwrap(), Lang::parse("zh").unwrap()]
}

/// Checks that every message carrying tool_result blocks is a `user`
/// message answering exactly the tool_use ids of the message before it, in
/// order. Returns the first violation.
pub(crate) fn pairing_problem(record: &[Value]) -> Option<String> {
    for (i, message) in record.iter().enumerate() {
        let Some(blocks) = message["content"].as_array() else { continue };
        let answered: Vec<&Value> =
            blocks.iter().filter(|b| b["type"] == "tool_result").map(|b| &b["tool_use_id"]).collect();
        if answered.is_empty() {
            continue;
        }
        if message["role"] != "user" || i == 0 {
            return Some(format!("message {i}: tool results must follow a request, in a user message"));
        }
        let asked: Vec<&Value> = record[i - 1]["content"]
            .as_array()
            .map(|b| b.iter().filter(|b| b["type"] == "tool_use").map(|b| &b["id"]).collect())
            .unwrap_or_default();
        if asked != answered {
            return Some(format!("message {i} answers {answered:?} but the requests were {asked:?}"));
        }
    }
    None
}

/// The JS fixture doubles (www/doubles.js), for browser tests.
#[cfg(target_arch = "wasm32")]
pub(crate) mod web {
    use wasm_bindgen::prelude::wasm_bindgen;

    #[wasm_bindgen(module = "/www/doubles.js")]
    extern "C" {
        #[wasm_bindgen(thread_local_v2, js_name = fixtureDoubles)]
        static FIXTURE_DOUBLES: js_sys::Function;
    }

    /// `fixtureDoubles` as a JS function.
    pub(crate) fn fixture_doubles() -> js_sys::Function {
        FIXTURE_DOUBLES.with(Clone::clone)
    }
}
