//! The course's first lesson: `ask_claude` asks the model once, `run_main`
//! runs `python main.py` once, and `run_loop` keeps the record and decides
//! what happens next. Its Rust is `runtime.rs` (THE TEACHING SOURCE), its
//! Python `runtime.py`; this file is its table: the functions, the caption
//! stage of every snapshot label, how a recording wires the model and the
//! process into each entry point (in a `run_loop` scenario `ask` is bound
//! to `ask_claude` and `execute` to `run_main`, so they really run as nested
//! frames), and what its scenarios must hold.

pub mod entry;
pub mod runtime;

use super::program::{Asks, Defaults, Field, Figure, Inputs, Part, Pipe, Problems, Program, Ran, ToolRun};
use crate::i18n::Phrase;
use crate::pack::Text;
use crate::preview::Repr;
use crate::protocol::{
    LoopError, Model, ModelError, Outcome, Process, ProcessOutcome, Said, Say, Seconds, Setup, TraceError,
};
use crate::trace::{self, Local};
use crate::vocab::Function;
use serde_json::{json, Map, Value};

pub const ASK_CLAUDE: Function = Function::named("ask_claude");
pub const RUN_MAIN: Function = Function::named("run_main");
pub const RUN_LOOP: Function = Function::named("run_loop");

/// The lesson's functions, in the lesson's order.
pub const FUNCTIONS: [Function; 3] = [ASK_CLAUDE, RUN_MAIN, RUN_LOOP];

pub const PROGRAM: Program = Program {
    name: "lesson_one",
    functions: &FUNCTIONS,
    pack: None,
    rust: Text::built_in("lesson_one/runtime.rs", include_str!("runtime.rs")),
    python: &[
        ("en", Text::built_in("lesson_one/runtime.py", include_str!("runtime.py"))),
        ("zh", Text::built_in("lesson_one/runtime.zh.py", include_str!("runtime.zh.py"))),
    ],
    templates: &entry::TEMPLATES,
    namespaces: &["ask", "loop", "main"],
    setup: |f, inputs, script| entry::setup(entry_of(f), inputs, script),
    prints: |f, returned, lang| entry::prints(entry_of(f), returned, lang),
    stage: stage_for,
    part,
    run,
    check,
    milestones: &MILESTONES,
    scenarios: &["request", "error", "success", "timeout", "reject", "report", "limit", "truncated"],
    opens: &["report", "error", "request"],
    beside: &[],
    nested: &[],
    main: RUN_LOOP,
    defaults: Some(&DEFAULTS),
    fields: &FIELDS,
    record: "messages",
    expect_only: &[
        ("status", &[RUN_LOOP]),
        ("calls", &[RUN_LOOP]),
        ("results", &[RUN_LOOP, RUN_MAIN]),
        ("stop_reason", &[ASK_CLAUDE]),
    ],
    check_expect,
    asks: &["loop.ask"],
    endings: &[(RUN_LOOP, &["answered", "call_limit", "model_stopped"])],
    edits,
    figure: &FIGURE,
};

/// The what-if editors of each entry point.
fn edits(function: Function) -> &'static [(&'static str, &'static str)] {
    match function {
        ASK_CLAUDE => &[("model", "edit_model")],
        // (run_main on its own: the tool call it is given is its input)
        RUN_MAIN => &[("call", "edit_call"), ("process", "edit_process")],
        _ => &[("model", "edit_model"), ("process", "edit_process")],
    }
}

/// What a scenario reads where it leaves them out: the question, the
/// working agreement and the one tool, `run_main`, in English (a page in
/// another language reads them from its table).
pub const DEFAULTS: Defaults = Defaults {
    question: "Run main.py and only report the result.",
    system: "Work on the user's request. To run main.py, call run_main. \
Report what the result says, honestly, and do not change any file.",
    tool_description: "Run main.py in the working directory; returns the exit code, stdout and stderr.",
    words: ["lesson_question", "lesson_system", "lesson_tool"],
    tools,
    accepts,
};

/// The one tool the model may ask for with this description (the model
/// only sees the description; the function itself stays in the application).
fn tools(description: &str) -> Value {
    json!([{
        "name": "run_main",
        "description": description,
        "input_schema": {"type": "object", "properties": {}, "additionalProperties": false}
    }])
}

/// How long `run_main` lets main.py run unless a scenario says (seconds).
const TIMEOUT_S: f64 = 3.0;

