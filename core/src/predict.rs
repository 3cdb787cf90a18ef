//! Predict, then step: the questions a learner answers before a line runs.
//!
//! A question belongs to a step: it is asked when a move would run that
//! step's line, and the answer shows before the move goes on. Two sources:
//!
//! - **authored** in the scenario (`questions`, see `scenario::Question`;
//!   a recorded program's come from its pack), attached to the n-th step
//!   with a label (a recorded program's n-th stop there);
//! - **generated** from the recorded trace, so their answers are facts of
//!   this run: how many messages the record holds after a line that
//!   appends (the first two such lines), how the run ends (on the first
//!   line: a loop's status, or for a recorded program the endings of its
//!   pack's runs), and whether the first breakpoint is ever hit (on the
//!   first move).
//!
//! At most one question per step; an authored one wins. Every generated
//! answer is read from the same trace the learner then steps through (the
//! tests check each one against the trace).

use crate::debugger::{Command, Debugger};
use crate::i18n::Lang;
use crate::lesson;
use crate::programs;
use crate::programs::recorded::Ending;
use crate::run::Trace;
use crate::scenario::{Phrase, Problem, Scenario};
use crate::trace::Event;
use crate::vocab::{Code, Function};

/// One question, ready to ask, in one language.
#[derive(Clone, Debug, PartialEq)]
pub struct Ask {
    /// Stable across languages and listings: `q0` (authored, by index),
    /// `record-15`, `status`, `breakpoint-<function>-<line>`.
    pub key: String,
    /// Asked on this step, before its line runs.
    pub step: usize,
    /// The line the question is about when it is not this step's (a
    /// breakpoint's line, in the listing shown).
    pub about: Option<(Function, u32)>,
    pub label: &'static str,
    pub text: String,
    pub choices: Vec<String>,
    /// Index of the right choice.
    pub answer: usize,
    pub explain: String,
    pub authored: bool,
    /// An authored question's choices as the file writes them: the index
    /// there of each choice shown (empty for a question of the page's).
    pub written: Vec<usize>,
}

/// How many record-growth questions one run asks.
const RECORD_QUESTIONS: usize = 2;

/// Every question of this run, in step order, one per step.
pub fn questions(
    scenario: &Scenario,
    trace: &Trace,
    lang: Lang,
    code: Code,
    breakpoints: &[(Function, u32)],
) -> Vec<Ask> {
    let mut asks = authored(scenario, trace, lang);
    let generated = breakpoint_question(trace, lang, code, breakpoints)
        .into_iter()
        .chain(status_question(trace, lang))
        .chain(ending_question(trace, lang))
        .chain(record_questions(trace, lang));
    for ask in generated {
        if asks.iter().all(|a| a.step != ask.step) {
            asks.push(ask);
        }
    }
    crate::vocab::sort_small_by_key(&mut asks, |a| a.step);
    asks
}

/// Authored questions whose label this run never reaches (this scenario
/// takes another road). A label that is not one of the program's is
/// [`label_problems`]' to say, not this run's.
pub fn problems(scenario: &Scenario, trace: &Trace) -> Vec<Problem> {
    let own = own_labels(scenario.function);
    scenario
        .questions
        .iter()
        .enumerate()
        .filter(|(_, q)| own.as_ref().is_none_or(|own| own.contains(&q.at.as_str())))
        .filter(|(_, q)| step_of(trace, &q.at, q.occurrence).is_none())
        .map(|(i, q)| {
            let known = lesson::labels().contains(&q.at.as_str());
            let label = ("label", format!("{:?}", q.at));
            let why = if known && q.occurrence == 1 {
                Phrase::with("check_never_reached", &[label])
            } else if known {
                Phrase::with("check_never_asked", &[label, ("n", q.occurrence.to_string())])
            } else {
                Phrase::with("check_label_unknown", &[label])
            };
            Problem::new(format!("questions[{i}].at"), why)
        })
        .collect()
}

