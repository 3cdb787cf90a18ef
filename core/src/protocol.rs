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
use serde_json::Value;

/// What the model reads besides the record: the working agreement (the
/// Python's module-level `SYSTEM`) and the tool list (`TOOLS`), in the
/// scenario's language. A run is handed its setup; nothing is global.
#[derive(Clone, Debug, PartialEq)]
pub struct Setup {
    pub system: String,
    pub tools: Value,
}

/// The model name the lesson's entry point passes in.
pub const MODEL: &str = "teaching-model";

/// A failure of the run as a whole (not a loop status).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TraceError {
    pub kind: String,
    pub message: String,
}

/// One request to the model. `messages` is borrowed: the record is sent as
/// it is, never copied.
#[derive(Clone, Debug, Serialize)]
pub struct Request<'a> {
    pub model: &'a str,
    pub system: &'a str,
    pub messages: &'a [Value],
    pub tools: &'a Value,
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
    fn run(&mut self, command: &[&str], timeout: Seconds) -> ProcessOutcome;
}

/// A time in seconds (the lesson's `timeout`), written as Python writes a
/// number: `3`, `1.5`.
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
pub struct Seconds(pub f64);

impl std::fmt::Display for Seconds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // (not `{}` of the f64: see vocab::Decimal)
        crate::vocab::Decimal(self.0).fmt(f)
    }
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

/// The sentences a program writes into its run — the lines `run_loop`
/// emits, the texts `run_main` puts in a tool result, the outcome's text —
/// as a kind and its values. The words are the listing's: each language's
/// table holds the template of every kind (`said.<kind>` in
/// fixtures/i18n), and a run is recorded in one language, so the record,
/// the output and the Python listing of that language say the same
/// characters (tests/python.rs runs each language's listing to prove it).
#[derive(Clone, Debug, PartialEq)]
pub enum Said {
    /// `model call 2`
    ModelCall { number: i64 },
    /// `executing run_main`
    Executing { name: String },
    /// `tool result: ZeroDivisionError: division by zero`
    ToolResult { line: String },
    /// `saved the tool results for the next call`
    Saved,
    /// `unsupported tool or arguments`
    Unsupported,
    /// `timed out after 3 s` (the timeout as the code prints it)
    TimedOut { seconds: Seconds },
    /// `cannot start: [Errno 2] …`
    CannotStart { error: String },
    /// `(no output)`
    NoOutput,
    /// `model request failed: APIConnectionError`
    ModelFailed { name: String },
    /// The response's blocks are not ones the lesson reads.
    BadFormat,
    /// `the model stopped: max_tokens; check the response`
    ModelStopped { reason: String },
    /// The stop reason and the tool requests disagree.
    Mismatch,
    /// Every model call was used.
    CallLimit { max_calls: i64 },
    /// `max_calls` is below 1.
    BadBudget { max_calls: i64 },
    /// Lesson two: `turn 2: stop_reason=tool_use`.
    Turn { turn: i64, reason: String },
    /// Lesson two: the loop used every turn of its safety net.
    CapHit,
    /// Lesson two: `execute_tool` refuses a name (`Unknown tool: …`).
    UnknownTool { name: String },
    /// Lesson two's anti-pattern: the word it looks for in the text (`done`).
    DoneWord,
}

/// How a run says a [`Said`]: in the language it is recorded in.
pub type Say<'a> = &'a dyn Fn(Said) -> String;

impl Said {
    /// Every kind, for the tests that check each table has each.
    pub const KINDS: [&'static str; 18] = [
        "model_call",
        "executing",
        "tool_result",
        "saved",
        "unsupported",
        "timed_out",
        "cannot_start",
        "no_output",
        "model_failed",
        "bad_format",
        "model_stopped",
        "mismatch",
        "call_limit",
        "bad_budget",
        "turn",
        "cap_hit",
        "unknown_tool",
        "done_word",
    ];

    /// The key of this sentence in the language tables (`said.<kind>`).
    pub fn kind(&self) -> &'static str {
        let i = match self {
            Said::ModelCall { .. } => 0,
            Said::Executing { .. } => 1,
            Said::ToolResult { .. } => 2,
            Said::Saved => 3,
            Said::Unsupported => 4,
            Said::TimedOut { .. } => 5,
            Said::CannotStart { .. } => 6,
            Said::NoOutput => 7,
            Said::ModelFailed { .. } => 8,
            Said::BadFormat => 9,
            Said::ModelStopped { .. } => 10,
            Said::Mismatch => 11,
            Said::CallLimit { .. } => 12,
            Said::BadBudget { .. } => 13,
            Said::Turn { .. } => 14,
            Said::CapHit => 15,
            Said::UnknownTool { .. } => 16,
            Said::DoneWord => 17,
        };
        Said::KINDS[i]
    }

    /// The values a template fills in, by placeholder name.
    pub fn values(&self) -> Vec<(&'static str, String)> {
        match self {
            Said::ModelCall { number } => vec![("number", number.to_string())],
            Said::Executing { name } => vec![("name", name.clone())],
            Said::ToolResult { line } => vec![("line", line.clone())],
            Said::TimedOut { seconds } => vec![("seconds", seconds.to_string())],
            Said::CannotStart { error } => vec![("error", error.clone())],
            Said::ModelFailed { name } => vec![("name", name.clone())],
            Said::ModelStopped { reason } => vec![("reason", reason.clone())],
            Said::CallLimit { max_calls } | Said::BadBudget { max_calls } => {
                vec![("max_calls", max_calls.to_string())]
            }
            Said::Turn { turn, reason } => vec![("turn", turn.to_string()), ("reason", reason.clone())],
            Said::UnknownTool { name } => vec![("name", name.clone())],
            Said::Saved
            | Said::Unsupported
            | Said::NoOutput
            | Said::BadFormat
            | Said::Mismatch
            | Said::CapHit
            | Said::DoneWord => Vec::new(),
        }
    }
}
