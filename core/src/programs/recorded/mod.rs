//! Recorded programs: an author's Python, run by CPython and written as a
//! program pack by `agent-loop-cli record` (docs/program-format.md), read
//! at run time (`program-src`) and made a [`Program`] like the built-in
//! ones, so the session records, lists, steps and captions it through the
//! same seam. Its `run` does not run Python: it hands the recorder the
//! steps CPython took ([`crate::trace::replayed`]), so a run of it is a
//! `Trace` like any other (the recorder's budgets apply).
//!
//! What a built-in program keeps in `static`s, a recorded one is given at
//! run time: its functions' texts, labels and local names are leaked once
//! ([`read::leak`]: a name read again is the one kept), and the pack's
//! [`Recorded`] and its [`Program`] are kept once per distinct pack text
//! for the page's lifetime (a pack is at most 4 MB, the element's limit).

use super::program::{no_more, Defaults, Figure, Inputs, Part, Program, Ran, Script};
use crate::pack::Text;
use crate::preview::{Fnv, Local};
use crate::protocol::{Model, Process, TraceError};
use crate::trace;
use crate::vocab::Function;
use serde_json::Value;
use std::sync::RwLock;

mod read;
mod steps;
pub use read::{
    first_line, Caption, Recorded, Recording, Refused, Run, RunStep, Sent, Span, FORMAT, VERSION,
};

/// Every recorded program read so far: the hash of its pack's text, what
/// was read and its program.
type Registry = Vec<(u64, &'static Recorded, &'static Program)>;
static REGISTRY: RwLock<Registry> = RwLock::new(Vec::new());

/// Read a pack (`text`, fetched from `file`) as a program: the one read
/// before from the same text, or a new one. Refused with the reason and
/// what it names when any of it cannot be used.
pub fn load(file: &str, text: &str) -> Result<(&'static Recorded, &'static Program), Refused> {
    let mut hash = Fnv::new();
    hash.bytes(text.as_bytes());
    let hash = hash.0 ^ text.len() as u64;
    // (one pack read at a time: its number is its place)
    let mut registry = REGISTRY.write().unwrap_or_else(|e| e.into_inner());
    if let Some((_, recorded, program)) = registry.iter().find(|(h, _, _)| *h == hash) {
        return Ok((recorded, program));
    }
    let recorded: &'static Recorded = Box::leak(Box::new(read::read(file, text, registry.len())?));
    let program: &'static Program = Box::leak(Box::new(program_of(recorded)));
    registry.push((hash, recorded, program));
    Ok((recorded, program))
}

fn entry(function: Function) -> Option<(&'static Recorded, &'static Program)> {
    let number = function.pack()?;
    let registry = REGISTRY.read().unwrap_or_else(|e| e.into_inner());
    registry.get(number).map(|(_, r, p)| (*r, *p))
}

/// The recorded program `function` belongs to, if it is one's.
pub fn of(function: Function) -> Option<&'static Recorded> {
    entry(function).map(|(r, _)| r)
}

/// Its [`Program`].
pub fn program(function: Function) -> Option<&'static Program> {
    entry(function).map(|(_, p)| p)
}

impl Recorded {
    /// The text written in `lang` (a code) of `texts`, else the first.
    fn in_language<'a>(texts: &'a [(String, String)], lang: &str) -> Option<&'a str> {
        let found = texts.iter().find(|(code, _)| code == lang).or(texts.first());
        found.map(|(_, text)| text.as_str())
    }

    /// The listing in `lang` (the pack's first language when it has none).
    pub fn listing(&self, lang: &str) -> &str {
        Recorded::in_language(&self.listings, lang).unwrap_or("")
    }

    /// The setup in `lang` (empty: the pack has none).
    pub fn setup(&self, lang: &str) -> &str {
        Recorded::in_language(&self.setups, lang).unwrap_or("")
    }

    /// The scenario with this id.
    pub fn scenario(&self, id: &str) -> Option<&Recording> {
        self.scenarios.iter().find(|s| s.id == id)
    }

    /// The function's lines in the file.
    pub fn span(&self, function: Function) -> Option<&Span> {
        self.spans.iter().find(|s| s.function == function)
    }

    /// The author's caption of `label` in `lang` (else in the first
    /// language it has).
    pub fn caption(&self, label: &str, lang: &str) -> Option<&str> {
        let (_, texts) = self.captions.iter().find(|(l, _)| *l == label)?;
        Recorded::in_language(texts, lang)
    }

    /// The endings of the runs in `lang` of the scenarios `function`
    /// starts, each once, in the pack's order.
    pub fn endings(&self, function: Function, lang: &str) -> Vec<Ending> {
        let mut out: Vec<Ending> = Vec::new();
        for recording in self.scenarios.iter().filter(|s| s.function == function) {
            let ending = recording.run(lang).ending();
            if !out.contains(&ending) {
                out.push(ending);
            }
        }
        out
    }
}

