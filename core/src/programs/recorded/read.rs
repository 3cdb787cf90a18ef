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

fn field_err(at: &str) -> Refused {
    ("field", at.to_string())
}

fn get<'a>(obj: &'a Map<String, Value>, key: &str, at: &str) -> Result<&'a Value, Refused> {
    obj.get(key).ok_or_else(|| field_err(&join(at, key)))
}

fn join(at: &str, key: &str) -> String {
    if at.is_empty() {
        key.to_string()
    } else {
        format!("{at}.{key}")
    }
}

fn object<'a>(v: &'a Value, at: &str) -> Result<&'a Map<String, Value>, Refused> {
    v.as_object().ok_or_else(|| field_err(at))
}

fn list<'a>(v: &'a Value, at: &str) -> Result<&'a [Value], Refused> {
    v.as_array().map(Vec::as_slice).ok_or_else(|| field_err(at))
}

fn text<'a>(v: &'a Value, at: &str) -> Result<&'a str, Refused> {
    v.as_str().ok_or_else(|| field_err(at))
}

fn whole(v: &Value, at: &str) -> Result<u32, Refused> {
    v.as_u64().and_then(|n| u32::try_from(n).ok()).ok_or_else(|| field_err(at))
}

fn texts(v: &Value, at: &str) -> Result<Vec<String>, Refused> {
    let items = list(v, at)?.iter().enumerate();
    items.map(|(i, t)| text(t, &format!("{at}[{i}]")).map(str::to_string)).collect()
}

/// Read a pack's text (from `file`) as recorded program number `number`.
pub(super) fn read(file: &str, pack: &str, number: usize) -> Result<Recorded, Refused> {
    let pack: Value = serde_json::from_str(pack).map_err(|e| ("json", e.to_string()))?;
    let pack = pack.as_object().ok_or(("format", String::new()))?;
    let format = pack.get("format").and_then(Value::as_str).unwrap_or("");
    let version = pack.get("version").map_or(String::new(), Value::to_string);
    if format != FORMAT || pack.get("version").and_then(Value::as_u64) != Some(VERSION) {
        return Err(("format", format!("format {format:?}, version {version}")));
    }
    let languages = texts(get(pack, "languages", "")?, "languages")?;
    if languages.is_empty() {
        return Err(field_err("languages"));
    }
    let listings = hashed(get(pack, "listings", "")?, "listings", &languages, true)?;
    let setups = hashed(get(pack, "setup", "")?, "setup", &languages, false)?;
    let count = listings[0].1.lines().count() as u32;
    if let Some((lang, _)) = listings.iter().find(|(_, t)| t.lines().count() as u32 != count) {
        return Err(("departs", format!("listings.{lang}")));
    }
    let statements = statements(get(pack, "statements", "")?, count)?;
    let spans = spans(get(pack, "functions", "")?, &listings[0].1, number)?;
    let at_first = |line: u32| first_line(&statements, line);
    let labels = labels(get(pack, "labels", "")?, count, at_first)?;
    let captions = captions(pack.get("captions").unwrap_or(&Value::Null))?;
    let mut recorded = Recorded {
        number,
        file: file.to_string(),
        languages,
        listings,
        setups,
        spans,
        statements,
        labels,
        captions,
        scenarios: Vec::new(),
        names: Vec::new(),
        stops: Vec::new(),
    };
    let scenarios = list(get(pack, "scenarios", "")?, "scenarios")?;
    if scenarios.is_empty() {
        return Err(field_err("scenarios"));
    }
    for (i, scenario) in scenarios.iter().enumerate() {
        let scenario = recording(&recorded, scenario, &format!("scenarios[{i}]"))?;
        recorded.scenarios.push(scenario);
    }
    recorded.names = names(&recorded);
    recorded.stops = stops(&recorded);
    Ok(recorded)
}

/// `listings` (or `setup`): per language `{file, text, hash}`, each text
/// against its hash. Every language's listing is required; a setup may be
/// left out altogether.
fn hashed(
    v: &Value,
    at: &str,
    languages: &[String],
    required: bool,
) -> Result<Vec<(String, String)>, Refused> {
    let map = object(v, at)?;
    let mut out = Vec::new();
    for lang in languages {
        let Some(entry) = map.get(lang) else {
            if required || !map.is_empty() {
                return Err(field_err(&join(at, lang)));
            }
            continue;
        };
        let here = join(at, lang);
        let entry = object(entry, &here)?;
        let file = text(get(entry, "file", &here)?, &join(&here, "file"))?;
        let body = text(get(entry, "text", &here)?, &join(&here, "text"))?;
        let hash = text(get(entry, "hash", &here)?, &join(&here, "hash"))?;
        if hash != format!("{:016x}", text_hash(body)) {
            return Err(("hash", file.to_string()));
        }
        out.push((lang.clone(), body.to_string()));
    }
    Ok(out)
}

