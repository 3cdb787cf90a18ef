//! The scenario catalogue of one playground: the shipped scenarios and the
//! author's (`src=` files, `addScenario`), parsed or with their problems,
//! and which one a playground opens with.

use super::notice::{unreadable_file, Notice, Unreadable};
use super::scope::Scope;
use crate::pack::Refusal;
use crate::run::Checked;
use crate::scenario::{load_shipped, Problem, Scenario};

/// A scenario file as loaded: parsed, or its problems.
#[derive(Clone, Debug)]
pub struct Entry {
    pub file: String,
    pub parsed: Result<Scenario, Vec<Problem>>,
    /// What `check` would warn about in a valid file an author added (its
    /// near misses; the shipped ones have none they do not expect).
    pub warnings: Vec<Problem>,
}

/// A file read as a scenario, or its problems.
pub type Parsed = Result<Scenario, Vec<Problem>>;

/// How an author's file is recorded for its checks: on the page's
/// doubles, in the page's language, within its budgets — the run the page
/// then shows of it, so that a file is recorded once for both.
pub use super::findings::Check;

/// The file name of a scenario added through the API (`addScenario`), which
/// reports its problems to the caller itself.
pub const ADDED: &str = "(added scenario)";

/// The shipped scenarios, as catalogue entries.
fn shipped_entries() -> Vec<Entry> {
    load_shipped().into_iter().map(|(file, parsed)| Entry { file, parsed, warnings: Vec::new() }).collect()
}

/// The scenarios of one playground and the one on screen.
#[derive(Clone, Debug)]
pub struct Catalogue {
    entries: Vec<Entry>,
    current: usize,
    only: Scope,
    /// The scenario asked for is in no file here while long files are
    /// being recorded (in the page's worker): said once they are all in,
    /// if none of them holds it ([`Catalogue::arrived`]).
    held: Option<Notice>,
}

/// A catalogue as opened, and what the author should know about it.
pub struct Opened {
    pub catalogue: Catalogue,
    /// Files that could not be read.
    pub unreadable: Vec<Notice>,
    /// The scenario asked for is not the one shown.
    pub mismatch: Option<Notice>,
    /// The run of the file shown first, when it is an author's.
    pub checked: Option<Checked>,
}

impl Catalogue {
    /// Open the catalogue: the shipped scenarios, a recorded program's
    /// (`program-src`: read from `recorded.0`) and the author's files
    /// (`src=`: each read or why not), the entry shown first (the wanted id
    /// if it fits the scope `only`, see [`pick`]).
    pub fn open(
        files: &[(String, Result<String, Unreadable>)],
        recorded: (&str, Vec<Scenario>),
        wanted: Option<&str>,
        only: Scope,
        check: Check,
    ) -> Result<Opened, Refusal> {
        let mut entries = shipped_entries();
        for scenario in recorded.1 {
            let file = recorded.0.to_string();
            entries.push(Entry { file, parsed: Ok(scenario), warnings: Vec::new() });
        }
        let mut unreadable = Vec::new();
        let mut runs = Vec::new();
        for (file, text) in files {
            match text {
                Ok(text) => {
                    let parsed = super::ahead::parsed(text);
                    // (its checks read the program's texts)
                    if let Some(pack) = parsed.as_ref().ok().and_then(pack_of) {
                        return Err(crate::pack::needed(pack));
                    }
                    let (entry, run) = entry(file, parsed, Some(text), check);
                    runs.extend(run);
                    add_entry(&mut entries, entry);
                }
                Err((why, detail)) => unreadable.push(unreadable_file(file, why, detail)),
            }
        }
        // A scope no scenario fits (function="run_loop" program="lesson_two")
        // is said, and every scenario is offered.
        let (current, only, empty) = match pick(&entries, wanted, only) {
            Some(current) => (current, only, None),
            None => {
                let current = pick(&entries, wanted, Scope::default()).ok_or("no valid scenario to show")?;
                let value = [only.function.map(|f| f.name()), only.program].into_iter().flatten();
                let value = value.collect::<Vec<_>>().join(" + ");
                (
                    current,
                    Scope::default(),
                    Some(Notice { key: "notice_scope_empty", values: vec![("value", value)] }),
                )
            }
        };
        let mismatch = empty.or_else(|| wanted.and_then(|w| scenario_notice(&entries, current, w, only)));
        let catalogue = Catalogue { entries, current, only, held: None };
        let shown = &catalogue.entries[current];
        let checked = runs
            .into_iter()
            .rev()
            .find(|run| shown.file == run.file && shown.parsed.as_ref().is_ok_and(|s| s.id == run.id));
        // A program whose texts have not arrived is never shown: the page
        // fetches its pack and starts again (crate::pack).
        if let Some(pack) = catalogue.missing_pack(None) {
            return Err(crate::pack::needed(pack));
        }
        Ok(Opened { catalogue, unreadable, mismatch, checked })
    }