/// The lesson's own fields: `program` (main.py's text, for the reader),
/// `call` (the tool call a `run_main` scenario is given), `timeout_s`.
const FIELDS: [Field; 3] = [
    Field { name: "program", default: r#""print(10 / 0)""#, check: a_string },
    Field { name: "timeout_s", default: "3.0", check: a_timeout },
    Field {
        name: "call",
        default: r#"{"type": "tool_use", "id": "call_1", "name": "run_main", "input": {}}"#,
        check: a_call,
    },
];

fn a_string(v: &Value) -> Option<Phrase> {
    (!v.is_string()).then(|| Phrase::word("check_string"))
}

fn a_timeout(v: &Value) -> Option<Phrase> {
    let fine = v.as_f64().is_some_and(|t| t > 0.0 && t.is_finite());
    (!fine).then(|| Phrase::word("check_positive"))
}

fn a_call(v: &Value) -> Option<Phrase> {
    (!v.is_object()).then(|| Phrase::word("check_call"))
}

/// A scenario's `timeout_s`.
fn timeout_s(inputs: &Inputs) -> f64 {
    inputs.field("timeout_s").as_f64().unwrap_or(TIMEOUT_S)
}

/// What the figure draws of the lesson: `run_loop`'s call budget and
/// staged results, `ask_claude`'s request and `run_main`'s tool run.
const FIGURE: Figure = Figure {
    budget: &[RUN_LOOP],
    staged: &[RUN_LOOP],
    staged_by_kind: false,
    fresh: &["loop.ask", "ask.create"],
    asks: Some(Asks { function: ASK_CLAUDE, tools: "[run_main]", max_tokens: runtime::MAX_TOKENS }),
    tool: Some(ToolRun {
        function: RUN_MAIN,
        pipe,
        capped: &["main.cap", "main.placeholder", "main.content"],
        cap_at: "main.cap",
        limit: runtime::OUTPUT_LIMIT,
    }),
};

/// Where `run_main` stands among the figure's four boxes at a stage.
fn pipe(stage: &str) -> Pipe {
    match stage {
        "main.call" | "main.envelope" => Pipe::Call,
        "main.validate" => Pipe::Validate,
        "main.reject" => Pipe::Refused,
        "main.spawn" | "main.output" | "main.timeout" | "main.cannot_start" => Pipe::Process,
        _ => Pipe::Result,
    }
}

/// What a `run_loop` scenario's `expect` must say (how it ends), and a
/// `run_main` one's results (its one result).
fn check_expect(function: Function, expect: &Map<String, Value>, problem: Problems) {
    if function == RUN_LOOP && !expect.contains_key("status") && !expect.contains_key("error") {
        problem("expect.status", Phrase::word("check_status_needed"));
    }
    let results = expect.get("results").and_then(Value::as_array);
    if function == RUN_MAIN && results.is_some_and(|r| r.len() != 1) {
        problem("expect.results", Phrase::word("check_one_result"));
    }
}

/// Which entry of the setup calls `function`.
fn entry_of(function: Function) -> entry::Entry {
    match function {
        ASK_CLAUDE => entry::Entry::AskClaude,
        RUN_MAIN => entry::Entry::RunMain,
        _ => entry::Entry::RunLoop,
    }
}

/// Labels worth pinning in `expect.hits` when the replay reaches them.
pub const MILESTONES: [&str; 11] = [
    "main.exited",
    "main.timeout",
    "main.cannot_start",
    "main.reject",
    "loop.save_results",
    "loop.answered",
    "loop.call_limit",
    "loop.model_stopped",
    "loop.bad_format",
    "loop.calls_mismatch",
    "loop.model_error",
];

/// The stage (caption) a trace label belongs to. Several lines that tell one
/// idea share a stage; labels stay stable when code moves.
pub fn stage_of(label: &str) -> &'static str {
    match label {
        "ask.build" => "ask.build",
        "ask.create" => "ask.create",
        "ask.return" => "ask.return",
        "main.envelope" => "main.envelope",
        "main.validate" => "main.validate",
        "main.reject" | "main.reject_flag" => "main.reject",
        "main.spawn" => "main.spawn",
        "main.exited" | "main.cap" | "main.placeholder" => "main.output",
        "main.content" | "main.flag" => "main.content",
        "main.timeout" | "main.timeout_flag" => "main.timeout",
        "main.cannot_start" | "main.cannot_start_flag" => "main.cannot_start",
        "main.return" => "main.return",
        "loop.check_budget" | "loop.bad_budget" => "loop.budget",
        "loop.start" | "loop.rule" => "loop.start",
        "loop.next_call" | "loop.announce" => "loop.next_call",
        "loop.ask" => "loop.ask",
        "loop.model_error" | "loop.finish_model_error" => "loop.model_error",
        "loop.read" | "loop.content" | "loop.check_format" => "loop.read",
        "loop.bad_format" | "loop.finish_bad_format" => "loop.bad_format",
        "loop.save_response" => "loop.save_response",
        "loop.find_calls" | "loop.join_text" | "loop.join_lines" => "loop.split",
        "loop.check_answer" => "loop.check_answer",
        "loop.answered" => "loop.answered",
        "loop.check_reason" => "loop.check_reason",
        "loop.model_stopped" | "loop.finish_model_stopped" => "loop.model_stopped",
        "loop.check_ids" | "loop.ids_filled" | "loop.ids_unique" | "loop.check_calls" => "loop.check_calls",
        "loop.calls_mismatch" | "loop.finish_mismatch" => "loop.calls_mismatch",
        "loop.results" | "loop.next_tool" | "loop.announce_tool" => "loop.next_tool",
        "loop.execute" => "loop.execute",
        "loop.collect" | "loop.report_tool" | "loop.stage_result" => "loop.collect",
        "loop.save_results" => "loop.save_results",
        "loop.saved" => "loop.saved",
        "loop.call_limit" | "loop.finish_call_limit" => "loop.call_limit",
        "trace.step_cap" => "trace.step_cap",
        "trace.time_budget" => "trace.time_budget",
        "trace.memory_budget" => "trace.memory_budget",
        _ => "other",
    }
}

