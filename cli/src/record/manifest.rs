//! The manifest of `record` (docs/program-format.md): which program, which
//! setup, which functions, the record's name, the scenarios and the
//! captions. Read once, every problem collected, each said as
//! `field: problem (line N)` like `check` says a scenario's.

use crate::shown;
use agent_loop_core::i18n::Phrase;
use agent_loop_core::scenario::{is_id, json_lines, not_json, Problem};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// The languages a program, a title or a caption is written in.
pub(super) const LANGS: [&str; 2] = ["zh", "en"];

/// The fields a manifest may have.
const KNOWN: [&str; 7] = ["program", "setup", "functions", "record", "scenarios", "captions", "notes"];
const KNOWN_SCENARIO: [&str; 5] = ["id", "title", "file", "questions", "notes"];

/// One file for every language, or one per language (`zh`, `en`).
#[derive(Clone, Debug)]
pub(super) enum Files {
    One(String),
    Each(Vec<(&'static str, String)>),
}

/// A scenario of the manifest.
#[derive(Clone, Debug)]
pub(super) struct Entry {
    /// Its place in the manifest, `scenarios[2]`.
    pub(super) field: String,
    pub(super) id: String,
    /// `zh` and `en`.
    pub(super) title: BTreeMap<String, String>,
    /// A scenario file in the fixture format, relative to the manifest.
    pub(super) file: Option<String>,
    /// The questions asked in it (the fixture format's `questions`), as
    /// written; their shape is checked once the program's marks are known
    /// (`questions`).
    pub(super) questions: Vec<Value>,
}

/// A manifest read and checked.
#[derive(Debug)]
pub(super) struct Manifest {
    /// The manifest's name as the CLI says it.
    pub(super) name: String,
    /// Its text, for the line of a field.
    pub(super) text: String,
    pub(super) program: Files,
    pub(super) setup: Option<Files>,
    /// The functions listed (`None`: every top-level def), with their fields.
    pub(super) functions: Option<Vec<(String, String)>>,
    pub(super) record: String,
    /// Whether the manifest names `record` (else it is "messages").
    pub(super) record_given: bool,
    pub(super) scenarios: Vec<Entry>,
    /// label → language → text.
    pub(super) captions: BTreeMap<String, BTreeMap<String, String>>,
}

impl Manifest {
    /// `name: field: message (line N)`: a problem at a field of the manifest.
    pub(super) fn said(&self, field: &str, message: &str) -> String {
        self.said_problem(Problem::new(field, Phrase::english(message)))
    }

    /// `name: warning: field: message (line N)`: what `record` says of a
    /// recording it still writes.
    pub(super) fn warned(&self, field: &str, message: &str) -> String {
        said_at(&format!("{}: warning", self.name), &self.text, Problem::new(field, Phrase::english(message)))
    }

    /// The same of a problem found by the core (its words in English).
    pub(super) fn said_problem(&self, problem: Problem) -> String {
        said_at(&self.name, &self.text, problem)
    }
}

/// `name: field: message (line N)`: a problem at a field of the JSON
/// `text` (the file `name`).
pub(super) fn said_at(name: &str, text: &str, mut problem: Problem) -> String {
    json_lines::at_lines(std::slice::from_mut(&mut problem), &[("", text)]);
    let said = shown::problem(&problem);
    match problem.line {
        Some(n) => format!("{name}: {said} (line {n})"),
        None => format!("{name}: {said}"),
    }
}

/// Read the manifest `text` (the file `name`): the manifest, or every
/// problem said.
pub(super) fn parse(name: &str, text: &str) -> Result<Manifest, Vec<String>> {
    let raw: Value = match serde_json::from_str(text) {
        Ok(raw) => raw,
        Err(e) => {
            return Err(vec![format!("{name}: {}", shown::problem(&Problem::new("(file)", not_json(&e))))])
        }
    };
    let mut found = Vec::new();
    let manifest = read(&raw, &mut found);
    let said: Vec<String> = found.into_iter().map(|p| said_at(name, text, p)).collect();
    match manifest {
        Some(m) if said.is_empty() => Ok(Manifest { name: name.into(), text: text.into(), ..m }),
        _ => Err(said),
    }
}

type Found = Vec<Problem>;

fn problem(found: &mut Found, field: &str, message: impl Into<String>) {
    found.push(Problem::new(field, Phrase::english(message)));
}

fn read(raw: &Value, found: &mut Found) -> Option<Manifest> {
    let Some(obj) = raw.as_object() else {
        problem(found, "(file)", "must be a JSON object: {\"program\": …, \"scenarios\": […]}");
        return None;
    };
    unknown(obj, "", &KNOWN, found);
    let program = match obj.get("program") {
        None => {
            problem(found, "program", "missing: the .py file whose functions are shown");
            None
        }
        Some(v) => files(v, "program", found),
    };
    let setup = obj.get("setup").and_then(|v| files(v, "setup", found));
    let functions = obj.get("functions").and_then(|v| functions(v, found));
    let record = match obj.get("record") {
        None => "messages".to_string(),
        Some(Value::String(s)) if is_name(s) => s.clone(),
        Some(_) => {
            problem(
                found,
                "record",
                "must be a Python name, the local that holds the message record (e.g. \"messages\")",
            );
            String::new()
        }
    };
    let scenarios = scenarios(obj.get("scenarios"), found);
    let captions = obj.get("captions").map(|v| captions(v, found)).unwrap_or_default();
    let (name, text) = (String::new(), String::new());
    let record_given = obj.contains_key("record");
    Some(Manifest {
        name,
        text,
        program: program?,
        setup,
        functions,
        record,
        record_given,
        scenarios,
        captions,
    })
}

fn unknown(obj: &Map<String, Value>, at: &str, known: &[&str], found: &mut Found) {
    for key in obj.keys().filter(|k| !known.contains(&k.as_str())) {
        problem(found, &format!("{at}{key}"), format!("unknown field (known: {})", known.join(", ")));
    }
}

/// A Python identifier (ASCII letters, digits, `_`; not a digit first).
pub(super) fn is_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A path the manifest may name: relative (the pack keeps it as written).
fn relative_path(v: &Value, ends: &str) -> Result<String, String> {
    let kind = if ends == ".py" { "a .py file" } else { "a .json file" };
    match v.as_str() {
        Some(s) if s.starts_with('/') || s.starts_with('\\') || s.get(1..2) == Some(":") => {
            Err(format!("must be a path relative to the manifest's folder, not {s:?}"))
        }
        Some(s) if s.to_ascii_lowercase().ends_with(ends) && s.len() > ends.len() => Ok(s.to_string()),
        _ => Err(format!("must be {kind}'s path, relative to the manifest")),
    }
}

fn files(v: &Value, field: &str, found: &mut Found) -> Option<Files> {
    let Some(map) = v.as_object() else {
        return match relative_path(v, ".py") {
            Ok(path) => Some(Files::One(path)),
            Err(why) => {
                problem(found, field, format!("{why} (or {{\"zh\": …, \"en\": …}}, one file per language)"));
                None
            }
        };
    };
    unknown(map, &format!("{field}."), &LANGS, found);
    let mut each = Vec::new();
    for lang in LANGS {
        let at = format!("{field}.{lang}");
        match map.get(lang).map(|v| relative_path(v, ".py")) {
            None => problem(found, &at, "missing: one file per language, zh and en"),
            Some(Err(why)) => problem(found, &at, why),
            Some(Ok(path)) => each.push((lang, path)),
        }
    }
    (each.len() == LANGS.len()).then_some(Files::Each(each))
}

fn functions(v: &Value, found: &mut Found) -> Option<Vec<(String, String)>> {
    let Some(list) = v.as_array().filter(|l| !l.is_empty()) else {
        problem(found, "functions", "must be a list of the program's function names (at least one)");
        return None;
    };
    let mut names: Vec<(String, String)> = Vec::new();
    for (i, item) in list.iter().enumerate() {
        let at = format!("functions[{i}]");
        match item.as_str() {
            Some(name) if !is_name(name) => problem(found, &at, format!("{name:?} is not a Python name")),
            Some(name) if names.iter().any(|(n, _)| n == name) => {
                problem(found, &at, format!("{name} is listed twice"))
            }
            Some(name) => names.push((name.to_string(), at)),
            None => problem(found, &at, "must be a function name (a string)"),
        }
    }
    Some(names)
}

/// A `{"zh": …, "en": …}` of non-blank texts.
fn texts(v: &Value, field: &str, found: &mut Found) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let Some(map) = v.as_object() else {
        problem(found, field, "must be an object {\"zh\": …, \"en\": …}");
        return out;
    };
    unknown(map, &format!("{field}."), &LANGS, found);
    for lang in LANGS {
        match map.get(lang) {
            None => problem(found, &format!("{field}.{lang}"), "missing"),
            Some(Value::String(s)) if !s.trim().is_empty() => {
                out.insert(lang.to_string(), s.clone());
            }
            Some(_) => problem(found, &format!("{field}.{lang}"), "must be a non-empty string"),
        }
    }
    out
}

fn scenarios(v: Option<&Value>, found: &mut Found) -> Vec<Entry> {
    let list = match v {
        None => {
            problem(
                found,
                "scenarios",
                "missing: a list of scenarios, each {\"id\": …, \"title\": {\"zh\": …, \"en\": …}}",
            );
            return Vec::new();
        }
        Some(Value::Array(list)) if !list.is_empty() => list,
        Some(_) => {
            problem(found, "scenarios", "must be a list of at least one scenario");
            return Vec::new();
        }
    };
    let (mut out, mut ids) = (Vec::new(), Vec::<(&str, String)>::new());
    for (i, item) in list.iter().enumerate() {
        let field = format!("scenarios[{i}]");
        if let Some(id) = item.get("id").and_then(Value::as_str) {
            match ids.iter().find(|(seen, _)| *seen == id) {
                Some((_, first)) => {
                    problem(found, &format!("{field}.id"), format!("\"{id}\" is already used by {first}"))
                }
                None => ids.push((id, field.clone())),
            }
        }
        out.extend(scenario(item, &field, found));
    }
    out
}

fn scenario(item: &Value, field: &str, found: &mut Found) -> Option<Entry> {
    let Some(obj) = item.as_object() else {
        problem(
            found,
            field,
            "must be an object {\"id\": …, \"title\": {…}} (and \"file\" for a scenario file)",
        );
        return None;
    };
    unknown(obj, &format!("{field}."), &KNOWN_SCENARIO, found);
    let before = found.len();
    let id = match obj.get("id") {
        None => {
            problem(found, &format!("{field}.id"), "missing");
            String::new()
        }
        Some(Value::String(s)) if is_id(s) => s.clone(),
        Some(_) => {
            problem(found, &format!("{field}.id"), "use letters, digits, '-' or '_' (1-64 chars)");
            String::new()
        }
    };
    let title = match obj.get("title") {
        None => {
            problem(found, &format!("{field}.title"), "missing");
            BTreeMap::new()
        }
        Some(v) => texts(v, &format!("{field}.title"), found),
    };
    let file = obj.get("file").and_then(|v| match relative_path(v, ".json") {
        Ok(path) => Some(path),
        Err(why) => {
            problem(found, &format!("{field}.file"), format!("{why} (a scenario in the fixture format)"));
            None
        }
    });
    let questions = match obj.get("questions") {
        None => Vec::new(),
        Some(Value::Array(list)) => list.clone(),
        Some(_) => {
            problem(
                found,
                &format!("{field}.questions"),
                "must be a list of questions (as a scenario file's)",
            );
            Vec::new()
        }
    };
    (found.len() == before).then(|| Entry { field: field.to_string(), id, title, file, questions })
}

/// A mark's label: letters, digits, `_`, `.`, `-`.
pub(super) fn is_label(s: &str) -> bool {
    !s.is_empty() && s.len() <= 64 && s.chars().all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c))
}

fn captions(v: &Value, found: &mut Found) -> BTreeMap<String, BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    let Some(map) = v.as_object() else {
        problem(found, "captions", "must be an object: label → {\"zh\": …, \"en\": …}");
        return out;
    };
    for (label, texts_of) in map {
        let field = format!("captions.{label}");
        if !is_label(label) {
            problem(found, &field, "not a label (letters, digits, '_', '.', '-'; as marked with #|)");
            continue;
        }
        out.insert(label.clone(), texts(texts_of, &field, found));
    }
    out
}
