//! Every python3 the CLI starts (`check --listing`, `record`; natively
//! and under Node alike): a fresh folder of its own, made in one step
//! (never one that is there already, nor a link planted where the CLI
//! once wrote, `/tmp/alp-listing-<pid>`), 0700, removed after, also when
//! the run fails. A python3 that watches where it is run ([`SPY`], first
//! on the PATH, then the real one) tells the folders.

// The CLI is a native tool.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::record::{finished, node_command, python_version, Ran};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

/// python3, watched: the folder of each run (its mode, its files, whether
/// it is a link) goes to `$ALP_SPY`, then the real python3 runs it (with
/// `$ALP_SPY_FAIL`, it fails instead).
const SPY: &str = r#"#!/bin/sh
case "$1" in
  --version|-c) exec "$ALP_REAL_PYTHON" "$@" ;;
esac
d=$(dirname "$1")
if [ -L "$d" ]; then link=link; else link=dir; fi
printf '%s\t%s\t%s\t%s\n' "$d" "$(stat -c %a "$d")" "$(ls -A "$d" | tr '\n' ,)" "$link" >> "$ALP_SPY"
if [ -n "$ALP_SPY_FAIL" ]; then echo "the watched python3 failed" >&2; exit 1; fi
exec "$ALP_REAL_PYTHON" "$@"
"#;

/// The CLI natively, or the Node build when it can run here.
fn clis() -> Vec<(&'static str, Command)> {
    let mut native = Command::new(env!("CARGO_BIN_EXE_agent-loop-cli"));
    native.current_dir(env!("CARGO_MANIFEST_DIR"));
    let mut all = vec![("native", native)];
    all.extend(node_command().map(|node| ("node", node)));
    all
}

/// A scratch folder: `tmp/` (the CLI's temporary directory), `bin/python3`
/// (the watching python3), `spy.log` (what it saw), and whatever a test
/// writes there.
struct Machine {
    root: PathBuf,
    real: PathBuf,
}

impl Machine {
    fn new(name: &str) -> Option<Machine> {
        python_version()?;
        let out = Command::new("python3").args(["-c", "import sys; print(sys.executable)"]).output().ok()?;
        let real = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        let root = std::env::temp_dir().join(format!("alp-python-runs-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("tmp")).unwrap();
        std::fs::create_dir_all(root.join("bin")).unwrap();
        let spy = root.join("bin/python3");
        std::fs::write(&spy, SPY).unwrap();
        let mut permissions = std::fs::metadata(&spy).unwrap().permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
        std::fs::set_permissions(&spy, permissions).unwrap();
        Some(Machine { root, real })
    }

    fn tmp(&self) -> PathBuf {
        self.root.join("tmp")
    }

    /// `cli` on `args` on this machine: its PATH, TMPDIR and spy;
    /// `planted`: first a link to that folder where the CLI once wrote,
    /// `$TMPDIR/alp-listing-<pid>` (the pid kept by `exec`).
    fn run(&self, cli: &Command, args: &[&OsStr], planted: Option<&Path>, fail: bool) -> Ran {
        let mut command = Command::new("sh");
        let plant = r#"[ -n "$ALP_PLANT" ] && ln -s "$ALP_PLANT" "$TMPDIR/alp-listing-$$"; exec "$@""#;
        command.args(["-c", plant, "sh"]).arg(cli.get_program()).args(cli.get_args()).args(args);
        command.current_dir(cli.get_current_dir().unwrap());
        let path =
            format!("{}:{}", self.root.join("bin").display(), std::env::var("PATH").unwrap_or_default());
        command.env("PATH", path).env("TMPDIR", self.tmp()).env("ALP_SPY", self.root.join("spy.log"));
        command.env("ALP_REAL_PYTHON", &self.real).env("ALP_PLANT", planted.unwrap_or(Path::new("")));
        if fail {
            command.env("ALP_SPY_FAIL", "1");
        }
        finished(command.output().unwrap())
    }

    /// The folders the watching python3 was run in since the last look:
    /// (folder, its mode, its files, whether it is a link).
    fn runs(&self) -> Vec<(PathBuf, String, String, bool)> {
        let log = std::fs::read_to_string(self.root.join("spy.log")).unwrap_or_default();
        std::fs::remove_file(self.root.join("spy.log")).ok();
        log.lines()
            .map(|l| {
                let parts: Vec<&str> = l.split('\t').collect();
                (PathBuf::from(parts[0]), parts[1].into(), parts[2].into(), parts[3] == "link")
            })
            .collect()
    }

    /// What is left in the temporary directory.
    fn left(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(self.tmp())
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }
}

impl Drop for Machine {
    fn drop(&mut self) {
        std::fs::remove_dir_all(&self.root).ok();
    }
}

fn listing_text() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/listings/lesson.zh.py"))
        .unwrap()
}

/// A folder of one scenario (report.json) for `check --listing`.
fn one_scenario(machine: &Machine) -> PathBuf {
    let dir = machine.root.join("scenarios");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/scenarios/report.json"),
        dir.join("report.json"),
    )
    .unwrap();
    dir
}