/// The stage of a step: `call` and `return` events get their function's
/// own stage (`loop.call`, `main.done`, …); lines use [`stage_of`].
pub fn stage_for(function: Function, label: &str) -> &'static str {
    match (label, function) {
        ("call", ASK_CLAUDE) => "ask.call",
        ("call", RUN_MAIN) => "main.call",
        ("call", RUN_LOOP) => "loop.call",
        ("return", ASK_CLAUDE) => "ask.done",
        ("return", RUN_MAIN) => "main.done",
        ("return", RUN_LOOP) => "loop.done",
        ("raise", ASK_CLAUDE) => "ask.raised",
        ("raise", RUN_LOOP) => "loop.raised",
        _ => stage_of(label),
    }
}

/// What each of the loop's stages is about in the figure (`run_main`'s
/// stages are drawn by its own pipeline).
fn part(stage: &str) -> Part {
    match stage {
        "loop.budget" | "loop.next_call" | "loop.call_limit" => Part::Calls,
        "loop.start" | "loop.saved" => Part::Record,
        "loop.ask" | "loop.save_response" | "ask.call" | "ask.build" | "ask.create" | "ask.return"
        | "ask.done" => Part::Flight,
        "loop.read" | "loop.split" | "loop.check_answer" | "loop.check_reason" | "loop.check_calls" => {
            Part::Reason
        }
        "loop.next_tool" | "loop.execute" | "loop.collect" | "loop.save_results" => Part::Staged,
        "loop.model_error"
        | "loop.bad_format"
        | "loop.answered"
        | "loop.model_stopped"
        | "loop.calls_mismatch"
        | "loop.done"
        | "loop.raised" => Part::Status,
        _ => Part::None,
    }
}

