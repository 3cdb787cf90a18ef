//! The author CLI's library: its commands (written once against an I/O
//! trait, for the native binary and the Node build), the importer (a
//! logged conversation → a scenario), the check of an author's own
//! listing and the recorder of an author's own program. The page never
//! needs it.

pub mod commands;
pub mod first_view;
pub mod import;
pub mod listing;
pub mod machine;
pub mod out;
pub mod python;
pub mod record;
pub mod shown;
