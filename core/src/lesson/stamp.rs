//! The stamp of an author's listing: the proof the page asks for before it
//! shows one (docs/listing-format.md, "The stamp").
//!
//! The page cannot run Python, so marks in the right places do not prove
//! that the author's code does what the recorded run did: an `except`
//! branch that catches where the program raises would be stepped through
//! as if it ran. `check --listing --stamp` can: it runs the listing under
//! CPython on every shipped scenario of its program and, when every run
//! takes the recorded run's lines, writes one line into the file,
//! `#| stamp <16 hex digits>`: a hash of the listing (less that line) and
//! of the program it was run against (its Rust, its Python, its setup
//! templates and what its shipped scenarios give the run). The page recomputes it and shows
//! the listing only when it matches: a listing changed after the check,
//! or checked against another version of the lesson, is refused.
//!
//! The program's own Python listings need no stamp: the test suite runs
//! them under CPython on every scenario (tests/python.rs).

use super::authored::Finding;
use crate::preview::Fnv;
use crate::programs::Program;

/// What starts the stamp's line.
pub const PREFIX: &str = "#| stamp ";

/// Where a listing's stamp line is (1-based) and what it says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    pub line: u32,
    pub value: String,
}

/// The listing with its stamp line blanked (so no line moves: what the
/// page shows and CPython runs), and the stamp if it has one. Only a line
/// that starts with [`PREFIX`] is a stamp, and only the first; another is
/// left in place (a mark outside every function, which the checks name).
pub fn split(text: &str) -> (String, Option<Found>) {
    cut(text, true)
}

/// The listing with its stamp line taken out (what the stamp is a hash
/// of), and the stamp if it has one.
pub fn without(text: &str) -> (String, Option<Found>) {
    cut(text, false)
}

fn cut(text: &str, keep_line: bool) -> (String, Option<Found>) {
    let mut found = None;
    let mut out = String::with_capacity(text.len());
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let body = line.trim_end_matches(['\n', '\r']);
        match body.strip_prefix(PREFIX) {
            Some(value) if found.is_none() => {
                found = Some(Found { line: i as u32 + 1, value: value.trim().to_string() });
                if keep_line {
                    out.push_str(&line[body.len()..]);
                }
            }
            _ => out.push_str(line),
        }
    }
    (out, found)
}

/// Whether `text` is one of the program's own Python listings (with or
/// without a stamp line), which the test suite runs under CPython.
pub fn is_own(program: &Program, text: &str) -> bool {
    let (unstamped, _) = without(text);
    program.python.iter().any(|(_, t)| t.get() == unstamped)
}

/// The program's part of a stamp: everything a CPython run of a listing
/// was compared against. Each text is hashed with its name and length,
/// the scenarios in the order of their files' names.
pub fn fingerprint(program: &Program) -> u64 {
    let mut h = Fnv::new();
    let mut add = |name: &str, text: &str| {
        h.bytes(name.as_bytes());
        h.bytes(&(text.len() as u64).to_le_bytes());
        h.bytes(text.as_bytes());
    };
    add("program", program.name);
    for text in program.texts() {
        add(text.name, text.get());
    }
    // (each scenario's fields that make its run: not the test suite's
    // `expect`, the authors' `notes`, its `title` or its `questions`, so
    // a question reworded leaves every stamp as it was)
    let mut scenarios: Vec<(&str, serde_json::Value)> = crate::scenario::raw_texts()
        .filter_map(|(file, text)| Some((file, serde_json::from_str(text).ok()?)))
        .filter(|(_, v)| crate::scenario::is_of(v, program))
        .collect();
    crate::vocab::sort_small_by(&mut scenarios, |a, b| a.0 > b.0);
    for (file, scenario) in &scenarios {
        add("file", file);
        for (key, value) in scenario.as_object().into_iter().flatten() {
            if !["expect", "notes", "title", "questions"].contains(&key.as_str()) {
                add(key, &value.to_string());
            }
        }
    }
    h.0
}

/// The stamp of `listing` (its stamp line blanked) run against a program
/// with this [`fingerprint`].
pub fn of(listing: &str, fingerprint: u64) -> String {
    let mut h = Fnv::new();
    h.bytes(b"agent-loop-playground listing stamp 1\n");
    h.bytes(&fingerprint.to_le_bytes());
    h.bytes(listing.as_bytes());
    format!("{:016x}", h.0 ^ listing.len() as u64)
}

/// `text` with `stamp` as its stamp line: the old one replaced, else a
/// line added at the end.
pub fn stamped(text: &str, stamp: &str) -> String {
    let (unstamped, found) = without(text);
    let line = format!("{PREFIX}{stamp}\n");
    match found {
        Some(Found { line: n, .. }) => {
            let mut lines: Vec<&str> = unstamped.split_inclusive('\n').collect();
            lines.insert(n as usize - 1, &line);
            lines.concat()
        }
        None if text.is_empty() || text.ends_with('\n') => format!("{text}{line}"),
        None => format!("{text}\n{line}"),
    }
}

/// What a listing's stamp says of it, as the page judges it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// One of the program's own listings: it needs none.
    Own,
    /// It has none.
    Missing,
    /// It has this listing's against this program.
    Current,
    /// It has one made for another text or another version of the
    /// program; at this line.
    Stale(u32),
}

/// The stamp `text`, a listing of `program`, has, and the stamp it would
/// have now: the one judgement the page and `check --listing` make.
pub fn verdict(program: &Program, text: &str) -> (Verdict, String) {
    let (unstamped, found) = without(text);
    let now = of(&unstamped, fingerprint(program));
    let verdict = match found {
        _ if is_own(program, text) => Verdict::Own,
        None => Verdict::Missing,
        Some(f) if f.value == now => Verdict::Current,
        Some(f) => Verdict::Stale(f.line),
    };
    (verdict, now)
}

/// Why the page may not show `text` (from `file`), a listing of `program`
/// whose marks passed: it has no stamp, or one that is not this listing's
/// against this program. `None`: it may, or it is one of the program's own.
pub fn problem(program: &Program, file: &str, text: &str) -> Option<Finding> {
    match verdict(program, text).0 {
        Verdict::Own | Verdict::Current => None,
        Verdict::Missing => Some(Finding::new("listing_unstamped", file, &[])),
        Verdict::Stale(line) => {
            Some(Finding::new("listing_stamp_stale", file, &[("line", line.to_string())]))
        }
    }
}
