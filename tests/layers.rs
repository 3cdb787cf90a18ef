//! The workspace's layering, checked where the compiler cannot see it.
//!
//! Between crates the manifests decide, and the compiler holds them to it:
//! `agent-loop-core` depends on no crate of the workspace and on no browser
//! crate; the page (`agent-loop-playground`) and the CLI depend on the core.
//! [`the_manifests_point_one_way`] checks that no one adds an edge.
//!
//! Inside a crate, a module may use only the modules below it
//! (ARCHITECTURE.md, "Layers"), and inside a directory module its files
//! obey the same rule among themselves: `mod.rs` may use its children, a
//! child may use only the siblings below it, never its parent's own items
//! (`super::item`, `crate::parent::item`). A path that points up or
//! sideways fails this test, naming file, line and both places.

use std::path::{Path, PathBuf};

/// One crate's order: its modules bottom to top (modules on one row may
/// not use each other), and for each directory module its files bottom to
/// top.
struct Crate {
    src: &'static str,
    layers: &'static [&'static [&'static str]],
    inner: &'static [(&'static str, &'static [&'static [&'static str]])],
    /// May this crate use wasm-bindgen, js-sys and web-sys?
    browser: bool,
}

const CORE: Crate = Crate {
    src: "core/src",
    layers: &[
        &["vocab", "pack", "walk"],
        &["protocol"],
        &["api"],
        &["i18n"],
        &["preview"],
        &["trace"],
        &["programs"],
        &["scenario"],
        &["run"],
        &["wire"],
        &["lesson"],
        &["debugger"],
        &["predict"],
        &["session"],
        &["step_view"],
    ],
    inner: &[
        // (each program is a folder of its own above `program`: `*`)
        ("programs", &[&["program"], &["*"]]),
        ("trace", &[&["bytes"], &["locals"]]),
        ("scenario", &[&["fields"], &["doubles", "expect", "json_lines", "near", "questions"], &["shipped"]]),
        ("lesson", &[&["listing"], &["python"], &["authored", "recorded"], &["stamp"]]),
        ("step_view", &[&["frame"]]),
        (
            "session",
            &[
                &[
                    "ahead",
                    "amount",
                    "changes",
                    "doubles",
                    "findings",
                    "notice",
                    "predictions",
                    "scope",
                    "what_if",
                ],
                &["breakpoints", "catalogue", "options", "recorded", "recorder", "replay"],
                &["listings", "state"],
                &["opening"],
            ],
        ),
    ],
    browser: false,
};

const PAGE: Crate = Crate {
    src: "src",
    layers: &[
        &["markup"],
        &["figure", "explore"],
        &["view", "shell"],
        &["panels"],
        &["first_view"],
        &["callbacks", "bench", "dom", "builtins"],
        &["render"],
        &["events"],
        &["handle", "worker"],
    ],
    inner: &[("figure", &[&["canvas"], &["rows"], &["flight", "pair", "text"]])],
    browser: true,
};

const CLI: Crate = Crate {
    src: "cli/src",
    layers: &[
        &["shown"],
        &["python"],
        &["machine"],
        &["import", "listing", "out", "first_view"],
        &["record"],
        &["commands"],
    ],
    inner: &[
        ("import", &[&["runs", "turns"], &["importer", "shapes"], &["tools"], &["results"], &["draft"]]),
        ("record", &[&["manifest", "harness"], &["program"], &["questions"], &["runs"], &["pack", "log"]]),
    ],
    browser: false,
};

/// The row of `module`; a row holding `*` holds every name no row names
/// (a program's folder: its name is the program's, not this test's).
fn rank(rows: &[&[&str]], module: &str) -> Option<usize> {
    rows.iter()
        .position(|row| row.contains(&module))
        .or_else(|| rows.iter().position(|row| row.contains(&"*")))
}

/// Where a source file sits: its module and, inside a directory module,
/// its file (`lesson/python.rs` → (lesson, Some(python)); `mod.rs` → None).
/// A file in a folder inside a directory module is one child of it
/// (`programs/lesson_one/entry.rs` → (programs, Some(lesson_one))).
fn place_of(path: &Path, src: &Path) -> Option<(String, Option<String>)> {
    let rel = path.strip_prefix(src).ok()?;
    let parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    match parts.as_slice() {
        [file] => Some((file.clone(), None)),
        [dir, file] if file == "mod" => Some((dir.clone(), None)),
        [dir, file] => Some((dir.clone(), Some(file.clone()))),
        // A directory inside a directory module is one child of it.
        [dir, sub, _] => Some((dir.clone(), Some(sub.clone()))),
        _ => None,
    }
}

/// Every path a line of code names from the crate: `crate::a::b` as
/// (`crate`, [a, b]) and `super::x` as (`super`, [x]); comments cut.
fn paths(line: &str) -> Vec<(&'static str, Vec<String>)> {
    let code = line.split("//").next().unwrap_or("");
    let mut out = Vec::new();
    for (root, tag) in [("crate::", "crate"), ("super::", "super")] {
        let mut rest = code;
        while let Some(i) = rest.find(root) {
            let before = rest[..i].chars().last();
            let after = &rest[i + root.len()..];
            rest = after;
            if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
                continue; // `agent_loop_core::…`, `$crate::` is fine as a prefix below
            }
            if let Some(inner) = after.strip_prefix('{') {
                // `use crate::{a, b::c}`
                let inner = inner.split('}').next().unwrap_or("");
                for item in inner.split(',') {
                    let segs: Vec<String> = item.trim().split("::").map(|s| s.trim().to_string()).collect();
                    if !segs[0].is_empty() {
                        out.push((tag, segs));
                    }
                }
                continue;
            }
            let segs: Vec<String> = after
                .split("::")
                .map(|s| s.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect::<String>())
                .scan(true, |go, s| {
                    let keep = *go && !s.is_empty();
                    *go = keep;
                    keep.then_some(s)
                })
                .collect();
            if !segs.is_empty() {
                out.push((tag, segs));
            }
        }
    }
    out
}

/// A file of a child's own folder but its mod.rs (`programs/lesson_one/
/// entry.rs`): its `super::` is that child, whose files are its own.
fn in_child_folder(file: &Path, src: &Path) -> bool {
    file.strip_prefix(src).is_ok_and(|r| r.components().count() == 3)
        && file.file_name().is_some_and(|n| n != "mod.rs")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The lines of a file, a `use …::{…}` over several lines read as one.
fn joined_lines(text: &str) -> Vec<(usize, String)> {
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
            None if line.contains("::{") && !line.contains('}') => open = Some((i, line.to_string())),
            None => joined.push((i, line.to_string())),
        }
    }
    joined
}

