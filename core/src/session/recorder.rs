//! How a session records a run: the doubles, the author's overrides of the
//! model and the process, and the budgets of one recording. A what-if
//! version runs on the scenario's own doubles (its replies are the edit),
//! the lesson's run on the overrides when there are some.
//!
//! A run may also be recorded elsewhere — by another instance of the
//! module, in the page's worker — and given here as bytes ([`give`]): a
//! recording of exactly that scenario, in that language, under the same
//! limits, on the page's own doubles, is then read back instead of run
//! again. The key ([`run_key`]) holds all four, so a run given for
//! anything else is never shown.

use super::doubles::{Doubles, Maker};
use crate::i18n::Lang;
use crate::pack::Refusal;
use crate::preview::{content_hash, Fnv};
use crate::protocol::{Model, Process};
use crate::run::{record, CheckRun, Checked, Trace};
use crate::scenario::Scenario;
use crate::trace::{Limits, Malformed};
use crate::wire::{self, Reading};
use std::cell::RefCell;

/// Runs recorded elsewhere kept at once (a file in each language the
/// page has, and one more); the oldest goes first.
const KEPT: usize = 4;

/// A run given: its key, its bytes, and the run being read back as it
/// came, a slice at a time ([`read_more`]), for the display that follows;
/// later ones read the bytes again.
struct Given {
    key: u64,
    bytes: Vec<u8>,
    reading: Option<Reading>,
}

impl Given {
    fn reading(&self) -> bool {
        self.reading.as_ref().is_some_and(|r| !r.is_read())
    }
}

