//! Author CLI, native.
//!
//! `agent-loop-cli trace <scenario.json>` prints the trace as JSON.
//! `agent-loop-cli check <dir|file>` validates every `*.json` fixture in
//! `<dir>` (or the one file) and prints `file: field: problem (line N)` lines; exit code 1 if
//! any, or if there is no fixture at all.
//! `agent-loop-cli check --listing <lesson.py> [<dir>] [--timeout <s>]` checks an author's
//! own Python listing like the page does and, with `python3`, runs it under
//! CPython on the program's scenarios (the shipped ones, or `<dir>`'s); exit
//! code 1 on a problem or a departure (see `agent_loop_cli::listing`).
//! `agent-loop-cli setup <scenario.json> [zh|en]` prints the setup and
//! entry as Python, the text the setup panel shows and CPython runs after
//! the listing (English unless a language is given).
//! `agent-loop-cli import <conversation.json> [--id <id>] [-o <file>]
//! [--function run_loop|agent_loop | --manifest <manifest.json>]` turns a
//! logged Messages API request body into a scenario (of lesson one's loop,
//! lesson two's, or the manifest's own program) on standard output or in
//! `-o`'s file; approximations are warnings on standard error, a refusal
//! is exit 1 with nothing on standard output (see `agent_loop_cli::import`).
//! `agent-loop-cli record <manifest.json> [-o <pack.json>] [--max-steps
//! <n>] [--timeout <s>]` runs an author's own Python program under CPython
//! on each scenario of the manifest and writes the program pack (see
//! `agent_loop_cli::record`).
//!
//! The commands are `agent_loop_cli::commands`; this file only gives them
//! the machine: `std::fs`, standard output and error, `python3` (each run
//! in a private folder made for it and removed after, held to its bounds).

use agent_loop_cli::commands::{self, Io, Kind, Written};
use agent_loop_cli::python::{self, Bounds, PyRun, Python, Stopped};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, Stdio};
use std::sync::mpsc::Sender;
use std::time::{Duration, Instant};

fn main() -> ExitCode {
    let args: Vec<_> = std::env::args_os().skip(1).collect();
    let closed = stdout_was_closed();
    let mut native = Native { python: None, runner: run_python, closed };
    ExitCode::from(commands::run("agent-loop-cli", &args, &mut native))
}

/// The python3 runner: the three texts, the arguments, the bounds.
type Runner = fn([&str; 3], &[&str], Bounds) -> Result<PyRun, String>;

struct Native {
    /// Whether `python3` runs here, once looked up.
    python: Option<bool>,
    runner: Runner,
    /// Standard output was closed when the program started.
    closed: bool,
}

impl Io for Native {
    fn kind(&mut self, path: &Path) -> Result<Kind, String> {
        let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
        Ok(match () {
            () if meta.is_file() => Kind::File(meta.len()),
            () if meta.is_dir() => Kind::Dir,
            () => Kind::Other,
        })
    }

    fn read(&mut self, path: &Path, max: u64) -> Result<Vec<u8>, String> {
        let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
        let mut bytes = Vec::new();
        file.take(max).read_to_end(&mut bytes).map_err(|e| e.to_string())?;
        Ok(bytes)
    }

    fn list(&mut self, dir: &Path) -> Result<Vec<PathBuf>, String> {
        let entries = std::fs::read_dir(dir).map_err(|e| e.to_string())?;
        Ok(entries.filter_map(Result::ok).map(|e| e.path()).collect())
    }

    fn out(&mut self, bytes: &[u8]) -> Written {
        if self.closed {
            return Written::Failed("standard output is closed".into());
        }
        let mut out = io::stdout().lock();
        match out.write_all(bytes).and_then(|()| out.flush()) {
            Ok(()) => Written::Ok,
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Written::Closed,
            Err(e) => Written::Failed(e.to_string()),
        }
    }

    fn err(&mut self, line: &str) {
        let _ = writeln!(io::stderr(), "{line}");
    }

    fn write(&mut self, path: &Path, bytes: &[u8]) -> Result<(), String> {
        std::fs::write(path, bytes).map_err(|e| e.to_string())
    }

    fn python(&mut self) -> Option<Python<'_>> {
        let runs = *self.python.get_or_insert_with(|| {
            let mut probe = Command::new("python3");
            probe.arg("--version");
            bounded(probe, Vec::new(), python::PROBE)
                .is_ok_and(|r| r.stopped.is_none() && python::probe_says_python3(r.success, &r.stdout))
        });
        runs.then_some(&mut self.runner as Python)
    }
}

