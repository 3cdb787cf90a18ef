//! ARCHITECTURE.md's code map names every file: a source file, test,
//! benchmark, script, page file or document that it does not name fails
//! this test. (Golden traces, screenshots and fixtures are data: their
//! folder is named.)

use std::path::{Path, PathBuf};

/// The folders the code map covers, and the files in them that are data.
const COVERED: &[&str] =
    &["core", "src", "cli", "node", "page", "tests", "bench", "benches", "docs", "scripts", "www"];
const DATA: &[&str] = &[
    "tests/golden/",
    "tests/programs/",
    "cli/tests/import/",
    "cli/tests/bad-fixtures/",
    "cli/tests/record/",
    "docs/bench/",
];

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            // (installed packages are not the project's files)
            if !path.ends_with("node_modules") {
                files(&path, out);
            }
        } else {
            out.push(path);
        }
    }
}

/// The fenced block under `## Code map`.
fn code_map(text: &str) -> &str {
    let section = text.split("## Code map").nth(1).unwrap_or("");
    section.split("```").nth(1).unwrap_or("")
}

/// Files under `root`'s covered folders that `map` does not name.
fn missing(root: &Path, map: &str) -> Vec<String> {
    let words: Vec<&str> = map
        .split(|c: char| c.is_whitespace() || matches!(c, ',' | '(' | ')' | ':' | ';' | '`' | '"'))
        .map(|w| w.trim_end_matches('.'))
        .collect();
    // A file is named by its path (`src/main.rs`), or by its name with its
    // folder named too (`lesson/` and `listing.rs`); an E2E spec by its stem
    // in the list of specs (`e2e/: … walkthrough … .spec.mjs`).
    let specs = map.split("e2e/").nth(1).and_then(|rest| rest.split(".spec.mjs").next()).unwrap_or("");
    let spec_words: Vec<&str> = specs.split(|c: char| c.is_whitespace() || c == ',').collect();
    let named = |rel: &str, name: &str| {
        if words.contains(&rel) {
            return true;
        }
        if let Some(stem) = name.strip_suffix(".spec.mjs") {
            return spec_words.contains(&stem);
        }
        let folder = rel.rsplit('/').nth(1).unwrap_or("");
        let folder_named = map.contains(&format!("{folder}/"));
        folder_named && words.iter().any(|w| *w == name || w.ends_with(&format!("/{name}")))
    };
    let mut out = Vec::new();
    for folder in COVERED {
        let mut all = Vec::new();
        files(&root.join(folder), &mut all);
        for path in all {
            let rel = path.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            let data = DATA.iter().any(|d| rel.starts_with(d))
                || name.ends_with(".png")
                || name.ends_with(".proptest-regressions");
            if !data && !named(&rel, &name) {
                out.push(rel);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn the_code_map_names_every_file() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap();
    let gone = missing(root, code_map(&text));
    assert!(gone.is_empty(), "ARCHITECTURE.md's code map does not name:\n{}", gone.join("\n"));
}

#[test]
fn a_file_left_out_of_the_map_is_found() {
    let dir = std::env::temp_dir().join(format!("alp-codemap-{}", std::process::id()));
    for folder in COVERED {
        std::fs::create_dir_all(dir.join(folder)).unwrap();
    }
    std::fs::write(dir.join("src/known.rs"), "").unwrap();
    std::fs::write(dir.join("src/forgotten.rs"), "").unwrap();
    std::fs::write(dir.join("docs/shot.png"), "").unwrap();
    // A mod.rs is named only with its folder; a spec only in the spec list.
    std::fs::create_dir_all(dir.join("src/lesson")).unwrap();
    std::fs::create_dir_all(dir.join("src/program")).unwrap();
    std::fs::write(dir.join("src/lesson/mod.rs"), "").unwrap();
    std::fs::write(dir.join("src/program/mod.rs"), "").unwrap();
    std::fs::create_dir_all(dir.join("tests/e2e")).unwrap();
    std::fs::write(dir.join("tests/e2e/walk.spec.mjs"), "").unwrap();
    std::fs::write(dir.join("tests/e2e/check.spec.mjs"), "").unwrap();
    let map =
        "src/\n  known.rs   something\n  lesson/  mod.rs: check the lesson\ntests/ e2e/: walk .spec.mjs\n";
    let found = missing(&dir, map);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(found, ["src/forgotten.rs", "src/program/mod.rs", "tests/e2e/check.spec.mjs"]);
}
