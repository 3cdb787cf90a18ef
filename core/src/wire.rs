//! A recorded run as bytes, from the instance of the module that recorded
//! it to the one that shows it: the page records an author's long file in
//! a worker (so that no task of the page's is long) and shows what the
//! worker recorded. The bytes hold the run whole — steps, locals, record,
//! output — and what its checks counted, and read back to the same run:
//! `tests/wire.rs` compares every shipped scenario's, in each language,
//! written again from what was read.
//!
//! The layout (numbers LEB128, texts length-first; `trace::Writer`):
//! `MAGIC`, the format's version, the build's fingerprint, the run's key, the scenario, the
//! language, the function table, the label table, the steps, the locals
//! table, the record and the rest of the trace, the counts of the checks.

use crate::i18n::Lang;
use crate::preview::Fnv;
use crate::programs;
use crate::protocol::TraceError;
use crate::run::{CheckRun, Trace};
use crate::trace::{Function, LocalsTable, Malformed, Reader, Step, Writer};
use serde_json::Value;

/// The first bytes of every run written here.
const MAGIC: &str = "alp-run";
/// The layout's version: a reader refuses another.
const VERSION: u64 = 1;

/// The run in its byte form, under `key` (what names the recording:
/// `session::run_key`).
pub fn write(run: &CheckRun, key: u64) -> Vec<u8> {
    let trace = &run.trace;
    let mut w = Writer::default();
    w.str(MAGIC);
    w.u64(VERSION);
    w.u64(build());
    w.u64(key);
    w.str(&trace.scenario);
    w.str(trace.lang.code());
    let mut functions: Vec<Function> = vec![trace.function];
    let mut labels: Vec<&str> = Vec::new();
    let mut indexed = Vec::with_capacity(trace.steps.len());
    for step in &trace.steps {
        indexed.push((index_of(&mut functions, step.function), index_of(&mut labels, step.label)));
    }
    for f in trace.locals.functions() {
        index_of(&mut functions, f);
    }
    w.u64(functions.len() as u64);
    for f in &functions {
        w.str(f.name());
    }
    w.u64(labels.len() as u64);
    for label in &labels {
        w.str(label);
    }
    w.u64(trace.steps.len() as u64);
    let mut before = Step::origin();
    for (step, index) in trace.steps.iter().zip(indexed) {
        step.write(&mut w, index, &before);
        before = *step;
    }
    trace.locals.write(&mut w, |f| index_of(&mut functions, f));
    write_values(&mut w, &trace.record);
    write_values(&mut w, std::slice::from_ref(&trace.result));
    match &trace.error {
        Some(e) => {
            w.u64(1);
            w.str(&e.kind);
            w.str(&e.message);
        }
        None => w.u64(0),
    }
    for lines in [&trace.output, &trace.printed] {
        w.u64(lines.len() as u64);
        lines.iter().for_each(|l| w.str(l));
    }
    w.i64(trace.max_calls);
    w.u64(trace.returns_record.into());
    let (reads, runs) = run.counts();
    w.u64(reads as u64);
    w.u64(runs as u64);
    w.bytes
}

/// A run [`write`] wrote, every index and count in it checked against
/// the rest: bytes of another version, of a function this build does not
/// have, or of no run at all are refused.
pub fn read(bytes: &[u8]) -> Result<CheckRun, Malformed> {
    Reading::default().finish(bytes)
}

/// The steps one slice of [`Reading`] reads (a few milliseconds' work:
/// a run of 850,000 steps is read in a dozen slices).
pub const SLICE_STEPS: usize = 100_000;

/// The record's messages one slice of [`Reading`] reads: as many as fit in
/// this much JSON text, or one that does not (a reply of 50,000 tool calls
/// is about 3 MB: a slice of its own, the tool results another).
pub const SLICE_RECORD_BYTES: usize = 256 * 1024;

/// A run being read back a slice at a time, so that the page can read a
/// long one over several tasks ([`Reading::advance`]): the head, then
/// [`SLICE_STEPS`] steps at a time, then the locals table, then the
/// record's messages ([`SLICE_RECORD_BYTES`] at a time), then the rest.
/// The same checks as [`read`], which is this, all at once.
pub struct Reading {
    /// The steps a slice reads.
    slice: usize,
    /// Where the next slice starts in the bytes.
    at: usize,
    head: Option<Head>,
    steps: Vec<Step>,
    locals: Option<LocalsTable>,
    /// The record's messages read, and how many it has.
    record: Vec<Value>,
    messages: usize,
    done: Option<CheckRun>,
}

/// What the steps name: the run's scenario, language, functions and labels,
/// and how many steps follow.
struct Head {
    scenario: String,
    lang: Lang,
    functions: Vec<Function>,
    labels: Vec<&'static str>,
    count: usize,
}

impl Default for Reading {
    fn default() -> Reading {
        Reading::in_slices_of(SLICE_STEPS)
    }
}

impl Reading {
    /// A reading whose slices read `steps` steps each (at least one).
    pub fn in_slices_of(steps: usize) -> Reading {
        let (record, messages) = (Vec::new(), 0);
        Reading {
            slice: steps.max(1),
            at: 0,
            head: None,
            steps: Vec::new(),
            locals: None,
            record,
            messages,
            done: None,
        }
    }

