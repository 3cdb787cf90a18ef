//! How a playground starts: the element's attributes as given ([`Options`],
//! strings), read once into typed values ([`Settings`]). A value that is not
//! understood becomes a [`Notice`] and its default is used: the playground
//! still starts.

use super::amount::parse_amount;
use super::notice::{Notice, Unreadable};
use super::scope::Scope;
use crate::debugger::Command;
use crate::i18n::Lang;
use crate::programs;
use crate::trace::Limits;
use crate::vocab::Code;

/// How the page presents a playground.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Presentation {
    /// The control buttons to show, in order.
    pub controls: Vec<Command>,
    /// The heading level of the panel titles, if they are headings.
    pub heading_level: Option<u8>,
    /// Whether the tracing lines of the Rust listing show.
    pub reveal: bool,
}

/// A listing file as the element fetched it: its name, the language it is
/// for (none: any), and its text or why it could not be read.
pub type ListingFile = (String, Option<String>, Result<String, Unreadable>);

/// How a playground starts; every field may be empty.
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub function: String,
    /// The program whose scenarios are offered (`lesson_two`); empty: all.
    pub program: String,
    /// Another loop of the program to run beside the scenario's own from
    /// the start (`stop_on_text`); empty: none.
    pub compare: String,
    pub scenario: String,
    pub lang: String,
    /// Labels, numbers or `function:line`, separated by commas or spaces.
    pub breakpoints: String,
    /// How long one recording may run: seconds (`2`, `0.5s`) or `500ms`.
    pub time_budget: String,
    /// How much trace one recording may hold: megabytes (`256`, `64MB`).
    pub memory_budget: String,
    /// The clock for the time budget (milliseconds); none: no time budget.
    pub clock: Option<fn() -> f64>,
    /// The listing shown: `python` (the default) or `rust`.
    pub listing: String,
    /// The control buttons, by command name (`debug,step,continue`); empty: all.
    pub controls: String,
    /// `1`–`6`: the panel titles are headings of that level; empty: they are
    /// not headings (an embedded playground adds nothing to the host's outline).
    pub heading_level: String,
    /// `light`, `dark` or `auto` (drawn by the stylesheet; checked here).
    pub theme: String,
    /// Scenario files fetched by the element (`src=`): each file's name and
    /// its text, or why it could not be read (`status`, `origin`, `size`,
    /// `url` or `network`) with a detail.
    pub files: Vec<(String, Result<String, Unreadable>)>,
    /// An author's own Python listings the element fetched
    /// (`listing-src`, `listing-src-zh`, `listing-src-en`): file, the
    /// language it is for (none: any), text or why not.
    pub listings: Vec<ListingFile>,
    /// A recorded program's pack the element fetched (`program-src`): its
    /// name and its text, or why it could not be read.
    pub program_src: Option<(String, Result<String, Unreadable>)>,
    /// Ask before the lines that carry a question (the `predict` attribute).
    pub predict: bool,
    /// Where to start: a step number or a label (`loop.save_results`).
    pub step: String,
    /// Why the element started this playground again (an error in the page
    /// killed the one before): said in a notice. Empty: a first start.
    pub restarted: String,
    /// The file of a program's pack the element is waiting for, built
    /// meanwhile without what needs it: said in a notice. Empty: none.
    pub waiting: String,
    /// Long `src=` files being recorded meanwhile (in the page's worker),
    /// their names between spaces: each said in a notice until it is added.
    pub recording: String,
}

/// The options as typed values, and what was wrong with them.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The function or program this playground shows, if the author chose.
    pub scope: Scope,
    /// The scenario asked for, if any.
    pub scenario: Option<String>,
    pub lang: Lang,
    pub code: Code,
    pub controls: Vec<Command>,
    pub heading_level: Option<u8>,
    pub limits: Limits,
    pub predict: bool,
    /// Said in the order the attributes were read.
    pub notices: Vec<Notice>,
}

