//! Runs of `python main.py` read back from the tool results `run_main`
//! wrote (`exit_code=N\n<output>`, `timed out after N s`, `cannot start:
//! …`), and the outcome a fixture gives each.

use agent_loop_core::i18n::{unfill, Lang};
use agent_loop_core::programs::lesson_one::runtime::OUTPUT_LIMIT;
use serde_json::{json, Value};

/// The value of a sentence `run_main` wrote in any shipped language (a log
/// of the English or the Chinese listing), if `text` is that sentence.
pub(super) fn said_in_any(kind: &str, text: &str) -> Option<String> {
    Lang::all().into_iter().find_map(|lang| unfill(lang.said_template(kind), text))
}

/// Whether `text` is, in some language, the sentence `kind` without values.
pub(super) fn is_said(kind: &str, text: &str) -> bool {
    Lang::all().into_iter().any(|lang| lang.said_template(kind) == text)
}

/// One run of `python main.py` read back from a tool result.
pub(super) struct Run {
    pub(super) outcome: Value,
    pub(super) is_error: bool,
    pub(super) timeout: Option<f64>,
}

/// Read a tool result back into the run that wrote it, when the text is
/// exactly what `run_main` writes (so the replay writes it again).
pub(super) fn read_run(text: &str) -> Option<Run> {
    if let Some(rest) = text.strip_prefix("exit_code=") {
        return read_exit(rest);
    }
    if let Some(seconds) = said_in_any("timed_out", text) {
        let seconds = read_seconds(&seconds)?;
        return Some(Run { outcome: json!({"timeout": true}), is_error: true, timeout: Some(seconds) });
    }
    let error = said_in_any("cannot_start", text)?;
    Some(Run { outcome: json!({"os_error": error}), is_error: true, timeout: None })
}

/// `N\n<output>`: the exit code as Rust prints it, then the output as
/// `run_main` leaves it: trimmed, then cut to OUTPUT_LIMIT characters (a
/// cut may end in spaces), or the `(no output)` placeholder.
pub(super) fn read_exit(rest: &str) -> Option<Run> {
    let (code, output) = rest.split_once('\n')?;
    let returncode: i64 = code.parse().ok().filter(|rc: &i64| rc.to_string() == code)?;
    let printed = if is_said("no_output", output) {
        String::new()
    } else if !output.is_empty() && output.trim() == output && output.chars().nth(OUTPUT_LIMIT).is_none() {
        format!("{output}\n")
    } else if is_cut(output) {
        // The cut ended in spaces; the replay cuts this marker off again.
        format!("{output}\n[… cut at {OUTPUT_LIMIT} characters]\n")
    } else {
        return None;
    };
    Some(exited(returncode, printed))
}

/// A trimmed output cut to exactly OUTPUT_LIMIT characters (so its end may
/// be spaces).
pub(super) fn is_cut(output: &str) -> bool {
    let mut chars = output.chars();
    output.trim_start() == output
        && !output.trim().is_empty()
        && chars.nth(OUTPUT_LIMIT - 1).is_some()
        && chars.next().is_none()
}

/// A timeout as `run_main` prints it: a positive number that prints back
/// the same (`3`, `1.5`; not `3.0`).
pub(super) fn read_seconds(text: &str) -> Option<f64> {
    let seconds: f64 = text.parse().ok()?;
    (seconds.is_finite() && seconds > 0.0 && seconds.to_string() == text).then_some(seconds)
}

/// A run that exited: what it printed goes to stderr for a failure, to
/// stdout otherwise (`run_main` joins the two, so the record is the same).
pub(super) fn exited(returncode: i64, printed: String) -> Run {
    let (stdout, stderr) = if returncode == 0 { (printed, String::new()) } else { (String::new(), printed) };
    Run {
        outcome: json!({"returncode": returncode, "stdout": stdout, "stderr": stderr}),
        is_error: returncode != 0,
        timeout: None,
    }
}

/// A tool result `run_main` did not write: a run that exits with 1 when the
/// result was an error (0 otherwise) and prints the text.
pub(super) fn approximate_run(text: &str, is_error: Option<&Value>) -> Run {
    let failed = is_error == Some(&Value::Bool(true));
    exited(i64::from(failed), text.to_string())
}
