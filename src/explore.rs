//! The markup of the prediction panel, the what-if editors and the
//! comparison of two runs, as escaped strings. Pure: compiled and tested
//! natively like [`crate::view`].

use crate::markup::esc;
use agent_loop_core::i18n::{grouped, Lang};
use agent_loop_core::predict::Ask;
use agent_loop_core::programs;
use agent_loop_core::scenario::{ProcessScript, Scenario};
use agent_loop_core::session::{Answer, Comparison, Summary};
use agent_loop_core::step_view::{At, Places};
use agent_loop_core::vocab::Function;
use serde_json::Value;

/// The prediction panel: the last answer with its explanation, the
/// question waiting (choices as buttons), the score and "try again".
/// Empty when there is nothing to show.
pub fn predict_panel(
    pending: Option<&Ask>,
    line: Option<(Function, u32, &str)>,
    last: Option<(&Ask, &Answer)>,
    score: (usize, usize),
    lang: Lang,
) -> String {
    let mut html = String::new();
    if let Some((ask, answer)) = last {
        let verdict = if answer.correct {
            lang.word("answer_right").to_string()
        } else {
            lang.fill("answer_wrong", &[("answer", ask.choices.get(ask.answer).cloned().unwrap_or_default())])
        };
        html.push_str(&format!(
            r#"<div class="alp-q alp-q-done"><p class="alp-q-text">{}</p>{}<p class="alp-q-result {}" tabindex="-1"><strong>{}</strong>{}{}</p></div>"#,
            esc(&ask.text),
            choices(ask, Some(answer)),
            if answer.correct { "alp-right" } else { "alp-wrong" },
            esc(&verdict),
            // (a space between two sentences in English, none in Chinese)
            esc(lang.word("sentence_gap")),
            esc(&ask.explain)
        ));
    }
    if let Some(ask) = pending {
        html.push_str(&format!(
            r#"<div class="alp-q alp-q-open"><p class="alp-q-title">{}</p>{}<p class="alp-q-text" id="alp-q-text">{}</p>{}</div>"#,
            esc(lang.word("predict_title")),
            quoted(line, lang),
            esc(&ask.text),
            choices(ask, None)
        ));
    }
    if score.1 > 0 {
        html.push_str(&format!(
            r#"<p class="alp-score">{} <button type="button" class="alp-try-again" data-action="try-again">{}</button></p>"#,
            esc(&lang.fill("score", &[("right", score.0.to_string()), ("answered", score.1.to_string())])),
            esc(lang.word("try_again"))
        ));
    }
    html
}

/// The line a question is about: where it is, and its code.
fn quoted(line: Option<(Function, u32, &str)>, lang: Lang) -> String {
    let Some((function, n, code)) = line else { return String::new() };
    let place =
        lang.fill("predict_line", &[("line", n.to_string()), ("function", function.name().to_string())]);
    format!(
        r#"<p class="alp-q-line"><span>{}</span> <code translate="no">{}</code></p>"#,
        esc(&place),
        esc(code)
    )
}

