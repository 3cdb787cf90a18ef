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
use serde::Serialize;
use serde_json::Value;
use std::cell::RefCell;

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

/// One snapshot. Small on purpose (a long loop records hundreds of
/// thousands): locals are an index into the trace's [`LocalsTable`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Step {
    pub function: Function,
    pub event: Event,
    pub depth: u16,
    pub line: u32,
    pub label: &'static str,
    /// Index of this step's locals in [`LocalsTable`].
    pub locals: u32,
    pub record_len: u32,
    pub output_len: u32,
}

impl Step {
    /// The caption stage of this step.
    pub fn stage(&self) -> &'static str {
        lesson::stage_for(self.function, self.label)
    }
}

/// All locals of a trace, shared between steps: each distinct value is
/// stored once as JSON text, each set of `(name, value)` pairs once in a
/// flat list, and a step points at its set.
#[derive(Debug, Default)]
pub struct LocalsTable {
    /// Names per (function, name): a frame's locals do not evict another's.
    names: Vec<(Function, &'static str)>,
    values: Vec<Box<str>>,
    /// `(start, len)` into `pairs`.
    sets: Vec<(u32, u16)>,
    pairs: Vec<(u16, u32)>,
    /// Recording-time caches: the last value per name (to skip serialising
    /// an unchanged local) and value text by hash (to share repeats).
    last: Vec<(u64, u32)>,
    by_hash: std::collections::BTreeMap<u64, u32>,
}

impl LocalsTable {
    fn name_id(&mut self, function: Function, name: &'static str) -> u16 {
        // A call site passes the same literal every time: compare addresses
        // first, contents only when that misses.
        let same_literal = |n: &(Function, &'static str)| n.0 == function && std::ptr::eq(n.1, name);
        let found = self
            .names
            .iter()
            .position(same_literal)
            .or_else(|| self.names.iter().position(|n| *n == (function, name)));
        match found {
            Some(i) => i as u16,
            None => {
                self.names.push((function, name));
                self.last.push((0, u32::MAX));
                (self.names.len() - 1) as u16
            }
        }
    }

    fn value_id(&mut self, name: u16, local: Captured) -> u32 {
        let mut fp = Fnv::new();
        match &local {
            Captured::Ref(l) => l.fingerprint(&mut fp),
            Captured::Owned(v) => fingerprint_value(v, &mut fp),
        }
        let last = self.last[name as usize];
        if last.1 != u32::MAX && last.0 == fp.0 {
            return last.1;
        }
        let text = match local {
            Captured::Ref(l) => {
                let mut buf = Vec::new();
                l.write(&mut buf);
                String::from_utf8(buf).unwrap_or_default()
            }
            Captured::Owned(v) => v.to_string(),
        };
        // FNV-1a: tiny and good enough to find repeats (equality is checked).
        let hash = text
            .bytes()
            .fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
        let id = match self.by_hash.get(&hash) {
            Some(&id) if *self.values[id as usize] == *text => id,
            _ => {
                self.values.push(text.into_boxed_str());
                let id = (self.values.len() - 1) as u32;
                self.by_hash.insert(hash, id);
                id
            }
        };
        self.last[name as usize] = (fp.0, id);
        id
    }

    /// Intern a set of locals; a set equal to the previous one is shared.
    fn add(&mut self, function: Function, pairs: Vec<(&'static str, Captured)>) -> u32 {
        let start = self.pairs.len();
        for (name, value) in pairs {
            let n = self.name_id(function, name);
            let v = self.value_id(n, value);
            self.pairs.push((n, v));
        }
        let len = self.pairs.len() - start;
        if let Some(&(s, l)) = self.sets.last() {
            if l as usize == len && self.pairs[s as usize..s as usize + len] == self.pairs[start..] {
                self.pairs.truncate(start);
                return (self.sets.len() - 1) as u32;
            }
        }
        self.sets.push((start as u32, len as u16));
        (self.sets.len() - 1) as u32
    }

    /// Drop the recording caches and spare capacity.
    fn finish(&mut self) {
        self.last = Vec::new();
        self.by_hash = Default::default();
        self.values.shrink_to_fit();
        self.sets.shrink_to_fit();
        self.pairs.shrink_to_fit();
    }

    /// The locals of set `id` as a JSON object (names in alphabetical order).
    pub fn json(&self, id: u32) -> Value {
        let mut map = serde_json::Map::new();
        let (start, len) = self.sets.get(id as usize).copied().unwrap_or((0, 0));
        for (n, v) in &self.pairs[start as usize..start as usize + len as usize] {
            let value = serde_json::from_str(&self.values[*v as usize]).unwrap_or(Value::Null);
            map.insert(self.names[*n as usize].1.to_string(), value);
        }
        Value::Object(map)
    }
}

/// A local on its way into the table: borrowed from the running code, or
/// an already-built value (call arguments, return values).
pub enum Captured<'a> {
    Ref(&'a dyn Local),
    Owned(Value),
}

struct Frame {
    function: Function,
    line: u32,
}

/// Everything a recording collected.
#[derive(Default)]
pub struct Recording {
    pub steps: Vec<Step>,
    pub locals: LocalsTable,
    pub output: Vec<String>,
    /// True when the step cap cut the run short.
    pub capped: bool,
}

struct Recorder {
    rec: Recording,
    frames: Vec<Frame>,
    record_len: u32,
    cap: usize,
}

thread_local! {
    static RECORDER: RefCell<Option<Recorder>> = const { RefCell::new(None) };
}

/// Run `body` with a fresh recorder and return what it recorded. Nested
/// recordings are not supported; the outer one is restored afterwards.
pub fn recording<R>(cap: usize, body: impl FnOnce() -> R) -> (R, Recording) {
    let fresh = Recorder { rec: Recording::default(), frames: Vec::new(), record_len: 0, cap: cap.max(1) };
    let outer = RECORDER.with(|r| r.borrow_mut().replace(fresh));
    let value = body();
    let done = RECORDER.with(|r| std::mem::replace(&mut *r.borrow_mut(), outer));
    let mut rec = done.map(|d| d.rec).unwrap_or_default();
    rec.steps.shrink_to_fit();
    rec.locals.finish();
    (value, rec)
}

/// True once the step cap was reached: adapters stop calling out.
pub fn over_limit() -> bool {
    RECORDER.with(|r| r.borrow().as_ref().is_some_and(|r| r.rec.capped))
}

/// Record the start of a frame, run `body`, record its return (as `show`
/// renders the returned value).
pub fn call<R>(
    function: Function,
    args: &[(&'static str, Value)],
    show: impl Fn(&R) -> Value,
    body: impl FnOnce() -> R,
) -> R {
    let active = with_recorder(|r| {
        let line = lesson::listing(function).signature_line();
        r.frames.push(Frame { function, line });
        r.push(Event::Call, "call", args.iter().map(|(n, v)| (*n, Captured::Owned(v.clone()))).collect());
    })
    .is_some();
    let value = body();
    if active {
        let returned = show(&value);
        with_recorder(|r| {
            r.push(Event::Return, "return", vec![("return", Captured::Owned(returned))]);
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
    locals: &[(&'static str, &dyn Local)],
) {
    let live = RECORDER.with(|r| r.borrow().as_ref().is_some_and(|r| !r.rec.capped && !r.frames.is_empty()));
    if !live {
        return;
    }
    let pairs: Vec<(&'static str, Captured)> = locals.iter().map(|(n, l)| (*n, Captured::Ref(*l))).collect();
    with_recorder(|r| {
        let function = r.frames.last().map(|f| f.function).unwrap_or(Function::RunLoop);
        let line = lesson::listing(function).display_line(source_line, attach);
        if let Some(frame) = r.frames.last_mut() {
            frame.line = line;
        }
        if let Some(len) = record_len {
            r.record_len = len as u32;
        }
        r.push(Event::Line, label, pairs);
    });
}

fn with_recorder<T>(f: impl FnOnce(&mut Recorder) -> T) -> Option<T> {
    RECORDER.with(|r| r.borrow_mut().as_mut().map(f))
}

impl Recorder {
    fn push(&mut self, event: Event, label: &'static str, locals: Vec<(&'static str, Captured)>) {
        if self.rec.capped {
            return;
        }
        let frame = self.frames.last();
        let function = frame.map(|f| f.function).unwrap_or(Function::RunLoop);
        let line = frame.map(|f| f.line).unwrap_or(1);
        let depth = self.frames.len().saturating_sub(1) as u16;
        let (label, event, locals) = if self.rec.steps.len() + 1 >= self.cap {
            self.rec.capped = true;
            (
                "trace.step_cap",
                Event::Error,
                vec![("step_cap", Captured::Owned(Value::from(self.cap as u64)))],
            )
        } else {
            (label, event, locals)
        };
        let locals = self.rec.locals.add(function, locals);
        self.rec.steps.push(Step {
            function,
            event,
            depth,
            line,
            label,
            locals,
            record_len: self.record_len,
            output_len: self.rec.output.len() as u32,
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
    /// Append the JSON text of [`Local::local`] to `out` (the same bytes;
    /// implementations skip building the intermediate value).
    fn write(&self, out: &mut Vec<u8>) {
        let _ = serde_json::to_writer(out, &self.local());
    }
    /// Feed what identifies this value into a hash, without allocating:
    /// an unchanged local is recognised and not copied again.
    fn fingerprint(&self, h: &mut Fnv);
}

/// FNV-1a, 64-bit: tiny, allocation-free, good enough to notice change.
pub struct Fnv(pub u64);

impl Fnv {
    pub fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
    pub fn bytes(&mut self, bytes: &[u8]) {
        // Eight bytes per round: locals are hashed at every step.
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let word = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
            self.0 = (self.0 ^ word).wrapping_mul(0x100_0000_01b3).rotate_left(29);
        }
        for b in chunks.remainder() {
            self.0 = (self.0 ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3);
        }
    }
    fn tag(&mut self, t: u8) {
        self.bytes(&[t]);
    }
}

impl Default for Fnv {
    fn default() -> Fnv {
        Fnv::new()
    }
}

fn fingerprint_value(v: &Value, h: &mut Fnv) {
    match v {
        Value::Null => h.tag(0),
        Value::Bool(b) => h.bytes(&[1, u8::from(*b)]),
        Value::Number(n) => {
            h.tag(2);
            match (n.as_i64(), n.as_f64()) {
                (Some(i), _) => h.bytes(&i.to_le_bytes()),
                (None, Some(f)) => h.bytes(&f.to_bits().to_le_bytes()),
                _ => h.tag(9),
            }
        }
        Value::String(s) => {
            h.tag(3);
            h.bytes(&(s.len() as u64).to_le_bytes());
            h.bytes(s.as_bytes());
        }
        Value::Array(items) => {
            h.tag(4);
            h.bytes(&(items.len() as u64).to_le_bytes());
            items.iter().for_each(|x| fingerprint_value(x, h));
        }
        Value::Object(map) => {
            h.tag(5);
            h.bytes(&(map.len() as u64).to_le_bytes());
            for (k, x) in map {
                h.bytes(k.as_bytes());
                fingerprint_value(x, h);
            }
        }
    }
}

impl Local for Value {
    fn local(&self) -> Value {
        shorten(self, 0)
    }
    fn write(&self, out: &mut Vec<u8>) {
        write_preview(self, 0, out);
    }
    fn fingerprint(&self, h: &mut Fnv) {
        fingerprint_value(self, h);
    }
}
impl Local for str {
    fn local(&self) -> Value {
        short_string(self)
    }
    fn write(&self, out: &mut Vec<u8>) {
        write_short_str(self, out);
    }
    fn fingerprint(&self, h: &mut Fnv) {
        h.tag(3);
        h.bytes(&(self.len() as u64).to_le_bytes());
        h.bytes(self.as_bytes());
    }
}
impl Local for String {
    fn local(&self) -> Value {
        short_string(self)
    }
    fn write(&self, out: &mut Vec<u8>) {
        write_short_str(self, out);
    }
    fn fingerprint(&self, h: &mut Fnv) {
        self.as_str().fingerprint(h);
    }
}
impl<T: Local> Local for [T] {
    fn write(&self, out: &mut Vec<u8>) {
        out.push(b'[');
        for (i, item) in self.iter().take(PREVIEW_ITEMS).enumerate() {
            if i > 0 {
                out.push(b',');
            }
            item.write(out);
        }
        if self.len() > PREVIEW_ITEMS {
            out.push(b',');
            write_plain_str(&format!("… (+{} more)", self.len() - PREVIEW_ITEMS), out);
        }
        out.push(b']');
    }
    fn fingerprint(&self, h: &mut Fnv) {
        h.tag(4);
        h.bytes(&(self.len() as u64).to_le_bytes());
        self.iter().for_each(|x| x.fingerprint(h));
    }
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
    fn write(&self, out: &mut Vec<u8>) {
        self.as_slice().write(out);
    }
    fn fingerprint(&self, h: &mut Fnv) {
        self.as_slice().fingerprint(h);
    }
}
impl<T: Local + ?Sized> Local for &T {
    fn local(&self) -> Value {
        (**self).local()
    }
    fn write(&self, out: &mut Vec<u8>) {
        (**self).write(out);
    }
    fn fingerprint(&self, h: &mut Fnv) {
        (**self).fingerprint(h);
    }
}
macro_rules! plain_local {
    ($($t:ty),*) => {$(
        impl Local for $t {
            fn local(&self) -> Value {
                serde_json::json!(self)
            }
            fn fingerprint(&self, h: &mut Fnv) {
                fingerprint_value(&serde_json::json!(self), h);
            }
        }
    )*};
}
plain_local!(bool, i64, u32, usize, f64);

impl Local for crate::protocol::ModelError {
    fn local(&self) -> Value {
        serde_json::json!({"name": short_string(&self.name), "message": short_string(&self.message)})
    }
    fn fingerprint(&self, h: &mut Fnv) {
        self.name.fingerprint(h);
        self.message.fingerprint(h);
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
    fn fingerprint(&self, h: &mut Fnv) {
        h.bytes(&(self.messages.len() as u64).to_le_bytes());
        h.bytes(self.system.as_bytes());
        h.bytes(&self.max_tokens.to_le_bytes());
    }
}

/// A string as a local shows it: at most [`PREVIEW_CHARS`] characters,
/// then how many were left out.
fn shortened(s: &str) -> std::borrow::Cow<'_, str> {
    if s.len() <= PREVIEW_CHARS {
        return s.into();
    }
    let total = s.chars().count();
    if total <= PREVIEW_CHARS {
        return s.into();
    }
    let head: String = s.chars().take(PREVIEW_CHARS).collect();
    format!("{head}… (+{} chars)", total - PREVIEW_CHARS).into()
}

fn short_string(s: &str) -> Value {
    Value::String(shortened(s).into_owned())
}

fn write_plain_str(s: &str, out: &mut Vec<u8>) {
    let _ = serde_json::to_writer(out, s);
}

/// [`short_string`] written as JSON text.
fn write_short_str(s: &str, out: &mut Vec<u8>) {
    write_plain_str(&shortened(s), out);
}

/// [`shorten`] written as JSON text, without building the shortened copy.
fn write_preview(v: &Value, depth: usize, out: &mut Vec<u8>) {
    if depth >= PREVIEW_DEPTH {
        return match v {
            Value::Array(_) | Value::Object(_) => write_plain_str("…", out),
            other => {
                let _ = serde_json::to_writer(out, other);
            }
        };
    }
    match v {
        Value::String(s) => write_short_str(s, out),
        Value::Array(items) => {
            out.push(b'[');
            for (i, x) in items.iter().take(PREVIEW_ITEMS).enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_preview(x, depth + 1, out);
            }
            if items.len() > PREVIEW_ITEMS {
                out.push(b',');
                write_plain_str(&format!("… (+{} more)", items.len() - PREVIEW_ITEMS), out);
            }
            out.push(b']');
        }
        Value::Object(map) => {
            out.push(b'{');
            for (i, (k, x)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_plain_str(k, out);
                out.push(b':');
                write_preview(x, depth + 1, out);
            }
            out.push(b'}');
        }
        other => {
            let _ = serde_json::to_writer(out, other);
        }
    }
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
            &[$((stringify!($local), &$local as &dyn $crate::trace::Local)),*])
    };
    ($label:literal; $($local:ident),* $(,)?) => {
        $crate::trace::snap(line!(), $crate::lesson::Attach::Next, $label, None,
            &[$((stringify!($local), &$local as &dyn $crate::trace::Local)),*])
    };
}

/// Snapshot for the line *above*: used first thing in a loop body, so the
/// loop's own line is shown on every pass.
macro_rules! head {
    ($label:literal, $record:expr; $($local:ident),* $(,)?) => {
        $crate::trace::snap(line!(), $crate::lesson::Attach::Above, $label, Some($record.len()),
            &[$((stringify!($local), &$local as &dyn $crate::trace::Local)),*])
    };
}

pub(crate) use before;
pub(crate) use head;
