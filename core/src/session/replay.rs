//! The recording on screen and the debugger over it: where the learner is,
//! what the step shows (the record so far, the listing's function, the
//! status), which message card is open, and the moves themselves. A move
//! only moves an index: the trace was recorded once.

use super::notice::Notice;
use crate::debugger::{Command, Debugger};
use crate::lesson;
use crate::run::Trace;
use crate::trace::{Event, Step};
use crate::vocab::{Code, Function};

/// One recording and the learner's place in it.
#[derive(Debug)]
pub struct Replay {
    trace: Trace,
    pub(super) dbg: Debugger,
    /// Record length at the step shown before the last move.
    previous_len: usize,
    /// The message card whose full text is open.
    opened: Option<usize>,
}

/// What [`Replay::find`] says of a step that cannot be opened as written.
pub const STEP_NOTICES: [&str; 3] = ["notice_step", "notice_step_stays", "notice_step_past_end"];

impl Replay {
    pub fn new(code: Code) -> Replay {
        let mut dbg = Debugger::new();
        dbg.set_code(code);
        Replay { trace: Trace::empty(), dbg, previous_len: 0, opened: None }
    }

    pub fn trace(&self) -> &Trace {
        &self.trace
    }

    pub fn debugger(&self) -> &Debugger {
        &self.dbg
    }

    /// The listing shown (`python` or `rust`).
    pub fn code(&self) -> Code {
        self.dbg.code()
    }

    pub fn position(&self) -> usize {
        self.dbg.position()
    }

    pub fn started(&self) -> bool {
        self.dbg.started()
    }

    pub fn step(&self) -> Option<&Step> {
        self.trace.steps.get(self.dbg.position())
    }

    /// Record length at the step shown before the last move (what is new).
    pub fn previous_len(&self) -> usize {
        self.previous_len
    }

    /// The record length the learner sees now (0 before the start).
    pub fn record_len(&self) -> usize {
        match (self.started(), self.step()) {
            (true, Some(s)) => (s.record_len as usize).min(self.trace.record.len()),
            _ => 0,
        }
    }

    /// The listing on screen: the current step's function once started,
    /// else the entry function.
    pub fn shown_function(&self) -> Function {
        match (self.started(), self.step()) {
            (true, Some(s)) => s.function,
            _ => self.trace.function,
        }
    }

    /// `ready` before the start, `paused` on the way, and at the end how
    /// the run ended (`answered`, …, an error kind, or `done`).
    pub fn status(&self) -> &str {
        if !self.started() {
            "ready"
        } else if self.position() + 1 >= self.trace.steps.len() {
            self.trace.ending().unwrap_or("done")
        } else {
            "paused"
        }
    }

    /// The message card whose full text is open.
    pub fn opened(&self) -> Option<usize> {
        self.opened
    }

    /// Breakpoints that this run never reaches (the page says so).
    pub fn unreached_breakpoints(&self) -> Vec<(Function, u32)> {
        let mut hit = std::collections::BTreeSet::new();
        let mut hits = self.dbg.hits_in_run();
        for step in &self.trace.steps {
            if hits(step) {
                hit.insert((step.function, lesson::line_in(self.dbg.code(), step)));
            }
        }
        self.dbg.breakpoints().filter(|b| !hit.contains(b)).collect()
    }

    /// Every breakpoint off, then those of `placed` on.
    pub fn replace_breakpoints(&mut self, placed: Vec<(Function, u32)>) {
        let before: Vec<_> = self.dbg.breakpoints().collect();
        for (f, n) in before {
            self.dbg.set_breakpoint(f, n, false);
        }
        for (f, n) in placed {
            self.dbg.set_breakpoint(f, n, true);
        }
    }

