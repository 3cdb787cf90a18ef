//! Record a scenario: its program wires a model and a process into the
//! entry point the way a real program would ([`crate::programs::Program`]),
//! the recorder runs it, and the result is packaged as a [`Trace`] (written
//! out as JSON by `lesson::trace_json`; the format is in
//! docs/trace-format.md).

use crate::i18n::Lang;
use crate::programs::{self, Inputs, Script};
use crate::protocol::{Model, Process, ProcessOutcome, Seconds, Setup};
use crate::scenario::{Expect, Scenario};
use crate::trace::{self, Cut, Function, Limits, LocalsTable, Recording, Step};
use serde_json::{json, Map, Value};

pub use crate::protocol::TraceError;

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
    /// What the program emitted while it ran, line by line.
    pub output: Vec<String>,
    /// What the entry call of the setup prints once the entry point
    /// returned (nothing when it raised or the recording was cut).
    pub printed: Vec<String>,
    /// The language the run spoke.
    pub lang: Lang,
    /// The final message list; steps say how much of it existed.
    pub record: Vec<Value>,
    pub steps: Vec<Step>,
    /// The locals every step points into.
    pub locals: LocalsTable,
    /// The call budget of the run (0 when it has none).
    pub max_calls: i64,
    /// Whether the entry point returned the record (`run_loop`'s
    /// `messages`): [`Trace::returned`] puts it back.
    pub returns_record: bool,
    /// Where the figure's walk back to the last `stop_reason` stopped.
    pub reason_walk: crate::walk::Memo,
}

impl Trace {
    /// A trace of nothing, until the first recording.
    pub fn empty() -> Trace {
        Trace {
            scenario: String::new(),
            function: crate::programs::first_main(),
            result: Value::Null,
            error: None,
            output: Vec::new(),
            printed: Vec::new(),
            lang: Lang::default_lang(),
            record: Vec::new(),
            steps: Vec::new(),
            locals: Default::default(),
            max_calls: 0,
            returns_record: false,
            reason_walk: Default::default(),
        }
    }

    /// The locals of a step as a JSON object.
    pub fn locals_json(&self, step: &Step) -> Value {
        self.locals.json(step.locals)
    }

    /// One local of a step, if it has one of that name.
    pub fn local(&self, step: &Step, name: &str) -> Option<Value> {
        self.locals.get(step.locals, name)
    }