fn os(args: &[&str]) -> Vec<&'static OsStr> {
    args.iter().map(|a| OsStr::new(Box::leak(a.to_string().into_boxed_str()))).collect()
}

/// Each run was in a folder of its own in the temporary directory, 0700,
/// holding only the harness and its two files, no link; none is left.
fn private_and_gone(machine: &Machine, cli: &str, what: &str) -> usize {
    let runs = machine.runs();
    assert!(!runs.is_empty(), "{cli}: {what}: python3 never ran");
    for (dir, mode, files, link) in &runs {
        assert_eq!(dir.parent(), Some(machine.tmp().as_path()), "{cli}: {what}: {dir:?}");
        assert_eq!(
            (mode.as_str(), files.as_str(), *link),
            ("700", "listing.py,replay.py,setup.py,", false),
            "{cli}: {what}: {dir:?}"
        );
    }
    let mut dirs: Vec<&PathBuf> = runs.iter().map(|r| &r.0).collect();
    dirs.dedup();
    assert_eq!(dirs.len(), runs.len(), "{cli}: {what}: a folder used twice: {dirs:?}");
    runs.len()
}

#[test]
fn every_python3_runs_in_a_fresh_private_folder_removed_after_even_on_failure() {
    let Some(machine) = Machine::new("private") else {
        eprintln!("no python3 here: the runs are not watched");
        return;
    };
    let victim = machine.root.join("victim");
    std::fs::create_dir_all(&victim).unwrap();
    let listing = machine.root.join("lesson.zh.py");
    std::fs::write(&listing, listing_text()).unwrap();
    let scenarios = one_scenario(&machine);
    let check = [OsStr::new("check"), OsStr::new("--listing"), listing.as_os_str(), scenarios.as_os_str()];
    let record = os(&["record", "tests/record/good/manifest.json"]);
    for (name, cli) in clis() {
        let ran = machine.run(&cli, &check, Some(&victim), false);
        assert_eq!(ran.code, 0, "{name}: {ran:?}");
        assert!(ran.out.contains("CPython runs the same lines on 1 scenario(s)"), "{name}: {ran:?}");
        private_and_gone(&machine, name, "check --listing");
        assert!(
            std::fs::read_dir(&victim).unwrap().next().is_none(),
            "{name}: the planted link was followed"
        );
        let left = machine.left();
        assert!(left.len() == 1 && left[0].starts_with("alp-listing-"), "{name}: left: {left:?}");
        let planted = machine.tmp().join(&left[0]);
        assert_eq!(std::fs::read_link(&planted).unwrap(), victim, "{name}: the planted link was replaced");
        std::fs::remove_file(planted).unwrap();
        let ran = machine.run(&cli, &record, None, false);
        assert_eq!(ran.code, 0, "{name}: {ran:?}");
        assert!(private_and_gone(&machine, name, "record") > 2, "{name}");
        // A run that fails leaves nothing either.
        let ran = machine.run(&cli, &check, None, true);
        assert_eq!(ran.code, 1, "{name}: {ran:?}");
        assert!(
            ran.out.contains("report: lesson.zh.py does not run: the watched python3 failed"),
            "{name}: {ran:?}"
        );
        private_and_gone(&machine, name, "a failing check --listing");
        let ran = machine.run(&cli, &record, None, true);
        assert_eq!(ran.code, 1, "{name}: {ran:?}");
        private_and_gone(&machine, name, "a failing record");
        assert!(machine.left().is_empty(), "{name}: left in the temporary directory: {:?}", machine.left());
    }
}
