//! A program pack (docs/program-format.md) read and checked: an author's
//! Python as `record` wrote it, CPython's steps of each scenario in each
//! language. Nothing of a pack is kept unless all of it passes: the
//! format and its version, every listing's and setup's text against its
//! hash (a text changed after it was recorded is refused), every field a
//! reader needs, and that each step stands where its listing has code (a
//! listing moved against its run, hash and all, is refused too).

use crate::preview::text_hash;
use crate::trace::Event;
use crate::vocab::{sort_small, Function};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::sync::RwLock;

/// The `format` of a program pack.
pub const FORMAT: &str = "agent-loop-playground/program-pack";
/// The `version` this reader reads.
pub const VERSION: u64 = 1;

/// Why a pack cannot be used: a reason (`json`, `format`, `hash`,
/// `field`, `departs`) and what it names (a field, a file, a line).
pub type Refused = (&'static str, String);

/// A recorded program, read: everything the page shows of it.
pub struct Recorded {
    /// Its place among the recorded programs (in its functions' texts).
    pub number: usize,
    /// The file it was read from, as the element named it.
    pub file: String,
    /// The languages of its listings, the first the one a language it
    /// lacks falls back to.
    pub languages: Vec<String>,
    /// Per language: the listing's text (the marks taken off).
    pub listings: Vec<(String, String)>,
    /// Per language: the setup's text (none: no setup).
    pub setups: Vec<(String, String)>,
    /// The traced functions, in file order.
    pub spans: Vec<Span>,
    /// `[first, last]` of every statement over several lines.
    pub statements: Vec<(u32, u32)>,
    /// Each mark's label and the line it names (a statement's first).
    pub labels: Vec<(&'static str, u32)>,
    /// The author's captions: label → language → text.
    pub captions: Vec<Caption>,
    /// The name of the local that holds the message record.
    pub record: &'static str,
    pub scenarios: Vec<Recording>,
    /// Per function: every local name its steps have.
    pub names: Vec<(Function, Vec<String>)>,
    /// Per function: the lines a run stops at, in order.
    pub stops: Vec<(Function, Vec<u32>)>,
}

/// An author's caption: its label, and its text per language.
pub type Caption = (&'static str, Vec<(String, String)>);

/// A traced function and its lines in the file.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Span {
    pub function: Function,
    pub start: u32,
    pub end: u32,
}

/// One scenario: its id, title, entry function and its run per language.
pub struct Recording {
    pub id: String,
    pub title: BTreeMap<String, String>,
    pub function: Function,
    pub runs: Vec<(String, Run)>,
    /// The author's questions, as the manifest and the scenario file wrote
    /// them (`Value::Null`: none; read by the session, which knows their
    /// shape, `scenario::Question`).
    pub questions: Value,
}

/// One run of a scenario in one language, as CPython ran it.
pub struct Run {
    /// The CPython that ran it (`3.11.7`).
    pub python: String,
    pub steps: Vec<RunStep>,
    /// Every preview of the run as JSON text, with its hash.
    pub values: Vec<(Box<str>, u64)>,
    pub record: Vec<Value>,
    pub output: Vec<String>,
    pub printed: Vec<String>,
    /// What the entry returned (a value), or Python's last traceback line.
    pub end: Result<u32, String>,
    /// The model requests the program sent (`file` scenarios), in order.
    pub requests: Vec<Sent>,
}

/// A model request a run sent: the step on screen as it was sent (none:
/// before the first), the tools' names, `max_tokens` and the number of
/// messages it carried (none: a pack recorded before they were kept), and
/// the API's refusal.
#[derive(Clone, Debug, PartialEq)]
pub struct Sent {
    pub step: Option<u32>,
    pub tools: Option<Vec<String>>,
    pub max_tokens: Option<u32>,
    pub messages: Option<u32>,
    pub refused: Option<String>,
}

/// One step: its frame, the line shown (a statement's first), its label
/// (`""` for an unmarked line; `call`, `return`, `raise`, `exception`),
/// its locals as indexes into the run's values.
pub struct RunStep {
    pub function: Function,
    pub event: Event,
    pub depth: u16,
    pub line: u32,
    pub label: &'static str,
    pub locals: Vec<(&'static str, u32)>,
    pub record_len: u32,
    pub output_len: u32,
}

/// A text kept for the page's lifetime, once whatever its pack: names,
/// labels and functions' texts (a pack of at most 4 MB has few).
pub(super) fn leak(text: &str) -> &'static str {
    static KEPT: RwLock<Vec<&'static str>> = RwLock::new(Vec::new());
    let found = KEPT.read().unwrap_or_else(|e| e.into_inner()).iter().find(|k| **k == text).copied();
    found.unwrap_or_else(|| {
        let kept: &'static str = Box::leak(text.to_string().into_boxed_str());
        KEPT.write().unwrap_or_else(|e| e.into_inner()).push(kept);
        kept
    })
}

/// What is wrong inside one item of a section: a reason and the field.
/// (The item's place is said once, by its section: a pack's checks cost
/// the page's module little.)
pub(super) type Miss = (&'static str, &'static str);

/// A field of an item that is missing or not what a pack holds.
pub(super) fn field(name: &'static str) -> Miss {
    ("field", name)
}

/// `v[key]` as an object, a list, a text or a whole number.
pub(super) fn object<'a>(v: &'a Value, key: &'static str) -> Result<&'a Map<String, Value>, Miss> {
    v.get(key).and_then(Value::as_object).ok_or(field(key))
}

pub(super) fn list<'a>(v: &'a Value, key: &'static str) -> Result<&'a [Value], Miss> {
    v.get(key).and_then(Value::as_array).map(Vec::as_slice).ok_or(field(key))
}

pub(super) fn text<'a>(v: &'a Value, key: &'static str) -> Result<&'a str, Miss> {
    v.get(key).and_then(Value::as_str).ok_or(field(key))
}

pub(super) fn whole(v: &Value, key: &'static str) -> Result<u32, Miss> {
    v.get(key).and_then(Value::as_u64).and_then(|n| u32::try_from(n).ok()).ok_or(field(key))
}

/// The refusal of item `i` of `section` (none: the section itself).
fn at(section: &str, i: Option<usize>, (why, name): Miss) -> Refused {
    let item = i.map_or(String::new(), |i| format!("[{i}]"));
    let name = if name.is_empty() { String::new() } else { format!(".{name}") };
    (why, format!("{section}{item}{name}"))
}

/// Read a pack's text (from `file`) as recorded program number `number`.
pub(super) fn read(file: &str, pack: &str, number: usize) -> Result<Recorded, Refused> {
    let pack: Value = serde_json::from_str(pack).map_err(|e| ("json", e.to_string()))?;
    let version = pack.get("version").map_or(String::new(), Value::to_string);
    let format = pack.get("format").and_then(Value::as_str).unwrap_or("");
    if format != FORMAT || pack.get("version").and_then(Value::as_u64) != Some(VERSION) {
        return Err(("format", format!("format {format:?}, version {version}")));
    }
    let languages = list(&pack, "languages").map_err(|m| at("", None, m))?;
    let languages: Vec<String> = languages.iter().filter_map(|l| l.as_str().map(str::to_string)).collect();
    if languages.is_empty() {
        return Err(at("", None, field("languages")));
    }
    let listings = hashed(&pack, "listings", &languages)?;
    let setups = hashed(&pack, "setup", &languages)?;
    let count = listings[0].1.lines().count() as u32;
    if let Some((lang, _)) = listings.iter().find(|(_, t)| t.lines().count() as u32 != count) {
        return Err(("departs", format!("listings.{lang}")));
    }
    let statements = statements(&pack, count)?;
    let spans = spans(&pack, &listings[0].1, number)?;
    let labels = labels(&pack, count, &statements)?;
    let captions = captions(&pack)?;
    let record = leak(text(&pack, "record").map_err(|m| at("", None, m))?);
    let (scenarios, names, stops) = (Vec::new(), Vec::new(), Vec::new());
    let file = file.to_string();
    let mut recorded = Recorded {
        number,
        file,
        languages,
        listings,
        setups,
        spans,
        statements,
        labels,
        captions,
        record,
        scenarios,
        names,
        stops,
    };
    let scenarios = list(&pack, "scenarios").map_err(|m| at("", None, m))?;
    for (i, scenario) in scenarios.iter().enumerate() {
        let scenario = recording(&recorded, scenario, i)?;
        recorded.scenarios.push(scenario);
    }
    if recorded.scenarios.is_empty() {
        return Err(at("", None, field("scenarios")));
    }
    recorded.names = names_of(&recorded);
    recorded.stops = stops_of(&recorded);
    Ok(recorded)
}

/// `listings` (or `setup`): per language `{file, text, hash}`, each text
/// against its hash. Every language's listing is required; a setup may be
/// left out altogether (`{}`).
fn hashed(
    pack: &Value,
    section: &'static str,
    languages: &[String],
) -> Result<Vec<(String, String)>, Refused> {
    let map = object(pack, section).map_err(|m| at("", None, m))?;
    let mut out = Vec::new();
    for lang in languages.iter().filter(|_| section == "listings" || !map.is_empty()) {
        let entry = map.get(lang).filter(|e| e.is_object());
        let entry = entry.ok_or_else(|| ("field", format!("{section}.{lang}")))?;
        let read = (text(entry, "file"), text(entry, "text"), text(entry, "hash"));
        let (Ok(file), Ok(body), Ok(hash)) = read else { return Err(("field", format!("{section}.{lang}"))) };
        if hash != format!("{:016x}", text_hash(body)) {
            return Err(("hash", file.to_string()));
        }
        out.push((lang.clone(), body.to_string()));
    }
    Ok(out)
}

/// `statements`: `[first, last]` pairs inside the file.
fn statements(pack: &Value, count: u32) -> Result<Vec<(u32, u32)>, Refused> {
    let mut out = Vec::new();
    for (i, pair) in list(pack, "statements").map_err(|m| at("", None, m))?.iter().enumerate() {
        let whole = |k: usize| pair.get(k).and_then(Value::as_u64).and_then(|n| u32::try_from(n).ok());
        match (whole(0), whole(1)) {
            (Some(a), Some(b)) if a > 0 && a <= b && b <= count => out.push((a, b)),
            _ => return Err(at("statements", Some(i), ("departs", ""))),
        }
    }
    Ok(out)
}

/// The line a step on `line` is shown on: the first line of the statement
/// it is part of (CPython may report a call's inner lines).
pub fn first_line(statements: &[(u32, u32)], line: u32) -> u32 {
    let inside = statements.iter().filter(|(a, b)| *a <= line && line <= *b);
    inside.map(|(a, _)| *a).max().unwrap_or(line)
}

/// `functions`: each `{name, start, end}`, its `def` inside its lines.
fn spans(pack: &Value, listing: &str, number: usize) -> Result<Vec<Span>, Refused> {
    let lines: Vec<&str> = listing.lines().collect();
    let mut out: Vec<Span> = Vec::new();
    for (i, f) in list(pack, "functions").map_err(|m| at("", None, m))?.iter().enumerate() {
        out.push(span(f, &lines, &out, number).map_err(|m| at("functions", Some(i), m))?);
    }
    if out.is_empty() {
        return Err(at("", None, field("functions")));
    }
    Ok(out)
}

fn span(f: &Value, lines: &[&str], before: &[Span], number: usize) -> Result<Span, Miss> {
    let (name, start, end) = (text(f, "name")?, whole(f, "start")?, whole(f, "end")?);
    let python_name = !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_');
    if !python_name || before.iter().any(|s| s.function.name() == name) {
        return Err(field("name"));
    }
    let body = lines.get(start.saturating_sub(1) as usize..end as usize).unwrap_or_default();
    let def = |l: &&str| {
        let l = l.trim_start();
        let l = l.strip_prefix("async ").unwrap_or(l);
        l.strip_prefix("def ").and_then(|r| r.strip_prefix(name)).is_some_and(|r| r.starts_with('('))
    };
    if start == 0 || start > end || !body.iter().any(def) {
        return Err(("departs", "start"));
    }
    let function = Function::recorded(leak(&Function::recorded_text(name, number)));
    Ok(Span { function, start, end })
}

/// `labels`: each label and its line, shown on its statement's first.
fn labels(pack: &Value, count: u32, statements: &[(u32, u32)]) -> Result<Vec<(&'static str, u32)>, Refused> {
    let mut out = Vec::new();
    for (label, line) in object(pack, "labels").map_err(|m| at("", None, m))? {
        let good = !label.is_empty() && label.chars().all(|c| c.is_alphanumeric() || "_.-".contains(c));
        match line.as_u64().and_then(|n| u32::try_from(n).ok()) {
            Some(line) if good && line > 0 && line <= count => {
                out.push((leak(label), first_line(statements, line)))
            }
            _ => return Err(("field", format!("labels.{label}"))),
        }
    }
    Ok(out)
}

/// `captions`: label → `{language: text}` (none: `{}` or left out).
fn captions(pack: &Value) -> Result<Vec<Caption>, Refused> {
    let mut out = Vec::new();
    let Some(map) = pack.get("captions").filter(|c| !c.is_null()) else { return Ok(out) };
    for (label, texts) in map.as_object().ok_or(("field", "captions".to_string()))? {
        let texts =
            texts.as_object().map(|m| m.iter().map(|(l, t)| t.as_str().map(|t| (l.clone(), t.to_string()))));
        let texts = texts.and_then(|t| t.collect::<Option<Vec<_>>>());
        out.push((leak(label), texts.ok_or_else(|| ("field", format!("captions.{label}")))?));
    }
    Ok(out)
}

/// Scenario `i`: its id, title and a run in every language of the pack,
/// each starting with its entry's call.
fn recording(recorded: &Recorded, v: &Value, i: usize) -> Result<Recording, Refused> {
    let id = text(v, "id").map_err(|m| at("scenarios", Some(i), m))?;
    let good_id =
        !id.is_empty() && id.len() <= 64 && id.chars().all(|c| c.is_alphanumeric() || "-_".contains(c));
    if !good_id || recorded.scenarios.iter().any(|s| s.id == id) {
        return Err(at("scenarios", Some(i), field("id")));
    }
    let mut title = BTreeMap::new();
    for (lang, t) in object(v, "title").map_err(|m| at("scenarios", Some(i), m))? {
        let t = t.as_str().ok_or_else(|| at("scenarios", Some(i), field("title")))?;
        title.insert(lang.clone(), t.to_string());
    }
    let mut runs = Vec::new();
    for (lang, listing) in &recorded.listings {
        let run = v.get("runs").and_then(|r| r.get(lang));
        let run = run.ok_or_else(|| ("field", format!("scenarios[{i}].runs.{lang}")))?;
        let run = super::steps::run(recorded, listing, run).map_err(|(k, m)| {
            let step = k.map_or(String::new(), |k| format!(".steps[{k}]"));
            (m.0, format!("scenarios[{i}].runs.{lang}{step}.{}", m.1))
        })?;
        runs.push((lang.clone(), run));
    }
    let entry = |run: &Run| {
        let first = run.steps.first().filter(|s| s.event == Event::Call && s.depth == 0);
        first.map(|s| s.function)
    };
    let function = entry(&runs[0].1);
    if function.is_none() || runs.iter().any(|(_, run)| entry(run) != function) {
        return Err(("departs", format!("scenarios[{i}].runs")));
    }
    let questions = v.get("questions").cloned().unwrap_or(Value::Null);
    if !(questions.is_null() || questions.is_array()) {
        return Err(at("scenarios", Some(i), field("questions")));
    }
    Ok(Recording {
        id: id.to_string(),
        title,
        function: function.unwrap_or(recorded.spans[0].function),
        runs,
        questions,
    })
}

/// Every local name each function's steps have (not `return`, `raise`).
fn names_of(recorded: &Recorded) -> Vec<(Function, Vec<String>)> {
    let mut out: Vec<(Function, Vec<String>)> =
        recorded.spans.iter().map(|s| (s.function, Vec::new())).collect();
    let steps = recorded.scenarios.iter().flat_map(|s| &s.runs).flat_map(|(_, run)| &run.steps);
    for step in steps {
        let Some((_, names)) = out.iter_mut().find(|(f, _)| *f == step.function) else { continue };
        for (name, _) in step.locals.iter().filter(|(n, _)| !matches!(*n, "return" | "raise")) {
            if !names.iter().any(|n| n == name) {
                names.push(name.to_string());
            }
        }
    }
    for (_, names) in &mut out {
        sort_small(names);
    }
    out
}

/// The lines each function's runs stop at (its call and line steps).
fn stops_of(recorded: &Recorded) -> Vec<(Function, Vec<u32>)> {
    let mut out: Vec<(Function, Vec<u32>)> =
        recorded.spans.iter().map(|s| (s.function, Vec::new())).collect();
    let steps = recorded.scenarios.iter().flat_map(|s| &s.runs).flat_map(|(_, run)| &run.steps);
    for step in steps.filter(|s| matches!(s.event, Event::Call | Event::Line)) {
        let Some((_, lines)) = out.iter_mut().find(|(f, _)| *f == step.function) else { continue };
        if !lines.contains(&step.line) {
            lines.push(step.line);
        }
    }
    for (_, lines) in &mut out {
        sort_small(lines);
    }
    out
}