/// The labels of `function`'s program; `None` for a recorded program (its
/// marks are `record`'s to check) or one whose texts have not arrived.
fn own_labels(function: Function) -> Option<Vec<&'static str>> {
    let program = programs::of(function);
    let built_in = programs::recorded::of(function).is_none() && program.loaded();
    built_in.then(|| lesson::labels_of(program))
}

/// Every field of a scenario's JSON that names a label (`questions[i].at`,
/// `expect.hits[i]`, `expect.misses[i]`) and names none of its program's:
/// another program's label is said to be that, with the nearest of this
/// program's (a lesson-one label in a lesson-two scenario is no line its
/// run could reach), any other is unknown. Read without a run, so a file
/// with other problems has these said too.
pub fn label_problems(raw: &serde_json::Value, function: Function) -> Vec<Problem> {
    let Some(own) = own_labels(function) else { return Vec::new() };
    let mut fields: Vec<(String, &str)> = Vec::new();
    let questions = raw.get("questions").and_then(|q| q.as_array()).into_iter().flatten();
    for (i, q) in questions.enumerate() {
        fields.extend(q.get("at").and_then(|a| a.as_str()).map(|a| (format!("questions[{i}].at"), a.trim())));
    }
    for key in ["hits", "misses"] {
        let labels = raw.get("expect").and_then(|e| e.get(key)).and_then(|l| l.as_array());
        for (i, label) in labels.into_iter().flatten().enumerate() {
            fields.extend(label.as_str().map(|l| (format!("expect.{key}[{i}]"), l)));
        }
    }
    let program = programs::of(function).name;
    let mut out = Vec::new();
    for (field, label) in fields.into_iter().filter(|(_, l)| !l.is_empty() && !own.contains(l)) {
        let other = programs::ALL.iter().find(|p| p.loaded() && lesson::labels_of(p).contains(&label));
        let near =
            own.iter().min_by_key(|l| distance(l, label)).map(|l| format!("{l:?}")).unwrap_or_default();
        let say = match other {
            Some(other) => Phrase::with(
                "check_label_elsewhere",
                &[
                    ("label", format!("{label:?}")),
                    ("program", program.to_string()),
                    ("other", other.name.to_string()),
                    ("near", near),
                ],
            ),
            None => Phrase::with("check_label_unknown", &[("label", format!("{label:?}"))]),
        };
        out.push(Problem::new(field, say));
    }
    out
}

/// The name of `names` nearest to `written` (the example a notice gives:
/// one of the names that are, the one most likely meant).
pub fn nearest<'a>(written: &str, names: &[&'a str]) -> Option<&'a str> {
    names.iter().copied().min_by_key(|name| distance(name, written))
}

/// How many characters must change to make `a` into `b` (insert, delete or
/// replace one; Levenshtein's distance), case aside: how near a name
/// written is to one meant.
pub fn distance(a: &str, b: &str) -> usize {
    // (a name from a file may be megabytes: no name of a label or a tool
    // is longer than this, so such a one is far from all of them, said in
    // linear time, not in the product of the lengths)
    const LONGEST: usize = 64;
    if a.len() > LONGEST * 4 || b.len() > LONGEST * 4 {
        return a.chars().count().max(b.chars().count());
    }
    let (a, b): (Vec<char>, Vec<char>) =
        (a.to_lowercase().chars().collect(), b.to_lowercase().chars().collect());
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, x) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, y) in b.iter().enumerate() {
            let replaced = diagonal + usize::from(x != y);
            diagonal = row[j + 1];
            row[j + 1] = replaced.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[b.len()]
}

