//! Shared vocabulary: the names every layer uses and none of them owns.
//!
//! This is the leaf of the crate's layering (see ARCHITECTURE.md): it
//! imports nothing from the crate, so any module may import it.

use serde::{Deserialize, Serialize};

/// The three functions of the lesson.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Function {
    AskClaude,
    RunMain,
    RunLoop,
}

impl Function {
    pub const ALL: [Function; 3] = [Function::AskClaude, Function::RunMain, Function::RunLoop];

    /// The name as the code and the page spell it (`run_loop`).
    pub fn name(self) -> &'static str {
        match self {
            Function::AskClaude => "ask_claude",
            Function::RunMain => "run_main",
            Function::RunLoop => "run_loop",
        }
    }

    pub fn from_name(name: &str) -> Option<Function> {
        Function::ALL.into_iter().find(|f| f.name() == name)
    }
}

/// The language a listing is shown in. The steps are recorded from the
/// Rust; the Python is the lesson's, proven to run the same steps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Code {
    Python,
    Rust,
}

impl Code {
    pub const ALL: [Code; 2] = [Code::Python, Code::Rust];

    pub fn name(self) -> &'static str {
        match self {
            Code::Python => "python",
            Code::Rust => "rust",
        }
    }

    pub fn from_name(name: &str) -> Option<Code> {
        Code::ALL.into_iter().find(|c| c.name() == name.trim().to_ascii_lowercase())
    }
}
