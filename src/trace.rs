//! Snapshots: the recorder that `runtime.rs` reports to.
//!
//! `runtime.rs` calls [`before!`] just before each line runs (and [`head!`]
//! at the top of a loop body, for the loop's own line). The macro passes
//! `line!()` — a number from the compiler, never a hand-kept table — and the
//! recorder turns it into the line number shown in that function's listing
//! (see [`crate::lesson::listing`]).
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

use crate::lesson::{self, Attach};
use serde::{Serialize, Serializer};
use serde_json::Value;
use std::cell::RefCell;
use std::rc::Rc;

/// The default hard cap on steps in one trace.
pub const STEP_CAP: usize = 2_000_000;
/// Strings in locals are shown up to this many characters.
pub const PREVIEW_CHARS: usize = 400;

/// The three functions of the lesson.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Function {
    AskClaude,
    RunMain,
    RunLoop,
}

impl Function {
    pub const ALL: [Function; 3] = [Function::AskClaude, Function::RunMain, Function::RunLoop];

    pub fn name(self) -> &'static str {
        match self {
            Function::AskClaude => "ask_claude",
            Function::RunMain => "run_main",
            Function::RunLoop => "run_loop",
        }
    }

    pub fn from_name(name: &str) -> Option<Function> {
        Function::ALL.into_iter().find(|f| f.name() == name)
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
}

/// One snapshot.
#[derive(Clone, Debug, Serialize)]
pub struct Step {
    pub function: Function,
    pub line: u32,
    pub label: &'static str,
    pub depth: u32,
    pub event: Event,
    #[serde(serialize_with = "raw_json")]
    pub locals: Rc<str>,
    pub record_len: u32,
    pub output_len: u32,
    pub stage: &'static str,
}

fn raw_json<S: Serializer>(locals: &Rc<str>, s: S) -> Result<S::Ok, S::Error> {
    let value: Value = serde_json::from_str(locals).unwrap_or(Value::Null);
    value.serialize(s)
}

impl Step {
    /// The locals as JSON.
    pub fn locals_json(&self) -> Value {
        serde_json::from_str(&self.locals).unwrap_or(Value::Null)
    }
}

struct Frame {
    function: Function,
    line: u32,
}

/// Everything a recording collected.
#[derive(Default)]
pub struct Recording {
    pub steps: Vec<Step>,
    pub output: Vec<String>,
    /// True when the step cap cut the run short.
    pub capped: bool,
}

struct Recorder {
    rec: Recording,
    frames: Vec<Frame>,
    record_len: u32,
    cap: usize,
    last_locals: Rc<str>,
}

thread_local! {
    static RECORDER: RefCell<Option<Recorder>> = const { RefCell::new(None) };
}

/// Run `body` with a fresh recorder and return what it recorded. Nested
/// recordings are not supported; the outer one is restored afterwards.
pub fn recording<R>(cap: usize, body: impl FnOnce() -> R) -> (R, Recording) {
    let fresh = Recorder {
        rec: Recording::default(),
        frames: Vec::new(),
        record_len: 0,
        cap: cap.max(1),
        last_locals: Rc::from("{}"),
    };
    let outer = RECORDER.with(|r| r.borrow_mut().replace(fresh));
    let value = body();
    let done = RECORDER.with(|r| std::mem::replace(&mut *r.borrow_mut(), outer));
    (value, done.map(|d| d.rec).unwrap_or_default())
}

/// True once the step cap was reached: adapters stop calling out.
pub fn over_limit() -> bool {
    RECORDER.with(|r| r.borrow().as_ref().is_some_and(|r| r.rec.capped))
}

