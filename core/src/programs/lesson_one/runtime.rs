//! The teaching source: one model request, one tool run, and the loop.
//!
//! These three functions are what the page shows, line for line. Read them
//! top to bottom: `ask_claude` asks once, `run_main` runs once, and
//! `run_loop` keeps the record and decides what happens next.
//!
//! The `before!(…)` / `head!(…)` lines are the tracer: each takes a
//! snapshot just before the next line (or, for a loop head, before the line
//! above) runs. The page hides them; they change no value.

use crate::protocol::{LoopError, Model, ModelError, Outcome, Process, ProcessOutcome, Seconds, Status};
use crate::protocol::{Request, Said, Say, MODEL};
use crate::trace::{before, head};
use serde_json::{json, Value};
use std::collections::BTreeSet as Set;

/// How long one answer from the model may be, in tokens.
pub const MAX_TOKENS: u32 = 1024;
/// How much of the program's output goes back to the model, in characters.
pub const OUTPUT_LIMIT: usize = 2000;

/// One request to the model. It does not run tools and does not loop:
/// it sends the agreement (`system`), the whole record and the tool list,
/// and hands back whatever the model answered.
pub fn ask_claude(
    model: &mut dyn Model,
    system: &str,
    tools: &Value,
    messages: &[Value],
) -> Result<Value, ModelError> {
    before!("ask.build", messages;);
    let request = Request { model: MODEL, system, messages, tools, max_tokens: MAX_TOKENS };
    before!("ask.create", messages; request);
    let response = model.create(&request)?;
    before!("ask.return", messages; response);
    Ok(response)
}

/// Run `python main.py` for one tool request and wrap what happened in a
/// `tool_result`. A failing program is a result too; this function never
/// decides whether the user got an answer.
pub fn run_main(call: &Value, subprocess: &mut dyn Process, timeout: Seconds, say: Say) -> Value {
    before!("main.envelope"; call, timeout);
    let mut result = json!({"type": "tool_result", "tool_use_id": call["id"]});
    before!("main.validate"; call, result);
    if call["name"] != "run_main" || call["input"] != json!({}) {
        before!("main.reject"; call, result);
        result["content"] = json!(say(Said::Unsupported));
        before!("main.reject_flag"; call, result);
        result["is_error"] = json!(true);
        before!("main.return"; result);
        return result;
    }
    before!("main.spawn"; call, result, timeout);
    match &subprocess.run(&["python", "main.py"], timeout) {
        process @ ProcessOutcome::Exited { returncode, stdout, stderr } => {
            before!("main.exited"; process, returncode, stdout, stderr);
            let output = format!("{stdout}{stderr}").trim().to_string();
            before!("main.cap"; returncode, output);
            let output: String = output.chars().take(OUTPUT_LIMIT).collect();
            before!("main.placeholder"; returncode, output);
            let output = if output.is_empty() { say(Said::NoOutput) } else { output };
            before!("main.content"; returncode, output, result);
            result["content"] = json!(format!("exit_code={returncode}\n{output}"));
            before!("main.flag"; returncode, result);
            result["is_error"] = json!(*returncode != 0);
        }
        ProcessOutcome::TimedOut => {
            before!("main.timeout"; timeout, result);
            result["content"] = json!(say(Said::TimedOut { seconds: timeout }));
            before!("main.timeout_flag"; result);
            result["is_error"] = json!(true);
        }
        ProcessOutcome::CannotStart(error) => {
            before!("main.cannot_start"; error, result);
            result["content"] = json!(say(Said::CannotStart { error: error.clone() }));
            before!("main.cannot_start_flag"; result);
            result["is_error"] = json!(true);
        }
    }
    before!("main.return"; result);
    result
}

