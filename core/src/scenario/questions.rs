//! `questions`: what a learner is asked to predict before a step.
//!
//! ```json
//! "questions": [{
//!   "at": "loop.save_response",
//!   "text": {"zh": "…", "en": "What will the record hold after this line?"},
//!   "choices": [{"zh": "…", "en": "2 messages"}, {"zh": "…", "en": "3 messages"}],
//!   "answer": 1,
//!   "explain": {"zh": "…", "en": "…"}
//! }]
//! ```
//!
//! `at` is a trace label; the question is asked before the run reaches its
//! `occurrence`-th step with that label (the first by default). Whether the
//! label is ever reached is checked against a recording, one layer up
//! (`crate::predict`): this parser only knows the shape.

use super::fields::{in_language, label_expected, unknown_field, Problem};
use crate::i18n::Phrase;
use serde_json::{Map, Value};

/// One authored question, its texts still in every language given.
#[derive(Clone, Debug, PartialEq)]
pub struct Question {
    pub at: String,
    /// 1-based: which time the run reaches `at`.
    pub occurrence: usize,
    pub text: Value,
    pub choices: Vec<Value>,
    /// Index into `choices`.
    pub answer: usize,
    pub explain: Value,
}

impl Question {
    /// The question, its choices and the explanation in `lang` (English when
    /// a language is missing).
    pub fn texts(&self, lang: &str) -> (String, Vec<String>, String) {
        let say = |v: &Value| in_language(v, lang).unwrap_or_default();
        (say(&self.text), self.choices.iter().map(say).collect(), say(&self.explain))
    }
}

const KNOWN: [&str; 6] = ["at", "occurrence", "text", "choices", "answer", "explain"];

/// Read the `questions` list; every problem is reported with its path
/// (`questions[1].answer`).
/// `example` is a label of the scenario's program, for the words of a
/// problem (`must be a label, e.g. "…"`).
pub(super) fn parse_questions(
    v: &Value,
    example: &str,
    problem: &mut dyn FnMut(&str, Phrase),
) -> Vec<Question> {
    let Some(list) = v.as_array() else {
        problem("questions", Phrase::word("check_questions"));
        return Vec::new();
    };
    let each = |(i, q): (usize, &Value)| parse_one(q, &format!("questions[{i}]"), example, problem);
    list.iter().enumerate().filter_map(each).collect()
}

fn parse_one(
    v: &Value,
    path: &str,
    example: &str,
    problem: &mut dyn FnMut(&str, Phrase),
) -> Option<Question> {
    let Some(obj) = v.as_object() else {
        problem(path, Phrase::word("check_question"));
        return None;
    };
    for key in obj.keys().filter(|k| !KNOWN.contains(&k.as_str())) {
        problem(&format!("{path}.{key}"), unknown_field(&KNOWN));
    }
    let at = match obj.get("at") {
        Some(Value::String(s)) if !s.trim().is_empty() => s.trim().to_string(),
        _ => {
            problem(&format!("{path}.at"), label_expected(example));
            String::new()
        }
    };
    let occurrence = match obj.get("occurrence") {
        None => 1,
        Some(n) => match n.as_u64() {
            Some(n @ 1..=10_000) => n as usize,
            _ => {
                problem(&format!("{path}.occurrence"), Phrase::word("check_occurrence"));
                1
            }
        },
    };
    let text = words(obj, "text", path, problem);
    let explain = words(obj, "explain", path, problem);
    let choices: Vec<Value> = match obj.get("choices") {
        Some(Value::Array(list)) if (2..=6).contains(&list.len()) => list.clone(),
        _ => {
            problem(&format!("{path}.choices"), Phrase::word("check_choices"));
            Vec::new()
        }
    };
    for (k, c) in choices.iter().enumerate() {
        if in_language(c, "en").is_none_or(|t| t.trim().is_empty()) {
            problem(&format!("{path}.choices[{k}]"), Phrase::word("check_text"));
        }
    }
    let answer = match obj.get("answer").and_then(Value::as_u64) {
        Some(n) if (n as usize) < choices.len() || choices.is_empty() => n as usize,
        Some(n) => {
            let values = [("n", n.to_string()), ("last", (choices.len() - 1).to_string())];
            problem(&format!("{path}.answer"), Phrase::with("check_answer_range", &values));
            0
        }
        None => {
            problem(&format!("{path}.answer"), Phrase::word("check_answer"));
            0
        }
    };
    Some(Question { at, occurrence, text, choices, answer, explain })
}

/// An author's `questions` read on their own (a recorded program's, from
/// its pack or its manifest): the questions, or every problem by field
/// (`questions[1].answer`); `example` is a label for the problems' words.
pub fn questions_of(v: &Value, example: &str) -> Result<Vec<Question>, Vec<Problem>> {
    let mut problems = Vec::new();
    let questions =
        parse_questions(v, example, &mut |field: &str, say| problems.push(Problem::new(field, say)));
    if problems.is_empty() {
        Ok(questions)
    } else {
        Err(problems)
    }
}

/// A text in every language: a string, or `{"zh": …, "en": …}`.
fn words(obj: &Map<String, Value>, key: &str, path: &str, problem: &mut dyn FnMut(&str, Phrase)) -> Value {
    match obj.get(key) {
        Some(v) if in_language(v, "en").is_some_and(|t| !t.trim().is_empty()) => v.clone(),
        _ => {
            problem(&format!("{path}.{key}"), Phrase::word("check_text"));
            Value::Null
        }
    }
}
