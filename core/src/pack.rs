//! A program's texts — its Rust source, its Python listings, its setup
//! templates — as data that may arrive after the module has started.
//!
//! Natively (the CLI, the tests) every text is compiled in (feature
//! `built-in-packs`, on by default). The page's module is built without it:
//! lesson one's texts are still compiled in (the page opens on it), and a
//! program that names a pack ([`crate::programs::Program::pack`]) has its
//! texts in `www/data/<pack>.json`, which the page fetches the first time a
//! scenario of that program is shown and hands to [`register`]. Until then
//! the program is not [`loaded`]: the session refuses to show it and says
//! which pack it needs ([`needed`]), so that nothing is ever drawn from a
//! missing text.
//!
//! Whatever is worked out from the texts once (listings, keys, lines) is
//! kept in a [`Cache`], worked out again after a pack arrives.

use serde_json::{Map, Value};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::RwLock;

/// One text of a program: its name in a pack (`lesson_two/teaching.rs`)
/// and, when it is compiled in, the text.
#[derive(Clone, Copy, Debug)]
pub struct Text {
    pub name: &'static str,
    built_in: Option<&'static str>,
}

impl Text {
    /// A text compiled into every build.
    pub const fn built_in(name: &'static str, text: &'static str) -> Text {
        Text { name, built_in: Some(text) }
    }

    /// A text of a pack, compiled in only with `built-in-packs`: use
    /// [`packed!`].
    pub const fn of_pack(name: &'static str, text: Option<&'static str>) -> Text {
        Text { name, built_in: text }
    }

    /// The text compiled in (lesson one's, available in `const`s).
    pub const fn compiled(self) -> &'static str {
        match self.built_in {
            Some(text) => text,
            None => "",
        }
    }

    /// The text: compiled in, else from a registered pack, else empty.
    pub fn get(self) -> &'static str {
        self.built_in.or_else(|| text(self.name)).unwrap_or("")
    }
}

/// `packed!("lesson_two/teaching.rs", include_str!("teaching.rs"))`: a text
/// of a pack, its `include_str!` expanded only with `built-in-packs`.
#[cfg(feature = "built-in-packs")]
macro_rules! packed {
    ($name:literal, $text:expr) => {
        $crate::pack::Text::of_pack($name, Some($text))
    };
}

// (the same without `built-in-packs`: the text is left out)
#[cfg(not(feature = "built-in-packs"))]
macro_rules! packed {
    ($name:literal, $text:expr) => {
        $crate::pack::Text::of_pack($name, None)
    };
}
pub(crate) use packed;

/// Texts that arrived in packs: (name, text), and the packs' names.
struct Registry {
    texts: Vec<(String, &'static str)>,
    packs: Vec<String>,
}

static REGISTRY: RwLock<Registry> = RwLock::new(Registry { texts: Vec::new(), packs: Vec::new() });
/// Bumped by every pack that arrives: what was worked out before is stale.
static GENERATION: AtomicU32 = AtomicU32::new(0);

/// A text that arrived in a pack (natively, every text is compiled in:
/// `None` for all).
pub fn text(name: &str) -> Option<&'static str> {
    let registry = REGISTRY.read().unwrap_or_else(|e| e.into_inner());
    registry.texts.iter().find(|(n, _)| n == name).map(|(_, t)| *t)
}

/// Whether the pack `name` is here: compiled in, or registered.
pub fn has(name: &str) -> bool {
    cfg!(feature = "built-in-packs")
        || REGISTRY.read().unwrap_or_else(|e| e.into_inner()).packs.iter().any(|p| p == name)
}

/// How many packs have arrived (what a [`Cache`] compares).
pub fn generation() -> u32 {
    GENERATION.load(Ordering::Acquire)
}

/// The packs this build was made with (`www/data/*.json` when it was
/// compiled), each with the hash of its file (`preview::Fnv`).
pub fn built_with() -> &'static [(&'static str, u64)] {
    include!(concat!(env!("OUT_DIR"), "/packs.rs"))
}

/// Whether a pack's file (its hash) is the one this build was made with: a
/// copy from another build (an old one kept by a cache) would show lines
/// and captions that are not the code that runs.
pub fn check_built(name: &str, hash: u64) -> Result<(), String> {
    match built_with().iter().find(|(n, _)| *n == name) {
        Some((_, built)) if *built == hash => Ok(()),
        Some(_) => Err(format!("{name}.json is not the one this module was built with (an old copy?)")),
        None => Err(format!("this module has no pack named {name}")),
    }
}