/// `statements`: `[first, last]` pairs inside the file.
fn statements(v: &Value, count: u32) -> Result<Vec<(u32, u32)>, Refused> {
    let mut out = Vec::new();
    for (i, pair) in list(v, "statements")?.iter().enumerate() {
        let at = format!("statements[{i}]");
        let pair = list(pair, &at)?;
        let (Some(a), Some(b)) = (pair.first(), pair.get(1)) else { return Err(field_err(&at)) };
        let (a, b) = (whole(a, &at)?, whole(b, &at)?);
        if a == 0 || a > b || b > count {
            return Err(("departs", at));
        }
        out.push((a, b));
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
fn spans(v: &Value, listing: &str, number: usize) -> Result<Vec<Span>, Refused> {
    let lines: Vec<&str> = listing.lines().collect();
    let mut out: Vec<Span> = Vec::new();
    for (i, f) in list(v, "functions")?.iter().enumerate() {
        let at = format!("functions[{i}]");
        let f = object(f, &at)?;
        let name = text(get(f, "name", &at)?, &join(&at, "name"))?;
        let start = whole(get(f, "start", &at)?, &join(&at, "start"))?;
        let end = whole(get(f, "end", &at)?, &join(&at, "end"))?;
        let python_name = !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_');
        if !python_name || out.iter().any(|s| s.function.name() == name) {
            return Err(field_err(&join(&at, "name")));
        }
        let body = lines.get(start.saturating_sub(1) as usize..end as usize).unwrap_or_default();
        let def = |l: &&str| {
            let l = l.trim_start();
            let l = l.strip_prefix("async ").unwrap_or(l);
            l.strip_prefix("def ").and_then(|r| r.strip_prefix(name)).is_some_and(|r| r.starts_with('('))
        };
        if start == 0 || start > end || !body.iter().any(def) {
            return Err(("departs", format!("{at}: def {name}")));
        }
        let function = Function::recorded(leak(&Function::recorded_text(name, number)));
        out.push(Span { function, start, end });
    }
    if out.is_empty() {
        return Err(field_err("functions"));
    }
    Ok(out)
}

/// `labels`: each label and its line, shown on its statement's first.
fn labels(v: &Value, count: u32, at_first: impl Fn(u32) -> u32) -> Result<Vec<(&'static str, u32)>, Refused> {
    let mut out = Vec::new();
    for (label, line) in object(v, "labels")? {
        let at = join("labels", label);
        let good = !label.is_empty() && label.chars().all(|c| c.is_alphanumeric() || "_.-".contains(c));
        let line = whole(line, &at)?;
        if !good || line == 0 || line > count {
            return Err(field_err(&at));
        }
        out.push((leak(label), at_first(line)));
    }
    Ok(out)
}

/// `captions`: label → `{language: text}` (none: `{}` or left out).
fn captions(v: &Value) -> Result<Vec<Caption>, Refused> {
    let mut out = Vec::new();
    let Some(map) = v.as_object() else {
        return if v.is_null() { Ok(out) } else { Err(field_err("captions")) };
    };
    for (label, texts) in map {
        let at = join("captions", label);
        let mut each = Vec::new();
        for (lang, t) in object(texts, &at)? {
            each.push((lang.clone(), text(t, &join(&at, lang))?.to_string()));
        }
        out.push((leak(label), each));
    }
    Ok(out)
}

/// One scenario: its id, title and a run in every language of the pack,
/// each starting with its entry's call.
fn recording(recorded: &Recorded, v: &Value, at: &str) -> Result<Recording, Refused> {
    let map = object(v, at)?;
    let id = text(get(map, "id", at)?, &join(at, "id"))?;
    let good_id =
        !id.is_empty() && id.len() <= 64 && id.chars().all(|c| c.is_alphanumeric() || "-_".contains(c));
    if !good_id || recorded.scenarios.iter().any(|s| s.id == id) {
        return Err(field_err(&join(at, "id")));
    }
    let mut title = BTreeMap::new();
    for (lang, t) in object(get(map, "title", at)?, &join(at, "title"))? {
        title.insert(lang.clone(), text(t, &join(at, &format!("title.{lang}")))?.to_string());
    }
    let runs_at = join(at, "runs");
    let runs = object(get(map, "runs", at)?, &runs_at)?;
    let mut out = Vec::new();
    for (lang, listing) in &recorded.listings {
        let here = join(&runs_at, lang);
        let run = super::steps::run(recorded, listing, get(runs, lang, &runs_at)?, &here)?;
        out.push((lang.clone(), run));
    }
    let entry = |run: &Run| {
        let first = run.steps.first().filter(|s| s.event == Event::Call && s.depth == 0);
        first.map(|s| s.function)
    };
    let function = entry(&out[0].1).ok_or_else(|| ("departs", runs_at.clone()))?;
    if out.iter().any(|(_, run)| entry(run) != Some(function)) {
        return Err(("departs", runs_at));
    }
    Ok(Recording { id: id.to_string(), title, function, runs: out })
}

/// Every local name each function's steps have (not `return`, `raise`).
fn names(recorded: &Recorded) -> Vec<(Function, Vec<String>)> {
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
fn stops(recorded: &Recorded) -> Vec<(Function, Vec<u32>)> {
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
