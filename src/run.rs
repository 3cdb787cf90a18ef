//! Record a scenario: wire a model and a process into the lesson's entry
//! point the way a real program would, run it under the recorder, and
//! package the result as a [`Trace`] (the trace contract of DESIGN.md).
//!
//! In a `run_loop` scenario, `ask` is bound to `ask_claude` and `execute`
//! to `run_main`, so those really run as nested frames.

use crate::protocol::{Model, ModelError, Process};
use crate::runtime;
use crate::scenario::Scenario;
use crate::trace::{self, preview, Function, LocalsTable, Recording, Step};
use serde::Serialize;
use serde_json::{json, Value};

/// A failure of the run as a whole (not a loop status).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TraceError {
    pub kind: String,
    pub message: String,
}

/// One recorded run. Serialises to the trace contract of DESIGN.md, with
/// each step's locals written out in full.
#[derive(Debug)]
pub struct Trace {
    pub scenario: String,
    pub function: Function,
    /// The entry function's return value, or null.
    pub result: Value,
    pub error: Option<TraceError>,
    pub output: Vec<String>,
    /// The final message list; steps say how much of it existed.
    pub record: Vec<Value>,
    pub steps: Vec<Step>,
    /// The locals every step points into.
    pub locals: LocalsTable,
    /// The call budget of a `run_loop` scenario (0 otherwise).
    pub max_calls: i64,
}

impl Trace {
    /// The locals of a step as a JSON object.
    pub fn locals_json(&self, step: &Step) -> Value {
        self.locals.json(step.locals)
    }

    /// The final status of a `run_loop` trace (`answered`, …), if any.
    pub fn status(&self) -> Option<&str> {
        self.result.get("status").and_then(Value::as_str)
    }
}

/// A step as the trace contract writes it.
#[derive(Serialize)]
struct StepOut<'a> {
    function: Function,
    line: u32,
    label: &'a str,
    depth: u16,
    event: crate::trace::Event,
    locals: Value,
    record_len: u32,
    output_len: u32,
    stage: &'a str,
}

impl Trace {
    fn step_out<'a>(&self, st: &'a Step) -> StepOut<'a> {
        StepOut {
            function: st.function,
            line: st.line,
            label: st.label,
            depth: st.depth,
            event: st.event,
            locals: self.locals_json(st),
            record_len: st.record_len,
            output_len: st.output_len,
            stage: st.stage(),
        }
    }

    /// One step in the trace contract's JSON shape, locals included.
    pub fn step_json(&self, st: &Step) -> Value {
        serde_json::to_value(self.step_out(st)).unwrap_or(Value::Null)
    }
}

impl Serialize for Trace {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        struct Steps<'a>(&'a Trace);
        impl Serialize for Steps<'_> {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_seq(self.0.steps.iter().map(|st| self.0.step_out(st)))
            }
        }
        use serde::ser::SerializeStruct;
        let mut out = s.serialize_struct("Trace", 8)?;
        out.serialize_field("scenario", &self.scenario)?;
        out.serialize_field("function", &self.function)?;
        out.serialize_field("result", &self.result)?;
        out.serialize_field("error", &self.error)?;
        out.serialize_field("output", &self.output)?;
        out.serialize_field("record", &self.record)?;
        out.serialize_field("steps", &Steps(self))?;
        out.serialize_field("max_calls", &self.max_calls)?;
        out.end()
    }
}

/// Record `scenario` against its own fixture doubles.
pub fn record_scenario(scenario: &Scenario) -> Trace {
    let (mut model, mut process) = scenario.doubles();
    record(scenario, &mut model, &mut process, trace::STEP_CAP)
}

/// Record `scenario` against any model and process, with a step cap.
pub fn record(scenario: &Scenario, model: &mut dyn Model, process: &mut dyn Process, cap: usize) -> Trace {
    let question_message = json!({"role": "user", "content": scenario.question});
    let ((result, error, record), rec) = trace::recording(cap, || match scenario.function {
        Function::AskClaude => {
            let messages = vec![question_message];
            let returned = traced_ask(model, &messages);
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
                        message: "the step cap was reached".into(),
                    });
                }
                traced_ask(model, messages)
            };
            let mut execute = |call: &Value| traced_run_main(call, process, scenario.timeout_s);
            let mut emit = trace::emit;
            let args = [("question", json!(scenario.question)), ("max_calls", json!(scenario.max_calls))];
            let show = |r: &Result<crate::protocol::Outcome, crate::protocol::LoopError>| match r {
                Ok(o) => json!({"status": o.status, "text": preview(&o.text), "calls": o.calls,
                                "messages": format!("(the record, n = {})", o.messages.len())}),
                Err(e) => json!({"error": e}),
            };
            let returned = trace::call(Function::RunLoop, &args, show, || {
                runtime::run_loop(&scenario.question, &mut ask, &mut execute, scenario.max_calls, &mut emit)
            });
            match returned {
                Ok(outcome) => {
                    let value = serde_json::to_value(&outcome).unwrap_or(Value::Null);
                    (value, None, outcome.messages)
                }
                Err(e) => (Value::Null, Some(TraceError { kind: e.kind, message: e.message }), Vec::new()),
            }
        }
    });
    let Recording { steps, locals, output, capped } = rec;
    let (result, error) = if capped {
        let message = format!("the trace reached the step cap of {cap} steps and was stopped");
        (Value::Null, Some(TraceError { kind: "step_cap".into(), message }))
    } else {
        (result, error)
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

fn traced_ask(model: &mut dyn Model, messages: &[Value]) -> Result<Value, ModelError> {
    let args = [("messages", json!(format!("(the record, n = {})", messages.len())))];
    let show = |r: &Result<Value, ModelError>| match r {
        Ok(v) => preview(v),
        Err(e) => json!({"raised": e}),
    };
    trace::call(Function::AskClaude, &args, show, || runtime::ask_claude(model, messages))
}

fn traced_run_main(call: &Value, process: &mut dyn Process, timeout_s: f64) -> Value {
    let args = [("call", preview(call)), ("timeout_s", json!(timeout_s))];
    trace::call(Function::RunMain, &args, preview, || runtime::run_main(call, process, timeout_s))
}

fn model_error(e: &ModelError) -> TraceError {
    TraceError { kind: "model_error".into(), message: format!("{}: {}", e.name, e.message) }
}
