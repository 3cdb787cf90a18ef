//! What a teaching program is: the [`Program`] value, what a scenario hands
//! its entry point ([`Inputs`]) and what the entry point came to ([`Ran`]).

use crate::i18n::{Lang, Phrase};
use crate::pack::Text;
use crate::protocol::{Model, Process, Setup, TraceError};
use crate::vocab::Function;
use serde_json::{Map, Value};

/// One teaching program.
pub struct Program {
    /// Its name (`lesson_one`).
    pub name: &'static str,
    /// Its functions, in the order a picker lists them.
    pub functions: &'static [Function],
    /// The pack its texts come in when they are not compiled in (the
    /// page's module has lesson one's only: `crate::pack`), or none.
    pub pack: Option<&'static str>,
    /// The Rust file the functions are in, as compiled (`include_str!`):
    /// the Rust listing is cut from it, and a snapshot's raw `line!()` is a
    /// line of it.
    pub rust: Text,
    /// The Python listing in each language it is written in, the default
    /// first: the same functions, each line marked with the labels it
    /// stands for (`#| loop.ask`). Every language's listing has the same
    /// lines and marks; only its words differ (tests/python.rs).
    pub python: &'static [InLanguage],
    /// The setup templates its `setup` fills, by language (the default
    /// first).
    pub templates: &'static [InLanguage],
    /// The first words of its labels and caption stages (`core` of
    /// `core.ask`), its own: the captions under them travel in its pack.
    pub namespaces: &'static [&'static str],
    /// The teaching setup and the entry call of `function` as Python text,
    /// filled in for one scenario and in its language: what the setup
    /// panel shows and what CPython runs after the listing.
    pub setup: fn(function: Function, inputs: &Inputs, script: &Script) -> String,
    /// What that entry prints once `function` returned (`Ok`: its result)
    /// or raised (`Err`: what Python says of the exception, the last line
    /// of its traceback), line by line, in `lang`.
    pub prints: fn(function: Function, returned: Result<&Value, &TraceError>, lang: Lang) -> Vec<String>,
    /// The caption stage of a step of `function` with this label (`call`
    /// and `return` for a frame's ends).
    pub stage: fn(function: Function, label: &str) -> &'static str,
    /// The part of the figure a caption stage is about, drawn marked
    /// beside its caption (the way a lesson draws its stage boxes).
    pub part: fn(stage: &str) -> Part,
    /// Run the entry point `function` on `inputs` under the recorder
    /// (the caller has started the recording).
    pub run: fn(function: Function, inputs: &Inputs, model: &mut dyn Model, process: &mut dyn Process) -> Ran,
    /// What a scenario of `function` must hold beyond the fields every
    /// scenario shares: each problem by field.
    pub check: fn(function: Function, scenario: &Map<String, Value>, problem: Problems),
    /// Labels worth pinning in a scenario's `expect.hits` when a run
    /// reaches them (and in `misses` when a run that errs does not).
    pub milestones: &'static [&'static str],
    /// The lesson's own scenarios, in the lesson's order: the picker lists
    /// them first.
    pub scenarios: &'static [&'static str],
    /// The scenarios a playground opens with when none is asked for, the
    /// first that fits first.
    pub opens: &'static [&'static str],
    /// Entry points that run on the same inputs, to be laid beside one
    /// another on a scenario's replies (the lesson's loop and the loops
    /// it warns about); each has a word `beside_<name>` saying what it
    /// does. Empty: nothing to run beside.
    pub beside: &'static [Function],
    /// Functions that run only inside another (`execute_tool`): never a
    /// scenario's entry, never the `function` attribute.
    pub nested: &'static [Function],
    /// Its whole run (`run_loop`): of the first program, what a scenario
    /// whose `function` is broken and a trace of nothing are taken to run.
    pub main: Function,
    /// What its scenarios read where they leave out a field every scenario
    /// may give (the question, SYSTEM, the tools); none: the first
    /// program's (`crate::programs::defaults`).
    pub defaults: Option<&'static Defaults>,
    /// Its own fields of a scenario beyond those every scenario has
    /// (`call`, `timeout_s`): every scenario's are read and type-checked,
    /// a scenario of this program keeps these (`Scenario::own`).
    pub fields: &'static [Field],
    /// The `expect` keys only some of its functions' runs can meet, each
    /// with those functions (`status`: a loop that ends with one). A key
    /// some program lists here is refused for a function none lists it for.
    pub expect_only: &'static [(&'static str, &'static [Function])],
    /// The name its listings give the record (the `messages` a snapshot is
    /// handed): the locals panel shows the record under it.
    pub record: &'static str,
    /// What a scenario's `expect` (an object) must hold for `function`
    /// beyond its shape (a loop's `status` or `error`): each problem by field
    /// ([`no_more`]: nothing).
    pub check_expect: fn(function: Function, expect: &Map<String, Value>, problem: Problems),
    /// The labels of the line that sends the model a request, one step per
    /// request: a run's calls when its result does not count them; the
    /// first is the example of a label in `check`'s words.
    pub asks: &'static [&'static str],
    /// The functions asked how their run ends, each with the endings worth
    /// weighing (its common statuses: the answer is added when rarer).
    pub endings: &'static [(Function, &'static [&'static str])],
    /// The fields of a scenario of `function` the what-if editors offer,
    /// in order (`model`, `process`, or one of its own fields), each with
    /// the word that names its editor.
    pub edits: fn(function: Function) -> &'static [(&'static str, &'static str)],
    /// What the figure draws of its runs beyond the record and the status.
    pub figure: &'static Figure,
}

