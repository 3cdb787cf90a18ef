//! Every python3 the CLI starts (`check --listing`, `record`; natively
//! and under Node alike): a fresh folder of its own, made in one step
//! (never one that is there already, nor a link planted where the CLI
//! once wrote, `/tmp/alp-listing-<pid>`), 0700, removed after, also when
//! the run fails or is stopped; and each run held to limits that say
//! their name: a listing that never ends or prints without end, a program
//! that escapes record's own budgets. A watch in every run's Python
//! ([`SPY`], a `sitecustomize` on the PYTHONPATH) tells the folders;
//! nothing here reads the clock (a loop without end passes any time
//! limit).

// The CLI is a native tool.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::record::{clis, finished, python_version, Ran};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Every harness run, watched: the folder it runs in (its mode, its
/// files, whether it is a link) goes to `$ALP_SPY`, then the harness runs
/// (with `$ALP_SPY_FAIL`, it fails instead). The supervisor runs with
/// `-S`, so without this.
const SPY: &str = r#"import os, sys
if os.path.basename(sys.argv[0]) == "harness.py" and os.environ.get("ALP_SPY"):
    here = os.getcwd()
    kind = "link" if os.path.islink(here) else "dir"
    files = "".join(name + "," for name in sorted(os.listdir(here)))
    mode = "%o" % (os.stat(here).st_mode & 0o777)
    with open(os.environ["ALP_SPY"], "a") as log:
        log.write("\t".join([here, mode, files, kind]) + "\n")
    if os.environ.get("ALP_SPY_FAIL"):
        sys.stderr.write("the watched python3 failed\n")
        sys.stderr.flush()
        os._exit(1)
"#;

/// A scratch folder: `tmp/` (the CLI's temporary directory),
/// `site/sitecustomize.py` (the watch), `spy.log` (what it saw), and
/// whatever a test writes there.
struct Machine {
    root: PathBuf,
}

