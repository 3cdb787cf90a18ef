//! Beyond replaying: predict before a line runs, and what if the model (or
//! the process) had answered otherwise.
//!
//! Predict: with the switch on, a move that would run a line carrying a
//! question stops on that line and waits; [`Session::answer`] records the
//! answer (and queues a `playground-answer` event), then the move goes on.
//! What if: [`Session::what_if`] records a changed copy of the scenario and
//! keeps the lesson's own run beside it for [`Session::comparison`].

use super::Session;
use crate::i18n::Lang;
use crate::lesson;
use crate::predict::{self, Ask};
use crate::run::Trace;
use crate::scenario::{Problem, Scenario};
use serde_json::{json, Value};

/// A question on screen, waiting for its answer.
#[derive(Clone, Debug, PartialEq)]
pub struct Pending {
    /// The question's [`Ask::key`].
    pub key: String,
    /// Where the learner's move was going.
    target: usize,
}

/// One given answer.
#[derive(Clone, Debug, PartialEq)]
pub struct Answer {
    pub key: String,
    pub choice: usize,
    pub correct: bool,
}

/// The lesson's run and the changed one, side by side.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    pub lesson: Summary,
    pub changed: Summary,
    /// The first step where the runs part (`None`: the same throughout).
    pub parts_at: Option<usize>,
    /// What differs there: local names, or `line`, `record`, `end`.
    pub differs: Vec<String>,
}

/// What a run came to.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// The final status or error kind; `done` for a normal return.
    pub ending: String,
    pub calls: i64,
    pub record: usize,
    pub steps: usize,
}

impl Comparison {
    /// Two runs side by side: where they part (a scan of both traces).
    pub(super) fn of(lesson: &Trace, changed: &Trace) -> Comparison {
        let parts_at = lesson.parts_from(changed);
        Comparison {
            lesson: Summary::of(lesson),
            changed: Summary::of(changed),
            parts_at,
            differs: parts_at.map(|i| lesson.differences(changed, i)).unwrap_or_default(),
        }
    }
}

impl Summary {
    fn of(t: &Trace) -> Summary {
        Summary {
            ending: t.ending().unwrap_or("done").to_string(),
            calls: t.result.get("calls").and_then(Value::as_i64).unwrap_or(0),
            record: t.record.len(),
            steps: t.steps.len(),
        }
    }
}

/// Fields an edit may change.
const EDITABLE: [&str; 2] = ["model", "process"];

impl Session {
    // ----- predict -----

    pub fn predict(&self) -> bool {
        self.predict
    }

    /// Turn predictions on or off; a waiting question is dropped.
    pub fn set_predict(&mut self, on: bool) {
        if on != self.predict {
            self.predict = on;
            self.pending = None;
            self.refresh_questions();
            self.changes.predict = true;
        }
    }

    /// This run's questions (empty while predictions are off).
    pub fn questions(&self) -> &[Ask] {
        &self.asks
    }

    /// The question waiting for an answer, if any.
    pub fn pending(&self) -> Option<&Ask> {
        let key = &self.pending.as_ref()?.key;
        self.asks.iter().find(|a| &a.key == key)
    }

    /// The last answer given, shown until the learner moves again.
    pub fn last_answer(&self) -> Option<(&Ask, &Answer)> {
        let answer = self.last_answer.as_ref()?;
        Some((self.asks.iter().find(|a| a.key == answer.key)?, answer))
    }

    /// `(right, answered)` in this scenario since it was loaded or "try again".
    pub fn score(&self) -> (usize, usize) {
        (self.answers.iter().filter(|(_, a)| a.correct).count(), self.answers.len())
    }

    /// Answer the waiting question with choice `choice` (0 is the first).
    /// Returns the `playground-answer` detail; the move then goes on.
    pub fn answer(&mut self, choice: usize) -> Result<Value, String> {
        let ask = self.pending().cloned().ok_or("no question is waiting for an answer")?;
        if choice >= ask.choices.len() {
            return Err(format!("choice {choice} is not one of 0 to {}", ask.choices.len() - 1));
        }
        let target = self.pending.take().map_or(ask.step, |p| p.target);
        let correct = choice == ask.answer;
        let answer = Answer { key: ask.key.clone(), choice, correct };
        // (a short list by question key; a second answer replaces the first)
        match self.answers.iter_mut().find(|(key, _)| *key == ask.key) {
            Some(given) => given.1 = answer.clone(),
            None => self.answers.push((ask.key.clone(), answer.clone())),
        }
        self.last_answer = Some(answer);
        let detail = json!({
            "question": ask.key,
            "text": ask.text,
            "choice": choice,
            "correct": correct,
            "scenario": self.trace.scenario,
            "label": ask.label,
        });
        self.outbox.push(detail.clone());
        // The question's line runs now; the move goes on to where it was going.
        self.previous_len = self.record_len();
        self.dbg.seek(target, &self.trace.steps);
        self.stop_for_question(ask.step + 1, target);
        self.changes.step = true;
        self.changes.predict = true;
        Ok(detail)
    }

