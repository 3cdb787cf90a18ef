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

pub use crate::vocab::Function;

/// The default hard cap on steps in one trace.
pub const STEP_CAP: usize = 2_000_000;
/// Strings in locals are shown up to this many characters.
pub const PREVIEW_CHARS: usize = 400;

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

impl Step {
    /// The `runtime.rs` line of the `before!`/`head!` that took this
    /// snapshot (0 for a `call` event).
    pub fn source_line(&self) -> u32 {
        self.source & !ABOVE
    }

    pub fn attach(&self) -> Attach {
        if self.source & ABOVE != 0 {
            Attach::Above
        } else {
            Attach::Next
        }
    }
}

fn pack(source_line: u32, attach: Attach) -> u32 {
    (source_line & !ABOVE) | if attach == Attach::Above { ABOVE } else { 0 }
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
        let mut buf = Vec::new();
        match local {
            Captured::Ref(l) => l.write(&mut buf),
            Captured::Owned(v) => v.write(&mut buf),
        }
        let text = String::from_utf8(buf).unwrap_or_default();
        let hash = text_hash(&text);
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
    /// Packed source line of the frame's latest snapshot (0: the signature).
    source: u32,
}

/// Everything a recording collected.
#[derive(Default)]
pub struct Recording {
    pub steps: Vec<Step>,
    pub locals: LocalsTable,
    pub output: Vec<crate::protocol::Said>,
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
/// renders the returned value; strings in it are shortened like any local).
pub fn call<R>(
    function: Function,
    args: &[(&'static str, &dyn Local)],
    show: impl Fn(&R) -> Value,
    body: impl FnOnce() -> R,
) -> R {
    let active = with_recorder(|r| {
        r.frames.push(Frame { function, source: 0 });
        r.push(Event::Call, "call", args.iter().map(|(n, v)| (*n, Captured::Ref(*v))).collect());
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
pub fn emit(line: crate::protocol::Said) {
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
        if let Some(frame) = r.frames.last_mut() {
            frame.source = pack(source_line, attach);
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
        let source = frame.map_or(0, |f| f.source);
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
            source,
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

/// A value that can be shown as a local: a bounded JSON preview, written
/// straight from the running code's data (never cloning a whole record).
///
/// There is one preview rule, [`Local::write`]; [`preview`] reads its
/// output back when a `Value` is wanted.
pub trait Local {
    /// Append the JSON text of this value's preview to `out`.
    fn write(&self, out: &mut Vec<u8>);
    /// Feed what identifies this value into the hash, without allocating:
    /// an unchanged local is recognised and not written again.
    fn fingerprint(&self, h: &mut Fnv);
}

/// FNV-1a style, 64-bit: tiny, allocation-free, good enough to notice a
/// change (the one hash of the recorder; equality is always checked).
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
    fn len(&mut self, n: usize) {
        self.bytes(&(n as u64).to_le_bytes());
    }
}

impl Default for Fnv {
    fn default() -> Fnv {
        Fnv::new()
    }
}

/// The hash of a text (for sharing repeated values in the table).
fn text_hash(text: &str) -> u64 {
    let mut h = Fnv::new();
    h.bytes(text.as_bytes());
    h.0
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
        Value::String(s) => s.as_str().fingerprint(h),
        Value::Array(items) => {
            h.tag(4);
            h.len(items.len());
            items.iter().for_each(|x| fingerprint_value(x, h));
        }
        Value::Object(map) => {
            h.tag(5);
            h.len(map.len());
            for (k, x) in map {
                h.bytes(k.as_bytes());
                fingerprint_value(x, h);
            }
        }
    }
}

impl Local for Value {
    fn write(&self, out: &mut Vec<u8>) {
        write_preview(self, 0, out);
    }
    fn fingerprint(&self, h: &mut Fnv) {
        fingerprint_value(self, h);
    }
}
impl Local for str {
    fn write(&self, out: &mut Vec<u8>) {
        write_str(&shortened(self), out);
    }
    fn fingerprint(&self, h: &mut Fnv) {
        h.tag(3);
        h.len(self.len());
        h.bytes(self.as_bytes());
    }
}
impl Local for String {
    fn write(&self, out: &mut Vec<u8>) {
        self.as_str().write(out);
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
        write_more(self.len(), out);
        out.push(b']');
    }
    fn fingerprint(&self, h: &mut Fnv) {
        h.tag(4);
        h.len(self.len());
        self.iter().for_each(|x| x.fingerprint(h));
    }
}
impl<T: Local> Local for Vec<T> {
    fn write(&self, out: &mut Vec<u8>) {
        self.as_slice().write(out);
    }
    fn fingerprint(&self, h: &mut Fnv) {
        self.as_slice().fingerprint(h);
    }
}
impl<T: Local + ?Sized> Local for &T {
    fn write(&self, out: &mut Vec<u8>) {
        (**self).write(out);
    }
    fn fingerprint(&self, h: &mut Fnv) {
        (**self).fingerprint(h);
    }
}
macro_rules! number_local {
    ($($t:ty),*) => {$(
        impl Local for $t {
            fn write(&self, out: &mut Vec<u8>) {
                let _ = serde_json::to_writer(out, self);
            }
            fn fingerprint(&self, h: &mut Fnv) {
                h.bytes(&self.to_le_bytes());
            }
        }
    )*};
}
number_local!(i64, u32, usize, f64);
impl Local for bool {
    fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(if *self { b"true" } else { b"false" });
    }
    fn fingerprint(&self, h: &mut Fnv) {
        h.bytes(&[1, u8::from(*self)]);
    }
}

impl Local for crate::protocol::ModelError {
    fn write(&self, out: &mut Vec<u8>) {
        serde_json::json!({"name": self.name, "message": self.message}).write(out);
    }
    fn fingerprint(&self, h: &mut Fnv) {
        self.name.fingerprint(h);
        self.message.fingerprint(h);
    }
}

impl Local for crate::protocol::Request<'_> {
    fn write(&self, out: &mut Vec<u8>) {
        // The messages are the record the page already draws: count them only.
        serde_json::json!({
            "model": self.model,
            "system": self.system,
            "messages": format!("(the record, n = {})", self.messages.len()),
            "tools": self.tools,
            "max_tokens": self.max_tokens,
        })
        .write(out);
    }
    fn fingerprint(&self, h: &mut Fnv) {
        h.len(self.messages.len());
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

fn write_str(s: &str, out: &mut Vec<u8>) {
    let _ = serde_json::to_writer(out, s);
}

/// The closing item of a list longer than [`PREVIEW_ITEMS`].
fn write_more(len: usize, out: &mut Vec<u8>) {
    if len > PREVIEW_ITEMS {
        out.push(b',');
        write_str(&format!("… (+{} more)", len - PREVIEW_ITEMS), out);
    }
}

/// The preview rule for JSON values: strings shortened, lists cut at
/// [`PREVIEW_ITEMS`], nesting cut at [`PREVIEW_DEPTH`].
fn write_preview(v: &Value, depth: usize, out: &mut Vec<u8>) {
    match v {
        Value::Array(_) | Value::Object(_) if depth >= PREVIEW_DEPTH => write_str("…", out),
        Value::String(s) => s.as_str().write(out),
        Value::Array(items) => {
            out.push(b'[');
            for (i, x) in items.iter().take(PREVIEW_ITEMS).enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_preview(x, depth + 1, out);
            }
            write_more(items.len(), out);
            out.push(b']');
        }
        Value::Object(map) => {
            out.push(b'{');
            for (i, (k, x)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_str(k, out);
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

/// The preview of a local as a JSON value (the text [`Local::write`]
/// produces, read back).
pub fn preview<T: Local + ?Sized>(value: &T) -> Value {
    let mut out = Vec::new();
    value.write(&mut out);
    serde_json::from_slice(&out).unwrap_or(Value::Null)
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
