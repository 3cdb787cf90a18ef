//! The seam to CPython that `check --listing` and `record` share: one run
//! of `python3 <harness> <file> <file> <arguments…>` under the
//! [`SUPERVISOR`], which writes the texts ([`files_for_supervisor`]) to a
//! private folder it makes for the run,
//! held to [`Bounds`] by whoever runs it (natively the binary, which watches the process and
//! reads at most so many bytes of it; under Node the script, through
//! spawnSync's `timeout` and `maxBuffer`), and what the run gave.

use crate::shown;
use agent_loop_core::vocab::Decimal;
use std::ffi::OsString;

/// The supervisor every runner starts python3 under: it makes the run's
/// private folder, runs the harness there in a process group of its own,
/// passes its output on, stops that group whatever way the run ends (and
/// the output with it), and removes the folder, on Ctrl-C too. It comes
/// first on python3's standard input ([`files_for_supervisor`]), read by
/// [`BOOT`].
pub const SUPERVISOR: &str = include_str!("supervise.py");

/// What every runner gives python3 as its program (`python3 -I -S -c BOOT
/// pipe|pid <arguments…>`): it reads the [`SUPERVISOR`] from the standard
/// input and runs it. The supervisor's own source is not on the command
/// line, where every `ps` of the machine would print its 8 KB.
pub const BOOT: &str = "import os\n\
def take(n, got=b''):\n \
 while len(got) < n:\n  \
  more = os.read(0, n - len(got))\n  \
  if not more: raise SystemExit('cannot run python3 here: its input ended')\n  \
  got += more\n \
 return got\n\
exec(compile(take(int(take(8))), 'supervise.py', 'exec'))";

/// python3's standard input: the [`SUPERVISOR`], its length in eight
/// digits first ([`BOOT`] reads it); then the harness, the listing and the
/// setup as the supervisor reads them: each its length in bytes on a
/// line, then its bytes.
pub fn files_for_supervisor(texts: [&str; 3]) -> Vec<u8> {
    let mut input =
        Vec::with_capacity(SUPERVISOR.len() + 8 + texts.iter().map(|t| t.len() + 12).sum::<usize>());
    input.extend_from_slice(format!("{:08}", SUPERVISOR.len()).as_bytes());
    input.extend_from_slice(SUPERVISOR.as_bytes());
    for text in texts {
        input.extend_from_slice(format!("{}\n", text.len()).as_bytes());
        input.extend_from_slice(text.as_bytes());
    }
    input
}

/// What `python3 --version` is held to when a CLI first asks whether there
/// is a python3: it answers at once, in a line. One that says no `Python
/// 3.` on its standard output within these bounds (it hangs, floods, or is
/// a Python 2 under that name) counts as no python3.
pub const PROBE: Bounds = Bounds { seconds: 5.0, bytes: 4096 };

/// Whether a probe's answer is a Python 3's.
pub fn probe_says_python3(success: bool, stdout: &[u8]) -> bool {
    success && stdout.starts_with(b"Python 3.")
}

/// The most bytes of standard output, and of standard error, a run may
/// write before it is stopped: the harnesses' answers are far smaller
/// (their steps and the printed text are bounded in Python), so more is a
/// program writing past them (`os.write(1, …)`, standard error).
pub const MAX_BYTES: u64 = 64 << 20;

/// What the runner holds one run to.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bounds {
    /// Seconds until python3 is stopped.
    pub seconds: f64,
    /// Bytes of standard output, and of standard error, read at most; one
    /// more stops python3.
    pub bytes: u64,
}

/// Why the runner stopped a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stopped {
    /// It ran past [`Bounds::seconds`].
    Time,
    /// It wrote more than [`Bounds::bytes`] to standard output or error.
    Output,
}

/// What one CPython run gave: whether it exited 0, its standard output
/// and error (each at most the bytes of its bounds), and whether the
/// runner stopped it.
#[derive(Debug)]
pub struct PyRun {
    /// Whether python3 exited 0 (never, when it was stopped).
    pub success: bool,
    /// What it printed on standard output (the harness's JSON).
    pub stdout: Vec<u8>,
    /// What it printed on standard error (a traceback, said to the author).
    pub stderr: String,
    /// Set when the runner stopped it.
    pub stopped: Option<Stopped>,
}

/// How the supervisor begins the line that says what keeps it from running
/// the harness at all (no private folder can be made, its files cannot be
/// written): the machine's trouble, not the program's.
pub const CANNOT: &str = "cannot run python3 here: ";

/// What kept the supervisor from running the harness (its own line, from
/// [`CANNOT`] on, the last it writes), said as the runner's error; the run
/// itself otherwise (a program that prints those words is not mistaken
/// for it unless they end what it said).
pub fn ran(run: PyRun) -> Result<PyRun, String> {
    match run.stderr.lines().rfind(|l| !l.trim().is_empty()) {
        Some(line) if line.starts_with(CANNOT) && !run.success && run.stopped.is_none() => {
            Err(line.to_string())
        }
        _ => Ok(run),
    }
}

/// Runs `python3 harness.py a.py b.py <arguments…>` on these texts
/// (harness, a, b) in a private folder made for the run, removed after,
/// within the bounds, wherever the CLI runs: a process natively, a child
/// process under Node. `Err` says why it could not start, or could not
/// run there (see [`ran`]).
pub type Python<'a> = &'a mut dyn FnMut([&str; 3], &[&str], Bounds) -> Result<PyRun, String>;

/// What a run the runner stopped is said as; `flag` lifts the time limit.
pub fn stopped(why: Stopped, bounds: Bounds, flag: &str) -> String {
    match why {
        Stopped::Time => format!(
            "the run took longer than {} s and was stopped (the time limit; raise it with {flag})",
            Decimal(bounds.seconds)
        ),
        Stopped::Output => format!(
            "python3 wrote more than {} MB to its standard output or error and was stopped (the output limit)",
            bounds.bytes >> 20
        ),
    }
}

/// The value of a `--timeout`: seconds above 0 (a day at most); `Err`
/// says why not.
pub fn seconds(value: &OsString) -> Result<f64, String> {
    value
        .to_str()
        .and_then(|s| s.parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s > 0.0 && *s <= 86_400.0)
        .ok_or_else(|| {
            format!("--timeout: {} is not a number of seconds above 0", shown::text(&value.to_string_lossy()))
        })
}