/// The violations in one crate's tree under `src`.
fn violations(krate: &Crate, src: &Path) -> Vec<String> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files.sort();
    let mut found = Vec::new();
    for file in files {
        let Some((module, child)) = place_of(&file, src) else {
            found
                .push(format!("{}: too deep for the layering check (three folders at most)", file.display()));
            continue;
        };
        if module == "lib" || module == "main" {
            continue; // the crate root and a binary sit above everything
        }
        let Some(own) = rank(krate.layers, &module) else {
            found.push(format!("{}: module `{module}` has no layer in tests/layers.rs", file.display()));
            continue;
        };
        let siblings: &[&[&str]] =
            krate.inner.iter().find(|(m, _)| *m == module).map_or(&[], |(_, rows)| *rows);
        let own_child = child.as_deref().map(|c| rank(siblings, c));
        if let Some(None) = own_child {
            let c = child.as_deref().unwrap_or("");
            found.push(format!("{}: file `{module}/{c}` has no layer in tests/layers.rs", file.display()));
            continue;
        }
        let own_child = own_child.flatten();
        let text = std::fs::read_to_string(&file).unwrap();
        for (i, line) in joined_lines(&text) {
            let at = format!("{}:{}", file.display(), i + 1);
            let within = |(root, _): &(&str, Vec<String>)| !(*root == "super" && in_child_folder(&file, src));
            for (root, segs) in paths(&line).into_iter().filter(within) {
                // What the path names, seen from this file: another module,
                // or an item of this module (its `mod.rs`, or a sibling file).
                let (target_module, inner) = match (root, child.is_some()) {
                    ("super", true) => (module.clone(), segs.first().cloned()),
                    ("super", false) => (segs[0].clone(), None),
                    _ => (segs[0].clone(), segs.get(1).cloned()),
                };
                if ["self", "super"].contains(&target_module.as_str()) {
                    continue;
                }
                if target_module == module {
                    // Inside the module: only a child may be wrong.
                    let Some(mine) = own_child else { continue };
                    let sibling = inner.as_deref().and_then(|s| rank(siblings, s));
                    let c = child.as_deref().unwrap_or("");
                    match (sibling, inner.as_deref()) {
                        (Some(r), _) if r < mine => {}
                        (Some(_), Some(s)) => found.push(format!(
                            "{at}: `{module}/{c}` uses its sibling `{s}` on the same or a higher row"
                        )),
                        (_, s) => found.push(format!(
                            "{at}: `{module}/{c}` uses `{}` of its parent module: a file may use only the files below it",
                            s.unwrap_or("")
                        )),
                    }
                    continue;
                }
                match rank(krate.layers, &target_module) {
                    Some(r) if r < own => {}
                    Some(r) => found.push(format!(
                        "{at}: `{module}` (layer {own}) uses `{target_module}` (layer {r}): only lower layers may be used"
                    )),
                    None => found.push(format!("{at}: unknown module `{target_module}`")),
                }
            }
            let browser =
                ["wasm_bindgen", "js_sys", "web_sys"].iter().any(|c| line.contains(&format!("{c}::")));
            if browser && !krate.browser && !line.trim_start().starts_with("//") {
                found.push(format!("{at}: only the page crate may use the browser crates"));
            }
            if !krate.browser && line.contains("cfg(target_arch") && !line.trim_start().starts_with("//") {
                found.push(format!("{at}: the core is the same on every target: no `cfg(target_arch …)`"));
            }
        }
    }
    found
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn every_module_uses_only_lower_layers() {
    let mut found = Vec::new();
    for krate in [&CORE, &PAGE, &CLI] {
        found.extend(violations(krate, &root().join(krate.src)));
    }
    assert!(found.is_empty(), "layering violations:\n{}", found.join("\n"));
}

