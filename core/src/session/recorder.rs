//! How a session records a run: the doubles, the author's overrides of the
//! model and the process, and the budgets of one recording. A what-if
//! version runs on the scenario's own doubles (its replies are the edit),
//! the lesson's run on the overrides when there are some.

use super::doubles::{Doubles, Maker};
use crate::protocol::{Model, Process};
use crate::run::{record, Trace};
use crate::scenario::Scenario;
use crate::trace::Limits;

/// The doubles, the overrides and the budgets.
pub struct Recorder {
    doubles: Box<dyn Doubles>,
    pub model: Option<Maker<dyn Model>>,
    pub process: Option<Maker<dyn Process>>,
    pub limits: Limits,
}

impl Recorder {
    pub fn new(doubles: Box<dyn Doubles>, limits: Limits) -> Recorder {
        Recorder { doubles, model: None, process: None, limits }
    }

    /// The lesson's run of `lesson`: on the author's model and process
    /// where given, on the scenario's doubles otherwise.
    pub fn lesson(&self, lesson: &Scenario) -> Trace {
        let (mut model, mut process) = self.doubles.for_scenario(lesson);
        if let Some(make) = &self.model {
            model = make();
        }
        if let Some(make) = &self.process {
            process = make();
        }
        record(lesson, model.as_mut(), process.as_mut(), self.limits)
    }

    /// A changed version's run, on its own doubles.
    pub fn changed(&self, changed: &Scenario) -> Trace {
        let (mut model, mut process) = self.doubles.for_scenario(changed);
        record(changed, model.as_mut(), process.as_mut(), self.limits)
    }
}
