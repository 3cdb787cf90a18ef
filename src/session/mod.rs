//! One playground's state, as data: the scenario catalogue, the chosen
//! scenario and language, the recorded trace, the debugger, the author's
//! overrides, what the author got wrong, and what changed since the page
//! last drew it.
//!
//! Pure and tested natively. The browser side (`web`) holds one `Session`
//! per element, turns its state into DOM and feeds it the learner's clicks;
//! it decides nothing itself. The model and the process come in through
//! [`Doubles`] and the override makers, so the same session runs on the
//! Rust fixture doubles in tests and on JavaScript callbacks in the page.

use crate::debugger::{Command, Debugger};
use crate::i18n::Lang;
use crate::lesson;
use crate::protocol::{Model, Process};
use crate::run::{record, Trace};
use crate::scenario::{load_shipped, Problem, Scenario};
use crate::trace::{Limits, Step};
use crate::vocab::{Code, Function};
use serde_json::{json, Value};

mod explore;
pub use explore::{Answer, Comparison, EditProblem, Pending, Summary, Why};

/// The lesson's eight scenarios, in the lesson's order: the picker lists
/// them first.
pub const LESSON: [&str; 8] =
    ["request", "error", "success", "timeout", "reject", "report", "limit", "truncated"];

/// A scenario file as loaded: parsed, or its problems.
#[derive(Clone, Debug)]
pub struct Entry {
    pub file: String,
    pub parsed: Result<Scenario, Vec<Problem>>,
}

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

/// The file name of a scenario added through the API (`addScenario`), which
/// reports its problems to the caller itself.
pub const ADDED: &str = "(added scenario)";

/// Why a fetched file could not be read: a reason (`status`, `origin`,
/// `size`, `url`, `network`) and a detail (the server's answer, …).
pub type Unreadable = (String, String);

/// How a playground starts; every field may be empty.
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub function: String,
    pub scenario: String,
    pub lang: String,
    /// Labels, numbers or `function:line`, separated by commas or spaces.
    pub breakpoints: String,
    /// How long one recording may run: seconds (`2`, `0.5s`) or `500ms`.
    pub time_budget: String,
    /// How much trace one recording may hold: megabytes (`256`, `64MB`).
    pub memory_budget: String,
    /// The clock for the time budget (milliseconds); none: no time budget.
    pub clock: Option<fn() -> f64>,
    /// The listing shown: `python` (the default) or `rust`.
    pub listing: String,
    /// The control buttons, by command name (`debug,step,continue`); empty: all.
    pub controls: String,
    /// `1`–`6`: the panel titles are headings of that level; empty: they are
    /// not headings (an embedded playground adds nothing to the host's outline).
    pub heading_level: String,
    /// `light`, `dark` or `auto` (drawn by the stylesheet; checked here).
    pub theme: String,
    /// Scenario files fetched by the element (`src=`): each file's name and
    /// its text, or why it could not be read (`status`, `origin`, `size`,
    /// `url` or `network`) with a detail.
    pub files: Vec<(String, Result<String, Unreadable>)>,
    /// Ask before the lines that carry a question (the `predict` attribute).
    pub predict: bool,
    /// Where to start: a step number or a label (`loop.save_results`).
    pub step: String,
}

