//! Snapshots: the recorder that `runtime.rs` reports to.
//!
//! `runtime.rs` calls [`before!`] just before each line runs (and [`head!`]
//! at the top of a loop body, for the loop's own line). The macro passes
//! `line!()` — a number from the compiler, never a hand-kept table — and the
//! recorder keeps that raw source line with how it [`Attach`]es. Turning it
//! into the number a listing shows is the lesson layer's job
//! (`lesson::line`): this module knows nothing about listings or captions.
//!
//! Cost rules, so that a 10,000-call loop stays small:
//! - locals are serialised lazily, only while a recording is active;
//! - identical consecutive locals share one allocation;
//! - the message record is never copied: a step stores `record_len`, the
//!   length of the record at that moment (the record only grows).
//!
//! The recorder lives in a thread-local, so the teaching code needs no extra
//! parameter. Recording is single-threaded in the browser and per test
//! thread natively.

use serde::Serialize;
use serde_json::Value;
use std::cell::RefCell;

pub use crate::preview::{preview, Fnv, Local, PREVIEW_CHARS, PREVIEW_DEPTH, PREVIEW_ITEMS};
pub use crate::vocab::Function;

mod bytes;
mod locals;
pub use bytes::{intern, Malformed, Reader, Writer};
pub use locals::LocalsTable;

/// The default hard cap on steps in one trace.
pub const STEP_CAP: usize = 2_000_000;

/// What one recording may spend before it is stopped, with an `error` step
/// that says which budget ran out (`trace.step_cap`, `trace.time_budget`,
/// `trace.memory_budget`). A recording is cut between two steps; a callback
/// that itself never returns cannot be interrupted.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub steps: usize,
    /// Wall time in milliseconds, read from `clock`.
    pub millis: Option<f64>,
    /// Bytes held by the trace (steps, locals, output).
    pub bytes: Option<usize>,
    /// Milliseconds from any fixed point.
    pub clock: fn() -> f64,
}

impl Limits {
    /// The page's default time budget.
    pub const MILLIS: f64 = 2000.0;
    /// The page's default memory budget (of trace).
    pub const BYTES: usize = 256 << 20;

    /// The step cap and the page's default time and memory budgets.
    pub fn budgets(clock: fn() -> f64) -> Limits {
        Limits { steps: STEP_CAP, millis: Some(Limits::MILLIS), bytes: Some(Limits::BYTES), clock }
    }
}

/// A step cap alone (tests and the CLI): no time or memory budget.
impl From<usize> for Limits {
    fn from(steps: usize) -> Limits {
        Limits { steps, millis: None, bytes: None, clock: no_clock }
    }
}

fn no_clock() -> f64 {
    0.0
}

/// Which budget stopped a recording.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cut {
    Steps,
    Time,
    Memory,
}

impl Cut {
    /// The label of the `error` step that ends the trace.
    pub fn label(self) -> &'static str {
        match self {
            Cut::Steps => "trace.step_cap",
            Cut::Time => "trace.time_budget",
            Cut::Memory => "trace.memory_budget",
        }
    }

    /// The error kind of the trace (`step_cap`, `time_budget`, `memory_budget`).
    pub fn kind(self) -> &'static str {
        &self.label()["trace.".len()..]
    }
}

/// What a step marks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Event {
    /// A frame starts (at the function's signature line).
    Call,
    /// The line is about to run.
    Line,
    /// The frame ends; `locals.return` holds the value.
    Return,
    /// The trace ends early (step cap); nothing after it ran.
    Error,
    /// An exception is raised on the line, or passes through it (a
    /// recorded program's step, as CPython reports it; `locals.raise`
    /// holds Python's last traceback line).
    Exception,
}

/// Which source line a snapshot stands for, relative to the `before!` /
/// `head!` line that took it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Attach {
    /// The next line of code (the one about to run).
    Next,
    /// The previous line of code (a loop head, shown on every pass).
    Above,
}

