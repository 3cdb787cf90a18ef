//! Compiles the shipped scenario fixtures and the language tables into the binary,
//! minified (sorted by file name), so the page needs no extra request and
//! tests see every file (for wasm32 without their `expect` and `notes`,
//! which the page never reads). A fixture that is not valid JSON is kept as it is:
//! the page and `check` must report it, not the build.
use std::{env, fs, path::Path};

fn minified(text: &str) -> String {
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(mut v) => {
            // A fixture's `expect` is for the test suite and its `notes` for
            // authors; the page reads neither.
            if env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("wasm32") {
                if let Some(map) = v.as_object_mut() {
                    map.remove("expect");
                    map.remove("notes");
                }
            }
            v.to_string()
        }
        Err(_) => text.to_string(),
    }
}

/// `&[(file name, minified text), …]` for every `*.json` in `dir`, sorted.
fn listed(dir: &str) -> String {
    let dir = Path::new(dir);
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files: Vec<_> = fs::read_dir(dir)
        .map(|entries| entries.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "json"));
    files.sort();
    let mut list = String::from("&[\n");
    for path in &files {
        println!("cargo:rerun-if-changed={}", path.display());
        let name = path.file_name().unwrap().to_string_lossy();
        let text = fs::read_to_string(path).expect("readable file");
        list.push_str(&format!("    ({name:?}, {:?}),\n", minified(&text)));
    }
    list.push(']');
    list
}

fn main() {
    let out = env::var("OUT_DIR").unwrap();
    let list = listed("../fixtures/scenarios");
    fs::write(Path::new(&out).join("shipped_fixtures.rs"), list).unwrap();
    fs::write(Path::new(&out).join("shipped_languages.rs"), listed("../fixtures/i18n")).unwrap();
}