/// The choices of a question: buttons while it waits; afterwards the
/// chosen one and the right one are marked.
fn choices(ask: &Ask, answered: Option<&Answer>) -> String {
    let buttons: String = ask
        .choices
        .iter()
        .enumerate()
        .map(|(i, text)| {
            let class = match answered {
                Some(_) if i == ask.answer => " alp-choice-right",
                Some(a) if i == a.choice => " alp-choice-wrong",
                _ => "",
            };
            let chosen = answered.is_some_and(|a| a.choice == i);
            let attr = if answered.is_some() {
                format!(r#" aria-pressed="{chosen}" disabled"#)
            } else {
                format!(r#" data-choice="{i}""#)
            };
            format!(r#"<button type="button" class="alp-choice{class}"{attr}>{}</button>"#, esc(text))
        })
        .collect();
    let label = if answered.is_none() { r#" aria-labelledby="alp-q-text""# } else { "" };
    format!(r#"<div class="alp-choices" role="group"{label}>{buttons}</div>"#)
}

/// A field's JSON longer than this is not offered for editing.
pub const EDIT_CHARS: usize = 100_000;

/// The editors of the setup panel: the model's replies and the process
/// outcomes as JSON, "run this version", and what was wrong with the last
/// edit.
pub fn editors(scenario: &Scenario, lang: Lang, problems: &[String]) -> String {
    // (CPython ran a recorded program: the page cannot run it otherwise)
    if programs::recorded::of(scenario.function).is_some() {
        return format!(
            r#"<p class="alp-edit-hint" data-role="no-edit">{}</p>"#,
            esc(lang.word("edit_recorded"))
        );
    }
    // (a field is written out only when it fits an editor; else its length
    // is counted: the model of a file of 130,000 blocks is not a 5 MB text)
    let fit =
        |chars: usize, write: &dyn Fn() -> String| if chars > EDIT_CHARS { Err(chars) } else { Ok(write()) };
    let pretty = |v: &Value| fit(pretty_chars(v, 0), &|| serde_json::to_string_pretty(v).unwrap_or_default());
    let list = |l: &[Value]| fit(list_chars(l, 0), &|| serde_json::to_string_pretty(l).unwrap_or_default());
    let mut html = String::new();
    let editor = |field: &str, key: &str, text: Result<String, usize>| {
        // A field of a huge scenario is not put in an editor (a textarea of
        // megabytes is laid out again at every step): it stays as it is.
        let chars = text.as_ref().map_or_else(|chars| *chars, |t| t.chars().count());
        if chars > EDIT_CHARS {
            let note = lang.fill("edit_too_big", &[("n", grouped(chars))]);
            return format!(
                r#"<p class="alp-edit" data-edit-skipped="{field}"><span>{}</span><span>{}</span></p>"#,
                esc(lang.word(key)),
                esc(&note)
            );
        }
        let text = text.unwrap_or_default();
        let rows = text.lines().count().clamp(3, 16);
        format!(
            r#"<label class="alp-edit"><span>{}</span><textarea data-edit="{field}" rows="{rows}" spellcheck="false" translate="no" autocomplete="off">{}</textarea></label>"#,
            esc(lang.word(key)),
            esc(&text)
        )
    };
    // (the fields the scenario's program offers for this function: its
    // replies, the process, or one of its own, as `call` or `tool_results`)
    for &(field, word) in (programs::of(scenario.function).edits)(scenario.function) {
        let text = match field {
            "model" => list(&scenario.model),
            "process" => match &scenario.process {
                ProcessScript::Always(v) => pretty(v),
                ProcessScript::Each(runs) => list(runs),
            },
            own => pretty(scenario.own.get(own).unwrap_or(&Value::Null)),
        };
        html.push_str(&editor(field, word, text));
    }
    let error = if problems.is_empty() {
        r#"<p class="alp-edit-error" data-role="edit-error" role="alert" hidden></p>"#.to_string()
    } else {
        let items: String = problems.iter().map(|p| format!("<li>{}</li>", esc(p))).collect();
        format!(
            r#"<div class="alp-edit-error" data-role="edit-error" role="alert" translate="no"><ul>{items}</ul></div>"#
        )
    };
    format!(
        r#"<div class="alp-what-if"><p class="alp-edit-hint">{}</p>{html}{error}<button type="button" class="alp-run-version" data-action="what-if">{}</button></div>"#,
        esc(lang.word("edit_hint")),
        esc(lang.word("edit_run"))
    )
}

/// How many characters `serde_json::to_string_pretty` writes for `v` at
/// `depth` (two spaces a level), counted without writing them.
pub fn pretty_chars(v: &Value, depth: usize) -> usize {
    match v {
        Value::Array(items) => list_chars(items, depth),
        Value::Object(map) if !map.is_empty() => {
            let fields =
                map.iter().map(|(k, x)| 2 * (depth + 1) + str_chars(k) + 2 + pretty_chars(x, depth + 1));
            around(map.len(), depth, fields.sum())
        }
        Value::Object(_) => 2,
        Value::String(text) => str_chars(text),
        other => serde_json::to_string(other).map_or(0, |t| t.len()),
    }
}

/// [`pretty_chars`] of a list.
pub fn list_chars(items: &[Value], depth: usize) -> usize {
    match items {
        [] => 2,
        _ => around(
            items.len(),
            depth,
            items.iter().map(|x| 2 * (depth + 1) + pretty_chars(x, depth + 1)).sum(),
        ),
    }
}

/// A list or an object of `n` items whose lines are `inside` long: its
/// brackets, a line break after each item and the opening one, a comma
/// between two, and the closing indent.
fn around(n: usize, depth: usize, inside: usize) -> usize {
    2 + (n + 1) + (n - 1) + 2 * depth + inside
}

/// A JSON string's characters as serde_json writes it (quotes, escapes),
/// counted by bytes: a continuation byte is no character of its own.
fn str_chars(text: &str) -> usize {
    let chars = |b: &u8| match *b {
        b'"' | b'\\' | 0x08 | 0x0c | b'\n' | b'\r' | b'\t' => 2,
        0..=0x1f => 6,
        0x80..=0xbf => 0,
        _ => 1,
    };
    2 + text.as_bytes().iter().map(chars).sum::<usize>()
}

/// The other loops of the scenario's program, each a button that runs it
/// on the same replies beside the scenario's own (`beside` is the one
/// beside it now). Empty when the program has none.
pub fn beside(scenario: &Scenario, beside: Option<Function>, lang: Lang) -> String {
    let others = programs::of(scenario.function).beside.iter().filter(|f| **f != scenario.function);
    let buttons: String = others
        .map(|f| {
            format!(
                r#"<button type="button" data-action="beside" data-function="{name}" aria-pressed="{}"><code translate="no">{name}</code> <span>{}</span></button>"#,
                beside == Some(*f),
                esc(lang.word(&format!("beside_{}", f.name()))),
                name = esc(f.name()),
            )
        })
        .collect();
    if buttons.is_empty() {
        return String::new();
    }
    let title = lang.fill("beside_title", &[("function", scenario.function.name().to_string())]);
    format!(
        r#"<p class="alp-beside-title">{}</p><div class="alp-beside-list" role="group" aria-label="{}">{buttons}</div>"#,
        esc(&title),
        esc(&title)
    )
}

/// What differs where the runs part, in the learner's words where there
/// are some (a leading space; empty when nothing is named).
fn differs(c: &Comparison, lang: Lang) -> String {
    let differs: Vec<String> = c.differs.iter().map(|d| local_or_word(d, lang)).collect();
    if differs.is_empty() {
        String::new()
    } else {
        // (the word brings its own space where its language has one)
        lang.fill("compare_differs", &[("what", listed(&differs, lang))])
    }
}

/// `a, b and c` in the reader's language.
fn listed(items: &[String], lang: Lang) -> String {
    match items.split_last() {
        Some((last, rest)) if !rest.is_empty() => {
            format!("{}{}{last}", rest.join(lang.word("list_sep")), lang.word("list_and"))
        }
        _ => items.join(""),
    }
}

/// A difference in the learner's words (`line`, `record`, `end`), or the
/// name of the local that differs.
fn local_or_word(d: &str, lang: Lang) -> String {
    match d {
        "line" | "record" | "end" => lang.word(&format!("differs_{d}")).to_string(),
        local => lang.fill("differs_local", &[("name", local.to_string())]),
    }
}

/// The table's rows: how each run ends, its model calls, record and steps.
fn summary_rows(c: &Comparison, lang: Lang) -> String {
    let row = |key: &str, f: &dyn Fn(&Summary) -> String| {
        format!(
            r#"<tr><th scope="row">{}</th><td translate="no">{}</td><td translate="no">{}</td></tr>"#,
            esc(lang.word(key)),
            esc(&f(&c.lesson)),
            esc(&f(&c.changed))
        )
    };
    let status = row("compare_status", &|s| lang.status(&s.ending));
    let steps = row("compare_steps", &|s| s.steps.to_string());
    // A tool run compares its results (no model call, no message on either side).
    if c.lesson.tool_result.is_some() || c.changed.tool_result.is_some() {
        let result = row("compare_tool_result", &|s| s.tool_result.clone().unwrap_or_default());
        return [status, result, steps].concat();
    }
    let calls = row("compare_calls", &|s| s.calls.to_string());
    [status, calls, row("compare_record", &|s| s.record.to_string()), steps].concat()
}

/// Where the runs part, in words: the step, and each run's place there.
fn parting(
    c: &Comparison,
    places: &Places,
    lang: Lang,
    names: (&str, &str),
    place: &dyn Fn(At) -> String,
) -> String {
    let other_loop = c.lesson.function != c.changed.function;
    let (lesson_name, changed_name) = (names.0.to_string(), names.1.to_string());
    match c.parts_at {
        Some(n) => lang.fill(
            match (other_loop, c.values_from.is_some()) {
                (true, _) => "compare_parts_beside",
                // (values differed before: not every step before is the same)
                (false, true) => "compare_parts_lines",
                (false, false) => "compare_parts",
            },
            &[
                ("n", (n + 1).to_string()),
                ("lesson_name", lesson_name.clone()),
                ("changed_name", changed_name.clone()),
                ("lesson", place(places.parting.0)),
                ("changed", place(places.parting.1)),
            ],
        ),
        None if other_loop => lang.word("compare_same_beside").to_string(),
        None => lang.word("compare_same").to_string(),
    }
}

/// What each run goes on to do where they part, in its caption's words.
fn doing(places: &Places, lang: Lang, other_loop: bool, names: (&str, &str)) -> String {
    let Some((lesson, changed)) = &places.doing else { return String::new() };
    let key = if other_loop { "compare_doing_beside" } else { "compare_doing" };
    let said = [
        ("lesson", lesson.clone()),
        ("changed", changed.clone()),
        ("lesson_name", names.0.to_string()),
        ("changed_name", names.1.to_string()),
    ];
    lang.fill(key, &said)
}

/// What the comparison calls each run (the lesson's, the changed one's):
/// beside another loop, its loop's name.
pub fn run_names(c: &Comparison, lang: Lang) -> (String, String) {
    match c.lesson.function != c.changed.function {
        true => (c.lesson.function.name().to_string(), c.changed.function.name().to_string()),
        false => (lang.word("compare_lesson").to_string(), lang.word("compare_changed").to_string()),
    }
}

/// The two runs side by side, where they part, and where the lesson's run
/// is at the step shown (so both can be stepped in lockstep).
pub fn compare(c: &Comparison, places: &Places, lang: Lang) -> String {
    let other_loop = c.lesson.function != c.changed.function;
    let (lesson_name, changed_name) = run_names(c, lang);
    let rows = summary_rows(c, lang);
    let place = |at: At| {
        at.map_or_else(
            || lang.word("compare_ended").to_string(),
            |(label, line)| {
                let said =
                    agent_loop_core::lesson::label_title(c.lesson.function, label, lang).unwrap_or(label);
                lang.fill("compare_place", &[("label", said.to_string()), ("line", line.to_string())])
            },
        )
    };
    let parts = parting(c, places, lang, (&lesson_name, &changed_name), &place);
    let title = if other_loop {
        lang.fill(
            "compare_title_beside",
            &[("lesson", lesson_name.clone()), ("changed", changed_name.clone())],
        )
    } else {
        lang.word("compare_title").to_string()
    };
    let mut differs = differs(c, lang);
    differs.push_str(&doing(places, lang, other_loop, (&lesson_name, &changed_name)));
    // Values that differ before the lines do (the same line, another reply).
    if let (Some((v, names)), Some(_)) = (&c.values_from, c.parts_at) {
        let what: Vec<String> = names.iter().map(|d| local_or_word(d, lang)).collect();
        let what = listed(&what, lang);
        let said = [("n", (v + 1).to_string()), ("place", place(places.values)), ("what", what)];
        differs.push_str(&lang.fill("compare_values_first", &said));
    }
    let same = places.here == places.lesson_here;
    // Where the lesson's run is at the step shown (once the learner has started).
    let lockstep = places.position.map_or(String::new(), |p| {
        let key = match (places.parted, same) {
            (true, _) => "compare_lockstep_parted",
            (false, true) => "compare_lockstep_same",
            (false, false) => "compare_lockstep_other",
        };
        let text = lang.fill(key, &[("n", (p + 1).to_string()), ("lesson", place(places.lesson_here))]);
        format!(
            r#"<p class="alp-lockstep{}">{}</p>"#,
            if same && !places.parted { "" } else { " alp-lockstep-apart" },
            esc(&text)
        )
    });
    // Why the new run is at its start, when the learner was further on.
    let restart = places.restart.map_or(String::new(), |(n, why)| {
        format!(r#"<p class="alp-restart">{}</p>"#, esc(&lang.fill(why, &[("n", (n + 1).to_string())])))
    });
    let to_parting = if c.parts_at.is_some() {
        format!(
            r#"<button type="button" data-action="to-parting">{}</button> "#,
            esc(lang.word("compare_go"))
        )
    } else {
        String::new()
    };
    format!(
        r#"<p class="alp-compare-title">{}</p><table><thead><tr><td></td><th scope="col"{names}>{}</th><th scope="col"{names}>{}</th></tr></thead><tbody>{rows}</tbody></table><p class="alp-parting">{}{}</p>{restart}{lockstep}<p>{to_parting}<button type="button" data-action="back-to-lesson">{}</button></p>"#,
        esc(&title),
        esc(&lesson_name),
        esc(&changed_name),
        esc(&parts),
        esc(&differs),
        esc(lang.word("compare_back")),
        names = if other_loop { r#" translate="no""# } else { "" },
    )
}