/// The steps where the run reaches `label`: each line step with it, but
/// in a recorded program only the first of the steps of one line in a row
/// (CPython reports a statement over several lines more than once; the
/// learner meets it as one stop, where its question is asked).
fn reaching<'a>(trace: &'a Trace, label: &'a str) -> impl Iterator<Item = usize> + 'a {
    let steps = &trace.steps;
    let again = |i: usize| {
        let (a, b) = (&steps[i - 1], &steps[i]);
        b.function.pack().is_some()
            && a.event == Event::Line
            && (a.function, a.depth, a.source_line()) == (b.function, b.depth, b.source_line())
    };
    (0..steps.len())
        .filter(move |&i| steps[i].event == Event::Line && steps[i].label == label && (i == 0 || !again(i)))
}

/// The index of the `occurrence`-th step where the run reaches `label`.
fn step_of(trace: &Trace, label: &str, occurrence: usize) -> Option<usize> {
    reaching(trace, label).nth(occurrence.saturating_sub(1))
}

/// How many times the run reaches `label` (the most an authored question
/// on it may ask for as its `occurrence`).
pub fn times_reached(trace: &Trace, label: &str) -> usize {
    reaching(trace, label).count()
}

fn authored(scenario: &Scenario, trace: &Trace, lang: Lang) -> Vec<Ask> {
    let mut asks: Vec<Ask> = Vec::new();
    for (i, q) in scenario.questions.iter().enumerate() {
        let Some(step) = step_of(trace, &q.at, q.occurrence) else { continue };
        if asks.iter().any(|a| a.step == step) {
            continue;
        }
        let (text, choices, explain) = q.texts(lang.code());
        let key = format!("q{i}");
        let order = permutation(choices.len(), &format!("{}/{key}", scenario.id));
        // The right one goes round the places question by question (a
        // lesson's scenarios by their order in it), so no place is "usually
        // right" over a lesson.
        let (written, answer) = moved(order, q.answer, i + offset(&scenario.id));
        let choices = written.iter().map(|&k| choices[k].clone()).collect();
        asks.push(Ask {
            key,
            step,
            label: trace.steps[step].label,
            text,
            choices,
            answer,
            explain,
            authored: true,
            written,
            about: None,
        });
    }
    asks
}

/// "How many messages will the record hold after this line runs?" at the
/// first lines that append to it.
fn record_questions(trace: &Trace, lang: Lang) -> Vec<Ask> {
    let steps = &trace.steps;
    (0..steps.len().saturating_sub(1))
        .filter(|&i| steps[i].event == Event::Line && steps[i + 1].record_len > steps[i].record_len)
        .take(RECORD_QUESTIONS)
        .map(|i| {
            let before = steps[i].record_len as usize;
            let after = steps[i + 1].record_len as usize;
            // Three counts in a row around the right one, which is not
            // always in the same place (one less, nothing added, more).
            let lowest = after.saturating_sub(seed(&format!("{}/record-{i}", trace.scenario)) as usize % 3);
            let choices: Vec<usize> = (lowest..lowest + 3).collect();
            let answer = choices.iter().position(|&n| n == after).unwrap_or(0);
            let added = after - before;
            let explain = lang.fill(
                match (before, added) {
                    (0, _) => "explain_record_new",
                    (_, 1) => "explain_record_one",
                    _ => "explain_record_many",
                },
                &[("before", before.to_string()), ("after", after.to_string()), ("added", added.to_string())],
            );
            Ask {
                key: format!("record-{i}"),
                step: i,
                label: steps[i].label,
                text: lang.word("ask_record").to_string(),
                choices: choices.iter().map(|n| n.to_string()).collect(),
                answer,
                explain,
                authored: false,
                written: Vec::new(),
                about: None,
            }
        })
        .collect()
}

