//! Breakpoints and stepping over a recorded trace. Pure: no DOM, no wasm.
//!
//! The trace is already complete when the learner steps, so every command is
//! a search for the next position — nothing is ever re-run. This is the one
//! breakpoint model; the page, the custom element and the tests all use it.

use crate::lesson;
use crate::trace::{Event, Step};
use crate::vocab::Function;
use std::collections::BTreeSet;

/// A control the learner can press.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command {
    /// Go to the end.
    Run,
    /// Restart and stop at the first breakpoint (the first line when none).
    Debug,
    /// Next step in this frame or an outer one (nested calls run through).
    Step,
    /// Next step, entering nested calls.
    StepInto,
    /// Run until this frame has returned.
    StepOut,
    /// Next breakpoint hit, or the end.
    Continue,
    /// One step back.
    Back,
    /// Back to the start, not started.
    Reset,
}

impl Command {
    pub const ALL: [Command; 8] = [
        Command::Run,
        Command::Debug,
        Command::Step,
        Command::StepInto,
        Command::StepOut,
        Command::Continue,
        Command::Back,
        Command::Reset,
    ];

    /// Names as used by `data-command` and `el.command(name)`.
    pub fn name(self) -> &'static str {
        match self {
            Command::Run => "run",
            Command::Debug => "debug",
            Command::Step => "step",
            Command::StepInto => "stepInto",
            Command::StepOut => "stepOut",
            Command::Continue => "continue",
            Command::Back => "back",
            Command::Reset => "reset",
        }
    }

    pub fn from_name(name: &str) -> Option<Command> {
        Command::ALL.into_iter().find(|c| c.name() == name)
    }
}

/// Where the learner is in a trace, and which lines they marked.
#[derive(Clone, Debug, Default)]
pub struct Debugger {
    position: usize,
    started: bool,
    breakpoints: BTreeSet<(Function, u32)>,
}

impl Debugger {
    pub fn new() -> Debugger {
        Debugger::default()
    }

    /// Index of the current step.
    pub fn position(&self) -> usize {
        self.position
    }

    /// False before the first Run/Debug/Step and after Reset.
    pub fn started(&self) -> bool {
        self.started
    }

    pub fn breakpoints(&self) -> impl Iterator<Item = (Function, u32)> + '_ {
        self.breakpoints.iter().copied()
    }

    pub fn has_breakpoint(&self, function: Function, line: u32) -> bool {
        self.breakpoints.contains(&(function, line))
    }

    /// Flip a breakpoint; returns whether it is now set.
    pub fn toggle(&mut self, function: Function, line: u32) -> bool {
        if self.breakpoints.remove(&(function, line)) {
            false
        } else {
            self.breakpoints.insert((function, line));
            true
        }
    }

    pub fn set_breakpoint(&mut self, function: Function, line: u32, on: bool) {
        if on {
            self.breakpoints.insert((function, line));
        } else {
            self.breakpoints.remove(&(function, line));
        }
    }

    /// Does the learner's program stop at step `i`?
    pub fn hits(&self, step: &Step) -> bool {
        matches!(step.event, Event::Line | Event::Call)
            && self.breakpoints.contains(&(step.function, lesson::line(step)))
    }

    /// Indices of every step that hits a breakpoint (timeline ticks).
    pub fn hit_positions(&self, steps: &[Step]) -> Vec<usize> {
        if self.breakpoints.is_empty() {
            return Vec::new();
        }
        steps.iter().enumerate().filter(|(_, s)| self.hits(s)).map(|(i, _)| i).collect()
    }

    /// Jump to a position (timeline slider).
    pub fn seek(&mut self, position: usize, steps: &[Step]) {
        self.position = position.min(steps.len().saturating_sub(1));
        self.started = true;
    }

    /// Where Debug stops: the first breakpoint hit, or the first line when
    /// no breakpoint is set (the end when breakpoints are set but never hit).
    fn first_stop(&self, steps: &[Step]) -> usize {
        let last = steps.len().saturating_sub(1);
        let found = if self.breakpoints.is_empty() {
            steps.iter().position(|s| s.event == Event::Line)
        } else {
            steps.iter().position(|s| self.hits(s))
        };
        found.unwrap_or(last)
    }

    /// Apply a command; returns the new position.
    pub fn command(&mut self, command: Command, steps: &[Step]) -> usize {
        let last = steps.len().saturating_sub(1);
        let here = self.position.min(last);
        let depth = steps.get(here).map_or(0, |s| s.depth);
        let next_where = |from: usize, ok: &dyn Fn(&Step) -> bool| {
            steps.iter().enumerate().skip(from).find(|(_, s)| ok(s)).map_or(last, |(i, _)| i)
        };
        let fresh = !self.started;
        // Every command starts the run but Reset, which goes back to before it.
        self.started = command != Command::Reset;
        self.position = match command {
            Command::Reset => 0,
            Command::Run => last,
            Command::Debug => self.first_stop(steps),
            Command::Continue if fresh => self.first_stop(steps),
            Command::Step | Command::StepInto | Command::StepOut if fresh => 0,
            Command::Continue => next_where(here + 1, &|s| self.hits(s)),
            Command::StepInto => (here + 1).min(last),
            Command::Step => next_where(here + 1, &|s| s.depth <= depth),
            Command::StepOut if depth == 0 => last,
            Command::StepOut => next_where(here + 1, &|s| s.depth < depth),
            Command::Back => here.saturating_sub(1),
        };
        self.position
    }
}
