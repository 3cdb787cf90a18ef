//! Lesson two's teaching source: the minimal core loop and the three loops
//! the lesson warns about.
//!
//! `execute_tool` maps a tool name to a function and refuses a name it
//! does not know. `agent_loop` is the lesson's loop: the whole record on
//! every request, stop on `end_turn`, every tool run and its result sent
//! back with the id, a cap as the safety net, the final text read after
//! the loop. The other three are that loop with the lines the lesson warns
//! about: `stop_on_text` stops when the text says "done", `cap_as_brake`
//! stops after three turns and calls that finished, `keep_text_only` saves
//! only the reply's text. They share the right loop's labels wherever
//! their lines are the right loop's, so two runs can be laid side by side.
//!
//! Like the lesson's code, nothing here catches an exception: an unknown
//! tool, a tool that raises, a request the API refuses or a reply with no
//! text at the end stops the program. That is the lesson's point about
//! robust loops, and the captions say so.
//!
//! The `before!(…)` / `head!(…)` lines are the tracer, as in `runtime.rs`.

use crate::protocol::{Model, ModelError, Request, Said, Say, Setup, MODEL};
use crate::trace::{self, before, head, Local};
use serde_json::{json, Value};

/// The tool dispatcher, a frame of its own.
pub const EXECUTE_TOOL: crate::vocab::Function = crate::vocab::Function::named("execute_tool");

/// How long one answer from the model may be, in tokens.
pub const MAX_TOKENS: u32 = 1024;

/// The tool functions a program may run, by name (the setup's
/// `TOOL_FUNCTIONS`).
pub trait Tools {
    fn has(&self, name: &str) -> bool;
    /// Run the tool: its value, or the exception it raises.
    fn call(&mut self, name: &str, input: &Value) -> Result<Value, Raised>;
}

/// An exception the program does not catch: its Python name and message.
#[derive(Clone, Debug, PartialEq)]
pub struct Raised {
    pub name: String,
    pub message: String,
}

impl From<ModelError> for Raised {
    fn from(e: ModelError) -> Raised {
        Raised { name: e.name, message: e.message }
    }
}

/// What a loop hands back: its final text and how many turns it took, or
/// what stopped it (the record is the caller's, so it survives either way).
pub type Ended = Result<(String, i64), Raised>;

/// What a loop is given: the model, what it reads besides the record, the
/// tools, the words of the run.
pub struct Harness<'a> {
    pub client: &'a mut dyn Model,
    pub setup: &'a Setup,
    pub tools: &'a mut dyn Tools,
    pub max_iters: i64,
    pub say: Say<'a>,
}

/// Run the tool the model asked for. The model only asks; this code decides
/// what may run, and refuses a name it does not know.
pub fn execute_tool(
    name: &str,
    tool_input: &Value,
    tools: &mut dyn Tools,
    say: Say,
) -> Result<Value, Raised> {
    before!("tool.check"; name, tool_input);
    if !tools.has(name) {
        before!("tool.unknown"; name);
        return Err(Raised {
            name: "ValueError".into(),
            message: say(Said::UnknownTool { name: name.into() }),
        });
    }
    before!("tool.run"; name, tool_input);
    tools.call(name, tool_input)
}

/// One request: the model, the limit, SYSTEM, TOOLS and the whole record
/// (the stand-in for `client.messages.create(…)`).
fn create(h: &mut Harness, messages: &[Value]) -> Result<Value, Raised> {
    let (system, tools) = (&h.setup.system, &h.setup.tools);
    let request = Request { model: MODEL, system, messages, tools, max_tokens: MAX_TOKENS };
    Ok(h.client.create(&request)?)
}

/// Run `execute_tool` as its own frame.
fn execute(block: &Value, h: &mut Harness) -> Result<Value, Raised> {
    let (name, input) = (block["name"].as_str().unwrap_or(""), &block["input"]);
    let args: [(&str, &dyn Local); 2] = [("name", &name), ("tool_input", input)];
    let show = |r: &Result<Value, Raised>| match r {
        Ok(v) => v.clone(),
        Err(e) => json!({"raised": {"name": e.name, "message": e.message}}),
    };
    let say = h.say;
    trace::call(EXECUTE_TOOL, &args, show, || execute_tool(name, input, &mut *h.tools, say))
}

/// The texts of a reply's text blocks.
fn texts(response: &Value) -> impl Iterator<Item = &str> {
    let blocks = response["content"].as_array().map(Vec::as_slice).unwrap_or_default();
    blocks.iter().filter(|b| b["type"] == "text").map(|b| b["text"].as_str().unwrap_or(""))
}

