//! The Rust doubles that replay a scenario (the model's replies and the
//! process's outcomes in order), and the reading of one process outcome
//! in fixture shape, which the page's process callback shares.

use crate::i18n::{Lang, Phrase};
use crate::protocol::{Model, ModelError, Process, ProcessOutcome};
use serde_json::Value;
use std::ops::Deref;
use std::rc::Rc;

/// A scenario's replies, in order: its file's own `model` list, read where
/// it is in the file's JSON (a file of 130,000 blocks is not copied), or
/// the replies as one language has them.
#[derive(Clone, Debug)]
pub enum Replies {
    /// The `model` list of this JSON (none: no replies).
    InFile(Rc<Value>),
    Own(Rc<[Value]>),
}

impl Deref for Replies {
    type Target = [Value];
    fn deref(&self) -> &[Value] {
        match self {
            Replies::InFile(raw) => raw.get("model").and_then(Value::as_array).map_or(&[], Vec::as_slice),
            Replies::Own(replies) => replies,
        }
    }
}

/// Whether a reply of `replies` has a text block in several languages
/// (`{"zh": …, "en": …}`): only then is a language's reply another value.
pub(super) fn in_languages(replies: &[Value]) -> bool {
    let blocks = replies.iter().filter_map(|r| r.get("content").and_then(Value::as_array)).flatten();
    blocks.into_iter().any(|block| block["text"].is_object())
}

/// A model reply with its text blocks in one language. A text that is not
/// a language map stays as it is (a fixture may be malformed on purpose).
pub(super) fn replies_in(reply: &Value, code: &str) -> Value {
    let mut reply = reply.clone();
    if let Some(blocks) = reply.get_mut("content").and_then(Value::as_array_mut) {
        for block in blocks {
            if block["text"].is_object() {
                if let Some(text) = super::fields::in_language(&block["text"], code) {
                    block["text"] = Value::String(text);
                }
            }
        }
    }
    reply
}

/// The same replies, wherever they are kept.
impl PartialEq for Replies {
    fn eq(&self, other: &Replies) -> bool {
        self[..] == other[..]
    }
}

impl From<Vec<Value>> for Replies {
    fn from(replies: Vec<Value>) -> Replies {
        Replies::Own(replies.into())
    }
}

/// What the process double does.
#[derive(Clone, Debug, PartialEq)]
pub enum ProcessScript {
    /// The same outcome on every run.
    Always(Value),
    /// One outcome per run; a run past the end cannot start.
    Each(Vec<Value>),
}

/// Read a process outcome in fixture shape:
/// `{returncode, stdout, stderr}` | `{timeout: true}` | `{os_error: "…"}`;
/// or what is wrong, with the field inside it (`.returncode`, or none).
pub fn outcome_from_json(v: &Value) -> Result<ProcessOutcome, (&'static str, Phrase)> {
    let Some(obj) = v.as_object() else {
        return Err(("", Phrase::word("check_outcome")));
    };
    if let Some(t) = obj.get("timeout") {
        return match t {
            Value::Bool(true) => Ok(ProcessOutcome::TimedOut),
            _ => Err((".timeout", Phrase::word("check_true"))),
        };
    }
    if let Some(e) = obj.get("os_error") {
        return match e.as_str() {
            Some(e) => Ok(ProcessOutcome::CannotStart(e.to_string())),
            None => Err((".os_error", Phrase::word("check_string"))),
        };
    }
    let returncode = match obj.get("returncode") {
        Some(rc) => rc.as_i64().ok_or((".returncode", Phrase::word("check_integer")))?,
        None => return Err(("", Phrase::word("check_outcome_needs"))),
    };
    let text = |k: &'static str, field: &'static str| match obj.get(k) {
        None => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(_) => Err((field, Phrase::word("check_string"))),
    };
    Ok(ProcessOutcome::Exited {
        returncode,
        stdout: text("stdout", ".stdout")?,
        stderr: text("stderr", ".stderr")?,
    })
}

/// What the program is told of an outcome it cannot read (the doubles'
/// and the page's process callback's): `bad outcome: returncode: …`.
pub fn bad_outcome(field: &str, say: &Phrase) -> ProcessOutcome {
    let field = field.trim_start_matches('.');
    let why = say.text(Lang::english());
    ProcessOutcome::CannotStart(if field.is_empty() {
        format!("bad outcome: {why}")
    } else {
        format!("bad outcome: {field}: {why}")
    })
}

/// Error name used when a model script has no reply left.
pub const SCRIPT_EXHAUSTED: &str = "ScriptExhausted";

/// The model error a fixture's `{"error": NAME}` produces. The JS double
/// builds exactly the same name and message.
pub fn scripted_error(name: &str) -> ModelError {
    // (no message: the setup's stand-in raises the bare exception)
    ModelError { name: name.to_string(), message: String::new() }
}

/// Model double: replies in call order, untouched.
pub struct ScriptedModel {
    pub(super) replies: Replies,
    pub(super) next: usize,
}

impl Model for ScriptedModel {
    fn create(&mut self, _request: &crate::protocol::Request) -> Result<Value, ModelError> {
        let Some(reply) = self.replies.get(self.next) else {
            return Err(ModelError { name: SCRIPT_EXHAUSTED.into(), message: String::new() });
        };
        self.next += 1;
        match reply.get("error").and_then(Value::as_str) {
            Some(name) => Err(scripted_error(name)),
            None => Ok(reply.clone()),
        }
    }
}

/// Process double: outcomes in run order.
pub struct ScriptedProcess {
    pub(super) script: ProcessScript,
    pub(super) next: usize,
    /// Why a run past the end cannot start, in the scenario's language.
    pub(super) exhausted: &'static str,
}

impl ScriptedProcess {
    /// How many runs asked for an outcome so far.
    pub fn runs(&self) -> usize {
        self.next
    }
}

impl Process for ScriptedProcess {
    fn run(&mut self, _command: &[&str], _timeout: crate::protocol::Seconds) -> ProcessOutcome {
        let outcome = match &self.script {
            ProcessScript::Always(v) => Some(v),
            ProcessScript::Each(runs) => runs.get(self.next),
        };
        self.next += 1;
        match outcome {
            Some(v) => outcome_from_json(v).unwrap_or_else(|(field, say)| bad_outcome(field, &say)),
            None => ProcessOutcome::CannotStart(self.exhausted.into()),
        }
    }
}
