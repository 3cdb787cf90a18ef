//! Files and functions a person can read: no Rust file of the workspace
//! over 500 lines, no function over 80. The teaching sources (the Rust a
//! program shows as its listing, found by the `include_str!` in its
//! module) are exempt: their functions are the lesson's own, as long as
//! the lesson has them.

use std::path::{Path, PathBuf};

const MAX_FILE: usize = 500;
const MAX_FUNCTION: usize = 80;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The functions of a Rust text longer than `max` lines: `(line, name,
/// length)`. A function runs from its `fn` line to the first line that is
/// its indentation and `}` (rustfmt's layout).
fn long_functions(text: &str, max: usize) -> Vec<(usize, String, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut found = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let code = line.trim_start();
        let indent = &line[..line.len() - code.len()];
        let after_fn = ["fn ", "pub fn ", "pub(crate) fn ", "pub(super) fn ", "const fn ", "pub const fn "]
            .iter()
            .find_map(|p| code.strip_prefix(p));
        let Some(rest) = after_fn else { continue };
        if code.ends_with(';') {
            continue; // a trait's declaration
        }
        let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        let end = lines[i..].iter().position(|l| l.strip_prefix(indent) == Some("}"));
        let length = end.map_or(lines.len() - i, |e| e + 1);
        if length > max {
            found.push((i + 1, name, length));
        }
    }
    found
}

/// The files the programs show as their Rust listings.
fn teaching_sources() -> Vec<PathBuf> {
    let mut modules = Vec::new();
    rust_files(&root().join("core/src/programs"), &mut modules);
    let mut sources = Vec::new();
    for module in modules {
        let text = std::fs::read_to_string(&module).unwrap();
        for part in text.split("include_str!(\"").skip(1) {
            let file = part.split('"').next().unwrap_or("");
            if file.ends_with(".rs") {
                let path = module.parent().unwrap().join(file);
                sources.push(path.canonicalize().unwrap_or(path));
            }
        }
    }
    sources
}

#[test]
fn files_and_functions_fit_a_reader() {
    let mut files = Vec::new();
    for dir in ["core/src", "src", "cli/src", "cli/tests", "page", "tests"] {
        rust_files(&root().join(dir), &mut files);
    }
    files.sort();
    let teaching = teaching_sources();
    assert!(teaching.len() >= 2, "the programs' teaching sources are found: {teaching:?}");
    let mut found = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let shown = file.strip_prefix(root()).unwrap_or(file).display().to_string();
        let lines = text.lines().count();
        if lines > MAX_FILE {
            found.push(format!("{shown}: {lines} lines (at most {MAX_FILE})"));
        }
        if teaching.contains(&file.canonicalize().unwrap()) {
            continue;
        }
        for (line, name, length) in long_functions(&text, MAX_FUNCTION) {
            found.push(format!("{shown}:{line}: fn {name} is {length} lines (at most {MAX_FUNCTION})"));
        }
    }
    assert!(files.len() > 50, "only {} files scanned", files.len());
    assert!(found.is_empty(), "split these:\n{}", found.join("\n"));
}

#[test]
fn the_check_sees_a_long_function_and_the_end_of_a_short_one() {
    let body = "    let x = 1;\n".repeat(MAX_FUNCTION);
    let text = format!("fn short() {{\n}}\n\nimpl A {{\n    pub fn long(&self) {{\n{body}    }}\n}}\n");
    assert_eq!(long_functions(&text, MAX_FUNCTION), [(5, "long".to_string(), MAX_FUNCTION + 2)]);
    assert_eq!(long_functions("trait T {\n    fn f(&self);\n}\n", 0), []);
}