/// One snapshot. Small on purpose (a long loop records hundreds of
/// thousands): locals are an index into the trace's [`LocalsTable`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Step {
    pub function: Function,
    pub event: Event,
    pub depth: u16,
    /// The raw `line!()` of the snapshot in `runtime.rs` (0 for a `call`
    /// event: the signature), with [`Attach::Above`] in the top bit. Read it
    /// with [`Step::source_line`] and [`Step::attach`].
    source: u32,
    pub label: &'static str,
    /// Index of this step's locals in [`LocalsTable`].
    pub locals: u32,
    pub record_len: u32,
    pub output_len: u32,
}

const ABOVE: u32 = 1 << 31;
/// The snapshot was given the record (`before!("…", messages; …)`): the
/// frame holds it under the record's name from here on.
const RECORD: u32 = 1 << 30;

impl Step {
    /// The `runtime.rs` line of the `before!`/`head!` that took this
    /// snapshot (0 for a `call` event).
    pub fn source_line(&self) -> u32 {
        self.source & !(ABOVE | RECORD)
    }

    /// Whether the snapshot was given the record (its frame has it).
    pub fn has_record(&self) -> bool {
        self.source & RECORD != 0
    }

    pub fn attach(&self) -> Attach {
        if self.source & ABOVE != 0 {
            Attach::Above
        } else {
            Attach::Next
        }
    }
}

const EVENTS: [Event; 5] = [Event::Call, Event::Line, Event::Return, Event::Error, Event::Exception];

impl Step {
    /// Write the step in its byte form: its function and label as indices
    /// into tables the caller keeps, its counts as changes from `before`
    /// (the step written before it).
    pub fn write(&self, w: &mut Writer, (function, label): (u64, u64), before: &Step) {
        let event = EVENTS.iter().position(|e| *e == self.event).unwrap_or(0);
        w.u64(function);
        w.u64(event as u64);
        w.u64(self.depth.into());
        w.u64(self.source.into());
        w.u64(label);
        w.i64(i64::from(self.locals) - i64::from(before.locals));
        w.i64(i64::from(self.record_len) - i64::from(before.record_len));
        w.i64(i64::from(self.output_len) - i64::from(before.output_len));
    }

