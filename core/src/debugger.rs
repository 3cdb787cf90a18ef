//! Breakpoints and stepping over a recorded trace. Pure: no DOM, no wasm.
//!
//! The trace is already complete when the learner steps, so every command is
//! a search for the next position — nothing is ever re-run. This is the one
//! breakpoint model; the page, the custom element and the tests all use it.

use crate::lesson::{self, Key};
use crate::trace::{Event, Step};
use crate::vocab::{Code, Function};

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

/// Source lines [`Debugger::hits_in_run`] keeps a place for (a listing's
/// lines are a few hundred; past this, each step is looked up).
const PLACES_BY_LINE: usize = 1 << 16;

/// Where the learner is in a trace, which lines they marked, and which
/// listing they read. Breakpoints are kept as step keys
/// ([`lesson::Key`]), so one set means the same in both listings.
#[derive(Clone, Debug)]
pub struct Debugger {
    position: usize,
    started: bool,
    /// A few keys: a list (a set type would cost the page kilobytes).
    breakpoints: Vec<Key>,
    code: Code,
}

impl Default for Debugger {
    fn default() -> Debugger {
        Debugger { position: 0, started: false, breakpoints: Vec::new(), code: Code::Rust }
    }
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

    /// The listing whose lines breakpoints and steps are counted in.
    pub fn code(&self) -> Code {
        self.code
    }

    /// Read another listing: the position and the breakpoints stay.
    pub fn set_code(&mut self, code: Code) {
        self.code = code;
    }