/// Whether the program was started with standard output closed (`>&-`).
/// Rust's runtime then opens /dev/null in its place (read-write), so the
/// trace would vanish with exit 0; a shell's `> /dev/null` opens it
/// write-only. Linux only (/proc); elsewhere, never.
fn stdout_was_closed() -> bool {
    let null = std::fs::read_link("/proc/self/fd/1").is_ok_and(|to| to == Path::new("/dev/null"));
    let flags = std::fs::read_to_string("/proc/self/fdinfo/1").unwrap_or_default();
    let octal = flags.lines().find_map(|l| l.strip_prefix("flags:")).map(str::trim);
    null && octal.and_then(|f| u32::from_str_radix(f, 8).ok()).is_some_and(|f| f & 0o3 == 0o2)
}

/// `python3 harness.py listing.py setup.py <arguments…>` (the harness and
/// the two texts it is given) under [`python::SUPERVISOR`], which makes a
/// private folder for them (its working directory too) and removes it
/// afterwards, also when the run fails or is stopped, or on Ctrl-C; hash
/// randomisation off, so a program runs the same way twice (record runs a
/// scenario again to refuse a request the API would refuse).
fn run_python(texts: [&str; 3], arguments: &[&str], bounds: Bounds) -> Result<PyRun, String> {
    let mut command = Command::new("python3");
    command
        .args(["-I", "-S", "-c", python::BOOT, "pipe"])
        .args(arguments)
        .env("ALP_CLI_PID", std::process::id().to_string())
        .env("PYTHONHASHSEED", "0")
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("PYTHONIOENCODING", "utf-8");
    let run = bounded(command, python::files_for_supervisor(texts), bounds);
    python::ran(run.map_err(|e| format!("cannot run python3: {e}"))?)
}

/// Run `command` within `bounds`: `input` written to its standard input
/// (by a thread: the supervisor reads it before anything else), its
/// standard output and error read by a thread each, at most
/// `bounds.bytes` of each (one more stops it), and stopped when
/// `bounds.seconds` have passed; waited for either way. Its standard
/// input stays open after `input`: the supervisor watches it, and closing
/// it is the stop (see [`stop`]).
fn bounded(mut command: Command, input: Vec<u8>, bounds: Bounds) -> io::Result<PyRun> {
    command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = command.spawn()?;
    let (close, closed) = std::sync::mpsc::channel::<()>();
    if let Some(mut stdin) = child.stdin.take() {
        std::thread::spawn(move || {
            // (a supervisor that died first has said why on standard error)
            let _ = stdin.write_all(&input);
            let _ = closed.recv();
        });
    }
    let mut close = Some(close);
    let deadline = Instant::now() + Duration::from_secs_f64(bounds.seconds);
    let (sender, read) = std::sync::mpsc::channel();
    let pipes: [Option<Box<dyn Read + Send>>; 2] = [
        child.stdout.take().map(|p| Box::new(p) as Box<dyn Read + Send>),
        child.stderr.take().map(|p| Box::new(p) as Box<dyn Read + Send>),
    ];
    for (which, pipe) in pipes.into_iter().enumerate() {
        let (sender, cap) = (sender.clone(), bounds.bytes);
        std::thread::spawn(move || {
            let mut got = Vec::new();
            if let Some(pipe) = pipe {
                let _ = pipe.take(cap.saturating_add(1)).read_to_end(&mut got);
            }
            let _ = sender.send((which, got));
        });
    }
    drop(sender);
    let (mut outputs, mut stopped) = ([None, None], None);
    while stopped.is_none() && outputs.iter().any(Option::is_none) {
        match read.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok((_, got)) if got.len() as u64 > bounds.bytes => stopped = Some(Stopped::Output),
            Ok((which, got)) => outputs[which] = Some(got),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => stopped = Some(Stopped::Time),
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
        }
    }
    let success = match stopped {
        Some(_) => stop(&mut child, &mut close).map(|()| false)?,
        None => wait_until(&mut child, deadline, &mut stopped, &mut close)?,
    };
    let [stdout, stderr] = outputs.map(Option::unwrap_or_default);
    Ok(PyRun { success, stdout, stderr: String::from_utf8_lossy(&stderr).into_owned(), stopped })
}

/// Wait for a child whose output has ended, until `deadline` (then stop
/// it, and say so); whether it exited 0.
fn wait_until(
    child: &mut Child,
    deadline: Instant,
    stopped: &mut Option<Stopped>,
    close: &mut Option<Sender<()>>,
) -> io::Result<bool> {
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(status.success());
        }
        if Instant::now() >= deadline {
            *stopped = Some(Stopped::Time);
            return stop(child, close).map(|()| false);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Stop a supervised run and reap it: its standard input closed (the
/// writer holding it let go), the supervisor stops the run's whole
/// process group (what the listing started too), removes its folder and
/// exits; killed only if it has not within [`GRACE`].
fn stop(child: &mut Child, close: &mut Option<Sender<()>>) -> io::Result<()> {
    drop(close.take());
    let grace = Instant::now() + GRACE;
    while child.try_wait()?.is_none() {
        if Instant::now() >= grace {
            let _ = child.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    child.wait().map(|_| ())
}

/// How long a supervisor may take to stop its run's group once asked.
const GRACE: Duration = Duration::from_secs(5);
