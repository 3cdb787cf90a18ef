//! A program's names stay in its program (ARCHITECTURE.md, "A program is a
//! value"): what the machinery needs of a lesson, the lesson's `Program`
//! provides, so no lesson is spelled outside its own folder.
//!
//! The rule, read from the source tree:
//! - A program's *names* are its name (`Program::name`), its functions'
//!   names as words (and as the constants that hold them, upper case), and
//!   its labels and caption stages in its namespaces (`loop.ask`,
//!   `loop.budget`) as a string, or as the start of one followed by `.` or
//!   `@` (a caption key `core.raised.bad_request`, a step key
//!   `main.return@2`). The programs and their names come from
//!   `programs::ALL` and `lesson::labels_of`, never from here.
//! - They are looked for in the Rust of the core, the page, `page/`,
//!   `node/` and `tests/`, in code and strings; comments are prose and may
//!   name anything.
//! - Program P's names may appear only in `core/src/programs/<P>/`; in
//!   `core/src/programs/mod.rs`, the list of programs, P's name alone; and
//!   in a test file that says it tests P on a line of its module doc
//!   `//! Lessons tested: P, Q.` (a test may name the lessons it tests; its
//!   shared machinery reads names from the programs). Fixtures are JSON
//!   and are not read.
//! - Not read: `cli/` and `benches/` (the CLI's importer reads a logged
//!   conversation into a lesson-one scenario; the benchmark records
//!   lesson one), the JavaScript of `www/` and the Python.

#![cfg(not(target_arch = "wasm32"))]

use agent_loop_core::lesson;
use agent_loop_core::programs::{self, Program};
use std::path::{Path, PathBuf};

/// The folders whose Rust is read, from the workspace's root.
const READ: [&str; 5] = ["core/src", "src", "page", "node/src", "tests"];