/// Something the author should know (an unknown scenario, a breakpoint
/// that cannot be placed): a word key of the language tables and its values.
#[derive(Clone, Debug, PartialEq)]
pub struct Notice {
    pub key: &'static str,
    pub values: Vec<(&'static str, String)>,
}

impl Notice {
    pub fn text(&self, lang: Lang) -> String {
        lang.fill(self.key, &self.values)
    }
}

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
    fn all() -> Changes {
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

/// One playground.
pub struct Session {
    entries: Vec<Entry>,
    current: usize,
    only_function: Option<Function>,
    lang: Lang,
    trace: Trace,
    dbg: Debugger,
    /// Record length at the step shown before the last move.
    previous_len: usize,
    controls: Vec<Command>,
    heading_level: Option<u8>,
    reveal: bool,
    doubles: Box<dyn Doubles>,
    model: Option<Maker<dyn Model>>,
    process: Option<Maker<dyn Process>>,
    notices: Vec<Notice>,
    changes: Changes,
    limits: Limits,
    /// The message card whose full text is open.
    opened: Option<usize>,
    /// Predictions on, this run's questions, the one waiting, the answers
    /// given in this scenario (by question key), the last one, and the
    /// answers not yet sent to the page.
    predict: bool,
    asks: Vec<crate::predict::Ask>,
    pending: Option<Pending>,
    answers: Vec<(String, Answer)>,
    /// The lesson's answers, kept aside while a what-if run is shown.
    lesson_answers: Option<Vec<(String, Answer)>>,
    last_answer: Option<Answer>,
    outbox: Vec<Value>,
    /// A changed version of the scenario (what if), and the lesson's own
    /// run kept beside it.
    what_if: Option<Scenario>,
    lesson_run: Option<Trace>,
    comparison: Option<Comparison>,
    /// What was wrong with the last edit, until one works.
    edit_problems: Vec<EditProblem>,
}

impl Session {
    /// A session over the shipped scenarios. Unknown values in `options`
    /// become [`Notice`]s; the session still starts with its defaults.
    pub fn new(doubles: Box<dyn Doubles>, options: &Options) -> Result<Session, String> {
        let mut entries: Vec<Entry> =
            load_shipped().into_iter().map(|(file, parsed)| Entry { file, parsed }).collect();
        let mut unreadable = Vec::new();
        for (file, text) in &options.files {
            match text {
                Ok(text) => {
                    add_entry(&mut entries, file, checked(Scenario::parse(text)));
                }
                Err((why, detail)) => unreadable.push(unreadable_file(file, why, detail)),
            }
        }
        let only_function = Function::from_name(options.function.trim());
        let wanted = Some(options.scenario.trim()).filter(|s| !s.is_empty());
        let current = pick(&entries, wanted, only_function).ok_or("no valid scenario to show")?;
        let lang = Lang::parse(&options.lang).unwrap_or_else(Lang::default_lang);
        let lang_given = options.lang.trim();
        let mut session = Session {
            entries,
            current,
            only_function,
            lang,
            trace: empty_trace(),
            dbg: Debugger::new(),
            previous_len: 0,
            controls: Command::ALL.to_vec(),
            heading_level: None,
            reveal: false,
            doubles,
            model: None,
            process: None,
            notices: unreadable,
            changes: Changes::all(),
            limits: Limits::from(crate::trace::STEP_CAP),
            opened: None,
            predict: false,
            asks: Vec::new(),
            pending: None,
            answers: Vec::new(),
            lesson_answers: None,
            last_answer: None,
            outbox: Vec::new(),
            what_if: None,
            lesson_run: None,
            comparison: None,
            edit_problems: Vec::new(),
        };
        if let Some(clock) = options.clock {
            session.limits = Limits::budgets(clock);
        } else {
            session.limits.bytes = Some(Limits::BYTES);
        }
        session.set_budgets(&options.time_budget, &options.memory_budget);
        match Code::from_name(&options.listing) {
            Some(code) => session.dbg.set_code(code),
            None if options.listing.trim().is_empty() => session.dbg.set_code(Code::Python),
            None => {
                session.dbg.set_code(Code::Python);
                session.notice("notice_listing", &options.listing);
            }
        }
        session.set_presentation(options);
        if !lang_given.is_empty() && Lang::parse(lang_given).is_none() {
            session.notice("notice_lang", lang_given);
        }
        let function_given = options.function.trim();
        if !function_given.is_empty() && only_function.is_none() {
            session.notice("notice_function", function_given);
        }
        if let Some(w) = wanted {
            let shown = session.scenario().map(|s| s.id.clone()).unwrap_or_default();
            let other_function =
                session.entries.iter().filter_map(|e| e.parsed.as_ref().ok()).find(|s| s.id == w);
            match other_function {
                Some(s) if only_function.is_some_and(|f| f != s.function) => session.notices.push(Notice {
                    key: "notice_scenario_function",
                    values: vec![
                        ("value", w.to_string()),
                        ("function", s.function.name().into()),
                        ("shown", shown),
                    ],
                }),
                _ if shown != w => session.notices.push(Notice {
                    key: "notice_scenario",
                    values: vec![("value", w.to_string()), ("shown", shown)],
                }),
                _ => {}
            }
        }
        session.predict = options.predict;
        session.rerecord();
        session.set_breakpoints(&options.breakpoints);
        session.start_at(&options.step);
        session.changes = Changes::all();
        Ok(session)
    }

    /// Start at a step: its number, or the first line with a label. A step
    /// past the end opens the last one; either way a mistake is a notice.
    pub fn start_at(&mut self, spec: &str) {
        let spec = spec.trim();
        if spec.is_empty() {
            return;
        }
        let steps = &self.trace.steps;
        let found = match spec.parse::<usize>() {
            Ok(n) if n < steps.len() => Some(n),
            Ok(_) => {
                let last = steps.len().saturating_sub(1);
                self.notices.push(Notice {
                    key: "notice_step_past_end",
                    values: vec![("value", spec.to_string()), ("last", last.to_string())],
                });
                Some(last)
            }
            Err(_) => steps.iter().position(|s| s.label == spec && s.event == crate::trace::Event::Line),
        };
        match found {
            Some(n) => {
                self.dbg.seek(n, &self.trace.steps);
                // Nothing is "new" when a page opens at a step.
                self.previous_len = self.record_len();
                self.stop_for_question(n, n);
            }
            None => self.notice("notice_step", spec),
        }
        self.changes.notices = true;
        self.changes.step = true;
    }

    /// Use a smaller step cap (tests, benchmarks). Re-records.
    pub fn set_step_cap(&mut self, cap: usize) {
        self.limits.steps = cap.max(1);
        self.rerecord();
    }

    /// The budgets of one recording (see [`Limits`]).
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Set the time and memory budgets from the element's attributes (empty:
    /// keep). A value that is not a positive amount becomes a notice.
    fn set_budgets(&mut self, time: &str, memory: &str) {
        if !time.trim().is_empty() {
            match parse_amount(time, &[("ms", 1.0), ("s", 1000.0)], 1000.0) {
                Some(ms) => self.limits.millis = Some(ms),
                None => self.notice("notice_time_budget", time),
            }
        }
        if !memory.trim().is_empty() {
            match parse_amount(memory, &[("mb", 1048576.0)], 1048576.0) {
                Some(bytes) => self.limits.bytes = Some(bytes as usize),
                None => self.notice("notice_memory_budget", memory),
            }
        }
    }

    /// The attributes that only change how the playground is drawn.
    fn set_presentation(&mut self, options: &Options) {
        let names: Vec<&str> = options.controls.split([',', ' ']).filter(|n| !n.is_empty()).collect();
        let known: Vec<Command> = names.iter().filter_map(|n| Command::from_name(n)).collect();
        if !known.is_empty() {
            self.controls = known;
        }
        let unknown: Vec<&str> = names.into_iter().filter(|n| Command::from_name(n).is_none()).collect();
        if !unknown.is_empty() {
            self.notice("notice_controls", &unknown.join(", "));
        }
        let level = options.heading_level.trim();
        match level.parse::<u8>() {
            Ok(n @ 1..=6) => self.heading_level = Some(n),
            _ if level.is_empty() => {}
            _ => self.notice("notice_heading_level", level),
        }
        if !matches!(options.theme.trim(), "" | "auto" | "light" | "dark") {
            self.notice("notice_theme", &options.theme);
        }
    }

    /// The control buttons to show, in order.
    pub fn controls(&self) -> &[Command] {
        &self.controls
    }

    /// The heading level of the panel titles, if they are headings.
    pub fn heading_level(&self) -> Option<u8> {
        self.heading_level
    }

    fn notice(&mut self, key: &'static str, value: &str) {
        self.notices.push(Notice { key, values: vec![("value", value.trim().to_string())] });
        self.changes.notices = true;
    }

    // ----- reading -----

    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Index of the current scenario in [`Session::entries`].
    pub fn current(&self) -> usize {
        self.current
    }

    pub fn scenario(&self) -> Option<&Scenario> {
        if let Some(changed) = &self.what_if {
            return Some(changed);
        }
        self.entries.get(self.current).and_then(|e| e.parsed.as_ref().ok())
    }

    /// The function the author limited this playground to, if any.
    pub fn only_function(&self) -> Option<Function> {
        self.only_function
    }

    pub fn trace(&self) -> &Trace {
        &self.trace
    }

    pub fn debugger(&self) -> &Debugger {
        &self.dbg
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

    pub fn lang(&self) -> Lang {
        self.lang
    }

    pub fn reveal(&self) -> bool {
        self.reveal
    }

    pub fn notices(&self) -> &[Notice] {
        &self.notices
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

    /// What the page and `el.state()` report (docs/element-api.md).
    pub fn state(&self) -> Value {
        let step = self.step();
        let breakpoints: Vec<Value> =
            self.dbg.breakpoints().map(|(f, n)| json!({"function": f.name(), "line": n})).collect();
        json!({
            "scenario": self.trace.scenario,
            "function": self.trace.function.name(),
            "step": self.position(),
            "steps": self.trace.steps.len(),
            "started": self.started(),
            "line": step.map(|s| lesson::line_in(self.dbg.code(), s)),
            "listing": self.dbg.code().name(),
            "label": step.map(|s| s.label),
            "stage": step.map(lesson::stage),
            "depth": step.map(|s| s.depth),
            "currentFunction": step.map(|s| s.function.name()),
            "status": self.status(),
            "finalStatus": self.trace.ending(),
            "recordLength": self.record_len(),
            "breakpoints": breakpoints,
            "lang": self.lang.code(),
            "predict": self.predict,
            "question": self.pending().map(|a| json!({
                "key": a.key, "text": a.text, "choices": a.choices, "label": a.label, "step": a.step,
            })),
            "score": {"right": self.score().0, "answered": self.score().1},
            "whatIf": self.what_if.is_some(),
        })
    }

    /// What changed since the last [`Session::take_changes`], left in place.
    pub fn peek_changes(&self) -> Changes {
        self.changes
    }

    /// What changed since the last call; the page draws only that.
    pub fn take_changes(&mut self) -> Changes {
        std::mem::take(&mut self.changes)
    }

    // ----- the learner -----

    /// Apply a control. Only a real move counts as a change (a Step at the
    /// end changes nothing, and the host page hears nothing).
    pub fn command(&mut self, command: Command) {
        let before = (self.position(), self.started());
        let len = self.record_len();
        // A question on screen waits for its answer; only going back leaves it.
        let backward = matches!(command, Command::Back | Command::Reset);
        if self.pending().is_some() && !backward {
            // (and the page brings the keyboard back to its choices)
            self.changes.predict = true;
            return;
        }
        self.pending = None;
        if self.last_answer.take().is_some() {
            self.changes.predict = true;
        }
        // The lines that run in this move start here (a restart: at the top).
        let from = if !before.1 || command == Command::Debug { 0 } else { before.0 };
        self.dbg.command(command, &self.trace.steps);
        let to = self.position();
        self.stop_for_question(from, to);
        if (self.position(), self.started()) != before {
            // After Run, "new" is what the last step added, not the whole run.
            let last_step = self.position().checked_sub(1).and_then(|p| self.trace.steps.get(p));
            self.previous_len = match (command, last_step) {
                (Command::Run, Some(s)) => s.record_len as usize,
                _ => len,
            };
            self.changes.step = true;
        }
    }

    /// Jump to a step (the timeline).
    pub fn seek(&mut self, position: usize) {
        let before = (self.position(), self.started());
        let len = self.record_len();
        // A jump on the timeline is not a prediction: it drops the question.
        if self.pending.take().is_some() | self.last_answer.take().is_some() {
            self.changes.predict = true;
        }
        self.dbg.seek(position, &self.trace.steps);
        if (self.position(), self.started()) != before {
            self.previous_len = len;
            self.changes.step = true;
        }
    }

    /// Flip the breakpoint on a listing line (a click on its number). A line
    /// where the run can never stop (a comment, a brace) puts it on the next
    /// line that can; when there is none, nothing changes and the error says
    /// why. Returns whether a breakpoint is now set there.
    pub fn toggle_line(&mut self, function: Function, line: u32) -> Result<bool, String> {
        let line = match stop_line(self.dbg.code(), function, line) {
            Ok(line) => line,
            Err(why) => {
                self.notice("notice_no_stop", &format!("{}:{line}", function.name()));
                return Err(why);
            }
        };
        self.changes.breakpoints = true;
        let on = self.dbg.toggle(function, line);
        self.refresh_questions();
        Ok(on)
    }

    /// Breakpoints that this scenario's run never reaches (the page says so).
    pub fn unreached_breakpoints(&self) -> Vec<(Function, u32)> {
        let mut hit = std::collections::BTreeSet::new();
        for step in &self.trace.steps {
            if self.dbg.hits(step) {
                hit.insert((step.function, lesson::line_in(self.dbg.code(), step)));
            }
        }
        self.dbg.breakpoints().filter(|b| !hit.contains(b)).collect()
    }

    /// Flip a breakpoint given in the one breakpoint grammar
    /// ([`parse_breakpoint`]); a bare number counts in `function`.
    pub fn toggle_breakpoint(&mut self, function: &str, spec: &str) -> Result<bool, String> {
        let function =
            Function::from_name(function).ok_or_else(|| format!("unknown function {function:?}"))?;
        let (f, n) = parse_breakpoint(spec, function, self.dbg.code())?;
        self.toggle_line(f, n)
    }

    /// Set breakpoints from a list (the `breakpoints` attribute); each item
    /// that cannot be placed becomes a notice.
    pub fn set_breakpoints(&mut self, list: &str) {
        let entry = self.trace.function;
        for item in list.split([',', ' ']).map(str::trim).filter(|x| !x.is_empty()) {
            match parse_breakpoint(item, entry, self.dbg.code()) {
                Ok((f, n)) => self.dbg.set_breakpoint(f, n, true),
                Err(_) => {
                    self.notices.push(breakpoint_notice(item, entry));
                    self.changes.notices = true;
                }
            }
        }
        self.changes.breakpoints = true;
        self.refresh_questions();
    }

    /// Switch language. The question, the model's words and what the model
    /// reads are the learner's language too, so the run is recorded again
    /// (milliseconds); it has the same steps, so the position stays.
    pub fn set_lang(&mut self, lang: Lang) {
        if lang != self.lang {
            self.lang = lang;
            self.changes.lang = true;
            let (position, started) = (self.position(), self.started());
            let (pending, last) = (self.pending.take(), self.last_answer.take());
            self.rerecord();
            if started {
                self.dbg.seek(position, &self.trace.steps);
            }
            // The same run in other words: a question on screen stays.
            (self.pending, self.last_answer) = (pending, last);
        }
    }

    /// The listing shown (`python` or `rust`): the position and the
    /// breakpoints stay.
    pub fn code(&self) -> Code {
        self.dbg.code()
    }

    pub fn set_code(&mut self, code: Code) {
        if code != self.dbg.code() {
            self.dbg.set_code(code);
            self.refresh_questions();
            self.changes.listing = true;
            self.changes.breakpoints = true;
            self.changes.step = true;
        }
    }

    /// The message card whose full text is open.
    pub fn opened(&self) -> Option<usize> {
        self.opened
    }

    /// Open a card's full text, or close it when it is open.
    pub fn toggle_card(&mut self, index: usize) {
        self.opened = if self.opened == Some(index) { None } else { Some(index) };
        self.changes.step = true;
    }

    /// Close an open card's full text.
    pub fn close_card(&mut self) {
        if self.opened.take().is_some() {
            self.changes.step = true;
        }
    }

    pub fn set_reveal(&mut self, on: bool) {
        self.reveal = on;
        self.changes.reveal = true;
    }

    /// Show the scenario with this id.
    pub fn load(&mut self, id: &str) -> Result<(), String> {
        let index = self
            .entries
            .iter()
            .position(|e| e.parsed.as_ref().is_ok_and(|p| p.id == id))
            .ok_or_else(|| format!("unknown scenario {id:?}"))?;
        self.select(index);
        Ok(())
    }

    /// Show entry `index` (the picker); a broken entry is ignored.
    fn select(&mut self, index: usize) {
        if self.entries.get(index).is_some_and(|e| e.parsed.is_ok()) {
            self.current = index;
            self.what_if = None;
            self.edit_problems.clear();
            self.answers.clear();
            self.lesson_answers = None;
            self.rerecord();
        }
    }

    // ----- the author -----

    /// Add a scenario (or replace the one with the same id). Returns its
    /// id; a broken one is listed with its problems and the error names
    /// them. Replacing the scenario on screen re-records it in place.
    pub fn add_scenario(&mut self, parsed: Result<Scenario, Vec<Problem>>) -> Result<String, String> {
        self.add_file(ADDED, parsed)
    }

    /// Add a scenario read from `file` (its problems name the file). A
    /// scenario with the id of one already there replaces it.
    pub fn add_file(&mut self, file: &str, parsed: Result<Scenario, Vec<Problem>>) -> Result<String, String> {
        self.changes.catalogue = true;
        let parsed = checked(parsed);
        let outcome = match &parsed {
            Ok(scenario) => Ok(scenario.id.clone()),
            Err(problems) => {
                Err(problems.iter().map(|p| format!("{file}: {p}")).collect::<Vec<_>>().join("\n"))
            }
        };
        let replaced = add_entry(&mut self.entries, file, parsed);
        if replaced == Some(self.current) {
            // A new version of the scenario on screen: what-if was about the old one.
            self.what_if = None;
            self.rerecord();
        }
        outcome
    }

    /// A scenario file that could not be fetched or read.
    pub fn file_unreadable(&mut self, file: &str, why: &str, detail: &str) {
        self.notices.push(unreadable_file(file, why, detail));
        self.changes.notices = true;
    }

    /// Replace the model (`None` restores the scenario's double). Re-records.
    pub fn set_model(&mut self, model: Option<Maker<dyn Model>>) {
        self.model = model;
        self.rerecord();
    }

    /// Replace the process (`None` restores the scenario's double). Re-records.
    pub fn set_process(&mut self, process: Option<Maker<dyn Process>>) {
        self.process = process;
        self.rerecord();
    }

    /// Record the current scenario again and go back to the start; the
    /// breakpoints stay.
    fn rerecord(&mut self) {
        let Some(lesson) = self.lesson_scenario().map(|s| s.localized(self.lang)) else { return };
        let (mut model, mut process) = self.doubles.for_scenario(&lesson);
        if let Some(make) = &self.model {
            model = make();
        }
        if let Some(make) = &self.process {
            process = make();
        }
        let lesson_run = record(&lesson, model.as_mut(), process.as_mut(), self.limits);
        // What if: the changed script on its own doubles, the lesson's run beside it.
        match self.what_if.as_ref().map(|s| s.localized(self.lang)) {
            Some(changed) => {
                let (mut model, mut process) = self.doubles.for_scenario(&changed);
                self.trace = record(&changed, model.as_mut(), process.as_mut(), self.limits);
                self.comparison = Some(Comparison::of(&lesson_run, &self.trace));
                self.lesson_run = Some(lesson_run);
            }
            None => {
                self.trace = lesson_run;
                self.lesson_run = None;
                self.comparison = None;
            }
        }
        self.pending = None;
        self.last_answer = None;
        self.refresh_questions();
        self.opened = None;
        self.dbg.command(Command::Reset, &self.trace.steps);
        self.previous_len = 0;
        self.changes.trace = true;
        self.changes.step = true;
        self.changes.breakpoints = true;
    }
}

/// The one breakpoint grammar: a label (`loop.ask`), a line number of
/// `entry`'s listing (`12`), or `function:line` (`run_main:5`); numbers
/// count in the listing shown (`code`). The line must exist there.
pub fn parse_breakpoint(item: &str, entry: Function, code: Code) -> Result<(Function, u32), String> {
    match spot(item, entry)? {
        Spot::Line(f, n) => stop_line(code, f, n).map(|n| (f, n)),
        Spot::Label(label) => {
            lesson::line_of_label_in(code, label).ok_or_else(|| format!("unknown label {label:?}"))
        }
    }
}

/// What a breakpoint item names, before any listing is looked at.
enum Spot<'a> {
    Label(&'a str),
    Line(Function, u32),
}

/// The grammar alone: `function:line`, a number (of `entry`), or a label.
fn spot(item: &str, entry: Function) -> Result<Spot<'_>, String> {
    let item = item.trim();
    let number = |n: &str| n.trim().parse::<u32>().map_err(|_| format!("{n:?} is not a line number"));
    if let Some((f, n)) = item.split_once(':') {
        let f = Function::from_name(f.trim()).ok_or_else(|| format!("unknown function {f:?}"))?;
        return Ok(Spot::Line(f, number(n)?));
    }
    if item.chars().next().is_some_and(|c| c.is_ascii_digit()) {
        return Ok(Spot::Line(entry, number(item)?));
    }
    Ok(Spot::Label(item))
}

/// Why a breakpoint item cannot be placed, as a notice: a well-formed
/// line that the listing lacks says so; anything else gets the grammar.
fn breakpoint_notice(item: &str, entry: Function) -> Notice {
    match spot(item, entry) {
        Ok(Spot::Line(f, n)) => Notice {
            key: "notice_breakpoint_line",
            values: vec![("value", item.into()), ("function", f.name().into()), ("line", n.to_string())],
        },
        _ => Notice { key: "notice_breakpoint", values: vec![("value", item.into())] },
    }
}

/// The line a breakpoint on `line` really goes to: that line if the run can
/// stop there, else the next one that can.
pub fn stop_line(code: Code, function: Function, line: u32) -> Result<u32, String> {
    if lesson::listing_in(code, function).line(line).is_none() {
        return Err(format!("{} has no line {line}", function.name()));
    }
    lesson::stoppable_lines_in(code, function)
        .into_iter()
        .find(|n| *n >= line)
        .ok_or_else(|| format!("{} stops on no line from line {line} on", function.name()))
}

/// A positive amount with an optional unit (`2`, `0.5s`, `500ms`, `64MB`),
/// in the smallest unit; a bare number is in `bare` units.
pub fn parse_amount(text: &str, units: &[(&str, f64)], bare: f64) -> Option<f64> {
    let t = text.trim().to_ascii_lowercase();
    let (number, scale) = units
        .iter()
        .find_map(|(unit, scale)| t.strip_suffix(unit).map(|n| (n.trim().to_string(), *scale)))
        .unwrap_or((t.clone(), bare));
    // Digits with at most one point, read without float parsing (which
    // would add kilobytes to the page).
    let (whole, fraction) = number.split_once('.').unwrap_or((&number, ""));
    let digits = |p: &str| p.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() || !digits(whole) || !digits(fraction) || fraction.len() > 9 {
        return None;
    }
    let whole: u64 = whole.parse().ok()?;
    let fraction_value = fraction.parse::<u64>().unwrap_or(0) as f64 / 10f64.powi(fraction.len() as i32);
    let value = whole as f64 + fraction_value;
    (value > 0.0).then_some(value * scale)
}

/// The entry to show first: the wanted id if it belongs to the wanted
/// function, else a lesson favourite of that function, else its first.
/// Why a scenario file could not be read (`status`: the server's answer,
/// `origin`: another site, `size`, `url`, else the network), as a notice.
fn unreadable_file(file: &str, why: &str, detail: &str) -> Notice {
    let key = match why {
        "status" => "notice_src_status",
        "origin" => "notice_src_origin",
        "size" => "notice_src_size",
        "url" => "notice_src_url",
        _ => "notice_src_network",
    };
    Notice { key, values: vec![("value", file.into()), ("detail", detail.into())] }
}

/// A file's scenario with the checks `check` adds to parsing: each of its
/// questions must sit on a line its run reaches.
fn checked(parsed: Result<Scenario, Vec<Problem>>) -> Result<Scenario, Vec<Problem>> {
    let scenario = parsed?;
    if scenario.questions.is_empty() {
        return Ok(scenario);
    }
    let problems = crate::predict::problems(&scenario, &crate::run::record_scenario(&scenario));
    if problems.is_empty() {
        Ok(scenario)
    } else {
        Err(problems)
    }
}

/// Add a parsed file to the catalogue; a valid scenario replaces one with
/// the same id (its index is returned), a broken file is listed with its
/// problems.
fn add_entry(entries: &mut Vec<Entry>, file: &str, parsed: Result<Scenario, Vec<Problem>>) -> Option<usize> {
    let same = match &parsed {
        Ok(s) => entries.iter().position(|e| e.parsed.as_ref().is_ok_and(|p| p.id == s.id)),
        Err(_) => None,
    };
    let entry = Entry { file: file.to_string(), parsed };
    match same {
        Some(i) => entries[i] = entry,
        None => entries.push(entry),
    }
    same
}

fn pick(entries: &[Entry], wanted: Option<&str>, function: Option<Function>) -> Option<usize> {
    fn valid(e: &Entry) -> Option<&Scenario> {
        e.parsed.as_ref().ok()
    }
    let fits = |s: &Scenario| function.is_none_or(|f| s.function == f);
    if let Some(w) = wanted {
        if let Some(i) = entries.iter().position(|e| valid(e).is_some_and(|s| s.id == w && fits(s))) {
            return Some(i);
        }
    }
    for id in ["report", "error", "request"] {
        if let Some(i) = entries.iter().position(|e| valid(e).is_some_and(|s| s.id == id && fits(s))) {
            return Some(i);
        }
    }
    entries.iter().position(|e| valid(e).is_some_and(fits))
}

/// A placeholder until the first recording.
fn empty_trace() -> Trace {
    Trace {
        scenario: String::new(),
        function: Function::RunLoop,
        result: Value::Null,
        error: None,
        output: Vec::new(),
        record: Vec::new(),
        steps: Vec::new(),
        locals: Default::default(),
        max_calls: 0,
    }
}