/// Python's `next(b.text for b in response.content if b.type == "text")`:
/// the first text, or StopIteration when there is none.
fn first_text(response: &Value) -> Result<String, Raised> {
    let first = texts(response).next().map(str::to_string);
    first.ok_or(Raised { name: "StopIteration".into(), message: String::new() })
}

/// What Python's `str()` makes of a value.
fn str_of(value: &Value) -> String {
    crate::vocab::py_str(value)
}

/// How many turns `cap_as_brake` plans for, whatever the task.
pub const BRAKE: i64 = 3;

/// THE LESSON'S LOOP: stop on `stop_reason`; the cap is only a safety net.
pub fn agent_loop(user_query: &str, messages: &mut Vec<Value>, h: &mut Harness) -> Ended {
    before!("core.start"; user_query);
    messages.push(json!({"role": "user", "content": user_query}));
    let (mut response, mut turn, mut capped) = (Value::Null, 0, true);
    for next in 1..=h.max_iters {
        turn = next;
        head!("core.next_turn", messages; turn);
        before!("core.ask", messages; turn);
        response = create(h, messages)?;
        before!("core.announce", messages; turn, response);
        trace::emit((h.say)(Said::Turn { turn, reason: str_of(&response["stop_reason"]) }));
        before!("core.check_stop", messages; turn, response);
        if response["stop_reason"] == "end_turn" {
            before!("core.stop", messages; turn, response);
            capped = false;
            break;
        }
        // The whole content, tool_use blocks and all: they carry the ids.
        before!("core.save_reply", messages; turn, response);
        messages.push(json!({"role": "assistant", "content": response["content"]}));
        before!("core.results", messages; turn, response);
        let mut results: Vec<Value> = Vec::new();
        for block in response["content"].as_array().into_iter().flatten() {
            head!("core.next_block", messages; turn, block, results);
            before!("core.is_tool", messages; turn, block, results);
            if block["type"] == "tool_use" {
                before!("core.execute", messages; turn, block, results);
                let out = execute(block, h)?;
                before!("core.collect", messages; turn, block, out, results);
                let content = str_of(&out);
                results.push(json!({"type": "tool_result", "tool_use_id": block["id"], "content": content}));
            }
        }
        before!("core.save_results", messages; turn, results);
        messages.push(json!({"role": "user", "content": results}));
    }
    if capped {
        before!("core.cap", messages; turn);
        trace::emit((h.say)(Said::CapHit));
    }
    before!("core.final", messages; turn, response);
    let final_text = first_text(&response)?;
    before!("core.return", messages; turn, final_text);
    Ok((final_text, turn))
}

/// ANTI-PATTERN (a): the same loop, but it stops when the text says
/// "done" instead of on `stop_reason`.
pub fn stop_on_text(user_query: &str, messages: &mut Vec<Value>, h: &mut Harness) -> Ended {
    before!("core.start"; user_query);
    messages.push(json!({"role": "user", "content": user_query}));
    let (mut response, mut turn, mut capped) = (Value::Null, 0, true);
    for next in 1..=h.max_iters {
        turn = next;
        head!("core.next_turn", messages; turn);
        before!("core.ask", messages; turn);
        response = create(h, messages)?;
        before!("core.announce", messages; turn, response);
        trace::emit((h.say)(Said::Turn { turn, reason: str_of(&response["stop_reason"]) }));
        before!("text.join", messages; turn, response);
        let text = texts(&response).collect::<Vec<_>>().join(" ");
        before!("text.check_done", messages; turn, text);
        if text.to_lowercase().contains(&(h.say)(Said::DoneWord)) {
            before!("core.stop", messages; turn, response);
            capped = false;
            break;
        }
        // The whole content, tool_use blocks and all: they carry the ids.
        before!("core.save_reply", messages; turn, response);
        messages.push(json!({"role": "assistant", "content": response["content"]}));
        before!("core.results", messages; turn, response);
        let mut results: Vec<Value> = Vec::new();
        for block in response["content"].as_array().into_iter().flatten() {
            head!("core.next_block", messages; turn, block, results);
            before!("core.is_tool", messages; turn, block, results);
            if block["type"] == "tool_use" {
                before!("core.execute", messages; turn, block, results);
                let out = execute(block, h)?;
                before!("core.collect", messages; turn, block, out, results);
                let content = str_of(&out);
                results.push(json!({"type": "tool_result", "tool_use_id": block["id"], "content": content}));
            }
        }
        before!("core.save_results", messages; turn, results);
        messages.push(json!({"role": "user", "content": results}));
    }
    if capped {
        before!("core.cap", messages; turn);
        trace::emit((h.say)(Said::CapHit));
    }
    before!("core.final", messages; turn, response);
    let final_text = first_text(&response)?;
    before!("core.return", messages; turn, final_text);
    Ok((final_text, turn))
}