/// Add the pack `expected` from its file (`{"pack": name, "texts": {name:
/// text, …}, "captions": …}`, or a language's: `"language": its table`)
/// whose hash is `hash`. Where the texts are not compiled in, the hash is
/// checked against the build's for `expected` ([`check_built`]) before
/// the file is parsed: a file of any other bytes (another pack's, an old
/// copy, many megabytes of anything) is refused without being read as
/// JSON. Returns its name and the file less its texts (null for a pack
/// already here, which is left as it is: `crate::programs::add_pack` puts
/// its captions and table into the language tables).
/// Only texts the pack's own name prefixes are taken (`lesson_two/…`).
pub fn register(expected: &str, file: &str, hash: u64) -> Result<(String, Value), String> {
    if !cfg!(feature = "built-in-packs") {
        check_built(expected, hash)?;
    }
    let mut value: Value = serde_json::from_str(file).map_err(|e| format!("not a pack (not JSON: {e})"))?;
    let name = value.get("pack").and_then(Value::as_str).filter(|n| !n.is_empty());
    let name = name.ok_or("not a pack: `pack` must be its name")?.to_string();
    if name != expected {
        return Err(format!("{expected}.json holds the pack {name}, not {expected}"));
    }
    let Some(texts) = value.get("texts").and_then(Value::as_object) else {
        return Err(format!("pack {name}: `texts` must be an object of texts"));
    };
    let prefix = format!("{name}/");
    let mut taken: Vec<(String, String)> = Vec::new();
    for (key, text) in texts {
        let Some(text) = text.as_str() else {
            return Err(format!("pack {name}: texts.{key} must be a string"));
        };
        if !key.starts_with(&prefix) {
            return Err(format!("pack {name}: texts.{key} is not one of its texts ({prefix}…)"));
        }
        taken.push((key.clone(), text.to_string()));
    }
    let mut registry = REGISTRY.write().unwrap_or_else(|e| e.into_inner());
    if registry.packs.contains(&name) {
        return Ok((name, Value::Null));
    }
    for (key, text) in taken {
        let text: &'static str = Box::leak(text.into_boxed_str());
        registry.texts.push((key, text));
    }
    registry.packs.push(name.clone());
    GENERATION.fetch_add(1, Ordering::AcqRel);
    value["texts"].take();
    Ok((name, value))
}

/// A pack's file: its `texts` (name, text: natively, with `built-in-packs`,
/// every one is compiled in) and its `captions` (by language code, by key),
/// as [`register`] reads it. `www/data/<pack>.json` is written from this
/// (`crate::scenario::pack_file`, tests/packs.rs).
pub fn file(name: &str, texts: Vec<(String, String)>, captions: Value) -> String {
    let mut map = Map::new();
    for (key, text) in texts {
        map.insert(key, Value::String(text));
    }
    let mut pack = Map::new();
    pack.insert("pack".into(), Value::String(name.to_string()));
    pack.insert("texts".into(), Value::Object(map));
    pack.insert("captions".into(), captions);
    Value::Object(pack).to_string()
}

/// Why the session refused a change, as data: a pack that has not arrived
/// (the page fetches it and asks again), a run still being read back, or a
/// sentence to say as it is. It
/// crosses the wasm boundary typed (the handle throws `PackNeeded` with the
/// pack's name, or `Reading`), never as a message to read back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The program's or the language's pack of this name
    /// (`www/data/<name>.json`) is needed first.
    PackNeeded(String),
    /// The run to show was recorded elsewhere and is still being read
    /// back: the page reads it a slice per task (`readGiven`) and asks
    /// again.
    Reading,
    /// Anything else, in the words it is said in.
    Said(String),
}

impl Refusal {
    /// The pack this refusal asks for, if that is what it is.
    pub fn pack(&self) -> Option<&str> {
        match self {
            Refusal::PackNeeded(pack) => Some(pack),
            Refusal::Reading | Refusal::Said(_) => None,
        }
    }
}

impl From<String> for Refusal {
    fn from(said: String) -> Refusal {
        Refusal::Said(said)
    }
}