/// "Which status will this run end with?" on the loop's first line, for
/// a function whose program names the endings worth weighing (the common
/// ones; the right one is added when it is rarer).
fn status_question(trace: &Trace, lang: Lang) -> Option<Ask> {
    let endings = programs::of(trace.function).endings;
    let (_, likely) = endings.iter().find(|(f, _)| *f == trace.function)?;
    let ending = trace.status()?;
    let first = trace.steps.iter().position(|s| s.event == Event::Line)?;
    let mut endings: Vec<&str> = likely.to_vec();
    if !endings.contains(&ending) {
        endings.push(ending);
    }
    // (in an order of their own per scenario: the first is not the answer)
    let order = permutation(endings.len(), &format!("{}/status", trace.scenario));
    let endings: Vec<&str> = order.iter().map(|&k| endings[k]).collect();
    let calls = trace.result.get("calls").and_then(serde_json::Value::as_i64).unwrap_or(0);
    let explain = lang.fill(
        "explain_status",
        &[
            ("status", lang.status(ending)),
            ("calls", calls.to_string()),
            ("why", lang.word(&why_key(ending)).to_string()),
        ],
    );
    Some(Ask {
        key: "status".into(),
        step: first,
        label: trace.steps[first].label,
        text: lang.word("ask_status").to_string(),
        choices: endings.iter().map(|e| lang.status(e)).collect(),
        answer: endings.iter().position(|e| *e == ending)?,
        explain,
        authored: false,
        written: Vec::new(),
        about: None,
    })
}

/// "How will this run end?" on the first line of a recorded program's
/// run: the endings of its scenarios' runs (a status it returns, another
/// value, an exception), with the other way to end when they all end alike.
fn ending_question(trace: &Trace, lang: Lang) -> Option<Ask> {
    let recorded = programs::recorded::of(trace.function)?;
    // (the run on screen is in the trace's language; the words in `lang`)
    let ending = recorded.scenario(&trace.scenario)?.run(trace.lang.code()).ending();
    let first = trace.steps.iter().position(|s| s.event == Event::Line)?;
    let mut endings = recorded.endings(trace.function, trace.lang.code());
    if endings.len() < 2 {
        endings.push(ending.other());
    }
    // (at most six choices, as an authored question has: the right one and
    // the first five others)
    if endings.len() > 6 {
        let others: Vec<Ending> = endings.iter().filter(|e| **e != ending).take(5).cloned().collect();
        endings = others.into_iter().chain(std::iter::once(ending.clone())).collect();
    }
    let order = permutation(endings.len(), &format!("{}/status", trace.scenario));
    let endings: Vec<&Ending> = order.iter().map(|&k| &endings[k]).collect();
    let end = trace.steps.iter().rev().find(|s| s.event == Event::Return && s.depth == 0);
    let values = [
        ("function", trace.function.name().to_string()),
        ("ending", said_ending(&ending, lang)),
        ("line", end.map_or(0, |s| s.source_line()).to_string()),
    ];
    Some(Ask {
        key: "status".into(),
        step: first,
        label: trace.steps[first].label,
        text: lang.fill("ask_recorded_end", &values[..1]),
        choices: endings.iter().map(|e| said_ending(e, lang)).collect(),
        answer: endings.iter().position(|e| **e == ending)?,
        explain: lang.fill("explain_recorded_end", &values),
        authored: false,
        written: Vec::new(),
        about: None,
    })
}

/// An ending in words: `returns status "answered"`, `raises ValueError`.
fn said_ending(ending: &Ending, lang: Lang) -> String {
    match ending {
        Ending::Status(status) => lang.fill("recorded_end_status", &[("status", format!("\"{status}\""))]),
        Ending::Returned(None) => lang.word("recorded_end_returned").to_string(),
        Ending::Returned(Some(value)) => lang.fill("recorded_end_value", &[("value", value.clone())]),
        Ending::Record(n) => {
            let record = lang.fill("record_ref", &[("n", n.to_string())]);
            lang.fill("recorded_end_value", &[("value", record)])
        }
        Ending::Raised(kind) if kind.is_empty() => lang.word("recorded_end_raised_any").to_string(),
        Ending::Raised(kind) => lang.fill("recorded_end_raised", &[("kind", kind.clone())]),
    }
}

