//! The page's module, as Trunk builds it: this binary links the library,
//! whose wasm-bindgen exports are the module's API, and does nothing else
//! (its `main` is never called in the browser). Built as a binary the module
//! comes out smaller than the library's own cdylib (ARCHITECTURE.md, "Build
//! notes").

use agent_loop_playground as _;

fn main() {}