    /// Every file, shipped first, parsed or with its problems.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The index of the entry on screen in [`Catalogue::entries`].
    pub fn current(&self) -> usize {
        self.current
    }

    /// The scenarios the author limited this playground to.
    pub fn scope(&self) -> Scope {
        self.only
    }

    /// The scenario of the entry on screen.
    pub fn shown(&self) -> Option<&Scenario> {
        self.entries.get(self.current).and_then(|e| e.parsed.as_ref().ok())
    }

    /// The valid scenario [`Catalogue::select`] would put on screen for `id`.
    pub fn valid(&self, id: &str) -> Option<&Scenario> {
        self.entries.get(find(&self.entries, id, self.only)?)?.parsed.as_ref().ok()
    }

    /// Keep back `mismatch` (the scenario asked for is not here) while the
    /// long files `recording` names are recorded: one of them may hold it.
    pub fn hold(&mut self, mismatch: &mut Option<Notice>, recording: &str) {
        let missing = mismatch.as_ref().is_some_and(|n| n.key == "notice_scenario");
        if missing && !recording.trim().is_empty() {
            self.held = mismatch.take();
        }
    }

    /// A long file come after the opening is being recorded elsewhere
    /// (`recording`, its notice): said until it is added, and that the
    /// scenario asked for is not here is kept back meanwhile.
    pub fn recording(&mut self, notices: &mut Vec<Notice>, recording: Notice) {
        if let Some(i) = notices.iter().position(|n| n.key == "notice_scenario") {
            let said = notices.remove(i);
            self.held = self.held.take().or(Some(said));
        }
        if !notices.contains(&recording) {
            notices.push(recording);
        }
    }

    /// `file` is in: the notice that it was being recorded goes, and once
    /// none is, the scenario asked for is said missing if no file held it.
    /// Whether the notices changed.
    pub fn arrived(&mut self, notices: &mut Vec<Notice>, file: &str) -> bool {
        let gone = super::notice::arrived(notices, file);
        if notices.iter().any(|n| n.key == "notice_src_recording") {
            return gone;
        }
        let Some(held) = self.held.take() else { return gone };
        let id = held.values.iter().find(|(k, _)| *k == "value").map_or("", |(_, v)| v.as_str());
        let missing = find(&self.entries, id, self.only).is_none();
        notices.extend(missing.then_some(held));
        gone || missing
    }

    /// The file of the entry on screen.
    pub fn shown_file(&self) -> &str {
        self.entries.get(self.current).map_or("", |e| &e.file)
    }

