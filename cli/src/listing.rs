//! `agent-loop-cli check --listing <lesson.py> [<dir>] [--timeout <s>] [--stamp]`: an author's own
//! listing checked the way the page checks it (marks, functions, order:
//! `lesson::register_listing`), and — when `python3` is on the machine —
//! run under CPython after the setup the page shows, on every scenario of
//! its program (the shipped ones, or the fixtures in `<dir>`): the first
//! scenario and line where it departs from the recorded run is reported.
//! Sentences of the author's own (other words than the built-in listing's)
//! are one remark, not a departure: the page shows the built-in words.
//! Each run is bounded: in time (`--timeout`, 10 s) and in what python3
//! writes by the runner, in steps and printed characters by the harness.
//!
//! The page shows an author's listing only with a current stamp
//! (`lesson::stamp`): `--stamp` writes it into the file when CPython ran
//! the listing on every shipped scenario with the recorded run's lines.

use crate::python::{self, Bounds, Python};
use crate::shown;
use agent_loop_core::i18n::Lang;
use agent_loop_core::lesson::stamp::{self, Verdict};
use agent_loop_core::lesson::{self, register_listing};
use agent_loop_core::run::{message_shape, record_scenario, setup_text, Trace};
use agent_loop_core::scenario::Scenario;
use agent_loop_core::trace::Event;
use agent_loop_core::vocab::Code;
use serde_json::Value;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The CPython harness, the same file tests/python.rs runs.
pub const REPLAY: &str = include_str!("replay.py");

/// Seconds one run of the listing may take unless `--timeout` says.
pub const SECONDS: f64 = 10.0;

/// Characters a run may print (the lesson's runs print a few lines).
pub const MAX_CHARS: u64 = 1_000_000;

/// The command line of `check --listing`.
#[derive(Debug)]
pub struct Args {
    /// The listing.
    pub listing: PathBuf,
    /// The folder of scenarios (`None`: the shipped ones).
    pub dir: Option<PathBuf>,
    /// Seconds one run may take.
    pub seconds: f64,
    /// Whether to write the stamp into the listing when it passes.
    pub stamp: bool,
}

/// Read the arguments after `--listing`: the listing, a folder,
/// `--timeout <s>` and `--stamp`, in any order after the listing; `Err`
/// says what is wrong (said before the usage).
pub fn args(args: &[OsString]) -> Result<Args, String> {
    let (mut paths, mut seconds, mut stamp) = (Vec::new(), SECONDS, false);
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        match arg.to_str() {
            Some("--timeout") => seconds = python::seconds(rest.next().ok_or("--timeout needs a value")?)?,
            Some("--stamp") => stamp = true,
            _ => paths.push(PathBuf::from(arg)),
        }
    }
    let mut paths = paths.into_iter();
    match (paths.next(), paths.next(), paths.next()) {
        // (the page runs the shipped scenarios: a stamp proves those)
        (Some(_), Some(_), None) if stamp => {
            Err("--stamp runs the shipped scenarios, the ones the page runs: leave the folder out".into())
        }
        (Some(listing), dir, None) => Ok(Args { listing, dir, seconds, stamp }),
        _ => Err("check --listing takes a listing and at most one folder".into()),
    }
}

/// What the check found: problems (the listing cannot be used), remarks,
/// and what CPython said (none: not run).
#[derive(Debug, Default)]
pub struct Report {
    /// Why the listing cannot be used (each fails the check).
    pub problems: Vec<String>,
    /// What the author may want to know (the check still passes).
    pub remarks: Vec<String>,
    /// `Ok(n)`: n scenario runs agreed; `Err(why)`: where it departed,
    /// or the limit that stopped a run.
    pub cpython: Option<Result<usize, String>>,
    /// Why the runs were not compared to the end, when they were not
    /// (then `cpython` says what): a limit, or python3 could not run.
    pub not_run: Option<NotRun>,
    /// The listing's stamp as the page would judge it (none: the marks
    /// did not pass), and the stamp it would have now.
    pub stamp: Option<(Verdict, String)>,
}

impl Report {
    /// Whether the listing can be shown as it is.
    pub fn passed(&self) -> bool {
        self.problems.is_empty() && !matches!(self.cpython, Some(Err(_)))
    }
}

/// The language a listing is written in: Chinese when it has Chinese.
pub fn language_of(text: &str) -> Lang {
    let zh = text.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c));
    Lang::parse(if zh { "zh" } else { "en" }).unwrap_or_else(Lang::default_lang)
}

