//! The lesson's Python runs the same steps as the Rust that is recorded:
//! for every shipped scenario and every language the listing is written in
//! (lesson one's `core/src/programs/lesson_one/runtime.py`, `runtime.zh.py`), the listing of that language
//! followed by the setup the page shows for that scenario in that language
//! (`run::setup_text`, exactly that text) runs under CPython
//! (`sys.settrace`, via cli/src/replay.py); its line sequence equals
//! the sequence the Rust trace recorded in that language maps to through
//! the `#|` marks, the result, the record and every printed line are
//! equal, character for character, and at every stop the locals panel
//! shows the names CPython's frame holds, no more and no fewer.
//!
//! The mapping: each `#| label` mark puts that Rust label on the Python
//! line; a label used twice in runtime.rs is told apart as `label@1`,
//! `label@2` (source order). A Rust step expands to every Python line that
//! carries its label, in line order; a `call` step is the `def` line.
//! Consecutive repeats collapse (several Rust steps inside one Python line
//! are one Python step). The harness (cli/src/replay.py, the one
//! `agent-loop-cli check --listing` runs too) counts a continuation line as
//! its statement's first line, and leaves out the line events of `try:`
//! and `except` headers and the last check of a loop, which have no Rust
//! step.
//!
//! Lessons tested: lesson_one.

#![cfg(not(target_arch = "wasm32"))]

use agent_loop_core::programs::{self, lesson_one, Program};
use agent_loop_core::run::{record_scenario, setup_text, Trace};
use agent_loop_core::scenario::load_shipped;
use agent_loop_core::step_view::frame_locals;
use agent_loop_core::trace::Event;
use agent_loop_core::vocab::Code;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// The programs whose Python is proven here: those with a setup to run it
/// with (the course's lessons).
fn with_setup() -> impl Iterator<Item = &'static Program> {
    programs::ALL.iter().copied().filter(|p| !p.templates.is_empty())
}

/// (function, line) or the call of a function.
type At = (String, String, u32);

/// The Python listing's marks: per function, its `def` line and each
/// marked line with its keys.
struct Marks {
    defs: BTreeMap<String, u32>,
    lines: Vec<(String, u32, Vec<String>)>,
}

fn marks(program: &Program) -> Marks {
    let mut marks = Marks { defs: BTreeMap::new(), lines: Vec::new() };
    let mut current = String::new();
    for (i, line) in program.python[0].1.get().lines().enumerate() {
        let n = i as u32 + 1;
        if let Some(rest) = line.strip_prefix("def ") {
            current = rest.split('(').next().unwrap_or("").to_string();
            marks.defs.insert(current.clone(), n);
        }
        if let Some((_, keys)) = line.split_once("  #| ") {
            marks.lines.push((current.clone(), n, keys.split_whitespace().map(str::to_string).collect()));
        }
    }
    marks
}

/// Which occurrence (1-based, source order) of its label a Rust snapshot is.
fn occurrences(program: &Program) -> BTreeMap<u32, (String, usize)> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = BTreeMap::new();
    for (i, line) in program.rust.get().lines().enumerate() {
        let t = line.trim_start();
        let Some(rest) = t.strip_prefix("before!(\"").or_else(|| t.strip_prefix("head!(\"")) else {
            continue;
        };
        let label = rest.split('"').next().unwrap_or("").to_string();
        let n = seen.entry(label.clone()).or_default();
        *n += 1;
        out.insert(i as u32 + 1, (label, *n));
    }
    out
}

/// The Python steps the Rust trace stands for, each with the first Rust
/// step that stands for it (the one the page stops at).
fn expected(
    trace: &Trace,
    marks: &Marks,
    occurrences: &BTreeMap<u32, (String, usize)>,
) -> Result<Vec<(At, usize)>, String> {
    let mut out: Vec<(At, usize)> = Vec::new();
    for (i, step) in trace.steps.iter().enumerate() {
        let function = step.function.name().to_string();
        match step.event {
            Event::Call => out.push((("call".into(), function.clone(), marks.defs[&function]), i)),
            Event::Line => {
                let (label, k) = occurrences
                    .get(&step.source_line())
                    .cloned()
                    .ok_or_else(|| format!("no label at runtime.rs:{}", step.source_line()))?;
                let keyed = format!("{label}@{k}");
                let lines: Vec<u32> = marks
                    .lines
                    .iter()
                    .filter(|(f, _, keys)| *f == function && keys.iter().any(|x| *x == label || *x == keyed))
                    .map(|(_, n, _)| *n)
                    .collect();
                if lines.is_empty() {
                    return Err(format!(
                        "no line of runtime.py is marked `{label}` (or `{keyed}`) in {function}"
                    ));
                }
                out.extend(lines.into_iter().map(|n| (("line".to_string(), function.clone(), n), i)));
            }
            Event::Return | Event::Error | Event::Exception => {}
        }
    }
    out.dedup_by(|b, a| a.0 == b.0);
    Ok(out)
}