/// The `[dependencies]` (all tables of them) a manifest names.
fn dependencies(manifest: &str) -> Vec<String> {
    let text = std::fs::read_to_string(root().join(manifest)).unwrap();
    let mut in_deps = false;
    let mut out = Vec::new();
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with('[') {
            in_deps = t.ends_with("dependencies]") && !t.contains("workspace.");
            continue;
        }
        if in_deps && !t.is_empty() && !t.starts_with('#') {
            if let Some(name) = t.split(['=', '.', ' ']).next() {
                out.push(name.trim().to_string());
            }
        }
    }
    out
}

#[test]
fn the_manifests_point_one_way() {
    let core = dependencies("core/Cargo.toml");
    for forbidden in ["agent-loop-playground", "agent-loop-cli", "wasm-bindgen", "js-sys", "web-sys"] {
        assert!(!core.iter().any(|d| d == forbidden), "core/Cargo.toml depends on {forbidden}: {core:?}");
    }
    let page = dependencies("Cargo.toml");
    assert!(page.iter().any(|d| d == "agent-loop-core"), "{page:?}");
    assert!(!page.iter().any(|d| d == "agent-loop-cli"), "the page never has the CLI: {page:?}");
    let cli = dependencies("cli/Cargo.toml");
    assert!(cli.iter().any(|d| d == "agent-loop-core"), "{cli:?}");
    for forbidden in ["wasm-bindgen", "js-sys", "web-sys"] {
        assert!(!cli.iter().any(|d| d == forbidden), "cli/Cargo.toml depends on {forbidden}: {cli:?}");
    }
    // The CLI draws the first view with the page's pure markup: the page
    // crate without its `dom` (the wasm handle, the renderer), which only
    // page/ asks for. So the CLI, and the CLI for Node, never carry it.
    let manifests = std::fs::read_to_string("Cargo.toml").unwrap();
    assert!(
        manifests.contains(r#"agent-loop-playground = { path = ".", default-features = false }"#),
        "the workspace's page crate is without `dom` unless asked for"
    );
    let cli_manifest = std::fs::read_to_string("cli/Cargo.toml").unwrap();
    assert!(!cli_manifest.contains(r#""dom""#), "the CLI never asks for the page's dom");
    let lib = std::fs::read_to_string("src/lib.rs").unwrap();
    for module in ["builtins", "callbacks", "dom", "events", "handle", "render", "worker"] {
        let gated = format!("#[cfg(all(target_arch = \"wasm32\", feature = \"dom\"))]\npub mod {module};");
        let private = format!("#[cfg(all(target_arch = \"wasm32\", feature = \"dom\"))]\nmod {module};");
        assert!(
            lib.contains(&gated) || lib.contains(&private),
            "src/lib.rs: `{module}` is the dom feature's"
        );
    }
    // The CLI for Node: the CLI's library with Node behind it, never the page.
    let node = dependencies("node/Cargo.toml");
    assert!(node.iter().any(|d| d == "agent-loop-cli"), "{node:?}");
    for forbidden in ["agent-loop-playground", "web-sys"] {
        assert!(!node.iter().any(|d| d == forbidden), "node/Cargo.toml depends on {forbidden}: {node:?}");
    }
}

/// The CLI's commands run natively and under Node alike, so its library
/// never touches the machine itself: files, processes and the standard
/// streams are `commands::Io`, given by `main.rs` (native) or the node crate.
#[test]
fn the_cli_library_reaches_the_machine_only_through_its_io() {
    let mut files = Vec::new();
    rust_files(Path::new("cli/src"), &mut files);
    let mut found = Vec::new();
    for file in files.iter().filter(|f| !f.ends_with("main.rs")) {
        let text = std::fs::read_to_string(file).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for machine in ["std::fs", "std::process::Command", "std::io::std", "std::env", "temp_dir"] {
                if code.contains(machine) {
                    found.push(format!("{}:{}: {machine}", file.display(), n + 1));
                }
            }
        }
    }
    assert!(files.len() > 3, "{files:?}");
    assert!(found.is_empty(), "the CLI's library reaches the machine past commands::Io: {found:#?}");
}

#[test]
fn the_check_catches_an_upward_import() {
    let dir = std::env::temp_dir().join(format!("alp-layers-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("lesson")).unwrap();
    std::fs::write(dir.join("run.rs"), "use crate::{\n    trace,\n    session::Session,\n};\n").unwrap();
    std::fs::write(dir.join("trace.rs"), "use crate::lesson::listing;\nuse crate::vocab::Function;\n")
        .unwrap();
    std::fs::write(dir.join("scenario.rs"), "use crate::{vocab, run};\n").unwrap();
    std::fs::write(dir.join("preview.rs"), "fn f() { web_sys::window(); }\n").unwrap();
    std::fs::write(dir.join("lesson").join("mod.rs"), "mod listing;\nuse listing::Listing;\n").unwrap();
    std::fs::write(dir.join("lesson").join("listing.rs"), "use super::caption;\nuse crate::trace::Step;\n")
        .unwrap();
    std::fs::write(dir.join("lesson").join("python.rs"), "use super::listing::Listing;\n").unwrap();
    let found = violations(&CORE, &dir);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(found.len(), 5, "{found:#?}");
    assert!(found[0].contains("`lesson/listing` uses `caption` of its parent module"), "{}", found[0]);
    assert!(found[1].contains("only the page crate may use the browser crates"), "{}", found[1]);
    assert!(found[2].contains("run.rs:1: `run` (layer 8) uses `session` (layer 13)"), "{}", found[2]);
    assert!(found[3].contains("`scenario` (layer 7) uses `run` (layer 8)"), "{}", found[3]);
    assert!(found[4].contains("`trace` (layer 5) uses `lesson` (layer 10)"), "{}", found[4]);
    // A sibling on a higher row is refused the same way.
    let dir = std::env::temp_dir().join(format!("alp-layers-sib-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("lesson")).unwrap();
    std::fs::write(dir.join("lesson").join("listing.rs"), "use crate::lesson::python::keys;\n").unwrap();
    let found = violations(&CORE, &dir);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(found[0].contains("`lesson/listing` uses its sibling `python`"), "{}", found[0]);
}

#[test]
fn a_program_s_folder_is_its_own() {
    // Any program's folder (the row `*`): its files use each other through
    // `super::`, and the layers below `programs`, never one above.
    let dir = std::env::temp_dir().join(format!("alp-layers-program-{}", std::process::id()));
    let folder = dir.join("programs").join("any_program");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("entry.rs"), "use super::runtime::LIMIT;\nuse crate::trace::before;\n")
        .unwrap();
    std::fs::write(folder.join("mod.rs"), "use super::program::Program;\nuse crate::session::Session;\n")
        .unwrap();
    let found = violations(&CORE, &dir);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(found[0].contains("mod.rs:2: `programs` (layer 6) uses `session` (layer 13)"), "{}", found[0]);
}