/// Check `text` (the file `name`) in `lang`; with `python`, run it on
/// `scenarios` (those of other programs are skipped), each run for at most
/// `seconds`.
pub fn check(
    name: &str,
    text: &str,
    lang: Lang,
    scenarios: &[Scenario],
    python: Option<Python>,
    seconds: f64,
) -> Report {
    let en = Lang::parse("en").unwrap_or(lang);
    let mut report =
        Report { stamp: Some(stamp::verdict(lesson::listing_program(text), text)), ..Report::default() };
    // (the stamp line blanked: the lines CPython reports stay the file's)
    let (blanked, _) = stamp::split(text);
    let text = blanked.as_str();
    let code = match register_listing(name, text, lang) {
        Ok((code, remarks)) => {
            report.remarks = remarks.iter().map(|r| r.text(en)).collect();
            code
        }
        Err(problems) => {
            report.problems = problems.iter().map(|p| p.text(en)).collect();
            report.stamp = None;
            return report;
        }
    };
    if let Some(python) = python {
        let ran = run_all(python, name, text, (code, lang), scenarios, seconds);
        report.not_run = match &ran {
            Err(Failed::Stopped(_)) => Some(NotRun::Stopped),
            Err(Failed::Cannot(_)) => Some(NotRun::Cannot),
            _ => None,
        };
        report.cpython =
            Some(ran.map_err(|(Failed::Departs(why) | Failed::Stopped(why) | Failed::Cannot(why))| why));
    }
    report
}

/// Why a listing's runs were not compared to their end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotRun {
    /// A limit stopped a run.
    Stopped,
    /// python3 could not run here.
    Cannot,
}

/// Why the runs did not all agree.
enum Failed {
    /// A run departed from the recorded one, or could not run.
    Departs(String),
    /// A limit stopped a run before it could be compared to the end.
    Stopped(String),
    /// python3 could not run here (it cannot start, no private folder).
    Cannot(String),
}

/// Run the listing on every scenario of its program; the first departure
/// or stop. A run may take twice the recorded run's steps and a thousand
/// more, and print [`MAX_CHARS`]: a departure is found well before.
fn run_all(
    python: Python,
    name: &str,
    text: &str,
    (code, lang): (Code, Lang),
    scenarios: &[Scenario],
    seconds: f64,
) -> Result<usize, Failed> {
    let mut agreed = 0;
    let defines = |s: &&Scenario| text.lines().any(|l| l.starts_with(&format!("def {}(", s.function.name())));
    let bounds = Bounds { seconds, bytes: python::MAX_BYTES };
    for scenario in scenarios.iter().filter(defines) {
        let scenario = scenario.localized(lang);
        let trace = record_scenario(&scenario);
        let limits =
            serde_json::json!({"steps": trace.steps.len() * 2 + 1000, "chars": MAX_CHARS}).to_string();
        let args = [scenario.function.name(), limits.as_str()];
        let out = python([REPLAY, text, &setup_text(&scenario)], &args, bounds).map_err(Failed::Cannot)?;
        if let Some(why) = out.stopped {
            return Err(Failed::Stopped(format!(
                "{}: {}",
                scenario.id,
                python::stopped(why, bounds, "--timeout")
            )));
        }
        if !out.success {
            let said = match out.stderr.trim() {
                "" => "python3 ended without a word (no traceback: os._exit, a signal, or a process that killed it)",
                said => said,
            };
            return Err(Failed::Departs(format!("{}: {name} does not run: {said}", scenario.id)));
        }
        let py: Value = serde_json::from_slice(&out.stdout)
            .map_err(|e| Failed::Departs(format!("the harness printed no JSON: {e}")))?;
        departure(name, &scenario, &trace, &py, code).map_err(Failed::Departs)?;
        if let Some(stop) = py["stopped"].as_object() {
            return Err(Failed::Stopped(format!(
                "{}: {}",
                scenario.id,
                harness_stop(stop, trace.steps.len())
            )));
        }
        agreed += 1;
    }
    Ok(agreed)
}

/// What the harness said when a limit of its own stopped the run.
fn harness_stop(stop: &serde_json::Map<String, Value>, recorded: usize) -> String {
    let limit = stop.get("limit").and_then(Value::as_u64).unwrap_or(0);
    match stop.get("kind").and_then(Value::as_str) {
        Some("output") => {
            format!("the run printed more than {limit} characters and was stopped (the output limit)")
        }
        _ => format!(
            "the run took more than {limit} steps (the recorded run takes {recorded}) and was stopped (the step limit)"
        ),
    }
}

/// `(event, function, line of the file)` of every step of a run.
type Steps = Vec<(String, String, u32)>;

fn collapse(steps: Steps) -> Steps {
    let mut out: Steps = Vec::new();
    for s in steps {
        if out.last() != Some(&s) {
            out.push(s);
        }
    }
    out
}

/// The lines of the file the recorded run stands on, through the marks.
fn expected(trace: &Trace, code: Code) -> Steps {
    let steps = trace.steps.iter().filter_map(|st| {
        let listing = lesson::listing_in(code, st.function);
        let source = |n: u32| listing.lines.get(n.saturating_sub(1) as usize).map_or(0, |l| l.source);
        match st.event {
            Event::Call => Some(("call".to_string(), st.function.name().to_string(), source(1))),
            Event::Line => {
                Some(("line".to_string(), st.function.name().to_string(), source(lesson::line_in(code, st))))
            }
            Event::Return | Event::Error | Event::Exception => None,
        }
    });
    collapse(steps.collect())
}

