//! A course author's own Python listing: their wording of a program's
//! functions, with `#|` marks that tie its lines to the program's snapshot
//! points (docs/listing-format.md). It is checked without Python — every
//! function present, every snapshot point marked on exactly one line, no
//! mark on a blank or comment line or outside a function, marks in an
//! order the program can run — and, when it passes, registered for the run
//! time of the page as `Code::Authored(n)`: the page shows it as written
//! (the marks taken off) and steps through it with the recorded run.
//!
//! `check --listing` runs it under CPython too; the page cannot.

use super::listing::Listing;
use super::python::{keys, listing_of, names_of, py_lines_in, Key};
use crate::i18n::Lang;
use crate::programs::{self, Program};
use crate::vocab::{Code, Function};
use std::sync::{OnceLock, RwLock};

/// What is wrong with a listing (or worth saying about one): a word key
/// of the language tables (`listing_missing`, …) and its values (`file`,
/// `line`, `mark`, `function`, …), said in the reader's language.
#[derive(Clone, Debug, PartialEq)]
pub struct Finding {
    pub key: &'static str,
    pub values: Vec<(&'static str, String)>,
}

impl Finding {
    pub(super) fn new(key: &'static str, file: &str, values: &[(&'static str, String)]) -> Finding {
        let mut all = vec![("file", file.to_string())];
        all.extend(values.iter().cloned());
        Finding { key, values: all }
    }

    /// The finding in `lang`'s words.
    pub fn text(&self, lang: Lang) -> String {
        lang.fill(self.key, &self.values)
    }
}

/// One registered listing.
struct Written {
    text: &'static str,
    listings: Vec<(Function, Listing)>,
    key_lines: Vec<(Function, Vec<(Key, u32)>)>,
    names: Vec<(Function, Vec<String>)>,
}

fn registry() -> &'static RwLock<Vec<&'static Written>> {
    static REGISTRY: OnceLock<RwLock<Vec<&'static Written>>> = OnceLock::new();
    REGISTRY.get_or_init(|| RwLock::new(Vec::new()))
}

fn written(id: u16) -> Option<&'static Written> {
    registry().read().unwrap_or_else(|e| e.into_inner()).get(usize::from(id)).copied()
}

/// The listing of `function` in an author's listing.
pub(super) fn listing(id: u16, function: Function) -> Option<&'static Listing> {
    written(id)?.listings.iter().find(|(f, _)| *f == function).map(|(_, l)| l)
}

/// Every key of `function` with its line in an author's listing.
pub(super) fn key_lines(id: u16, function: Function) -> Option<&'static [(Key, u32)]> {
    written(id)?.key_lines.iter().find(|(f, _)| *f == function).map(|(_, k)| k.as_slice())
}

/// The names `function` has in an author's listing.
pub(super) fn names(id: u16, function: Function) -> Option<&'static [String]> {
    written(id)?.names.iter().find(|(f, _)| *f == function).map(|(_, n)| n.as_slice())
}

/// The program a listing is written for: the one most of whose functions
/// it defines.
pub fn program_of(text: &str) -> &'static Program {
    let defines = |p: &&Program| {
        p.functions
            .iter()
            .filter(|f| text.lines().any(|l| l.starts_with(&format!("def {}(", f.name()))))
            .count()
    };
    programs::ALL
        .iter()
        .copied()
        .max_by_key(|p| (defines(p), usize::MAX - p.name.len()))
        .unwrap_or(programs::ALL[0])
}

/// Check an author's listing `text` (from `file`) and register it. `lang`
/// is the language it is written in: where its sentences are not the
/// program's in that language, a finding says that the record and the
/// output keep the program's words. Returns the listing's code and those
/// remarks, or every problem that keeps it off the page.
pub fn register(file: &str, text: &str, lang: Lang) -> Result<(Code, Vec<Finding>), Vec<Finding>> {
    let program = program_of(text);
    let text: &'static str = {
        let known = registry().read().unwrap_or_else(|e| e.into_inner());
        match known.iter().find(|w| w.text == text) {
            Some(w) => w.text,
            None => Box::leak(text.to_string().into_boxed_str()),
        }
    };
    let problems = problems(program, file, text);
    if !problems.is_empty() {
        return Err(problems);
    }
    let mut tables = registry().write().unwrap_or_else(|e| e.into_inner());
    let id = match tables.iter().position(|w| w.text == text) {
        Some(i) => i,
        None => {
            tables.push(Box::leak(Box::new(build(program, text))));
            tables.len() - 1
        }
    };
    let code = Code::Authored(u16::try_from(id).unwrap_or(u16::MAX));
    Ok((code, own_words(program, file, text, lang)))
}

