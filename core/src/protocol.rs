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

/// The question every scenario starts from, unless a fixture gives another
/// (in English; a page in another language asks in its own).
pub const QUESTION: &str = "Run main.py and only report the result.";

/// The English working agreement and tool description (a scenario in
/// another language brings its own).
pub const SYSTEM_EN: &str = "Work on the user's request. To run main.py, call run_main. \
Report what the result says, honestly, and do not change any file.";
pub const TOOL_DESCRIPTION_EN: &str =
    "Run main.py in the working directory; returns the exit code, stdout and stderr.";

/// What the model reads besides the record: the working agreement (the
/// Python's module-level `SYSTEM`) and the tool list (`TOOLS`), in the
/// scenario's language. A run is handed its setup; nothing is global.
#[derive(Clone, Debug, PartialEq)]
pub struct Setup {
    pub system: String,
    pub tools: Value,
}

impl Setup {
    /// The working agreement, and the one tool the model may ask for with
    /// this description (the model only sees the description; the function
    /// itself stays in the application).
    pub fn new(system: &str, tool_description: &str) -> Setup {
        let tools = json!([{
            "name": "run_main",
            "description": tool_description,
            "input_schema": {"type": "object", "properties": {}, "additionalProperties": false}
        }]);
        Setup { system: system.to_string(), tools }
    }
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

/// The fixed sentences the core writes — the lines `run_loop` emits and the
/// texts `run_main` puts in a tool result — as a kind and its values.
///
/// `runtime.rs` writes them as plain strings (that is what a learner should
/// read). This is the one place that knows their templates: [`Said::read`]
/// takes a text apart exactly (the same text comes back from `Display`, or
/// it is not recognised), and a test checks every template against the
/// string literals in `runtime.rs`. A page in another language shows a
/// translation by [`Said::kind`] with [`Said::values`].
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
    TimedOut { seconds: String },
    /// `cannot start: [Errno 2] …`
    CannotStart { error: String },
    /// `(no output)`
    NoOutput,
    /// Any other text, shown as it is.
    Text(String),
}

impl Said {
    /// Every template, as `runtime.rs` spells it (`{}` marks the value).
    pub const TEMPLATES: [&'static str; 8] = [
        "model call {}",
        "executing {}",
        "tool result: {}",
        "saved the tool results for the next call",
        "unsupported tool or arguments",
        "timed out after {} s",
        "cannot start: {}",
        "(no output)",
    ];

    /// The key of this sentence in the language tables (`said.<kind>`).
    pub fn kind(&self) -> &'static str {
        match self {
            Said::ModelCall { .. } => "model_call",
            Said::Executing { .. } => "executing",
            Said::ToolResult { .. } => "tool_result",
            Said::Saved => "saved",
            Said::Unsupported => "unsupported",
            Said::TimedOut { .. } => "timed_out",
            Said::CannotStart { .. } => "cannot_start",
            Said::NoOutput => "no_output",
            Said::Text(_) => "text",
        }
    }

    /// The values a translation fills in, by placeholder name.
    pub fn values(&self) -> Vec<(&'static str, String)> {
        match self {
            Said::ModelCall { number } => vec![("number", number.to_string())],
            Said::Executing { name } => vec![("name", name.clone())],
            Said::ToolResult { line } => vec![("line", line.clone())],
            Said::TimedOut { seconds } => vec![("seconds", seconds.clone())],
            Said::CannotStart { error } => vec![("error", error.clone())],
            Said::Text(text) => vec![("text", text.clone())],
            Said::Saved | Said::Unsupported | Said::NoOutput => Vec::new(),
        }
    }

    /// Read a text the core wrote: one of the templates exactly, else
    /// [`Said::Text`].
    pub fn read(text: &str) -> Said {
        Said::recognise(text).unwrap_or_else(|| Said::Text(text.to_string()))
    }

    /// The sentence this text is, if it is one of the templates exactly.
    pub fn recognise(text: &str) -> Option<Said> {
        let value = |template: &str| {
            let (head, tail) = template.split_once("{}")?;
            text.strip_prefix(head)?.strip_suffix(tail).map(str::to_string)
        };
        let [model_call, executing, tool_result, saved, unsupported, timed_out, cannot_start, no_output] =
            Said::TEMPLATES;
        let said = if let Some(n) = value(model_call).and_then(|n| n.parse().ok()) {
            Said::ModelCall { number: n }
        } else if let Some(name) = value(executing) {
            Said::Executing { name }
        } else if let Some(line) = value(tool_result) {
            Said::ToolResult { line }
        } else if let Some(seconds) = value(timed_out).filter(|s| is_decimal(s)) {
            Said::TimedOut { seconds }
        } else if let Some(error) = value(cannot_start) {
            Said::CannotStart { error }
        } else if text == saved {
            Said::Saved
        } else if text == unsupported {
            Said::Unsupported
        } else if text == no_output {
            Said::NoOutput
        } else {
            return None;
        };
        // Only what writes back to exactly the same text.
        (said.to_string() == text).then_some(said)
    }
}

/// A number as Rust prints an f64 (`3`, `0.5`), checked without parsing it
/// (float parsing would add kilobytes to the page).
fn is_decimal(s: &str) -> bool {
    let digits = |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
    match s.split_once('.') {
        Some((whole, part)) => digits(whole) && digits(part),
        None => digits(s),
    }
}

impl std::fmt::Display for Said {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let index = match self {
            Said::Text(text) => return f.write_str(text),
            Said::ModelCall { .. } => 0,
            Said::Executing { .. } => 1,
            Said::ToolResult { .. } => 2,
            Said::Saved => 3,
            Said::Unsupported => 4,
            Said::TimedOut { .. } => 5,
            Said::CannotStart { .. } => 6,
            Said::NoOutput => 7,
        };
        let template = Said::TEMPLATES[index];
        match (template.split_once("{}"), self.values().first()) {
            (Some((head, tail)), Some((_, value))) => write!(f, "{head}{value}{tail}"),
            _ => f.write_str(template),
        }
    }
}

impl Serialize for Said {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}