/// ANTI-PATTERN (b): three turns is the plan; reaching the cap is taken as
/// finished, with no warning, so cut-off work looks like an answer.
pub fn cap_as_brake(user_query: &str, messages: &mut Vec<Value>, h: &mut Harness) -> Ended {
    before!("core.start"; user_query);
    messages.push(json!({"role": "user", "content": user_query}));
    let (mut response, mut turn) = (Value::Null, 0);
    for next in 1..=BRAKE {
        turn = next;
        head!("core.next_turn", messages; turn);
        before!("core.ask", messages; turn);
        response = create(h, messages)?;
        before!("core.announce", messages; turn, response);
        trace::emit((h.say)(Said::Turn { turn, reason: str_of(&response["stop_reason"]) }));
        before!("core.check_stop", messages; turn, response);
        if response["stop_reason"] == "end_turn" {
            before!("core.stop", messages; turn, response);
            break;
        }
        // The whole content, tool_use blocks and all: they carry the ids.
        before!("core.save_reply", messages; turn, response);
        messages.push(json!({"role": "assistant", "content": response["content"]}));
        before!("core.results", messages; turn, response);
        let mut results: Vec<Value> = Vec::new();
        for block in response["content"].as_array().into_iter().flatten() {
            head!("core.next_block", messages; turn, block, results);
            before!("core.is_tool", messages; turn, block, results);
            if block["type"] == "tool_use" {
                before!("core.execute", messages; turn, block, results);
                let out = execute(block, h)?;
                before!("core.collect", messages; turn, block, out, results);
                let content = str_of(&out);
                results.push(json!({"type": "tool_result", "tool_use_id": block["id"], "content": content}));
            }
        }
        before!("core.save_results", messages; turn, results);
        messages.push(json!({"role": "user", "content": results}));
    }
    before!("core.final", messages; turn, response);
    let final_text = first_text(&response)?;
    before!("core.return", messages; turn, final_text);
    Ok((final_text, turn))
}

/// ANTI-PATTERN (c): it saves only the reply's text. The `tool_use` blocks
/// and their ids are gone, so the results it sends next answer nothing the
/// API can see, and the next request is refused.
pub fn keep_text_only(user_query: &str, messages: &mut Vec<Value>, h: &mut Harness) -> Ended {
    before!("core.start"; user_query);
    messages.push(json!({"role": "user", "content": user_query}));
    let (mut response, mut turn, mut capped) = (Value::Null, 0, true);
    for next in 1..=h.max_iters {
        turn = next;
        head!("core.next_turn", messages; turn);
        before!("core.ask", messages; turn);
        response = create(h, messages)?;
        before!("core.announce", messages; turn, response);
        trace::emit((h.say)(Said::Turn { turn, reason: str_of(&response["stop_reason"]) }));
        before!("core.check_stop", messages; turn, response);
        if response["stop_reason"] == "end_turn" {
            before!("core.stop", messages; turn, response);
            capped = false;
            break;
        }
        before!("only.join", messages; turn, response);
        let text = texts(&response).collect::<Vec<_>>().join(" ");
        // ANTI-PATTERN: only the words are kept; the tool_use blocks are lost.
        before!("only.save_text", messages; turn, text);
        messages.push(json!({"role": "assistant", "content": text}));
        before!("core.results", messages; turn, response);
        let mut results: Vec<Value> = Vec::new();
        for block in response["content"].as_array().into_iter().flatten() {
            head!("core.next_block", messages; turn, block, results);
            before!("core.is_tool", messages; turn, block, results);
            if block["type"] == "tool_use" {
                before!("core.execute", messages; turn, block, results);
                let out = execute(block, h)?;
                before!("core.collect", messages; turn, block, out, results);
                let content = str_of(&out);
                results.push(json!({"type": "tool_result", "tool_use_id": block["id"], "content": content}));
            }
        }
        before!("core.save_results", messages; turn, results);
        messages.push(json!({"role": "user", "content": results}));
    }
    if capped {
        before!("core.cap", messages; turn);
        trace::emit((h.say)(Said::CapHit));
    }
    before!("core.final", messages; turn, response);
    let final_text = first_text(&response)?;
    before!("core.return", messages; turn, final_text);
    Ok((final_text, turn))
}
