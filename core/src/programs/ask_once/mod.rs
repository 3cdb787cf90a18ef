//! A second, tiny teaching program, compiled only for the tests (feature
//! `test-program`): `ask_once` asks the model one question and prints the
//! text of its answer. It is here to show the seam: this module — its
//! Rust (`teaching.rs`), its Python (`ask_once.py`) and this table — is all
//! there is of it, and the tests record, list, step and check it through
//! the same code as the lesson's.

use super::program::{no_more, Figure, Inputs, Part, Problems, Program, Ran, Script};
use crate::i18n::Phrase;
use crate::protocol::{Model, ModelError, Process, TraceError};
use crate::trace::{self, Local};
use crate::vocab::Function;
use serde_json::{json, Map, Value};

pub mod teaching;

pub const ASK_ONCE: Function = Function::named("ask_once");

pub const PROGRAM: Program = Program {
    name: "ask_once",
    functions: &[ASK_ONCE],
    pack: None,
    rust: crate::pack::Text::built_in("ask_once/teaching.rs", include_str!("teaching.rs")),
    python: &[("en", crate::pack::Text::built_in("ask_once/ask_once.py", include_str!("ask_once.py")))],
    templates: &[],
    namespaces: &["once"],
    setup,
    prints: |_, _, _| Vec::new(),
    stage,
    part: |_| Part::None,
    run,
    check,
    milestones: &["once.print"],
    scenarios: &[],
    opens: &[],
    beside: &[],
    nested: &[],
    main: ASK_ONCE,
    defaults: None,
    fields: &[],
    record: "messages",
    expect_only: &[],
    check_expect: no_more,
    asks: &["once.ask"],
    endings: &[],
    edits: |_| &[("model", "edit_model")],
    figure: &Figure::NONE,
};

/// Each line is its own stage; the frame's ends have theirs.
fn stage(_: Function, label: &str) -> &'static str {
    match label {
        "call" => "once.call",
        "return" => "once.done",
        "once.next_block" | "once.print" | "once.keep" => "once.print",
        "once.start" | "once.tools" | "once.request" | "once.ask" | "once.texts" | "once.return" => {
            "once.step"
        }
        _ => "other",
    }
}

fn run(_: Function, inputs: &Inputs, model: &mut dyn Model, _: &mut dyn Process) -> Ran {
    let messages = vec![json!({"role": "user", "content": inputs.question})];
    let args: [(&str, &dyn Local); 1] = [("question", &inputs.question)];
    let show = |r: &Result<String, ModelError>| match r {
        Ok(text) => json!(text),
        Err(e) => json!({"raised": e}),
    };
    let returned =
        trace::call(ASK_ONCE, &args, show, || teaching::ask_once(model, inputs.question, &mut trace::emit));
    let (result, error) = match returned {
        Ok(text) => (json!(text), None),
        Err(e) => (Value::Null, Some(TraceError { kind: "model_error".into(), message: e.name })),
    };
    Ran { result, error, record: messages, returns_record: false, max_calls: 0, printed: None }
}

/// The entry: ask the scenario's question (its replies are the model's).
fn setup(_: Function, inputs: &Inputs, _: &Script) -> String {
    format!("ask_once(client, {})\n", Value::String(inputs.question.to_string()))
}

fn check(_: Function, obj: &Map<String, Value>, problem: Problems) {
    if obj.get("model").is_none() {
        problem("model", Phrase::with("check_needs_replies", &[("function", "ask_once".into())]));
    }
}