/// The tables of a listing that passed the checks.
fn build(program: &'static Program, text: &'static str) -> Written {
    let lines = py_lines_in(program, text);
    let listings: Vec<(Function, Listing)> =
        program.functions.iter().map(|f| (*f, listing_of(&lines, *f))).collect();
    let key_lines = program
        .functions
        .iter()
        .map(|f| {
            let first = lines.iter().find(|l| l.function == Some(*f)).map_or(0, |l| l.source);
            let at = |key: Key| -> u32 {
                if key.1 == "call" {
                    return 1;
                }
                let line = lines
                    .iter()
                    .find(|l| l.function == Some(*f) && l.marks.iter().any(|m| mark_key(*f, m) == Some(key)));
                line.map_or(0, |l| l.source + 1 - first)
            };
            (*f, keys(*f).into_iter().map(|k| (k, at(k))).collect())
        })
        .collect();
    let names = listings.iter().map(|(f, l)| (*f, names_of(l, *f))).collect();
    Written { text, listings, key_lines, names }
}

/// The key a mark stands for in `function`: `label` when the label has one
/// snapshot point there, `label@k` for the k-th of several.
fn mark_key(function: Function, mark: &str) -> Option<Key> {
    let (label, k) = match mark.split_once('@') {
        Some((label, k)) => (label, k.parse::<u16>().ok()?),
        None => (mark, 0),
    };
    let all = keys(function);
    let uses = all.iter().filter(|key| key.1 == label && key.1 != "call").count();
    match (k, uses) {
        (0, 1) => all.into_iter().find(|key| key.1 == label),
        (k, _) if k > 0 => all.into_iter().find(|key| key.1 == label && key.2 == k),
        _ => None,
    }
}

/// Everything that keeps a listing off the page.
fn problems(program: &'static Program, file: &str, text: &'static str) -> Vec<Finding> {
    let lines = py_lines_in(program, text);
    let mut found = Vec::new();
    for f in program.functions {
        if !lines.iter().any(|l| l.function == Some(*f)) {
            found.push(Finding::new("listing_no_function", file, &[("function", f.name().into())]));
        }
    }
    // Each mark: on a line of a function, with code, standing for one key.
    let mut marked: Vec<(Key, u32)> = Vec::new();
    for line in lines.iter().filter(|l| !l.marks.is_empty()) {
        let at = |mark: &str| [("line", line.source.to_string()), ("mark", mark.to_string())];
        let Some(function) = line.function else {
            // (inside a def the program lacks, the missing function says it)
            if !line.text.starts_with([' ', '\t']) {
                found.push(Finding::new("listing_outside", file, &at(line.marks[0])));
            }
            continue;
        };
        let code = line.text.trim();
        for mark in &line.marks {
            if code.is_empty() || code.starts_with('#') {
                found.push(Finding::new("listing_comment", file, &at(mark)));
                // (not missing as well: this is where the author put it)
                marked.extend(mark_key(function, mark).map(|k| (k, 0)));
                continue;
            }
            let Some(key) = mark_key(function, mark) else {
                let mut values = at(mark).to_vec();
                values.push(("function", function.name().into()));
                found.push(Finding::new("listing_unknown", file, &values));
                continue;
            };
            if let Some((_, first)) = marked.iter().find(|(k, _)| *k == key) {
                let mut values = at(mark).to_vec();
                values.push(("first", first.to_string()));
                found.push(Finding::new("listing_duplicate", file, &values));
                continue;
            }
            marked.push((key, line.source));
        }
    }
    for f in program.functions.iter().filter(|f| lines.iter().any(|l| l.function == Some(**f))) {
        for key in keys(*f).into_iter().filter(|k| k.1 != "call") {
            if !marked.iter().any(|(k, _)| *k == key) {
                let mark = if keys(*f).iter().filter(|k| k.1 == key.1).count() > 1 {
                    format!("{}@{}", key.1, key.2)
                } else {
                    key.1.to_string()
                };
                found.push(Finding::new(
                    "listing_missing",
                    file,
                    &[("function", f.name().into()), ("mark", mark)],
                ));
            }
        }
    }
    if found.is_empty() {
        found.extend(order_problem(program, file, &lines, &marked));
    }
    found
}

