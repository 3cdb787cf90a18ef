//! The pseudo-locale the word checks use (tests/i18n.rs, tests/recorded_predict.rs):
//! a language `xx` whose every word is wrapped in ⟪…⟫, and the check that
//! finds a word of a page's markup outside ⟪…⟫ and outside data
//! (`translate="no"`, the SVG class `alp-data`): a hard-coded word.

use agent_loop_core::i18n::{self, Lang};
use serde_json::Value;

pub(crate) const OPEN: char = '⟪';
pub(crate) const CLOSE: char = '⟫';

/// The `xx` table: English with every string wrapped; sentences of the core
/// wrapped from the Chinese table (which must translate every kind).
pub(crate) fn pseudo_locale() -> Lang {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/i18n/");
    let en: Value = serde_json::from_str(&std::fs::read_to_string(format!("{dir}en.json")).unwrap()).unwrap();
    let zh: Value = serde_json::from_str(&std::fs::read_to_string(format!("{dir}zh.json")).unwrap()).unwrap();
    fn wrap(v: &Value) -> Value {
        match v {
            Value::String(s) => Value::String(format!("{OPEN}{s}{CLOSE}")),
            Value::Object(m) => Value::Object(m.iter().map(|(k, x)| (k.clone(), wrap(x))).collect()),
            other => other.clone(),
        }
    }
    let mut table = en.clone();
    table["code"] = "xx".into();
    table["name"] = "⟪xx⟫".into();
    table["html_lang"] = "x-pseudo".into();
    table["words"] = wrap(&en["words"]);
    table["captions"] = wrap(&en["captions"]);
    table["said"] = wrap(&zh["said"]);
    i18n::register(&table.to_string()).expect("the pseudo-locale loads")
}

/// Every piece of text in `markup` (text nodes, `title` and `aria-label`
/// values) outside data elements, with where it was found.
pub(crate) fn words_in(markup: &str) -> Vec<String> {
    const VOID: [&str; 4] = ["input", "br", "img", "meta"];
    let mut out = Vec::new();
    let mut data_depth: Vec<bool> = Vec::new();
    let mut rest = markup;
    while !rest.is_empty() {
        match rest.find('<') {
            Some(0) => {
                let end = rest.find('>').expect("a closed tag");
                let tag = &rest[1..end];
                rest = &rest[end + 1..];
                if let Some(_closing) = tag.strip_prefix('/') {
                    data_depth.pop();
                    continue;
                }
                let name = tag.split([' ', '/']).next().unwrap_or("");
                let is_data = tag.contains(r#"translate="no""#)
                    || tag.split("class=\"").nth(1).is_some_and(|c| {
                        c.split('"').next().unwrap_or("").split(' ').any(|c| c == "alp-data")
                    });
                let inside_data = data_depth.iter().any(|d| *d) || is_data;
                if !inside_data {
                    for attr in ["title=\"", "aria-label=\""] {
                        if let Some(v) = tag.split(attr).nth(1) {
                            out.push(v.split('"').next().unwrap_or("").to_string());
                        }
                    }
                }
                if !tag.ends_with('/') && !VOID.contains(&name) {
                    data_depth.push(is_data);
                }
            }
            Some(i) => {
                let text = &rest[..i];
                rest = &rest[i..];
                let in_option = false;
                if !data_depth.iter().any(|d| *d) && !in_option {
                    out.push(text.to_string());
                }
            }
            None => {
                if !data_depth.iter().any(|d| *d) {
                    out.push(rest.to_string());
                }
                rest = "";
            }
        }
    }
    out
}

/// What is left of a text once the ⟪…⟫ words are cut out. A narrow figure
/// wraps a long sentence over lines: a piece that starts with the end of a
/// wrapped word (its first mark is ⟫) starts inside it.
pub(crate) fn outside_words(text: &str) -> String {
    let mut out = String::new();
    let first_mark = text.chars().find(|c| *c == OPEN || *c == CLOSE);
    let mut depth = i32::from(first_mark == Some(CLOSE));
    for c in text.chars() {
        match c {
            OPEN => depth += 1,
            CLOSE => depth -= 1,
            c if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

/// A hard-coded word: letters left outside ⟪…⟫ (entities like `&amp;` are
/// markup, not words).
pub(crate) fn hard_coded(text: &str) -> Option<String> {
    let left = outside_words(text);
    let left = left
        .replace("&amp;", "")
        .replace("&lt;", "")
        .replace("&gt;", "")
        .replace("&quot;", "")
        .replace("&#39;", "");
    left.chars().any(char::is_alphabetic).then_some(left.trim().to_string())
}

pub(crate) fn check(place: &str, markup: &str, found: &mut Vec<String>) {
    for text in words_in(markup) {
        if let Some(word) = hard_coded(&text) {
            found.push(format!("{place}: {word:?}"));
        }
    }
}