    /// Forget the answers of this scenario and start it again.
    pub fn try_again(&mut self) {
        self.answers.clear();
        self.last_answer = None;
        self.pending = None;
        self.dbg.command(crate::debugger::Command::Reset, &self.trace.steps);
        self.changes.step = true;
        self.changes.predict = true;
    }

    /// An answer was given and its event is not sent yet (the page moves
    /// the focus to the verdict).
    pub fn answered_now(&self) -> bool {
        !self.outbox.is_empty()
    }

    /// Answers given since the last call, for `playground-answer` events.
    pub fn take_answers(&mut self) -> Vec<Value> {
        std::mem::take(&mut self.outbox)
    }

    /// After a move from `from` (whose line ran first) to `to`, the current
    /// position: stop on the first unanswered question on the way, the line
    /// arrived at included (its caption would give the answer away).
    pub(super) fn stop_for_question(&mut self, from: usize, to: usize) {
        if !self.predict || to < from {
            return;
        }
        let next = self
            .asks
            .iter()
            .find(|a| (from..=to).contains(&a.step) && !self.answers.iter().any(|(key, _)| *key == a.key));
        if let Some(ask) = next {
            self.pending = Some(Pending { key: ask.key.clone(), target: to });
            let step = ask.step;
            self.dbg.seek(step, &self.trace.steps);
            self.changes.predict = true;
        }
    }

    /// Recompute the questions (after a new recording, language, listing or
    /// breakpoints). Free while predictions are off.
    pub(super) fn refresh_questions(&mut self) {
        self.asks = match (self.predict, self.scenario()) {
            (true, Some(scenario)) => {
                let breakpoints: Vec<_> = self.dbg.breakpoints().collect();
                predict::questions(scenario, &self.trace, self.lang, self.dbg.code(), &breakpoints)
            }
            _ => Vec::new(),
        };
        // A question that is gone (its breakpoint removed) no longer waits.
        if self.pending.as_ref().is_some_and(|p| self.asks.iter().all(|a| a.key != p.key)) {
            self.pending = None;
        }
        self.changes.predict = true;
    }

    // ----- what if -----

    /// True while a changed version of the scenario is shown.
    pub fn is_what_if(&self) -> bool {
        self.what_if.is_some()
    }

    /// Record the scenario again with its model replies and/or process
    /// outcomes replaced: `{"model": [...], "process": ...}`. `None` goes
    /// back to the lesson's run. A bad edit changes nothing; its problems
    /// name the field.
    pub fn what_if(&mut self, edit: Option<&Value>) -> Result<(), Vec<Problem>> {
        let Some(edit) = edit else {
            self.edit_problems.clear();
            if self.what_if.take().is_some() {
                // The changed run's answers were about that run; the lesson's come back.
                self.answers = self.lesson_answers.take().unwrap_or_default();
                self.rerecord();
            }
            return Ok(());
        };
        let changed = self.changed_scenario(edit).map_err(|problems| self.refused(problems))?;
        self.edit_problems.clear();
        // The lesson's answers wait aside; each changed version starts afresh.
        if self.what_if.is_none() {
            self.lesson_answers = Some(std::mem::take(&mut self.answers));
        }
        self.answers.clear();
        self.what_if = Some(changed);
        self.rerecord();
        Ok(())
    }

    /// The same from the texts of the setup panel's editors (each may be
    /// absent); text that is not JSON is a problem of that field.
    pub fn what_if_texts(&mut self, model: Option<&str>, process: Option<&str>) -> Result<(), Vec<Problem>> {
        let mut edit = serde_json::Map::new();
        let mut problems = Vec::new();
        for (field, text) in [("model", model), ("process", process)] {
            let Some(text) = text else { continue };
            match serde_json::from_str::<Value>(text) {
                Ok(v) => {
                    edit.insert(field.into(), v);
                }
                Err(e) => problems.push(EditProblem::word(field, "edit_not_json", &e.to_string())),
            }
        }
        if !problems.is_empty() {
            return Err(self.refused(problems));
        }
        self.what_if(Some(&Value::Object(edit)))
    }

    /// A refused edit: said in the setup panel (the run stays as it was),
    /// and returned to the API in English.
    fn refused(&mut self, problems: Vec<EditProblem>) -> Vec<Problem> {
        let english = Lang::parse("en").unwrap_or_else(Lang::default_lang);
        let said =
            problems.iter().map(|p| Problem { field: p.field.clone(), message: p.why(english) }).collect();
        self.edit_problems = problems;
        self.changes.setup = true;
        said
    }

    /// What was wrong with the last edit.
    pub fn edit_problems(&self) -> &[EditProblem] {
        &self.edit_problems
    }