/// The loop. `ask` reads the whole record and returns the model's answer;
/// `execute` runs one tool request. The loop saves every answer and every
/// result, and stops on `stop_reason` — never because of what a text says.
pub fn run_loop(
    question: &str,
    ask: &mut dyn FnMut(&[Value]) -> Result<Value, ModelError>,
    execute: &mut dyn FnMut(&Value) -> Value,
    max_calls: i64,
    emit: &mut dyn FnMut(String),
    say: Say,
) -> Result<Outcome, LoopError> {
    before!("loop.check_budget"; max_calls);
    if max_calls < 1 {
        before!("loop.bad_budget"; max_calls);
        return Err(LoopError { kind: "value_error".into(), message: say(Said::BadBudget { max_calls }) });
    }
    before!("loop.start"; question, max_calls);
    let mut messages = vec![json!({"role": "user", "content": question})];
    before!("loop.rule", messages; max_calls);
    let kinds: &[&str] = &["text", "tool_use"]; // the block types this lesson reads
    let is_lesson_block = |block: &Value| block["type"].as_str().is_some_and(|t| kinds.contains(&t));

    for number in 1..=max_calls {
        head!("loop.next_call", messages; number, max_calls, kinds);
        before!("loop.announce", messages; number, max_calls);
        emit(say(Said::ModelCall { number }));
        before!("loop.ask", messages; number, max_calls);
        let response = match ask(&messages) {
            Ok(response) => response,
            Err(error) => {
                // A failed request hands control back: no retry, no invented result.
                before!("loop.model_error", messages; number, error);
                let text = say(Said::ModelFailed { name: error.name });
                before!("loop.finish_model_error", messages; number, text);
                return Ok(Outcome { status: Status::ModelError, text, calls: number, messages });
            }
        };
        before!("loop.read", messages; number, response);
        let reason = response["stop_reason"].as_str().unwrap_or("(none)").to_string();
        before!("loop.content", messages; number, response, reason);
        let blocks = response["content"].as_array();
        before!("loop.check_format", messages; number, reason, blocks);
        let Some(blocks) = blocks.filter(|b| b.iter().all(is_lesson_block)) else {
            before!("loop.bad_format", messages; number, response, reason);
            let text = say(Said::BadFormat);
            before!("loop.finish_bad_format", messages; number, text);
            return Ok(Outcome { status: Status::ProtocolError, text, calls: number, messages });
        };
        before!("loop.save_response", messages; number, reason, blocks);
        messages.push(json!({"role": "assistant", "content": blocks}));
        before!("loop.find_calls", messages; number, reason, blocks);
        let calls: Vec<&Value> = blocks.iter().filter(|block| block["type"] == "tool_use").collect();
        before!("loop.join_text", messages; number, reason, calls);
        let texts: Vec<&str> = blocks
            .iter()
            .filter(|block| block["type"] == "text")
            .map(|b| b["text"].as_str().unwrap_or(""))
            .collect();
        before!("loop.join_lines", messages; number, reason, calls, texts);
        let text = texts.join("\n");
        before!("loop.check_answer", messages; number, reason, calls, text);
        if reason == "end_turn" && calls.is_empty() && !text.trim().is_empty() {
            before!("loop.answered", messages; number, reason, text);
            return Ok(Outcome { status: Status::Answered, text, calls: number, messages });
        }
        before!("loop.check_reason", messages; number, reason, calls, text);
        if reason != "end_turn" && reason != "tool_use" {
            before!("loop.model_stopped", messages; number, reason);
            let text = say(Said::ModelStopped { reason: reason.clone() });
            before!("loop.finish_model_stopped", messages; number, reason, text);
            return Ok(Outcome { status: Status::ModelStopped, text, calls: number, messages });
        }
        before!("loop.check_ids", messages; number, reason, calls);
        let ids: Vec<&Value> = calls.iter().map(|call| &call["id"]).collect();
        before!("loop.ids_filled", messages; number, reason, calls, ids);
        let filled = ids.iter().all(|id| id.as_str().is_some_and(|id| !id.is_empty()));
        before!("loop.ids_unique", messages; number, reason, calls, ids, filled);
        let unique = filled
            && ids.iter().try_fold(Set::new(), |mut s, id| s.insert(id.as_str()).then_some(s)).is_some();
        before!("loop.check_calls", messages; number, reason, calls, filled, unique);
        if reason != "tool_use" || calls.is_empty() || !filled || !unique {
            before!("loop.calls_mismatch", messages; number, reason, calls, filled, unique);
            let text = say(Said::Mismatch);
            before!("loop.finish_mismatch", messages; number, text);
            return Ok(Outcome { status: Status::ProtocolError, text, calls: number, messages });
        }
        // The whole answer is already saved; each result must name its request's id.
        before!("loop.results", messages; number, calls);
        let mut results: Vec<Value> = Vec::new();
        for call in calls {
            head!("loop.next_tool", messages; number, call, results);
            before!("loop.announce_tool", messages; number, call, results);
            emit(say(Said::Executing { name: call["name"].as_str().unwrap_or("?").into() }));
            before!("loop.execute", messages; number, call, results);
            let result = execute(call);
            before!("loop.collect", messages; number, call, result, results);
            let last_line = result["content"].as_str().unwrap_or("").lines().last().unwrap_or("");
            before!("loop.report_tool", messages; number, result, last_line);
            emit(say(Said::ToolResult { line: last_line.into() }));
            before!("loop.stage_result", messages; number, result, results);
            results.push(result);
        }
        before!("loop.save_results", messages; number, results);
        messages.push(json!({"role": "user", "content": results}));
        before!("loop.saved", messages; number);
        emit(say(Said::Saved));
    }
    before!("loop.call_limit", messages; max_calls);
    let text = say(Said::CallLimit { max_calls });
    before!("loop.finish_call_limit", messages; max_calls, text);
    Ok(Outcome { status: Status::CallLimit, text, calls: max_calls, messages })
}
