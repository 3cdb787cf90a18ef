//! The author CLI's library: the importer (a logged conversation → a
//! scenario) and the check of an author's own listing. The page never
//! needs it; `main.rs` and the tests use it.

pub mod import;
pub mod listing;