/// How a recorded run ended, as a question about it weighs endings.
#[derive(Clone, Debug, PartialEq)]
pub enum Ending {
    /// It returned an object with this `status` (a loop's word for its end).
    Status(String),
    /// It returned another value: as Python writes it, cut (`None` in a
    /// question's other way to end: any value).
    Returned(Option<String>),
    /// It raised an exception of this kind (`ValueError`; empty: any).
    Raised(String),
    /// It returned its record, of this many messages (said in the
    /// reader's words, as the locals say it).
    Record(usize),
}

impl Ending {
    /// The other way a run may end, for a question whose runs all end alike.
    pub fn other(&self) -> Ending {
        match self {
            Ending::Raised(_) => Ending::Returned(None),
            _ => Ending::Raised(String::new()),
        }
    }
}

impl Run {
    /// How it ended.
    pub fn ending(&self) -> Ending {
        match &self.end {
            Ok(i) => {
                let value: Value = serde_json::from_str(&self.values[*i as usize].0).unwrap_or(Value::Null);
                let record = value.as_str().and_then(crate::preview::read_record_ref);
                match (value.get("status").and_then(Value::as_str), record) {
                    (Some(status), _) => Ending::Status(status.to_string()),
                    (None, Some(n)) => Ending::Record(n),
                    (None, None) => Ending::Returned(Some(returned_text(&value))),
                }
            }
            Err(line) => Ending::Raised(line.split(':').next().unwrap_or(line).trim().to_string()),
        }
    }
}

/// A returned value as a choice says it: as Python writes it, a text cut
/// inside its quotes, anything else after its first characters.
fn returned_text(value: &Value) -> String {
    const SHOWN: usize = 60;
    match value {
        Value::String(text) => crate::vocab::py_repr_cut(text, SHOWN),
        other => {
            let repr = crate::vocab::py_repr(other);
            match repr.char_indices().nth(SHOWN) {
                Some((end, _)) => format!("{}…", &repr[..end]),
                None => repr,
            }
        }
    }
}

impl Recording {
    /// Its run in `lang`, else in the pack's first language.
    pub fn run(&self, lang: &str) -> &Run {
        let found = self.runs.iter().find(|(code, _)| code == lang);
        &found.unwrap_or(&self.runs[0]).1
    }
}

/// What the figure draws of a pack's runs beyond the record: the tool
/// results a function that holds the record has collected and not yet
/// appended, found by what they hold (the request in flight is drawn at
/// the steps of its run's `requests`, `lesson::request_at`).
fn figure_of(recorded: &Recorded) -> &'static Figure {
    let holds = recorded.names.iter().filter(|(_, names)| names.iter().any(|n| n == recorded.record));
    let staged: Vec<Function> = holds.map(|(f, _)| *f).collect();
    let staged = Box::leak(staged.into_boxed_slice());
    Box::leak(Box::new(Figure { staged, staged_by_kind: true, ..Figure::NONE }))
}

