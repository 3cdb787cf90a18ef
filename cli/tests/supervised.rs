//! What the supervisor every python3 run starts under (cli/src/supervise.py)
//! answers for, natively and under Node: every process a listing starts
//! goes with its run — when the run ends, is stopped at a limit, or on
//! Ctrl-C, which leaves no folder either; a process that leaves the run's
//! group does not hold the CLI up until the time limit; a Ctrl-C the CLI
//! was started to ignore stays ignored; a run that ends without a word is
//! said so; a Ctrl-C as python3 starts leaves nothing; and the supervisor
//! removes no folder but the one it made for its run. The tests wait for
//! events (a process seen, a folder gone), counted in tries; none reads
//! the clock.

// The CLI is a native tool.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use agent_loop_cli::python;
use common::record::{clis, finished, python_version, Ran};
use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};

/// A scratch folder: `tmp/` (the CLI's temporary directory), the listings
/// a test writes, `scenarios/` (one scenario, report.json).
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Option<Scratch> {
        python_version()?;
        let root = std::env::temp_dir().join(format!("alp-supervised-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("tmp")).unwrap();
        std::fs::create_dir_all(root.join("scenarios")).unwrap();
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
        std::fs::copy(fixtures.join("scenarios/report.json"), root.join("scenarios/report.json")).unwrap();
        Some(Scratch(root))
    }

    /// `check --listing` of the lesson with `line` added at its top, by `cli`.
    fn command(&self, cli: &Command, line: &str, timeout: &str) -> Command {
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
        let text = std::fs::read_to_string(fixtures.join("listings/lesson.zh.py")).unwrap();
        let listing = self.0.join("changed.py");
        std::fs::write(&listing, text.replacen(TOP, &format!("{TOP}{line}"), 1)).unwrap();
        let mut command = Command::new(cli.get_program());
        command.args(cli.get_args()).current_dir(cli.get_current_dir().unwrap());
        command.arg("check").arg("--listing").arg(&listing).arg(self.0.join("scenarios"));
        command.args(["--timeout", timeout]).env("TMPDIR", self.0.join("tmp"));
        command
    }

    /// A python3 of `script` first on the PATH (`$ALP_REAL_PYTHON`: the
    /// machine's own): the PATH and the real one.
    fn python3(&self, script: &str) -> (String, String) {
        let out = Command::new("python3").args(["-c", "import sys; print(sys.executable)"]).output().unwrap();
        let real = String::from_utf8_lossy(&out.stdout).trim().to_string();
        let bin = self.0.join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::write(bin.join("python3"), script).unwrap();
        let mut permissions = std::fs::metadata(bin.join("python3")).unwrap().permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
        std::fs::set_permissions(bin.join("python3"), permissions).unwrap();
        (format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default()), real)
    }

    fn run(&self, cli: &Command, line: &str, timeout: &str) -> Ran {
        finished(self.command(cli, line, timeout).output().unwrap())
    }

    /// What is left in the temporary directory.
    fn left(&self) -> Vec<String> {
        let entries = std::fs::read_dir(self.0.join("tmp")).unwrap().flatten();
        entries.map(|e| e.file_name().to_string_lossy().into_owned()).collect()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        std::fs::remove_dir_all(&self.0).ok();
    }
}

const TOP: &str = "OUTPUT_LIMIT = 2000\n";

/// Python that starts `sleep <marker>`: `how` is what Popen is given
/// besides (`start_new_session=True` leaves the run's group).
fn sleep_line(marker: &str, how: &str) -> String {
    format!("import subprocess\nsubprocess.Popen(['sleep', '{marker}']{how})\n")
}

/// A marker of this test process's own (`n`: which one).
fn marker(n: usize) -> String {
    format!("{}.{n}", 4000 + std::process::id() % 1000)
}

/// The pids of the processes running `sleep <marker>`.
fn sleeping(marker: &str) -> Vec<String> {
    let wanted = format!("sleep\0{marker}\0");
    let procs = std::fs::read_dir("/proc").map(|d| d.flatten().collect::<Vec<_>>()).unwrap_or_default();
    procs
        .into_iter()
        .filter(|e| std::fs::read(e.path().join("cmdline")).is_ok_and(|c| c == wanted.as_bytes()))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect()
}

