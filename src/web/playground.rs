//! Playground handle.