/// The program a pack is: its functions, its entries (what its scenarios
/// start from) and the rest nested, its setup, its run, its figure; no
/// figure parts, no editors (a recorded run cannot be changed in the page).
fn program_of(recorded: &'static Recorded) -> Program {
    let functions: Vec<Function> = recorded.spans.iter().map(|s| s.function).collect();
    let entries: Vec<Function> = recorded.scenarios.iter().map(|s| s.function).collect();
    let nested: Vec<Function> = functions.iter().copied().filter(|f| !entries.contains(f)).collect();
    Program {
        name: read::leak(&recorded.file),
        functions: Box::leak(functions.into_boxed_slice()),
        pack: None,
        rust: Text::built_in("", ""),
        python: &[],
        templates: &[],
        namespaces: &[],
        setup,
        prints: |_, _, _| Vec::new(),
        stage,
        part: |_| Part::None,
        run,
        check: no_more,
        milestones: &[],
        scenarios: &[],
        opens: &[],
        beside: &[],
        nested: Box::leak(nested.into_boxed_slice()),
        main: recorded.scenarios[0].function,
        defaults: Some(&Defaults::NONE),
        fields: &[],
        record: "messages",
        expect_only: &[],
        check_expect: no_more,
        asks: &[],
        endings: &[],
        edits: |_| &[],
        figure: figure_of(recorded),
    }
}

/// The setup as the pack holds it, in the run's language.
fn setup(function: Function, inputs: &Inputs, _: &Script) -> String {
    of(function).map_or(String::new(), |r| r.setup(inputs.lang.code()).to_string())
}

/// A step's stage is its label: the mark of its line, or its event.
fn stage(function: Function, label: &str) -> &'static str {
    match label {
        "" => "line",
        "call" => "call",
        "return" => "return",
        "raise" => "raise",
        "exception" => "exception",
        _ => of(function).and_then(|r| r.labels.iter().find(|(l, _)| *l == label)).map_or("line", |(l, _)| l),
    }
}

/// A value as CPython's preview of it: written as it is.
struct Shown<'a>(&'a (Box<str>, u64));

impl Local for Shown<'_> {
    fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(self.0 .0.as_bytes());
    }

    fn fingerprint(&self, h: &mut Fnv) {
        h.bytes(&self.0 .1.to_le_bytes());
    }
}

/// The run of the scenario `inputs` names (`own.scenario`), in its
/// language: CPython's steps handed to the recorder, the output printed
/// as the steps reach it.
fn run(function: Function, inputs: &Inputs, _: &mut dyn Model, _: &mut dyn Process) -> Ran {
    let id = inputs.field("scenario").as_str().unwrap_or("");
    let Some(recording) = of(function).and_then(|r| r.scenario(id)) else {
        let error = TraceError { kind: "no_run".into(), message: format!("no recorded run of {id:?}") };
        let (result, record) = (Value::Null, Vec::new());
        return Ran {
            result,
            error: Some(error),
            record,
            returns_record: false,
            max_calls: 0,
            printed: None,
        };
    };
    let run = recording.run(inputs.lang.code());
    let mut printed = 0;
    for step in &run.steps {
        for line in run.output.iter().take(step.output_len as usize).skip(printed) {
            trace::emit(line.clone());
        }
        printed = printed.max(step.output_len as usize);
        let shown: Vec<Shown> = step.locals.iter().map(|(_, v)| Shown(&run.values[*v as usize])).collect();
        let locals: Vec<(&'static str, &dyn Local)> =
            step.locals.iter().zip(&shown).map(|((name, _), s)| (*name, s as &dyn Local)).collect();
        let frame = (step.function, step.event, step.depth);
        trace::replayed(frame, step.line, step.label, step.record_len, &locals);
    }
    for line in run.output.iter().skip(printed) {
        trace::emit(line.clone());
    }
    let value = |i: u32| serde_json::from_str(&run.values[i as usize].0).unwrap_or(Value::Null);
    let (result, error) = match &run.end {
        Ok(i) => (value(*i), None),
        Err(line) => {
            let kind = line.split(':').next().unwrap_or(line).trim().to_string();
            (Value::Null, Some(TraceError { kind, message: line.clone() }))
        }
    };
    Ran {
        result,
        error,
        record: run.record.clone(),
        returns_record: false,
        max_calls: 0,
        printed: Some(run.printed.clone()),
    }
}
