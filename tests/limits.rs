//! Runaway traces end with an explicit event, and odd models become statuses.
//!
//! Lessons tested: lesson_one.

use agent_loop_core::protocol::{Model, ModelError, Process, ProcessOutcome, Seconds};
use agent_loop_core::run::record;
use agent_loop_core::scenario::Scenario;
use agent_loop_core::trace::Event;
use serde_json::{json, Value};

/// A model that always asks for another run.
struct Forever(u64);
impl Model for Forever {
    fn create(&mut self, _: &agent_loop_core::protocol::Request) -> Result<Value, ModelError> {
        self.0 += 1;
        Ok(
            json!({"stop_reason": "tool_use", "content": [{"type": "tool_use", "id": format!("c{}", self.0), "name": "run_main", "input": {}}]}),
        )
    }
}

struct Ok0;
impl Process for Ok0 {
    fn run(&mut self, _: &[&str], _: Seconds) -> ProcessOutcome {
        ProcessOutcome::Exited { returncode: 0, stdout: "ok".into(), stderr: String::new() }
    }
}

fn loop_scenario(max_calls: i64) -> Scenario {
    Scenario::from_value(json!({"id": "x", "function": "run_loop", "title": {"zh": "x", "en": "x"},
        "max_calls": max_calls, "model": []}))
    .unwrap()
}

#[test]
fn a_runaway_loop_stops_at_the_step_cap() {
    let mut model = Forever(0);
    let trace = record(&loop_scenario(i64::MAX), &mut model, &mut Ok0, 5_000);
    assert_eq!(trace.steps.len(), 5_000);
    let last = trace.steps.last().unwrap();
    assert_eq!(last.event, Event::Error);
    assert_eq!(last.label, "trace.step_cap");
    assert_eq!(trace.error.as_ref().unwrap().kind, "step_cap");
    assert_eq!(trace.result, Value::Null);
    // The model was not called on and on after the cap.
    assert!(model.0 < 200, "model called {} times", model.0);
}

#[test]
fn garbage_from_the_model_is_a_protocol_error() {
    struct Garbage(Value);
    impl Model for Garbage {
        fn create(&mut self, _: &agent_loop_core::protocol::Request) -> Result<Value, ModelError> {
            Ok(self.0.clone())
        }
    }
    for reply in [json!(null), json!(42), json!("text"), json!([1, 2]), json!({"content": [null]})] {
        let trace = record(&loop_scenario(4), &mut Garbage(reply.clone()), &mut Ok0, 10_000);
        let status = trace.status();
        assert!(status == Some("protocol_error") || status == Some("model_stopped"), "{reply}: {status:?}");
        assert_eq!(trace.record.len(), 1, "{reply}: nothing appended");
    }
}

#[test]
fn ten_thousand_calls_fit_under_the_cap() {
    let mut model = Forever(0);
    let trace = record(&loop_scenario(10_000), &mut model, &mut Ok0, 2_000_000);
    assert_eq!(trace.status(), Some("call_limit"));
    assert_eq!(trace.result["calls"], 10_000);
    assert_eq!(trace.record.len(), 1 + 2 * 10_000);
}

/// A local that counts how often it is looked at.
struct Counted<'a>(&'a std::sync::atomic::AtomicUsize);
impl agent_loop_core::trace::Local for Counted<'_> {
    fn write(&self, out: &mut Vec<u8>) {
        out.push(b'0');
    }
    fn fingerprint(&self, _: &mut agent_loop_core::trace::Fnv) {
        self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
}

