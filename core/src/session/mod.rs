//! One playground's state, as data: the scenario catalogue, the chosen scenario
//! and language, the recorded trace, the debugger, the author's overrides, what
//! the author got wrong, and what changed since the page last drew it.
//!
//! Pure and tested natively. The browser side (the page crate) holds one
//! `Session` per element, turns its state into DOM and feeds it the
//! learner's clicks; it decides nothing itself. The model and the process
//! come in through [`Doubles`] and the override makers: the same session runs
//! on the Rust fixture doubles in tests, on JavaScript callbacks in the page.
//!
//! The parts, each its own file below this one: [`options`] (attributes
//! read once), [`catalogue`] (the scenarios, the one on screen), [`recorder`]
//! (doubles, overrides, budgets), [`replay`] (the recording on screen, its
//! debugger), [`breakpoints`], [`amount`], [`notice`], [`predictions`],
//! [`what_if`], [`state`], [`recorded`] (a `program-src` pack), [`ahead`] (a
//! long file parsed in a task of its own), [`opening`] (what a session starts
//! from); this file holds the `Session` over them.

use crate::debugger::Command;
use crate::i18n::Lang;
use crate::pack::Refusal;
use crate::programs;
use crate::scenario::json_lines::at_lines;
use crate::scenario::{Problem, Scenario};
use crate::trace::Limits;
use crate::vocab::{Code, Function};
use recorder::Recorder;
use serde_json::Value;

pub mod ahead;
pub mod amount;
pub mod breakpoints;
pub mod catalogue;
pub mod changes;
pub mod doubles;
pub mod findings;
pub mod listings;
pub mod notice;
pub mod opening;
pub mod options;
pub mod predictions;
pub mod recorded;
pub mod recorder;
pub mod replay;
pub mod scope;
pub mod state;
pub mod what_if;

pub use amount::parse_amount;
pub use breakpoints::{parse_breakpoint, place_all, stop_line, NOTICES_SHOWN};
pub use catalogue::{Catalogue, Entry, Parsed, ADDED};
pub use changes::Changes;
pub use doubles::{Doubles, FixtureDoubles, Maker, Override};
pub use notice::{Notice, Unreadable};
pub use options::{Options, Presentation, Settings};
pub use predictions::{Answer, Pending, Predictions};
pub use replay::Replay;
pub use scope::Scope;
pub use what_if::{beside, counterpart, Comparison, Summary, WhatIf};

/// One playground.
pub struct Session {
    catalogue: Catalogue,
    lang: Lang,
    replay: Replay,
    presentation: Presentation,
    /// The author's own listings, by language (none: any).
    authored: Vec<(Option<Lang>, Code)>,
    recorder: Recorder,
    notices: Vec<Notice>,
    changes: Changes,
    predictions: Predictions,
    what_if: WhatIf,
}

impl Session {
    /// A session over the shipped scenarios. Unknown values in `options` become [`Notice`]s; the
    /// session still starts with its defaults (a language not arrived yet: `crate::pack::needed`).
    pub fn new(doubles: Box<dyn Doubles>, options: &Options) -> Result<Session, Refusal> {
        let settings = Settings::read(options);
        settings.lang.waiting().map_or(Ok(()), |pack| Err(crate::pack::needed(pack)))?;
        let (mut recorder, lang) = (Recorder::new(doubles, settings.limits), settings.lang);
        let start = opening::start(options, &settings, &mut |s| recorder.checked(s, lang))?;
        recorder.keep(start.checked, lang);
        let mut session = Session {
            catalogue: start.catalogue,
            lang: settings.lang,
            replay: Replay::new(start.code),
            presentation: Presentation {
                controls: settings.controls,
                heading_level: settings.heading_level,
                reveal: false,
            },
            authored: start.authored,
            recorder,
            notices: start.notices,
            changes: Changes::all(),
            predictions: Predictions::new(settings.predict),
            what_if: WhatIf::default(),
        };
        session.rerecord();
        let shown = session.scenario().map(|s| s.function);
        if let Some((compare, edit)) = what_if::compare_edit(&options.compare, settings.scope.function, shown)
        {
            if session.what_if(Some(&edit)).is_err() {
                session.what_if.problems.clear();
                session.notices.push(Notice { key: "notice_compare", values: vec![("value", compare)] });
            }
        }
        session.set_breakpoints(&options.breakpoints);
        session.start_at(&options.step);
        session.changes = Changes::all();
        Ok(session)
    }

