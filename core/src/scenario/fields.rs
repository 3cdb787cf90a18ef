//! Reading a scenario's fields: the one finding type ([`Problem`]), the one
//! field reader ([`Fields`]) and the small rules every part of the format
//! shares (an id, a text in one or more languages). The leaf of
//! `scenario`: its other files use it.

use crate::i18n::{Lang, Phrase};
use serde_json::{Map, Value};

/// The one finding type: a place (a field, `model[1].stop_reason`, or a
/// place in an imported conversation), what is wrong there, and the line
/// of the text it was read from, where that is known. Said as `place:
/// message` (in English by `Display`, as `check` says it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub field: String,
    pub say: Phrase,
    pub line: Option<usize>,
}

impl Problem {
    /// A problem at a place: a field (`model[1].stop_reason`), or a place
    /// in an imported conversation (`messages[3].content[1]`).
    pub fn new(place: impl Into<String>, say: Phrase) -> Problem {
        Problem { field: place.into(), say, line: None }
    }

    /// A problem said by a word with nothing to fill in.
    pub fn word(place: impl Into<String>, key: &'static str) -> Problem {
        Problem::new(place, Phrase::word(key))
    }

    /// What is wrong, in `lang`'s words (without the place).
    pub fn message(&self, lang: Lang) -> String {
        self.say.text(lang)
    }

    /// `line N, field: message`, in `lang`'s words.
    pub fn text(&self, lang: Lang) -> String {
        // (the file or the edit as a whole is said in the reader's words)
        let field = match self.field.as_str() {
            "(file)" => lang.word("place_file").to_string(),
            "(edit)" => lang.word("place_edit").to_string(),
            field => field.to_string(),
        };
        let said = [("field", field), ("why", self.message(lang))];
        // (a message that says its own line, as the parser's does, is not given it twice)
        let own_line = self.say.values.iter().any(|(key, _)| *key == "line");
        match self.line.filter(|_| !own_line) {
            Some(n) => lang.fill("problem_at", &[said[0].clone(), said[1].clone(), ("line", n.to_string())]),
            None => lang.fill("problem", &said),
        }
    }
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.field, self.message(Lang::english()))
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
pub(super) fn in_language(v: &Value, code: &str) -> Option<String> {
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
pub(super) struct Fields<'a> {
    pub obj: &'a Map<String, Value>,
    pub problems: Vec<Problem>,
}

impl<'a> Fields<'a> {
    pub(super) fn new(obj: &'a Map<String, Value>) -> Fields<'a> {
        Fields { obj, problems: Vec::new() }
    }

    pub(super) fn get(&self, key: &str) -> Option<&'a Value> {
        self.obj.get(key)
    }

    /// Say a problem of a field.
    pub(super) fn problem(&mut self, field: &str, say: Phrase) {
        self.problems.push(Problem::new(field, say));
    }

    /// Every key must be one of `known`.
    pub(super) fn only(&mut self, known: &[&str]) {
        for key in self.obj.keys() {
            if !known.contains(&key.as_str()) {
                self.problem(key, unknown_field(known));
            }
        }
    }

    /// A field read by `read` (which says what is wrong with it), or
    /// `default` when absent or wrong.
    pub(super) fn or<T>(
        &mut self,
        key: &str,
        default: T,
        read: impl FnOnce(&'a Value) -> Result<T, Phrase>,
    ) -> T {
        match self.obj.get(key).map(read) {
            None => default,
            Some(Ok(value)) => value,
            Some(Err(say)) => {
                self.problem(key, say);
                default
            }
        }
    }
}

/// A field none of `known` names.
pub fn unknown_field(known: &[&str]) -> Phrase {
    Phrase::with("check_unknown_field", &[("names", known.join(", "))])
}

/// `must be a label, e.g. "loop.ask"`.
pub(super) fn label_expected(example: &str) -> Phrase {
    Phrase::with("check_label", &[("example", example.to_string())])
}

/// Text that is not JSON, said in the reader's words with its line and
/// column (the parser's own English is not shown); JSON nested deeper
/// than the reader goes is said to be that, not to be no JSON.
pub fn not_json(e: &serde_json::Error) -> Phrase {
    let key = match () {
        () if e.is_eof() => "check_json_eof",
        () if too_deep(e) => "check_json_too_deep",
        () => "check_json_syntax",
    };
    Phrase::with(key, &[("line", e.line().to_string()), ("column", e.column().to_string())])
}

/// Whether `e` is serde_json's recursion limit: valid JSON nested deeper
/// than 127 levels of lists and objects, which it does not read.
pub fn too_deep(e: &serde_json::Error) -> bool {
    e.is_syntax() && e.to_string().starts_with("recursion limit exceeded")
}