    /// What the entry point returned: `result`, with `run_loop`'s record put
    /// back under `messages` (a copy: for writing out, not for every step).
    pub fn returned(&self) -> Value {
        let mut result = self.result.clone();
        if let (Some(map), true) = (result.as_object_mut(), self.returns_record) {
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
            // (a local only one of the two steps has is a difference of
            // lines, said as such, not of values)
            let both = x.get(name).is_some() && y.get(name).is_some();
            if seen.insert(name.clone()) && both && x.get(name) != y.get(name) {
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

/// The teaching setup and entry of `scenario` as Python, in its language:
/// what the setup panel shows and what CPython runs after the listing.
pub fn setup_text(scenario: &Scenario) -> String {
    let setup = scenario.setup();
    let inputs = inputs_of(scenario, &setup);
    let process = scenario.raw.get("process").unwrap_or(&Value::Null);
    let script = Script { replies: &scenario.model, process };
    (programs::of(scenario.function).setup)(scenario.function, &inputs, &script)
}

/// The first `lines` lines of [`setup_text`] (each ended by a line break),
/// and whether there are more;
/// built from the first `lines` items of each scripted list (each item
/// takes at least a line), so a scenario of 130,000 blocks costs no more
/// than a short one.
pub fn setup_head(scenario: &Scenario, lines: usize) -> (String, bool) {
    let head = |list: &[Value]| -> Vec<Value> {
        let item = |v: &Value| match (v, v.get("content").and_then(Value::as_array)) {
            (Value::Object(map), Some(content)) if content.len() > lines => {
                // (the other fields copied, not the whole reply: its content
                // may be 50,000 blocks)
                // (inserted one by one: collecting into a map sorts, and the
                // module has no sort)
                let mut short = serde_json::Map::new();
                for (k, v) in map.iter().filter(|(k, _)| *k != "content") {
                    short.insert(k.clone(), v.clone());
                }
                short.insert("content".into(), Value::Array(content[..lines].to_vec()));
                Value::Object(short)
            }
            _ => v.clone(),
        };
        list.iter().take(lines).map(item).collect()
    };
    let setup = scenario.setup();
    let inputs = inputs_of(scenario, &setup);
    let process = match scenario.raw.get("process") {
        Some(Value::Array(runs)) => Value::Array(head(runs)),
        other => other.cloned().unwrap_or(Value::Null),
    };
    let replies = head(&scenario.model);
    let script = Script { replies: &replies, process: &process };
    let text = (programs::of(scenario.function).setup)(scenario.function, &inputs, &script);
    let mut shown: Vec<&str> = text.lines().take(lines + 1).collect();
    let more = shown.len() > lines;
    shown.truncate(lines);
    (shown.iter().flat_map(|l| [l, "\n"]).collect(), more)
}

fn inputs_of<'a>(scenario: &'a Scenario, setup: &'a Setup) -> Inputs<'a> {
    Inputs {
        question: &scenario.question,
        setup,
        max_calls: scenario.max_calls,
        own: &scenario.own,
        lang: scenario.lang,
    }
}

/// Record `scenario` against its own fixture doubles.
pub fn record_scenario(scenario: &Scenario) -> Trace {
    let (mut model, mut process) = scenario.doubles();
    record(scenario, &mut model, &mut process, offline_limits())
}

/// The budgets of a recording made without a clock (the CLI, the tests,
/// a page given none): the step cap and the page's memory budget.
pub fn offline_limits() -> Limits {
    Limits { bytes: Some(Limits::BYTES), ..Limits::from(trace::STEP_CAP) }
}

/// Bytes a JSON value holds, roughly (its strings and 16 per value).
fn json_bytes(value: &Value) -> usize {
    16 + match value {
        Value::String(s) => s.len(),
        Value::Array(items) => items.iter().map(json_bytes).sum(),
        Value::Object(map) => map.iter().map(|(k, v)| k.len() + json_bytes(v)).sum(),
        _ => 0,
    }
}

/// A model or process whose calls are callouts (see [`trace::called_out`]).
struct Counted<'a, T: ?Sized>(&'a mut T);

impl Model for Counted<'_, dyn Model + '_> {
    fn create(&mut self, request: &crate::protocol::Request) -> Result<Value, crate::protocol::ModelError> {
        let reply = self.0.create(request);
        trace::called_out(match &reply {
            Ok(value) => json_bytes(value),
            Err(e) => 16 + e.name.len() + e.message.len(),
        });
        reply
    }
}

impl Process for Counted<'_, dyn Process + '_> {
    fn run(&mut self, command: &[&str], timeout: Seconds) -> ProcessOutcome {
        let outcome = self.0.run(command, timeout);
        trace::called_out(match &outcome {
            ProcessOutcome::Exited { stdout, stderr, .. } => 16 + stdout.len() + stderr.len(),
            ProcessOutcome::TimedOut => 16,
            ProcessOutcome::CannotStart(why) => 16 + why.len(),
        });
        outcome
    }
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
    let setup = scenario.setup();
    let inputs = inputs_of(scenario, &setup);
    let program = programs::of(scenario.function);
    // Every request goes through the API's checks before the model reads it.
    let mut checked = crate::api::Checked::new(model);
    let mut model = Counted(&mut checked as &mut dyn Model);
    let process = &mut Counted(process);
    let (ran, rec) =
        trace::recording(limits, || (program.run)(scenario.function, &inputs, &mut model, process));
    let Recording { steps, locals, output, cut } = rec;
    let (result, error) = match cut {
        Some(cut) => (Value::Null, Some(cut_error(cut, &limits))),
        None => (ran.result, ran.error),
    };
    // (a recording cut short by a budget printed nothing: the page stopped it)
    let printed = match (&error, cut) {
        (_, None) if ran.printed.is_some() => ran.printed.unwrap_or_default(),
        (None, _) => (program.prints)(scenario.function, Ok(&result), scenario.lang),
        (Some(e), None) => (program.prints)(scenario.function, Err(e), scenario.lang),
        (Some(_), Some(_)) => Vec::new(),
    };
    Trace {
        scenario: scenario.id.clone(),
        function: scenario.function,
        result,
        error,
        output,
        printed,
        lang: scenario.lang,
        record: ran.record,
        steps,
        locals,
        max_calls: ran.max_calls,
        returns_record: ran.returns_record,
        reason_walk: Default::default(),
    }
}

/// Why a recording was stopped, as the trace's error.
fn cut_error(cut: Cut, limits: &Limits) -> TraceError {
    let message = match cut {
        Cut::Steps => format!("the trace reached the step cap of {} steps and was stopped", limits.steps),
        Cut::Time => format!(
            "the recording ran longer than its time budget of {} ms and was stopped",
            crate::vocab::Decimal(limits.millis.unwrap_or_default())
        ),
        Cut::Memory => format!(
            "the trace grew past its memory budget of {} MB and was stopped",
            limits.bytes.unwrap_or_default() >> 20
        ),
    };
    TraceError { kind: cut.kind().into(), message }
}

impl Expect {
    /// The `expect` a scenario would give for this run, read off it: how it
    /// ended (status and calls, or the error), the record's shape, the tool
    /// results, the output's length, and the program's milestones it hit
    /// (and, when it erred, missed). What the importer writes and what the
    /// suite compares a fixture's `expect` with.
    pub fn of(trace: &Trace) -> Value {
        let mut expect = Map::new();
        match &trace.error {
            Some(error) => {
                expect.insert("error".into(), json!(error.kind));
            }
            None => {
                if let Some(status) = trace.status() {
                    expect.insert("status".into(), json!(status));
                }
                if let Some(calls) = trace.result.get("calls") {
                    expect.insert("calls".into(), calls.clone());
                }
            }
        }
        expect.insert("record".into(), trace.record.iter().map(message_shape).collect());
        if trace.error.is_none() {
            // The record's tool results, or the one an entry point returned.
            let returned = json!({"content": [&trace.result]});
            let from =
                if trace.record.is_empty() { std::slice::from_ref(&returned) } else { &trace.record[..] };
            let results = tool_results(from).into_iter().map(|(line, is_error)| json!([line, is_error]));
            expect.insert("results".into(), results.collect());
        }
        expect.insert("output_lines".into(), json!(trace.output.len()));
        let milestones = programs::of(trace.function).milestones;
        let hit = |label: &&str| trace.steps.iter().any(|step| step.label == *label);
        let hits: Vec<&str> = milestones.iter().copied().filter(hit).collect();
        if !hits.is_empty() {
            expect.insert("hits".into(), json!(hits));
        }
        if trace.error.is_some() {
            let misses: Vec<&str> = milestones.iter().copied().filter(|l| !hit(l)).collect();
            expect.insert("misses".into(), json!(misses));
        }
        Value::Object(expect)
    }
}

/// `role:kinds`: a message's role, then its content block types joined by
/// `+` (`str` for a string) — `expect.record`'s shape.
pub fn message_shape(message: &Value) -> String {
    let role = message["role"].as_str().unwrap_or("?");
    let kinds = match &message["content"] {
        Value::String(_) => "str".to_string(),
        Value::Array(blocks) => {
            blocks.iter().map(|b| b["type"].as_str().unwrap_or("?")).collect::<Vec<_>>().join("+")
        }
        other => other.to_string(),
    };
    format!("{role}:{kinds}")
}

/// `(first content line, is_error)` for every tool_result in a record —
/// `expect.results`'s shape.
pub fn tool_results(record: &[Value]) -> Vec<(String, bool)> {
    record
        .iter()
        .filter_map(|m| m["content"].as_array())
        .flatten()
        .filter(|b| b["type"] == "tool_result")
        .map(|b| {
            let first = b["content"].as_str().unwrap_or("").lines().next().unwrap_or("");
            (first.to_string(), b["is_error"].as_bool().unwrap_or(false))
        })
        .collect()
}

/// What `check` warns about in a valid scenario: its near misses
/// ([`crate::scenario::near_misses`]), scripted replies no run can read,
/// because the request before them is one the API refuses, and process
/// outcomes no run reads. The run keeps to `limits`; one a budget cut
/// short is not judged on what it did not reach.
pub fn warnings(scenario: &Scenario, limits: impl Into<Limits>) -> Vec<crate::scenario::Problem> {
    warnings_of(scenario, &CheckRun::record(scenario, limits))
}

/// The run a valid author's file was recorded for its checks, kept for
/// its display (a file is recorded once for both).
pub struct Checked {
    pub file: String,
    pub id: String,
    pub trace: Trace,
}

/// One recording of a scenario's own doubles for `check`, with what they
/// handed out: the warnings and the questions' checks share it.
pub struct CheckRun {
    pub trace: Trace,
    /// Replies the model double handed out.
    reads: usize,
    /// Outcomes the process double handed out.
    runs: usize,
}

impl CheckRun {
    /// On the scenario's own Rust doubles (the CLI, the tests).
    pub fn record(scenario: &Scenario, limits: impl Into<Limits>) -> CheckRun {
        let (mut model, mut process) = scenario.doubles();
        CheckRun::record_on(scenario, &mut model, &mut process, limits)
    }

    /// On the doubles given (the page's, whose run it then shows).
    pub fn record_on(
        scenario: &Scenario,
        model: &mut dyn Model,
        process: &mut dyn Process,
        limits: impl Into<Limits>,
    ) -> CheckRun {
        /// Counts what a double hands out.
        struct Counted<'a, T: ?Sized>(&'a mut T, usize);
        impl Model for Counted<'_, dyn Model + '_> {
            fn create(
                &mut self,
                request: &crate::protocol::Request,
            ) -> Result<Value, crate::protocol::ModelError> {
                self.1 += 1;
                self.0.create(request)
            }
        }
        impl Process for Counted<'_, dyn Process + '_> {
            fn run(&mut self, command: &[&str], timeout: Seconds) -> ProcessOutcome {
                self.1 += 1;
                self.0.run(command, timeout)
            }
        }
        let (mut model, mut process) = (Counted(model, 0), Counted(process, 0));
        let trace = record(scenario, &mut model, &mut process, limits);
        CheckRun { trace, reads: model.1, runs: process.1 }
    }

    /// The replies and outcomes the doubles handed out.
    pub fn counts(&self) -> (usize, usize) {
        (self.reads, self.runs)
    }

    /// A run recorded elsewhere (`wire::read`), with its counts.
    pub fn from_parts(trace: Trace, reads: usize, runs: usize) -> CheckRun {
        CheckRun { trace, reads, runs }
    }
}

/// [`warnings`] from a recording made already.
pub fn warnings_of(scenario: &Scenario, checked: &CheckRun) -> Vec<crate::scenario::Problem> {
    let mut out = crate::scenario::near_misses(&scenario.raw, scenario.function);
    let trace = &checked.trace;
    if cut_short(trace) {
        return out;
    }
    let read = checked.reads;
    if let Some(error) = trace.error.as_ref().filter(|e| e.kind == "bad_request") {
        if read < scenario.model.len() {
            let say = crate::scenario::Phrase::with("check_never_read", &[("detail", error.message.clone())]);
            out.push(crate::scenario::Problem::new(format!("model[{read}]"), say));
        }
    }
    out.extend(unused_outcomes(scenario, checked.runs));
    out
}

/// The warnings a scenario does not expect (its `expect.warnings` lists
/// the fields it misses on purpose): what `check` and the page say.
pub fn unexpected_warnings(scenario: &Scenario, checked: &CheckRun) -> Vec<crate::scenario::Problem> {
    let expected = scenario.expect.as_ref().map(|e| e.warnings.clone()).unwrap_or_default();
    warnings_of(scenario, checked).into_iter().filter(|w| !expected.contains(&w.field)).collect()
}

/// Did a time or memory budget stop this run (so that what follows the
/// cut is unknown)?
pub fn cut_short(trace: &Trace) -> bool {
    matches!(trace.error.as_ref().map(|e| e.kind.as_str()), Some("time_budget" | "memory_budget"))
}

/// Process outcomes no run reads: a list of outcomes, one per run, longer
/// than the runs of the program. (One outcome for every run is not said
/// when no step runs the program: it is there for a what-if.)
fn unused_outcomes(scenario: &Scenario, runs: usize) -> Option<crate::scenario::Problem> {
    use crate::scenario::{Phrase, Problem, ProcessScript};
    match &scenario.process {
        ProcessScript::Each(list) if runs < list.len() => {
            let say = Phrase::with("check_process_unused", &[("n", runs.to_string())]);
            Some(Problem::new(format!("process[{runs}]"), say))
        }
        _ => None,
    }
}
