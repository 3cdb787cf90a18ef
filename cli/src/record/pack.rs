//! The program pack `record` writes (docs/program-format.md, "The
//! pack"): the listings as shown with their hashes, the setup, the
//! functions, statements, labels and captions, and per scenario its runs.
//! Written in one layout: the outer levels one item a line, a step, a
//! value or a message one line each, keys in alphabetical order; no
//! clock, no absolute path, so the same program and CPython give the same
//! bytes.

use super::manifest::Manifest;
use super::program::{Program, Source};
use serde_json::{json, Map, Value};

/// What the pack says it is, and the version of its format.
pub(super) const FORMAT: &str = "agent-loop-playground/program-pack";
/// The format's version: a reader refuses another.
pub(super) const VERSION: u64 = 1;
/// The largest pack `record` writes: what the element reads of a file
/// (`src=`'s limit).
pub(super) const MAX_BYTES: usize = 4 * 1024 * 1024;

/// The hash the pack keeps of a text: the core's one hash
/// (`agent_loop_core::preview::text_hash`), 16 hex digits.
pub(super) fn hash(text: &str) -> String {
    format!("{:016x}", agent_loop_core::preview::text_hash(text))
}

fn text_entry(file: &str, text: &str) -> Value {
    json!({"file": file, "text": text, "hash": hash(text)})
}

/// The pack of a recorded program.
pub(super) fn pack(m: &Manifest, program: &Program, scenarios: Vec<Value>) -> Value {
    let (mut listings, mut setup) = (Map::new(), Map::new());
    for listing in &program.listings {
        listings.insert(listing.lang.into(), text_entry(&listing.source.file, &listing.shown));
        if let Some(Source { file, text, .. }) = &listing.setup {
            setup.insert(listing.lang.into(), text_entry(file, text));
        }
    }
    let languages: Vec<&str> = program.listings.iter().map(|l| l.lang).collect();
    json!({
        "format": FORMAT,
        "version": VERSION,
        "made_by": format!("agent-loop-cli {} record", env!("CARGO_PKG_VERSION")),
        "languages": languages,
        "listings": listings,
        "setup": setup,
        "functions": program.functions.iter().map(|f| f.json()).collect::<Vec<_>>(),
        "statements": program.statements,
        "labels": program.labels,
        "captions": m.captions,
        "record": m.record,
        "scenarios": scenarios,
    })
}

/// Levels above this one are written an item a line; this one and those
/// inside it on one line (a step, a value, a message).
const FLAT_FROM: usize = 6;

/// The pack's text.
pub(super) fn write(pack: &Value) -> String {
    let mut out = String::new();
    layout(pack, 0, &mut out);
    out.push('\n');
    out
}

fn layout(v: &Value, depth: usize, out: &mut String) {
    let pad = |n: usize| "  ".repeat(n);
    match v {
        Value::Array(items) if depth < FLAT_FROM && !items.is_empty() => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                out.push_str(if i == 0 { "\n" } else { ",\n" });
                out.push_str(&pad(depth + 1));
                layout(item, depth + 1, out);
            }
            out.push('\n');
            out.push_str(&pad(depth));
            out.push(']');
        }
        Value::Object(map) if depth < FLAT_FROM && !map.is_empty() => {
            out.push('{');
            for (i, (key, item)) in map.iter().enumerate() {
                out.push_str(if i == 0 { "\n" } else { ",\n" });
                out.push_str(&pad(depth + 1));
                out.push_str(&Value::String(key.clone()).to_string());
                out.push_str(": ");
                layout(item, depth + 1, out);
            }
            out.push('\n');
            out.push_str(&pad(depth));
            out.push('}');
        }
        other => out.push_str(&other.to_string()),
    }
}