/// Waits for `done` (checked every 20 ms, 3,000 times at most: an event,
/// not a time, is what is asserted); whether it came.
fn comes(mut done: impl FnMut() -> bool) -> bool {
    (0..3000).any(|_| {
        done() || {
            std::thread::sleep(std::time::Duration::from_millis(20));
            false
        }
    })
}

/// Stops what a test left running (its marker is its own).
fn clear(marker: &str) {
    for pid in sleeping(marker) {
        let _ = Command::new("kill").args(["-KILL", &pid]).status();
    }
}

/// SIGINT to the process group of `child` (started as its leader), as a
/// terminal's Ctrl-C goes to its foreground group.
fn ctrl_c(child: &Child) {
    let _ = Command::new("kill").args(["-INT", "--", &format!("-{}", child.id())]).status();
}

#[test]
fn what_a_listing_starts_goes_with_its_run_when_it_ends_or_is_stopped() {
    let Some(scratch) = Scratch::new("children") else {
        eprintln!("no python3 here: a listing's processes are not run");
        return;
    };
    for (n, (name, cli)) in clis().into_iter().enumerate() {
        for hang in [true, false] {
            let marker = marker(10 * n + hang as usize);
            let tail = if hang { "while True: pass\n" } else { "" };
            // (a limit only the run without end meets, on a busy machine too)
            let timeout = if hang { "2" } else { "60" };
            let ran = scratch.run(&cli, &(sleep_line(&marker, "") + tail), timeout);
            let gone = comes(|| sleeping(&marker).is_empty());
            clear(&marker);
            assert!(gone, "{name}: hang {hang}: sleep {marker} outlived the run: {ran:?}");
            let limit = ran.out.contains("the run took longer than 2 s and was stopped");
            assert_eq!(limit, hang, "{name}: {ran:?}");
            assert!(scratch.left().is_empty(), "{name}: left: {:?}", scratch.left());
        }
    }
}

#[test]
fn a_process_that_leaves_the_run_s_group_does_not_hold_the_cli_until_the_time_limit() {
    let Some(scratch) = Scratch::new("escape") else {
        eprintln!("no python3 here: an escape is not run");
        return;
    };
    for (n, (name, cli)) in clis().into_iter().enumerate() {
        // (its standard output is the run's: before, the CLI read it until the time limit)
        let marker = marker(20 + n);
        let ran = scratch.run(&cli, &sleep_line(&marker, ", start_new_session=True"), "30");
        clear(&marker);
        assert_eq!(ran.code, 0, "{name}: {ran:?}");
        assert!(ran.out.contains("CPython runs the same lines on 1 scenario(s)"), "{name}: {ran:?}");
        assert!(scratch.left().is_empty(), "{name}: left: {:?}", scratch.left());
    }
}

#[test]
fn ctrl_c_stops_every_process_of_the_run_and_leaves_no_folder() {
    let Some(scratch) = Scratch::new("interrupt") else {
        eprintln!("no python3 here: Ctrl-C is not run");
        return;
    };
    for (n, (name, cli)) in clis().into_iter().enumerate() {
        let marker = marker(30 + n);
        let line = sleep_line(&marker, "") + "while True: pass\n";
        let mut child = scratch.command(&cli, &line, "60").process_group(0).spawn().unwrap();
        let started = comes(|| !sleeping(&marker).is_empty());
        ctrl_c(&child);
        let status = child.wait().unwrap();
        let gone = comes(|| sleeping(&marker).is_empty() && scratch.left().is_empty());
        let left = (sleeping(&marker), scratch.left());
        clear(&marker);
        assert!(started, "{name}: the listing never started its sleep");
        assert!(!status.success(), "{name}: {status:?}");
        assert!(gone, "{name}: left after Ctrl-C (processes, folders): {left:?}");
    }
}