thread_local! {
    /// Every playground of the page reads them.
    static GIVEN: RefCell<Vec<Given>> = const { RefCell::new(Vec::new()) };
    /// Runs read back whole (or what was left of them) in one call.
    static AT_ONCE: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// How many runs given were read back whole, or the rest of them, in the
/// call that showed them instead of a slice per task: the work a test
/// counts (a run shown again after its reading is 0 here).
pub fn read_at_once() -> u64 {
    AT_ONCE.with(std::cell::Cell::get)
}

/// What names a recording of `scenario` (localized) under `limits`: its
/// content, its language and the limits it was recorded under.
pub fn run_key(scenario: &Scenario, limits: &Limits) -> u64 {
    let millis = limits.millis.map_or(u64::MAX, f64::to_bits);
    let bytes = limits.bytes.map_or(u64::MAX, |b| b as u64);
    let mut h = Fnv::new();
    h.bytes(scenario.lang.code().as_bytes());
    for n in [limits.steps as u64, millis, bytes] {
        h.bytes(&n.to_le_bytes());
    }
    // (the content walked as it is: no 3 MB string written)
    content_hash(&scenario.raw, &mut h);
    h.0
}

/// Keep a run recorded elsewhere ([`record_elsewhere`]'s bytes), to be
/// read back now when `read_now` — a slice at each [`read_more`], each in
/// a task of its own before the one that shows it — else when it is
/// shown: bytes that are not such a run are refused.
pub fn give(bytes: Vec<u8>, read_now: bool) -> Result<(), Malformed> {
    let key = wire::key(&bytes)?;
    let reading = read_now.then(Reading::default);
    GIVEN.with(|given| {
        let mut given = given.borrow_mut();
        given.retain(|g| g.key != key);
        if given.len() >= KEPT {
            given.remove(0);
        }
        given.push(Given { key, bytes, reading });
    });
    Ok(())
}

/// How many runs given are read whole and wait to be shown (each is
/// about 145 bytes a step: one at a time).
pub fn runs_read() -> usize {
    GIVEN.with(|given| {
        given.borrow().iter().filter(|g| g.reading.as_ref().is_some_and(Reading::is_read)).count()
    })
}

/// One slice more of a run given to be read now ([`wire::SLICE_STEPS`]
/// steps, or its locals, or its record): true while one is still being
/// read. A run whose bytes do not read is dropped (its file is recorded
/// here when it is shown).
pub fn read_more() -> bool {
    GIVEN.with(|given| {
        let mut given = given.borrow_mut();
        if let Some(i) = given.iter().position(Given::reading) {
            let Given { bytes, reading, .. } = &mut given[i];
            if reading.as_mut().is_some_and(|r| r.advance(bytes).is_err()) {
                given.remove(i);
            }
        }
        given.iter().any(Given::reading)
    })
}

/// Whether the run given for `scenario` (localized) under `limits` is
/// still bytes: if so its reading starts, a slice at each [`read_more`]
/// (each in a task of its own), and the caller shows it once they are
/// read (the session refuses meanwhile: `Refusal::Reading`).
pub fn to_read(scenario: &Scenario, limits: &Limits) -> bool {
    let key = run_key(scenario, limits);
    GIVEN.with(|given| {
        let mut given = given.borrow_mut();
        // (a run read for a show that did not happen is let go: one
        // decoded run at a time, besides the one on screen)
        for other in
            given.iter_mut().filter(|g| g.key != key && g.reading.as_ref().is_some_and(Reading::is_read))
        {
            other.reading = None;
        }
        let Some(found) = given.iter_mut().find(|g| g.key == key) else { return false };
        if found.reading.as_ref().is_some_and(Reading::is_read) {
            return false;
        }
        found.reading.get_or_insert_with(Reading::default);
        true
    })
}

/// The run given for `scenario` (localized) under `limits`, read back:
/// one whose bytes do not read, or that is not a run of this scenario in
/// its language, is dropped.
fn given(scenario: &Scenario, limits: &Limits) -> Option<CheckRun> {
    let key = run_key(scenario, limits);
    let read = GIVEN.with(|given| {
        let mut given = given.borrow_mut();
        let found = given.iter_mut().find(|g| g.key == key)?;
        if !found.reading.as_ref().is_some_and(Reading::is_read) {
            AT_ONCE.with(|n| n.set(n.get() + 1));
        }
        Some(found.reading.take().unwrap_or_default().finish(&found.bytes))
    })?;
    let same = |run: &CheckRun| {
        let t = &run.trace;
        (t.scenario.as_str(), t.lang, t.function) == (scenario.id.as_str(), scenario.lang, scenario.function)
    };
    let run = read.ok().filter(same);
    if run.is_none() {
        GIVEN.with(|given| given.borrow_mut().retain(|g| g.key != key));
    }
    run
}

/// An author's file's run for its checks and display, recorded here for
/// another instance of the module ([`give`]): `None` when the scenario's
/// program, or the language's table, is in a pack this instance does not
/// have.
pub fn record_elsewhere(
    doubles: &dyn Doubles,
    scenario: &Scenario,
    lang: Lang,
    limits: Limits,
) -> Option<Vec<u8>> {
    // (a language whose table has not arrived would say "?" for its words)
    let program = crate::programs::of(scenario.function);
    if program.pack.is_some() && !program.loaded() || lang.waiting().is_some() {
        return None;
    }
    let scenario = scenario.localized(lang);
    let (mut model, mut process) = doubles.for_scenario(&scenario);
    let run = CheckRun::record_on(&scenario, model.as_mut(), process.as_mut(), limits);
    Some(wire::write(&run, run_key(&scenario, &limits)))
}

/// The doubles, the overrides and the budgets.
pub struct Recorder {
    doubles: Box<dyn Doubles>,
    pub model: Option<Maker<dyn Model>>,
    pub process: Option<Maker<dyn Process>>,
    pub limits: Limits,
    /// The run an author's file was just recorded for its checks, in a
    /// language: the next lesson's run of that file in that language on
    /// its own doubles is this one.
    fresh: Option<(Checked, Lang)>,
}

impl Recorder {
    pub fn new(doubles: Box<dyn Doubles>, limits: Limits) -> Recorder {
        Recorder { doubles, model: None, process: None, limits, fresh: None }
    }

    /// Keep the run of an author's file recorded for its checks in `lang`
    /// (`checked`), for its display; the one kept before goes.
    pub fn keep(&mut self, run: Option<Checked>, lang: Lang) {
        self.fresh = run.map(|run| (run, lang));
    }

    /// The lesson's run of `lesson` (read from `file`): on the author's
    /// model and process where given, on the scenario's doubles otherwise
    /// — the run its checks just recorded, when it is kept.
    pub fn lesson(&mut self, lesson: &Scenario, file: &str) -> Trace {
        if let Some((run, lang)) = self.fresh.take() {
            let own = self.model.is_none() && self.process.is_none();
            if own && (lang, file, run.id.as_str()) == (lesson.lang, run.file.as_str(), lesson.id.as_str()) {
                return run.trace;
            }
        }
        let own = self.model.is_none() && self.process.is_none();
        if let Some(run) = own.then(|| given(lesson, &self.limits)).flatten() {
            return run.trace;
        }
        let (mut model, mut process) = self.doubles.for_scenario(lesson);
        if let Some(make) = &self.model {
            model = make();
        }
        if let Some(make) = &self.process {
            process = make();
        }
        record(lesson, model.as_mut(), process.as_mut(), self.limits)
    }

    /// Refused while the lesson's run of `lesson` in `lang` is a run given
    /// that is still bytes: its reading starts ([`to_read`]), and the page
    /// asks again once it is read (no task of its reads a long run whole).
    pub fn must_read(&self, lesson: Option<&Scenario>, lang: Lang) -> Result<(), Refusal> {
        let own = self.model.is_none() && self.process.is_none();
        // (the run its checks just read is shown as it is: [`Recorder::lesson`])
        let fresh =
            |l: &Scenario| self.fresh.as_ref().is_some_and(|(run, at)| (*at, &run.id) == (lang, &l.id));
        self.checks_read(lesson.filter(|l| own && !fresh(l)), lang)
    }

    /// Refused while the run given for `scenario`'s checks in `lang` is
    /// still bytes ([`Recorder::checked`] would read it whole): its reading
    /// starts, as [`Recorder::must_read`]'s does.
    pub fn checks_read(&self, scenario: Option<&Scenario>, lang: Lang) -> Result<(), Refusal> {
        let any = GIVEN.with(|given| !given.borrow().is_empty());
        match scenario {
            Some(s) if any && to_read(&s.localized(lang), &self.limits) => Err(Refusal::Reading),
            _ => Ok(()),
        }
    }

    /// An author's file's run for its checks, in `lang` on its own
    /// doubles: the lesson's run without overrides ([`Recorder::keep`]).
    pub fn checked(&self, scenario: &Scenario, lang: Lang) -> CheckRun {
        let scenario = scenario.localized(lang);
        if let Some(run) = given(&scenario, &self.limits) {
            return run;
        }
        let (mut model, mut process) = self.doubles.for_scenario(&scenario);
        CheckRun::record_on(&scenario, model.as_mut(), process.as_mut(), self.limits)
    }

    /// A changed version's run, on its own doubles.
    pub fn changed(&self, changed: &Scenario) -> Trace {
        let (mut model, mut process) = self.doubles.for_scenario(changed);
        record(changed, model.as_mut(), process.as_mut(), self.limits)
    }
}
