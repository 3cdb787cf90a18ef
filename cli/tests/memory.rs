//! The author CLI's peak memory, as a property: `check`, `trace`, `setup`
//! and `import` of grown and mutated scenarios and conversations hold at
//! most a few parsed copies of their input at once, and `trace` writes at
//! most its output limit; the large inputs (tens of thousands of
//! tool requests) are held to the same bounds. A counting allocator
//! measures every byte a command holds (its output is counted and dropped,
//! as a pipe would take it); a copy is what `serde_json` holds for the
//! input parsed once.
//!
//! In bytes, a copy is ~9× the JSON text of small blocks (each small
//! object is a whole B-tree node), so the goal of ~10× the input
//! is one copy: `setup` comes near (2.7 copies of the shape, 28
//! bytes a byte), the others do not (a scenario holds its replies twice,
//! as given and as the run reads them; a run copies each reply into its
//! record, and `import` runs one). The bounds below are what the commands
//! hold today, with a margin, and the run fails on the code before the
//! last saving of each.

#![cfg(not(target_arch = "wasm32"))]

use agent_loop_cli::commands::{self, Io, Kind, Written};
use agent_loop_cli::python::Python;
use proptest::prelude::*;
use serde_json::{json, Value};
use std::alloc::{GlobalAlloc, Layout, System};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// Parsed copies of its input `check` or `trace` may hold at once, at
/// most (4.2 today; 5.1 before the replies were shared).
const CHECK_COPIES: f64 = 4.6;
/// Parsed copies of its input `check` or `trace` may hold at once when
/// the run is thousands of tool requests (9.2 to 10.0 today, by where the
/// steps' list last grew: the run's record and results are as large as
/// the replies).
const RUN_COPIES: f64 = 11.0;
/// Parsed copies of its input `setup` may hold at once, at most (3.7
/// today; 13.3 before the scenario was localized in place and its
/// replies written into the Python text as it is written, not copied).
const SETUP_COPIES: f64 = 4.0;
/// Parsed copies of its input `import` may hold at once, at most (8.2
/// today; 9.7 before the input was let go before the replay and the
/// outcomes moved into the scenario, 11.1 before the scenario was handed
/// on rather than copied, 11.6 before the replies were shared as well).
const IMPORT_COPIES: f64 = 8.8;
/// Bytes `trace` writes at most (its default `--max-output`).
const TRACE_BYTES: usize = 64 << 20;
/// Heap bytes any command may hold besides (buffers; the smallest cases
/// hold ~2 copies of a 17 KB input, 420 KB): small enough that a case of a
/// few hundred KB cannot hide an extra copy in it.
const FIXED: usize = 256 << 10;

struct Counting;
static HELD: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(size: usize) {
    let now = HELD.fetch_add(size, Relaxed) + size;
    PEAK.fetch_max(now, Relaxed);
}

// SAFETY: every call is passed to `System` unchanged; only counted.
// (a counting allocator wraps the system one: the only unsafe code here)
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        HELD.fetch_sub(layout.size(), Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // (both blocks are held while the bytes move)
        grew(new_size);
        let moved = unsafe { System.realloc(ptr, layout, new_size) };
        HELD.fetch_sub(layout.size(), Relaxed);
        moved
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

/// One test at a time: the count is the whole process's.
static ALONE: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// The machine as the commands see it: one file, an output that only
/// counts, no CPython.
struct OneFile {
    path: PathBuf,
    bytes: Vec<u8>,
    written: usize,
}

impl Io for OneFile {
    fn kind(&mut self, path: &Path) -> Result<Kind, String> {
        match path == self.path {
            true => Ok(Kind::File(self.bytes.len() as u64)),
            false => Err("no such file".into()),
        }
    }
    fn read(&mut self, _path: &Path, max: u64) -> Result<Vec<u8>, String> {
        Ok(self.bytes[..self.bytes.len().min(max as usize)].to_vec())
    }
    fn list(&mut self, _dir: &Path) -> Result<Vec<PathBuf>, String> {
        Ok(vec![self.path.clone()])
    }
    fn out(&mut self, bytes: &[u8]) -> Written {
        self.written += bytes.len();
        Written::Ok
    }
    fn err(&mut self, _line: &str) {}
    fn write(&mut self, _path: &Path, _bytes: &[u8]) -> Result<(), String> {
        Err("no file is written here".into())
    }
    fn python(&mut self) -> Option<Python<'_>> {
        None
    }
}

