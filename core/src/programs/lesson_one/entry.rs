//! The lesson's setup and entry as Python, the way the course's demo
//! writes them: what the model reads (QUESTION, SYSTEM, TOOLS), two small
//! stand-ins (the SDK client playing the scenario's replies, the
//! `subprocess` module playing its outcomes) and the entry call that
//! prints. The templates are `entry.py` and `entry.zh.py`; a scenario's
//! values fill their `@NAME@` holes. The setup panel shows the filled text
//! and tests/python.rs runs exactly that text after the listing.

use crate::i18n::Lang;
use crate::pack::Text;
use crate::programs::program::{in_language, InLanguage, Inputs, Script};
use crate::protocol::{Seconds, TraceError};
use crate::vocab::{fill_in, py_list_into, py_literal_into, py_str};
use serde_json::Value;

/// The templates, by language (the first is the default).
pub const TEMPLATES: [InLanguage; 2] = [
    ("en", Text::built_in("lesson_one/entry.py", include_str!("entry.py"))),
    ("zh", Text::built_in("lesson_one/entry.zh.py", include_str!("entry.zh.py"))),
];

/// How wide a line of data may grow before it is split (the listing's width).
const ROOM: usize = 76;

/// One part of a template: the text after its `#@ name` line.
fn part(template: &'static str, name: &str) -> &'static str {
    let head = format!("#@ {name}\n");
    let Some(at) = template.find(&head) else { return "" };
    let rest = &template[at + head.len()..];
    &rest[..rest.find("\n#@ ").map_or(rest.len(), |end| end + 1)]
}

/// The lesson's entry points.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Entry {
    AskClaude,
    RunMain,
    RunLoop,
}

/// The setup and entry of `function` for one scenario, in its language.
pub fn setup(function: Entry, inputs: &Inputs, script: &Script) -> String {
    let code = inputs.lang.code();
    let template = in_language(&TEMPLATES, code);
    let parts: &[&str] = match function {
        Entry::AskClaude => &["model", "ask_claude"],
        Entry::RunMain => &["process", "run_main"],
        Entry::RunLoop => &["model", "process", "run_loop"],
    };
    let text: Vec<&str> = parts.iter().map(|p| part(template, p)).collect();
    let string = |s: &str| Value::String(s.to_string()).to_string();
    // (the scripted lists written straight into the text, never copied)
    fill_in(&text.join("\n\n"), &mut |name, out| {
        match name {
            "QUESTION" => out.push_str(&string(inputs.question)),
            "SYSTEM" => out.push_str(&string(&inputs.setup.system)),
            "TOOLS" => py_literal_into(&inputs.setup.tools, 8, ROOM, out),
            "REPLIES" => py_list_into(script.replies, 15, ROOM, out),
            "RUNS" => match script.process {
                Value::Null => out.push_str("iter([])"),
                list @ Value::Array(_) => {
                    out.push_str("iter(");
                    py_literal_into(list, 12, ROOM, out);
                    out.push(')');
                }
                one => {
                    out.push_str("repeat(");
                    py_literal_into(one, 14, ROOM, out);
                    out.push(')');
                }
            },
            "CALL" => py_literal_into(inputs.field("call"), 7, ROOM, out),
            "TIMEOUT" => out.push_str(&Seconds(super::timeout_s(inputs)).to_string()),
            "MAX_CALLS" => out.push_str(&inputs.max_calls.to_string()),
            "OUTPUT_LIMIT" => out.push_str(&super::runtime::OUTPUT_LIMIT.to_string()),
            _ => return false,
        }
        true
    })
}

/// What the entry prints after `function` returned `result` (the Python's
/// `print` calls, line by line; `print` of a text with line breaks gives
/// several lines), or, when it raised, the last line of the traceback.
pub fn prints(function: Entry, returned: Result<&Value, &TraceError>, lang: Lang) -> Vec<String> {
    let result = match returned {
        Ok(result) => result,
        Err(e) if e.kind == "value_error" => return vec![format!("ValueError: {}", e.message)],
        Err(e) if e.kind == "model_error" => return vec![e.message.clone()],
        Err(_) => return Vec::new(),
    };
    let field = |key: &str| py_str(result.get(key).unwrap_or(&Value::Null));
    let printed: Vec<String> = match function {
        Entry::AskClaude if result.is_object() => {
            // (the id a tool_result answers: the first tool_use block's)
            let blocks = result["content"].as_array().map(Vec::as_slice).unwrap_or_default();
            let call = blocks.iter().find(|b| b["type"] == "tool_use");
            let id = call.and_then(|b| b.get("id")).unwrap_or(&Value::Null);
            vec![format!("stop_reason: {}", field("stop_reason")), format!("tool_use id: {}", py_str(id))]
        }
        Entry::RunMain => vec![format!("is_error: {}", field("is_error")), field("content")],
        Entry::RunLoop => {
            let values = [("status", field("status")), ("calls", field("calls"))];
            vec![lang.fill("entry_loop", &values), field("text")]
        }
        _ => Vec::new(),
    };
    printed.iter().flat_map(|p| p.split('\n')).map(str::to_string).collect()
}
