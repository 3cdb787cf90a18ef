//! Compiles the shipped scenario fixtures and the language tables into the binary,
//! minified (sorted by file name), so the page needs no extra request and
//! tests see every file (for wasm32 without their `expect` and `notes`,
//! which the page never reads). A fixture that is not valid JSON is kept as it is:
//! the page and `check` must report it, not the build.
//!
//! Without the feature `built-in-packs` (the page's module), the captions and
//! the scenarios a program's pack brings (`www/data/<pack>.json`,
//! src/pack.rs) are left out of the tables and the fixtures: they arrive
//! with the pack. Of such a scenario the module keeps what the picker lists
//! (`waiting_fixtures.rs`: its file, pack, id, function and title), and of
//! a language whose table is a pack (`www/data/<code>.json`), what its
//! button says and the words said in English on any page
//! (`waiting_languages.rs`). A table's `element` words are never compiled
//! in: the element says them itself (www/element/words.js).
use serde_json::Value;
use std::{env, fs, path::Path};

fn minified(text: &str, strip: &dyn Fn(&mut Value)) -> String {
    match serde_json::from_str::<Value>(text) {
        Ok(mut v) => {
            // A fixture's `expect` is for the test suite and its `notes` for
            // authors; the page reads neither.
            if env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("wasm32") {
                if let Some(map) = v.as_object_mut() {
                    map.remove("expect");
                    map.remove("notes");
                }
            }
            strip(&mut v);
            v.to_string()
        }
        Err(_) => text.to_string(),
    }
}

/// Every `*.json` in `dir`, sorted.
fn files(dir: &str) -> Vec<std::path::PathBuf> {
    let dir = Path::new(dir);
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files: Vec<_> = fs::read_dir(dir)
        .map(|entries| entries.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "json"));
    files.sort();
    files
}

/// `&[(file name, minified text), …]` for every `*.json` in `dir`, sorted,
/// but those `packed` names (their pack brings them).
fn listed(dir: &str, strip: &dyn Fn(&mut Value), packed: &[(String, String)]) -> String {
    let mut list = String::from("&[\n");
    for path in files(dir) {
        println!("cargo:rerun-if-changed={}", path.display());
        let name = path.file_name().unwrap().to_string_lossy();
        if packed.iter().any(|(_, file)| *file == name) {
            continue;
        }
        let text = fs::read_to_string(&path).expect("readable file");
        list.push_str(&format!("    ({name:?}, {:?}),\n", minified(&text, strip)));
    }
    list.push(']');
    list
}

/// The scenario files the packs bring (`texts` named `<pack>/scenarios/<file>`),
/// as `(pack, file)`.
fn packed_scenarios() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for path in files("../www/data") {
        let Ok(pack) = serde_json::from_str::<Value>(&fs::read_to_string(&path).unwrap_or_default()) else {
            continue;
        };
        let name = pack["pack"].as_str().unwrap_or_default();
        for key in pack["texts"].as_object().into_iter().flatten().map(|(k, _)| k) {
            if let Some(file) = key.strip_prefix(&format!("{name}/scenarios/")) {
                out.push((name.to_string(), file.to_string()));
            }
        }
    }
    out
}

/// `&[(file name, pack, id, function, title as JSON), …]`: what the picker
/// lists of a scenario whose text is in its pack, until the pack arrives.
fn waiting(dir: &str, packed: &[(String, String)]) -> String {
    let mut list = String::from("&[\n");
    for (pack, file) in packed {
        // (a pack that names a fixture this tree has not is a stale pack:
        // tests/packs.rs says how to write it again)
        let text = fs::read_to_string(Path::new(dir).join(file))
            .unwrap_or_else(|e| panic!("{pack}.json brings {file}, not in {dir}: {e}"));
        let v: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{file}: {e}"));
        let field = |key: &str| v[key].as_str().unwrap_or_else(|| panic!("{file}: no {key}")).to_string();
        let (id, function) = (field("id"), field("function"));
        list.push_str(&format!(
            "    ({file:?}, {pack:?}, {id:?}, {function:?}, {:?}),\n",
            v["title"].to_string()
        ));
    }
    list.push(']');
    list
}