impl Settings {
    /// Read every option once.
    pub fn read(options: &Options) -> Settings {
        let mut notices = Vec::new();
        let mut notice = |key: &'static str, value: &str| {
            notices.push(Notice { key, values: vec![("value", value.trim().to_string())] })
        };
        let mut limits = match options.clock {
            Some(clock) => Limits::budgets(clock),
            None => crate::run::offline_limits(),
        };
        let time = options.time_budget.trim();
        if !time.is_empty() {
            match parse_amount(time, &[("ms", 1.0), ("s", 1000.0)], 1000.0) {
                Some(ms) => limits.millis = Some(ms),
                None => notice("notice_time_budget", time),
            }
        }
        let memory = options.memory_budget.trim();
        if !memory.is_empty() {
            match parse_amount(memory, &[("mb", 1048576.0)], 1048576.0) {
                Some(bytes) => limits.bytes = Some(bytes as usize),
                None => notice("notice_memory_budget", memory),
            }
        }
        let code = Code::from_name(&options.listing).unwrap_or(Code::Python);
        if Code::from_name(&options.listing).is_none() && !options.listing.trim().is_empty() {
            notice("notice_listing", &options.listing);
        }
        let names: Vec<&str> = options.controls.split([',', ' ']).filter(|n| !n.is_empty()).collect();
        let known: Vec<Command> = names.iter().filter_map(|n| Command::from_name(n)).collect();
        let controls = if known.is_empty() { Command::ALL.to_vec() } else { known };
        let unknown: Vec<&str> = names.into_iter().filter(|n| Command::from_name(n).is_none()).collect();
        if !unknown.is_empty() {
            notice("notice_controls", &unknown.join(", "));
        }
        let level = options.heading_level.trim();
        let heading_level = match level.parse::<u8>() {
            Ok(n @ 1..=6) => Some(n),
            _ if level.is_empty() => None,
            _ => {
                notice("notice_heading_level", level);
                None
            }
        };
        if !matches!(options.theme.trim(), "" | "auto" | "light" | "dark") {
            notice("notice_theme", &options.theme);
        }
        let lang_given = options.lang.trim();
        let lang = Lang::parse(lang_given).unwrap_or_else(Lang::default_lang);
        if !lang_given.is_empty() && Lang::parse(lang_given).is_none() {
            notice("notice_lang", lang_given);
        }
        if !options.restarted.trim().is_empty() {
            let detail = options.restarted.trim().chars().take(500).collect();
            notices.push(Notice { key: "notice_restarted", values: vec![("detail", detail)] });
        }
        if !options.waiting.trim().is_empty() {
            notices.push(super::notice::pack_waiting(options.waiting.trim()));
        }
        notices.extend(options.recording.split_whitespace().map(super::notice::recording));
        let scope = read_scope(options, &mut notices);
        let scenario = Some(options.scenario.trim()).filter(|s| !s.is_empty()).map(str::to_string);
        Settings {
            scope,
            scenario,
            lang,
            code,
            controls,
            heading_level,
            limits,
            predict: options.predict,
            notices,
        }
    }
}

/// The `function` and `program` attributes as one scope; a name that is
/// none is a notice naming those there are (from the programs: one place
/// per fact).
fn read_scope(options: &Options, notices: &mut Vec<Notice>) -> Scope {
    let function_given = options.function.trim();
    let function = programs::entries().find(|f| f.name() == function_given);
    let program_given = options.program.trim();
    let program = programs::ALL.iter().map(|p| p.name).find(|name| *name == program_given);
    let functions = listed(programs::entries().map(|f| f.name()));
    let programs = listed(programs::ALL.iter().map(|p| p.name));
    for (given, known, key, names) in [
        (function_given, function.is_some(), "notice_function", functions),
        (program_given, program.is_some(), "notice_program", programs),
    ] {
        if !given.is_empty() && !known {
            notices.push(Notice { key, values: vec![("value", given.to_string()), ("names", names)] });
        }
    }
    Scope { function, program }
}

/// Names for a notice, in any language: `a, b, c`.
fn listed<'a>(all: impl Iterator<Item = &'a str>) -> String {
    all.collect::<Vec<_>>().join(", ")
}
