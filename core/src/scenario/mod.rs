//! Scenario fixtures: parse and validate `fixtures/scenarios/*.json`, and
//! the Rust doubles that replay them.
//!
//! Validation is strict about the fields the runner needs and lenient about
//! what the model says: model replies are passed through untouched, because
//! a fixture may be malformed on purpose to exercise a failure branch.
//! Every problem is reported as `field: problem`; the CLI prefixes the file.
//!
//! # `expect`: what the fixture says must happen
//!
//! A fixture may carry its expected outcome in an `expect` object. The
//! runner never reads it (it is not part of the trace); `tests/scenarios.rs`
//! records every shipped fixture and checks the trace against its own
//! `expect`, so a new scenario is one JSON file plus its golden trace. Here
//! only the shape is validated; whether a label exists is checked by that
//! test (this module sits below `lesson` and does not know the labels).
//! Every key is optional; a program keeps some keys to some of its
//! functions and may ask for more (`Program::expect_only`,
//! `Program::check_expect`: lesson one's `run_loop` expectation needs
//! `status` or `error`). The keys, with lesson one's functions as examples:
//!
//! - `status`: `run_loop`'s final status, one of `answered`, `call_limit`,
//!   `model_stopped`, `protocol_error`, `model_error`. Only for `run_loop`;
//!   not together with `error`.
//! - `error`: the trace error kind when the entry point does not return
//!   normally (`"value_error"` for `max_calls` 0, `"model_error"` when
//!   `ask_claude`'s model throws); the result is then null.
//! - `calls`: the number of model calls (`run_loop`, with `status`): equals
//!   `result.calls` and the number of `loop.ask` steps. At least 1.
//! - `record`: the final record, one `"role:kinds"` string per message; kinds
//!   are the content block types joined with `+`, `str` for string content,
//!   nothing after the colon for an empty list, e.g.
//!   `["user:str", "assistant:tool_use", "user:tool_result", "assistant:text"]`.
//! - `results`: every tool_result in order as `[first content line,
//!   is_error]` pairs: for `run_loop` the tool_result blocks in the record,
//!   for `run_main` the one returned result (so exactly one pair). Not for
//!   `ask_claude`.
//! - `stop_reason`: the `stop_reason` of the response `ask_claude` returns.
//!   Only for `ask_claude`.
//! - `output_lines`: how many output lines the run emitted (0 or more).
//! - `hits`: trace labels (e.g. `loop.save_results`) at least one step must
//!   carry; `misses`: labels no step may carry. A label may not be in both.

use crate::i18n::Lang;
use crate::programs;
use crate::vocab::Function;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::rc::Rc;

mod doubles;
mod expect;
mod fields;
pub mod json_lines;
mod near;
pub use near::near_misses;
mod questions;
mod shipped;
pub use crate::i18n::Phrase;
pub use doubles::{
    bad_outcome, outcome_from_json, scripted_error, ProcessScript, Replies, ScriptedModel, ScriptedProcess,
    SCRIPT_EXHAUSTED,
};
use doubles::{in_languages, replies_in};
use expect::parse_expect;
pub use expect::Expect;
use fields::{in_language, Fields};
pub use fields::{is_id, is_id_char};
pub use fields::{not_json, too_deep, unknown_field, Problem};
use questions::parse_questions;
pub use questions::{questions_of, Question};
pub use shipped::{is_of, language_pack, pack_file, raw_texts, shipped, texts_of};

/// A parsed scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    pub id: String,
    pub function: Function,
    /// `lang -> title`; at least `zh` and `en`.
    pub title: BTreeMap<String, String>,
    /// The question, in the language this scenario was read for (English
    /// unless [`Scenario::localized`]).
    pub question: String,
    /// SYSTEM and the tool description the model reads, in that language
    /// (the program's defaults where the scenario leaves them out).
    pub system: String,
    pub tool_description: String,
    /// The tool definitions the model reads (`tools`, in that language);
    /// `None`: the program's default tools, with `tool_description`.
    pub tools: Option<Value>,
    /// The language the run speaks (English unless localized).
    pub lang: Lang,
    /// The call budget (`max_calls`, 4 unless given).
    pub max_calls: i64,
    /// What the model answers and how the process ends: the doubles of
    /// the two things every run is handed.
    pub model: Replies,
    pub process: ProcessScript,
    /// The fields of its program's own (`Program::fields`: `call`,
    /// `timeout_s`, `tool_results` …), each as given or its default.
    pub own: Map<String, Value>,
    /// What the fixture says must happen; `None` without an `expect` field.
    pub expect: Option<Expect>,
    /// What the learner is asked to predict, in order (`questions`).
    pub questions: Vec<Question>,
    /// The untouched JSON, for the JS doubles and the page; shared by the
    /// scenario's copies (a localized copy of a 3 MB file is not a second).
    pub raw: Rc<Value>,
}