    /// A step [`Step::write`] wrote, its tables given. Its counts are
    /// whatever the bytes say: the reader of the whole checks them.
    pub fn read(
        r: &mut Reader,
        functions: &[Function],
        labels: &[&'static str],
        before: &Step,
    ) -> Result<Step, Malformed> {
        let function = functions[r.below(functions.len() as u64)? as usize];
        let event = EVENTS[r.below(EVENTS.len() as u64)? as usize];
        let depth = r.below(u64::from(u16::MAX) + 1)? as u16;
        let source = r.below(u64::from(u32::MAX) + 1)? as u32;
        let label = labels[r.below(labels.len() as u64)? as usize];
        let mut next = |was: u32| -> Result<u32, Malformed> {
            let v = i64::from(was) + r.i64()?;
            u32::try_from(v).map_err(|_| r.malformed())
        };
        let locals = next(before.locals)?;
        let record_len = next(before.record_len)?;
        let output_len = next(before.output_len)?;
        Ok(Step { function, event, depth, source, label, locals, record_len, output_len })
    }

    /// The step every byte form starts counting from.
    pub fn origin() -> Step {
        Step {
            function: Function::named(""),
            event: Event::Call,
            depth: 0,
            source: 0,
            label: "",
            locals: 0,
            record_len: 0,
            output_len: 0,
        }
    }
}

fn pack(source_line: u32, attach: Attach) -> u32 {
    (source_line & !(ABOVE | RECORD)) | if attach == Attach::Above { ABOVE } else { 0 }
}

struct Frame {
    function: Function,
    /// Packed source line of the frame's latest snapshot (0: the signature).
    source: u32,
}

/// Everything a recording collected.
#[derive(Default)]
pub struct Recording {
    pub steps: Vec<Step>,
    pub locals: LocalsTable,
    pub output: Vec<String>,
    /// Which budget cut the run short, if one did.
    pub cut: Option<Cut>,
}

struct Recorder {
    rec: Recording,
    frames: Vec<Frame>,
    record_len: u32,
    limits: Limits,
    started: f64,
    /// Bytes the trace holds so far (an estimate: steps, locals, output,
    /// and what the callouts brought into the record).
    bytes: usize,
    /// A callout just returned: the clock is read at the next step.
    clock_due: bool,
    /// The function of the last frame entered.
    last_function: Function,
}

thread_local! {
    static RECORDER: RefCell<Option<Recorder>> = const { RefCell::new(None) };
    static RECORDINGS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// How many recordings this thread has started: the work a test counts
/// (a file recorded once for its checks and its display, not twice).
pub fn recordings() -> u64 {
    RECORDINGS.with(std::cell::Cell::get)
}

/// Run `body` with a fresh recorder and return what it recorded. Nested
/// recordings are not supported; the outer one is restored afterwards.
pub fn recording<R>(limits: impl Into<Limits>, body: impl FnOnce() -> R) -> (R, Recording) {
    let mut limits: Limits = limits.into();
    limits.steps = limits.steps.max(1);
    let started = (limits.clock)();
    RECORDINGS.with(|n| n.set(n.get() + 1));
    let fresh = Recorder {
        rec: Recording::default(),
        frames: Vec::new(),
        record_len: 0,
        limits,
        started,
        bytes: 0,
        clock_due: false,
        last_function: Function::named(""),
    };
    let outer = RECORDER.with(|r| r.borrow_mut().replace(fresh));
    let value = body();
    let done = RECORDER.with(|r| std::mem::replace(&mut *r.borrow_mut(), outer));
    let mut rec = done.map(|d| d.rec).unwrap_or_default();
    rec.steps.shrink_to_fit();
    rec.locals.finish();
    (value, rec)
}

/// A model or process call just returned with `bytes` of data for the
/// record: they count against the memory budget, and the clock is read at
/// the next step (a slow callback is stopped after the call it is in,
/// not 256 steps later).
pub fn called_out(bytes: usize) {
    with_recorder(|r| {
        r.bytes = r.bytes.saturating_add(bytes);
        r.clock_due = true;
    });
}

/// True once a budget ran out: adapters stop calling out.
pub fn over_limit() -> bool {
    RECORDER.with(|r| r.borrow().as_ref().is_some_and(|r| r.rec.cut.is_some()))
}

/// Record the start of a frame, run `body`, record its return (as `show`
/// renders the returned value; strings in it are shortened like any local).
/// A frame that ends by raising shows `{"raised": …}`: its last step is
/// labelled `raise` instead of `return`.
pub fn call<R>(
    function: Function,
    args: &[(&'static str, &dyn Local)],
    show: impl Fn(&R) -> Value,
    body: impl FnOnce() -> R,
) -> R {
    let active = with_recorder(|r| {
        r.frames.push(Frame { function, source: 0 });
        r.last_function = function;
        r.push(Event::Call, "call", args);
    })
    .is_some();
    let value = body();
    if active {
        let returned = show(&value);
        with_recorder(|r| {
            let label = if returned.get("raised").is_some() { "raise" } else { "return" };
            r.push(Event::Return, label, &[("return", &returned)]);
            r.frames.pop();
        });
    }
    value
}

/// The record now holds `len` messages (for a call that is given a record,
/// before its first line has run).
pub fn record_len(len: usize) {
    with_recorder(|r| r.record_len = len as u32);
}

/// A step of a run recorded elsewhere (a recorded program: CPython ran
/// it), taken as it was: its frame's function, depth and line (`line`:
/// the number the listing shows), the record's length and the locals
/// (written as the recorder writes any local). The recorder's budgets
/// apply as to any step.
pub fn replayed(
    (function, event, depth): (Function, Event, u16),
    line: u32,
    label: &'static str,
    record_len: u32,
    locals: &[(&'static str, &dyn Local)],
) {
    with_recorder(|r| {
        let depth = usize::from(depth);
        r.frames.truncate(depth + 1);
        while r.frames.len() <= depth {
            r.frames.push(Frame { function, source: 0 });
        }
        if let Some(top) = r.frames.last_mut() {
            *top = Frame { function, source: pack(line, Attach::Next) };
        }
        r.last_function = function;
        r.record_len = record_len;
        r.push(event, label, locals);
    });
}

/// Record one emitted output line.
pub fn emit(line: String) {
    with_recorder(|r| {
        if r.rec.cut.is_none() {
            r.bytes += std::mem::size_of::<String>() + line.len();
            r.rec.output.push(line);
        }
    });
}

/// Called by the macros. Not meant to be called by hand.
#[doc(hidden)]
pub fn snap(
    source_line: u32,
    attach: Attach,
    label: &'static str,
    record_len: Option<usize>,
    locals: &[(&'static str, &dyn Local)],
) {
    let live =
        RECORDER.with(|r| r.borrow().as_ref().is_some_and(|r| r.rec.cut.is_none() && !r.frames.is_empty()));
    if !live {
        return;
    }
    with_recorder(|r| {
        if let Some(frame) = r.frames.last_mut() {
            frame.source = pack(source_line, attach) | if record_len.is_some() { RECORD } else { 0 };
        }
        if let Some(len) = record_len {
            r.record_len = len as u32;
        }
        r.push(Event::Line, label, locals);
    });
}

fn with_recorder<T>(f: impl FnOnce(&mut Recorder) -> T) -> Option<T> {
    RECORDER.with(|r| r.borrow_mut().as_mut().map(f))
}

impl Recorder {
    /// The budget that has run out, if any. The clock is read every 256
    /// steps, and at the first step after a callout.
    fn over(&mut self) -> Option<(Cut, Value)> {
        let l = &self.limits;
        if self.rec.steps.len() + 1 >= l.steps {
            return Some((Cut::Steps, Value::from(l.steps as u64)));
        }
        if let Some(bytes) = l.bytes.filter(|b| self.bytes >= *b) {
            return Some((Cut::Memory, Value::from(bytes as u64)));
        }
        let due = std::mem::take(&mut self.clock_due) || self.rec.steps.len().is_multiple_of(256);
        let millis = l.millis.filter(|_| due);
        millis.filter(|m| (l.clock)() - self.started >= *m).map(|m| (Cut::Time, Value::from(m)))
    }

    fn push(&mut self, event: Event, label: &'static str, locals: &[(&'static str, &dyn Local)]) {
        if self.rec.cut.is_some() {
            return;
        }
        let frame = self.frames.last();
        // (a step outside every frame — the cut at the very end — stands
        // in the function that ran last)
        let function = frame.map_or(self.last_function, |f| f.function);
        let source = frame.map_or(0, |f| f.source);
        let depth = self.frames.len().saturating_sub(1) as u16;
        let over = self.over();
        let cut_locals;
        let (label, event, locals) = match &over {
            Some((cut, budget)) => {
                self.rec.cut = Some(*cut);
                cut_locals = [(cut.kind(), budget as &dyn Local)];
                (cut.label(), Event::Error, &cut_locals[..])
            }
            None => (label, event, locals),
        };
        let held = self.rec.locals.held();
        let locals = self.rec.locals.add(function, locals);
        self.bytes += self.rec.locals.held() - held + std::mem::size_of::<Step>();
        self.rec.steps.push(Step {
            function,
            event,
            depth,
            source,
            label,
            locals,
            record_len: self.record_len,
            output_len: self.rec.output.len() as u32,
        });
    }
}

/// Snapshot before the next line of the listing runs.
///
/// `before!("label", record; local, local)` — `record` is the message list
/// (only its length is kept); `before!("label"; local)` when there is none.
macro_rules! before {
    ($label:literal, $record:expr; $($local:ident),* $(,)?) => {
        $crate::trace::snap(line!(), $crate::trace::Attach::Next, $label, Some($record.len()),
            &[$((stringify!($local), &$local as &dyn $crate::trace::Local)),*])
    };
    ($label:literal; $($local:ident),* $(,)?) => {
        $crate::trace::snap(line!(), $crate::trace::Attach::Next, $label, None,
            &[$((stringify!($local), &$local as &dyn $crate::trace::Local)),*])
    };
}

/// Snapshot for the line *above*: used first thing in a loop body, so the
/// loop's own line is shown on every pass.
macro_rules! head {
    ($label:literal, $record:expr; $($local:ident),* $(,)?) => {
        $crate::trace::snap(line!(), $crate::trace::Attach::Above, $label, Some($record.len()),
            &[$((stringify!($local), &$local as &dyn $crate::trace::Local)),*])
    };
}

pub(crate) use before;
pub(crate) use head;
