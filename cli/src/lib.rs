//! The author CLI's library: the importer (a logged conversation → a
//! scenario). The page never needs it; `main.rs` and the tests use it.

pub mod import;
