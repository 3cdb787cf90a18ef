//! Markup for the page's panels, built as escaped strings (pure: no DOM,
//! compiled and tested natively too).
//!
//! Every piece of data (model text, process output, fixture titles) passes
//! through [`crate::markup::esc`] before it reaches the DOM, so markup in model text is
//! shown, never run. No `style` attributes are emitted: the page runs under
//! a Content-Security-Policy without `unsafe-inline`. Every word comes from
//! the language tables ([`Lang`]); data and code are marked
//! `translate="no"` so that neither a browser's translator nor the
//! pseudo-locale test mistakes them for words.

use agent_loop_core::debugger::Command;
use agent_loop_core::i18n::{grouped, Lang};
use agent_loop_core::lesson::Listing;
use agent_loop_core::preview::{cut, SHOWN_CHARS};
use agent_loop_core::programs;
use agent_loop_core::run::Trace;
use agent_loop_core::scenario::{Problem, Scenario};
use agent_loop_core::session::{Entry, Notice, Scope, Session};
use agent_loop_core::step_view::{comparison_places, pair};
use agent_loop_core::vocab::{Code, Function};
use serde_json::Value;

pub use crate::markup::{clip, esc};

/// Button label with its keyboard shortcut.
pub fn command_title(lang: Lang, c: Command) -> String {
    let label = lang.word(c.name()).to_string();
    match c {
        Command::Continue | Command::Step | Command::StepInto | Command::StepOut | Command::Back => {
            let key = lang.word(&format!("key_{}", c.name())).to_string();
            lang.fill("with_key", &[("label", label), ("key", key)])
        }
        _ => label,
    }
}

/// The control bar.
pub fn controls(lang: Lang, shown: &[Command]) -> String {
    let mut html = String::new();
    for c in Command::ALL {
        if !shown.contains(&c) {
            continue;
        }
        html.push_str(&format!(
            r#"<button type="button" class="alp-btn alp-cmd-{name}" data-command="{name}" title="{title}">{label}</button>"#,
            name = c.name(),
            title = esc(&command_title(lang, c)),
            label = esc(lang.word(c.name())),
        ));
    }
    html
}

