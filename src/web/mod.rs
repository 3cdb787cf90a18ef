//! Browser side (wasm only).