#[test]
fn a_ctrl_c_the_cli_was_started_to_ignore_stays_ignored() {
    let Some(scratch) = Scratch::new("ignored") else {
        eprintln!("no python3 here: an ignored Ctrl-C is not run");
        return;
    };
    for (n, (name, cli)) in clis().into_iter().enumerate() {
        // A background job of a shell starts with SIGINT ignored; the run
        // waits until the Ctrl-C has been sent (its marker file).
        let marker = marker(40 + n);
        let sent = scratch.0.join(format!("sent-{n}"));
        let wait = format!("import os, time\nwhile not os.path.exists({:?}): time.sleep(0.01)\n", sent);
        let line = sleep_line(&marker, "") + &wait;
        let inner = scratch.command(&cli, &line, "60");
        let mut command = Command::new("sh");
        command
            .args(["-c", "trap '' INT; exec \"$@\"", "sh"])
            .arg(inner.get_program())
            .args(inner.get_args());
        command.current_dir(inner.get_current_dir().unwrap()).env("TMPDIR", scratch.0.join("tmp"));
        let child = command.process_group(0).stdout(std::process::Stdio::piped()).spawn().unwrap();
        let started = comes(|| !sleeping(&marker).is_empty());
        ctrl_c(&child);
        std::fs::write(&sent, "").unwrap();
        let ran = finished(child.wait_with_output().unwrap());
        let gone = comes(|| sleeping(&marker).is_empty() && scratch.left().is_empty());
        clear(&marker);
        assert!(started, "{name}: the listing never started its sleep");
        if name == "node" {
            // (Node sets SIGINT back to its default when it starts, for itself and what
            // it starts: it dies of it, and the supervisor stops the run and its folder)
            assert!(ran.code != 0 && gone, "{name}: {ran:?}, left: {:?}", scratch.left());
            continue;
        }
        assert_eq!(ran.code, 0, "{name}: {ran:?}");
        assert!(ran.out.contains("CPython runs the same lines on 1 scenario(s)"), "{name}: {ran:?}");
    }
}

/// A python3 that is interrupted as it starts, as a Ctrl-C in the
/// terminal would interrupt it: the whole group the CLI is in.
const INTERRUPTED: &str = r#"#!/bin/sh
case "$1" in
  --version) exec "$ALP_REAL_PYTHON" "$@" ;;
esac
kill -INT 0
exec sleep 30
"#;

#[test]
fn a_ctrl_c_while_python3_starts_leaves_no_folder() {
    let Some(scratch) = Scratch::new("starting") else {
        eprintln!("no python3 here: a Ctrl-C at the start is not run");
        return;
    };
    let (path, real) = scratch.python3(INTERRUPTED);
    for (name, cli) in clis() {
        let mut command = scratch.command(&cli, "", "60");
        // (a group of its own, as a terminal gives a command: the Ctrl-C reaches all of it)
        command.env("PATH", &path).env("ALP_REAL_PYTHON", &real).process_group(0);
        let ran = finished(command.output().unwrap());
        assert!(ran.code != 0, "{name}: {ran:?}");
        assert!(scratch.left().is_empty(), "{name}: left: {:?}", scratch.left());
    }
}

#[test]
fn files_of_the_folder_the_cli_runs_in_do_not_stand_in_for_python_s_own_modules() {
    let Some(scratch) = Scratch::new("shadows") else {
        eprintln!("no python3 here: shadowing modules are not run");
        return;
    };
    let course = scratch.0.join("course");
    std::fs::create_dir_all(&course).unwrap();
    for module in ["selectors", "threading", "shutil", "subprocess"] {
        std::fs::write(course.join(format!("{module}.py")), "raise SystemExit(3)\n").unwrap();
    }
    for (name, cli) in clis() {
        let mut command = scratch.command(&cli, "", "60");
        // (the CLI run from the author's own folder, as an author runs it)
        command.current_dir(&course);
        let ran = finished(command.output().unwrap());
        assert!(ran.code == 0 && ran.out.contains("CPython runs the same lines"), "{name}: {ran:?}");
        assert!(scratch.left().is_empty(), "{name}: left: {:?}", scratch.left());
    }
}

