//! Every word the page shows, per language: one table per language in
//! `fixtures/i18n/<code>.json` (compiled in by build.rs), holding the
//! interface words, the figure's labels, the sentences a program writes
//! into its run ([`Said`], in the words of that language's listing) and
//! the captions of every stage.
//!
//! Adding a language is adding one file; [`register`] adds one at run time
//! (the pseudo-locale test does). A word missing from a table falls back to
//! English, then to its key, so a gap is visible rather than blank.
//!
//! The page's module holds the default language's table (the course's,
//! Chinese) and, of every other, only what its button says and the words
//! said in English on any page (`check_*`): that table is a pack
//! (`www/data/<code>.json`, `crate::pack`) fetched the first time the
//! language is shown, and until then the language is [`Lang::waiting`]
//! (the session refuses to show it). Natively every table is compiled in.
//! Placeholders are `{name}`; see [`fill`].

use crate::protocol::Said;
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::{OnceLock, RwLock};

/// One language's table.
#[derive(Clone, Debug)]
struct Table {
    code: String,
    name: String,
    html_lang: String,
    words: BTreeMap<String, String>,
    said: BTreeMap<String, String>,
    /// By stage, sorted (found by binary search).
    captions: Vec<(String, (String, String))>,
    /// The pack the table comes in, while it has not arrived (the table
    /// holds only the code, the name and the HTML lang then).
    waiting: Option<&'static str>,
}

/// Something said in the words of the tables: a word key (`check_integer`)
/// and the values it is filled with, said in the reader's language (what
/// is wrong in a scenario: in English by `check` and the API's errors).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Phrase {
    pub key: &'static str,
    pub values: Vec<(&'static str, String)>,
}

impl Phrase {
    /// A word with nothing to fill in.
    pub fn word(key: &'static str) -> Phrase {
        Phrase { key, values: Vec::new() }
    }

    /// A word with its values (`name`, `names`: a list joined with ", ",
    /// said with the language's own separator).
    pub fn with(key: &'static str, values: &[(&'static str, String)]) -> Phrase {
        Phrase { key, values: values.to_vec() }
    }

    /// Text that exists in English only (the CLI's `import` notes).
    pub fn english(text: impl Into<String>) -> Phrase {
        Phrase::with("check_said", &[("text", text.into())])
    }

    /// In `lang`'s words.
    pub fn text(&self, lang: Lang) -> String {
        lang.fill_lists(self.key, &self.values)
    }
}

/// A language the page can show. Cheap to copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lang(usize);