/// The languages whose table is a pack of its own (`www/data/<code>.json`
/// with a `language`): `(code, pack, what the module keeps of the table)`.
/// It keeps what the language's button shows (code, name, HTML lang) and
/// the words of what is said in English whatever the page shows (a
/// scenario's problems in the console, as `check` says them: `check_*`,
/// and the list separator), in `waiting_languages.rs`.
fn packed_languages() -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for path in files("../www/data") {
        let Ok(pack) = serde_json::from_str::<Value>(&fs::read_to_string(&path).unwrap_or_default()) else {
            continue;
        };
        let mut table = pack["language"].clone();
        let Some(map) = table.as_object_mut() else { continue };
        if let Some(words) = map.get_mut("words").and_then(Value::as_object_mut) {
            words.retain(|key, _| key.starts_with("check_") || key == "list_sep");
        }
        map.insert("said".into(), Value::Object(Default::default()));
        map.insert("captions".into(), Value::Object(Default::default()));
        let code = table["code"].as_str().unwrap_or_default().to_string();
        let name = pack["pack"].as_str().unwrap_or_default().to_string();
        out.push((code, name, table.to_string()));
    }
    out
}

/// The captions the packs bring, by language code: `(code, key)`.
fn packed_captions() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for path in files("../www/data") {
        println!("cargo:rerun-if-changed={}", path.display());
        let Ok(pack) = serde_json::from_str::<Value>(&fs::read_to_string(&path).unwrap_or_default()) else {
            continue;
        };
        for (code, captions) in pack["captions"].as_object().into_iter().flatten() {
            out.extend(captions.as_object().into_iter().flatten().map(|(k, _)| (code.clone(), k.clone())));
        }
    }
    out
}

/// The hash of a pack file, as `preview::Fnv::bytes` makes it (the same
/// steps: tests/packs.rs checks that both give the same number).
fn fnv(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let word = u64::from_le_bytes(chunk.try_into().unwrap());
        h = (h ^ word).wrapping_mul(0x100_0000_01b3).rotate_left(29);
    }
    for b in chunks.remainder() {
        h = (h ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3);
    }
    h
}

/// `&[(pack, hash of its file), …]`: the packs this build was made with.
fn pack_hashes() -> String {
    let mut list = String::from("&[\n");
    for path in files("../www/data") {
        let bytes = fs::read(&path).unwrap_or_default();
        let name =
            serde_json::from_slice::<Value>(&bytes).ok().and_then(|v| v["pack"].as_str().map(String::from));
        if let Some(name) = name {
            list.push_str(&format!("    ({name:?}, {:#x}),\n", fnv(&bytes)));
        }
    }
    list.push(']');
    list
}

fn main() {
    let out = env::var("OUT_DIR").unwrap();
    let lean = env::var_os("CARGO_FEATURE_BUILT_IN_PACKS").is_none();
    let scenarios = if lean { packed_scenarios() } else { Vec::new() };
    let list = listed("../fixtures/scenarios", &|_| {}, &scenarios);
    fs::write(Path::new(&out).join("shipped_fixtures.rs"), list).unwrap();
    fs::write(Path::new(&out).join("waiting_fixtures.rs"), waiting("../fixtures/scenarios", &scenarios))
        .unwrap();
    let packed = if lean { packed_captions() } else { Vec::new() };
    let strip = |table: &mut Value| {
        // (the words the element says itself are www/element/words.js's)
        if let Some(map) = table.as_object_mut() {
            map.remove("element");
        }
        let code = table["code"].as_str().unwrap_or("").to_string();
        if let Some(captions) = table.get_mut("captions").and_then(Value::as_object_mut) {
            captions.retain(|key, _| !packed.iter().any(|(c, k)| *c == code && k == key));
        }
    };
    // (a language that is a pack is left out, but for what packed_languages keeps)
    let languages = if lean { packed_languages() } else { Vec::new() };
    let tables: Vec<(String, String)> =
        languages.iter().map(|l| (l.1.clone(), format!("{}.json", l.0))).collect();
    fs::write(Path::new(&out).join("shipped_languages.rs"), listed("../fixtures/i18n", &strip, &tables))
        .unwrap();
    let waiting: String =
        languages.iter().map(|(_, pack, kept)| format!("    ({pack:?}, {kept:?}),\n")).collect();
    fs::write(Path::new(&out).join("waiting_languages.rs"), format!("&[\n{waiting}]")).unwrap();
    fs::write(Path::new(&out).join("packs.rs"), pack_hashes()).unwrap();
}
