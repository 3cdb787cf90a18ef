//! The seam to CPython: the job the harness (`record.py`) is given, one
//! run of it through the CLI's Python runner (`python3 record.py
//! program.py job.json <mode>`, natively or under Node), and what it
//! answered, or why there is no answer. The harness keeps each run to its
//! budgets; the runner stops python3 if it is still running [`GRACE`]
//! seconds after the time budget, or writes more than
//! [`python::MAX_BYTES`].

use crate::python::{self, Bounds, PyRun, Stopped};
use serde_json::Value;
use std::path::Path;

/// The harness, compiled in.
pub(super) const RECORD: &str = include_str!("../record.py");

/// The oldest CPython the recorder runs on (its line events and `ast`'s
/// end lines).
pub(super) const NEEDED: &str = "3.10";

/// What `record` needs from the machine: the manifest's files, and
/// CPython. [`crate::commands`] gives it over its `Io`.
pub trait Machine {
    /// A file's text (UTF-8, at most the CLI's 16 MB, a BOM dropped), or
    /// why it cannot be read.
    fn read(&mut self, path: &Path) -> Result<String, String>;
    /// One run of `python3 harness program job mode` (the three texts
    /// written to a private folder) within `bounds`; `None` when there is
    /// no `python3`.
    fn python(&mut self, texts: [&str; 3], mode: &str, bounds: Bounds) -> Option<Result<PyRun, String>>;
    /// Whether there is a `python3` to run (nothing is run for it but,
    /// once, `python3 --version`).
    fn has_python(&mut self) -> bool;
}

/// A recording's budgets.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Steps of one run (one scenario in one language).
    pub steps: u64,
    /// Seconds of one run.
    pub seconds: f64,
    /// Characters a run may print.
    pub output_chars: u64,
}

impl Limits {
    /// 10,000 steps, 10 s, 200,000 characters.
    pub const DEFAULT: Limits = Limits { steps: 10_000, seconds: 10.0, output_chars: 200_000 };

    pub(super) fn json(&self) -> Value {
        serde_json::json!({"steps": self.steps, "seconds": self.seconds, "output_chars": self.output_chars})
    }
}

/// Seconds python3 may go on past a run's time budget before the runner
/// stops it (the harness itself ends a stuck run 3 s after it).
pub(super) const GRACE: f64 = 5.0;

/// Why there is no python3 to record with.
pub(super) fn no_python() -> String {
    format!(
        "python3 was not found: record runs the program under CPython {NEEDED} or newer \
         (install python3, e.g. `apt-get install python3`, and make sure `python3` is on the PATH)"
    )
}

/// Why the harness gave no answer.
#[derive(Debug)]
pub(super) enum Failed {
    /// The machine's CPython cannot record (none, or older than
    /// [`NEEDED`]): said once, for the manifest.
    Python(String),
    /// This run failed (said at its file or scenario).
    Run(String),
}

/// Run the harness on `program` with `job` in `mode` (`inspect`, `run`):
/// its JSON answer, or what went wrong, in a sentence.
pub(super) fn call(
    machine: &mut dyn Machine,
    program: &str,
    job: &Value,
    mode: &str,
) -> Result<Value, Failed> {
    let job_text = job.to_string();
    let budget = job["limits"]["seconds"].as_f64().unwrap_or(Limits::DEFAULT.seconds);
    let bounds = Bounds { seconds: budget + GRACE, bytes: python::MAX_BYTES };
    let Some(ran) = machine.python([RECORD, program, &job_text], mode, bounds) else {
        return Err(Failed::Python(no_python()));
    };
    let ran = ran.map_err(Failed::Python)?;
    match ran.stopped {
        Some(Stopped::Time) => {
            return Err(Failed::Run(format!(
                "python3 was still running {} s after the time budget of {} s and was stopped \
                 (raise the budget with --timeout)",
                agent_loop_core::vocab::Decimal(GRACE),
                agent_loop_core::vocab::Decimal(budget)
            )))
        }
        Some(why) => return Err(Failed::Run(python::stopped(why, bounds, "--timeout"))),
        None => {}
    }
    if !ran.success {
        return Err(Failed::Run(failed(&ran.stderr, job)));
    }
    let answer: Value = serde_json::from_slice(&ran.stdout).map_err(|e| {
        Failed::Run(format!(
            "the recorder's harness gave no answer ({e}): the program may have ended python3 itself \
             (os._exit, a signal); python3 said: {}",
            tail(&ran.stderr)
        ))
    })?;
    match answer.get("python_too_old").and_then(Value::as_str) {
        Some(version) => Err(Failed::Python(format!(
            "python3 is Python {version}; record needs CPython {NEEDED} or newer (its line events); \
             put a newer python3 first on the PATH"
        ))),
        None => Ok(answer),
    }
}

/// What a harness that did not finish means: the time budget's hard stop
/// (faulthandler's `Timeout (0:00:13)!`), or a failure said as it is.
fn failed(stderr: &str, job: &Value) -> String {
    if stderr.trim_start().starts_with("Timeout (") {
        let seconds = job["limits"]["seconds"].as_f64().unwrap_or(0.0);
        return time_budget(seconds);
    }
    format!("the recorder's harness failed; python3 said: {}", tail(stderr))
}

/// The time budget's message.
pub(super) fn time_budget(seconds: f64) -> String {
    format!(
        "the run took longer than {} s and was stopped (the time budget; raise it with --timeout)",
        agent_loop_core::vocab::Decimal(seconds)
    )
}

/// The last lines of what python3 said (a traceback's end).
fn tail(stderr: &str) -> String {
    let lines: Vec<&str> = stderr.trim().lines().collect();
    let text = lines[lines.len().saturating_sub(3)..].join(" / ");
    if text.is_empty() {
        "nothing".into()
    } else {
        text
    }
}