/// What a scenario reads where it leaves out a field every scenario may
/// give: English here (a scenario is read in English first), the words of
/// `words` in another language.
pub struct Defaults {
    /// The user's question.
    pub question: &'static str,
    /// SYSTEM.
    pub system: &'static str,
    /// The description of the one tool the model may ask for.
    pub tool_description: &'static str,
    /// The words of the question, SYSTEM and the tool's description in the
    /// language tables.
    pub words: [&'static str; 3],
    /// The tools the model reads: the one tool, with this description.
    pub tools: fn(description: &str) -> Value,
    /// Whether the one tool takes this call (a call it refuses is a near
    /// miss `check` warns about).
    pub accepts: fn(call: &Value) -> bool,
}

impl Defaults {
    /// Nothing: no question, no SYSTEM, no tools.
    pub const NONE: Defaults = Defaults {
        question: "",
        system: "",
        tool_description: "",
        words: ["", "", ""],
        tools: no_tools,
        accepts: any_call,
    };
}

fn no_tools(_: &str) -> Value {
    Value::Array(Vec::new())
}

fn any_call(_: &Value) -> bool {
    true
}

/// Nothing more to check.
pub fn no_more(_: Function, _: &Map<String, Value>, _: Problems) {}

/// Any value will do.
pub fn any_value(_: &Value) -> Option<Phrase> {
    None
}

/// A field of a program's own in its scenarios.
pub struct Field {
    pub name: &'static str,
    /// Its value where a scenario leaves it out, as JSON.
    pub default: &'static str,
    /// What is wrong with a value given, if anything.
    pub check: fn(given: &Value) -> Option<Phrase>,
}

/// What the figure draws of a program's runs beyond the record and the
/// status ([`Figure::NONE`]: nothing more).
pub struct Figure {
    /// Functions with a call budget: the status strip shows it, with the
    /// call number of their `number` local.
    pub budget: &'static [Function],
    /// Functions whose `results` local holds tool results not saved yet,
    /// drawn below the record.
    pub staged: &'static [Function],
    /// Whether those results are found by what they hold, not by name:
    /// any local of a `staged` function that is a non-empty list of
    /// `tool_result` blocks not yet in the record (a recorded program's
    /// names are its author's).
    pub staged_by_kind: bool,
    /// Labels where a new request starts: the stop_reason shown before is
    /// forgotten.
    pub fresh: &'static [&'static str],
    /// The function that asks the model, drawn in flight as its request;
    /// its return's `stop_reason` is the latest.
    pub asks: Option<Asks>,
    /// The function that runs one tool call, drawn in flight as a tool run.
    pub tool: Option<ToolRun>,
}

impl Figure {
    /// Nothing beyond the record and the status.
    pub const NONE: Figure =
        Figure { budget: &[], staged: &[], staged_by_kind: false, fresh: &[], asks: None, tool: None };
}