    /// Go to a step as the `step` attribute says (when set or changed), its number or a label's first
    /// line; one past the end opens the last. A mistake is a notice; a question on screen is dropped.
    pub fn start_at(&mut self, spec: &str) {
        self.changes.notices |= notice::forget(&mut self.notices, &replay::STEP_NOTICES);
        let spec = spec.trim();
        if spec.is_empty() {
            return;
        }
        let (found, notice) = self.replay.find(spec);
        self.changes.notices |= notice.is_some();
        self.notices.extend(notice);
        let Some(n) = found else { return };
        self.changes.predict |= self.predictions.drop_pending() | self.predictions.drop_last_answer();
        self.replay.open_at(n);
        self.stop_for_question(n, n);
        self.changes.step = true;
    }

    /// Use a smaller step cap (tests, benchmarks). Re-records.
    pub fn set_step_cap(&mut self, cap: usize) {
        self.recorder.limits.steps = cap.max(1);
        self.rerecord();
    }

    /// The budgets of one recording (see [`Limits`]).
    pub fn limits(&self) -> &Limits {
        &self.recorder.limits
    }

    /// How the page presents the playground: controls, the panel titles' heading level, tracing lines.
    pub fn presentation(&self) -> &Presentation {
        &self.presentation
    }

    // ----- reading -----

    /// The scenarios, the one on screen, the function it is limited to.
    pub fn catalogue(&self) -> &Catalogue {
        &self.catalogue
    }

    /// The scenario on screen: the changed version (what if) or the catalogue's.
    pub fn scenario(&self) -> Option<&Scenario> {
        self.what_if.changed.as_ref().or_else(|| self.catalogue.shown())
    }

    /// The recording on screen and the learner's place in it (trace, debugger, step, record, status).
    pub fn replay(&self) -> &Replay {
        &self.replay
    }

    pub fn lang(&self) -> Lang {
        self.lang
    }
    pub fn notices(&self) -> &[Notice] {
        &self.notices
    }