/// The line of a test file that names the lessons it tests.
const TESTED: &str = "//! Lessons tested:";

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The text with its comments blanked (line breaks kept, so lines keep
/// their numbers): strings, raw strings and char literals are code.
fn code_of(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    while i < chars.len() {
        let rest = &chars[i..];
        if rest.starts_with(&['/', '/']) {
            while i < chars.len() && chars[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if rest.starts_with(&['/', '*']) {
            let end =
                (i + 2..chars.len()).find(|&j| chars[j - 1] == '*' && chars[j] == '/').unwrap_or(chars.len());
            out.extend(chars[i..(end + 1).min(chars.len())].iter().map(|c| blank(*c)));
            i = end + 1;
        } else if let Some(len) = string_at(&chars, i) {
            out.extend(&chars[i..i + len]);
            i += len;
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    out
}

/// The length of the string, raw string or char literal that starts at
/// `i`, if one does.
fn string_at(chars: &[char], i: usize) -> Option<usize> {
    let word_before = i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
    match chars[i] {
        '"' => {
            let mut j = i + 1;
            while j < chars.len() && chars[j] != '"' {
                j += if chars[j] == '\\' { 2 } else { 1 };
            }
            Some(j + 1 - i)
        }
        'r' if !word_before => {
            let hashes = chars[i + 1..].iter().take_while(|c| **c == '#').count();
            if chars.get(i + 1 + hashes) != Some(&'"') {
                return None;
            }
            let close: Vec<char> = std::iter::once('"').chain(std::iter::repeat_n('#', hashes)).collect();
            let from = i + 2 + hashes;
            let end = (from..chars.len()).find(|&j| chars[j..].starts_with(&close))?;
            Some(end + close.len() - i)
        }
        // A char literal ('"', '\''), not a lifetime ('a).
        '\'' if chars.get(i + 1) == Some(&'\\') => Some(chars[i + 2..].iter().position(|c| *c == '\'')? + 3),
        '\'' if chars.get(i + 2) == Some(&'\'') => Some(3),
        _ => None,
    }
}

/// Where `word` stands alone in `line` (not part of a longer name).
fn has_word(line: &str, word: &str) -> bool {
    let name_char = |c: char| c.is_ascii_alphanumeric() || c == '_';
    line.match_indices(word).any(|(at, _)| {
        let before = line[..at].chars().next_back();
        let after = line[at + word.len()..].chars().next();
        !before.is_some_and(name_char) && !after.is_some_and(name_char)
    })
}

/// The labels and caption stages of a program in its own namespaces.
fn labels(program: &'static Program) -> Vec<&'static str> {
    let mut all = lesson::labels_of(program);
    let ends = ["call", "return", "raise"];
    let stages =
        program.functions.iter().flat_map(|f| all.iter().chain(&ends).map(|l| (program.stage)(*f, l)));
    let stages: Vec<&str> = stages.collect();
    all.extend(stages);
    all.retain(|l| {
        program.namespaces.iter().any(|ns| l.strip_prefix(ns).is_some_and(|r| r.starts_with('.')))
    });
    all.sort_unstable();
    all.dedup();
    all
}

/// The names of `program` that one line of code spells (but its name,
/// where that is allowed; `labels`: its labels and stages).
fn names_in(line: &str, program: &Program, labels: &[&str], name_allowed: bool) -> Vec<String> {
    let mut found = Vec::new();
    if !name_allowed && has_word(line, program.name) {
        found.push(program.name.to_string());
    }
    for f in program.functions {
        for spelt in [f.name().to_string(), f.name().to_uppercase()] {
            // (a program named as its one function: the name is allowed)
            if !(name_allowed && spelt == program.name) && has_word(line, &spelt) {
                found.push(spelt);
            }
        }
    }
    for label in labels {
        if ['"', '.', '@'].iter().any(|end| line.contains(&format!("\"{label}{end}"))) {
            found.push(label.to_string());
        }
    }
    found
}

/// Which names of `program` a file may spell: `None` for all of them,
/// `Some(true)` its name alone, `Some(false)` none.
fn allowed(rel: &str, text: &str, program: &Program) -> Option<bool> {
    if rel.starts_with(&format!("core/src/programs/{}/", program.name)) {
        return None;
    }
    if rel == "core/src/programs/mod.rs" {
        return Some(true);
    }
    let tested = text.lines().filter_map(|l| l.strip_prefix(TESTED)).flat_map(|l| l.split(','));
    let tested: Vec<&str> = tested.map(|n| n.trim().trim_end_matches('.')).collect();
    if rel.starts_with("tests/") && tested.contains(&program.name) {
        return None;
    }
    Some(false)
}

/// Every name spelt where its program's rule does not allow it, under
/// `root` (the workspace, or a tree laid out like it), as `file:line: …`.
fn misplaced(root: &Path) -> Vec<String> {
    let mut files = Vec::new();
    for dir in READ {
        rust_files(&root.join(dir), &mut files);
    }
    files.sort();
    let every: Vec<(&Program, Vec<&str>)> = programs::ALL.iter().map(|p| (*p, labels(p))).collect();
    let mut found = Vec::new();
    for file in files {
        let rel = file.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
        let text = std::fs::read_to_string(&file).unwrap();
        let code = code_of(&text);
        for (program, labels) in &every {
            let Some(name_allowed) = allowed(&rel, &text, program) else { continue };
            for (n, line) in code.lines().enumerate() {
                for name in names_in(line, program, labels, name_allowed) {
                    found.push(format!(
                        "{rel}:{}: `{name}` is {}'s: keep it in core/src/programs/{}/ (or say \
                         `{TESTED} {}.` in a test of it)",
                        n + 1,
                        program.name,
                        program.name,
                        program.name
                    ));
                }
            }
        }
    }
    found
}

#[test]
fn a_program_s_names_stay_in_its_program() {
    let found = misplaced(Path::new(env!("CARGO_MANIFEST_DIR")));
    assert!(found.is_empty(), "a lesson's names outside its program:\n{}", found.join("\n"));
}

#[test]
fn the_check_finds_a_name_out_of_place() {
    // (the names are the programs', read at run time: this file spells none)
    let (first, second) = (programs::ALL[0], programs::ALL[1]);
    let function = first.functions[0].name();
    let label = labels(first)[0];
    let dir = std::env::temp_dir().join(format!("alp-names-{}", std::process::id()));
    let write = |rel: &str, text: String| {
        let path = dir.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    let own = format!("core/src/programs/{}/mod.rs", first.name);
    let other = format!("core/src/programs/{}/mod.rs", second.name);
    write(&own, format!("const F: &str = \"{function}\";\nconst L: &str = \"{label}\";\n"));
    write(&other, format!("const F: &str = \"{function}\";\n"));
    write("core/src/programs/mod.rs", format!("pub mod {};\nconst L: &str = \"{label}\";\n", first.name));
    write(
        "core/src/predict.rs",
        format!("// {function} in prose\nlet url = \"http://x\"; let f = {};\n", first.name),
    );
    write("src/figure.rs", format!("let s = r#\"{label}\"#;\nlet c = '\"'; let ok = \"{function}_more\";\n"));
    write("tests/lesson.rs", format!("{TESTED} {}.\nconst F: &str = \"{function}\";\n", first.name));
    write("tests/other.rs", format!("const F: &str = \"{function}\";\n"));
    let found = misplaced(&dir);
    std::fs::remove_dir_all(&dir).ok();
    let at: Vec<&str> = found.iter().map(|f| f.split(": ").next().unwrap()).collect();
    let other_at = format!("{other}:1");
    assert_eq!(
        at,
        [
            "core/src/predict.rs:2",
            other_at.as_str(),
            "core/src/programs/mod.rs:2",
            "src/figure.rs:1",
            "tests/other.rs:1"
        ],
        "{found:#?}"
    );
    assert!(found[0].contains(&format!("`{}` is {}'s", first.name, first.name)), "{}", found[0]);
}