/// The most heap `command` held at once on `text`, above what was held
/// before it started, and the bytes it wrote.
fn peak_of(command: &str, text: &str) -> (usize, usize) {
    let mut io = OneFile { path: PathBuf::from("case.json"), bytes: text.as_bytes().to_vec(), written: 0 };
    let args: Vec<OsString> = vec![command.into(), "case.json".into()];
    let before = HELD.load(Relaxed);
    PEAK.store(before, Relaxed);
    commands::run("agent-loop-cli", &args, &mut io);
    (PEAK.load(Relaxed) - before, io.written)
}

/// The heap one parsed copy of `text` holds (`serde_json::Value`).
fn one_copy(text: &str) -> usize {
    let before = HELD.load(Relaxed);
    PEAK.store(before, Relaxed);
    let parsed: Value = serde_json::from_str(text).unwrap_or(Value::Null);
    let held = HELD.load(Relaxed) - before;
    drop(parsed);
    held
}

/// Hold `command`'s peak on `text` to `copies` parsed copies of it; the
/// bytes it wrote.
fn within_bound(command: &str, text: &str, copies: f64) -> Result<usize, TestCaseError> {
    let ((peak, written), copy) = (peak_of(command, text), one_copy(text));
    if std::env::var_os("MEMORY_FIGURES").is_some() {
        let per = |n: usize| n as f64 / text.len() as f64;
        eprintln!(
            "memory: {command} {} bytes: peak {peak} ({:.1} per byte, {:.2} copies), wrote {written}",
            text.len(),
            per(peak),
            peak as f64 / copy.max(1) as f64
        );
    }
    prop_assert!(written <= TRACE_BYTES, "{command} of {} bytes wrote {written} bytes", text.len());
    let bound = (copies * copy as f64) as usize + FIXED;
    prop_assert!(peak <= bound, "{command} of {} bytes held {peak} bytes (bound {bound})", text.len());
    Ok(written)
}

/// A reply's block: a tool request (sometimes odd), a text, or garbage.
fn block(i: usize) -> impl Strategy<Value = Value> {
    prop_oneof![
        4 => Just(json!({"type": "tool_use", "id": format!("toolu_{i}"), "name": "run_main", "input": {}})),
        1 => Just(json!({"type": "tool_use", "id": "toolu_same", "name": "run_main", "input": {}})),
        1 => Just(json!({"type": "tool_use", "name": "read_file", "input": {"path": "main.py"}})),
        2 => "[a-z \n]{0,40}".prop_map(|t| json!({"type": "text", "text": t})),
        1 => Just(json!({"type": "image", "source": {"data": "AAAA"}})),
        1 => Just(json!(["not", "a", "block"])),
    ]
}

/// One reply of `n` blocks, or of one block repeated `n` times (the big
/// shapes: tens of thousands of tool uses, of empty texts).
fn reply() -> impl Strategy<Value = Value> {
    let reason = prop_oneof![Just("tool_use"), Just("end_turn"), Just("max_tokens"), Just("tool-use")];
    let many = (0usize..200).prop_flat_map(|n| (0..n).map(block).collect::<Vec<_>>());
    let repeated = (block(0), 1usize..4_000).prop_map(|(b, n)| vec![b; n]);
    let long = (1usize..100_000).prop_map(|n| vec![json!({"type": "text", "text": "é".repeat(n)})]);
    (reason, prop_oneof![3 => many, 2 => repeated, 1 => long])
        .prop_map(|(reason, content)| json!({"stop_reason": reason, "content": content}))
}

/// A lesson-one scenario with grown replies, outcomes and a question.
fn scenario() -> impl Strategy<Value = Value> {
    let outcome = (any::<i8>(), 0usize..50_000).prop_map(
        |(rc, n)| json!({"returncode": rc, "stdout": "x".repeat(n), "stderr": "Traceback\n".repeat(n / 10)}),
    );
    (prop::collection::vec(reply(), 1..4), outcome, 1i64..6, any::<bool>()).prop_map(
        |(model, process, max_calls, ask)| {
            let mut s = json!({"id": "grown", "function": "run_loop", "title": {"zh": "长", "en": "long"},
                "max_calls": max_calls, "model": model, "process": process});
            if ask {
                s["questions"] = json!([{"at": "loop.save_results", "text": {"zh": "?", "en": "?"},
                    "choices": [{"zh": "a", "en": "a"}, {"zh": "b", "en": "b"}], "answer": 0}]);
            }
            s
        },
    )
}

