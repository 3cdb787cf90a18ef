//! `import <log> --manifest <manifest.json>`: a logged conversation as a
//! scenario file of an author's own program (a manifest's `file`
//! scenario: `question`, `system`, `tools`, `max_calls`, `model`,
//! `tool_results`), drafted by the importer (`crate::import`), its tools
//! set against those the manifest's file scenarios declare, then — with
//! python3 — recorded by the same harness `record` uses and compared with
//! the log's messages. Nothing is written here: the caller prints it.

use super::harness::{Limits, Machine};
use super::manifest::{self, Entry, Manifest};
use super::{program, runs};
use crate::import::{self, Draft, Imported};
use crate::shown;
use agent_loop_core::i18n::Phrase;
use agent_loop_core::scenario::{is_id, Problem};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::Path;

/// The manifest, as the CLI read it.
pub struct ManifestFile<'a> {
    /// Its name as the CLI says it.
    pub name: &'a str,
    /// Its folder (the program's files are relative to it).
    pub dir: &'a Path,
    /// Its text.
    pub text: &'a str,
}

/// The log, as the CLI read it.
pub struct Log<'a> {
    /// Its text.
    pub text: &'a str,
    /// Its file name, for the notes.
    pub file_name: &'a str,
    /// Its path as the CLI says it, before each refusal.
    pub shown: &'a str,
    /// The scenario's id (the manifest entry the notes suggest).
    pub id: &'a str,
}

fn warning(at: &str, message: String) -> Problem {
    Problem::new(at, Phrase::english(message))
}

/// Import `log` as a scenario file of the manifest's program: the scenario
/// and its warnings, or every refusal as a line (the manifest's problems
/// as `record` says them, the log's after its path).
pub fn import_log(
    machine: &mut dyn Machine,
    manifest: ManifestFile,
    log: Log,
    limits: Limits,
) -> Result<Imported, Vec<String>> {
    let m = manifest::parse(manifest.name, manifest.text)?;
    if !is_id(log.id) {
        return Err(vec![format!(
            "{}: --id: {}: use letters, digits, '-' or '_' (1-64 chars)",
            log.shown,
            shown::text(&format!("{:?}", log.id))
        )]);
    }
    let tools = declared_tools(machine, &m, manifest.dir)?;
    let said = |problems: Vec<Problem>| -> Vec<String> {
        problems.iter().map(|p| format!("{}: {}", log.shown, shown::problem(p))).collect()
    };
    let mut draft = import::draft_for_program(log.text, log.file_name, &m.name, tools).map_err(said)?;
    let entry = Entry {
        field: "(import)".into(),
        id: log.id.to_string(),
        title: BTreeMap::from([
            ("zh".into(), format!("导入的对话：{}", log.file_name)),
            ("en".into(), format!("Imported conversation: {}", log.file_name)),
        ]),
        file: None,
        questions: Vec::new(),
    };
    let replay = verify(machine, &m, manifest.dir, &entry, &mut draft, limits)?;
    let mut notes = replay;
    let id = free_id(&m, log.id);
    notes.push(format!(
        "To record it with the program, save it as scenarios/{id}.json beside {} and add {} to its \
         \"scenarios\".",
        m.name,
        json!({"id": id, "title": entry.title, "file": format!("scenarios/{id}.json")})
    ));
    let mut scenario = std::mem::take(&mut draft.scenario);
    scenario["notes"] = draft.notes(&notes);
    Ok(Imported { scenario, warnings: draft.warnings })
}

/// `id`, or `id-imported` (then `-imported-2`, …) when the manifest has a
/// scenario of that id or a file of that name already: the advice to add
/// it must not overwrite one or repeat an id `record` would refuse.
fn free_id(m: &manifest::Manifest, id: &str) -> String {
    let taken = |c: &str| {
        let file = format!("scenarios/{c}.json");
        m.scenarios.iter().any(|e| e.id == c || e.file.as_deref() == Some(file.as_str()))
    };
    let mut candidate = id.to_string();
    for n in 1.. {
        if !taken(&candidate) {
            break;
        }
        candidate = if n == 1 { format!("{id}-imported") } else { format!("{id}-imported-{n}") };
    }
    candidate
}

