//! The program as the manifest names it: its file in each language (and
//! the setup's), read; what CPython says it defines (`inspect`: its
//! top-level functions, its statements over several lines, its marks and
//! each function's local names), checked; and the listings as shown,
//! the marks taken off.

use super::harness::{self, Failed, Machine};
use super::manifest::{is_label, Files, Manifest};
use crate::listing::language_of;
use crate::shown;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::Path;

/// A file the manifest names: as written there (the pack keeps that),
/// as the CLI says it (beside the manifest), and its text.
#[derive(Clone, Debug)]
pub(super) struct Source {
    pub(super) file: String,
    pub(super) path: String,
    pub(super) text: String,
}

/// The program in one language, with the setup that runs after it.
#[derive(Debug)]
pub(super) struct Listing {
    pub(super) lang: &'static str,
    pub(super) source: Source,
    /// The text as shown: the marks taken off, every line kept.
    pub(super) shown: String,
    pub(super) setup: Option<Source>,
}

/// A traced function: its name and lines (`start`: its first decorator's).
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Traced {
    pub(super) name: String,
    pub(super) start: u64,
    pub(super) end: u64,
}

/// The program, read and checked.
#[derive(Debug)]
pub(super) struct Program {
    pub(super) listings: Vec<Listing>,
    pub(super) functions: Vec<Traced>,
    /// `[first, last]` of every statement over several lines.
    pub(super) statements: Value,
    /// label → line.
    pub(super) labels: BTreeMap<String, u64>,
}

impl Traced {
    pub(super) fn json(&self) -> Value {
        json!({"name": self.name, "start": self.start, "end": self.end})
    }
}

/// One file beside the manifest, its line ends made `\n`.
fn source(machine: &mut dyn Machine, dir: &Path, file: &str) -> Result<Source, String> {
    let path = shown::path(&dir.join(file));
    let text = machine.read(&dir.join(file)).map_err(|why| format!("{path}: {why}"))?;
    Ok(Source { file: file.to_string(), text: text.replace("\r\n", "\n"), path })
}

fn pick<'a>(files: &'a Files, lang: &str) -> &'a str {
    match files {
        Files::One(file) => file,
        Files::Each(each) => each.iter().find(|(l, _)| *l == lang).map_or(&each[0].1, |(_, f)| f),
    }
}