impl From<&str> for Refusal {
    fn from(said: &str) -> Refusal {
        Refusal::Said(said.to_string())
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::PackNeeded(pack) => write!(f, "the program's texts have not arrived yet: pack {pack}"),
            Refusal::Reading => f.write_str("the run is still being read back; ask again once it is read"),
            Refusal::Said(said) => f.write_str(said),
        }
    }
}

/// What the session says when a scenario's program (or a language) is not
/// here yet: the page fetches the pack [`Refusal::pack`] names.
pub fn needed(pack: &str) -> Refusal {
    Refusal::PackNeeded(pack.to_string())
}

/// A value worked out once from the texts, and again after a pack has
/// arrived (the one before stays valid for whoever holds it).
pub struct Cache<T: 'static> {
    slot: RwLock<Option<(u32, &'static T)>>,
}

impl<T: Send + Sync + 'static> Cache<T> {
    pub const fn new() -> Cache<T> {
        Cache { slot: RwLock::new(None) }
    }

    /// The value for the texts here now.
    pub fn get_or_init(&self, make: impl FnOnce() -> T) -> &'static T {
        let now = generation();
        if let Some((made, value)) = *self.slot.read().unwrap_or_else(|e| e.into_inner()) {
            if made == now {
                return value;
            }
        }
        // (no lock is held while it is made: making one may read another)
        let value: &'static T = Box::leak(Box::new(make()));
        *self.slot.write().unwrap_or_else(|e| e.into_inner()) = Some((now, value));
        value
    }
}

impl<T: Send + Sync + 'static> Default for Cache<T> {
    fn default() -> Self {
        Cache::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_of_a_pack_arrives_with_it_and_stale_values_are_worked_out_again() {
        let text = Text::of_pack("unit_pack/a.txt", None);
        assert_eq!(text.get(), "");
        static CACHE: Cache<String> = Cache::new();
        assert_eq!(CACHE.get_or_init(|| text.get().to_string()), "");
        let file = r#"{"pack": "unit_pack", "texts": {"unit_pack/a.txt": "hello"}}"#;
        assert_eq!(register("unit_pack", file, 0).map(|r| r.0).as_deref(), Ok("unit_pack"));
        assert_eq!(text.get(), "hello");
        assert_eq!(CACHE.get_or_init(|| text.get().to_string()), "hello");
        // Again: left as it is (no new generation).
        let before = generation();
        let again = r#"{"pack": "unit_pack", "texts": {"unit_pack/a.txt": "changed"}}"#;
        assert_eq!(register("unit_pack", again, 0), Ok(("unit_pack".to_string(), Value::Null)));
        assert_eq!((text.get(), generation()), ("hello", before));
    }

    #[test]
    fn a_broken_pack_is_refused_with_why() {
        assert!(register("p", "nope", 0).unwrap_err().contains("not JSON"));
        assert!(register("p", r#"{"texts": {}}"#, 0).unwrap_err().contains("`pack`"));
        assert!(register("p", r#"{"pack": "p"}"#, 0).unwrap_err().contains("`texts`"));
        assert!(register("p", r#"{"pack": "p", "texts": {"p/a": 1}}"#, 0)
            .unwrap_err()
            .contains("must be a string"));
        assert!(register("p", r#"{"pack": "p", "texts": {"other/a": "x"}}"#, 0)
            .unwrap_err()
            .contains("not one of its"));
        // Another pack's file, asked for as this one: refused.
        assert!(register("q", r#"{"pack": "p", "texts": {}}"#, 0)
            .unwrap_err()
            .contains("holds the pack p, not q"));
        assert!(!REGISTRY.read().unwrap().packs.contains(&"p".to_string()));
    }

    #[test]
    fn a_pack_from_another_build_is_refused() {
        let (name, hash) = built_with()[0];
        assert_eq!(check_built(name, hash), Ok(()));
        assert!(check_built(name, hash ^ 1).unwrap_err().contains("not the one this module was built with"));
        assert!(check_built("no_such_pack", hash).unwrap_err().contains("no pack named"));
    }

    #[test]
    fn a_refusal_names_its_pack() {
        assert_eq!(needed("some_pack").pack(), Some("some_pack"));
        assert_eq!(Refusal::from("unknown scenario \"x\"").pack(), None);
    }
}
