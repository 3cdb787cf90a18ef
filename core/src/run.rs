//! Record a scenario: wire a model and a process into the lesson's entry
//! point the way a real program would, run it under the recorder, and
//! package the result as a [`Trace`] (written out as JSON by
//! `lesson::trace_json`; the format is in docs/trace-format.md).
//!
//! In a `run_loop` scenario, `ask` is bound to `ask_claude` and `execute`
//! to `run_main`, so those really run as nested frames.

use crate::protocol::ProcessOutcome;
use crate::protocol::{Model, ModelError, Process, Seconds, Setup};
use crate::runtime;
use crate::scenario::Scenario;
use crate::trace::{self, Cut, Function, Limits, Local, LocalsTable, Recording, Step};
use serde::Serialize;
use serde_json::{json, Value};

/// A failure of the run as a whole (not a loop status).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TraceError {
    pub kind: String,
    pub message: String,
}

/// One recorded run.
#[derive(Debug)]
pub struct Trace {
    pub scenario: String,
    pub function: Function,
    /// The entry function's return value, or null. For `run_loop` it holds
    /// `status`, `text` and `calls`; its `messages` are [`Trace::record`]
    /// (kept once: the JSON writer puts them back in `result`).
    pub result: Value,
    pub error: Option<TraceError>,
    /// What the entry point printed, line by line.
    pub output: Vec<crate::protocol::Said>,
    /// The final message list; steps say how much of it existed.
    pub record: Vec<Value>,
    pub steps: Vec<Step>,
    /// The locals every step points into.
    pub locals: LocalsTable,
    /// The call budget of a `run_loop` scenario (0 otherwise).
    pub max_calls: i64,
}

impl Trace {
    /// A trace of nothing, until the first recording.
    pub fn empty() -> Trace {
        Trace {
            scenario: String::new(),
            function: Function::RunLoop,
            result: Value::Null,
            error: None,
            output: Vec::new(),
            record: Vec::new(),
            steps: Vec::new(),
            locals: Default::default(),
            max_calls: 0,
        }
    }

    /// The locals of a step as a JSON object.
    pub fn locals_json(&self, step: &Step) -> Value {
        self.locals.json(step.locals)
    }

    /// What the entry point returned: `result`, with `run_loop`'s record put
    /// back under `messages` (a copy: for writing out, not for every step).
    pub fn returned(&self) -> Value {
        let mut result = self.result.clone();
        if let (Some(map), Function::RunLoop) = (result.as_object_mut(), self.function) {
            map.insert("messages".into(), Value::Array(self.record.clone()));
        }
        result
    }

    /// The final status of a `run_loop` trace (`answered`, …), if any.
    pub fn status(&self) -> Option<&str> {
        self.result.get("status").and_then(Value::as_str)
    }

    /// How the run ended, in one word: the loop's status, or else the kind
    /// of error that stopped the trace (`value_error`, `step_cap`, …), or
    /// `None` for an entry point that returned normally without a status.
    pub fn ending(&self) -> Option<&str> {
        self.status().or_else(|| self.error.as_ref().map(|e| e.kind.as_str()))
    }

    /// The first step where this run and `other` part: a different line,
    /// frame, record or locals, or one run ended while the other goes on.
    /// `None` when they are the same step for step.
    /// What differs between step `i` of this run and of `other`: the
    /// names of the locals that differ, or `line` / `record` / `end`.
    pub fn differences(&self, other: &Trace, i: usize) -> Vec<String> {
        let (Some(a), Some(b)) = (self.steps.get(i), other.steps.get(i)) else { return vec!["end".into()] };
        let mut out = Vec::new();
        if (a.function, a.event, a.depth, a.label) != (b.function, b.event, b.depth, b.label) {
            out.push("line".into());
        }
        if a.record_len != b.record_len {
            out.push("record".into());
        }
        let (x, y) = (self.locals_json(a), other.locals_json(b));
        let names = x.as_object().into_iter().chain(y.as_object()).flat_map(|m| m.keys());
        let mut seen = std::collections::BTreeSet::new();
        for name in names {
            if seen.insert(name.clone()) && x.get(name) != y.get(name) {
                out.push(name.clone());
            }
        }
        out
    }

    pub fn parts_from(&self, other: &Trace) -> Option<usize> {
        let same = |a: &Step, b: &Step| {
            (a.function, a.event, a.depth, a.label, a.record_len, a.output_len)
                == (b.function, b.event, b.depth, b.label, b.record_len, b.output_len)
                && self.locals_json(a) == other.locals_json(b)
        };
        let common = self.steps.len().min(other.steps.len());
        (0..common)
            .find(|&i| !same(&self.steps[i], &other.steps[i]))
            .or((self.steps.len() != other.steps.len()).then_some(common))
    }
}