impl Scenario {
    /// Parse a fixture. All problems are collected, not just the first.
    pub fn parse(text: &str) -> Result<Scenario, Vec<Problem>> {
        let raw: Value =
            serde_json::from_str(text).map_err(|e| vec![Problem::new("(file)", not_json(&e))])?;
        // Each problem names the line of the file its field is on.
        Scenario::from_value(raw).map_err(|mut problems| {
            json_lines::at_lines(&mut problems, &[("", text)]);
            problems
        })
    }

    pub fn from_value(raw: Value) -> Result<Scenario, Vec<Problem>> {
        let Some(obj) = raw.as_object() else {
            return Err(vec![Problem::word("(file)", "check_object")]);
        };
        let mut f = Fields::new(obj);
        f.only(&known_fields());
        let id = read_id(&mut f);
        let function = read_function(&mut f);
        let title = read_title(&mut f);
        let defaults = programs::defaults(function);
        let text = |v: &Value| in_language(v, "en").ok_or(Phrase::word("check_text"));
        let question = f.or("question", defaults.question.to_string(), text);
        let max_calls = f.or("max_calls", 4, |v| v.as_i64().ok_or(Phrase::word("check_integer")));
        let own = read_own(&mut f, function);
        let system = f.or("system", defaults.system.to_string(), text);
        let tools = read_tools(&mut f, "en");
        let model = read_model(&mut f);
        let process = read_process(&mut f);
        // What this function's program asks of its scenarios.
        let mut problems = std::mem::take(&mut f.problems);
        let mut problem = |field: &str, say: Phrase| problems.push(Problem::new(field, say));
        (programs::of(function).check)(function, obj, &mut problem);
        let expect = obj.get("expect").map(|v| {
            let function = obj.get("function").and_then(Value::as_str).and_then(programs::function);
            parse_expect(v, function, &mut problem)
        });
        let example = programs::example_label(Some(function));
        let questions =
            obj.get("questions").map(|v| parse_questions(v, example, &mut problem)).unwrap_or_default();
        if !problems.is_empty() {
            return Err(problems);
        }
        let raw = Rc::new(raw);
        Ok(Scenario {
            id,
            function,
            title,
            question,
            system,
            tools,
            lang: Lang::english(),
            tool_description: defaults.tool_description.to_string(),
            max_calls,
            // (the file's own list, unless its texts are in several languages)
            model: model.map_or_else(|| Replies::InFile(Rc::clone(&raw)), Replies::from),
            process,
            own,
            expect,
            questions,
            raw,
        })
    }

    /// This scenario as a learner of `lang` meets it: the question, the
    /// model's text blocks (where the fixture gives `{"zh": …, "en": …}`),
    /// SYSTEM and the tool description in that language. `raw` follows, so
    /// the page's JS doubles replay the same words.
    pub fn localized(&self, lang: Lang) -> Scenario {
        self.clone().into_localized(lang)
    }

    /// [`Scenario::localized`], taking the scenario: nothing is copied
    /// that stays as it is (replies without a text in several languages
    /// are the same replies in every language).
    pub fn into_localized(mut self, lang: Lang) -> Scenario {
        let code = lang.code();
        self.lang = lang;
        // (what the scenario leaves out, in the words of its program's defaults)
        let [question, system, tool] = programs::defaults(self.function).words;
        self.question = match self.raw.get("question") {
            Some(v) => in_language(v, code).unwrap_or_else(|| std::mem::take(&mut self.question)),
            None => lang.word(question).to_string(),
        };
        self.system = match self.raw.get("system") {
            Some(v) => in_language(v, code).unwrap_or_else(|| std::mem::take(&mut self.system)),
            None => lang.word(system).to_string(),
        };
        self.tools = self.raw.get("tools").map(|v| tools_in(v, code));
        self.tool_description = lang.word(tool).to_string();
        let replies = self.raw.get("model").and_then(Value::as_array).filter(|r| in_languages(r));
        let model: Option<Vec<Value>> = replies.map(|r| r.iter().map(|r| replies_in(r, code)).collect());
        // (the JSON is copied only when it changes, once: a question in one
        // language and replies without a text in several stay shared)
        let question = self.raw.get("question").is_some_and(|q| q.as_str() != Some(&self.question));
        if model.is_some() || question {
            let kept = std::mem::replace(&mut self.model, Replies::from(Vec::new()));
            let raw = Rc::make_mut(&mut self.raw);
            if question {
                raw["question"] = Value::String(self.question.clone());
            }
            self.model = match model {
                Some(model) => {
                    raw["model"] = Value::Array(model);
                    Replies::InFile(Rc::clone(&self.raw))
                }
                None => match kept {
                    Replies::InFile(_) => Replies::InFile(Rc::clone(&self.raw)),
                    own => own,
                },
            };
        }
        self
    }

