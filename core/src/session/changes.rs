//! What changed in a session since the page last drew it: the page draws
//! only that.

/// What changed since the page last drew the session.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Changes {
    /// Another trace: new scenario, new callbacks, or re-recorded.
    pub trace: bool,
    /// The current step (or started/not started).
    pub step: bool,
    pub breakpoints: bool,
    pub lang: bool,
    /// Scenarios added, or problems found.
    pub catalogue: bool,
    pub notices: bool,
    pub reveal: bool,
    /// Another listing (Python or Rust).
    pub listing: bool,
    /// Predictions: switched, a question asked or answered, the score.
    pub predict: bool,
    /// The setup panel's editors (a refused edit).
    pub setup: bool,
}

impl Changes {
    /// After a new recording: the trace, the step and the breakpoints' lines.
    pub fn recorded(&mut self) {
        (self.trace, self.step, self.breakpoints) = (true, true, true);
    }

    pub fn all() -> Changes {
        Changes {
            trace: true,
            step: true,
            breakpoints: true,
            lang: true,
            catalogue: true,
            notices: true,
            reveal: true,
            listing: true,
            predict: true,
            setup: true,
        }
    }

    pub fn any(&self) -> bool {
        *self != Changes::default()
    }
}
