//! Where a recording's model and process come from: the Rust fixture
//! doubles, or the author's (JavaScript callbacks in the page).

use crate::protocol::{Model, Process};
use crate::scenario::Scenario;

/// Where a recording's model and process come from.
pub trait Doubles {
    /// A fresh model and process for one recording of `scenario`.
    fn for_scenario(&self, scenario: &Scenario) -> (Box<dyn Model>, Box<dyn Process>);
}

/// The Rust fixture doubles (`Scenario::doubles`).
pub struct FixtureDoubles;

impl Doubles for FixtureDoubles {
    fn for_scenario(&self, scenario: &Scenario) -> (Box<dyn Model>, Box<dyn Process>) {
        let (model, process) = scenario.doubles();
        (Box::new(model), Box::new(process))
    }
}

/// Makes a fresh author-supplied model (or process) for each recording.
pub type Maker<T> = Box<dyn Fn() -> Box<T>>;

/// The author's model or process (`None`: back to the scenario's double).
pub enum Override {
    Model(Option<Maker<dyn Model>>),
    Process(Option<Maker<dyn Process>>),
}