    /// What the model reads besides the record: SYSTEM and TOOLS.
    pub fn setup(&self) -> crate::protocol::Setup {
        let tools = match &self.tools {
            Some(tools) => tools.clone(),
            None => (programs::defaults(self.function).tools)(&self.tool_description),
        };
        crate::protocol::Setup { system: self.system.clone(), tools }
    }

    /// Title in `lang`, falling back to English, then the id.
    pub fn title(&self, lang: &str) -> &str {
        self.title.get(lang).or_else(|| self.title.get("en")).map(String::as_str).unwrap_or(&self.id)
    }

    /// Fresh doubles for one recording.
    pub fn doubles(&self) -> (ScriptedModel, ScriptedProcess) {
        (
            ScriptedModel { replies: self.model.clone(), next: 0 },
            ScriptedProcess {
                script: self.process.clone(),
                next: 0,
                exhausted: self.lang.word("double_no_runs"),
            },
        )
    }
}

/// The fields every scenario has.
const SHARED_FIELDS: [&str; 12] = [
    "id",
    "function",
    "title",
    "question",
    "max_calls",
    "model",
    "process",
    "notes",
    "expect",
    "questions",
    "system",
    "tools",
];

/// Every field a fixture may have: the shared ones, then each program's
/// own (`Program::fields`), each once.
pub fn known_fields() -> Vec<&'static str> {
    let mut known = SHARED_FIELDS.to_vec();
    for field in programs::ALL.iter().flat_map(|p| p.fields) {
        if !known.contains(&field.name) {
            known.push(field.name);
        }
    }
    known
}

/// The programs' own fields: every one is read and type-checked (a field
/// another program's function does not use is still checked, then left
/// out); the scenario keeps its program's, each as given or its default.
fn read_own(f: &mut Fields, function: Function) -> Map<String, Value> {
    let mine = programs::of(function).fields;
    let mut read: Vec<&str> = Vec::new();
    // (inserted one by one: a map collected from a list sorts it first,
    // and the standard sort stays out of the module)
    let mut own = Map::new();
    for program in programs::ALL {
        for field in program.fields {
            if read.contains(&field.name) {
                continue;
            }
            read.push(field.name);
            let value = match f.get(field.name) {
                None => serde_json::from_str(field.default).unwrap_or(Value::Null),
                Some(given) => {
                    if let Some(say) = (field.check)(given) {
                        f.problem(field.name, say);
                    }
                    given.clone()
                }
            };
            if mine.iter().any(|m| m.name == field.name) {
                own.insert(field.name.to_string(), value);
            }
        }
    }
    own
}

/// `id`: required, letters, digits, `-` or `_`.
fn read_id(f: &mut Fields) -> String {
    match f.get("id") {
        Some(Value::String(s)) if is_id(s) => s.clone(),
        Some(Value::String(_)) => {
            f.problem("id", Phrase::word("check_id"));
            String::new()
        }
        Some(_) => {
            f.problem("id", Phrase::word("check_string"));
            String::new()
        }
        None => {
            f.problem("id", Phrase::word("check_missing"));
            String::new()
        }
    }
}

/// `function`: required, a function of one of the programs.
fn read_function(f: &mut Fields) -> Function {
    match f.get("function").and_then(Value::as_str) {
        Some(name) => programs::function(name).unwrap_or_else(|| {
            let values = [("name", format!("{name:?}")), ("names", programs::names())];
            f.problem("function", Phrase::with("check_function", &values));
            programs::first_main()
        }),
        None => {
            f.problem("function", Phrase::with("check_function_missing", &[("names", programs::names())]));
            programs::first_main()
        }
    }
}

/// `title`: `{"zh": …, "en": …}`, both non-empty.
fn read_title(f: &mut Fields) -> BTreeMap<String, String> {
    let mut title = BTreeMap::new();
    match f.get("title") {
        Some(Value::Object(map)) => {
            for (lang, text) in map {
                match text.as_str() {
                    Some(t) if !t.trim().is_empty() => {
                        title.insert(lang.clone(), t.to_string());
                    }
                    _ => f.problem(&format!("title.{lang}"), Phrase::word("check_nonempty")),
                }
            }
            for lang in ["zh", "en"] {
                if !map.contains_key(lang) {
                    f.problem(&format!("title.{lang}"), Phrase::word("check_missing"));
                }
            }
        }
        Some(_) => f.problem("title", Phrase::word("check_title")),
        None => f.problem("title", Phrase::word("check_missing")),
    }
    title
}

