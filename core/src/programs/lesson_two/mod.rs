//! The course's second lesson, the core loop: `agent_loop` (the lesson's
//! minimal loop over `execute_tool`), and the three loops the lesson warns
//! about — `stop_on_text`, `cap_as_brake`, `keep_text_only` — which share
//! its labels wherever their lines are its lines, so two runs on the same
//! replies can be laid side by side (`run::Trace::beside`). Its Rust is
//! `teaching.rs`, its Python `core_loop.py` (and `.zh.py`), its setup
//! `entry.rs`; this file is its table: the functions, the caption stage of
//! every label, the wiring, and what its scenarios must hold.

pub mod entry;
pub mod teaching;

use super::program::{any_value, no_more, Field, Figure, Inputs, Part, Problems, Program, Ran};
use crate::i18n::Phrase;
use crate::protocol::{Model, Process, Said, TraceError};
use crate::trace::{self, Local};
use crate::vocab::Function;
use serde_json::{json, Map, Value};
use teaching::{Harness, Raised, Tools};

pub use teaching::EXECUTE_TOOL;
pub const AGENT_LOOP: Function = Function::named("agent_loop");
pub const STOP_ON_TEXT: Function = Function::named("stop_on_text");
pub const CAP_AS_BRAKE: Function = Function::named("cap_as_brake");
pub const KEEP_TEXT_ONLY: Function = Function::named("keep_text_only");

/// The loops a scenario may run: the lesson's, then the anti-patterns.
pub const LOOPS: [Function; 4] = [AGENT_LOOP, STOP_ON_TEXT, CAP_AS_BRAKE, KEEP_TEXT_ONLY];

pub const PROGRAM: Program = Program {
    name: "lesson_two",
    functions: &[AGENT_LOOP, EXECUTE_TOOL, STOP_ON_TEXT, CAP_AS_BRAKE, KEEP_TEXT_ONLY],
    pack: Some("lesson_two"),
    rust: crate::pack::packed!("lesson_two/teaching.rs", include_str!("teaching.rs")),
    python: &[
        ("en", crate::pack::packed!("lesson_two/core_loop.py", include_str!("core_loop.py"))),
        ("zh", crate::pack::packed!("lesson_two/core_loop.zh.py", include_str!("core_loop.zh.py"))),
    ],
    templates: &entry::TEMPLATES,
    namespaces: &["core", "tool", "text", "only", "brake"],
    setup: entry::setup,
    prints: entry::prints,
    stage,
    part,
    run,
    check,
    milestones: &["core.stop", "core.cap", "tool.unknown", "core.return"],
    scenarios: &[
        "core-weather",
        "core-two-tools",
        "core-unknown-tool",
        "core-tool-raises",
        "core-max-tokens",
        "core-cap",
        "core-no-text",
        "core-refusal",
        "core-says-done",
        "core-four-turns",
    ],
    opens: &["core-weather"],
    beside: &LOOPS,
    nested: &[EXECUTE_TOOL],
    main: AGENT_LOOP,
    // (its scenarios give SYSTEM and the tools; a question left out is the
    // first program's)
    defaults: None,
    // (what `tool_results` must hold is said by check)
    fields: &[Field { name: "tool_results", default: "null", check: any_value }],
    record: "messages",
    expect_only: &[("results", &LOOPS)],
    check_expect: no_more,
    asks: &["core.ask"],
    endings: &[],
    edits,
    figure: &Figure::NONE,
};

/// The what-if editors of every loop.
fn edits(_: Function) -> &'static [(&'static str, &'static str)] {
    &[("model", "edit_model"), ("tool_results", "edit_tool_results")]
}

/// The caption stage of a step: lines that tell one idea share one.
fn stage(function: Function, label: &str) -> &'static str {
    match (label, function) {
        ("call", EXECUTE_TOOL) => "tool.call",
        ("return", EXECUTE_TOOL) => "tool.done",
        ("raise", EXECUTE_TOOL) => "tool.raised",
        ("call", _) => "core.call",
        ("return", _) => "core.done",
        ("raise", _) => "core.raised",
        ("tool.check", _) => "tool.check",
        ("tool.unknown", _) => "tool.unknown",
        ("tool.run", _) => "tool.run",
        ("core.start", _) => "core.start",
        ("core.next_turn" | "core.ask", _) => "core.ask",
        ("core.announce", _) => "core.announce",
        ("core.check_stop", _) => "core.check_stop",
        ("core.stop", STOP_ON_TEXT) => "text.stop",
        ("core.stop", _) => "core.stop",
        ("core.save_reply", _) => "core.save_reply",
        ("core.results" | "core.next_block" | "core.is_tool", _) => "core.next_block",
        ("core.execute" | "core.collect", _) => "core.execute",
        ("core.save_results", _) => "core.save_results",
        ("core.cap", _) => "core.cap",
        ("core.final" | "core.return", CAP_AS_BRAKE) => "brake.final",
        ("core.final" | "core.return", _) => "core.final",
        ("text.join" | "text.check_done", _) => "text.check_done",
        ("only.join" | "only.save_text", _) => "only.save_text",
        ("trace.step_cap", _) => "trace.step_cap",
        ("trace.time_budget", _) => "trace.time_budget",
        ("trace.memory_budget", _) => "trace.memory_budget",
        _ => "other",
    }
}