    /// The pack the program of the valid scenario `id` (the one on screen
    /// when `None`) still needs before it can be shown (`crate::pack`).
    pub fn missing_pack(&self, id: Option<&str>) -> Option<&'static str> {
        let index = match id {
            Some(id) => find(&self.entries, id, self.only)?,
            None => self.current,
        };
        pack_of(self.entries.get(index)?.parsed.as_ref().ok()?)
    }

    /// Put the valid scenario with this id on screen (refused while its
    /// program's pack has not arrived).
    pub fn select(&mut self, id: &str) -> Result<(), Refusal> {
        if let Some(pack) = self.missing_pack(Some(id)) {
            return Err(crate::pack::needed(pack));
        }
        self.read_arrived();
        self.current =
            find(&self.entries, id, self.only).ok_or_else(|| format!("unknown scenario {id:?}"))?;
        Ok(())
    }

    /// The shipped scenarios the picker listed while their pack was on its
    /// way ([`Scenario::waiting`]), read from the pack now that it is here.
    fn read_arrived(&mut self) {
        let arrived = |e: &Entry| {
            e.parsed.as_ref().is_ok_and(Scenario::is_waiting)
                && crate::scenario::waiting_for(&e.file).is_none()
        };
        if !self.entries.iter().any(arrived) {
            return;
        }
        let shipped = load_shipped();
        for e in self.entries.iter_mut().filter(|e| arrived(e)) {
            if let Some((_, parsed)) = shipped.iter().find(|(file, _)| *file == e.file) {
                e.parsed = parsed.clone();
            }
        }
    }

    /// Add a scenario read from `file` (from `text`, when there is one: its
    /// warnings name their lines), with the checks `check` adds: a valid
    /// one replaces the one with its id. Returns its id, or its problems
    /// naming the file; whether it replaced the one on screen; and the run
    /// its checks recorded.
    pub fn add(
        &mut self,
        file: &str,
        parsed: Result<Scenario, Vec<Problem>>,
        text: Option<&str>,
        check: Check,
    ) -> (Result<String, Refusal>, bool, Option<Checked>) {
        // (its checks read the program's texts: the page fetches them first)
        if let Some(pack) = parsed.as_ref().ok().and_then(pack_of) {
            return (Err(crate::pack::needed(pack)), false, None);
        }
        let (entry, run) = entry(file, parsed, text, check);
        let outcome = match &entry.parsed {
            Ok(scenario) => Ok(scenario.id.clone()),
            Err(problems) => {
                Err(problems.iter().map(|p| format!("{file}: {p}")).collect::<Vec<_>>().join("\n").into())
            }
        };
        let (replaced, stale) = add_entry(&mut self.entries, entry);
        if stale.is_some_and(|j| j < self.current) {
            self.current -= 1;
        }
        (outcome, replaced == Some(self.current), run)
    }
}

/// The pack a scenario's program still needs (`crate::pack`), if any.
fn pack_of(scenario: &Scenario) -> Option<&'static str> {
    let program = crate::programs::of(scenario.function);
    program.pack.filter(|_| !program.loaded())
}

/// The index of the valid scenario with this id: the one the scope
/// offers first (a recorded program's scenario may share its id with a
/// built-in one).
fn find(entries: &[Entry], id: &str, scope: Scope) -> Option<usize> {
    let with_id =
        |e: &Entry, fits: bool| e.parsed.as_ref().is_ok_and(|p| p.id == id && (!fits || scope.fits(p)));
    (entries.iter().position(|e| with_id(e, true))).or_else(|| entries.iter().position(|e| with_id(e, false)))
}

/// An author's file as an entry: with every finding `check` has of it
/// ([`super::findings`]: its problems, those of questions its run never
/// asks too, and its warnings, even beside problems), at their lines of
/// `text`, when there is one. They read one recording (`check`), which
/// keeps to the page's budgets: a scenario of 50,000 tool calls is checked
/// as far as one recording may go. The recording of a valid file is
/// returned for its display.
fn entry(file: &str, parsed: Parsed, text: Option<&str>, check: Check) -> (Entry, Option<Checked>) {
    let found = super::findings::of(parsed, text, check);
    let run = match (&found.parsed, found.run) {
        (Ok(scenario), Some(run)) => {
            Some(Checked { file: file.to_string(), id: scenario.id.clone(), trace: run.trace })
        }
        _ => None,
    };
    (Entry { file: file.to_string(), parsed: found.parsed, warnings: found.warnings }, run)
}

/// Add a parsed file to the catalogue; a valid scenario replaces one with
/// the same id (its index is returned), a broken file is listed with its
/// problems; the file's problems from before go (their index is returned).
fn add_entry(entries: &mut Vec<Entry>, entry: Entry) -> (Option<usize>, Option<usize>) {
    // The same file read again (or addScenario called again): its problems
    // from before are gone, whatever it says now.
    let stale = entries.iter().position(|e| e.file == entry.file && e.parsed.is_err());
    if let Some(j) = stale {
        entries.remove(j);
    }
    let same = match &entry.parsed {
        Ok(s) => entries.iter().position(|e| e.parsed.as_ref().is_ok_and(|p| p.id == s.id)),
        Err(_) => None,
    };
    match same {
        Some(i) => entries[i] = entry,
        None => entries.push(entry),
    }
    (same, stale)
}

