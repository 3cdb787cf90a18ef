//! `record`: each bad manifest or program is said at its file, line and
//! field with exit 1 (a table, tests/record/bad/), and the Node build says
//! the same bytes with the same exit codes (when target/node-cli is built
//! from this source: `scripts/build-node`); python3 missing or too old is
//! said; the packs of the good manifest and of the examples are up to date
//! (`UPDATE_GOLDEN=1` writes them). tests/record_packs.rs holds the packs
//! to a plain sys.settrace and the preview to the core's.

// The CLI is a native tool.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::record::{native, node, python_version, recorded_by, root, series, Ran};

/// A bad input: its manifest (in tests/record/bad/), extra arguments,
/// and every line standard error must have before `…: not recorded`
/// (a line ending in `*` is a prefix: Python words its SyntaxError by
/// version).
type Case = (&'static str, &'static [&'static str], &'static [&'static str]);

const BAD: &[Case] = &[
    ("not-json", &[], &["(file): line 4: not valid JSON, it ends before it is complete (a bracket, brace or quote is not closed)"]),
    ("not-object", &[], &["(file): must be a JSON object: {\"program\": …, \"scenarios\": […]}"]),
    ("missing-program", &[], &["program: missing: the .py file whose functions are shown"]),
    ("unknown-field", &[], &["colour: unknown field (known: program, setup, functions, record, scenarios, captions, notes) (line 2)"]),
    ("absolute-path", &[], &["program: must be a path relative to the manifest's folder, not \"/tmp/ok.py\" (or {\"zh\": …, \"en\": …}, one file per language) (line 1)"]),
    ("one-language", &[], &["program.en: missing: one file per language, zh and en (line 1)"]),
    ("bad-scenarios", &[], &[
        "scenarios[0].title.en: missing (line 3)",
        "scenarios[1].id: use letters, digits, '-' or '_' (1-64 chars) (line 4)",
        "scenarios[2].id: \"three\" is already used by scenarios[0] (line 5)",
        "scenarios[3].colour: unknown field (known: id, title, file, questions, notes) (line 6)",
        "scenarios[3].file: must be a .json file's path, relative to the manifest (a scenario in the fixture format) (line 6)",
        "scenarios[4]: must be an object {\"id\": …, \"title\": {…}} (and \"file\" for a scenario file) (line 7)",
    ]),
    ("no-scenarios", &[], &["scenarios: must be a list of at least one scenario (line 1)"]),
    ("record-not-a-name", &[], &["record: must be a Python name, the local that holds the message record (e.g. \"messages\") (line 1)"]),
    ("setup-is-program", &[], &["setup: must be another file than the program (line 1)"]),
    ("unknown-function", &[], &["functions[1]: there is no top-level def nope in ok.py (it defines: count) (line 2)"]),
    ("unmarked-caption", &[], &[
        "captions.count.nope: no line of the program is marked #| count.nope (line 4)",
        "captions.count.return.en: {sum} is not a local of count (its locals: i, n, total) (line 5)",
        "captions.count.return.zh: {sum} is not a local of count (its locals: i, n, total) (line 5)",
    ]),
    ("syntax-error", &[], &["@syntax.py:3: SyntaxError: *"]),
    ("setup-syntax-error", &[], &["@syntax_setup.py:1: SyntaxError: *"]),
    ("missing-program-file", &[], &["@missing.py: cannot read: No such file or directory (os error 2)"]),
    ("bad-marks", &[], &[
        "@marks.py:1: the mark outside is outside the traced functions",
        "@marks.py:4: the mark is on a line without code; put it at the end of the line of code it names",
        "@marks.py:5: the label count.start is already on line 3",
        "@marks.py:6: `#|` needs a label after it (`#| loop.ask`)",
        "@marks.py:7: no/slash is not a label (letters, digits, '_', '.', '-')",
    ]),
    ("languages-differ", &[], &["@ok_longer.py: its marks differ from tests/record/bad/ok.py's: nothing here, [\"count.start\"] at line 2 there"]),
    ("broken-scenario-file", &[], &[
        "@broken-scenario.json: max_calls: must be an integer (line 3)",
        "@broken-scenario.json: model: must be a list of replies (line 2)",
    ]),
    ("missing-scenario-file", &[], &["@scenarios/none.json: cannot read: No such file or directory (os error 2)"]),
    ("raises-before", &[], &["scenarios[0]: three, en: the run raised before it called a traced function: tests/record/bad/raises_setup.py:1: NameError: name 'undefined_name' is not defined (line 2)"]),
    ("never-calls", &[], &["scenarios[0]: three, en: the run never called a traced function (count): the setup's entry call should call one (line 2)"]),
    ("step-budget", &["--max-steps", "50"], &["scenarios[0]: three, en: the run took more than 50 steps and was stopped (the step budget; raise it with --max-steps) (line 2)"]),
    ("time-budget", &["--timeout", "1"], &["scenarios[0]: three, en: the run took longer than 1 s and was stopped (the time budget; raise it with --timeout) (line 2)"]),
    ("output-budget", &[], &["scenarios[0]: three, en: the run printed more than 200000 characters; a pack keeps at most that much of a run's output (line 2)"]),
    ("pack-too-large", &["--max-steps", "100000", "--timeout", "600"], &["the pack would be *"]),
    ("record-shrinks", &[], &["scenarios[0]: three, en: the record `messages` went from 3 to 2 messages at tests/record/bad/shrinks.py:3: a run has one record, and it only grows (append to it; record one conversation per scenario) (line 2)"]),
    ("questions-not-a-list", &[], &["scenarios[0].questions: must be a list of questions (as a scenario file's) (line 2)"]),
    ("questions-manifest", &[], &[
        "scenarios[0].questions[1].choices: must be a list of 2 to 6 choices (line 4)",
        "scenarios[0].questions[0].at: no line of the program is marked #| count.nope (line 3)",
    ]),
    ("questions-unmarked-file", &[], &["@questions-unmarked.json: questions[1].at: no line of the program is marked #| count.gone (line 4)"]),
    ("questions-unreached", &[], &["scenarios[0].questions[0].at: three, en: the run never reaches \"count.below\", so the question is never asked (line 3)"]),
    ("questions-never-asked", &[], &[
        "scenarios[0].questions[1].occurrence: three, en: the run reaches \"count.add\" 3 time(s), so occurrence 4 is never asked (line 4)",
        "@questions-scenario.json: questions[0].occurrence: three, en: the run reaches \"count.start\" 1 time(s), so occurrence 2 is never asked (line 3)",
    ]),
    ("questions-same-stop", &[], &["scenarios[0].questions[1].at: three: question 0 of this scenario is asked at the same stop (\"count.add\", occurrence 1); the page asks one question per stop, so this one is never asked (line 4)"]),
    ("tracer-off", &[], &["scenarios[0]: three, en: the run turned the tracer off (sys.settrace) before its traced entry ended, so how it ends was not recorded; a pack keeps how each run ends (line 2)"]),
    ("record-never-bound", &[], &["record: no traced function had a list named `msgs` at any step of any scenario, so the figure would draw no message; `record` names the list of messages (the lists they held: messages, seen) (line 1)"]),
    ("record-changes", &[], &["scenarios[0]: three, en: message 0 of the record `messages` was changed after it was appended (at step 2); the figure draws each message as it was appended: append a new message instead of changing one (line 2)"]),
];

const BAD_DIR: &str = "tests/record/bad";

/// The arguments of a case: `record <manifest> <extra…>`.
fn case_args(case: &Case) -> Vec<String> {
    let mut args = vec!["record".to_string(), format!("{BAD_DIR}/{}.json", case.0)];
    args.extend(case.1.iter().map(|a| a.to_string()));
    args
}

/// The lines a case must say: `manifest: line` (or `tests/record/bad/…`
/// for a line that names another file, written `@file…`), then `not
/// recorded`.
fn expected(case: &Case) -> Vec<String> {
    let manifest = format!("{BAD_DIR}/{}.json", case.0);
    let mut lines: Vec<String> = case
        .2
        .iter()
        .map(|l| match l.strip_prefix('@') {
            Some(other) => format!("{BAD_DIR}/{other}"),
            None => format!("{manifest}: {l}"),
        })
        .collect();
    lines.push(format!("{manifest}: not recorded"));
    lines
}

fn matches(said: &str, want: &str) -> bool {
    match want.strip_suffix('*') {
        Some(prefix) => said.starts_with(prefix),
        None => said == want,
    }
}

#[test]
fn every_bad_input_is_said_at_its_file_line_and_field_with_exit_1() {
    assert!(BAD.len() >= 15, "the table holds at least 15 bad inputs");
    if python_version().is_none() {
        eprintln!("record: no python3 here; the bad inputs that need it are not run");
        return;
    }
    let mut wrong = Vec::new();
    for case in BAD {
        let args = case_args(case);
        let ran = native(&args.iter().map(String::as_str).collect::<Vec<_>>(), None);
        let said: Vec<&str> = ran.err.lines().collect();
        let want = expected(case);
        let agree = said.len() == want.len() && said.iter().zip(&want).all(|(s, w)| matches(s, w));
        if ran.code != 1 || !ran.out.is_empty() || !agree {
            wrong.push(format!("{}: exit {}\n  said: {said:#?}\n  want: {want:#?}", case.0, ran.code));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_node_build_says_the_same_bytes_with_the_same_exit_codes() {
    let Some(_) = node(&["--help"]) else { return };
    let mut cases: Vec<Vec<String>> = BAD.iter().map(case_args).collect();
    for manifest in ["tests/record/good/manifest.json", "../examples/lesson-one-own/manifest.json"] {
        cases.push(vec!["record".into(), manifest.into()]);
    }
    cases.push(vec!["record".into(), "tests/record/bad/none.json".into()]);
    let mut differ = Vec::new();
    for args in &cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (mine, theirs) = (native(&args, None), node(&args).unwrap());
        if mine != theirs {
            differ.push(format!("{args:?}:\n  native: {mine:?}\n  node:   {theirs:?}"));
        }
    }
    // A bad command line: the same reason and exit code (the usage that
    // follows names each command by its own name).
    for args in [&["record"][..], &["record", "tests/record/good/manifest.json", "--timeout", "x"]] {
        let (mine, theirs) = (native(args, None), node(args).unwrap());
        let first = |r: &Ran| (r.code, r.err.lines().next().map(str::to_string));
        if first(&mine) != first(&theirs) {
            differ.push(format!("{args:?}:\n  native: {mine:?}\n  node:   {theirs:?}"));
        }
    }
    assert!(differ.is_empty(), "{}", differ.join("\n"));
}

#[test]
fn python3_missing_or_older_than_3_10_is_said() {
    let manifest = "tests/record/bad/never-calls.json";
    let none = native(&["record", manifest], Some(""));
    assert_eq!(none.code, 1, "{none:?}");
    assert_eq!(
        none.err,
        format!(
            "{manifest}: python3 was not found: record runs the program under CPython 3.10 or newer \
             (install python3, e.g. `apt-get install python3`, and make sure `python3` is on the PATH)\n\
             {manifest}: not recorded\n"
        )
    );
    // An old CPython, when the machine has one (pyenv's 3.8 or 3.9).
    let old = ["3.9", "3.8", "3.7"].iter().find_map(|v| {
        let found = std::fs::read_dir("/root/.pyenv/versions")
            .ok()?
            .flatten()
            .find(|e| e.file_name().to_string_lossy().starts_with(&format!("{v}.")))?;
        Some(found.path().join("bin"))
    });
    let Some(bin) = old else {
        eprintln!("record: no python3 older than 3.10 on this machine; its refusal is not run");
        return;
    };
    let dir = std::env::temp_dir().join(format!("alp-old-python-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let link = dir.join("python3");
    std::fs::remove_file(&link).ok();
    std::os::unix::fs::symlink(bin.join("python3"), &link).unwrap();
    let old = native(&["record", manifest], Some(dir.to_str().unwrap()));
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(old.code, 1, "{old:?}");
    assert!(
        old.err.starts_with(&format!("{manifest}: python3 is Python 3."))
            && old.err.contains("; record needs CPython 3.10 or newer (its line events); put a newer python3 first on the PATH\n"),
        "{old:?}"
    );
}

#[test]
fn a_bad_command_line_or_an_unreadable_manifest_is_exit_2() {
    for args in [
        &["record"][..],
        &["record", "a.json", "b.json"],
        &["record", "tests/record/good/manifest.json", "--max-steps", "0"],
        &["record", "tests/record/good/manifest.json", "--timeout", "x"],
        &["record", "tests/record/good/manifest.json", "--colour"],
        &["record", "tests/record/good/manifest.json", "-o"],
    ] {
        let ran = native(args, None);
        assert_eq!(ran.code, 2, "{args:?}: {ran:?}");
        assert!(ran.err.contains("usage:") && ran.err.contains("record <manifest.json>"), "{ran:?}");
    }
    let missing = native(&["record", "tests/record/bad/none.json"], None);
    assert_eq!(missing.code, 2);
    assert_eq!(
        missing.err,
        "tests/record/bad/none.json: cannot read: No such file or directory (os error 2)\n"
    );
}

/// Record `manifest` and hold the pack to `golden` (written when
/// `UPDATE_GOLDEN=1`); skipped when the golden was recorded by another
/// CPython (its line events may differ) or when there is no python3.
fn up_to_date(manifest: &str, golden: &str, through_file: bool) {
    let Some(version) = python_version() else { return };
    let golden_path = root().join(golden);
    let out = std::env::temp_dir().join(format!(
        "alp-pack-{}-{}.json",
        std::process::id(),
        golden.replace('/', "_")
    ));
    let ran = match through_file {
        true => native(&["record", manifest, "-o", out.to_str().unwrap()], None),
        false => native(&["record", manifest], None),
    };
    assert_eq!(ran.code, 0, "{ran:?}");
    let pack = match through_file {
        true => std::fs::read_to_string(&out).unwrap(),
        false => ran.out.clone(),
    };
    std::fs::remove_file(&out).ok();
    assert!(ran.err.contains(&format!("with CPython {version}: {} bytes", pack.len())), "{ran:?}");
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&golden_path, &pack).unwrap();
        return;
    }
    let kept = std::fs::read_to_string(&golden_path).unwrap_or_default();
    // (a patch release compiles the same line events: 3.11.2 and 3.11.7
    // are compared, the version each names aside)
    let Some(theirs) = recorded_by(&kept).filter(|v| series(v) == series(&version)) else {
        eprintln!("{golden}: recorded by another CPython series than {version}; not compared");
        return;
    };
    let kept = kept.replace(&format!("\"python\": \"{theirs}\""), &format!("\"python\": \"{version}\""));
    assert!(
        kept == pack,
        "{golden} is not what record writes now; UPDATE_GOLDEN=1 cargo test -p agent-loop-cli --test record"
    );
}

#[test]
fn the_good_manifest_records_its_golden_pack() {
    up_to_date("tests/record/good/manifest.json", "cli/tests/record/good.pack.json", false);
}

#[test]
fn the_examples_packs_are_up_to_date() {
    up_to_date(
        "../examples/lesson-three/manifest.json",
        "examples/lesson-three/lesson-three.pack.json",
        true,
    );
    up_to_date(
        "../examples/lesson-one-own/manifest.json",
        "examples/lesson-one-own/lesson-one-own.pack.json",
        true,
    );
}

#[test]
fn the_node_build_writes_the_same_pack() {
    let Some(_) = node(&["--help"]) else { return };
    let args = ["record", "../examples/lesson-three/manifest.json"];
    let (mine, theirs): (Ran, Ran) = (native(&args, None), node(&args).unwrap());
    assert_eq!(mine.code, 0, "{mine:?}");
    assert!(mine == theirs, "native and node differ:\n{:?}\n{:?}", mine.err, theirs.err);
}
