//! Golden traces: every shipped scenario's full trace, as pretty JSON under
//! `tests/golden/<id>.json`. When a trace changes, the test prints a line
//! diff. If the change is intended, regenerate with
//! `UPDATE_GOLDEN=1 cargo test --test golden` and review `git diff`.

use agent_loop_core::lesson::trace_json;
use agent_loop_core::run::record_scenario;
use agent_loop_core::scenario::load_shipped;
use std::path::Path;

/// A small line diff: the changed region with 3 lines of context.
fn diff(expected: &str, actual: &str) -> String {
    let e: Vec<&str> = expected.lines().collect();
    let a: Vec<&str> = actual.lines().collect();
    let prefix = e.iter().zip(&a).take_while(|(x, y)| x == y).count();
    let suffix = e[prefix..].iter().rev().zip(a[prefix..].iter().rev()).take_while(|(x, y)| x == y).count();
    let mut out = String::new();
    let from = prefix.saturating_sub(3);
    for (i, line) in e.iter().enumerate().take(prefix).skip(from) {
        out.push_str(&format!("  {:>5} {line}\n", i + 1));
    }
    let shown = |lines: &[&str], sign: char, out: &mut String| {
        for (k, line) in lines.iter().enumerate().take(40) {
            out.push_str(&format!("{sign} {:>5} {line}\n", prefix + k + 1));
        }
        if lines.len() > 40 {
            out.push_str(&format!("{sign}       … {} more lines\n", lines.len() - 40));
        }
    };
    shown(&e[prefix..e.len() - suffix], '-', &mut out);
    shown(&a[prefix..a.len() - suffix], '+', &mut out);
    out
}

#[test]
fn traces_match_golden_files() {
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let mut failures = Vec::new();
    let mut ids = Vec::new();
    for (file, parsed) in load_shipped() {
        let scenario = parsed.unwrap_or_else(|p| panic!("{file}: {p:?}"));
        let trace = record_scenario(&scenario);
        let actual = serde_json::to_string_pretty(&trace_json(&trace)).unwrap() + "\n";
        let path = dir.join(format!("{}.json", scenario.id));
        ids.push(format!("{}.json", scenario.id));
        if update {
            std::fs::write(&path, &actual).unwrap();
            continue;
        }
        match std::fs::read_to_string(&path) {
            Ok(expected) if expected == actual => {}
            Ok(expected) => {
                failures.push(format!("{}: trace changed\n{}", path.display(), diff(&expected, &actual)))
            }
            Err(_) => failures.push(format!("{}: missing golden file", path.display())),
        }
    }
    // A golden file without a scenario is stale.
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().to_string();
        if name.ends_with(".json") && !ids.contains(&name) {
            if update {
                std::fs::remove_file(dir.join(&name)).unwrap();
            } else {
                failures.push(format!("tests/golden/{name}: no scenario has this id"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{}\n\nIf intended: UPDATE_GOLDEN=1 cargo test --test golden, then review git diff.",
        failures.join("\n\n")
    );
}

#[test]
fn diff_shows_the_changed_lines() {
    let d = diff("a\nb\nc\nd\n", "a\nb\nX\nd\n");
    assert!(d.contains("-     3 c"), "{d}");
    assert!(d.contains("+     3 X"), "{d}");
    assert!(d.contains("      2 b"), "{d}");
}
