//! Reading a scenario's fields: the one finding type ([`Problem`]), the one
//! field reader ([`Fields`]) and the small rules every part of the format
//! shares (an id, a text in one or more languages). The leaf of
//! `scenario`: its other files use it.

use serde_json::{Map, Value};

/// The one finding type: a place (a field, `model[1].stop_reason`, or a
/// place in an imported conversation) and what is wrong there. Said as
/// `place: message`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub field: String,
    pub message: String,
}

impl Problem {
    /// A problem at a place: a field (`model[1].stop_reason`), or a place
    /// in an imported conversation (`messages[3].content[1]`).
    pub fn at(place: impl Into<String>, message: impl Into<String>) -> Problem {
        Problem { field: place.into(), message: message.into() }
    }
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

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

/// The one field reader: each field of an object read once, with its
/// default when it is absent, and every problem kept by field (the object
/// is read to the end, so all of them are said at once).
pub struct Fields<'a> {
    pub obj: &'a Map<String, Value>,
    pub problems: Vec<Problem>,
}

impl<'a> Fields<'a> {
    pub fn new(obj: &'a Map<String, Value>) -> Fields<'a> {
        Fields { obj, problems: Vec::new() }
    }

    pub fn get(&self, key: &str) -> Option<&'a Value> {
        self.obj.get(key)
    }

    /// Say a problem of a field.
    pub fn problem(&mut self, field: &str, message: impl Into<String>) {
        self.problems.push(Problem::at(field, message));
    }

    /// Every key must be one of `known`.
    pub fn only(&mut self, known: &[&str]) {
        for key in self.obj.keys() {
            if !known.contains(&key.as_str()) {
                self.problem(key, format!("unknown field (known: {})", known.join(", ")));
            }
        }
    }

    /// A field read by `read` (which says what is wrong with it), or
    /// `default` when absent or wrong.
    pub fn or<T>(&mut self, key: &str, default: T, read: impl FnOnce(&'a Value) -> Result<T, String>) -> T {
        match self.obj.get(key).map(read) {
            None => default,
            Some(Ok(value)) => value,
            Some(Err(message)) => {
                self.problem(key, message);
                default
            }
        }
    }

    /// A string field, or `default`.
    pub fn string(&mut self, key: &str, default: &str) -> String {
        self.or(key, default.to_string(), |v| v.as_str().map(str::to_string).ok_or("must be a string".into()))
    }
}