fn registry() -> &'static RwLock<Vec<&'static Table>> {
    static REGISTRY: OnceLock<RwLock<Vec<&'static Table>>> = OnceLock::new();
    REGISTRY.get_or_init(|| {
        let shipped: &[(&str, &str)] = include!(concat!(env!("OUT_DIR"), "/shipped_languages.rs"));
        let mut tables: Vec<&'static Table> = shipped
            .iter()
            .filter_map(|(file, text)| match parse(text) {
                Ok(t) => Some(&*Box::leak(Box::new(t))),
                Err(why) => {
                    debug_assert!(false, "{file}: {why}");
                    None
                }
            })
            .collect();
        // (a language whose table is a pack: what the module keeps of it)
        let waiting: &[(&'static str, &str)] = include!(concat!(env!("OUT_DIR"), "/waiting_languages.rs"));
        for (pack, kept) in waiting {
            if let Ok(t) = parse(kept) {
                tables.push(Box::leak(Box::new(Table { waiting: Some(pack), ..t })));
            }
        }
        RwLock::new(tables)
    })
}

fn table(lang: Lang) -> &'static Table {
    let tables = registry().read().unwrap_or_else(|e| e.into_inner());
    tables.get(lang.0).or_else(|| tables.first()).copied().expect("at least one language table")
}

fn parse(text: &str) -> Result<Table, String> {
    let v: Value = serde_json::from_str(text).map_err(|e| format!("not valid JSON: {e}"))?;
    parse_value(&v)
}

fn parse_value(v: &Value) -> Result<Table, String> {
    let s = |key: &str| v[key].as_str().map(str::to_string).ok_or(format!("{key}: must be a string"));
    // Maps are filled by insertion (no sort code for a collect).
    let map = |key: &str| -> Result<BTreeMap<String, String>, String> {
        let Some(obj) = v[key].as_object() else { return Err(format!("{key}: must be an object")) };
        let mut out = BTreeMap::new();
        for (k, x) in obj {
            let x = x.as_str().ok_or(format!("{key}.{k}: must be a string"))?;
            out.insert(k.clone(), x.to_string());
        }
        Ok(out)
    };
    let mut captions = Vec::new();
    read_captions(&v["captions"], &mut captions)?;
    Ok(Table {
        code: s("code")?,
        name: s("name")?,
        html_lang: s("html_lang")?,
        words: map("words")?,
        said: map("said")?,
        captions,
        waiting: None,
    })
}

/// Captions (`{stage: {title, body}}`) added to `captions`, replacing any
/// with the same stage, then sorted (for the binary search).
fn read_captions(v: &Value, captions: &mut Vec<(String, (String, String))>) -> Result<(), String> {
    let Some(stages) = v.as_object() else { return Err("captions: must be an object".into()) };
    for (stage, c) in stages {
        let (Some(t), Some(b)) = (c["title"].as_str(), c["body"].as_str()) else {
            return Err(format!("captions.{stage}: needs a title and a body"));
        };
        captions.retain(|(s, _)| s != stage);
        captions.push((stage.clone(), (t.to_string(), b.to_string())));
    }
    crate::vocab::sort_small_by(captions, |a, b| a.0 > b.0);
    Ok(())
}

/// Add captions to the table of the language `code` (a program's pack
/// brings its own: `crate::programs::add_pack`); a language this build
/// has no table for is passed over.
pub fn add_captions(code: &str, captions: &Value) -> Result<(), String> {
    let mut tables = registry().write().unwrap_or_else(|e| e.into_inner());
    let Some(i) = tables.iter().position(|t| t.code == code) else { return Ok(()) };
    let mut table = tables[i].clone();
    read_captions(captions, &mut table.captions)?;
    tables[i] = Box::leak(Box::new(table));
    Ok(())
}

/// A language's table that arrived in its pack (`crate::programs::add_pack`):
/// it takes the place of what the module held of it, keeping the captions
/// other packs brought meanwhile (a program's pack brings its captions in
/// every language).
pub fn arrive(table: &Value) -> Result<Lang, String> {
    let mut table = parse_value(table)?;
    let tables = registry().read().unwrap_or_else(|e| e.into_inner());
    if let Some(before) = tables.iter().find(|t| t.code == table.code) {
        let mut theirs = before.captions.clone();
        theirs.retain(|(stage, _)| table.captions.iter().all(|(s, _)| s != stage));
        table.captions.extend(theirs);
        crate::vocab::sort_small_by(&mut table.captions, |a, b| a.0 > b.0);
    }
    drop(tables);
    Ok(put(table))
}

/// Add (or replace) a language from a table in the shipped format.
pub fn register(text: &str) -> Result<Lang, String> {
    Ok(put(parse(text)?))
}

fn put(table: Table) -> Lang {
    let mut tables = registry().write().unwrap_or_else(|e| e.into_inner());
    let leaked: &'static Table = Box::leak(Box::new(table));
    match tables.iter().position(|t| t.code == leaked.code) {
        Some(i) => {
            tables[i] = leaked;
            Lang(i)
        }
        None => {
            tables.push(leaked);
            Lang(tables.len() - 1)
        }
    }
}

/// A language's table in the shipped format, with the captions `keep`
/// keeps: what its pack holds (`crate::scenario::language_pack`).
pub fn table_value(lang: Lang, keep: impl Fn(&str) -> bool) -> Value {
    let t = table(lang);
    let map = |m: &BTreeMap<String, String>| {
        Value::Object(m.iter().map(|(k, v)| (k.clone(), Value::String(v.clone()))).collect())
    };
    let captions = (t.captions.iter().filter(|(stage, _)| keep(stage)))
        .map(|(stage, (title, body))| (stage.clone(), serde_json::json!({ "title": title, "body": body })));
    serde_json::json!({
        "code": t.code, "name": t.name, "html_lang": t.html_lang,
        "words": map(&t.words), "said": map(&t.said), "captions": Value::Object(captions.collect()),
    })
}

/// A language the module knows by its button only until its pack `pack`
/// arrives (core/build.rs lists the page's; a test adds its own).
pub fn expect(code: &str, name: &str, html_lang: &str, pack: &'static str) -> Lang {
    let (code, name, html_lang) = (code.to_string(), name.to_string(), html_lang.to_string());
    let (words, said, captions) = (BTreeMap::new(), BTreeMap::new(), Vec::new());
    put(Table { code, name, html_lang, words, said, captions, waiting: Some(pack) })
}

impl Lang {
    /// The language with this code (`zh`, `en`; `en-GB` finds `en`).
    pub fn parse(code: &str) -> Option<Lang> {
        let code = code.trim().to_ascii_lowercase();
        let tables = registry().read().unwrap_or_else(|e| e.into_inner());
        let exact = tables.iter().position(|t| t.code == code);
        let base = code.split(['-', '_']).next().unwrap_or("");
        exact.or_else(|| tables.iter().position(|t| t.code == base)).map(Lang)
    }

    /// The page's default language (the course's: Chinese).
    pub fn default_lang() -> Lang {
        Lang::parse("zh").unwrap_or(Lang(0))
    }

    /// English: the language of `check`, the CLI and the API's errors
    /// (while its table has not arrived, the module holds its `check_*`
    /// words: a scenario's problems are said in English in the console).
    pub fn english() -> Lang {
        Lang::parse("en").unwrap_or_else(Lang::default_lang)
    }

    /// The pack this language's table comes in, while it has not arrived:
    /// nothing may be shown in it until then.
    pub fn waiting(self) -> Option<&'static str> {
        table(self).waiting
    }

    /// Every language there is a table for, shipped ones first.
    pub fn all() -> Vec<Lang> {
        (0..registry().read().map_or(0, |t| t.len())).map(Lang).collect()
    }

    pub fn code(self) -> &'static str {
        &table(self).code
    }

    /// The language's own name, for its button (`中文`).
    pub fn name(self) -> &'static str {
        &table(self).name
    }

    /// The value for an HTML `lang` attribute (`zh-CN`).
    pub fn html_lang(self) -> &'static str {
        &table(self).html_lang
    }

    /// An interface word. Falls back to English, then to `?` (a test checks
    /// that every table has every key, so neither happens in a release).
    pub fn word(self, key: &str) -> &'static str {
        self.lookup(key, |t| &t.words)
    }

    /// `key` in one map of this language's table, else English's, else `?`.
    fn lookup(self, key: &str, map: fn(&'static Table) -> &'static BTreeMap<String, String>) -> &'static str {
        if let Some(w) = map(table(self)).get(key) {
            return w;
        }
        match Lang::parse("en").filter(|en| *en != self) {
            Some(en) => en.lookup(key, map),
            None => "?",
        }
    }

    /// A word with its placeholders filled.
    pub fn fill(self, key: &str, values: &[(&str, String)]) -> String {
        fill_in(self.word(key), values)
    }

    /// The same, a list of names (a value `names`, joined with ", ") said
    /// with the language's own separator (`、` in Chinese).
    pub fn fill_lists(self, key: &str, values: &[(&str, String)]) -> String {
        let sep = self.word("list_sep");
        let values: Vec<(&str, String)> = (values.iter())
            .map(|(k, v)| (*k, if *k == "names" { v.replace(", ", sep) } else { v.clone() }))
            .collect();
        self.fill(key, &values)
    }

    /// A sentence of the program in this language: the words its listing
    /// in this language writes (English where the table has none).
    pub fn say(self, said: &Said) -> String {
        fill_in(self.said_template(said.kind()), &said.values())
    }

    /// The template of a sentence kind (`timed out after {seconds} s`).
    pub fn said_template(self, kind: &str) -> &'static str {
        self.lookup(kind, |t| &t.said)
    }

    /// A status or error kind (`answered`, `step_cap`) as the code spells
    /// it, with its meaning beside it where the language adds one.
    pub fn status(self, code: &str) -> String {
        let key = format!("gloss_{code}");
        if !table(self).words.contains_key(&key) {
            return code.to_string();
        }
        self.fill("with_gloss", &[("value", code.to_string()), ("gloss", self.word(&key).to_string())])
    }

    /// The caption `(title, body)` of a stage, unfilled.
    pub fn caption(self, stage: &str) -> Option<(&'static str, &'static str)> {
        let captions = &table(self).captions;
        let i = captions.binary_search_by(|(s, _)| s.as_str().cmp(stage)).ok()?;
        let (title, body) = &captions[i].1;
        Some((title.as_str(), body.as_str()))
    }

    /// Every caption key of this language, sorted.
    pub fn caption_keys(self) -> Vec<&'static str> {
        table(self).captions.iter().map(|(k, _)| k.as_str()).collect()
    }

    /// Every interface word key of this language.
    pub fn keys(self) -> Vec<&'static str> {
        table(self).words.keys().map(String::as_str).collect()
    }
}