/// A function that asks the model, and what its request always holds.
pub struct Asks {
    pub function: Function,
    /// The tools it sends, as the figure writes them (`[run_main]`).
    pub tools: &'static str,
    pub max_tokens: u32,
}

/// A function that runs one tool call, drawn as four boxes: call,
/// validate, process, result.
pub struct ToolRun {
    pub function: Function,
    /// Where a caption stage of it stands.
    pub pipe: fn(stage: &str) -> Pipe,
    /// The labels where the output's cap is drawn (its length before →
    /// after), the label whose `output` local is the output before it, and
    /// the cap in characters.
    pub capped: &'static [&'static str],
    pub cap_at: &'static str,
    pub limit: usize,
}

/// Where a tool run stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pipe {
    Call,
    Validate,
    /// Validated and refused: the process is skipped.
    Refused,
    Process,
    Result,
}

/// A part of the figure a stage can be about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// Nothing in particular (a frame's ends, a process's own stages).
    None,
    /// The call budget.
    Calls,
    /// The latest stop_reason and the checks on the reply.
    Reason,
    /// How the run ends.
    Status,
    /// The request or reply in flight.
    Flight,
    /// The tool results waiting to be saved.
    Staged,
    /// The message record itself.
    Record,
}

/// A text in one language: the language's code and the text.
pub type InLanguage = (&'static str, Text);

impl Program {
    /// The Python listing written in `lang` (a language code), or the
    /// default one.
    pub fn python_in(&self, lang: &str) -> &'static str {
        in_language(self.python, lang)
    }

    /// Every text of the program: what its pack holds.
    pub fn texts(&self) -> Vec<Text> {
        let each = self.python.iter().chain(self.templates).map(|(_, text)| *text);
        std::iter::once(self.rust).chain(each).collect()
    }

    /// Whether a caption key (`core.ask`, `tool.run.bad_request`) is one
    /// of its own.
    pub fn owns_caption(&self, key: &str) -> bool {
        self.namespaces.contains(&key.split('.').next().unwrap_or(""))
    }

    /// Whether its texts are here (compiled in, or its pack arrived): a
    /// program that is not is never shown (`crate::pack`).
    pub fn loaded(&self) -> bool {
        self.pack.is_none_or(crate::pack::has)
    }
}

/// The text written in `lang` (a code), or the default (first) one.
pub fn in_language(texts: &[InLanguage], lang: &str) -> &'static str {
    let found = texts.iter().find(|(code, _)| *code == lang);
    found.or(texts.first()).map_or("", |(_, text)| text.get())
}

/// A scenario's doubles as the setup shows them: the model's replies in
/// order and the process outcome (one object for every run, or a list).
pub struct Script<'a> {
    pub replies: &'a [Value],
    pub process: &'a Value,
}

/// Where a check says a problem: the field, and what is wrong with it.
pub type Problems<'a> = &'a mut dyn FnMut(&str, Phrase);

/// What a scenario gives an entry point.
pub struct Inputs<'a> {
    pub question: &'a str,
    /// SYSTEM and the tools, in the scenario's language.
    pub setup: &'a Setup,
    pub max_calls: i64,
    /// The scenario's fields of the program's own ([`Program::fields`]),
    /// each as given or its default.
    pub own: &'a Map<String, Value>,
    /// The language the run speaks: its sentences ([`crate::protocol::Said`])
    /// in the words of that language's listing.
    pub lang: Lang,
}

impl Inputs<'_> {
    /// One of the program's own fields (null when there is none).
    pub fn field(&self, name: &str) -> &Value {
        self.own.get(name).unwrap_or(&Value::Null)
    }
}

/// What an entry point came to.
pub struct Ran {
    /// Its return value (a loop's without the messages: those are `record`).
    pub result: Value,
    pub error: Option<TraceError>,
    /// The message record.
    pub record: Vec<Value>,
    /// Whether the return value holds the record (`messages`), kept once.
    pub returns_record: bool,
    /// The call budget the run had (0 when it has none).
    pub max_calls: i64,
    /// What the run printed after its entry returned, when the program
    /// knows it already (a recorded run: what CPython printed); `None`:
    /// its `prints` says.
    pub printed: Option<Vec<String>>,
}