/// `model`: a list of replies (a reply may be malformed on purpose; an
/// `error` reply names its error).
/// `model`, checked; its replies in English when their texts are in
/// several languages (`None`: as the file has them).
fn read_model(f: &mut Fields) -> Option<Vec<Value>> {
    match f.get("model") {
        None => Some(Vec::new()),
        Some(Value::Array(replies)) => {
            for (i, reply) in replies.iter().enumerate() {
                if let Some(err) = reply.get("error") {
                    if err.as_str().is_none_or(str::is_empty) {
                        f.problem(&format!("model[{i}].error"), Phrase::word("check_error_name"));
                    }
                }
            }
            in_languages(replies).then(|| replies.iter().map(|r| replies_in(r, "en")).collect())
        }
        Some(_) => {
            f.problem("model", Phrase::word("check_replies"));
            Some(Vec::new())
        }
    }
}

/// `tools`: a list of tool definitions, a description in one language
/// or as `{"zh": …, "en": …}`.
fn read_tools(f: &mut Fields, code: &str) -> Option<Value> {
    let tools = f.get("tools")?.clone();
    if !tools.is_array() {
        f.problem("tools", Phrase::word("check_tools"));
    }
    Some(tools_in(&tools, code))
}

/// Tool definitions with their descriptions in one language.
fn tools_in(tools: &Value, code: &str) -> Value {
    let mut tools = tools.clone();
    for tool in tools.as_array_mut().into_iter().flatten() {
        if tool["description"].is_object() {
            if let Some(text) = in_language(&tool["description"], code) {
                tool["description"] = Value::String(text);
            }
        }
    }
    tools
}

/// `process`: one outcome for every run, or a list of them in run order.
fn read_process(f: &mut Fields) -> ProcessScript {
    match f.get("process") {
        None => ProcessScript::Each(Vec::new()),
        Some(Value::Array(runs)) => {
            for (i, run) in runs.iter().enumerate() {
                if let Err((field, say)) = outcome_from_json(run) {
                    f.problem(&format!("process[{i}]{field}"), say);
                }
            }
            ProcessScript::Each(runs.clone())
        }
        Some(run) => {
            if let Err((field, say)) = outcome_from_json(run) {
                f.problem(&format!("process{field}"), say);
            }
            ProcessScript::Always(run.clone())
        }
    }
}

/// The pack a shipped file's text is still waiting for (`None`: it is here).
pub fn waiting_for(file: &str) -> Option<&'static str> {
    shipped::in_packs().iter().find(|w| w.0 == file).map(|w| w.1).filter(|pack| !crate::pack::has(pack))
}

/// Parse every shipped fixture; bad ones come back as problems, the rest
/// still load. A fixture whose text is in a pack that has not arrived is
/// [`Scenario::waiting`]: what the picker lists of it.
pub fn load_shipped() -> Vec<(String, Result<Scenario, Vec<Problem>>)> {
    let mut all: Vec<_> =
        shipped().iter().map(|(name, text)| (name.to_string(), Scenario::parse(text))).collect();
    for &(file, pack, id, function, title) in shipped::in_packs() {
        let parsed = match crate::pack::text(&format!("{pack}/scenarios/{file}")) {
            Some(text) => Scenario::parse(text),
            None => Scenario::waiting(id, function, title),
        };
        all.push((file.to_string(), parsed));
    }
    crate::vocab::sort_small_by(&mut all, |a, b| a.0 > b.0);
    all
}

impl Scenario {
    /// What the picker lists of a shipped scenario whose text is in a pack
    /// not here yet: its id, function and title, nothing to run. It is
    /// never shown: its program is not loaded, so the session asks for the
    /// pack first (`crate::pack::needed`) and reads the scenario from it.
    pub fn waiting(id: &str, function: &str, title: &str) -> Result<Scenario, Vec<Problem>> {
        let Some(function) = programs::function(function) else {
            let values = [("name", format!("{function:?}")), ("names", programs::names())];
            return Err(vec![Problem::new("function", Phrase::with("check_function", &values))]);
        };
        Ok(Scenario {
            id: id.to_string(),
            function,
            title: serde_json::from_str(title).unwrap_or_default(),
            question: programs::defaults(function).question.to_string(),
            system: String::new(),
            tool_description: String::new(),
            tools: None,
            lang: Lang::english(),
            max_calls: 0,
            model: Vec::new().into(),
            process: ProcessScript::Each(Vec::new()),
            own: Map::new(),
            expect: None,
            questions: Vec::new(),
            raw: Rc::new(Value::Null),
        })
    }

    /// Whether this is [`Scenario::waiting`]'s: listed, not yet read.
    pub fn is_waiting(&self) -> bool {
        self.raw.is_null()
    }
}
