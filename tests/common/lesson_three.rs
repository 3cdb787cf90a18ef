//! What the recorded-program tests share: lesson three's pack, as the
//! element fetches it, and a session that opens it.

use agent_loop_core::session::{FixtureDoubles, Options, Session};
use serde_json::Value;

/// The pack, as `record` wrote it (examples/lesson-three/).
pub(crate) const PACK: &str = include_str!("../../examples/lesson-three/lesson-three.pack.json");
/// Where the element fetched it from.
pub(crate) const FILE: &str = "lessons/lesson-three.pack.json";

/// The pack, read.
pub(crate) fn pack() -> Value {
    serde_json::from_str(PACK).unwrap()
}

/// A session in `lang` on a pack's `text`, fetched from [`FILE`].
pub(crate) fn session_of(lang: &str, text: &str) -> Session {
    let program_src = Some((FILE.to_string(), Ok(text.to_string())));
    let options = Options { lang: lang.into(), program_src, ..Options::default() };
    Session::new(Box::new(FixtureDoubles), &options).expect("a session")
}