/// The values of a text written from `template` with one placeholder
/// (`timed out after {seconds} s` and `timed out after 3 s` give `3`), if
/// the text is that template filled.
pub fn unfill(template: &str, text: &str) -> Option<String> {
    let (head, rest) = template.split_once('{')?;
    let (_, tail) = rest.split_once('}')?;
    text.strip_prefix(head)?.strip_suffix(tail).map(str::to_string)
}

/// A count with its thousands grouped (`49,988`), as both languages
/// write a big number.
pub fn grouped(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Fill a text's placeholders from `(name, value)` pairs.
fn fill_in(text: &str, values: &[(&str, String)]) -> String {
    fill(text, |name| values.iter().find(|(k, _)| *k == name).map(|(_, v)| v.clone()))
}

/// Fill `{name}` placeholders with `value(name)`. A brace pair around
/// anything but a plain name (or a name `value` does not know) stays text.
pub fn fill(text: &str, value: impl Fn(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let name_end = rest[open + 1..].find('}').map(|c| open + 1 + c);
        let filled = name_end.and_then(|close| {
            // `{n:message}`: the number with its noun, `1 message`, `2 messages`.
            let (name, noun) = rest[open + 1..close].split_once(':').unwrap_or((&rest[open + 1..close], ""));
            let plain = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            let plain = plain && noun.chars().all(|c| c.is_ascii_lowercase());
            let v = plain.then(|| value(name)).flatten()?;
            Some(match noun {
                "" => (v, close),
                _ if v == "1" => (format!("1 {noun}"), close),
                _ => (format!("{v} {noun}s"), close),
            })
        });
        match filled {
            Some((v, close)) => {
                out.push_str(&v);
                rest = &rest[close + 1..];
            }
            None => {
                out.push('{');
                rest = &rest[open + 1..];
            }
        }
    }
    out.push_str(rest);
    out
}