#[test]
fn a_long_list_is_fingerprinted_only_as_far_as_its_preview_shows() {
    use agent_loop_core::trace::{Fnv, Local, PREVIEW_ITEMS};
    let seen = std::sync::atomic::AtomicUsize::new(0);
    let list: Vec<Counted> = (0..10_000).map(|_| Counted(&seen)).collect();
    list.fingerprint(&mut Fnv::new());
    assert_eq!(seen.load(std::sync::atomic::Ordering::Relaxed), PREVIEW_ITEMS);
    // Values too: a change past the shown items does not change the hash,
    // a change in the shown items or the length does.
    let hash = |v: &Value| {
        let mut h = Fnv::new();
        v.fingerprint(&mut h);
        h.0
    };
    let mut long: Vec<Value> = (0..200).map(Value::from).collect();
    let base = hash(&json!(long));
    long[150] = json!("changed");
    assert_eq!(hash(&json!(long)), base, "item 150 is not shown");
    long[3] = json!("changed");
    assert_ne!(hash(&json!(long)), base, "item 3 is shown");
    long.push(json!(0));
    assert_ne!(hash(&json!(long.clone())), hash(&json!(long[..200])), "the length is shown");
}

#[test]
fn a_reply_with_thousands_of_tool_requests_records_every_one() {
    struct Wide(bool);
    impl Model for Wide {
        fn create(&mut self, _: &agent_loop_core::protocol::Request) -> Result<Value, ModelError> {
            if std::mem::replace(&mut self.0, true) {
                return Ok(json!({"stop_reason": "end_turn", "content": [{"type": "text", "text": "done"}]}));
            }
            let calls: Vec<Value> = (0..3000)
                .map(|i| json!({"type": "tool_use", "id": format!("c{i}"), "name": "run_main", "input": {}}))
                .collect();
            Ok(json!({"stop_reason": "tool_use", "content": calls}))
        }
    }
    let trace = record(&loop_scenario(2), &mut Wide(false), &mut Ok0, 2_000_000);
    assert_eq!(trace.status(), Some("answered"));
    let executed = trace.steps.iter().filter(|s| s.label == "loop.execute").count();
    assert_eq!(executed, 3000);
}

/// A clock that moves one millisecond each time it is read.
fn ticking() -> f64 {
    static NOW: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    NOW.fetch_add(1, std::sync::atomic::Ordering::Relaxed) as f64
}

#[test]
fn a_runaway_loop_stops_at_its_time_budget_with_an_explicit_step() {
    use agent_loop_core::trace::Limits;
    let limits = Limits { steps: 2_000_000, millis: Some(20.0), bytes: None, clock: ticking };
    let mut model = Forever(0);
    let trace = record(&loop_scenario(1_000_000_000), &mut model, &mut Ok0, limits);
    let last = trace.steps.last().unwrap();
    assert_eq!((last.event, last.label), (Event::Error, "trace.time_budget"));
    assert_eq!(trace.error.as_ref().map(|e| e.kind.as_str()), Some("time_budget"));
    assert!(trace.error.unwrap().message.contains("20 ms"));
    // The clock is read every 256 steps: about 20 reads, then it stops.
    assert!(trace.steps.len() < 256 * 25, "{} steps", trace.steps.len());
    assert!(model.0 < 1000, "the model is not asked again once stopped ({} calls)", model.0);
}

#[test]
fn a_trace_that_grows_too_large_stops_at_its_memory_budget() {
    use agent_loop_core::trace::Limits;
    struct Loud(u64);
    impl Process for Loud {
        fn run(&mut self, _: &[&str], _: Seconds) -> ProcessOutcome {
            self.0 += 1;
            // Different every time, so nothing is shared in the locals table.
            ProcessOutcome::Exited {
                returncode: 1,
                stdout: String::new(),
                stderr: format!("{}{}", self.0, "x".repeat(5000)),
            }
        }
    }
    let limits = Limits { steps: 2_000_000, millis: None, bytes: Some(1 << 20), clock: ticking };
    let mut process = Loud(0);
    let trace = record(&loop_scenario(1_000_000), &mut Forever(0), &mut process, limits);
    assert_eq!(trace.steps.last().map(|s| s.label), Some("trace.memory_budget"));
    assert_eq!(trace.error.as_ref().map(|e| e.kind.as_str()), Some("memory_budget"));
    assert!(process.0 < 1000, "stopped early ({} runs)", process.0);
}