#[test]
fn a_temporary_directory_that_cannot_hold_the_run_s_folder_is_said_as_the_machine_s_trouble() {
    // (the supervisor begins its own trouble with the words the runners look for)
    assert!(python::SUPERVISOR.contains(&format!("CANNOT = {:?}", python::CANNOT)));
    let Some(scratch) = Scratch::new("no-tmp") else {
        eprintln!("no python3 here: a missing TMPDIR is not run");
        return;
    };
    for (name, cli) in clis() {
        let mut command = scratch.command(&cli, "", "60");
        command.env("TMPDIR", scratch.0.join("nowhere"));
        let ran = finished(command.output().unwrap());
        let said = "cannot run python3 here: cannot make a private temporary folder in ";
        assert!(ran.code == 1 && ran.out.contains(said), "{name}: {ran:?}");
        assert!(ran.out.contains("python3 could not run it here, so it was not checked"), "{name}: {ran:?}");
        assert!(!ran.out.contains("departs"), "{name}: {ran:?}");
    }
}

/// A python3 that says why it cannot run and ends without reading its
/// standard input.
const BROKEN: &str = r#"#!/bin/sh
case "$1" in
  --version) exec "$ALP_REAL_PYTHON" "$@" ;;
esac
echo "this python3 is broken" >&2
exit 1
"#;

#[test]
fn a_python3_that_ends_before_it_reads_its_files_is_heard() {
    let Some(scratch) = Scratch::new("broken") else {
        eprintln!("no python3 here: a broken python3 is not run");
        return;
    };
    let (path, real) = scratch.python3(BROKEN);
    // (more than a pipe holds: the CLI is still writing when python3 has gone)
    let long = format!("# {}\n", "x".repeat(200_000));
    for (name, cli) in clis() {
        let mut command = scratch.command(&cli, &long, "60");
        command.env("PATH", &path).env("ALP_REAL_PYTHON", &real);
        let ran = finished(command.output().unwrap());
        assert!(ran.code == 1 && ran.out.contains("does not run: this python3 is broken"), "{name}: {ran:?}");
    }
}

#[test]
fn a_relative_temporary_directory_is_made_absolute() {
    let Some(scratch) = Scratch::new("relative") else {
        eprintln!("no python3 here: a relative TMPDIR is not run");
        return;
    };
    for (name, cli) in clis() {
        let mut command = scratch.command(&cli, "", "60");
        command.current_dir(&scratch.0).env("TMPDIR", "tmp");
        let ran = finished(command.output().unwrap());
        assert!(ran.code == 0 && ran.out.contains("CPython runs the same lines"), "{name}: {ran:?}");
        assert!(scratch.left().is_empty(), "{name}: left: {:?}", scratch.left());
    }
}

#[test]
fn a_cli_that_dies_leaves_neither_its_run_nor_its_folder() {
    let Some(scratch) = Scratch::new("died") else {
        eprintln!("no python3 here: a CLI's death is not run");
        return;
    };
    for (n, (name, cli)) in clis().into_iter().enumerate() {
        let marker = marker(50 + n);
        let line = sleep_line(&marker, "") + "while True: pass\n";
        let mut command = scratch.command(&cli, &line, "60");
        let mut child = command.stdout(std::process::Stdio::null()).spawn().unwrap();
        let started = comes(|| !sleeping(&marker).is_empty());
        child.kill().unwrap();
        child.wait().unwrap();
        let gone = comes(|| sleeping(&marker).is_empty() && scratch.left().is_empty());
        let left = (sleeping(&marker), scratch.left());
        clear(&marker);
        assert!(started && gone, "{name}: left after the CLI was killed (processes, folders): {left:?}");
    }
}

#[test]
fn a_run_that_ends_without_a_word_is_said_so() {
    let Some(scratch) = Scratch::new("silent") else {
        eprintln!("no python3 here: a silent end is not run");
        return;
    };
    for (name, cli) in clis() {
        let ran = scratch.run(&cli, "import os\nos._exit(3)\n", "60");
        let said = "report: changed.py does not run: python3 ended without a word (no traceback: os._exit, \
                    a signal, or a process that killed it)\n";
        assert!(ran.code == 1 && ran.out.contains(said), "{name}: {ran:?}");
    }
}

/// A python3 that never answers `--version` (`$1`: what the CLI asked).
const VERSION_HANGS: &str = r#"#!/bin/sh
case "$1" in
  --version) exec sleep "$ALP_MARKER" ;;
esac
exec "$ALP_REAL_PYTHON" "$@"
"#;