/// Record the start of a frame, run `body`, record its return (as `show`
/// renders the returned value).
pub fn call<R>(
    function: Function,
    args: &[(&str, Value)],
    show: impl Fn(&R) -> Value,
    body: impl FnOnce() -> R,
) -> R {
    let active = with_recorder(|r| {
        let line = lesson::listing(function).signature_line();
        r.frames.push(Frame { function, line });
        let locals = encode(args.iter().map(|(k, v)| (*k, v.clone())));
        r.push(Event::Call, "call", locals);
    })
    .is_some();
    let value = body();
    if active {
        let returned = show(&value);
        with_recorder(|r| {
            r.push(Event::Return, "return", encode([("return", returned)]));
            r.frames.pop();
        });
    }
    value
}

/// Record one emitted output line.
pub fn emit(line: String) {
    with_recorder(|r| r.rec.output.push(line));
}

/// Called by the macros. Not meant to be called by hand.
#[doc(hidden)]
pub fn snap(
    source_line: u32,
    attach: Attach,
    label: &'static str,
    record_len: Option<usize>,
    locals: &dyn Fn() -> Vec<(&'static str, Value)>,
) {
    let live = RECORDER.with(|r| r.borrow().as_ref().is_some_and(|r| !r.rec.capped && !r.frames.is_empty()));
    if !live {
        return;
    }
    let encoded = encode(locals());
    with_recorder(|r| {
        let function = r.frames.last().map(|f| f.function).unwrap_or(Function::RunLoop);
        let line = lesson::listing(function).display_line(source_line, attach);
        if let Some(frame) = r.frames.last_mut() {
            frame.line = line;
        }
        if let Some(len) = record_len {
            r.record_len = len as u32;
        }
        r.push(Event::Line, label, encoded);
    });
}

fn with_recorder<T>(f: impl FnOnce(&mut Recorder) -> T) -> Option<T> {
    RECORDER.with(|r| r.borrow_mut().as_mut().map(f))
}

fn encode<'a>(pairs: impl IntoIterator<Item = (&'a str, Value)>) -> String {
    let map: serde_json::Map<String, Value> = pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
    Value::Object(map).to_string()
}

impl Recorder {
    fn push(&mut self, event: Event, label: &'static str, locals: String) {
        if self.rec.capped {
            return;
        }
        let frame = self.frames.last();
        let function = frame.map(|f| f.function).unwrap_or(Function::RunLoop);
        let line = frame.map(|f| f.line).unwrap_or(1);
        let depth = self.frames.len().saturating_sub(1) as u32;
        let (label, event, locals) = if self.rec.steps.len() + 1 >= self.cap {
            self.rec.capped = true;
            let note = format!("{{\"step_cap\":{}}}", self.cap);
            ("trace.step_cap", Event::Error, note)
        } else {
            (label, event, locals)
        };
        let locals = if *self.last_locals == *locals { self.last_locals.clone() } else { Rc::from(locals) };
        self.last_locals = locals.clone();
        self.rec.steps.push(Step {
            function,
            line,
            label,
            depth,
            event,
            locals,
            record_len: self.record_len,
            output_len: self.rec.output.len() as u32,
            stage: lesson::stage_for(function, label),
        });
    }
}

/// Strings in locals are shown up to [`PREVIEW_CHARS`]; lists up to this
/// many items; nesting up to [`PREVIEW_DEPTH`] levels.
pub const PREVIEW_ITEMS: usize = 50;
pub const PREVIEW_DEPTH: usize = 24;

/// A value that can be shown as a local: a bounded JSON copy, made by
/// reference (never cloning a whole record first).
pub trait Local {
    fn local(&self) -> Value;
}