    /// The breakpoints as lines of the current listing.
    pub fn breakpoints(&self) -> impl Iterator<Item = (Function, u32)> + '_ {
        let mut lines: Vec<(Function, u32)> =
            self.breakpoints.iter().map(|k| (k.0, lesson::line_of_key(self.code, *k))).collect();
        crate::vocab::sort_small(&mut lines);
        lines.dedup();
        lines.into_iter()
    }

    pub fn has_breakpoint(&self, function: Function, line: u32) -> bool {
        lesson::keys_on_line(self.code, function, line).iter().any(|k| self.breakpoints.contains(k))
    }

    /// Flip the breakpoint on a line of the current listing; returns
    /// whether it is now set. A line where the run never stops takes none.
    pub fn toggle(&mut self, function: Function, line: u32) -> bool {
        let on = !self.has_breakpoint(function, line);
        self.set_breakpoint(function, line, on);
        on && self.has_breakpoint(function, line)
    }

    pub fn set_breakpoint(&mut self, function: Function, line: u32, on: bool) {
        for key in lesson::keys_on_line(self.code, function, line) {
            if on {
                if !self.breakpoints.contains(&key) {
                    self.breakpoints.push(key);
                }
            } else {
                self.breakpoints.retain(|k| *k != key);
            }
        }
    }

    /// Does the learner's program stop at this step?
    pub fn hits(&self, step: &Step) -> bool {
        matches!(step.event, Event::Line | Event::Call) && self.breakpoints.contains(&lesson::step_key(step))
    }

    /// [`Debugger::hits`] for the steps of one run, each place looked up
    /// once (a run of 800,000 steps stands on a few dozen places, and a
    /// step's key is found from its place alone).
    pub fn hits_in_run(&self) -> impl FnMut(&Step) -> bool + '_ {
        // (by source line: each holds the few places on it, so a step costs
        // an index and a comparison or two)
        let mut known: Vec<Vec<(Function, Event, bool)>> = Vec::new();
        move |s: &Step| {
            let line = s.source_line() as usize;
            if line >= PLACES_BY_LINE {
                return self.hits(s);
            }
            if known.len() <= line {
                known.resize_with(line + 1, Vec::new);
            }
            match known[line].iter().find(|(f, e, _)| *e == s.event && *f == s.function) {
                Some((_, _, hit)) => *hit,
                None => {
                    let hit = self.hits(s);
                    known[line].push((s.function, s.event, hit));
                    hit
                }
            }
        }
    }

    /// Where the run stops at a breakpoint (timeline ticks): the first step
    /// of each stop, as Debug and Continue stop (in the Python, the steps
    /// of one line in a row are one stop).
    pub fn hit_positions(&self, steps: &[Step]) -> Vec<usize> {
        if self.breakpoints.is_empty() {
            return Vec::new();
        }
        let (mut hits, mut before) = (self.hits_in_run(), None);
        let mut stops = Vec::new();
        for (i, s) in steps.iter().enumerate() {
            let hit = hits(s);
            if hit && !before.is_some_and(|b: &Step| self.same_stop(b, s)) {
                stops.push(i);
            }
            before = hit.then_some(s);
        }
        stops
    }

    /// At a breakpoint: how many times the run has stopped on this line so
    /// far, this stop included (the page says "hit 2 times"). None when
    /// the step is no breakpoint's.
    pub fn hits_so_far(&self, position: usize, steps: &[Step]) -> Option<usize> {
        let here = steps.get(position).filter(|s| self.hits(s))?;
        let line = (here.function, lesson::line_in(self.code, here));
        // (a stop is counted at its first step that hits: in the Python one
        // line may be several steps, and a breakpoint set in the Rust may
        // hold only the second of them)
        let stops = (0..=position).filter(|&i| {
            let s = &steps[i];
            let continues = |p: &Step| self.hits(p) && self.same_stop(p, s);
            self.hits(s)
                && !(i > 0 && continues(&steps[i - 1]))
                && (s.function, lesson::line_in(self.code, s)) == line
        });
        Some(stops.count())
    }

    /// Steps `a` and `b` are one step of the listing: in the Python,
    /// several Rust steps inside one line of the same frame collapse.
    fn same_stop(&self, a: &Step, b: &Step) -> bool {
        self.code.is_python()
            && a.event == Event::Line
            && b.event == Event::Line
            && (a.function, a.depth) == (b.function, b.depth)
            && lesson::line_in(self.code, a) == lesson::line_in(self.code, b)
    }

    /// The last index of the run of steps that are one stop with `here`.
    fn end_of_stop(&self, here: usize, steps: &[Step]) -> usize {
        let mut end = here;
        while end + 1 < steps.len() && self.same_stop(&steps[here], &steps[end + 1]) {
            end += 1;
        }
        end
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
            steps.iter().position(self.hits_in_run())
        };
        found.unwrap_or(last)
    }

    /// Apply a command; returns the new position.
    pub fn command(&mut self, command: Command, steps: &[Step]) -> usize {
        let last = steps.len().saturating_sub(1);
        let here = self.position.min(last);
        let depth = steps.get(here).map_or(0, |s| s.depth);
        let next_where = |from: usize, ok: &mut dyn FnMut(&Step) -> bool| {
            steps.iter().enumerate().skip(from).find(|(_, s)| ok(s)).map_or(last, |(i, _)| i)
        };
        // Forward moves leave the current stop first; Back lands on the
        // first step of the stop before.
        let after = self.end_of_stop(here, steps) + 1;
        // From anywhere inside a stop, Back goes to the stop before it.
        let start_of = |mut p: usize| {
            while p > 0 && self.same_stop(&steps[p - 1], &steps[p]) {
                p -= 1;
            }
            p
        };
        let back = match start_of(here) {
            0 => 0,
            start => start_of(start - 1),
        };
        let fresh = !self.started;
        // Every command starts the run but Reset, which goes back to before it.
        self.started = command != Command::Reset;
        let position = match command {
            Command::Reset => 0,
            Command::Run => last,
            Command::Debug => self.first_stop(steps),
            Command::Continue if fresh => self.first_stop(steps),
            Command::Step | Command::StepInto | Command::StepOut if fresh => 0,
            Command::Continue => next_where(after, &mut self.hits_in_run()),
            Command::StepInto => after.min(last),
            Command::Step => next_where(after, &mut |s| s.depth <= depth),
            Command::StepOut if depth == 0 => last,
            Command::StepOut => next_where(here + 1, &mut |s| s.depth < depth),
            Command::Back => back,
        };
        self.position = position;
        self.position
    }
}
