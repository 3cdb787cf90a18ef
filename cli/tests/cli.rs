//! The author CLI: `trace` prints the trace contract, `check` reports
//! `file: field: problem` and exits non-zero.

// The CLI is a native tool.
#![cfg(not(target_arch = "wasm32"))]

use std::process::Command;

#[path = "common/scratch.rs"]
mod scratch;
use scratch::scratch;

fn cli(args: &[&str]) -> (i32, String, String) {
    outcome(Command::new(env!("CARGO_BIN_EXE_agent-loop-cli")).args(args).output().unwrap())
}

/// Exit code, standard output and standard error of a finished run.
fn outcome(out: std::process::Output) -> (i32, String, String) {
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn trace_prints_the_contract_fields() {
    let (code, out, _) = cli(&["trace", "../fixtures/scenarios/report.json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    for key in ["scenario", "function", "result", "error", "output", "record", "steps"] {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    assert_eq!(v["result"]["status"], "answered");
    let step = &v["steps"][1];
    for key in ["function", "line", "label", "depth", "event", "locals", "record_len", "output_len", "stage"]
    {
        assert!(step.get(key).is_some(), "step misses {key}");
    }
}

#[test]
fn check_and_trace_take_a_scenario_of_the_second_program() {
    // The test-only program (core/src/programs/ask_once) through the same
    // commands as the lesson's scenarios.
    let dir = std::env::temp_dir().join(format!("alp-cli-program-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy("../tests/programs/ask-once.json", dir.join("ask-once.json")).unwrap();
    std::fs::write(
        dir.join("no-model.json"),
        r#"{"id": "no-model", "function": "ask_once", "title": {"en": "x"}}"#,
    )
    .unwrap();
    let (code, out, _) = cli(&["check", dir.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("checked 2 fixture(s): 1 ok, 1 with problems"), "{out}");
    assert!(out.contains("no-model.json: model: missing: ask_once needs model replies"), "{out}");
    let (code, out, _) = cli(&["trace", dir.join("ask-once.json").to_str().unwrap()]);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!((&v["function"], &v["result"]), (&"ask_once".into(), &"Hello\nagain".into()));
    assert_eq!(v["steps"][8]["label"], "once.keep");
    assert_eq!(v["steps"][8]["stage"], "once.print");
}

#[test]
fn check_accepts_the_shipped_fixtures() {
    let (code, out, _) = cli(&["check", "../fixtures/scenarios"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("0 with problems"), "{out}");
}

#[test]
fn check_names_file_and_field_for_bad_fixtures() {
    let (code, out, _) = cli(&["check", "tests/bad-fixtures"]);
    assert_eq!(code, 1, "{out}");
    for expected in [
        "not-json.json: (file): line 2: not valid JSON",
        "wrong-types.json: max_calls: must be an integer",
        "wrong-types.json: title.en: missing",
        "wrong-types.json: model: must be a list of replies",
        "missing-fields.json: id: missing",
        "missing-fields.json: function: missing",
        "bad-process.json: process[1].returncode: must be an integer",
        "unknown-function.json: function: unknown function \"run_everything\"",
        "bad-expect.json: expect.status: unknown status \"done\" (answered, call_limit, model_stopped, protocol_error, model_error)",
        "bad-expect.json: expect.calls: must be an integer",
        "bad-expect.json: expect.record[1]: must be a \"role:kinds\" string",
        "bad-expect.json: expect.results[0]: must be a [first line, is_error] pair",
        "bad-expect.json: expect.stop_reason: only for ask_claude scenarios, not run_loop",
        "bad-expect.json: expect.hits[1]: must be a label",
        "bad-expect.json: expect.misses[0]: \"loop.ask\" is also in expect.hits",
        "bad-expect.json: expect.colour: unknown field",
    ] {
        assert!(out.contains(expected), "expected `{expected}` in:\n{out}");
    }
}

#[test]
fn check_takes_one_file_as_well_as_a_folder() {
    let (code, out, _) = cli(&["check", "tests/bad-fixtures/bad-process.json"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("bad-process.json: process[1].returncode: must be an integer"), "{out}");
    assert!(out.contains("checked 1 fixture(s): 0 ok, 1 with problems"), "{out}");
    let (code, out, _) = cli(&["check", "../fixtures/scenarios/report.json"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("checked 1 fixture(s): 1 ok"), "{out}");
    let (code, _, err) = cli(&["check", "tests/bad-fixtures/no-such.json"]);
    assert_eq!(code, 2, "a path that is not there: {err}");
}

#[test]
fn trace_of_a_bad_fixture_fails_with_the_field() {
    let (code, _, err) = cli(&["trace", "tests/bad-fixtures/wrong-types.json"]);
    assert_eq!(code, 1);
    assert!(err.contains("wrong-types.json: max_calls: must be an integer"), "{err}");
    let (code, _, err) = cli(&["frobnicate"]);
    assert_eq!(code, 2);
    assert!(err.contains("usage"));
}

/// Run with a deadline: a hang fails the test instead of blocking it.
fn cli_within(args: &[&std::ffi::OsStr], seconds: u64) -> (i32, String, String) {
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_agent-loop-cli"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed().as_secs() >= seconds {
            let _ = child.kill();
            panic!("{args:?} still running after {seconds} s");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    outcome(child.wait_with_output().unwrap())
}

#[test]
fn problems_name_their_line() {
    let (_, out, _) = cli(&["check", "tests/bad-fixtures"]);
    let text = std::fs::read_to_string("tests/bad-fixtures/wrong-types.json").unwrap();
    let line = text.lines().position(|l| l.contains("\"max_calls\"")).unwrap() + 1;
    assert!(out.contains(&format!("wrong-types.json: max_calls: must be an integer (line {line})")), "{out}");
    assert!(out.contains("not-json.json: (file): line 2: not valid JSON") && out.contains(" line "), "{out}");
}

#[test]
fn odd_files_are_skipped_with_a_message_never_read_forever() {
    use std::ffi::OsStr;
    let dir = scratch("odd");
    std::fs::copy("../fixtures/scenarios/report.json", dir.join("report.json")).unwrap();
    let fifo = dir.join("pipe.json");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    std::os::unix::fs::symlink("/dev/zero", dir.join("zero.json")).unwrap();
    let big = std::fs::File::create(dir.join("big.json")).unwrap();
    big.set_len(17 * 1024 * 1024).unwrap();
    let mut bom = vec![0xEF, 0xBB, 0xBF];
    bom.extend(std::fs::read("../fixtures/scenarios/limit.json").unwrap());
    std::fs::write(dir.join("bom.json"), bom).unwrap();
    let (code, out, _) = cli_within(&[OsStr::new("check"), dir.as_os_str()], 20);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("pipe.json: (file): not a regular file"), "{out}");
    assert!(out.contains("zero.json: (file): not a regular file"), "{out}");
    assert!(out.contains("big.json: (file): larger than 16 MB"), "{out}");
    assert!(!out.contains("bom.json"), "a BOM is accepted: {out}");
    assert!(out.contains("checked 5 fixture(s): 2 ok, 3 with problems"), "{out}");
    let (code, _, err) = cli_within(&[OsStr::new("trace"), fifo.as_os_str()], 20);
    assert_eq!(code, 2);
    assert!(err.contains("not a regular file"), "{err}");
}

#[test]
fn an_empty_folder_is_an_error() {
    let dir = scratch("empty");
    let (code, out, _) = cli(&["check", dir.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(out.contains("no *.json fixture to check"), "{out}");
}

#[test]
fn never_a_panic_for_odd_arguments_or_a_closed_or_full_output() {
    use std::io::Read;
    use std::os::unix::ffi::OsStrExt;
    use std::process::Stdio;
    // A path that is not UTF-8.
    let odd = std::ffi::OsStr::from_bytes(b"\xff\xfe.json");
    let (code, _, err) = cli_within(&[std::ffi::OsStr::new("trace"), odd], 20);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("cannot read"), "{err}");
    let (code, _, err) = cli_within(&[odd], 20);
    assert_eq!(code, 2, "{err}");
    // A reader that stops after 100 bytes: a quiet exit. (The trace is far
    // larger than a pipe's buffer, so the writer really meets the closed end.)
    let dir = scratch("pipe");
    let ask = serde_json::json!({"stop_reason": "tool_use", "content": [{"type": "tool_use", "id": "c", "name": "run_main", "input": {}}]});
    let long = serde_json::json!({"id": "long", "function": "run_loop", "title": {"zh": "长", "en": "long"}, "max_calls": 40,
        "model": vec![ask; 40], "process": {"returncode": 1, "stdout": "", "stderr": "boom"}});
    let fixture = dir.join("long.json");
    std::fs::write(&fixture, long.to_string()).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_agent-loop-cli"))
        .arg("trace")
        .arg(&fixture)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut head = [0u8; 100];
    child.stdout.take().unwrap().read_exact(&mut head).unwrap(); // then dropped: the pipe closes
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    // A full device: said, and exit 1.
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_agent-loop-cli"))
        .args(["trace", "../fixtures/scenarios/report.json"])
        .stdout(full)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot write the output"));
}

#[test]
fn import_prints_a_scenario_that_check_accepts() {
    let dir = scratch("import");
    let (code, out, err) = cli(&["import", "tests/import/zero-division.json"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.is_empty(), "an exact import warns nothing: {err}");
    let scenario: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(scenario["id"], "zero-division");
    assert_eq!(scenario["expect"]["status"], "answered");
    std::fs::write(dir.join("zero-division.json"), &out).unwrap();
    let (code, out, _) = cli(&["import", "tests/import/two-rounds.json", "--id", "retry_once"]);
    assert_eq!(code, 0);
    assert!(out.contains("\"id\": \"retry_once\""), "{out}");
    std::fs::write(dir.join("retry_once.json"), &out).unwrap();
    let (code, out, _) = cli(&["check", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("checked 2 fixture(s): 2 ok, 0 with problems"), "{out}");
    let (code, trace, _) = cli(&["trace", dir.join("zero-division.json").to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(trace.contains("ZeroDivisionError: division by zero"));
}

#[test]
fn import_warns_approximations_and_refuses_what_it_cannot_replay() {
    let (code, out, err) = cli(&["import", "tests/import/approximations.json"]);
    assert_eq!(code, 0, "{err}");
    for expected in [
        "approximations.json: warning: messages[1].content[0]: thinking block: dropped (the lesson's loop never sees thinking)",
        "approximations.json: warning: messages[1].content[1]: tool \"read_file\"",
        "approximations.json: warning: messages[6]: a new user turn after the answer in messages[5]",
    ] {
        assert!(err.contains(expected), "expected `{expected}` in:\n{err}");
    }
    assert!(out.contains("thinking block: dropped"), "the notes repeat the warnings: {out}");

    let dir = scratch("import-refused");
    let file = dir.join("two-users.json");
    let two_users =
        r#"{"messages": [{"role": "user", "content": "Hi"}, {"role": "user", "content": "Run it"}]}"#;
    std::fs::write(&file, two_users).unwrap();
    let (code, out, err) = cli(&["import", file.to_str().unwrap()]);
    assert_eq!(code, 1, "{err}");
    assert!(out.is_empty(), "nothing on stdout: {out}");
    assert!(err.contains("two-users.json: messages[1]: two user messages in a row"), "{err}");
    std::fs::write(&file, "{\"messages\": [").unwrap();
    let (code, out, err) = cli(&["import", file.to_str().unwrap()]);
    assert_eq!((code, out.as_str()), (1, ""));
    assert!(err.contains("(file): not valid JSON"), "{err}");
    let (code, _, err) = cli(&["import", "tests/import/zero-division.json", "--id", "a b"]);
    assert_eq!(code, 1);
    assert!(err.contains("--id: \"a b\": use letters"), "{err}");
    let (code, _, err) = cli(&["import", dir.join("missing.json").to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("cannot read"), "{err}");
    let (code, _, err) = cli(&["import"]);
    assert_eq!(code, 2);
    assert!(err.contains("import <file> [--id <id>]"), "{err}");
}

#[test]
fn check_names_a_question_that_this_run_never_asks() {
    let dir = std::env::temp_dir().join(format!("alp-cli-questions-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string("../fixtures/scenarios/truncated.json").unwrap())
            .unwrap();
    // truncated stops before any tool runs: a question on saving results is never asked.
    v["questions"][0]["at"] = "loop.save_results".into();
    std::fs::write(dir.join("truncated.json"), serde_json::to_string_pretty(&v).unwrap()).unwrap();
    let (code, out, _) = cli(&["check", dir.to_str().unwrap()]);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("truncated.json: questions[0].at:"), "{out}");
    assert!(out.contains("never asked"), "{out}");
}

fn listing(name: &str) -> String {
    format!("{}/../fixtures/listings/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// The mistakes of fixtures/listings/mistakes.json written as files (each
/// is lesson.zh.py with one text replaced) in their folder: (path, first
/// line said, key).
type Mistake = (std::path::PathBuf, String, Option<String>);
fn mistakes() -> (scratch::Scratch, Vec<Mistake>) {
    let good = std::fs::read_to_string(listing("lesson.zh.py")).unwrap();
    let cases: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(listing("mistakes.json")).unwrap()).unwrap();
    let dir = scratch("listings");
    let cases = cases["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let path = dir.join(c["file"].as_str().unwrap());
            std::fs::write(
                &path,
                good.replace(c["replace"][0].as_str().unwrap(), c["replace"][1].as_str().unwrap()),
            )
            .unwrap();
            (path, c["en"].as_str().unwrap().to_string(), c["finding"].as_str().map(str::to_string))
        })
        .collect();
    (dir, cases)
}

#[test]
fn check_listing_passes_an_author_s_listing_and_runs_it_under_cpython() {
    let (code, out, err) = cli(&["check", "--listing", &listing("lesson.zh.py")]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("marks ok; CPython runs the same lines on 35 scenario(s)"), "{out}");
    assert!(out.contains("note: lesson.zh.py writes its own sentences"), "{out}");
    // Given a folder, only its scenarios run.
    let dir = format!("{}/../fixtures/scenarios", env!("CARGO_MANIFEST_DIR"));
    let (code, out, _) = cli(&["check", "--listing", &listing("lesson.zh.py"), &dir]);
    assert_eq!((code, out.contains("on 35 scenario(s)")), (0, true), "{out}");
}

#[test]
fn check_listing_names_each_mistake_and_where_a_listing_departs() {
    let mut seen = 0;
    let (_dir, cases) = mistakes();
    for (path, says, finding) in cases {
        let (code, out, err) = cli(&["check", "--listing", path.to_str().unwrap()]);
        assert_eq!(code, 1, "{}: {out}{err}", path.display());
        match finding {
            Some(_) => {
                assert!(out.lines().next().is_some_and(|l| l.starts_with(&says)), "{out}");
                assert!(out.contains("1 problem(s); the page would show the built-in listing"), "{out}");
            }
            // Marks right, code departing: said by CPython.
            None => {
                assert!(out.contains(&says), "{out}");
                assert!(out.contains("departs from the recorded run"), "{out}");
            }
        }
        seen += 1;
    }
    assert_eq!(seen, 4);
}

#[test]
fn setup_prints_the_python_that_runs_after_the_listing() {
    let report = format!("{}/../fixtures/scenarios/report.json", env!("CARGO_MANIFEST_DIR"));
    let (code, en, _) = cli(&["setup", &report]);
    assert_eq!(code, 0);
    assert!(en.contains("QUESTION = \"Run main.py and only report the result.\""), "{en}");
    assert!(en.contains("outcome = run_loop(ask, execute, max_calls=4)"), "{en}");
    let (code, zh, _) = cli(&["setup", &report, "zh"]);
    assert_eq!(code, 0);
    assert!(
        zh.contains("# SDK 客户端的替身") && zh.contains("print(outcome[\"status\"], \"· 模型调用\""),
        "{zh}"
    );
    let (code, _, err) = cli(&["setup", &report, "fr"]);
    assert_eq!((code, err.contains("usage:")), (2, true));
}

/// The exit code never depends on standard output: a reader that leaves
/// early (`check dir | head -n1` under `pipefail`) still sees exit 1 for
/// broken files, and a closed standard output (`>&-`) is said, not a
/// silent success.
#[test]
fn the_exit_code_tells_the_truth_whatever_standard_output_does() {
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_agent-loop-cli"))
        .args(["check", "tests/bad-fixtures"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take()); // the reader is gone before anything is written
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let piped = Command::new("bash")
        .args(["-c", r#"set -o pipefail; "$0" check tests/bad-fixtures | head -n1 >/dev/null"#])
        .arg(env!("CARGO_BIN_EXE_agent-loop-cli"))
        .output()
        .unwrap();
    assert_eq!(piped.status.code(), Some(1), "under pipefail, broken fixtures fail the pipeline");
    let closed = Command::new("bash")
        .args(["-c", r#"exec "$0" trace ../fixtures/scenarios/report.json >&-"#])
        .arg(env!("CARGO_BIN_EXE_agent-loop-cli"))
        .output()
        .unwrap();
    assert_eq!(closed.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&closed.stderr)
            .contains("cannot write the output: standard output is closed"),
        "{}",
        String::from_utf8_lossy(&closed.stderr)
    );
}

#[test]
fn check_takes_every_json_file_whatever_its_case_or_name() {
    let dir = scratch("case");
    let report = std::fs::read_to_string("../fixtures/scenarios/report.json").unwrap();
    std::fs::write(dir.join("UPPER.JSON"), report.replace("\"id\": \"report\"", "\"id\": \"upper\""))
        .unwrap();
    std::fs::write(dir.join(".json"), report.replace("\"id\": \"report\"", "\"id\": \"hidden\"")).unwrap();
    std::fs::write(dir.join("notes.txt"), "not a fixture").unwrap();
    let (code, out, _) = cli(&["check", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("checked 2 fixture(s): 2 ok"), "{out}");
}

#[test]
fn wrong_arguments_are_said_and_help_is_an_answer() {
    let (code, out, err) = cli(&["--help"]);
    assert_eq!((code, err.as_str()), (0, ""), "help is on standard output");
    assert!(out.starts_with("usage:\n  agent-loop-cli trace"), "{out}");
    // The descriptions line up under the first one's.
    let column = |line: &str| line.find("print").unwrap();
    let lines: Vec<&str> = out.lines().filter(|l| l.trim_start().starts_with("print")).collect();
    let first = out.lines().nth(1).unwrap();
    assert!(lines.iter().all(|l| column(l) == column(first)), "{out}");
    // A command's own --help (or -h) is the same answer; an option's value
    // that reads -h is that value, and an unknown command's --help is no help.
    for args in [&["record", "--help"][..], &["check", "-h"], &["import", "--help"], &["trace", "--help"]] {
        let (code, again, err) = cli(args);
        assert_eq!((code, err.as_str(), again.as_str()), (0, "", out.as_str()), "{args:?}");
    }
    for args in [&["record", "no/manifest.json", "-o", "-h"][..], &["bogus", "--help"]] {
        let (code, said, _) = cli(args);
        assert!(code != 0 && said.is_empty(), "{args:?}: {code} {said}");
    }
    let (code, _, err) = cli(&["check", "--listing"]);
    assert_eq!(code, 2);
    assert!(err.starts_with("usage:"), "{err}");
    // import says what is wrong before the usage.
    for (args, why) in [
        (&["import", "--id"][..], "--id needs a value"),
        (&["import", "--id", "x"], "import needs a log file: import <file>"),
        (&["import", "a.json", "b.json"], "import takes one log file"),
        (&["import", "a.json", "--to", "x"], "import: unknown option --to"),
    ] {
        let (code, _, err) = cli(args);
        assert_eq!(code, 2, "{args:?}");
        assert!(err.starts_with(&format!("{why}\nusage:")), "{args:?}: {err}");
    }
    let (code, _, err) = cli(&["setup", "../fixtures/scenarios/report.json", "fr"]);
    assert_eq!(code, 2);
    assert!(err.starts_with("fr: not a language of the playground (zh or en)\nusage:"), "{err}");
    let (code, out, err) = cli(&["check", "no/such/file.json"]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(err.starts_with("no/such/file.json: cannot read: No such file or directory"), "{err}");
    let (code, _, err) = cli(&["check", "--listing", &listing("lesson.zh.py"), "tests/bad-fixtures"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("tests/bad-fixtures: "), "{err}");
    assert!(err.contains("file(s) skipped, not scenarios check accepts"), "{err}");
}
