//! How a session records a run: the doubles, the author's overrides of the
//! model and the process, and the budgets of one recording. A what-if
//! version runs on the scenario's own doubles (its replies are the edit),
//! the lesson's run on the overrides when there are some.

use super::doubles::{Doubles, Maker};
use crate::i18n::Lang;
use crate::protocol::{Model, Process};
use crate::run::{record, CheckRun, Checked, Trace};
use crate::scenario::Scenario;
use crate::trace::Limits;

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
        let (mut model, mut process) = self.doubles.for_scenario(lesson);
        if let Some(make) = &self.model {
            model = make();
        }
        if let Some(make) = &self.process {
            process = make();
        }
        record(lesson, model.as_mut(), process.as_mut(), self.limits)
    }

    /// An author's file's run for its checks, in `lang` on its own
    /// doubles: the lesson's run without overrides ([`Recorder::keep`]).
    pub fn checked(&self, scenario: &Scenario, lang: Lang) -> CheckRun {
        let scenario = scenario.localized(lang);
        let (mut model, mut process) = self.doubles.for_scenario(&scenario);
        CheckRun::record_on(&scenario, model.as_mut(), process.as_mut(), self.limits)
    }

    /// A changed version's run, on its own doubles.
    pub fn changed(&self, changed: &Scenario) -> Trace {
        let (mut model, mut process) = self.doubles.for_scenario(changed);
        record(changed, model.as_mut(), process.as_mut(), self.limits)
    }
}