impl Local for Value {
    fn local(&self) -> Value {
        shorten(self, 0)
    }
}
impl Local for str {
    fn local(&self) -> Value {
        short_string(self)
    }
}
impl Local for String {
    fn local(&self) -> Value {
        short_string(self)
    }
}
impl<T: Local> Local for [T] {
    fn local(&self) -> Value {
        let mut items: Vec<Value> = self.iter().take(PREVIEW_ITEMS).map(Local::local).collect();
        if self.len() > PREVIEW_ITEMS {
            items.push(Value::String(format!("… (+{} more)", self.len() - PREVIEW_ITEMS)));
        }
        Value::Array(items)
    }
}
impl<T: Local> Local for Vec<T> {
    fn local(&self) -> Value {
        self.as_slice().local()
    }
}
impl<T: Local + ?Sized> Local for &T {
    fn local(&self) -> Value {
        (**self).local()
    }
}
macro_rules! plain_local {
    ($($t:ty),*) => {$(
        impl Local for $t {
            fn local(&self) -> Value {
                serde_json::json!(self)
            }
        }
    )*};
}
plain_local!(bool, i64, u32, usize, f64);

impl Local for crate::protocol::ModelError {
    fn local(&self) -> Value {
        serde_json::json!({"name": short_string(&self.name), "message": short_string(&self.message)})
    }
}

impl Local for crate::protocol::Request<'_> {
    fn local(&self) -> Value {
        // The messages are the record the page already draws: count them only.
        serde_json::json!({
            "model": self.model,
            "system": short_string(self.system),
            "messages": format!("(the record, n = {})", self.messages.len()),
            "tools": shorten(&self.tools, 0),
            "max_tokens": self.max_tokens,
        })
    }
}

fn short_string(s: &str) -> Value {
    if s.len() <= PREVIEW_CHARS {
        return Value::String(s.to_string());
    }
    let total = s.chars().count();
    if total <= PREVIEW_CHARS {
        return Value::String(s.to_string());
    }
    let head: String = s.chars().take(PREVIEW_CHARS).collect();
    Value::String(format!("{head}… (+{} chars)", total - PREVIEW_CHARS))
}

fn shorten(v: &Value, depth: usize) -> Value {
    if depth >= PREVIEW_DEPTH {
        return match v {
            Value::Array(_) | Value::Object(_) => Value::String("…".into()),
            other => other.clone(),
        };
    }
    match v {
        Value::String(s) => short_string(s),
        Value::Array(items) => {
            let mut out: Vec<Value> =
                items.iter().take(PREVIEW_ITEMS).map(|x| shorten(x, depth + 1)).collect();
            if items.len() > PREVIEW_ITEMS {
                out.push(Value::String(format!("… (+{} more)", items.len() - PREVIEW_ITEMS)));
            }
            Value::Array(out)
        }
        Value::Object(map) => {
            Value::Object(map.iter().map(|(k, x)| (k.clone(), shorten(x, depth + 1))).collect())
        }
        other => other.clone(),
    }
}

/// A bounded JSON copy of a local, for display.
pub fn preview<T: Local + ?Sized>(value: &T) -> Value {
    value.local()
}

/// Snapshot before the next line of the listing runs.
///
/// `before!("label", record; local, local)` — `record` is the message list
/// (only its length is kept); `before!("label"; local)` when there is none.
macro_rules! before {
    ($label:literal, $record:expr; $($local:ident),* $(,)?) => {
        $crate::trace::snap(line!(), $crate::lesson::Attach::Next, $label, Some($record.len()),
            &|| vec![$((stringify!($local), $crate::trace::preview(&$local))),*])
    };
    ($label:literal; $($local:ident),* $(,)?) => {
        $crate::trace::snap(line!(), $crate::lesson::Attach::Next, $label, None,
            &|| vec![$((stringify!($local), $crate::trace::preview(&$local))),*])
    };
}

/// Snapshot for the line *above*: used first thing in a loop body, so the
/// loop's own line is shown on every pass.
macro_rules! head {
    ($label:literal, $record:expr; $($local:ident),* $(,)?) => {
        $crate::trace::snap(line!(), $crate::lesson::Attach::Above, $label, Some($record.len()),
            &|| vec![$((stringify!($local), $crate::trace::preview(&$local))),*])
    };
}

pub(crate) use before;
pub(crate) use head;