    fn changed_scenario(&self, edit: &Value) -> Result<Scenario, Vec<EditProblem>> {
        let problem = |field: &str, key: &'static str| vec![EditProblem::word(field, key, "")];
        let Some(edit) = edit.as_object() else {
            return Err(problem("(edit)", "edit_not_object"));
        };
        if let Some(key) = edit.keys().find(|k| !EDITABLE.contains(&k.as_str())) {
            return Err(problem(key, "edit_only"));
        }
        let base = self.lesson_scenario().ok_or_else(|| problem("(edit)", "edit_no_scenario"))?;
        let shown = base.localized(self.lang);
        let mut raw = base.raw.clone();
        if let Some(model) = edit.get("model") {
            match model.as_array() {
                None => return Err(problem("model", "edit_not_list")),
                Some(list) if list.is_empty() => return Err(problem("model", "edit_empty")),
                Some(list) => {
                    check_replies(list)?;
                    // A reply left as shown keeps every language; a changed one is
                    // the learner's own words.
                    let replies = list.iter().enumerate().map(|(i, reply)| match shown.model.get(i) {
                        Some(same) if same == reply => base.raw["model"][i].clone(),
                        _ => reply.clone(),
                    });
                    raw["model"] = Value::Array(replies.collect());
                }
            }
        }
        if let Some(process) = edit.get("process") {
            raw["process"] = process.clone();
        }
        // The lesson's expectations and questions describe the lesson's run.
        // (a new map, not `remove`: no removal code for the page)
        if let Value::Object(map) = &raw {
            let mut kept = serde_json::Map::new();
            for (k, v) in map.iter().filter(|(k, _)| *k != "expect" && *k != "questions") {
                kept.insert(k.clone(), v.clone());
            }
            raw = Value::Object(kept);
        }
        // The scenario format's own checks say what `check` says.
        Scenario::from_value(raw).map_err(|problems| {
            problems.into_iter().map(|p| EditProblem { field: p.field, why: Why::Said(p.message) }).collect()
        })
    }

    /// The scenario of the catalogue entry shown (not a changed version).
    pub(super) fn lesson_scenario(&self) -> Option<&Scenario> {
        self.entries.get(self.current).and_then(|e| e.parsed.as_ref().ok())
    }

    /// The lesson's run beside the changed one (`None` unless what-if);
    /// found once per recording, not per step.
    pub fn comparison(&self) -> Option<&Comparison> {
        self.comparison.as_ref()
    }

    /// The lesson's run at step `index` in the listing shown: `(label,
    /// line)`, for stepping both runs in lockstep.
    pub fn lesson_step(&self, index: usize) -> Option<(&'static str, u32)> {
        let step = self.lesson_run.as_ref()?.steps.get(index)?;
        Some((step.label, lesson::line_in(self.dbg.code(), step)))
    }

    /// Go to the first step where the two runs part.
    pub fn to_parting(&mut self) {
        if let Some(at) = self.comparison().and_then(|c| c.parts_at) {
            self.seek(at);
        }
    }
}

/// The scenario format lets a reply be malformed on purpose (to show a
/// protocol error); an edit still has to be a reply: an object whose
/// `stop_reason`, if given, is a text.
fn check_replies(list: &[Value]) -> Result<(), Vec<EditProblem>> {
    let problems: Vec<EditProblem> = list
        .iter()
        .enumerate()
        .filter_map(|(i, reply)| match reply {
            Value::Object(map) => match map.get("stop_reason") {
                None | Some(Value::String(_)) | Some(Value::Null) => None,
                Some(_) => {
                    Some(EditProblem::word(&format!("model[{i}].stop_reason"), "edit_stop_reason", ""))
                }
            },
            _ => Some(EditProblem::word(&format!("model[{i}]"), "edit_not_reply", "")),
        })
        .collect();
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems)
    }
}

/// A problem of a what-if edit: the field, and why.
#[derive(Clone, Debug, PartialEq)]
pub struct EditProblem {
    pub field: String,
    pub why: Why,
}

/// Why an edit was refused: a word of the language tables (with a detail,
/// e.g. the JSON parser's), or a check of the scenario format, said as
/// `check` says it.
#[derive(Clone, Debug, PartialEq)]
pub enum Why {
    Word(&'static str, String),
    Said(String),
}

impl EditProblem {
    fn word(field: &str, key: &'static str, detail: &str) -> EditProblem {
        EditProblem { field: field.into(), why: Why::Word(key, detail.into()) }
    }

    /// Why, in `lang`.
    pub fn why(&self, lang: Lang) -> String {
        match &self.why {
            Why::Word(key, detail) if detail.is_empty() => lang.word(key).to_string(),
            Why::Word(key, detail) => format!("{}: {detail}", lang.word(key)),
            Why::Said(message) => message.clone(),
        }
    }

    /// `field: why`, in `lang`.
    pub fn text(&self, lang: Lang) -> String {
        format!("{}: {}", self.field, self.why(lang))
    }
}