impl Machine {
    fn new(name: &str) -> Option<Machine> {
        python_version()?;
        let root = std::env::temp_dir().join(format!("alp-python-runs-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("tmp")).unwrap();
        std::fs::create_dir_all(root.join("site")).unwrap();
        std::fs::write(root.join("site/sitecustomize.py"), SPY).unwrap();
        Some(Machine { root })
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
        command.env("PYTHONPATH", self.root.join("site")).env("TMPDIR", self.tmp());
        command.env("ALP_SPY", self.root.join("spy.log")).env("ALP_PLANT", planted.unwrap_or(Path::new("")));
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
            ("700", "harness.py,listing.py,setup.py,", false),
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

/// `check --listing` of the lesson with `from` replaced by `to`, on one
/// scenario, by `cli` (`extra`: more arguments); its folders private and gone.
fn check_changed(
    machine: &Machine,
    (name, cli): &(&str, Command),
    from: &str,
    to: &str,
    extra: &[&str],
) -> Ran {
    let text = listing_text();
    assert!(text.contains(from), "{from}");
    let listing = machine.root.join("changed.py");
    std::fs::write(&listing, text.replacen(from, to, 1)).unwrap();
    let scenarios = one_scenario(machine);
    let mut args =
        vec![OsStr::new("check"), OsStr::new("--listing"), listing.as_os_str(), scenarios.as_os_str()];
    args.extend(os(extra));
    let ran = machine.run(cli, &args, None, false);
    // (a run stopped at a time limit may be stopped before its Python has
    // started, on a busy machine: then only that nothing is left is asserted)
    let timed = extra.contains(&"--timeout");
    if !timed || machine.root.join("spy.log").exists() {
        private_and_gone(machine, name, from);
    }
    assert!(machine.left().is_empty(), "{name}: left: {:?}", machine.left());
    ran
}

const TOP: &str = "OUTPUT_LIMIT = 2000\n";
const ASK: &str = "    response = client.messages.create(";

#[test]
fn a_listing_that_never_ends_or_prints_without_end_is_stopped_at_a_limit_it_names() {
    let Some(machine) = Machine::new("limits") else {
        eprintln!("no python3 here: the limits are not run");
        return;
    };
    let stopped = |ran: &Ran, why: &str| {
        ran.code == 1
            && ran.out.contains(&format!("report: {why}\n"))
            && ran.out.ends_with("changed.py: stopped at a limit, so it was not checked\n")
    };
    for cli in clis() {
        let name = cli.0;
        // Never ends, where nothing is traced: the time limit (here 1 s; 10 s unless --timeout says).
        let ran = check_changed(
            &machine,
            &cli,
            TOP,
            "OUTPUT_LIMIT = 2000\nwhile True: pass\n",
            &["--timeout", "1"],
        );
        let why = "the run took longer than 1 s and was stopped (the time limit; raise it with --timeout)";
        assert!(stopped(&ran, why), "{name}: {ran:?}");
        // Never ends inside a traced function: stopped at the step limit, said where it departs.
        let ran = check_changed(&machine, &cli, ASK, &format!("    while True:\n        x = 1\n{ASK}"), &[]);
        assert_eq!(ran.code, 1, "{name}: {ran:?}");
        assert!(
            ran.out.contains("report: departs at step ")
                && ran.out.contains("CPython at changed.py:15 (ask_claude)"),
            "{name}: {ran:?}"
        );
        // Prints without end: the harness keeps a million characters.
        let flood = format!("    any(print('x' * 100000) for _ in iter(int, 1)); {}", ASK.trim_start());
        let ran = check_changed(&machine, &cli, ASK, &flood, &[]);
        let why = "the run printed more than 1000000 characters and was stopped (the output limit)";
        assert!(stopped(&ran, why), "{name}: {ran:?}");
        // Writes without end past the harness, to standard output or error: 64 MB read at most.
        for fd in [1, 2] {
            let write =
                format!("OUTPUT_LIMIT = 2000\nimport os\nwhile True: os.write({fd}, b'x' * 1048576)\n");
            let ran = check_changed(&machine, &cli, TOP, &write, &[]);
            let why = "python3 wrote more than 64 MB to its standard output or error and was stopped (the output limit)";
            assert!(stopped(&ran, why), "{name}: {fd}: {ran:?}");
        }
    }
}

#[test]
fn check_listing_takes_a_timeout_and_says_a_bad_one() {
    let cli = Command::new(env!("CARGO_BIN_EXE_agent-loop-cli"))
        .args(["check", "--listing", "x.py", "--timeout", "soon"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&cli.stderr);
    assert_eq!(cli.status.code(), Some(2));
    assert!(err.starts_with("--timeout: soon is not a number of seconds above 0\nusage:"), "{err}");
    for args in [&["check", "--listing", "a.py", "b", "c"][..], &["check", "--listing", "a.py", "--timeout"]]
    {
        let cli = Command::new(env!("CARGO_BIN_EXE_agent-loop-cli")).args(args).output().unwrap();
        assert_eq!(cli.status.code(), Some(2), "{args:?}");
    }
}

/// A record manifest of ok.py (tests/record/bad/) with `setup` as its setup.
fn manifest(machine: &Machine, setup: &str) -> PathBuf {
    let bad = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/record/bad");
    let dir = machine.root.join("program");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(bad.join("ok.py"), dir.join("ok.py")).unwrap();
    std::fs::write(dir.join("setup.py"), setup).unwrap();
    let manifest = dir.join("manifest.json");
    std::fs::write(
        &manifest,
        r#"{"program": "ok.py", "setup": "setup.py",
 "scenarios": [{"id": "three", "title": {"zh": "三", "en": "Three"}}]}"#,
    )
    .unwrap();
    manifest
}

#[test]
fn a_program_that_escapes_record_s_own_budgets_is_stopped_by_the_runner() {
    let Some(machine) = Machine::new("record") else {
        eprintln!("no python3 here: record's limits are not run");
        return;
    };
    // The harness's alarm ignored and its hard stop cancelled: stopped 5 s after the budget.
    let escapes = "import faulthandler, signal\nsignal.signal(signal.SIGALRM, signal.SIG_IGN)\n\
                   faulthandler.cancel_dump_traceback_later()\ncount(1)\nwhile True: pass\n";
    // (record.py points the program's standard output at /dev/null: its error then)
    let floods = "import os\ncount(1)\nwhile True: os.write(2, b'x' * 1048576)\n";
    for (name, cli) in clis() {
        let file = manifest(&machine, escapes);
        let args = [OsStr::new("record"), file.as_os_str(), OsStr::new("--timeout"), OsStr::new("1")];
        let ran = machine.run(&cli, &args, None, false);
        let said = format!(
            "{}: scenarios[0]: three, en: python3 was still running 5 s after the time budget of 1 s and was \
             stopped (raise the budget with --timeout) (line 2)\n",
            file.display()
        );
        assert!(ran.code == 1 && ran.err.starts_with(&said), "{name}: {ran:?}");
        private_and_gone(&machine, name, "record past its budget");
        let file = manifest(&machine, floods);
        let ran = machine.run(&cli, &[OsStr::new("record"), file.as_os_str()], None, false);
        let said = format!(
            "{}: scenarios[0]: three, en: python3 wrote more than 64 MB to its standard output or error and was \
             stopped (the output limit) (line 2)\n",
            file.display()
        );
        assert!(ran.code == 1 && ran.err.starts_with(&said), "{name}: {ran:?}");
        private_and_gone(&machine, name, "record writing without end");
        assert!(machine.left().is_empty(), "{name}: left: {:?}", machine.left());
    }
}