/// Run one of the lesson's entry points.
fn run(function: Function, inputs: &Inputs, model: &mut dyn Model, process: &mut dyn Process) -> Ran {
    // Once a budget has run out, the process is not started again.
    let mut process = Guarded(process);
    let process: &mut dyn Process = &mut process;
    let ran = |result, error, record| Ran {
        result,
        error,
        record,
        returns_record: false,
        max_calls: 0,
        printed: None,
    };
    // The sentences of the run, in the words of the listing of its language.
    let lang = inputs.lang;
    let say = move |said: Said| lang.say(&said);
    if function == ASK_CLAUDE {
        let messages = vec![json!({"role": "user", "content": inputs.question})];
        return match traced_ask(model, inputs.setup, &messages) {
            Ok(response) => ran(response, None, messages),
            Err(e) => ran(Value::Null, Some(model_error(&e)), messages),
        };
    }
    if function == RUN_MAIN {
        return ran(
            traced_run_main(inputs.field("call"), process, timeout_s(inputs), &say),
            None,
            Vec::new(),
        );
    }
    let mut ask = |messages: &[Value]| {
        if trace::over_limit() {
            return Err(ModelError {
                name: "StepCap".into(),
                message: "the recording was stopped (a budget ran out)".into(),
            });
        }
        traced_ask(model, inputs.setup, messages)
    };
    let mut execute = |call: &Value| traced_run_main(call, process, timeout_s(inputs), &say);
    let mut emit = trace::emit;
    // (what the setup's entry call passes: two lambdas and print)
    let (lambda, print) = (Repr("<function <lambda>>"), Repr("<built-in function print>"));
    let args: [(&str, &dyn Local); 5] = [
        ("question", &inputs.question),
        ("ask", &lambda),
        ("execute", &lambda),
        ("max_calls", &inputs.max_calls),
        ("emit", &print),
    ];
    let show = |r: &Result<Outcome, LoopError>| match r {
        Ok(o) => json!({"status": o.status, "text": o.text, "calls": o.calls,
                        "messages": crate::preview::record_ref(o.messages.len())}),
        // (run_loop raises ValueError: the Python's name for it)
        Err(e) => json!({"raised": {"name": python_error(&e.kind), "message": e.message}}),
    };
    let returned = trace::call(RUN_LOOP, &args, show, || {
        runtime::run_loop(inputs.question, &mut ask, &mut execute, inputs.max_calls, &mut emit, &say)
    });
    let (result, error, record) = match returned {
        Ok(outcome) => {
            let value = json!({"status": outcome.status, "text": outcome.text, "calls": outcome.calls});
            (value, None, outcome.messages)
        }
        Err(e) => (Value::Null, Some(TraceError { kind: e.kind, message: e.message }), Vec::new()),
    };
    Ran { result, error, record, returns_record: true, max_calls: inputs.max_calls, printed: None }
}

fn traced_ask(model: &mut dyn Model, setup: &Setup, messages: &[Value]) -> Result<Value, ModelError> {
    trace::record_len(messages.len());
    let shown = crate::preview::record_ref(messages.len());
    // (the setup's stand-in client and the model name it passes)
    let client = Repr("namespace(messages=<Messages object>)");
    let args: [(&str, &dyn Local); 3] =
        [("client", &client), ("model", &crate::protocol::MODEL), ("messages", &shown)];
    let show = |r: &Result<Value, ModelError>| match r {
        Ok(v) => v.clone(),
        Err(e) => json!({"raised": e}),
    };
    trace::call(ASK_CLAUDE, &args, show, || runtime::ask_claude(model, &setup.system, &setup.tools, messages))
}

fn traced_run_main(call: &Value, process: &mut dyn Process, timeout_s: f64, say: Say) -> Value {
    let timeout = Seconds(timeout_s);
    let args: [(&str, &dyn Local); 3] = [("call", call), ("workspace", &"."), ("timeout", &timeout)];
    trace::call(RUN_MAIN, &args, Value::clone, || runtime::run_main(call, process, timeout, say))
}

/// A model error as the trace's error: its message is what Python says of
/// the exception (`Name: message`, or the name alone when it has none).
fn model_error(e: &ModelError) -> TraceError {
    let message = if e.message.is_empty() { e.name.clone() } else { format!("{}: {}", e.name, e.message) };
    TraceError { kind: "model_error".into(), message }
}

/// The Python exception a loop error is.
fn python_error(kind: &str) -> &'static str {
    match kind {
        "value_error" => "ValueError",
        _ => "Exception",
    }
}

/// A process that is not started once the recording was stopped.
struct Guarded<'a>(&'a mut dyn Process);

impl Process for Guarded<'_> {
    fn run(&mut self, command: &[&str], timeout: Seconds) -> ProcessOutcome {
        if trace::over_limit() {
            return ProcessOutcome::CannotStart("the recording was stopped (a budget ran out)".into());
        }
        self.0.run(command, timeout)
    }
}

/// What the lesson's scenarios must hold: model replies (but `run_main`
/// needs none), and a process outcome for a `run_main` given the lesson's
/// own tool call.
fn check(function: Function, obj: &Map<String, Value>, problem: Problems) {
    if function != RUN_MAIN && obj.get("model").is_none() {
        problem("model", Phrase::with("check_needs_replies", &[("function", function.name().into())]));
    }
    // (no `call`: the lesson's own, which runs the process)
    let runs = obj.get("call").is_none_or(accepts);
    if function == RUN_MAIN && obj.get("process").is_none() && runs {
        problem("process", Phrase::word("check_needs_process"));
    }
}

/// The one tool call `run_main` accepts: the lesson's tool, with no
/// arguments (the rule `runtime.rs` spells out for the learner; a property
/// test holds the two equal).
pub fn accepts(call: &Value) -> bool {
    call["name"] == "run_main" && call["input"] == json!({})
}
