//! Which scenarios a playground offers: the `function` and `program`
//! attributes, read as one scope.

use crate::scenario::Scenario;
use crate::vocab::Function;

/// Which scenarios a playground offers (the `function` and `program`
/// attributes): those of one function, of one program, or all.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Scope {
    pub function: Option<Function>,
    /// A program's name (`lesson_two`).
    pub program: Option<&'static str>,
}

impl Scope {
    /// Whether scenarios of `function` are offered.
    /// (A loop of a program fits the other loops it runs beside: a
    /// lesson-two scenario is shown through `function="stop_on_text"`.)
    pub fn has(&self, function: Function) -> bool {
        self.function.is_none_or(|f| f == function || crate::programs::beside(f, function))
            && self.program.is_none_or(|p| crate::programs::of(function).name == p)
    }

    /// Whether this scenario is offered.
    pub fn fits(&self, scenario: &Scenario) -> bool {
        self.has(scenario.function)
    }
}