/// The first mark that stands above a point the program runs before it,
/// where no loop goes back up: Python runs a function downwards, and only
/// a `for` or `while` line is returned to, from a line inside its body.
fn order_problem(
    program: &'static Program,
    file: &str,
    lines: &[super::python::PyLine],
    marked: &[(Key, u32)],
) -> Option<Finding> {
    let line_of = |key: Key| marked.iter().find(|(k, _)| *k == key).map(|(_, n)| *n);
    let indent = |n: u32| lines.get(n as usize - 1).map_or(0, |l| l.text.len() - l.text.trim_start().len());
    let back_to_head = |from: u32, head: u32| {
        let t = lines.get(head as usize - 1).map_or("", |l| l.text.trim_start());
        let inside = (head + 1..=from).all(|n| {
            lines.get(n as usize - 1).is_none_or(|l| l.text.trim().is_empty() || indent(n) > indent(head))
        });
        (t.starts_with("for ") || t.starts_with("while ")) && inside
    };
    for (before, after) in follows(program) {
        let (Some(a), Some(b)) = (line_of(*before), line_of(*after)) else { continue };
        if b < a && !back_to_head(a, b) {
            return Some(Finding::new(
                "listing_order",
                file,
                &[("line", b.to_string()), ("mark", after.1.to_string()), ("previous", before.1.to_string())],
            ));
        }
    }
    None
}

/// Which points follow which in the runs of a program's shipped
/// scenarios: `(a, b)` when a frame stands at `a` and next at `b`.
fn follows(program: &'static Program) -> &'static [(Key, Key)] {
    type ByProgram = Vec<(&'static str, Vec<(Key, Key)>)>;
    static FOLLOWS: crate::pack::Cache<ByProgram> = crate::pack::Cache::new();
    super::listing::each_program(&FOLLOWS, program, |program| {
        let mut pairs: Vec<(Key, Key)> = Vec::new();
        for (_, parsed) in crate::scenario::load_shipped() {
            let Ok(scenario) = parsed else { continue };
            if !program.functions.contains(&scenario.function) {
                continue;
            }
            let trace = crate::run::record_scenario(&scenario);
            let mut last: Vec<Option<Key>> = Vec::new();
            for step in &trace.steps {
                let depth = usize::from(step.depth);
                last.resize(depth + 1, None);
                if step.event != crate::trace::Event::Line {
                    last[depth] = None;
                    continue;
                }
                let key = super::python::step_key(step);
                if let Some(before) = last[depth].filter(|b| b.0 == key.0 && *b != key) {
                    if !pairs.contains(&(before, key)) {
                        pairs.push((before, key));
                    }
                }
                last[depth] = Some(key);
            }
        }
        pairs
    })
}

/// Where the listing's strings are not the program's sentences in `lang`
/// (the ones the program's own listing in that language writes): one
/// remark, since the record and the output show the program's words.
fn own_words(program: &'static Program, file: &str, text: &str, lang: Lang) -> Vec<Finding> {
    let own = program.python_in(lang.code());
    let pieces = |kind: &str| -> Vec<&'static str> {
        let template = lang.said_template(kind);
        template.split(['{', '}']).step_by(2).map(str::trim).filter(|p| p.chars().count() > 2).collect()
    };
    let missing = crate::protocol::Said::KINDS.iter().any(|kind| {
        let pieces = pieces(kind);
        !pieces.is_empty()
            && pieces.iter().all(|p| own.contains(p))
            && pieces.iter().any(|p| !text.contains(p))
    });
    if missing {
        vec![Finding::new("listing_own_words", file, &[])]
    } else {
        Vec::new()
    }
}