/// The tools the manifest's file scenarios declare, each name once in the
/// order they first appear; `None` when none declares any. A file `record`
/// would refuse is refused here too, with the same words.
fn declared_tools(
    machine: &mut dyn Machine,
    m: &Manifest,
    dir: &Path,
) -> Result<Option<Vec<String>>, Vec<String>> {
    let (mut names, mut any, mut errors) = (Vec::<String>::new(), false, Vec::new());
    for entry in &m.scenarios {
        let Some(file) = &entry.file else { continue };
        let path = shown::path(&dir.join(file));
        let parsed =
            machine.read(&dir.join(file)).map_err(|why| vec![format!("{path}: {why}")]).and_then(|text| {
                runs::parse_file(&text.replace("\r\n", "\n"), entry)
                    .map_err(|problems| problems.into_iter().map(|p| format!("{path}: {p}")).collect())
            });
        let scenario = match parsed {
            Ok(scenario) => scenario,
            Err(said) => {
                errors.extend(said);
                continue;
            }
        };
        for tool in scenario.raw.get("tools").and_then(Value::as_array).into_iter().flatten() {
            any = true;
            if let Some(name) = tool["name"].as_str().filter(|n| !names.iter().any(|k| k == n)) {
                names.push(name.to_string());
            }
        }
    }
    match errors.is_empty() {
        true => Ok(any.then_some(names)),
        false => Err(errors),
    }
}

/// Record the drafted scenario with the program, in each of its
/// languages, and compare each run's record with the log's messages: the
/// notes' sentences; a difference, or a recording that could not be made,
/// is a warning. Without python3, only said.
fn verify(
    machine: &mut dyn Machine,
    m: &Manifest,
    dir: &Path,
    entry: &Entry,
    draft: &mut Draft,
    limits: Limits,
) -> Result<Vec<String>, Vec<String>> {
    if !machine.has_python() {
        let why = "not verified: python3 was not found, so the program was not recorded on this scenario \
                   (with python3 on the PATH, import records it and compares)";
        draft.warnings.push(warning("(replay)", why.into()));
        return Ok(vec![format!("Not verified: python3 was not found to record {}'s program.", m.name)]);
    }
    let text = import::to_pretty_json(&draft.scenario);
    let parsed = runs::parse_file(&text, entry).map_err(|problems| {
        problems.iter().map(|p| format!("(import): the scenario does not validate: {p}")).collect::<Vec<_>>()
    })?;
    let recorded = program::read(machine, m, dir).and_then(|program| {
        runs::runs_of(machine, m, &program, entry, Some(&parsed), limits)
            .map(|runs| runs.into_iter().map(|(listing, run)| (listing.lang, run)).collect::<Vec<_>>())
    });
    let runs = match recorded {
        Ok(runs) => runs,
        Err(said) => {
            let why = format!("not verified: the program could not be recorded on it: {}", said.join("; "));
            draft.warnings.push(warning("(replay)", why));
            return Ok(vec!["Not verified: the program could not be recorded on this scenario.".into()]);
        }
    };
    Ok(compared(draft, &runs, &m.name))
}

/// Each language's run set against the log: exact when its record is the
/// conversation (with the last answer, or without it for a loop that
/// stops on it without saving it). No exact run: a warning per run.
fn compared(draft: &mut Draft, runs: &[(&str, Value)], manifest: &str) -> Vec<String> {
    let record = |run: &Value| run["record"].as_array().cloned().unwrap_or_default();
    let differs = |run: &Value| {
        let record = record(run);
        let saved = draft.difference(&record, true);
        saved.filter(|_| draft.difference(&record, false).is_some())
    };
    let verdicts: Vec<(&str, Option<String>)> =
        runs.iter().map(|(lang, run)| (*lang, differs(run))).collect();
    let python = runs.first().and_then(|(_, run)| run["python"].as_str()).unwrap_or("?");
    let exact: Vec<&str> = verdicts.iter().filter(|(_, d)| d.is_none()).map(|(lang, _)| *lang).collect();
    let mut said = vec![format!("Recorded with {manifest}'s program by CPython {python} on this scenario.")];
    if !exact.is_empty() {
        let (runs, verb) = if exact.len() > 1 { ("runs", "reproduce") } else { ("run", "reproduces") };
        said.push(format!("The {} {runs} {verb} the recorded messages exactly.", exact.join(" and ")));
        for (lang, d) in &verdicts {
            if let Some(d) = d {
                said.push(format!("The {lang} run differs: {d}."));
            }
        }
        return said;
    }
    for (lang, d) in verdicts {
        let d = d.unwrap_or_default();
        draft.warnings.push(warning(&format!("(replay, {lang})"), d));
    }
    said
}
