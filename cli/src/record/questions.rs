//! The authored questions of a recorded program's scenarios
//! (docs/program-format.md, `questions`): a manifest scenario's own, then
//! its scenario file's, in the fixture format's shape
//! (`scenario::questions_of`, the same reader `check` and the page use).
//! Each `at` must be a mark of the program, and, once the pack is made,
//! each question must be asked: the page's own replay of the pack reaches
//! its label at least `occurrence` times (`predict::times_reached`).
//! Every problem is said at its manifest field, or at its line of the
//! scenario file.

use super::harness::Machine;
use super::manifest::{said_at, Entry, Manifest};
use super::program::Program;
use crate::shown;
use agent_loop_core::i18n::{Lang, Phrase};
use agent_loop_core::programs::recorded;
use agent_loop_core::scenario::{questions_of, Problem};
use agent_loop_core::{predict, run, session};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// A scenario file's questions as written (none: no file, or none in it).
pub(super) fn of_file(text: &str) -> Vec<Value> {
    let raw: Value = serde_json::from_str(text).unwrap_or(Value::Null);
    raw["questions"].as_array().cloned().unwrap_or_default()
}

/// Questions whose `at` is no mark of the program: each problem at
/// `{prefix}questions[j].at`.
fn unmarked(questions: &[Value], prefix: &str, labels: &BTreeMap<String, u64>) -> Vec<Problem> {
    let mut out = Vec::new();
    for (j, q) in questions.iter().enumerate() {
        let Some(at) = q["at"].as_str().map(str::trim) else { continue };
        if !labels.contains_key(at) {
            let say = Phrase::english(format!("no line of the program is marked #| {at}"));
            out.push(Problem::new(format!("{prefix}questions[{j}].at"), say));
        }
    }
    out
}

/// The manifest scenarios' own questions: their shape, each `at` a mark.
pub(super) fn check_manifest(m: &Manifest, program: &Program) -> Vec<String> {
    let example = program.labels.keys().next().map_or("", String::as_str);
    let mut said = Vec::new();
    for entry in m.scenarios.iter().filter(|e| !e.questions.is_empty()) {
        let prefix = format!("{}.", entry.field);
        let shape = questions_of(&Value::Array(entry.questions.clone()), example).err().unwrap_or_default();
        for mut p in shape.into_iter().chain(unmarked(&entry.questions, "", &program.labels)) {
            p.field = format!("{prefix}{}", p.field);
            said.push(m.said_problem(p));
        }
    }
    said
}

/// A scenario file's questions (their shape `check`'s): each `at` a mark,
/// said at the file's line (`path` as the CLI names the file).
pub(super) fn check_file(path: &str, text: &str, program: &Program) -> Vec<String> {
    let problems = unmarked(&of_file(text), "", &program.labels);
    problems.into_iter().map(|p| said_at(path, text, p)).collect()
}

/// Where a question of the pack's scenario `entry` was written: the
/// manifest's own first, then its file's (path as said, text).
enum Written<'a> {
    Manifest(&'a Entry, usize),
    File(&'a (String, String), usize),
}

/// Each question asked: in the page's replay of the pack (its first
/// language; every language's run steps through the same lines), the
/// question's label is reached at least `occurrence` times.
pub(super) fn check_reached(machine: &mut dyn Machine, m: &Manifest, dir: &Path, pack: &str) -> Vec<String> {
    let (recorded, _) = match recorded::load(&m.name, pack) {
        Ok(read) => read,
        Err((why, detail)) => {
            return vec![format!("{}: the pack cannot be read back ({why}: {detail})", m.name)]
        }
    };
    let mut said = Vec::new();
    for (k, (recording, entry)) in recorded.scenarios.iter().zip(&m.scenarios).enumerate() {
        let file = entry.file.as_ref().and_then(|f| {
            let text = machine.read(&dir.join(f)).ok()?.replace("\r\n", "\n");
            Some((shown::path(&dir.join(f)), text))
        });
        let Ok(mut scenario) = session::recorded::scenario(recording, k) else { continue };
        let Some((lang, _)) = recording.runs.first() else { continue };
        scenario.lang = Lang::parse(lang).unwrap_or_else(Lang::english);
        let trace = run::record_scenario(&scenario);
        for (j, q) in scenario.questions.iter().enumerate() {
            let written = match j.checked_sub(entry.questions.len()) {
                None => Written::Manifest(entry, j),
                Some(i) => match &file {
                    Some(file) => Written::File(file, i),
                    None => continue,
                },
            };
            // (the page asks one question per stop: a second one there is never asked)
            let first =
                scenario.questions[..j].iter().position(|o| o.at == q.at && o.occurrence == q.occurrence);
            if let Some(first) = first {
                let why = format!(
                    "{}: question {first} of this scenario is asked at the same stop ({:?}, occurrence {}); the page asks one question per stop, so this one is never asked",
                    recording.id, q.at, q.occurrence
                );
                said.push(said_where(m, written, "at", Phrase::english(why)));
                continue;
            }
            let reached = predict::times_reached(&trace, &q.at);
            if reached < q.occurrence {
                said.push(never_asked(m, written, &q.at, q.occurrence, reached, &recording.id, lang));
            }
        }
    }
    said
}

/// A question its run never asks, said where it was written.
fn never_asked(
    m: &Manifest,
    written: Written,
    at: &str,
    occurrence: usize,
    reached: usize,
    id: &str,
    lang: &str,
) -> String {
    let label = format!("{at:?}");
    let (key, why) = match reached {
        0 => (
            "at",
            Phrase::english(format!(
                "{id}, {lang}: the run never reaches {label}, so the question is never asked"
            )),
        ),
        n => (
            "occurrence",
            Phrase::english(format!(
            "{id}, {lang}: the run reaches {label} {n} time(s), so occurrence {occurrence} is never asked"
        )),
        ),
    };
    said_where(m, written, key, why)
}

/// A problem of a question (its field `key`), said where it was written.
fn said_where(m: &Manifest, written: Written, key: &str, why: Phrase) -> String {
    match written {
        Written::Manifest(entry, j) => {
            m.said_problem(Problem::new(format!("{}.questions[{j}].{key}", entry.field), why))
        }
        Written::File((path, text), j) => {
            said_at(path, text, Problem::new(format!("questions[{j}].{key}"), why))
        }
    }
}