/// The rows of a listing. A row carries its indentation as a class (`alp-i8`: eight
/// spaces), so that a row too long for the panel wraps with its continuation indented.
pub fn listing_rows(listing: &Listing, code: Code, lang: Lang) -> String {
    let f = listing.function.name();
    let mut html = String::with_capacity(listing.lines.len() * 120);
    // Inside a Python docstring that began on an earlier row.
    let mut in_doc = false;
    for line in &listing.lines {
        let quotes = if code.is_python() { line.text.matches("\"\"\"").count() } else { 0 };
        let shown = if in_doc { docstring_rest(line.text, code) } else { highlight(line.text, code) };
        in_doc ^= quotes % 2 == 1;
        let i = indent_class(line.text);
        // (the indentation on its own, which a phone draws narrower)
        let lead = shown.len() - shown.trim_start_matches(' ').len();
        let code = match lead {
            0 => shown,
            _ => format!(r#"<span class="alp-lead">{}</span>{}"#, &shown[..lead], &shown[lead..]),
        };
        match line.number {
            Some(n) => html.push_str(&format!(
                r#"<div class="alp-row alp-i{i}" data-function="{f}" data-line="{n}"><button type="button" class="alp-bp" data-function="{f}" data-line="{n}" aria-pressed="false" aria-label="{label}" tabindex="-1">{n}</button><code translate="no">{code}</code></div>"#,
                label = esc(&lang.fill("breakpoint", &[("n", n.to_string())])),
            )),
            None => html.push_str(&format!(
                r#"<div class="alp-row alp-instr alp-i{i}" aria-hidden="true"><span class="alp-gutter">·</span><code translate="no">{code}</code></div>"#
            )),
        }
    }
    html
}

/// A line's indentation, rounded down to a class step (0, 4, … 28 spaces).
fn indent_class(line: &str) -> usize {
    let indent = line.len() - line.trim_start().len();
    (indent.min(28) / 4) * 4
}

/// A row that goes on a docstring begun above: a string up to its closing
/// quotes, then code.
fn docstring_rest(line: &str, code: Code) -> String {
    let (doc, rest) = match line.find("\"\"\"") {
        Some(at) => line.split_at(at + 3),
        None => (line, ""),
    };
    let rest = if rest.is_empty() { String::new() } else { highlight(rest, code) };
    format!(r#"<span class="tk-s">{}</span>{rest}"#, esc(doc))
}

/// A very small Rust highlighter: comments, strings, keywords, macros.
pub fn highlight(line: &str, language: Code) -> String {
    const RUST: [&str; 22] = [
        "pub", "fn", "let", "mut", "if", "else", "for", "in", "return", "match", "Some", "None", "Ok", "Err",
        "true", "false", "use", "impl", "struct", "as", "dyn", "const",
    ];
    const PYTHON: [&str; 20] = [
        "def", "return", "if", "else", "elif", "for", "in", "not", "and", "or", "try", "except", "as",
        "raise", "True", "False", "None", "import", "lambda", "is",
    ];
    let keywords: &[&str] = if language.is_python() { &PYTHON } else { &RUST };
    let comment = if language.is_python() { "#" } else { "//" };
    let mut out = String::with_capacity(line.len() * 2);
    let chars: Vec<char> = line.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if comment.chars().enumerate().all(|(k, x)| chars.get(i + k) == Some(&x)) {
            let rest: String = chars[i..].iter().collect();
            out.push_str(&format!(r#"<span class="tk-c">{}</span>"#, esc(&rest)));
            break;
        }
        if c == '"' {
            let mut j = i + 1;
            while j < chars.len() && chars[j] != '"' {
                if chars[j] == '\\' {
                    j += 1;
                }
                j += 1;
            }
            let s: String = chars[i..(j + 1).min(chars.len())].iter().collect();
            // (a label in a string may wrap at its dot: `"loop<wbr>.save"`)
            out.push_str(&format!(r#"<span class="tk-s">{}</span>"#, esc(&s).replace('.', "<wbr>.")));
            i = j + 1;
            continue;
        }
        if c.is_alphabetic() || c == '_' {
            let mut j = i;
            while j < chars.len() && (chars[j].is_alphanumeric() || chars[j] == '_') {
                j += 1;
            }
            let word: String = chars[i..j].iter().collect();
            let class = if keywords.contains(&word.as_str()) {
                Some("tk-k")
            } else if chars.get(j) == Some(&'!') {
                Some("tk-m")
            } else if word.chars().next().is_some_and(char::is_uppercase) {
                Some("tk-t")
            } else {
                None
            };
            match class {
                Some(class) => out.push_str(&format!(r#"<span class="{class}">{}</span>"#, esc(&word))),
                None => out.push_str(&esc(&word)),
            }
            i = j;
            continue;
        }
        // A long chain wraps at its joints (`blocks.iter()`, `f(x`), not
        // inside a name; `<wbr>` is a break chance with no text of its own.
        if c == '.' {
            out.push_str("<wbr>");
        }
        out.push_str(&esc(&c.to_string()));
        // (a path's `::`, not a slice's `[:`)
        if matches!(c, '(' | '|' | ',') || (c == ':' && i > 0 && chars[i - 1] == ':') {
            out.push_str("<wbr>");
        }
        i += 1;
    }
    if out.is_empty() {
        out.push(' ');
    }
    out
}

/// The comparison panel and the two records side by side in the figure
/// panel, while a changed version is on screen (empty otherwise).
pub fn comparison(s: &Session) -> (String, String) {
    match (s.what_if_state().comparison.as_ref(), comparison_places(s)) {
        (Some(c), Some(places)) => {
            let (names, lang) = (crate::explore::run_names(c, s.lang()), s.lang());
            let loops = c.lesson.function != c.changed.function;
            let pair = pair(s).map(|p| crate::figure::pair(&p, ((&names.0, &names.1), loops), lang));
            (crate::explore::compare(c, &places, lang), pair.unwrap_or_default())
        }
        _ => (String::new(), String::new()),
    }
}

/// Where the steps on screen come from, under the code: the Rust core
/// recorded in the page, or a recorded program's CPython, with its
/// version, and the stand-ins it called.
pub fn provenance(trace: &Trace, lang: Lang) -> String {
    let Some(recorded) = programs::recorded::of(trace.function) else {
        return lang.word("provenance").to_string();
    };
    let run = recorded.scenario(&trace.scenario).map(|s| s.run(trace.lang.code()));
    let python = run.map_or(String::new(), |r| r.python.clone());
    lang.fill("provenance_recorded", &[("python", python)])
}

/// The scenario picker's options (values are scenario ids): the lesson's
/// eight first, in the lesson's order, then the other cases of each
/// function (only the author's function when set), broken files last and
/// disabled.
pub fn picker(entries: &[Entry], current: usize, only: Scope, lang: Lang) -> String {
    let fits = |s: &Scenario| only.fits(s);
    let option = |i: usize, s: &Scenario| {
        format!(
            r#"<option value="{}"{}>{}</option>"#,
            esc(&s.id),
            if i == current { " selected" } else { "" },
            esc(s.title(lang.code()))
        )
    };
    let valid = || entries.iter().enumerate().filter_map(|(i, e)| e.parsed.as_ref().ok().map(|s| (i, s)));
    let mut html = String::new();
    // Each lesson's own scenarios first, lesson by lesson (word `group_<program>`).
    for program in programs::ALL {
        // (the lesson's own: a recorded program's scenario may share an id)
        let its = |s: &Scenario| program.functions.contains(&s.function);
        let lesson: String = program
            .scenarios
            .iter()
            .filter_map(|id| valid().find(|(_, s)| s.id == *id && fits(s) && its(s)))
            .map(|(i, s)| option(i, s))
            .collect();
        if !lesson.is_empty() {
            let label = lang.word(&format!("group_{}", program.name));
            html.push_str(&format!(r#"<optgroup label="{}">{lesson}</optgroup>"#, esc(label)));
        }
    }
    html.push_str(&recorded_groups(entries, &option, only, lang));
    for f in programs::functions().filter(|f| only.has(*f)) {
        let more: String = valid()
            .filter(|(_, s)| s.function == f && !programs::lesson_scenarios().any(|id| id == s.id))
            .map(|(i, s)| option(i, s))
            .collect();
        if !more.is_empty() {
            let label = lang.fill("group_more", &[("function", f.name().to_string())]);
            html.push_str(&format!(r#"<optgroup label="{}">{more}</optgroup>"#, esc(&label)));
        }
    }
    let bad: Vec<&Entry> = entries.iter().filter(|e| e.parsed.is_err()).collect();
    if !bad.is_empty() {
        html.push_str(&format!(r#"<optgroup label="⚠ {}">"#, esc(lang.word("bad_group"))));
        for e in bad {
            let name =
                if e.file == agent_loop_core::session::ADDED { lang.word("added_scenario") } else { &e.file };
            html.push_str(&format!(r#"<option disabled>{} ⚠</option>"#, esc(name)));
        }
        html.push_str("</optgroup>");
    }
    html
}

/// A group of each recorded program's scenarios the scope offers, in its
/// pack's order, named by its file.
fn recorded_groups(
    entries: &[Entry],
    option: &dyn Fn(usize, &Scenario) -> String,
    only: Scope,
    lang: Lang,
) -> String {
    fn recorded(e: &Entry) -> Option<&Scenario> {
        e.parsed.as_ref().ok().filter(|s| programs::recorded::of(s.function).is_some())
    }
    let mut html = String::new();
    let mut files: Vec<&str> = Vec::new();
    for e in entries.iter().filter(|e| recorded(e).is_some_and(|s| only.fits(s))) {
        if files.contains(&e.file.as_str()) {
            continue;
        }
        files.push(&e.file);
        let same = entries.iter().enumerate().filter(|(_, x)| x.file == e.file);
        let options: String = same.filter_map(|(i, x)| recorded(x).map(|s| option(i, s))).collect();
        let label = lang.fill("recorded_group", &[("file", e.file.clone())]);
        html.push_str(&format!(r#"<optgroup label="{}">{options}</optgroup>"#, esc(&label)));
    }
    html
}

/// Under `title`, each entry with what `found` finds in it, in `lang`'s
/// words (nothing when nothing is found).
fn files_with(entries: &[Entry], found: fn(&Entry) -> &[Problem], title: &str, lang: Lang) -> String {
    let mut items = String::new();
    for e in entries.iter().filter(|e| !found(e).is_empty()) {
        let said: String = found(e).iter().map(|p| format!("<li>{}</li>", esc(&p.text(lang)))).collect();
        items.push_str(&format!(r#"<li>{}<ul>{said}</ul></li>"#, file_name(&e.file, lang)));
    }
    if items.is_empty() {
        return items;
    }
    format!("<strong>{}</strong><ul>{items}</ul>", esc(title))
}

/// A scenario file's name as markup: the path as data, or, for one given
/// to `addScenario`, the reader's words for it.
fn file_name(file: &str, lang: Lang) -> String {
    if file == agent_loop_core::session::ADDED {
        esc(lang.word("added_scenario"))
    } else {
        format!(r#"<code translate="no">{}</code>"#, esc(file))
    }
}

/// The notice box: what the author got wrong (empty when nothing).
pub fn problems(entries: &[Entry], notices: &[Notice], lang: Lang) -> String {
    let mut html = String::new();
    // (a remark for the author is said in the console only)
    for n in notices.iter().filter(|n| !n.is_remark()) {
        // (a pack on its way is news, not a problem: styled apart)
        let class = if n.is_progress() { r#" class="alp-progress""# } else { "" };
        html.push_str(&format!("<p{class}>{}</p>", esc(&n.text(lang))));
    }
    // Each broken file with its problems, then each valid file's near misses
    // (what `check` warns about), said in the reader's language.
    fn broken(e: &Entry) -> &[Problem] {
        e.parsed.as_ref().err().map_or(&[], Vec::as_slice)
    }
    fn near(e: &Entry) -> &[Problem] {
        &e.warnings
    }
    html.push_str(&files_with(entries, broken, lang.word("bad_fixture"), lang));
    html.push_str(&files_with(entries, near, lang.word("near_fixture"), lang));
    html
}

/// The locals of a step as a definition list. A local that stands for the
/// whole record is said in the page's language; under the Python listing a
/// value is written as Python writes it (`True`, `None`, `'text'`).
pub fn locals(locals: &Value, lang: Lang, python: bool) -> String {
    let mut html = String::new();
    if let Value::Object(map) = locals {
        for (k, v) in map {
            let record = |v: &Value| v.as_str().and_then(agent_loop_core::preview::read_record_ref);
            let shown = match (record(v), record(&v["messages"])) {
                (Some(n), _) => lang.fill("record_ref", &[("n", n.to_string())]),
                (_, Some(n)) => {
                    let mut v = v.clone();
                    v["messages"] = Value::String(lang.fill("record_ref", &[("n", n.to_string())]));
                    written(&v, python)
                }
                _ => match (v, agent_loop_core::preview::read_repr(v)) {
                    (_, Some(repr)) => repr.to_string(),
                    (v, _) => written(v, python),
                },
            };
            html.push_str(&format!("<dt>{}</dt><dd>{}</dd>", esc(k), folded(&shown)));
        }
    }
    html
}

/// A value as the listing's language writes it: Python's `repr`, or JSON.
fn written(v: &Value, python: bool) -> String {
    match v {
        _ if python => agent_loop_core::vocab::py_repr(v),
        Value::String(s) => format!("{s:?}"),
        other => other.to_string(),
    }
}

/// A local's text: whole when short, else folded to its first line's
/// worth, the rest (up to 240 characters) a click away.
fn folded(shown: &str) -> String {
    const LINE: usize = 72;
    if shown.chars().count() <= LINE {
        return esc(shown);
    }
    let (head, whole) = (esc(&clip(shown, LINE)), esc(&clip(shown, 240)));
    format!(r#"<details><summary><span class="alp-fold">{head}</span></summary>{whole}</details>"#)
}

/// The output panel shows at most this many of the latest lines.
pub const OUTPUT_TAIL: usize = 40;

/// The output up to `upto` lines, in `lang`, newest last (markup).
pub fn output(lines: &[String], upto: usize, lang: Lang) -> String {
    output_with(lines, upto, lang, None)
}

/// The output, and at the end of the run what the setup's entry call
/// prints (`Trace::printed`).
pub fn output_with(lines: &[String], upto: usize, lang: Lang, end: Option<&Trace>) -> String {
    let upto = upto.min(lines.len());
    let from = upto.saturating_sub(OUTPUT_TAIL);
    let line = |l: &String| esc(&cut(l, SHOWN_CHARS));
    let mut shown: Vec<String> = lines[from..upto].iter().map(line).collect();
    if from > 0 {
        shown.insert(0, esc(&lang.fill("output_more", &[("n", grouped(from))])));
    }
    // Once the entry returned, what its print calls print.
    if let Some(trace) = end {
        shown.extend(trace.printed.iter().map(line));
    }
    let text = if shown.is_empty() { esc(lang.word("no_output")) } else { shown.join("\n") };
    // The inner div keeps the panel scrolled to the newest line (column-reverse).
    format!("<div>{text}</div>")
}

/// The note under the timeline naming breakpoints this run never reaches
/// (empty when every breakpoint is hit).
pub fn unreached(breakpoints: &[(Function, u32)], lang: Lang) -> String {
    if breakpoints.is_empty() {
        return String::new();
    }
    let lines: Vec<String> = breakpoints
        .iter()
        .map(|(f, n)| {
            lang.fill("unreached_line", &[("function", f.name().to_string()), ("n", n.to_string())])
        })
        .collect();
    esc(&lang.fill("unreached", &[("lines", lines.join(lang.word("list_sep")))]))
}

/// The setup text as lines that wrap with their continuation indented.
/// (at most SETUP_LINES of them, then a note that there are more: a
/// scenario of thousands of blocks is not laid out whole)
fn setup_lines(text: &str, more: bool, lang: Lang) -> String {
    let line = |l: &str| {
        format!(r#"<span class="alp-sl alp-i{}">{}</span>"#, indent_class(l), esc(&cut(l, SHOWN_CHARS)))
    };
    let mut out: String = text.lines().map(line).collect();
    if more {
        let note = esc(lang.word("setup_more"));
        out.push_str(&format!(r#"<span class="alp-sl alp-sl-more">{note}</span>"#));
    }
    out
}

/// The setup panel shows at most this many lines.
pub const SETUP_LINES: usize = 300;

/// The setup panel: the program's setup and entry as Python in the
/// reader's language, exactly the text CPython runs after the listing in
/// the tests (`run::setup_text`; its first SETUP_LINES lines), then the
/// what-if editors.
pub fn setup(scenario: &Scenario, lang: Lang, edit_problems: &[String]) -> String {
    let (text, more) = agent_loop_core::run::setup_head(scenario, SETUP_LINES);
    let editors = crate::explore::editors(scenario, lang, edit_problems);
    format!(
        r#"<summary>{}</summary><p class="alp-setup-hint">{}</p><pre class="alp-setup-code" data-role="setup-code" translate="no" tabindex="0" aria-label="{}">{}</pre>{editors}"#,
        esc(lang.word("setup_title")),
        esc(setup_hint(scenario, lang)),
        esc(lang.word("setup_code")),
        setup_lines(&text, more, lang)
    )
}

/// What the setup panel says of its code: the program's own words, or a
/// recorded program's (the author's setup, as CPython ran it).
fn setup_hint(scenario: &Scenario, lang: Lang) -> &'static str {
    match programs::recorded::of(scenario.function) {
        Some(_) => lang.word("recorded_setup_hint"),
        None => lang.word(&format!("setup_hint_{}", programs::of(scenario.function).name)),
    }
}
