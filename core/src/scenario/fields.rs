//! Reading a scenario's fields: the small rules every part of the format
//! shares (an id, a text in one or more languages, a string with a
//! default). The leaf of `scenario`: its other files use it.

use serde_json::{Map, Value};

/// An id a scenario, a question or a tool call may have: 1–64 letters,
/// digits, `-` and `_`.
pub fn is_id(s: &str) -> bool {
    !s.is_empty() && s.len() <= 64 && s.chars().all(is_id_char)
}

/// A character an id may hold.
pub fn is_id_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-' || c == '_'
}

/// A text given as a string, or as `{"zh": …, "en": …}` (English when the
/// language is missing); `None` for anything else.
pub fn in_language(v: &Value, code: &str) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Object(map) => {
            let all_strings = !map.is_empty() && map.values().all(Value::is_string);
            let pick = map.get(code).or_else(|| map.get("en"))?;
            all_strings.then(|| pick.as_str().map(str::to_string)).flatten()
        }
        _ => None,
    }
}

/// A string field, or `default` when it is absent; another type is a
/// problem.
pub fn string_field(
    obj: &Map<String, Value>,
    key: &str,
    default: &str,
    problem: &mut impl FnMut(&str, String),
) -> String {
    match obj.get(key) {
        None => default.to_string(),
        Some(Value::String(s)) => s.clone(),
        Some(_) => {
            problem(key, "must be a string".into());
            default.to_string()
        }
    }
}