/// What each stage of the loops is about in the figure.
fn part(stage: &str) -> Part {
    match stage {
        "core.start" => Part::Record,
        "core.ask" | "core.announce" | "core.save_reply" | "only.save_text" => Part::Flight,
        "core.check_stop" | "core.stop" | "text.stop" | "text.check_done" => Part::Reason,
        "core.next_block" | "core.execute" | "core.save_results" => Part::Staged,
        "tool.call" | "tool.check" | "tool.unknown" | "tool.run" | "tool.done" | "tool.raised" => {
            Part::Staged
        }
        "core.cap" | "core.final" | "brake.final" | "core.done" | "core.raised" => Part::Status,
        _ => Part::None,
    }
}

/// The tool functions of a scenario (`tool_results`): each plays its
/// outcomes in order — `{"returns": value}` or `{"raises": name, "message": …}`.
struct Scripted<'a> {
    results: &'a Value,
    used: Vec<(String, usize)>,
    lang: crate::i18n::Lang,
}

impl Tools for Scripted<'_> {
    fn has(&self, name: &str) -> bool {
        self.results.get(name).is_some()
    }

    fn call(&mut self, name: &str, _input: &Value) -> Result<Value, Raised> {
        if trace::over_limit() {
            return Err(Raised { name: "StepCap".into(), message: String::new() });
        }
        let i = match self.used.iter_mut().find(|(n, _)| n == name) {
            Some((_, i)) => {
                *i += 1;
                *i - 1
            }
            None => {
                self.used.push((name.to_string(), 1));
                0
            }
        };
        let Some(outcome) = self.results[name].get(i) else {
            let message = self.lang.fill("tool_no_results", &[("name", name.to_string())]);
            return Err(Raised { name: "ScriptExhausted".into(), message });
        };
        match outcome.get("raises").and_then(Value::as_str) {
            Some(error) => Err(Raised {
                name: error.to_string(),
                message: crate::vocab::py_str(outcome.get("message").unwrap_or(&json!(""))),
            }),
            None => Ok(outcome.get("returns").cloned().unwrap_or(Value::Null)),
        }
    }
}

/// Run one of the loops on the scenario's question.
fn run(function: Function, inputs: &Inputs, model: &mut dyn Model, _: &mut dyn Process) -> Ran {
    let lang = inputs.lang;
    let say = move |said: Said| lang.say(&said);
    let mut tools = Scripted { results: inputs.field("tool_results"), used: Vec::new(), lang };
    let mut h = Harness {
        client: model,
        setup: inputs.setup,
        tools: &mut tools,
        max_iters: inputs.max_calls,
        say: &say,
    };
    let mut messages: Vec<Value> = Vec::new();
    let args: [(&str, &dyn Local); 1] = [("user_query", &inputs.question)];
    // (the frame's return shows the record by its length, as run_loop's does)
    let kept = std::cell::Cell::new(0);
    let show = |r: &teaching::Ended| match r {
        Ok((text, turns)) => {
            json!({"text": text, "turns": turns, "messages": crate::preview::record_ref(kept.get())})
        }
        Err(e) => json!({"raised": {"name": e.name, "message": e.message}}),
    };
    let looped = match function {
        STOP_ON_TEXT => teaching::stop_on_text,
        CAP_AS_BRAKE => teaching::cap_as_brake,
        KEEP_TEXT_ONLY => teaching::keep_text_only,
        _ => teaching::agent_loop,
    };
    let returned = trace::call(function, &args, show, || {
        let ended = looped(inputs.question, &mut messages, &mut h);
        kept.set(messages.len());
        ended
    });
    let (result, error) = match returned {
        Ok((text, turns)) => (json!({"text": text, "turns": turns}), None),
        Err(raised) => (Value::Null, Some(trace_error(&raised))),
    };
    Ran { result, error, record: messages, returns_record: true, max_calls: inputs.max_calls, printed: None }
}

/// An exception nobody caught, as the trace's error: its kind, and the
/// last line Python prints of it.
fn trace_error(raised: &Raised) -> TraceError {
    let kind = match raised.name.as_str() {
        crate::api::BAD_REQUEST => "bad_request",
        "ValueError" => "value_error",
        "StopIteration" => "stop_iteration",
        _ => "raised",
    };
    let text = match raised.name.as_str() {
        crate::api::BAD_REQUEST => crate::api::python_text(&raised.message),
        _ => raised.message.clone(),
    };
    let message = if text.is_empty() { raised.name.clone() } else { format!("{}: {text}", raised.name) };
    TraceError { kind: kind.into(), message }
}

/// What a lesson-two scenario must hold beyond the shared fields.
fn check(function: Function, obj: &Map<String, Value>, problem: Problems) {
    if function == EXECUTE_TOOL {
        problem("function", Phrase::word("check_tool_alone"));
    }
    for field in ["system", "tools", "tool_results"] {
        if obj.get(field).is_none() {
            let values = [("function", function.name().to_string()), ("field", field.to_string())];
            problem(field, Phrase::with("check_needs_field", &values));
        }
    }
    if obj.get("model").is_none() {
        problem("model", Phrase::with("check_needs_replies", &[("function", function.name().into())]));
    }
    if obj.get("max_calls").and_then(Value::as_i64).is_some_and(|n| n < 1) {
        problem("max_calls", Phrase::word("check_cap"));
    }
    entry::check_replies(obj, problem);
}