    /// The step a page opens at (`step=`): its number, or the first line
    /// with a label; a number past the end opens the last step. A mistake
    /// is a notice.
    pub fn find(&self, spec: &str) -> (Option<usize>, Option<Notice>) {
        let steps = &self.trace.steps;
        let value = || vec![("value", spec.to_string())];
        // (digits too many for a number are a step past the end too)
        let number = spec.parse::<usize>().or_else(|e| match spec.bytes().all(|b| b.is_ascii_digit()) {
            true => Ok(usize::MAX),
            false => Err(e),
        });
        match number {
            Ok(n) if n < steps.len() => (Some(n), None),
            Ok(_) => {
                let last = steps.len().saturating_sub(1);
                let mut values = value();
                // (as the counter numbers it: from 1)
                values.push(("last", steps.len().to_string()));
                (Some(last), Some(Notice { key: "notice_step_past_end", values }))
            }
            Err(_) => match steps.iter().position(|s| s.label == spec && s.event == Event::Line) {
                Some(n) => (Some(n), None),
                None => {
                    // (the example: a label this run reaches, the nearest to the one written)
                    let lines = steps.iter().filter(|s| s.event == Event::Line && !s.label.is_empty());
                    let reached: Vec<&str> = lines.map(|s| s.label).collect();
                    let example = crate::predict::nearest(spec, &reached).unwrap_or(spec).to_string();
                    let mut values = value();
                    values.push(("example", example));
                    // (a page opening there starts at the beginning; an open one stays where it is)
                    let key = if self.started() { "notice_step_stays" } else { "notice_step" };
                    (None, Some(Notice { key, values }))
                }
            },
        }
    }

    /// Show a new recording, from before its start; the breakpoints stay.
    pub(super) fn show(&mut self, trace: Trace) {
        self.trace = trace;
        self.opened = None;
        self.dbg.command(Command::Reset, &self.trace.steps);
        self.previous_len = 0;
    }

    /// Go to a step without a move (a question's line, the same step in
    /// the same run in other words).
    pub(super) fn place(&mut self, position: usize) {
        self.dbg.seek(position, &self.trace.steps);
    }

    /// Go to a step as the learner sees it: what was on screen is what the
    /// step is new against. Whether the view moved.
    pub(super) fn seek(&mut self, position: usize) -> bool {
        let (before, len) = ((self.position(), self.started()), self.record_len());
        self.dbg.seek(position, &self.trace.steps);
        let moved = (self.position(), self.started()) != before;
        if moved {
            self.previous_len = len;
        }
        moved
    }

    /// Open a page at a step: nothing on it is "new".
    pub(super) fn open_at(&mut self, position: usize) {
        self.dbg.seek(position, &self.trace.steps);
        self.previous_len = self.record_len();
    }

    /// Apply a control; `(from, moved)`: the first step whose line runs in
    /// this move (a restart runs from the top), and whether the view moved.
    pub(super) fn go(&mut self, command: Command) -> (usize, bool) {
        let before = (self.position(), self.started());
        let len = self.record_len();
        let from = if !before.1 || command == Command::Debug { 0 } else { before.0 };
        self.dbg.command(command, &self.trace.steps);
        let moved = (self.position(), self.started()) != before;
        if moved {
            // After Run, "new" is what the last step added, not the whole run.
            let last_step = self.position().checked_sub(1).and_then(|p| self.trace.steps.get(p));
            self.previous_len = match (command, last_step) {
                (Command::Run, Some(s)) => s.record_len as usize,
                _ => len,
            };
        }
        (from, moved)
    }

    /// Where a question moved the view to: the answered line has run.
    pub(super) fn answered(&mut self, target: usize) {
        self.previous_len = self.record_len();
        self.dbg.seek(target, &self.trace.steps);
    }

    /// Open a card's full text, or close it when it is open.
    pub(super) fn toggle_card(&mut self, index: usize) {
        self.opened = if self.opened == Some(index) { None } else { Some(index) };
    }

    /// Close an open card's full text; whether one was open.
    pub(super) fn close_card(&mut self) -> bool {
        self.opened.take().is_some()
    }
}