/// Read the program's files and their setups, language by language.
fn sources(machine: &mut dyn Machine, m: &Manifest, dir: &Path) -> Result<Vec<Listing>, Vec<String>> {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    let programs: Vec<(Option<&'static str>, &str)> = match &m.program {
        Files::One(file) => vec![(None, file.as_str())],
        Files::Each(each) => each.iter().map(|(l, f)| (Some(*l), f.as_str())).collect(),
    };
    for (lang, file) in programs {
        let program = match source(machine, dir, file) {
            Ok(program) => program,
            Err(why) => {
                errors.push(why);
                continue;
            }
        };
        let lang = lang.unwrap_or_else(|| language_of(&program.text).code());
        let setup = match m.setup.as_ref().map(|s| source(machine, dir, pick(s, lang))) {
            Some(Err(why)) => {
                errors.push(why);
                continue;
            }
            Some(Ok(setup)) if setup.file == program.file => {
                errors.push(m.said("setup", "must be another file than the program"));
                continue;
            }
            other => other.and_then(Result::ok),
        };
        out.push(Listing { lang, shown: String::new(), source: program, setup });
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

/// What CPython says the program defines, or its SyntaxError.
fn inspect(machine: &mut dyn Machine, m: &Manifest, listing: &Listing) -> Result<Value, String> {
    let setup = listing.setup.as_ref().map(|s| json!({"file": s.file, "text": s.text}));
    let job = json!({"program": {"file": listing.source.file}, "setup": setup});
    let answer =
        harness::call(machine, &listing.source.text, &job, "inspect").map_err(|failed| match failed {
            Failed::Python(why) => format!("{}: {why}", m.name),
            Failed::Run(why) => format!("{}: {why}", listing.source.path),
        })?;
    if let Some(error) = answer.get("syntax_error").filter(|e| !e.is_null()) {
        let file = error["file"].as_str().unwrap_or("");
        let path = match &listing.setup {
            Some(setup) if setup.file == file => &setup.path,
            _ => &listing.source.path,
        };
        return Err(format!("{path}:{}: {}", error["line"], error["text"].as_str().unwrap_or("")));
    }
    Ok(answer)
}

/// Read, inspect and check the program the manifest names.
pub(super) fn read(machine: &mut dyn Machine, m: &Manifest, dir: &Path) -> Result<Program, Vec<String>> {
    let mut listings = sources(machine, m, dir)?;
    let mut found = Vec::new();
    for listing in &listings {
        found.push(inspect(machine, m, listing).map_err(|e| vec![e])?);
    }
    let first = &found[0];
    let functions = traced(m, first, &listings[0].source)?;
    let mut errors = Vec::new();
    let mut labels = BTreeMap::new();
    for (listing, answer) in listings.iter().zip(&found) {
        let (mine, said) = marks(listing, answer, &functions);
        errors.extend(said);
        if labels.is_empty() {
            labels = mine;
        }
    }
    for (listing, answer) in listings.iter().zip(&found).skip(1) {
        errors.extend(same_lines(&listings[0], first, listing, answer));
    }
    errors.extend(captions(m, &labels, &functions, &first["locals"]));
    if !errors.is_empty() {
        return Err(errors);
    }
    for (listing, answer) in listings.iter_mut().zip(&found) {
        listing.shown = shown(&listing.source.text, &answer["marks"]);
    }
    let statements = first["statements"].clone();
    Ok(Program { listings, functions, statements, labels })
}

/// The functions traced: the manifest's, else every top-level def.
fn traced(m: &Manifest, answer: &Value, program: &Source) -> Result<Vec<Traced>, Vec<String>> {
    let defs: Vec<Traced> = answer["defs"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|d| Traced {
            name: d["name"].as_str().unwrap_or("").to_string(),
            start: d["start"].as_u64().unwrap_or(0),
            end: d["end"].as_u64().unwrap_or(0),
        })
        .collect();
    let names: Vec<&str> = defs.iter().map(|d| d.name.as_str()).collect();
    let Some(wanted) = &m.functions else {
        if defs.is_empty() {
            let why =
                format!("{} defines no top-level function to show and trace", shown::text(&program.file));
            return Err(vec![m.said("program", &why)]);
        }
        return Ok(defs);
    };
    let mut errors = Vec::new();
    for (name, field) in wanted.iter().filter(|(n, _)| !names.contains(&n.as_str())) {
        let known = if names.is_empty() { "none".to_string() } else { names.join(", ") };
        errors.push(m.said(
            field,
            &format!(
                "there is no top-level def {name} in {} (it defines: {known})",
                shown::text(&program.file)
            ),
        ));
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok(defs.into_iter().filter(|d| wanted.iter().any(|(n, _)| *n == d.name)).collect())
}

/// The listing's marks checked (labels, a line of code, inside a traced
/// function, each label once): label → line, and what is wrong.
fn marks(listing: &Listing, answer: &Value, functions: &[Traced]) -> (BTreeMap<String, u64>, Vec<String>) {
    let path = &listing.source.path;
    let (mut labels, mut said) = (BTreeMap::new(), Vec::new());
    for mark in answer["marks"].as_array().into_iter().flatten() {
        let line = mark["line"].as_u64().unwrap_or(0);
        let names: Vec<&str> =
            mark["labels"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
        let inside = functions.iter().any(|f| (f.start..=f.end).contains(&line));
        let problem = match () {
            () if names.is_empty() => Some("`#|` needs a label after it (`#| loop.ask`)".to_string()),
            () if mark["alone"] == true => Some(
                "the mark is on a line without code; put it at the end of the line of code it names".into(),
            ),
            () if !inside => Some(format!("the mark {} is outside the traced functions", names.join(" "))),
            () => None,
        };
        if let Some(why) = problem {
            said.push(format!("{path}:{line}: {why}"));
            continue;
        }
        for name in names {
            if !is_label(name) {
                said.push(format!("{path}:{line}: {name} is not a label (letters, digits, '_', '.', '-')"));
            } else if let Some(other) = labels.insert(name.to_string(), line) {
                said.push(format!("{path}:{line}: the label {name} is already on line {other}"));
            }
        }
    }
    (labels, said)
}

/// A second language's program must have the first's lines: the same
/// functions, statements and marks at the same lines.
fn same_lines(first: &Listing, a: &Value, listing: &Listing, b: &Value) -> Vec<String> {
    let (one, other) = (&first.source, &listing.source);
    let count = |s: &Source| s.text.lines().count();
    if count(one) != count(other) {
        return vec![format!(
            "{}: has {} lines and {} has {}: each language's program has the same lines (only the words differ)",
            other.path,
            count(other),
            one.path,
            count(one)
        )];
    }
    let marked = |v: &Value| -> Vec<(Value, Value)> {
        v["marks"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|m| (m["line"].clone(), m["labels"].clone()))
            .collect()
    };
    let parts = [("functions", &a["defs"], &b["defs"]), ("statements", &a["statements"], &b["statements"])];
    let mut said = Vec::new();
    for (what, x, y) in parts {
        if x != y {
            said.push(format!("{}: its {what} are not at the lines of {}'s", other.path, one.path));
        }
    }
    let (x, y) = (marked(a), marked(b));
    if let Some(i) = (0..x.len().max(y.len())).find(|&i| x.get(i) != y.get(i)) {
        let at = |m: Option<&(Value, Value)>| m.map_or("nothing".into(), |(l, n)| format!("{n} at line {l}"));
        said.push(format!(
            "{}: its marks differ from {}'s: {} here, {} there",
            other.path,
            one.path,
            at(y.get(i)),
            at(x.get(i))
        ));
    }
    said
}

/// Each caption names a marked line, and its placeholders name locals of
/// the function that line is in.
fn captions(
    m: &Manifest,
    labels: &BTreeMap<String, u64>,
    functions: &[Traced],
    locals: &Value,
) -> Vec<String> {
    let mut said = Vec::new();
    for (label, texts) in &m.captions {
        let Some(line) = labels.get(label) else {
            said.push(
                m.said(&format!("captions.{label}"), &format!("no line of the program is marked #| {label}")),
            );
            continue;
        };
        let Some(function) = functions.iter().find(|f| (f.start..=f.end).contains(line)) else { continue };
        let known: Vec<&str> =
            locals[&function.name].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
        for (lang, text) in texts {
            for name in placeholders(text).into_iter().filter(|n| !known.contains(n)) {
                let why = format!(
                    "{{{name}}} is not a local of {} (its locals: {})",
                    function.name,
                    known.join(", ")
                );
                said.push(m.said(&format!("captions.{label}.{lang}"), &why));
            }
        }
    }
    said
}

/// The names of a text's `{name}` and `{name:noun}` placeholders (the
/// core's `i18n::fill` grammar; other brace pairs are text).
pub(super) fn placeholders(text: &str) -> Vec<&str> {
    let mut names = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else { break };
        let inner = &after[..close];
        let name = inner.split(':').next().unwrap_or("");
        if !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            names.push(name);
        }
        rest = after;
    }
    names
}

/// The text with each mark (`#| …` and the blanks before it) taken off
/// its line; the lines stay where they are.
fn shown(text: &str, marks: &Value) -> String {
    let cuts: BTreeMap<usize, usize> = marks
        .as_array()
        .into_iter()
        .flatten()
        .map(|m| (m["line"].as_u64().unwrap_or(0) as usize, m["column"].as_u64().unwrap_or(0) as usize))
        .collect();
    let lines: Vec<String> = text
        .split('\n')
        .enumerate()
        .map(|(i, line)| match cuts.get(&(i + 1)) {
            Some(&column) => {
                let end = line.char_indices().nth(column).map_or(line.len(), |(at, _)| at);
                line[..end].trim_end().to_string()
            }
            None => line.to_string(),
        })
        .collect();
    lines.join("\n")
}