/// Record `scenario` against its own fixture doubles.
pub fn record_scenario(scenario: &Scenario) -> Trace {
    let (mut model, mut process) = scenario.doubles();
    record(scenario, &mut model, &mut process, trace::STEP_CAP)
}

/// Record `scenario` against any model and process, within `limits` (a
/// step cap alone, or [`Limits`] with time and memory budgets).
pub fn record(
    scenario: &Scenario,
    model: &mut dyn Model,
    process: &mut dyn Process,
    limits: impl Into<Limits>,
) -> Trace {
    let limits: Limits = limits.into();
    // The model reads SYSTEM and the tool description in the scenario's language.
    let setup = Setup::new(&scenario.system, &scenario.tool_description);
    // Once a budget has run out, the process is not started again.
    let mut process = Guarded(process);
    let process: &mut dyn Process = &mut process;
    let question_message = json!({"role": "user", "content": scenario.question});
    let ((result, error, record), rec) = trace::recording(limits, || match scenario.function {
        Function::AskClaude => {
            let messages = vec![question_message];
            let returned = traced_ask(model, &setup, &messages);
            match returned {
                Ok(response) => (response, None, messages),
                Err(e) => (Value::Null, Some(model_error(&e)), messages),
            }
        }
        Function::RunMain => {
            let result = traced_run_main(&scenario.call, process, scenario.timeout_s);
            (result, None, Vec::new())
        }
        Function::RunLoop => {
            let mut ask = |messages: &[Value]| {
                if trace::over_limit() {
                    return Err(ModelError {
                        name: "StepCap".into(),
                        message: "the recording was stopped (a budget ran out)".into(),
                    });
                }
                traced_ask(model, &setup, messages)
            };
            let mut execute = |call: &Value| traced_run_main(call, process, scenario.timeout_s);
            let mut emit = trace::emit;
            let args: [(&str, &dyn Local); 2] =
                [("question", &scenario.question), ("max_calls", &scenario.max_calls)];
            let show = |r: &Result<crate::protocol::Outcome, crate::protocol::LoopError>| match r {
                Ok(o) => json!({"status": o.status, "text": o.text, "calls": o.calls,
                                "messages": crate::preview::record_ref(o.messages.len())}),
                Err(e) => json!({"error": e}),
            };
            let returned = trace::call(Function::RunLoop, &args, show, || {
                runtime::run_loop(&scenario.question, &mut ask, &mut execute, scenario.max_calls, &mut emit)
            });
            match returned {
                Ok(outcome) => {
                    let value =
                        json!({"status": outcome.status, "text": outcome.text, "calls": outcome.calls});
                    (value, None, outcome.messages)
                }
                Err(e) => (Value::Null, Some(TraceError { kind: e.kind, message: e.message }), Vec::new()),
            }
        }
    });
    let Recording { steps, locals, output, cut } = rec;
    let (result, error) = match cut {
        Some(cut) => {
            let message = match cut {
                Cut::Steps => {
                    format!("the trace reached the step cap of {} steps and was stopped", limits.steps)
                }
                Cut::Time => format!(
                    "the recording ran longer than its time budget of {} ms and was stopped",
                    crate::vocab::Decimal(limits.millis.unwrap_or_default())
                ),
                Cut::Memory => format!(
                    "the trace grew past its memory budget of {} MB and was stopped",
                    limits.bytes.unwrap_or_default() >> 20
                ),
            };
            (Value::Null, Some(TraceError { kind: cut.kind().into(), message }))
        }
        None => (result, error),
    };
    Trace {
        scenario: scenario.id.clone(),
        function: scenario.function,
        result,
        error,
        output,
        record,
        steps,
        locals,
        max_calls: if scenario.function == Function::RunLoop { scenario.max_calls } else { 0 },
    }
}

fn traced_ask(model: &mut dyn Model, setup: &Setup, messages: &[Value]) -> Result<Value, ModelError> {
    trace::record_len(messages.len());
    let shown = crate::preview::record_ref(messages.len());
    let args: [(&str, &dyn Local); 1] = [("messages", &shown)];
    let show = |r: &Result<Value, ModelError>| match r {
        Ok(v) => v.clone(),
        Err(e) => json!({"raised": e}),
    };
    trace::call(Function::AskClaude, &args, show, || {
        runtime::ask_claude(model, &setup.system, &setup.tools, messages)
    })
}

fn traced_run_main(call: &Value, process: &mut dyn Process, timeout_s: f64) -> Value {
    let timeout = Seconds(timeout_s);
    let args: [(&str, &dyn Local); 2] = [("call", call), ("timeout", &timeout)];
    trace::call(Function::RunMain, &args, Value::clone, || runtime::run_main(call, process, timeout))
}

fn model_error(e: &ModelError) -> TraceError {
    TraceError { kind: "model_error".into(), message: format!("{}: {}", e.name, e.message) }
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
