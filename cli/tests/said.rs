//! What the CLI says of input it cannot take as it is, in every command:
//! a file name (or a key of the file) that holds a control character is
//! printed escaped, so it forges no line and drives no terminal; valid
//! JSON nested deeper than the reader goes is said to be that; a trace
//! larger than `trace` writes is said, none of it written. The Node build
//! says the same bytes with the same exit codes.

// The CLI is a native tool.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::record::{native, node};
use std::ffi::OsStr;
use std::process::Command;

/// Exit code, standard output and error of the CLI on `args`, run in cli/.
fn cli_os(args: &[&OsStr]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_agent-loop-cli"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn cli(args: &[&str]) -> (i32, String, String) {
    cli_os(&args.iter().map(OsStr::new).collect::<Vec<_>>())
}

/// A fresh empty folder for one test.
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("alp-said-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn listing(name: &str) -> String {
    format!("{}/../fixtures/listings/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// JSON nested deeper than the reader goes (127 levels of lists and
/// objects) is valid JSON: every command says it is nested too deep, at
/// its line and column, not that it is not JSON.
#[test]
fn json_nested_too_deep_is_said_so_in_every_command() {
    let dir = scratch("deep");
    let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    let scenario = |notes: &str| {
        format!(
            r#"{{"id": "deep", "function": "run_loop", "title": {{"zh": "深", "en": "deep"}}, "notes": {notes}}}"#
        )
    };
    let file = dir.join("deep.json");
    let path = file.to_str().unwrap();
    // 127 levels in all (the object and 126 lists) are read: only the notes' shape is said.
    std::fs::write(&file, scenario(&deep(126))).unwrap();
    let (_, out, _) = cli(&["check", path]);
    assert!(!out.contains("nested too deep") && !out.contains("not valid JSON"), "{out}");
    std::fs::write(&file, scenario(&deep(200))).unwrap();
    let said = |text: &str| {
        text.contains("deep.json: (file): line 1, column ") && text.contains(": nested too deep")
    };
    let (code, out, _) = cli(&["check", path]);
    assert_eq!(code, 1, "{out}");
    assert!(said(&out) && !out.contains("not valid JSON"), "{out}");
    for command in ["trace", "setup"] {
        let (code, _, err) = cli(&[command, path]);
        assert_eq!(code, 1, "{command}: {err}");
        assert!(said(&err) && !err.contains("not valid JSON"), "{command}: {err}");
    }
    let (code, _, err) = cli(&["import", path]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("deep.json: (file): line 1, column ") && err.contains("nested too deep"), "{err}");
    assert!(!err.contains("not valid JSON"), "{err}");
    // One line of JSONL nested too deep is said at its line.
    std::fs::write(&file, format!("{{\"role\": \"user\", \"content\": \"Hi\"}}\n{}\n", deep(200))).unwrap();
    let (code, _, err) = cli(&["import", path]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("deep.json: line 2: line 1, column ") && err.contains("nested too deep"), "{err}");
    // A manifest too.
    std::fs::write(&file, format!("{{\"program\": \"p.py\", \"scenarios\": {}}}", deep(200))).unwrap();
    let (code, _, err) = cli(&["record", path]);
    assert_eq!(code, 1, "{err}");
    assert!(said(&err) && !err.contains("not valid JSON"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// A file name is printed as it is, or — when it holds a control
/// character — quoted and escaped as Rust's `{:?}` writes it: a newline
/// in a name cannot forge a line (`checked 7 fixture(s): 7 ok`), an ESC
/// cannot drive the terminal, in any message of any command.
#[test]
fn a_file_name_with_a_control_character_is_escaped_in_every_message() {
    use std::os::unix::ffi::OsStrExt;
    let dir = scratch("names");
    let forged = "x\nchecked 7 fixture(s): 7 ok\n.json";
    let esc = "\u{1b}[2Jwiped\u{202e}.json";
    std::fs::write(dir.join(forged), "{").unwrap();
    std::fs::write(dir.join(esc), "{").unwrap();
    std::fs::copy("../fixtures/scenarios/report.json", dir.join("plain name.json")).unwrap();
    let clean = |text: &str| !text.contains('\u{1b}') && !text.contains('\u{202e}');
    let (code, out, err) = cli(&["check", dir.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(clean(&out) && clean(&err), "{out:?} {err:?}");
    let summaries: Vec<&str> = out.lines().filter(|l| l.starts_with("checked ")).collect();
    assert_eq!(summaries, ["checked 3 fixture(s): 1 ok, 2 with problems"], "{out}");
    let shown = |name: &str| format!("{:?}", dir.join(name).to_str().unwrap());
    assert!(out.contains(&format!("{}: (file): line 1: not valid JSON", shown(forged))), "{out}");
    assert!(out.contains(&format!("{}: (file): line 1: not valid JSON", shown(esc))), "{out}");
    assert!(!out.contains("plain name.json"), "an ordinary name prints as it is, when said: {out}");
    // Each command that names the file.
    let file = dir.join(forged);
    for args in [&["trace"][..], &["setup"], &["import"], &["record"]] {
        let mut all: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
        all.push(file.as_os_str());
        let (code, out, err) = cli_os(&all);
        assert_eq!(code, 1, "{args:?}: {err}");
        assert!(clean(&err) && !err.lines().chain(out.lines()).any(|l| l.starts_with("checked ")), "{err}");
        assert!(err.starts_with(&format!("{}: ", shown(forged))), "{args:?}: {err}");
    }
    // A folder's name, a listing's name, an argument.
    let folder = dir.join("sub\u{1b}]0;title\u{7}");
    std::fs::create_dir(&folder).unwrap();
    let (code, out, _) = cli(&["check", folder.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert_eq!(out, format!("{:?}: no *.json fixture to check\n", folder.to_str().unwrap()));
    let listing_file = dir.join("lesson\n\u{1b}[1m.py");
    std::fs::copy(listing("lesson.zh.py"), &listing_file).unwrap();
    std::fs::write(
        &listing_file,
        std::fs::read_to_string(listing("lesson.zh.py")).unwrap().replace("#| ask.return", ""),
    )
    .unwrap();
    let (code, out, err) = cli(&["check", "--listing", listing_file.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(clean(&out) && clean(&err), "{out:?}");
    assert!(out.contains(&format!("{:?}", "lesson\n\u{1b}[1m.py")), "{out}");
    let (code, _, err) = cli(&["setup", "../fixtures/scenarios/report.json", "\u{1b}[31mfr"]);
    assert_eq!(code, 2);
    assert!(clean(&err) && err.starts_with("\"\\u{1b}[31mfr\": not a language"), "{err}");
    // A key of the file is a place: said the same way.
    let keyed = dir.join("keyed.json");
    std::fs::write(
        &keyed,
        r#"{"id": "k", "function": "run_loop", "title": {"zh": "x", "en": "x"},
        "model": [], "\u001b[2J\nchecked 9 fixture(s): 9 ok": 1}"#,
    )
    .unwrap();
    let (code, out, _) = cli(&["check", keyed.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(
        clean(&out) && out.contains(r#"keyed.json: "\u{1b}[2J\nchecked 9 fixture(s): 9 ok": unknown field"#),
        "{out}"
    );
    assert_eq!(out.lines().filter(|l| l.starts_with("checked ")).count(), 1, "{out}");
    // A name that is no UTF-8 is said as before (its bytes replaced), a newline in it escaped.
    let odd = std::ffi::OsStr::from_bytes(b"\xff\n.json");
    let (code, _, err) = cli_os(&[OsStr::new("trace"), odd]);
    assert_eq!(code, 2);
    assert!(err.starts_with("\"\u{fffd}\\n.json\": cannot read"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// A scenario of one reply that asks for `n` tools (each run writes ~50 KB of trace).
fn asks_for(n: usize) -> String {
    let uses: Vec<String> = (0..n)
        .map(|i| format!(r#"{{"type": "tool_use", "id": "toolu_{i}", "name": "run_main", "input": {{}}}}"#))
        .collect();
    format!(
        r#"{{"id": "many", "function": "run_loop", "title": {{"zh": "多", "en": "many"}}, "max_calls": 2,
        "model": [{{"stop_reason": "tool_use", "content": [{}]}}], "process": {{"returncode": 0, "stdout": "ok", "stderr": ""}}}}"#,
        uses.join(", ")
    )
}

/// `trace` writes at most 64 MB unless `--max-output <MB>` says more: a
/// larger trace is said and nothing of it is written (no half a JSON).
#[test]
fn trace_writes_at_most_its_output_limit_and_says_how_to_lift_it() {
    let dir = scratch("trace-limit");
    let (big, small) = (dir.join("big.json"), dir.join("small.json"));
    std::fs::write(&big, asks_for(1_500)).unwrap();
    std::fs::write(&small, asks_for(40)).unwrap();
    let (code, out, err) = cli(&["trace", big.to_str().unwrap()]);
    assert_eq!((code, out.len()), (1, 0), "{err}");
    let said = format!(
        "{}: the trace is more than 64 MB of JSON, so none of it was written (the output limit; raise it with --max-output <MB>)\n",
        big.display()
    );
    assert_eq!(err, said);
    // The same limit in MB from the command line, before or after the file.
    let (code, whole, _) = cli(&["trace", small.to_str().unwrap(), "--max-output", "64"]);
    assert_eq!(code, 0);
    let mb = (whole.len() >> 20) + 1;
    let (code, out, err) = cli(&["trace", "--max-output", &mb.to_string(), small.to_str().unwrap()]);
    assert_eq!((code, out.len(), err.as_str()), (0, whole.len(), ""));
    let under = (mb - 1).to_string();
    let (code, out, err) = cli(&["trace", small.to_str().unwrap(), "--max-output", &under]);
    assert_eq!((code, out.len()), (1, 0), "{err}");
    assert!(err.contains(&format!("the trace is more than {under} MB of JSON")), "{err}");
    for bad in ["0", "x", "-1"] {
        let (code, _, err) = cli(&["trace", small.to_str().unwrap(), "--max-output", bad]);
        assert_eq!(code, 2, "{bad}");
        assert!(
            err.starts_with(&format!("--max-output: {bad} is not a whole number of MB above 0\nusage:")),
            "{err}"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// The Node build says what the native CLI says, byte for byte, of odd
/// names, JSON nested too deep and a trace over its limit.
#[test]
fn the_node_build_says_the_same_of_odd_input() {
    let Some(_) = node(&["--help"]) else { return };
    let dir = scratch("node");
    let forged = dir.join("x\nchecked 7 fixture(s): 7 ok\n\u{1b}[2J.json");
    std::fs::write(&forged, "{").unwrap();
    let deep = dir.join("deep.json");
    std::fs::write(&deep, format!("{}{}", "[".repeat(200), "]".repeat(200))).unwrap();
    let many = dir.join("many.json");
    std::fs::write(&many, asks_for(40)).unwrap();
    let (dir_s, forged_s, deep_s, many_s) =
        (dir.to_str().unwrap(), forged.to_str().unwrap(), deep.to_str().unwrap(), many.to_str().unwrap());
    let cases: [&[&str]; 9] = [
        &["check", dir_s],
        &["trace", forged_s],
        &["setup", forged_s, "\u{1b}[31mfr"],
        &["import", forged_s],
        &["import", deep_s],
        &["trace", deep_s],
        &["trace", many_s, "--max-output", "1"],
        &["trace", many_s, "--max-output", "0"],
        &["record", forged_s],
    ];
    let mut differ = Vec::new();
    for args in cases {
        let (mine, theirs) = (native(args, None), node(args).unwrap());
        // (a usage names each command by its own name: the reason before it is compared)
        let first =
            |r: &common::record::Ran| (r.code, r.out.clone(), r.err.lines().next().map(str::to_string));
        let same = if mine.code == 2 { first(&mine) == first(&theirs) } else { mine == theirs };
        if !same {
            differ.push(format!("{args:?}:\n  native: {mine:?}\n  node:   {theirs:?}"));
        }
    }
    std::fs::remove_dir_all(&dir).ok();
    assert!(differ.is_empty(), "{}", differ.join("\n"));
}