/// The entry to show first: the wanted id if it is in the scope, else a
/// lesson favourite in it, else the first scenario in it.
fn pick(entries: &[Entry], wanted: Option<&str>, scope: Scope) -> Option<usize> {
    fn valid(e: &Entry) -> Option<&Scenario> {
        e.parsed.as_ref().ok()
    }
    let fits = |s: &Scenario| scope.fits(s);
    if let Some(w) = wanted {
        if let Some(i) = entries.iter().position(|e| valid(e).is_some_and(|s| s.id == w && fits(s))) {
            return Some(i);
        }
    }
    // (a lesson's favourite, not a recorded program's scenario of that id)
    for program in crate::programs::ALL {
        let its = |s: &Scenario| program.functions.contains(&s.function);
        for id in program.opens {
            let found =
                entries.iter().position(|e| valid(e).is_some_and(|s| s.id == *id && fits(s) && its(s)));
            if found.is_some() {
                return found;
            }
        }
    }
    entries.iter().position(|e| valid(e).is_some_and(fits))
}

/// What to tell the author when the scenario asked for is not the one
/// shown: another function's or program's, or none of that id.
fn scenario_notice(entries: &[Entry], current: usize, wanted: &str, only: Scope) -> Option<Notice> {
    let shown = entries[current].parsed.as_ref().map(|s| s.id.clone()).unwrap_or_default();
    // (the one the scope offers first: a recorded program's may share a built-in one's id)
    let other_function = find(entries, wanted, only).and_then(|i| entries[i].parsed.as_ref().ok());
    match other_function {
        Some(s) if only.program.is_some() && !only.fits(s) && only.function.is_none() => Some(Notice {
            key: "notice_scenario_program",
            values: vec![
                ("value", wanted.to_string()),
                ("program", crate::programs::of(s.function).name.into()),
                ("shown", shown),
            ],
        }),
        Some(s) if !only.fits(s) => Some(Notice {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A catalogue whose first scenario of a program with a pack is only
    /// listed (as the page's module has it before the pack: natively every
    /// text is compiled in, so the pack counts as arrived): its id and file.
    fn listed_only() -> (Catalogue, String, String) {
        let mut entries = shipped_entries();
        let packed = crate::programs::ALL.iter().find(|p| p.pack.is_some()).expect("a program with a pack");
        let id = packed.scenarios[0];
        let at = entries.iter().position(|e| e.parsed.as_ref().is_ok_and(|s| s.id == id)).expect(id);
        let (file, function) = (entries[at].file.clone(), entries[at].parsed.as_ref().unwrap().function);
        let title = r#"{"zh":"只列出","en":"Listed only"}"#;
        entries[at].parsed = Scenario::waiting(id, function.name(), title);
        (Catalogue { entries, current: 0, only: Scope::default(), held: None }, id.to_string(), file)
    }

    #[test]
    fn a_listed_scenario_is_read_from_its_pack_when_chosen() {
        let (mut c, id, file) = listed_only();
        let listed = c.entries.iter().find(|e| e.file == file).unwrap();
        let listed = listed.parsed.as_ref().unwrap();
        assert!(listed.is_waiting() && listed.model.is_empty());
        assert_eq!((listed.title("zh"), listed.title("en")), ("只列出", "Listed only"));
        c.select(&id).unwrap();
        let shown = c.shown().unwrap();
        assert_eq!(shown.id, id);
        assert!(!shown.is_waiting() && !shown.model.is_empty(), "the pack's scenario, with its replies");
        assert_eq!(c.entries[c.current].file, file);
    }

    #[test]
    fn a_listed_scenario_of_an_unknown_function_is_a_problem() {
        let problems = Scenario::waiting("x", "no_such_function", "{}").unwrap_err();
        assert_eq!(problems[0].field, "function");
    }
}
