//! Native benchmark (not a test): record a `run_loop` of 10,000 model calls
//! and print time, steps, and heap bytes per step (measured by a counting
//! allocator). Run: `cargo bench --bench record`.

use agent_loop_core::protocol::{Model, ModelError, Process, ProcessOutcome, Request, Seconds};
use agent_loop_core::run::record;
use agent_loop_core::scenario::Scenario;
use serde_json::{json, Value};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::Instant;

struct Counting;
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// (a counting allocator wraps the system one: the only unsafe code here)
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let now = LIVE.fetch_add(l.size(), Relaxed) + l.size();
        PEAK.fetch_max(now, Relaxed);
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size(), Relaxed);
        unsafe { System.dealloc(p, l) }
    }
}

#[global_allocator]
static A: Counting = Counting;

struct AlwaysAsks(u64);
impl Model for AlwaysAsks {
    fn create(&mut self, _: &Request) -> Result<Value, ModelError> {
        self.0 += 1;
        Ok(json!({"stop_reason": "tool_use",
                  "content": [{"type": "tool_use", "id": format!("call_{}", self.0), "name": "run_main", "input": {}}]}))
    }
}

struct Fails;
impl Process for Fails {
    fn run(&mut self, _: &[&str], _: Seconds) -> ProcessOutcome {
        ProcessOutcome::Exited {
            returncode: 1,
            stdout: String::new(),
            stderr: "ZeroDivisionError: division by zero".into(),
        }
    }
}

fn main() {
    let calls = 10_000;
    let scenario = Scenario::from_value(json!({"id": "bench", "function": "run_loop",
        "title": {"zh": "基准", "en": "bench"}, "max_calls": calls, "model": []}))
    .unwrap();
    let mut times = Vec::new();
    let mut result = None;
    let mut parts = [0.0; 4];
    for _ in 0..5 {
        let before = LIVE.load(Relaxed);
        PEAK.store(before, Relaxed);
        let start = Instant::now();
        let trace = record(&scenario, &mut AlwaysAsks(0), &mut Fails, 2_000_000);
        times.push(start.elapsed().as_secs_f64() * 1000.0);
        let retained = LIVE.load(Relaxed) - before;
        let steps = trace.steps.len();
        let record_bytes: usize = trace.record.iter().map(|m| m.to_string().len()).sum();
        result = Some((
            steps,
            retained,
            PEAK.load(Relaxed) - before,
            trace.record.len(),
            record_bytes,
            trace.status().map(String::from),
        ));
        // Where the bytes are: drop the parts one by one.
        let mut trace = trace;
        let live = || LIVE.load(Relaxed) as f64 / steps as f64;
        let a = live();
        drop(std::mem::take(&mut trace.record));
        let b = live();
        drop(std::mem::take(&mut trace.output));
        let c = live();
        drop(std::mem::take(&mut trace.steps));
        let d = live();
        drop(trace);
        let e = live();
        parts = [a - b, b - c, c - d, d - e];
    }
    times.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let (steps, retained, peak, messages, record_json, status) = result.unwrap();
    println!("run_loop, {calls} model calls (native, release, median of 5)");
    println!("  status            {}", status.unwrap_or_default());
    println!("  steps             {steps}");
    println!("  messages          {messages} ({record_json} bytes as JSON)");
    println!("  record time       {:.1} ms (min {:.1}, max {:.1})", times[2], times[0], times[4]);
    println!("  time per step     {:.0} ns", times[2] * 1e6 / steps as f64);
    println!("  heap retained     {:.1} MB for the whole trace", retained as f64 / 1e6);
    println!(
        "  bytes per step    {:.0} (all retained heap / steps, record included)",
        retained as f64 / steps as f64
    );
    println!(
        "  per step: record {:.0} B, output {:.0} B, steps {:.0} B, locals {:.0} B",
        parts[0], parts[1], parts[2], parts[3]
    );
    println!("  peak heap         {:.1} MB", peak as f64 / 1e6);
    wide_replies();
}

/// One reply with many tool requests: recording stays linear in the size
/// of the run (each step's locals are fingerprinted only as far as their
/// preview shows).
struct Wide(usize, bool);
impl Model for Wide {
    fn create(&mut self, _: &Request) -> Result<Value, ModelError> {
        if std::mem::replace(&mut self.1, true) {
            return Ok(json!({"stop_reason": "end_turn", "content": [{"type": "text", "text": "done"}]}));
        }
        let calls: Vec<Value> = (0..self.0)
            .map(|i| json!({"type": "tool_use", "id": format!("call_{i}"), "name": "run_main", "input": {}}))
            .collect();
        Ok(json!({"stop_reason": "tool_use", "content": calls}))
    }
}

fn wide_replies() {
    let scenario = Scenario::from_value(json!({"id": "wide", "function": "run_loop",
        "title": {"zh": "多", "en": "wide"}, "max_calls": 2, "model": []}))
    .unwrap();
    println!("one reply with N tool_use blocks (native, release)");
    for n in [1000, 2000, 4000, 8000] {
        let start = Instant::now();
        let trace = record(&scenario, &mut Wide(n, false), &mut Fails, 2_000_000);
        let ms = start.elapsed().as_secs_f64() * 1000.0;
        println!(
            "  {n:>5} blocks      {ms:.0} ms, {} steps, {}",
            trace.steps.len(),
            trace.status().unwrap_or("?")
        );
    }
}
