//! Compiles the shipped scenario fixtures into the binary (sorted by file
//! name), so the page needs no extra request and tests see every file.
use std::{env, fs, path::Path};

fn main() {
    let dir = Path::new("fixtures/scenarios");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files: Vec<_> = fs::read_dir(dir)
        .map(|entries| entries.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "json"));
    files.sort();
    let mut out = String::from("&[\n");
    for path in &files {
        println!("cargo:rerun-if-changed={}", path.display());
        let abs = fs::canonicalize(path).expect("fixture path");
        let name = path.file_name().unwrap().to_string_lossy();
        out.push_str(&format!("    ({name:?}, include_str!({:?})),\n", abs.display().to_string()));
    }
    out.push(']');
    fs::write(Path::new(&env::var("OUT_DIR").unwrap()).join("shipped_fixtures.rs"), out).unwrap();
}
