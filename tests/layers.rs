//! The crate's layering, checked: a module may use only the modules below
//! it (ARCHITECTURE.md, "Layers"). A `use crate::…` or `crate::…` path that
//! points up or sideways fails this test, naming file, line and both layers.

use std::path::Path;

/// Bottom to top. Modules on one row may not use each other.
const LAYERS: &[&[&str]] = &[
    &["vocab"],
    &["protocol"],
    &["i18n"],
    &["preview"],
    &["trace"],
    &["runtime"],
    &["scenario"],
    &["run"],
    &["lesson", "import"],
    &["debugger"],
    &["predict"],
    &["session"],
    &["web"],
];

fn rank(module: &str) -> Option<usize> {
    LAYERS.iter().position(|row| row.contains(&module))
}

/// The top-level module a source file belongs to (`src/web/view.rs` → web).
fn module_of(path: &Path, src: &Path) -> Option<String> {
    let rel = path.strip_prefix(src).ok()?;
    let first = rel.components().next()?.as_os_str().to_string_lossy().to_string();
    Some(first.trim_end_matches(".rs").to_string())
}

/// Every `crate::name` (and `$crate::name`) in a line of code, comments cut.
fn crate_paths(line: &str) -> Vec<String> {
    let code = line.split("//").next().unwrap_or("");
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find("crate::") {
        let after = &rest[i + "crate::".len()..];
        let name: String = after.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
        if !name.is_empty() {
            out.push(name);
        }
        rest = after;
    }
    // `use crate::{a, b}`
    if let Some(i) = code.find("crate::{") {
        let inner = code[i + "crate::{".len()..].split('}').next().unwrap_or("");
        out.extend(inner.split(',').map(|p| p.trim().split("::").next().unwrap_or("").to_string()));
    }
    out.retain(|n| !n.is_empty());
    out
}

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The violations in the tree under `src`.
fn violations(src: &Path) -> Vec<String> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files.sort();
    let mut found = Vec::new();
    for file in files {
        let Some(module) = module_of(&file, src) else { continue };
        if module == "lib" || module == "main" {
            continue; // the crate root and the CLI binary sit above everything
        }
        let Some(own) = rank(&module) else {
            found.push(format!("{}: module `{module}` has no layer in tests/layers.rs", file.display()));
            continue;
        };
        let text = std::fs::read_to_string(&file).unwrap();
        // A `use crate::{…}` over several lines is read as one line.
        let mut joined: Vec<(usize, String)> = Vec::new();
        let mut open: Option<(usize, String)> = None;
        for (i, line) in text.lines().enumerate() {
            match open.take() {
                Some((at, mut so_far)) => {
                    so_far.push_str(line.trim());
                    if line.contains('}') {
                        joined.push((at, so_far));
                    } else {
                        open = Some((at, so_far));
                    }
                }
                None if line.contains("crate::{") && !line.contains('}') => {
                    open = Some((i, line.to_string()))
                }
                None => joined.push((i, line.to_string())),
            }
        }
        for (i, line) in joined.iter().map(|(i, l)| (*i, l.as_str())) {
            for used in crate_paths(line) {
                if used == module || used == "self" || used == "super" {
                    continue;
                }
                match rank(&used) {
                    Some(r) if r < own => {}
                    Some(r) => found.push(format!(
                        "{}:{}: `{module}` (layer {own}) uses `{used}` (layer {r}): only lower layers may be used",
                        file.display(),
                        i + 1
                    )),
                    None => found.push(format!("{}:{}: unknown module `{used}`", file.display(), i + 1)),
                }
            }
            let browser =
                ["wasm_bindgen", "js_sys", "web_sys"].iter().any(|c| line.contains(&format!("{c}::")));
            if browser && module != "web" && !line.trim_start().starts_with("//") {
                found.push(format!("{}:{}: only `web` may use the browser crates", file.display(), i + 1));
            }
        }
    }
    found
}

#[test]
fn every_module_uses_only_lower_layers() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let found = violations(&src);
    assert!(found.is_empty(), "layering violations:\n{}", found.join("\n"));
}

#[test]
fn the_check_catches_an_upward_import() {
    let dir = std::env::temp_dir().join(format!("alp-layers-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("web")).unwrap();
    std::fs::write(dir.join("run.rs"), "use crate::{\n    trace,\n    session::Session,\n};\n").unwrap();
    std::fs::write(dir.join("trace.rs"), "use crate::lesson::listing;\nuse crate::vocab::Function;\n")
        .unwrap();
    std::fs::write(dir.join("scenario.rs"), "use crate::{vocab, run};\n").unwrap();
    std::fs::write(dir.join("runtime.rs"), "fn f() { web_sys::window(); }\n").unwrap();
    std::fs::write(dir.join("web").join("view.rs"), "use crate::session::Session;\n").unwrap();
    let found = violations(&dir);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(found.len(), 4, "{found:#?}");
    assert!(found[0].contains("run.rs:1: `run` (layer 7) uses `session` (layer 11)"), "{}", found[0]);
    assert!(found[1].contains("only `web` may use the browser crates"), "{}", found[1]);
    assert!(found[2].contains("`scenario` (layer 6) uses `run` (layer 7)"), "{}", found[2]);
    assert!(found[3].contains("`trace` (layer 4) uses `lesson` (layer 8)"), "{}", found[3]);
}
