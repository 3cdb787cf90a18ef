//! Predict, then step: this run's questions, the one waiting for its
//! answer, the answers given in this scenario, and the answers not yet told
//! to the page.
//!
//! With predictions on, a move that would run a line carrying a question
//! stops on that line and waits ([`Predictions::stop_between`]); an answer
//! ([`Predictions::answer`]) is kept by question key, and the move goes on
//! to where it was going. The session owns the position; this part only
//! says where to stop.

use crate::predict::Ask;
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

/// What an answer did: the `playground-answer` detail, the step of the
/// question's line (it runs now) and where the move was going.
#[derive(Clone, Debug, PartialEq)]
pub struct Answered {
    pub detail: Value,
    pub question_step: usize,
    pub target: usize,
}

/// The predictions of one playground.
#[derive(Debug, Default)]
pub struct Predictions {
    on: bool,
    asks: Vec<Ask>,
    pending: Option<Pending>,
    /// A short list by question key; a second answer replaces the first.
    answers: Vec<(String, Answer)>,
    /// The lesson's answers, kept aside while a what-if run is shown.
    lesson_answers: Option<Vec<(String, Answer)>>,
    last_answer: Option<Answer>,
    outbox: Vec<Value>,
}

impl Predictions {
    pub fn new(on: bool) -> Predictions {
        Predictions { on, ..Predictions::default() }
    }

    pub fn on(&self) -> bool {
        self.on
    }

    /// Switch; a waiting question is dropped. Whether anything changed.
    pub fn switch(&mut self, on: bool) -> bool {
        let changed = on != self.on;
        if changed {
            self.on = on;
            self.pending = None;
        }
        changed
    }

    /// This run's questions (empty while predictions are off).
    pub fn questions(&self) -> &[Ask] {
        &self.asks
    }

    /// Take this run's questions; a waiting question that is gone (its
    /// breakpoint removed) no longer waits.
    pub fn set_questions(&mut self, asks: Vec<Ask>) {
        self.asks = asks;
        if self.pending.as_ref().is_some_and(|p| self.asks.iter().all(|a| a.key != p.key)) {
            self.pending = None;
        }
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

    /// Answer the waiting question with choice `choice` (0 is the first),
    /// in the run of `scenario`.
    pub fn answer(&mut self, choice: usize, scenario: &str) -> Result<Answered, String> {
        let ask = self.pending().cloned().ok_or("no question is waiting for an answer")?;
        if choice >= ask.choices.len() {
            return Err(format!("choice {choice} is not one of 0 to {}", ask.choices.len() - 1));
        }
        let target = self.pending.take().map_or(ask.step, |p| p.target);
        let correct = choice == ask.answer;
        let answer = Answer { key: ask.key.clone(), choice, correct };
        match self.answers.iter_mut().find(|(key, _)| *key == ask.key) {
            Some(given) => given.1 = answer.clone(),
            None => self.answers.push((ask.key.clone(), answer.clone())),
        }
        self.last_answer = Some(answer);
        let detail = json!({
            "question": ask.key,
            "text": ask.text,
            "choice": choice,
            "written": ask.written.get(choice),
            "correct": correct,
            "scenario": scenario,
            "label": ask.label,
        });
        self.outbox.push(detail.clone());
        Ok(Answered { detail, question_step: ask.step, target })
    }

    /// A move from `from` (whose line ran first) to `to`: the first
    /// unanswered question on the way, the line arrived at included (its
    /// caption would give the answer away), now waits; its step is where
    /// the move stops.
    pub fn stop_between(&mut self, from: usize, to: usize) -> Option<usize> {
        if !self.on || to < from {
            return None;
        }
        let answered = |key: &str| self.answers.iter().any(|(k, _)| k == key);
        let ask = self.asks.iter().find(|a| (from..=to).contains(&a.step) && !answered(&a.key))?;
        self.pending = Some(Pending { key: ask.key.clone(), target: to });
        Some(ask.step)
    }

    /// Drop the waiting question; whether there was one.
    pub fn drop_pending(&mut self) -> bool {
        self.pending.take().is_some()
    }

    /// Stop showing the last answer; whether one was shown.
    pub fn drop_last_answer(&mut self) -> bool {
        self.last_answer.take().is_some()
    }

    /// The question and the answer on screen, taken out to be put back
    /// after the same run is recorded in other words.
    pub fn take_screen(&mut self) -> (Option<Pending>, Option<Answer>) {
        (self.pending.take(), self.last_answer.take())
    }

    pub fn put_screen(&mut self, (pending, last): (Option<Pending>, Option<Answer>)) {
        (self.pending, self.last_answer) = (pending, last);
    }

    /// Forget the answers of this scenario ("try again").
    pub fn forget(&mut self) {
        self.answers.clear();
        self.last_answer = None;
        self.pending = None;
    }

    /// Another scenario: its own answers, nothing kept aside.
    pub fn new_scenario(&mut self) {
        self.answers.clear();
        self.lesson_answers = None;
    }

    /// A what-if run starts afresh; the lesson's answers wait aside (once).
    pub fn into_what_if(&mut self) {
        let given = std::mem::take(&mut self.answers);
        if self.lesson_answers.is_none() {
            self.lesson_answers = Some(given);
        }
    }

    /// Back to the lesson's run: its answers come back.
    pub fn back_to_lesson(&mut self) {
        self.answers = self.lesson_answers.take().unwrap_or_default();
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
}