/// A Python 2 named python3: its version on standard error, no `-I`.
const PYTHON_TWO: &str = r#"#!/bin/sh
case "$1" in
  --version) echo "Python 2.7.18" >&2; exit 0 ;;
esac
echo "Unknown option: $1" >&2
exit 2
"#;

#[test]
fn a_python3_that_hangs_on_its_version_or_is_python_2_is_none() {
    let Some(scratch) = Scratch::new("probe") else {
        eprintln!("no python3 here: no probe to bound");
        return;
    };
    let marker = marker(7);
    for script in [VERSION_HANGS, PYTHON_TWO] {
        let (path, real) = scratch.python3(script);
        for (name, cli) in clis() {
            let mut command = scratch.command(&cli, "", "60");
            command.env("PATH", &path).env("ALP_REAL_PYTHON", &real).env("ALP_MARKER", &marker);
            command.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped());
            let mut child = command.spawn().unwrap();
            // (an event, not a time: the CLI ends; 60 s at most, then it is stopped and fails)
            let ended = comes(|| child.try_wait().unwrap().is_some());
            if !ended {
                let _ = child.kill();
            }
            let ran = finished(child.wait_with_output().unwrap());
            assert!(ended, "{name}: still waiting for python3 --version: {ran:?}");
            assert!(ran.out.contains("python3 not found, so the listing was not run"), "{name}: {ran:?}");
        }
        clear(&marker);
    }
}

/// A python3 that writes how many bytes its arguments are to
/// `$ALP_ARGS_LOG`, then is the machine's own.
const COUNTED: &str = r#"#!/bin/sh
echo "$*" | wc -c >> "$ALP_ARGS_LOG"
exec "$ALP_REAL_PYTHON" "$@"
"#;

#[test]
fn a_run_s_command_line_is_short_enough_for_ps() {
    let Some(scratch) = Scratch::new("command-line") else {
        eprintln!("no python3 here: no command line to measure");
        return;
    };
    let (path, real) = scratch.python3(COUNTED);
    let log = scratch.0.join("args.log");
    for (name, cli) in clis() {
        let mut command = scratch.command(&cli, "", "60");
        command.env("PATH", &path).env("ALP_REAL_PYTHON", &real).env("ALP_ARGS_LOG", &log);
        let ran = finished(command.output().unwrap());
        assert!(ran.code == 0 && ran.out.contains("CPython runs the same lines"), "{name}: {ran:?}");
        // (every python3 the CLI started: the version probe and the run; the
        // supervisor's own source, some 8 KB, comes on the standard input)
        let sizes = std::fs::read_to_string(&log).unwrap();
        let sizes: Vec<usize> = sizes.lines().map(|l| l.trim().parse().unwrap()).collect();
        assert!(sizes.len() >= 2 && sizes.iter().all(|&n| n < 1024), "{name}: {sizes:?}");
        std::fs::remove_file(&log).unwrap();
    }
}

#[test]
fn the_supervisor_removes_no_folder_but_the_one_it_made() {
    let Some(scratch) = Scratch::new("by-hand") else {
        eprintln!("no python3 here: the supervisor is not run");
        return;
    };
    // Run by hand in a folder of someone's (one named as the run's own are named,
    // too), and stopped as the CLI stops it, its standard input closed, once its
    // run has started: that folder stays as it was, and the run's is gone.
    for folder in ["notes", "alp-python-not-its-own"] {
        let dir = scratch.0.join(folder);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("keep.txt"), "kept").unwrap();
        let mut child = Command::new("python3")
            .args(["-S", "-c", python::BOOT, "pipe"])
            .current_dir(&dir)
            .env("TMPDIR", scratch.0.join("tmp"))
            .stdin(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let files = python::files_for_supervisor(["import time\ntime.sleep(60)\n", "", ""]);
        child.stdin.as_mut().unwrap().write_all(&files).unwrap();
        let made = comes(|| !scratch.left().is_empty());
        drop(child.stdin.take());
        let status = child.wait().unwrap();
        assert!(made && !status.success(), "{folder}: {status:?}");
        assert_eq!(std::fs::read_to_string(dir.join("keep.txt")).ok().as_deref(), Some("kept"), "{folder}");
        assert!(scratch.left().is_empty(), "{folder}: left: {:?}", scratch.left());
    }
}