/// CPython's steps (the harness has left out the checks that end loops).
/// CPython's steps, each with the names its frame holds then.
fn actual(steps: &[Value]) -> (Vec<At>, Vec<Vec<String>>) {
    let mut steps: Vec<(At, Vec<String>)> = steps
        .iter()
        .map(|s| {
            let at =
                (s[0].as_str().unwrap().into(), s[1].as_str().unwrap().into(), s[2].as_u64().unwrap() as u32);
            (at, serde_json::from_value(s[3].clone()).unwrap_or_default())
        })
        .collect();
    steps.dedup_by(|b, a| a.0 == b.0);
    steps.into_iter().unzip()
}

fn show(steps: &[At], from: usize, source: &str) -> String {
    let lines: Vec<&str> = source.lines().collect();
    steps
        .iter()
        .enumerate()
        .skip(from.saturating_sub(3))
        .take(8)
        .map(|(i, (event, f, n))| {
            let text =
                lines.get(*n as usize - 1).map_or("", |l| l.split("  #| ").next().unwrap_or("").trim());
            format!("{}{i:>4} {event} {f}:{n}  {text}", if i == from { ">" } else { " " })
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn python() -> &'static str {
    "python3"
}

/// Where the locals panel and CPython's frame part: at every stop, the
/// names the panel shows (`lesson::frame_locals`) are the names the frame
/// holds (`f_locals`), no more and no fewer.
fn names_differ(trace: &Trace, at: &[usize], got: &[At], names: &[Vec<String>]) -> Option<String> {
    for ((i, place), held) in at.iter().zip(got).zip(names) {
        let shown = frame_locals(trace, *i, Code::Python);
        let shown: Vec<&str> =
            shown.as_object()?.keys().map(String::as_str).filter(|k| *k != "return").collect();
        let extra: Vec<&&str> = shown.iter().filter(|k| !held.iter().any(|h| h == *k)).collect();
        let missing: Vec<&String> = held.iter().filter(|h| !shown.contains(&h.as_str())).collect();
        if !extra.is_empty() || !missing.is_empty() {
            return Some(format!(
                "at {place:?} (step {i}) the panel shows {extra:?} the frame has not, and not {missing:?}"
            ));
        }
    }
    None
}

/// Run `listing` and then `setup` under CPython (cli/src/replay.py).
fn replay(dir: &Path, name: &str, listing: &str, setup: &str, function: &str) -> Value {
    let listing_path = dir.join(format!("{name}.listing.py"));
    let setup_path = dir.join(format!("{name}.setup.py"));
    std::fs::write(&listing_path, listing).unwrap();
    std::fs::write(&setup_path, setup).unwrap();
    let out = Command::new(python())
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("cli/src/replay.py"))
        .args([&listing_path, &setup_path])
        .args([function, r#"{"names": true}"#])
        .output()
        .unwrap_or_else(|e| panic!("CPython is needed for this test (python3): {e}"));
    assert!(out.status.success(), "{name}: replay.py failed:\n{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("replay.py prints JSON")
}

/// Every line a Rust trace has the program print: what it emitted, then
/// what the entry prints (a text with line breaks is several lines).
fn printed_lines(trace: &Trace) -> Vec<String> {
    let emitted = trace.output.iter().flat_map(|l| l.split('\n')).map(str::to_string);
    emitted.chain(trace.printed.iter().cloned()).collect()
}

/// How one run of a listing departs from the Rust, if it does.
fn departure(
    file: &str,
    trace: &Trace,
    py: &Value,
    marks: &Marks,
    occurrences: &BTreeMap<u32, (String, usize)>,
    source: &str,
) -> Option<String> {
    let (want, at): (Vec<At>, Vec<usize>) = match expected(trace, marks, occurrences) {
        Ok(w) => w.into_iter().unzip(),
        Err(why) => return Some(format!("{file}: {why}")),
    };
    let (got, names) = actual(py["steps"].as_array().unwrap());
    if want != got {
        let at = want.iter().zip(&got).position(|(a, b)| a != b).unwrap_or(want.len().min(got.len()));
        return Some(format!(
            "{file}: the lines part at step {at} ({} Rust-mapped, {} CPython)\nRust maps to:\n{}\nCPython ran:\n{}",
            want.len(),
            got.len(),
            show(&want, at, source),
            show(&got, at, source)
        ));
    }
    if let Some(why) = names_differ(trace, &at, &got, &names) {
        return Some(format!("{file}: {why}"));
    }
    let rust_result = trace.returned();
    let rust_error = trace.error.as_ref().map(|e| e.kind.clone());
    if py["result"] != rust_result || py["error"].as_str().map(str::to_string) != rust_error {
        return Some(format!(
            "{file}: outcomes differ\n  rust:    {rust_result} {rust_error:?}\n  cpython: {} {}",
            py["result"], py["error"]
        ));
    }
    let rust_output = printed_lines(trace);
    (py["output"] != json!(rust_output))
        .then(|| format!("{file}: output differs\n  rust:    {rust_output:?}\n  cpython: {}", py["output"]))
}

/// The runs a scenario stands for: its own, and for a loop its program
/// runs beside others (`Program::beside`) the same replies through each.
fn runs_of(scenario: &agent_loop_core::scenario::Scenario) -> Vec<agent_loop_core::scenario::Scenario> {
    let beside = programs::of(scenario.function).beside;
    if !beside.contains(&scenario.function) {
        return vec![scenario.clone()];
    }
    beside.iter().map(|f| agent_loop_core::scenario::Scenario { function: *f, ..scenario.clone() }).collect()
}

#[test]
fn each_language_s_listing_runs_the_same_steps_as_the_recorded_rust_for_every_scenario() {
    let mut failures = Vec::new();
    let mut compared = 0;
    let dir = std::env::temp_dir().join(format!("alp-python-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (file, parsed) in load_shipped() {
        let parsed = parsed.unwrap_or_else(|p| panic!("{file}: {p:?}"));
        let program = programs::of(parsed.function);
        let (marks, occurrences) = (marks(program), occurrences(program));
        for (code, listing) in program.python {
            let listing = listing.get();
            let lang = agent_loop_core::i18n::Lang::parse(code).unwrap();
            for scenario in runs_of(&parsed.localized(lang)) {
                let file = format!("{file} ({code}, {})", scenario.function.name());
                let setup = setup_text(&scenario);
                let name = format!("{}-{code}-{}", scenario.id, scenario.function.name());
                let py = replay(&dir, &name, listing, &setup, scenario.function.name());
                let trace = record_scenario(&scenario);
                match departure(&file, &trace, &py, &marks, &occurrences, listing) {
                    Some(why) => failures.push(why),
                    None => compared += 1,
                }
            }
        }
    }
    std::fs::remove_dir_all(&dir).ok();
    assert!(failures.is_empty(), "{} of the scenarios differ:\n\n{}", failures.len(), failures.join("\n\n"));
    // 35 lesson-one scenarios and 10 of lesson two through its 4 loops, in zh and en.
    assert!(compared >= 70 + 80, "compared {compared} scenario runs");
}

#[test]
fn every_language_s_listing_has_the_default_s_lines_and_marks() {
    for program in with_setup() {
        let default: Vec<&str> = program.python[0].1.get().lines().collect();
        assert!(program.python.len() >= 2, "{}: the listing is written in zh and en", program.name);
        for (code, text) in program.python {
            let lines: Vec<&str> = text.get().lines().collect();
            let at = format!("{} {code}", program.name);
            assert_eq!(lines.len(), default.len(), "{at}: as many lines as the default listing");
            for (i, (a, b)) in default.iter().zip(&lines).enumerate() {
                let mark = |l: &str| l.split_once("  #| ").map(|(_, m)| m.to_string());
                let def =
                    |l: &str| l.starts_with("def ").then(|| l.split('(').next().unwrap_or("").to_string());
                assert_eq!(mark(a), mark(b), "{at}:{}: the marks of the default's line {}", i + 1, i + 1);
                assert_eq!(def(a), def(b), "{at}:{}: the def of the default's line {}", i + 1, i + 1);
            }
            // No line wider than the code panel shows at 1440 px (84 columns;
            // a CJK character takes two).
            for (i, line) in lines.iter().enumerate() {
                let shown = line.split("  #| ").next().unwrap_or("");
                let width: usize = shown.chars().map(|c| if c > '\u{2e80}' { 2 } else { 1 }).sum();
                assert!(width <= 80, "{at}:{}: {width} columns: {shown}", i + 1);
            }
        }
    }
}

#[test]
fn every_statement_of_the_python_carries_a_rust_label() {
    for program in with_setup() {
        let source = program.python[0].1.get();
        let labels: Vec<String> = occurrences(program).values().map(|(l, _)| l.clone()).collect();
        let marks = marks(program);
        let dir =
            std::env::temp_dir().join(format!("alp-statements-{}-{}", program.name, std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("listing.py");
        std::fs::write(&path, source).unwrap();
        let out = Command::new(python())
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("cli/src/replay.py"))
            .arg("--statements")
            .arg(&path)
            .output()
            .expect("python3");
        std::fs::remove_dir_all(&dir).ok();
        let statements: BTreeMap<String, Vec<u32>> = serde_json::from_slice(&out.stdout).expect("JSON");
        assert_eq!(statements.len(), program.functions.len(), "{statements:?}");
        let lines: Vec<&str> = source.lines().collect();
        let mut unmarked = Vec::new();
        for (function, starts) in &statements {
            for n in starts {
                let text = lines[*n as usize - 1].trim();
                let docstring = text.starts_with("\"\"\"");
                if !docstring && !marks.lines.iter().any(|(f, m, _)| f == function && m == n) {
                    unmarked.push(format!("{n}: {text}"));
                }
            }
        }
        assert!(
            unmarked.is_empty(),
            "{}: statements without a `#|` label:\n{}",
            program.name,
            unmarked.join("\n")
        );
        for (_, n, keys) in &marks.lines {
            for key in keys {
                let label = key.split('@').next().unwrap_or("");
                assert!(
                    labels.iter().any(|l| l == label),
                    "{}:{n}: `{key}` is not a label of its Rust",
                    program.name
                );
            }
        }
    }
}

#[test]
fn every_step_stands_on_a_line_of_the_python_listing() {
    use agent_loop_core::lesson::{line_in, python_listing};
    use agent_loop_core::vocab::Code;
    for (file, parsed) in load_shipped() {
        let trace = record_scenario(&parsed.unwrap());
        for (i, step) in trace.steps.iter().enumerate() {
            let n = line_in(Code::Python, step);
            let line = python_listing(step.function).line(n);
            assert!(
                line.is_some(),
                "{file} step {i} ({}): Python line {n} is not in the listing",
                step.label
            );
            assert!(!line.unwrap().text.trim().is_empty(), "{file} step {i}: a blank line");
        }
    }
}

#[test]
fn the_python_names_are_read_from_the_listing() {
    use agent_loop_core::lesson::python_names;
    let main = python_names(lesson_one::RUN_MAIN);
    for name in ["call", "workspace", "timeout", "result", "process", "error", "output"] {
        assert!(main.iter().any(|n| n == name), "run_main has {name}: {main:?}");
    }
    assert!(!main.iter().any(|n| n == "returncode" || n == "stdout"), "{main:?}");
    let looped = python_names(lesson_one::RUN_LOOP);
    for name in [
        "ask",
        "execute",
        "max_calls",
        "emit",
        "messages",
        "number",
        "response",
        "reason",
        "blocks",
        "calls",
        "results",
        "call",
        "result",
        "last_line",
        "kinds",
        "texts",
    ] {
        assert!(looped.iter().any(|n| n == name), "run_loop has {name}: {looped:?}");
    }
    // Every local the Rust records in run_loop under a Python name is one the Python has.
    let question_is_rust_only = !looped.iter().any(|n| n == "question");
    assert!(question_is_rust_only);
}
