//! Benchmark-only (feature `bench`, never in the page): counts live heap
//! bytes so bench/run can report what a trace really holds (wasm linear
//! memory only ever grows, so it shows the peak).

use std::sync::atomic::{AtomicUsize, Ordering};
use wasm_bindgen::prelude::*;

struct CountingAllocator;

static LIVE_HEAP: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards every call to the system allocator unchanged; only counts.
// (a counting allocator wraps the system one: the only unsafe code here)
#[allow(unsafe_code)]
unsafe impl std::alloc::GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        LIVE_HEAP.fetch_add(layout.size(), Ordering::Relaxed);
        unsafe { std::alloc::System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        LIVE_HEAP.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { std::alloc::System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

/// Live heap bytes held by Rust in this module.
#[wasm_bindgen(js_name = heapBytes)]
pub fn heap_bytes() -> f64 {
    LIVE_HEAP.load(Ordering::Relaxed) as f64
}