/// A number from a text (FNV-1a): the same on every machine and in every
/// language, so a question's choices keep their order when the learner
/// switches language.
fn seed(text: &str) -> u64 {
    let h =
        text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3));
    // Mixed (splitmix64's finaliser): keys that differ in their last byte
    // alone (`q#0`, `q#1`) would otherwise rank alike in every question.
    let h = (h ^ (h >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    let h = (h ^ (h >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^ (h >> 31)
}

/// The order `0..n` shuffled by `key` (each index ranked by its own seed).
fn permutation(n: usize, key: &str) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    crate::vocab::sort_small_by_key(&mut order, |i| seed(&format!("{key}#{i}")));
    order
}

/// Where a scenario's first question puts its right choice: its place in
/// the lessons' order, else a number of its id.
fn offset(id: &str) -> usize {
    crate::programs::lesson_scenarios().position(|s| s == id).unwrap_or(seed(id) as usize % 7)
}

/// The shown order (`order[i]`: the written index of the choice shown at
/// `i`) with the right one (written at `answer`) swapped into place
/// `turn % n`, and that place.
fn moved(mut order: Vec<usize>, answer: usize, turn: usize) -> (Vec<usize>, usize) {
    let to = turn % order.len().max(1);
    if let Some(at) = order.iter().position(|&k| k == answer) {
        order.swap(at, to);
    }
    (order, to)
}

fn why_key(ending: &str) -> String {
    format!("why_{ending}")
}

/// "Will the breakpoint on line N be hit?" on the first move, for the
/// first breakpoint in the listing shown. Its stops are counted the way the
/// learner meets them: Debug, then Continue to the end.
fn breakpoint_question(
    trace: &Trace,
    lang: Lang,
    code: Code,
    breakpoints: &[(Function, u32)],
) -> Option<Ask> {
    let &(function, line) = breakpoints.first()?;
    let hits = stops_at(trace, code, function, line);
    let place = [("line", line.to_string()), ("function", function.name().to_string())];
    let explain = if hits > 0 {
        lang.fill("explain_breakpoint_hit", &[place[0].clone(), place[1].clone(), ("n", hits.to_string())])
    } else {
        lang.fill("explain_breakpoint_missed", &place)
    };
    Some(Ask {
        // Another breakpoint is another question.
        key: format!("breakpoint-{}-{line}", function.name()),
        step: 0,
        label: trace.steps.first()?.label,
        text: lang.fill("ask_breakpoint", &place),
        choices: vec![lang.word("choice_yes").to_string(), lang.word("choice_no").to_string()],
        answer: if hits > 0 { 0 } else { 1 },
        explain,
        authored: false,
        written: Vec::new(),
        about: Some((function, line)),
    })
}

/// How many times Debug and then Continue stop at this breakpoint alone.
pub fn stops_at(trace: &Trace, code: Code, function: Function, line: u32) -> usize {
    let mut dbg = Debugger::new();
    dbg.set_code(code);
    dbg.set_breakpoint(function, line, true);
    let last = trace.steps.len().saturating_sub(1);
    let mut stops = 0;
    dbg.command(Command::Debug, &trace.steps);
    loop {
        let here = dbg.position();
        if here < last || trace.steps.get(here).is_some_and(|s| dbg.hits(s)) {
            stops += 1;
        }
        if here >= last {
            return stops;
        }
        dbg.command(Command::Continue, &trace.steps);
    }
}

/// Where a scenario's questions do not sit on a line its run reaches
/// (in the recording `check` made, [`crate::run::CheckRun`]; a run a budget
/// cut short is not judged).
pub fn problems_within(scenario: &Scenario, checked: &crate::run::CheckRun) -> Vec<crate::scenario::Problem> {
    match scenario.questions.is_empty() || crate::run::cut_short(&checked.trace) {
        true => Vec::new(),
        false => problems(scenario, &checked.trace),
    }
}
