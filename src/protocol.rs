//! The data the loop core reads and writes.
//!
//! Messages and model responses stay plain JSON (`serde_json::Value`): a model
//! double may return anything, and the loop must *inspect* what came back
//! rather than trust a type. What the core itself decides — the final
//! [`Status`], the [`Outcome`], a process's [`ProcessOutcome`] — is typed.
//!
//! The two things the core talks to, the model and the process, are traits
//! ([`Model`], [`Process`]) so that the same code runs against fixture
//! doubles natively, and against JavaScript callbacks in the browser.

use serde::Serialize;
use serde_json::{json, Value};

/// The question every scenario starts from, unless a fixture gives another.
pub const QUESTION: &str = "Run main.py and only report the result.";

/// The working agreement sent with every request.
pub const SYSTEM: &str = "Work on the user's request. To run main.py, call run_main. \
Report what the result says, honestly, and do not change any file.";

/// The model name the lesson's entry point passes in.
pub const MODEL: &str = "teaching-model";

/// The one tool the model may ask for. The model only sees this description;
/// the function itself stays in the application.
pub fn tools() -> Value {
    json!([{
        "name": "run_main",
        "description": "Run main.py in the working directory; returns the exit code, stdout and stderr.",
        "input_schema": {"type": "object", "properties": {}, "additionalProperties": false}
    }])
}

/// One request to the model. `messages` is borrowed: the record is sent as
/// it is, never copied.
#[derive(Clone, Debug, Serialize)]
pub struct Request<'a> {
    pub model: &'a str,
    pub system: &'a str,
    pub messages: &'a [Value],
    pub tools: Value,
    pub max_tokens: u32,
}

/// The model threw instead of answering (network down, overloaded, ...).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ModelError {
    /// The error's type name, e.g. `APIConnectionError`.
    pub name: String,
    pub message: String,
}

/// Anything that can answer one request; the answer is returned untouched.
pub trait Model {
    fn create(&mut self, request: &Request) -> Result<Value, ModelError>;
}

/// How one run of `python main.py` ended.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ProcessOutcome {
    /// The process ran and exited with this code.
    Exited { returncode: i64, stdout: String, stderr: String },
    /// It was still running when the timeout passed.
    TimedOut,
    /// It could not be started at all (missing interpreter, permissions, ...).
    CannotStart(String),
}

/// Anything that can run a command with a timeout.
pub trait Process {
    fn run(&mut self, command: &[&str], timeout_s: f64) -> ProcessOutcome;
}

/// Why `run_loop` stopped. Only `Answered` means the model gave an answer;
/// every other status hands control back to the caller with the evidence.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Answered,
    CallLimit,
    ModelStopped,
    ProtocolError,
    ModelError,
}

impl Status {
    pub const ALL: [Status; 5] = [
        Status::Answered,
        Status::CallLimit,
        Status::ModelStopped,
        Status::ProtocolError,
        Status::ModelError,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Status::Answered => "answered",
            Status::CallLimit => "call_limit",
            Status::ModelStopped => "model_stopped",
            Status::ProtocolError => "protocol_error",
            Status::ModelError => "model_error",
        }
    }
}

/// What `run_loop` returns: the status, a short text, how many model calls
/// were made, and the whole message record.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Outcome {
    pub status: Status,
    pub text: String,
    pub calls: i64,
    pub messages: Vec<Value>,
}

/// `run_loop` refuses to start (e.g. `max_calls < 1`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LoopError {
    pub kind: String,
    pub message: String,
}
