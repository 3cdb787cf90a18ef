//! Lesson two's setup and entry as Python: what the model reads (QUESTION,
//! MODEL, SYSTEM, TOOLS, MAX_ITERS), the stand-in client that checks each
//! request the way the Messages API does before it plays the scenario's
//! replies (`crate::api` is the same rules in Rust), the stand-in tools
//! playing `tool_results`, and the entry call that prints. The templates
//! are `entry.py` and `entry.zh.py`; a scenario's values fill their holes.
//! Also what a lesson-two scenario's replies and tools must hold.

use crate::i18n::{Lang, Phrase};
use crate::programs::program::{in_language, InLanguage, Inputs, Problems, Script};
use crate::protocol::TraceError;
use crate::vocab::{fill_in, py_list_into, py_literal_into, py_str, Function};
use serde_json::{Map, Value};

/// The templates, by language (the first is the default).
pub const TEMPLATES: [InLanguage; 2] = [
    ("en", crate::pack::packed!("lesson_two/entry.py", include_str!("entry.py"))),
    ("zh", crate::pack::packed!("lesson_two/entry.zh.py", include_str!("entry.zh.py"))),
];

/// How wide a line of data may grow before it is split.
const ROOM: usize = 76;

/// The setup and entry of `function` for one scenario, in its language.
pub fn setup(function: Function, inputs: &Inputs, script: &Script) -> String {
    let code = inputs.lang.code();
    let template = in_language(&TEMPLATES, code);
    let string = |s: &str| Value::String(s.to_string()).to_string();
    // (the template's parts, `#@ name` each, one after the other)
    let parts: Vec<&str> =
        template.split("#@ ").filter_map(|p| p.split_once('\n')).map(|(_, body)| body).collect();
    // (the scripted lists written straight into the text, never copied)
    fill_in(&parts.join("\n\n"), &mut |name, out| {
        match name {
            "QUESTION" => out.push_str(&string(inputs.question)),
            "SYSTEM" => out.push_str(&string(&inputs.setup.system)),
            "TOOLS" => py_literal_into(&inputs.setup.tools, 8, ROOM, out),
            "MAX_ITERS" => out.push_str(&inputs.max_calls.to_string()),
            "REPLIES" => py_list_into(script.replies, 15, ROOM, out),
            "TOOL_RESULTS" => py_literal_into(inputs.field("tool_results"), 10, ROOM, out),
            "FUNCTION" => out.push_str(function.name()),
            _ => return false,
        }
        true
    })
}

/// What the entry prints: the loop's final text, or, when the program
/// raised, the last line of the traceback (the trace error's message).
pub fn prints(_: Function, returned: Result<&Value, &TraceError>, _: Lang) -> Vec<String> {
    let printed = match returned {
        Ok(result) => py_str(&result["text"]),
        Err(e) => e.message.clone(),
    };
    printed.split('\n').map(str::to_string).collect()
}

/// What the loops read in a reply must be there: `stop_reason` a string,
/// `content` a list of blocks with a `type`, every `tool_use` block's
/// `input` an object (the loops pass it as keyword arguments). A scripted
/// failure (`{"error": NAME}`) is a reply too. The tools: `tools` a list of
/// definitions, `tool_results` an object of outcome lists.
pub fn check_replies(obj: &Map<String, Value>, problem: Problems) {
    for (i, reply) in obj.get("model").and_then(Value::as_array).into_iter().flatten().enumerate() {
        if reply.get("error").is_some() {
            continue;
        }
        if !reply["stop_reason"].is_string() {
            problem(&format!("model[{i}].stop_reason"), Phrase::word("check_reason_read"));
        }
        let Some(blocks) = reply["content"].as_array() else {
            problem(&format!("model[{i}].content"), Phrase::word("check_blocks"));
            continue;
        };
        for (j, block) in blocks.iter().enumerate() {
            let at = format!("model[{i}].content[{j}]");
            if !block["type"].is_string() {
                problem(&format!("{at}.type"), Phrase::word("check_string"));
            }
            if block["type"] == "tool_use" && !block["input"].is_object() {
                problem(&format!("{at}.input"), Phrase::word("check_input"));
            }
        }
    }
    // (a `tools` that is not a list is said by the shared fields' check)
    for (name, outcomes) in obj.get("tool_results").and_then(Value::as_object).into_iter().flatten() {
        let Some(list) = outcomes.as_array() else {
            problem(&format!("tool_results.{name}"), Phrase::word("check_outcomes"));
            continue;
        };
        for (k, outcome) in list.iter().enumerate() {
            let (returns, raises) = (outcome.get("returns"), outcome.get("raises"));
            if returns.is_some() && raises.is_some() {
                problem(&format!("tool_results.{name}[{k}]"), Phrase::word("check_returns_or_raises"));
            } else if returns.is_none() && !raises.is_some_and(Value::is_string) {
                problem(&format!("tool_results.{name}[{k}]"), Phrase::word("check_tool_outcome"));
            }
        }
    }
    if obj.get("tool_results").is_some_and(|t| !t.is_object()) {
        problem("tool_results", Phrase::word("check_tool_results"));
    }
}
