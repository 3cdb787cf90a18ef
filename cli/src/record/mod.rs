//! `record <manifest.json> [-o <pack.json>] [--max-steps <n>] [--timeout
//! <seconds>]`: an author's own Python program, run by CPython on each
//! scenario of its manifest under a line tracer, written as one program
//! pack (docs/program-format.md).
//!
//! The manifest is read and checked (`manifest`); the program's files are
//! read and CPython says what they define and mark (`program`); each
//! scenario runs once per language of the program, a `file` scenario's
//! requests checked by the page's own API checks (`runs`); the pack is
//! written (`pack`), and read back by the page's own reader to check that
//! every authored question is asked (`questions`). CPython is reached
//! only through [`Machine`] (the CLI's Python runner: natively a process,
//! under Node a child process), with the harness `record.py` compiled in
//! (`harness`).

mod harness;
mod log;
mod manifest;
mod pack;
mod program;
mod questions;
mod runs;

use crate::shown;
pub use harness::{Limits, Machine};
pub use log::{import_log, Log, ManifestFile};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The command line of `record`.
#[derive(Debug)]
pub struct Args {
    /// The manifest.
    pub manifest: PathBuf,
    /// Where the pack goes (`None`: standard output).
    pub out: Option<PathBuf>,
    /// The budgets of each run.
    pub limits: Limits,
}

/// Read `record`'s arguments (after `record`): the manifest, and `-o`,
/// `--max-steps`, `--timeout` in any order; `Err` says what is wrong.
pub fn args(args: &[OsString]) -> Result<Args, String> {
    let (mut manifest, mut out, mut limits) = (None, None, Limits::DEFAULT);
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        let flag = arg.to_str().filter(|a| a.starts_with('-') && a.len() > 1);
        let mut value = |name: &str| rest.next().ok_or_else(|| format!("{name} needs a value"));
        match flag {
            Some("-o" | "--out") => out = Some(PathBuf::from(value("-o")?)),
            Some("--max-steps") => {
                let v = value("--max-steps")?;
                limits.steps =
                    v.to_str().and_then(|s| s.parse().ok()).filter(|n| *n > 0).ok_or_else(|| {
                        format!(
                            "--max-steps: {} is not a whole number above 0",
                            shown::text(&v.to_string_lossy())
                        )
                    })?;
            }
            Some("--timeout") => limits.seconds = crate::python::seconds(value("--timeout")?)?,
            Some(other) => return Err(format!("record: unknown option {}", shown::text(other))),
            None if manifest.is_none() => manifest = Some(PathBuf::from(arg)),
            None => return Err("record takes one manifest".into()),
        }
    }
    let manifest = manifest.ok_or("record needs a manifest: record <manifest.json>")?;
    Ok(Args { manifest, out, limits })
}

/// A recording: the pack's text, and the line that says what it holds.
#[derive(Debug)]
pub struct Recorded {
    /// The pack, as written.
    pub pack: String,
    /// What it says of a recording it still wrote, a line each, for
    /// standard error before the summary.
    pub warnings: Vec<String>,
    /// `manifest.json: recorded 6 scenario(s) …`, for standard error.
    pub summary: String,
}

/// Record the manifest `text` (the file the CLI calls `name`, in `dir`):
/// the pack, or every problem found, each a line that names its file,
/// line and field.
pub fn record(
    machine: &mut dyn Machine,
    name: &str,
    dir: &Path,
    text: &str,
    limits: Limits,
) -> Result<Recorded, Vec<String>> {
    let manifest = manifest::parse(name, text)?;
    let program = program::read(machine, &manifest, dir)?;
    let unmarked = questions::check_manifest(&manifest, &program);
    if !unmarked.is_empty() {
        return Err(unmarked);
    }
    let mut scenarios = runs::record(machine, &manifest, &program, dir, limits)?;
    let mut warnings = runs::record_named(&manifest, &mut scenarios)?;
    warnings.extend(runs::unreadable_said(&manifest, &mut scenarios));
    let python = scenarios
        .first()
        .and_then(|s| s["runs"].as_object()?.values().next()?["python"].as_str().map(str::to_string))
        .unwrap_or_default();
    let count = scenarios.len();
    let pack = pack::write(&pack::pack(&manifest, &program, scenarios));
    if pack.len() > pack::MAX_BYTES {
        return Err(vec![format!(
            "{name}: the pack would be {} bytes, more than the {} MB the element reads; record fewer or shorter scenarios",
            pack.len(),
            pack::MAX_BYTES >> 20
        )]);
    }
    let never_asked = questions::check_reached(machine, &manifest, dir, &pack);
    if !never_asked.is_empty() {
        return Err(never_asked);
    }
    let langs: Vec<&str> = program.listings.iter().map(|l| l.lang).collect();
    let summary = format!(
        "{name}: recorded {count} scenario(s) in {} with CPython {python}: {} bytes",
        langs.join(" and "),
        pack.len()
    );
    Ok(Recorded { pack, warnings, summary })
}
