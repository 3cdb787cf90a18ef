//! The author CLI's library: its commands (written once against an I/O
//! trait, for the native binary and the Node build), the importer (a
//! logged conversation → a scenario) and the check of an author's own
//! listing. The page never needs it.

pub mod commands;
pub mod import;
pub mod listing;
