//! The teaching source of the tests' tiny program: ask the model one
//! question and print the text of its answer. The `before!`/`head!` lines
//! are the tracer, as in `runtime.rs`.

use crate::protocol::{Model, ModelError, Request, MODEL};
use crate::trace::{before, head};
use serde_json::json;

/// Ask the model one question, print every text it answers with, and hand
/// back the texts.
pub fn ask_once(
    model: &mut dyn Model,
    question: &str,
    emit: &mut dyn FnMut(String),
) -> Result<String, ModelError> {
    before!("once.start"; question);
    let messages = vec![json!({"role": "user", "content": question})];
    before!("once.tools", messages;);
    let tools = json!([]);
    before!("once.request", messages; tools);
    let request = Request { model: MODEL, system: "", messages: &messages, tools: &tools, max_tokens: 256 };
    before!("once.ask", messages; request);
    let response = model.create(&request)?;
    before!("once.texts", messages; response);
    let mut texts: Vec<String> = Vec::new();
    for block in response["content"].as_array().into_iter().flatten() {
        head!("once.next_block", messages; block, texts);
        before!("once.print", messages; block, texts);
        emit(block["text"].as_str().unwrap_or("").to_string());
        before!("once.keep", messages; block, texts);
        texts.push(block["text"].as_str().unwrap_or("").to_string());
    }
    before!("once.return", messages; texts);
    Ok(texts.join("\n"))
}