/// A logged request body: a question, grown turns, and a response.
fn conversation() -> impl Strategy<Value = Value> {
    (0usize..2_000, reply()).prop_map(|(n, response)| {
        let ids: Vec<String> = (0..n).map(|i| format!("toolu_{i}")).collect();
        let uses: Vec<Value> = ids
            .iter()
            .map(|id| json!({"type": "tool_use", "id": id, "name": "run_main", "input": {}}))
            .collect();
        let results: Vec<Value> = ids
            .iter()
            .map(|id| json!({"type": "tool_result", "tool_use_id": id, "content": "exit_code=0\nok"}))
            .collect();
        let mut messages =
            vec![json!({"role": "user", "content": "Run main.py and only report the result."})];
        if n > 0 {
            messages.push(json!({"role": "assistant", "content": uses}));
            messages.push(json!({"role": "user", "content": results}));
        }
        json!({"model": "m", "messages": messages, "response": response})
    })
}

proptest! {
    // A bounded run, the same cases every time (a bound met by chance
    // would not be a bound): each records up to the offline budgets.
    #![proptest_config(ProptestConfig {
        cases: 16,
        rng_seed: proptest::test_runner::RngSeed::Fixed(23),
        ..ProptestConfig::default()
    })]

    #[test]
    fn check_trace_and_import_hold_a_bounded_heap(s in scenario(), c in conversation()) {
        let _alone = ALONE.lock().unwrap_or_else(|e| e.into_inner());
        let s = s.to_string();
        within_bound("check", &s, CHECK_COPIES)?;
        within_bound("trace", &s, CHECK_COPIES)?;
        within_bound("setup", &s, SETUP_COPIES)?;
        within_bound("import", &c.to_string(), IMPORT_COPIES)?;
    }
}

/// A scenario of one reply that asks for `n` tools (of `n` × 62 bytes).
fn asks_for(n: usize) -> String {
    let uses: Vec<Value> = (0..n)
        .map(|i| json!({"type": "tool_use", "id": format!("toolu_{i}"), "name": "run_main", "input": {}}))
        .collect();
    json!({"id": "many", "function": "run_loop", "title": {"zh": "多", "en": "many"}, "max_calls": 2,
        "model": [{"stop_reason": "tool_use", "content": uses}],
        "process": {"returncode": 0, "stdout": "ok", "stderr": ""}})
    .to_string()
}

/// A logged conversation of `n` tool requests answered in one turn.
fn asked_and_answered(n: usize) -> String {
    let ids: Vec<String> = (0..n).map(|i| format!("toolu_{i}")).collect();
    let uses: Vec<Value> =
        ids.iter().map(|id| json!({"type": "tool_use", "id": id, "name": "run_main", "input": {}})).collect();
    let results: Vec<Value> = ids
        .iter()
        .map(|id| json!({"type": "tool_result", "tool_use_id": id, "content": "exit_code=0\nok", "is_error": false}))
        .collect();
    json!({"messages": [{"role": "user", "content": "Run main.py and only report the result."},
        {"role": "assistant", "content": uses}, {"role": "user", "content": results}],
        "response": {"stop_reason": "end_turn", "content": [{"type": "text", "text": "done"}]}})
    .to_string()
}

/// The shapes (a trace of 3.5 MB wrote 2.46 GB; import of 10.9 MB
/// and setup of 11 MB each held ~1 GB), smaller: the property's bounds
/// for `setup` and `import`, a run's for `check` and `trace`, and the
/// trace (~250 MB of JSON) refused, nothing of it written.
#[test]
fn thousands_of_tool_requests_are_held_within_the_bounds() {
    let _alone = ALONE.lock().unwrap_or_else(|e| e.into_inner());
    let (many, conversation) = (asks_for(5_000), asked_and_answered(5_000));
    let run = || -> Result<usize, TestCaseError> {
        within_bound("check", &many, RUN_COPIES)?;
        within_bound("setup", &many, SETUP_COPIES)?;
        within_bound("import", &conversation, IMPORT_COPIES)?;
        within_bound("trace", &many, RUN_COPIES)
    };
    assert_eq!(run().unwrap(), 0, "the trace is refused");
}