/// Where CPython's run of the file parts from the recorded one: its lines,
/// then how it ended and the record's shape (not its words).
fn departure(name: &str, scenario: &Scenario, trace: &Trace, py: &Value, code: Code) -> Result<(), String> {
    let want = expected(trace, code);
    let got: Steps = collapse(
        py["steps"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|s| {
                (
                    s[0].as_str().unwrap_or("").into(),
                    s[1].as_str().unwrap_or("").into(),
                    s[2].as_u64().unwrap_or(0) as u32,
                )
            })
            .collect(),
    );
    // (a run a limit stopped is compared as far as it went)
    let stopped = !py["stopped"].is_null();
    let compared = if stopped { got.len() } else { want.len().max(got.len()) };
    if let Some(at) = (0..compared).find(|i| want.get(*i) != got.get(*i)) {
        let said = |s: Option<&(String, String, u32)>| {
            s.map_or("the end of the run".to_string(), |(_, f, n)| format!("{name}:{n} ({f})"))
        };
        return Err(format!(
            "{}: departs at step {at}: the recorded run is at {}, CPython at {}",
            scenario.id,
            said(want.get(at)),
            said(got.get(at))
        ));
    }
    if stopped {
        return Ok(());
    }
    let error = trace.error.as_ref().map(|e| e.kind.as_str());
    if py["error"].as_str() != error {
        return Err(format!("{}: ends with {:?}, the recorded run with {error:?}", scenario.id, py["error"]));
    }
    let shape = |result: &Value| -> Vec<String> {
        let record = result.get("messages").and_then(Value::as_array).cloned().unwrap_or_default();
        record.iter().map(message_shape).collect()
    };
    let status = |v: &Value| v.get("status").cloned();
    if status(&py["result"]) != status(&trace.returned()) || shape(&py["result"]) != shape(&trace.returned())
    {
        return Err(format!("{}: ends otherwise than the recorded run: {}", scenario.id, py["result"]));
    }
    Ok(())
}

/// The report as the CLI prints it.
pub fn render(name: &Path, report: &Report) -> String {
    let mut out = String::new();
    // (a mark is the listing's own text: one line each, whatever it holds)
    for p in &report.problems {
        out.push_str(&format!("{}\n", shown::inline(p)));
    }
    for r in &report.remarks {
        out.push_str(&format!("note: {}\n", shown::inline(r)));
    }
    let name = shown::path(name);
    match (&report.cpython, report.problems.len()) {
        (_, n) if n > 0 => {
            out.push_str(&format!("{name}: {n} problem(s); the page would show the built-in listing\n"))
        }
        (None, _) => out.push_str(&format!(
            "{name}: marks ok; python3 not found, so the listing was not run under CPython\n"
        )),
        (Some(Ok(n)), _) => {
            out.push_str(&format!("{name}: marks ok; CPython runs the same lines on {n} scenario(s)\n"))
        }
        (Some(Err(why)), _) if report.not_run == Some(NotRun::Stopped) => {
            out.push_str(&format!("{why}\n{name}: stopped at a limit, so it was not checked\n"))
        }
        (Some(Err(why)), _) if report.not_run == Some(NotRun::Cannot) => out.push_str(&format!(
            "{why}\n{name}: marks ok; python3 could not run it here, so it was not checked\n"
        )),
        (Some(Err(why)), _) => out.push_str(&format!("{why}\n{name}: departs from the recorded run\n")),
    }
    out
}

/// What the CLI says of the stamp after the report: `wrote` when
/// `--stamp` wrote it. Nothing for a listing whose marks failed or that
/// CPython did not agree with (unless `--stamp` was asked: it was not
/// written), and nothing for one of the program's own listings (they need
/// none).
pub fn stamp_line(name: &Path, report: &Report, asked: bool, wrote: bool) -> Option<String> {
    let name = shown::path(name);
    let (said, now) = report.stamp.as_ref()?;
    if !asked && !report.passed() {
        return None;
    }
    let line = match (said, asked, wrote) {
        (Verdict::Own, ..) => return None,
        (_, true, true) => format!("{name}: stamped {now}; the page shows it"),
        (_, true, false) => format!(
            "{name}: not stamped: CPython did not run it on every shipped scenario with the recorded lines"
        ),
        (Verdict::Current, ..) => format!("{name}: its stamp is current; the page shows it"),
        (Verdict::Missing, ..) => format!("{name}: no stamp, so the page will not show it (--stamp writes it)"),
        (Verdict::Stale(_), ..) => format!(
            "{name}: its stamp is stale (the listing or the lesson changed since), so the page will not show it (--stamp writes it again)"
        ),
    };
    Some(format!("{line}\n"))
}

/// Whether `--stamp` may write the stamp: the marks passed and CPython
/// ran the listing on every shipped scenario with the recorded lines.
pub fn may_stamp(report: &Report) -> bool {
    report.passed() && matches!(report.cpython, Some(Ok(n)) if n > 0)
}