    /// What the page and `el.state()` report (docs/element-api.md).
    pub fn state(&self) -> Value {
        state::state(&self.replay, self.lang, &self.predictions, &self.what_if)
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

    /// Apply a control. Only a real move counts as a change (a Step at the end is not one).
    pub fn command(&mut self, command: Command) {
        // A question on screen waits for its answer; only going back leaves it.
        let backward = matches!(command, Command::Back | Command::Reset);
        if self.predictions.pending().is_some() && !backward {
            // (and the page brings the keyboard back to its choices)
            self.changes.predict = true;
            return;
        }
        self.predictions.drop_pending();
        self.changes.predict |= self.predictions.drop_last_answer();
        let (from, moved) = self.replay.go(command);
        let to = self.replay.position();
        self.stop_for_question(from, to);
        self.changes.step |= moved;
    }

    /// Jump to a step (the timeline).
    pub fn seek(&mut self, position: usize) {
        // A jump on the timeline is not a prediction: it drops the question.
        if self.predictions.drop_pending() | self.predictions.drop_last_answer() {
            self.changes.predict = true;
        }
        self.changes.step |= self.replay.seek(position);
    }

    /// Flip the breakpoint on a listing line (a click on its number). A line where the run can never
    /// stop (a comment, a brace) puts it on the next line that can; when there is none, nothing changes
    /// and the error says why. Returns whether a breakpoint is now set there.
    pub fn toggle_line(&mut self, function: Function, line: u32) -> Result<bool, String> {
        let line = match stop_line(self.replay.code(), function, line) {
            Ok(line) => line,
            Err(why) => {
                self.notices.push(breakpoints::no_stop_notice(function, line));
                self.changes.notices = true;
                return Err(why);
            }
        };
        self.changes.breakpoints = true;
        let on = self.replay.dbg.toggle(function, line);
        self.refresh_questions();
        Ok(on)
    }

    /// Flip a breakpoint in the breakpoint grammar ([`parse_breakpoint`]); a bare number is in `function`.
    pub fn toggle_breakpoint(&mut self, function: &str, spec: &str) -> Result<bool, String> {
        let near = self.replay.trace().function;
        let function = programs::function_near(near, function)
            .ok_or_else(|| format!("unknown function {function:?}"))?;
        let (f, n) = parse_breakpoint(spec, function, self.replay.code())?;
        self.toggle_line(f, n)
    }

    /// The breakpoints of a list (the `breakpoints` attribute, when set or changed) in place of those
    /// set before and of what an earlier list was told; an item not placed is a notice.
    pub fn set_breakpoints(&mut self, list: &str) {
        let (placed, notices) =
            breakpoints::place_all(list, self.replay.trace().function, self.replay.code());
        self.replay.replace_breakpoints(placed);
        let _ = notice::forget(&mut self.notices, &breakpoints::NOTICES);
        self.notices.extend(notices);
        (self.changes.notices, self.changes.breakpoints) = (true, true);
        self.refresh_questions();
    }

    /// Switch language. The question and the model's words are the learner's language too, so the run is
    /// recorded again (same steps: the position stays). Refused while the language's table has not arrived
    /// (`crate::pack::needed`) or its run is being read back ([`Recorder::must_read`]).
    pub fn set_lang(&mut self, lang: Lang) -> Result<(), Refusal> {
        lang.waiting().map_or(Ok(()), |pack| Err(crate::pack::needed(pack)))?;
        self.recorder.must_read(self.catalogue.shown().filter(|_| lang != self.lang), lang)?;
        notice::forget_language(&mut self.notices, lang.name());
        if lang != self.lang {
            self.lang = lang;
            self.changes.lang = true;
            let (position, started) = (self.replay.position(), self.replay.started());
            let screen = self.predictions.take_screen();
            self.rerecord();
            if started {
                self.replay.place(position);
            }
            // The same run in other words: a question on screen stays.
            self.predictions.put_screen(screen);
            // An author's listing for this language takes the Python's place.
            self.set_code(self.replay.code());
        }
        Ok(())
    }

    /// Show the listing in `python` or `rust` (the Python is the author's
    /// own where there is one for the language): the position and the
    /// breakpoints stay.
    pub fn set_code(&mut self, code: Code) {
        // (a recorded program has one listing: the Python that ran)
        let recorded = programs::recorded::of(self.replay.trace().function).is_some();
        let code = if recorded { Code::Python } else { listings::shown(code, &self.authored, self.lang) };
        if code != self.replay.code() {
            self.replay.dbg.set_code(code);
            self.refresh_questions();
            self.changes.listing = true;
            self.changes.breakpoints = true;
            self.changes.step = true;
        }
    }

    /// Open a card's full text, or close it when it is open.
    pub fn toggle_card(&mut self, index: usize) {
        self.replay.toggle_card(index);
        self.changes.step = true;
    }

    /// Close an open card's full text.
    pub fn close_card(&mut self) {
        self.changes.step |= self.replay.close_card();
    }

    pub fn set_reveal(&mut self, on: bool) {
        self.presentation.reveal = on;
        self.changes.reveal = true;
    }

    /// Show the scenario with this id (refused while its run is read back).
    pub fn load(&mut self, id: &str) -> Result<(), Refusal> {
        self.recorder.must_read(self.catalogue.valid(id), self.lang)?;
        self.catalogue.select(id)?;
        self.changes.notices |= notice::forget_mismatch(&mut self.notices, id);
        self.new_scenario();
        Ok(())
    }

    /// Another scenario on screen: what-if and the questions start afresh.
    fn new_scenario(&mut self) {
        self.what_if = WhatIf::default();
        self.predictions.new_scenario();
        self.rerecord();
    }

    // ----- predict -----

    /// This playground's predictions: the questions, the one waiting, the answers and the score.
    pub fn predictions(&self) -> &Predictions {
        &self.predictions
    }

    /// Turn predictions on or off; a waiting question is dropped.
    pub fn set_predict(&mut self, on: bool) {
        if self.predictions.switch(on) {
            self.refresh_questions();
            self.changes.predict = true;
        }
    }

    /// Answer the waiting question with choice `choice` (0 is the first).
    /// Returns the `playground-answer` detail; the move then goes on.
    pub fn answer(&mut self, choice: usize) -> Result<Value, String> {
        let answered = self.predictions.answer(choice, &self.replay.trace().scenario)?;
        // The question's line runs now; the move goes on to where it was going.
        self.replay.answered(answered.target);
        self.stop_for_question(answered.question_step + 1, answered.target);
        self.changes.step = true;
        self.changes.predict = true;
        Ok(answered.detail)
    }

    /// Forget the answers of this scenario and start it again.
    pub fn try_again(&mut self) {
        self.predictions.forget();
        self.replay.go(Command::Reset);
        self.changes.step = true;
        self.changes.predict = true;
    }

    /// Answers given since the last call, for `playground-answer` events.
    pub fn take_answers(&mut self) -> Vec<Value> {
        self.predictions.take_answers()
    }

    /// After a move from `from` (whose line ran first) to `to`: stop on the
    /// first unanswered question on the way.
    fn stop_for_question(&mut self, from: usize, to: usize) {
        if let Some(step) = self.predictions.stop_between(from, to) {
            self.replay.place(step);
            self.changes.predict = true;
        }
    }

    /// Recompute the questions (after a new recording, language, listing or breakpoints).
    /// Free while predictions are off.
    fn refresh_questions(&mut self) {
        let asks = match (self.predictions.on(), self.scenario()) {
            (true, Some(scenario)) => {
                let r = &self.replay;
                let breakpoints: Vec<_> = r.debugger().breakpoints().collect();
                crate::predict::questions(scenario, r.trace(), self.lang, r.code(), &breakpoints)
            }
            _ => Vec::new(),
        };
        self.predictions.set_questions(asks);
        self.changes.predict = true;
    }

    // ----- what if -----

    /// The changed version on screen (if any), the lesson's run beside it.
    pub fn what_if_state(&self) -> &WhatIf {
        &self.what_if
    }

    /// Record the scenario again with an edit (`{"model": [...], ...}`, see [`what_if`]), the learner's
    /// place kept where the new run has it; `None` goes back to the lesson's run. A bad edit changes nothing.
    pub fn what_if(&mut self, edit: Option<&Value>) -> Result<(), Vec<Problem>> {
        let Some(edit) = edit else {
            self.what_if.problems.clear();
            if self.what_if.changed.take().is_some() {
                // The changed run's answers were about that run; the lesson's come back.
                self.predictions.back_to_lesson();
                self.rerecord();
            }
            return Ok(());
        };
        let (r, from_version) = (&self.replay, self.what_if.changed.is_some());
        let was = r.started().then(|| what_if::place(r.trace(), r.position(), from_version));
        let applied = self.what_if.apply(self.catalogue.shown(), self.lang, edit);
        self.changes.setup |= applied.is_err();
        applied?;
        // The lesson's answers wait aside; each changed version starts afresh.
        self.predictions.into_what_if();
        self.rerecord();
        if let Some(at) = self.what_if.keep_place(was, self.replay.trace()) {
            self.replay.open_at(at);
        }
        Ok(())
    }

    /// The same from the setup panel's editors (`(field, JSON text)`), run
    /// on `function` (another loop of the program) or the scenario's own.
    pub fn what_if_texts(
        &mut self,
        texts: &[(&str, &str)],
        function: Option<&str>,
    ) -> Result<(), Vec<Problem>> {
        let (edit, not_json) = what_if::edit_of_texts(texts, function);
        if !not_json.is_empty() {
            // Said in the setup panel (the run stays as it was).
            self.changes.setup = true;
            return Err(self.what_if.refuse_texts(self.catalogue.shown(), self.lang, &edit, not_json, texts));
        }
        self.what_if(Some(&edit)).inspect_err(|_| at_lines(&mut self.what_if.problems, texts))
    }

    /// Go to the first step where the two runs part.
    pub fn to_parting(&mut self) {
        let at = self.what_if.comparison.as_ref().and_then(|c| c.parts_at);
        at.into_iter().for_each(|at| self.seek(at));
    }

    // ----- the author -----

    /// Add a scenario read from `file` ([`ADDED`] for `addScenario`; its problems name the file), from `text`
    /// (its warnings name their lines); it replaces one with its id. Refused while its run is read back.
    pub fn add_file(&mut self, file: &str, parsed: Parsed, text: Option<&str>) -> Result<String, Refusal> {
        let lang = self.lang;
        self.recorder.checks_read(parsed.as_ref().ok(), lang)?;
        self.changes.catalogue = true;
        let (outcome, replaced, run) =
            self.catalogue.add(file, parsed, text, &mut |s| self.recorder.checked(s, lang));
        self.recorder.keep(run, lang);
        self.changes.notices |= self.catalogue.arrived(&mut self.notices, file);
        if replaced {
            // A new version of the scenario on screen: what-if was about the old one.
            (self.what_if.changed, self.what_if.lesson_run) = (None, None);
            self.rerecord();
        }
        outcome
    }

    /// A file not fetched (`notice::unreadable_file`, `language_unavailable`), said once; or a long one
    /// come late, being recorded elsewhere (`notice::recording`), said until it is added.
    pub fn file_notice(&mut self, notice: Notice) {
        match notice.is_progress() {
            true => self.catalogue.recording(&mut self.notices, notice),
            false => notice::unreadable(&mut self.notices, notice),
        }
        (self.changes.notices, self.changes.catalogue) = (true, true);
    }

    /// Replace the model or the process (`None`: the scenario's double again). Re-records.
    pub fn set_double(&mut self, given: Override) {
        match given {
            Override::Model(model) => self.recorder.model = model,
            Override::Process(process) => self.recorder.process = process,
        }
        self.rerecord();
    }

    /// Record the current scenario again, back at the start (breakpoints stay).
    fn rerecord(&mut self) {
        let Some(lesson) = self.catalogue.shown().map(|s| s.localized(self.lang)) else { return };
        // (back from a what-if: the lesson's run kept beside it, not recorded or read again)
        let kept = self.what_if.lesson_run.take().filter(|_| self.what_if.changed.is_none());
        let lesson_run = kept.unwrap_or_else(|| self.recorder.lesson(&lesson, self.catalogue.shown_file()));
        // What if: the changed version on its own doubles, the lesson's run beside it.
        let changed_run =
            self.what_if.changed.as_ref().map(|s| self.recorder.changed(&s.localized(self.lang)));
        self.replay.show(self.what_if.show(lesson_run, changed_run));
        self.predictions.take_screen();
        self.refresh_questions();
        self.changes.recorded();
    }
}