    /// One slice more of `bytes` (the same bytes every time): true once
    /// the whole run is read.
    pub fn advance(&mut self, bytes: &[u8]) -> Result<bool, Malformed> {
        if self.done.is_some() {
            return Ok(true);
        }
        let r = &mut Reader::at(bytes, self.at);
        match (&self.head, &self.locals) {
            (None, _) => {
                let head = Head::read(r)?;
                self.steps = Vec::with_capacity(head.count);
                self.head = Some(head);
            }
            (Some(head), None) if self.steps.len() < head.count => {
                let mut before = self.steps.last().copied().unwrap_or_else(Step::origin);
                for _ in 0..self.slice.min(head.count - self.steps.len()) {
                    before = Step::read(r, &head.functions, &head.labels, &before)?;
                    self.steps.push(before);
                }
            }
            (Some(head), None) => {
                self.locals = Some(LocalsTable::read(r, &head.functions)?);
                self.messages = r.count()?;
                self.record = Vec::with_capacity(self.messages);
            }
            (Some(_), Some(_)) if self.record.len() < self.messages => {
                let mut text = 0;
                while self.record.len() < self.messages && text < SLICE_RECORD_BYTES {
                    let json = r.str()?;
                    text += json.len();
                    self.record.push(serde_json::from_str(json).map_err(|_| r.malformed())?);
                }
            }
            (Some(_), Some(_)) => self.done = Some(self.rest(r)?),
        }
        self.at = r.offset();
        Ok(self.done.is_some())
    }

    /// Whether the whole run is read.
    pub fn is_read(&self) -> bool {
        self.done.is_some()
    }

    /// What is left of the run read at once, and the run.
    pub fn finish(mut self, bytes: &[u8]) -> Result<CheckRun, Malformed> {
        while !self.advance(bytes)? {}
        self.done.ok_or(Malformed(self.at))
    }

    /// The record and what follows it, and the run they make with the steps.
    fn rest(&mut self, r: &mut Reader) -> Result<CheckRun, Malformed> {
        let (Some(head), Some(locals)) = (self.head.take(), self.locals.take()) else {
            return Err(r.malformed());
        };
        let record = std::mem::take(&mut self.record);
        let result = read_values(r)?.pop().ok_or(r.malformed())?;
        let error = match r.below(2)? {
            1 => Some(TraceError { kind: r.str()?.to_string(), message: r.str()?.to_string() }),
            _ => None,
        };
        let output = read_lines(r)?;
        let printed = read_lines(r)?;
        let max_calls = r.i64()?;
        let returns_record = r.below(2)? == 1;
        let (reads, runs) = (r.u64()? as usize, r.u64()? as usize);
        r.end()?;
        let fits = |s: &Step| {
            (s.locals as usize) < locals.sets().max(1)
                && s.record_len as usize <= record.len()
                && s.output_len as usize <= output.len()
        };
        if !self.steps.iter().all(fits) {
            return Err(r.malformed());
        }
        let trace = Trace {
            scenario: head.scenario,
            function: head.functions[0],
            result,
            error,
            output,
            printed,
            lang: head.lang,
            record,
            steps: std::mem::take(&mut self.steps),
            locals,
            max_calls,
            returns_record,
            reason_walk: Default::default(),
        };
        Ok(CheckRun::from_parts(trace, reads, runs))
    }
}

impl Head {
    fn read(r: &mut Reader) -> Result<Head, Malformed> {
        head(r)?;
        let scenario = r.str()?.to_string();
        let lang = Lang::parse(r.str()?).ok_or(r.malformed())?;
        let mut functions = Vec::new();
        for _ in 0..r.count()? {
            functions.push(programs::function(r.str()?).ok_or(r.malformed())?);
        }
        if functions.is_empty() {
            return Err(r.malformed());
        }
        let mut labels = Vec::new();
        for _ in 0..r.count()? {
            labels.push(crate::trace::intern(r.str()?).ok_or(r.malformed())?);
        }
        let count = r.count()?;
        Ok(Head { scenario, lang, functions, labels, count })
    }
}

/// The key a run was written under, read from its first bytes alone.
pub fn key(bytes: &[u8]) -> Result<u64, Malformed> {
    head(&mut Reader::new(bytes))
}

fn head(r: &mut Reader) -> Result<u64, Malformed> {
    if r.str()? != MAGIC || r.u64()? != VERSION || r.u64()? != build() {
        return Err(r.malformed());
    }
    r.u64()
}

/// What tells this build from another: the packs it was made with and
/// the programs' compiled-in sources (a worker that loaded another
/// deployment's module records other lines and labels: its run is refused).
fn build() -> u64 {
    let mut h = Fnv::new();
    for (name, hash) in crate::pack::built_with() {
        h.bytes(name.as_bytes());
        h.bytes(&hash.to_le_bytes());
    }
    for program in programs::ALL {
        h.bytes(program.rust.compiled().as_bytes());
    }
    h.0
}

/// The index of `item` in `table`, added at the end when it is new (a
/// run has a few functions and a few dozen labels).
fn index_of<T: PartialEq + Copy>(table: &mut Vec<T>, item: T) -> u64 {
    let at = table.iter().position(|t| *t == item).unwrap_or_else(|| {
        table.push(item);
        table.len() - 1
    });
    at as u64
}

fn write_values(w: &mut Writer, values: &[Value]) {
    w.u64(values.len() as u64);
    for v in values {
        w.str(&v.to_string());
    }
}

fn read_values(r: &mut Reader) -> Result<Vec<Value>, Malformed> {
    let count = r.count()?;
    let mut values = Vec::with_capacity(count);
    for _ in 0..count {
        values.push(serde_json::from_str(r.str()?).map_err(|_| r.malformed())?);
    }
    Ok(values)
}

fn read_lines(r: &mut Reader) -> Result<Vec<String>, Malformed> {
    let count = r.count()?;
    let mut lines = Vec::with_capacity(count);
    for _ in 0..count {
        lines.push(r.str()?.to_string());
    }
    Ok(lines)
}