/// A clock that moves only when a callout moves it (a model that takes
/// `SLOW_MS` of the page's time for every reply).
static SLOW_NOW: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
const SLOW_MS: u64 = 500;
fn slow_clock() -> f64 {
    SLOW_NOW.load(std::sync::atomic::Ordering::Relaxed) as f64
}

#[test]
fn a_slow_model_is_stopped_after_the_call_that_ran_out_the_time() {
    use agent_loop_core::trace::Limits;
    struct Slow(u64);
    impl Model for Slow {
        fn create(&mut self, r: &agent_loop_core::protocol::Request) -> Result<Value, ModelError> {
            SLOW_NOW.fetch_add(SLOW_MS, std::sync::atomic::Ordering::Relaxed);
            self.0 += 1;
            Forever(self.0).create(r)
        }
    }
    let limits = Limits { steps: 2_000_000, millis: Some(2000.0), bytes: None, clock: slow_clock };
    let mut model = Slow(0);
    let trace = record(&loop_scenario(100_000), &mut model, &mut Ok0, limits);
    assert_eq!(trace.error.as_ref().map(|e| e.kind.as_str()), Some("time_budget"));
    // 2 s of budget at 0.5 s a call: the fourth call runs it out, and no fifth is made
    // (read every 256 steps only, the clock let 7 calls through).
    assert_eq!(model.0, 4, "calls made");
}

#[test]
fn what_the_model_brings_into_the_record_counts_against_the_memory_budget() {
    use agent_loop_core::trace::Limits;
    /// Replies of a megabyte of text, asking for another run each time.
    struct Wordy(u64);
    impl Model for Wordy {
        fn create(&mut self, _: &agent_loop_core::protocol::Request) -> Result<Value, ModelError> {
            self.0 += 1;
            Ok(json!({"stop_reason": "tool_use", "content": [
                {"type": "text", "text": "w".repeat(1 << 20)},
                {"type": "tool_use", "id": format!("c{}", self.0), "name": "run_main", "input": {}}]}))
        }
    }
    let limits = Limits { steps: 2_000_000, millis: None, bytes: Some(8 << 20), clock: ticking };
    let mut model = Wordy(0);
    let trace = record(&loop_scenario(1_000), &mut model, &mut Ok0, limits);
    assert_eq!(trace.error.as_ref().map(|e| e.kind.as_str()), Some("memory_budget"));
    assert!((8..=10).contains(&model.0), "8 MB of budget, 1 MB a reply: {} replies", model.0);
}

/// A link with 100,000 breakpoint items (repeats, and bad ones) places each
/// distinct item once and names only the first few that cannot be placed.
#[test]
fn a_list_of_100000_breakpoints_costs_what_its_distinct_items_cost() {
    use agent_loop_core::session::{place_all, NOTICES_SHOWN};
    use agent_loop_core::vocab::Code;
    let entry = agent_loop_core::programs::lesson_one::RUN_LOOP;
    let good: Vec<String> = (0..100_000).map(|i| format!("run_loop:{}", i % 20 + 1)).collect();
    let started = std::time::Instant::now();
    let (placed, notices) = place_all(&good.join(","), entry, Code::Python);
    let distinct: std::collections::BTreeSet<_> = placed.iter().collect();
    assert_eq!(placed.len(), distinct.len(), "each breakpoint once");
    assert!(placed.len() <= 20 && !placed.is_empty(), "{}", placed.len());
    assert!(notices.len() <= NOTICES_SHOWN + 1, "{}", notices.len());
    let bad: Vec<String> = (0..100_000).map(|i| format!("run_loop:{}", 100_000 + i)).collect();
    let (placed, notices) = place_all(&bad.join(" "), entry, Code::Python);
    assert!(placed.is_empty());
    assert_eq!(notices.len(), NOTICES_SHOWN + 1);
    let en = agent_loop_core::i18n::Lang::parse("en").unwrap();
    let last = notices.last().unwrap().text(en);
    assert!(last.contains(&format!("{}", 100_000 - NOTICES_SHOWN)), "{last}");
    // (printed, not asserted: machines here are noisy)
    println!("two lists of 100,000 items: {:?}", started.elapsed());
}
