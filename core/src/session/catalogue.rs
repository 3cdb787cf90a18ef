//! The scenario catalogue of one playground: the shipped scenarios and the
//! author's (`src=` files, `addScenario`), parsed or with their problems,
//! and which one a playground opens with.

use super::notice::Notice;
use crate::scenario::{load_shipped, Problem, Scenario};
use crate::vocab::Function;

/// The lesson's eight scenarios, in the lesson's order: the picker lists
/// them first.
pub const LESSON: [&str; 8] =
    ["request", "error", "success", "timeout", "reject", "report", "limit", "truncated"];

/// A scenario file as loaded: parsed, or its problems.
#[derive(Clone, Debug)]
pub struct Entry {
    pub file: String,
    pub parsed: Result<Scenario, Vec<Problem>>,
}

/// The file name of a scenario added through the API (`addScenario`), which
/// reports its problems to the caller itself.
pub const ADDED: &str = "(added scenario)";

/// The shipped scenarios, as catalogue entries.
pub fn shipped_entries() -> Vec<Entry> {
    load_shipped().into_iter().map(|(file, parsed)| Entry { file, parsed }).collect()
}

/// The index of the valid scenario with this id.
pub fn find(entries: &[Entry], id: &str) -> Option<usize> {
    entries.iter().position(|e| e.parsed.as_ref().is_ok_and(|p| p.id == id))
}

/// A file's scenario with the checks `check` adds to parsing: each of its
/// questions must sit on a line its run reaches.
pub fn checked(parsed: Result<Scenario, Vec<Problem>>) -> Result<Scenario, Vec<Problem>> {
    let scenario = parsed?;
    if scenario.questions.is_empty() {
        return Ok(scenario);
    }
    let problems = crate::predict::problems(&scenario, &crate::run::record_scenario(&scenario));
    if problems.is_empty() {
        Ok(scenario)
    } else {
        Err(problems)
    }
}

/// Add a parsed file to the catalogue; a valid scenario replaces one with
/// the same id (its index is returned), a broken file is listed with its
/// problems.
pub fn add_entry(
    entries: &mut Vec<Entry>,
    file: &str,
    parsed: Result<Scenario, Vec<Problem>>,
) -> Option<usize> {
    let same = match &parsed {
        Ok(s) => entries.iter().position(|e| e.parsed.as_ref().is_ok_and(|p| p.id == s.id)),
        Err(_) => None,
    };
    let entry = Entry { file: file.to_string(), parsed };
    match same {
        Some(i) => entries[i] = entry,
        None => entries.push(entry),
    }
    same
}

/// The entry to show first: the wanted id if it belongs to the wanted
/// function, else a lesson favourite of that function, else its first.
pub fn pick(entries: &[Entry], wanted: Option<&str>, function: Option<Function>) -> Option<usize> {
    fn valid(e: &Entry) -> Option<&Scenario> {
        e.parsed.as_ref().ok()
    }
    let fits = |s: &Scenario| function.is_none_or(|f| s.function == f);
    if let Some(w) = wanted {
        if let Some(i) = entries.iter().position(|e| valid(e).is_some_and(|s| s.id == w && fits(s))) {
            return Some(i);
        }
    }
    for id in ["report", "error", "request"] {
        if let Some(i) = entries.iter().position(|e| valid(e).is_some_and(|s| s.id == id && fits(s))) {
            return Some(i);
        }
    }
    entries.iter().position(|e| valid(e).is_some_and(fits))
}

/// What to tell the author when the scenario asked for is not the one
/// shown: another function's, or none of that id.
pub fn scenario_notice(
    entries: &[Entry],
    current: usize,
    wanted: &str,
    only: Option<Function>,
) -> Option<Notice> {
    let shown = entries[current].parsed.as_ref().map(|s| s.id.clone()).unwrap_or_default();
    let other_function = entries.iter().filter_map(|e| e.parsed.as_ref().ok()).find(|s| s.id == wanted);
    match other_function {
        Some(s) if only.is_some_and(|f| f != s.function) => Some(Notice {
            key: "notice_scenario_function",
            values: vec![
                ("value", wanted.to_string()),
                ("function", s.function.name().into()),
                ("shown", shown),
            ],
        }),
        _ if shown != wanted => Some(Notice {
            key: "notice_scenario",
            values: vec![("value", wanted.to_string()), ("shown", shown)],
        }),
        _ => None,
    }
}
