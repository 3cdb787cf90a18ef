//! The scenario files shipped with the playground, as texts: compiled into
//! the binary (`fixtures/scenarios/`, core/build.rs), or, in the page's
//! module, in their program's pack (`www/data/<pack>.json`), with only what
//! the picker lists of them compiled in until it arrives
//! (`super::load_shipped` reads them).

use crate::i18n::Lang;
use crate::programs::{self, Program};
use serde_json::{Map, Value};

/// Every fixture compiled into the binary, as `(file name, text)`.
pub fn shipped() -> &'static [(&'static str, &'static str)] {
    include!(concat!(env!("OUT_DIR"), "/shipped_fixtures.rs"))
}

/// The file of a program's pack: its texts, its scenarios and, in every
/// language, the captions under its namespaces (written to
/// `www/data/<pack>.json` by tests/packs.rs; natively every text is
/// compiled in).
pub fn pack_file(program: &Program) -> String {
    let mut by_lang = Map::new();
    for lang in Lang::all() {
        let mut captions = Map::new();
        for key in lang.caption_keys().into_iter().filter(|k| program.owns_caption(k)) {
            let (title, body) = lang.caption(key).unwrap_or_default();
            captions.insert(key.to_string(), serde_json::json!({ "title": title, "body": body }));
        }
        by_lang.insert(lang.code().to_string(), Value::Object(captions));
    }
    let name = program.pack.unwrap_or(program.name);
    let mut texts: Vec<(String, String)> =
        program.texts().iter().map(|t| (t.name.to_string(), t.get().to_string())).collect();
    texts.extend(texts_of(program).map(|(file, text)| (format!("{name}/scenarios/{file}"), text)));
    crate::pack::file(name, texts, Value::Object(by_lang))
}

/// The file of a language's pack (`www/data/<code>.json`: every language
/// but the default, whose table core/build.rs leaves out of the page's
/// module): its table, less the captions the programs' packs bring.
pub fn language_pack(lang: Lang) -> String {
    let packed = |stage: &str| programs::ALL.iter().any(|p| p.pack.is_some() && p.owns_caption(stage));
    let table = crate::i18n::table_value(lang, |stage| !packed(stage));
    serde_json::json!({ "pack": lang.code(), "texts": {}, "language": table }).to_string()
}

/// The text of every shipped scenario here: compiled in, or in a pack
/// that has arrived (in the page's module), by file name.
pub fn raw_texts() -> impl Iterator<Item = (&'static str, &'static str)> {
    let packed = in_packs().iter().filter_map(|&(file, pack, ..)| {
        crate::pack::text(&format!("{pack}/scenarios/{file}")).map(|text| (file, text))
    });
    shipped().iter().copied().chain(packed)
}

/// The program a shipped scenario's text (parsed) belongs to is `program`.
pub fn is_of(scenario: &Value, program: &Program) -> bool {
    let function = scenario.get("function").and_then(Value::as_str).and_then(programs::function);
    function.is_some_and(|f| programs::of(f).name == program.name)
}

/// The shipped scenarios of a program, as the page's module would have
/// them (minified, without the test suite's `expect` and the authors'
/// `notes`): its pack brings them (core/build.rs leaves them out).
pub fn texts_of(program: &Program) -> impl Iterator<Item = (&'static str, String)> + '_ {
    raw_texts().filter_map(move |(file, text)| {
        let mut v: Value = serde_json::from_str(text).ok()?;
        if !is_of(&v, program) {
            return None;
        }
        let map = v.as_object_mut()?;
        map.remove("expect");
        map.remove("notes");
        Some((file, v.to_string()))
    })
}

/// The shipped fixtures whose text is in their program's pack (the page's
/// module, core/build.rs): `(file, pack, id, function, title as JSON)`.
/// Natively every text is compiled in and this is empty.
pub(super) fn in_packs() -> &'static [(&'static str, &'static str, &'static str, &'static str, &'static str)]
{
    include!(concat!(env!("OUT_DIR"), "/waiting_fixtures.rs"))
}
