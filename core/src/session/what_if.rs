//! What if the model (or the process) had answered otherwise: an edit of
//! the scenario's replies and outcomes, checked and refused with its
//! reasons by field, and the comparison of the changed run with the
//! lesson's. A what-if run never replaces the lesson's scenario: the session
//! records the changed copy beside it.

use crate::i18n::Lang;
use crate::run::Trace;
use crate::scenario::{not_json, Problem, Scenario};
use crate::vocab::Function;
use serde_json::Value;

/// A changed version of the scenario on screen, the lesson's own run kept
/// beside it, where they part, and what was wrong with the last edit.
#[derive(Debug, Default)]
pub struct WhatIf {
    pub changed: Option<Scenario>,
    /// The edit the changed version was made with (for a link to it).
    pub edit: Option<Value>,
    pub lesson_run: Option<Trace>,
    pub comparison: Option<Comparison>,
    pub problems: Vec<Problem>,
    /// The new run starts over though the learner was at step `.0`; `.1`
    /// is the word that says why.
    pub restart: Option<(usize, &'static str)>,
}

impl WhatIf {
    /// Apply `edit` to the lesson's scenario `base` (none: no scenario to
    /// change), shown in `lang`: the changed version replaces any before
    /// it; a refused edit changes nothing and keeps its problems.
    pub fn apply(&mut self, base: Option<&Scenario>, lang: Lang, edit: &Value) -> Result<(), Vec<Problem>> {
        let changed = match base {
            Some(base) => changed_scenario(base, lang, edit),
            None => Err(vec![Problem::word("(edit)", "edit_no_scenario")]),
        };
        match changed {
            Ok(changed) => {
                self.problems.clear();
                self.changed = Some(changed);
                self.edit = Some(edit.clone());
                Ok(())
            }
            Err(problems) => Err(self.refuse(problems)),
        }
    }

    /// The lesson's run at step `index` in the listing `code`: `(label,
    /// line)`, for stepping both runs in lockstep.
    pub fn lesson_step(&self, index: usize, code: crate::vocab::Code) -> Option<(&'static str, u32)> {
        let step = self.lesson_run.as_ref()?.steps.get(index)?;
        Some((step.label, crate::lesson::line_in(code, step)))
    }

    /// Where the learner stays on the new run `shown` after an edit made at
    /// step `was.0` of the lesson's run, or of a changed version (`was.1`:
    /// the labels of that version's steps up to it): the same step while
    /// the runs have not parted yet (beside another loop: the step that
    /// stands beside it; after another version: while the new run has
    /// walked the same steps). `None` starts the new run over, and
    /// [`WhatIf::restart`] says why.
    pub fn keep_place(
        &mut self,
        was: Option<(usize, Option<Vec<&'static str>>)>,
        shown: &Trace,
    ) -> Option<usize> {
        let kept = self.kept_place(was.as_ref(), shown);
        self.restart = match (was, kept) {
            (Some((n, from_version)), None) => Some((
                n,
                if from_version.is_some() { "compare_restart_version" } else { "compare_restart_parted" },
            )),
            _ => None,
        };
        kept
    }

    fn kept_place(&self, was: Option<&(usize, Option<Vec<&'static str>>)>, shown: &Trace) -> Option<usize> {
        let (was, lesson, c) = (was?, self.lesson_run.as_ref()?, self.comparison.as_ref()?);
        if let Some(before) = &was.1 {
            let same =
                shown.steps.len() > was.0 && shown.steps.iter().zip(before).all(|(s, l)| s.label == *l);
            return same.then_some(was.0);
        }
        if c.lesson_at.is_some_and(|at| was.0 > at) {
            return None;
        }
        let at = if c.lesson.function == c.changed.function {
            Some(was.0)
        } else {
            counterpart(shown, lesson, was.0)
        };
        at.filter(|at| *at < shown.steps.len())
    }

    /// Editors' texts some of which are not JSON: refused, with what the
    /// checks find in the others (`edit`, the ones that are), at the lines
    /// of `texts`.
    pub fn refuse_texts(
        &mut self,
        base: Option<&Scenario>,
        lang: Lang,
        edit: &Value,
        not_json: Vec<Problem>,
        texts: &[(&str, &str)],
    ) -> Vec<Problem> {
        let more = base.and_then(|base| changed_scenario(base, lang, edit).err()).unwrap_or_default();
        let mut problems: Vec<Problem> = not_json.into_iter().chain(more).collect();
        crate::scenario::json_lines::at_lines(&mut problems, texts);
        self.refuse(problems)
    }

    /// A refused edit: kept to be said in the setup panel (in the reader's
    /// language), and returned (the API says it in English).
    pub fn refuse(&mut self, problems: Vec<Problem>) -> Vec<Problem> {
        self.problems = problems.clone();
        problems
    }

    /// After a recording: the changed version's run (if there is one) goes
    /// on screen with the lesson's run kept beside it; returns the trace to
    /// put on screen.
    pub fn show(&mut self, lesson_run: Trace, changed_run: Option<Trace>) -> Trace {
        match changed_run {
            Some(trace) => {
                self.comparison = Some(Comparison::of(&lesson_run, &trace));
                self.lesson_run = Some(lesson_run);
                trace
            }
            None => {
                self.lesson_run = None;
                self.comparison = None;
                self.restart = None;
                lesson_run
            }
        }
    }
}

/// The lesson's run and the changed one, side by side.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    pub lesson: Summary,
    pub changed: Summary,
    /// The first step where the runs part, in the changed run (`None`: the
    /// same throughout).
    pub parts_at: Option<usize>,
    /// The same place in the lesson's run: the same index, unless the
    /// changed version runs another function of the program (an
    /// anti-pattern loop beside the right one, `Trace::beside`).
    pub lesson_at: Option<usize>,
    /// What differs there: local names, or `line`, `record`, `end`.
    pub differs: Vec<String>,
    /// Where values first differ, when that is before the runs part (the
    /// same line with another `response`), and which: the place the runs
    /// part is the first step where their lines differ.
    pub values_from: Option<(usize, Vec<String>)>,
}

/// What a run came to.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// The entry point that ran.
    pub function: crate::vocab::Function,
    /// The final status or error kind; `done` for a normal return.
    pub ending: String,
    pub calls: i64,
    pub record: usize,
    pub steps: usize,
    /// A run that returns a tool result (`run_main`): `is_error` and the
    /// first line of its content — what such a run comes to, where model
    /// calls and messages are 0 on both sides.
    pub tool_result: Option<String>,
}

impl Comparison {
    /// Two runs side by side: where they part (a scan of both traces).
    pub fn of(lesson: &Trace, changed: &Trace) -> Comparison {
        let (lesson_at, parts_at, differs, values_from) = if lesson.function == changed.function {
            // The runs part where their lines do; values may differ before.
            let first = lesson.parts_from(changed);
            let end = lesson.steps.len().max(changed.steps.len());
            let lines_part = |from: usize| {
                (from..=end)
                    .find(|&i| lesson.differences(changed, i).iter().any(|d| d == "line" || d == "end"))
            };
            let at = first.and_then(lines_part);
            let values = first.filter(|f| Some(*f) != at).map(|f| (f, lesson.differences(changed, f)));
            (at, at, at.map(|i| lesson.differences(changed, i)).unwrap_or_default(), values)
        } else {
            let at = beside(lesson, changed);
            let differs = if at.is_some() { vec!["line".to_string()] } else { Vec::new() };
            (at.map(|a| a.0), at.map(|a| a.1), differs, None)
        };
        Comparison {
            lesson: Summary::of(lesson),
            changed: Summary::of(changed),
            parts_at,
            lesson_at,
            differs,
            values_from,
        }
    }
}

impl Summary {
    fn of(t: &Trace) -> Summary {
        Summary {
            function: t.function,
            ending: t.ending().unwrap_or("done").to_string(),
            // (a loop that raised returns nothing: its requests are counted)
            calls: ["calls", "turns"]
                .iter()
                .find_map(|k| t.result.get(*k).and_then(Value::as_i64))
                .unwrap_or_else(|| {
                    let asks = crate::programs::of(t.function).asks;
                    t.steps.iter().filter(|s| asks.contains(&s.label)).count() as i64
                }),
            record: t.record.len(),
            steps: t.steps.len(),
            tool_result: (t.result["type"] == "tool_result").then(|| {
                let first = t.result["content"].as_str().unwrap_or("").lines().next().unwrap_or("");
                format!("is_error={} · {first}", t.result["is_error"].as_bool().unwrap_or(false))
            }),
        }
    }
}

/// Where run `this` and `other`, a run of another function of the same
/// program on the same replies, part: the steps both functions have
/// (the labels they share) are laid side by side, each frame known by
/// its role (the entry, or the nested function's name), and the first
/// pair that differs (label, frame, record length), or the first step
/// one run has and the other has not, is the parting — as an index
/// into each run. `None` when the shared steps are the same throughout.
pub fn beside(this: &Trace, other: &Trace) -> Option<(usize, usize)> {
    let (mine, yours) = (shared(this, other), shared(other, this));
    let role =
        |t: &Trace, s: &crate::trace::Step| if s.function == t.function { "" } else { s.function.name() };
    let same = |a: &crate::trace::Step, b: &crate::trace::Step| {
        (role(this, a), a.event, a.depth, a.label, a.record_len)
            == (role(other, b), b.event, b.depth, b.label, b.record_len)
    };
    let common = mine.len().min(yours.len());
    // Messages known to be the same in both records (each checked once).
    let mut checked = 0;
    for k in 0..common {
        let (a, b) = (&this.steps[mine[k]], &other.steps[yours[k]]);
        if !same(a, b) {
            return Some((mine[k], yours[k]));
        }
        // The same length, another message: they parted where it was added.
        for m in checked..a.record_len as usize {
            if this.record.get(m) != other.record.get(m) {
                return Some((added(this, m), added(other, m)));
            }
        }
        checked = checked.max(a.record_len as usize);
    }
    let index = |list: &[usize], k: usize, t: &Trace| list.get(k).copied().unwrap_or(t.steps.len());
    (mine.len() != yours.len()).then(|| (index(&mine, common, this), index(&yours, common, other)))
}

/// The learner's place at step `at` of `t`, for [`WhatIf::keep_place`]:
/// on a changed version (`from_version`), with the steps walked to it.
pub fn place(t: &Trace, at: usize, from_version: bool) -> (usize, Option<Vec<&'static str>>) {
    (at, from_version.then(|| t.steps.iter().take(at + 1).map(|st| st.label).collect()))
}

/// The step of `t` whose line added message `m` to the record: the one
/// just before the first step whose record holds it.
fn added(t: &Trace, m: usize) -> usize {
    let holds = t.steps.iter().position(|s| s.record_len as usize > m);
    holds.map_or(t.steps.len(), |i| i.saturating_sub(1))
}

/// The steps of `t` that `o`'s function has too: its frames' ends, the
/// steps of the functions both call (execute_tool), and the lines whose
/// labels `o`'s function carries.
fn shared(t: &Trace, o: &Trace) -> Vec<usize> {
    let theirs: Vec<&str> = crate::lesson::keys(o.function).iter().map(|k| k.1).collect();
    let keep = |s: &crate::trace::Step| {
        s.event != crate::trace::Event::Line || s.function != t.function || theirs.contains(&s.label)
    };
    (0..t.steps.len()).filter(|&i| keep(&t.steps[i])).collect()
}

/// The step of run `this` that stands beside step `i` of `other` (a run of
/// another function of the program): the same shared step, or for a step
/// only `other` has, the last shared one before it. What the lockstep line
/// of the comparison names.
pub fn counterpart(this: &Trace, other: &Trace, i: usize) -> Option<usize> {
    let (mine, yours) = (shared(this, other), shared(other, this));
    let k = yours.iter().rposition(|&j| j <= i)?;
    mine.get(k).copied()
}

/// The edit a playground opens with beside the scenario's own loop (on
/// `shown`): the `compare` attribute, else a `function` attribute that is
/// another loop of the scenario's program (`function="stop_on_text"`).
/// The name asked for and the edit; none when nothing is asked.
pub fn compare_edit(
    asked: &str,
    function: Option<Function>,
    shown: Option<Function>,
) -> Option<(String, Value)> {
    let from_function = shown.zip(function).filter(|(a, b)| crate::programs::beside(*a, *b));
    let name = Some(asked.trim()).filter(|c| !c.is_empty()).or(from_function.map(|(_, b)| b.name()))?;
    Some((name.to_string(), serde_json::json!({ "function": name })))
}

/// Fields an edit may change.
const EDITABLE: [&str; 5] = ["model", "process", "tool_results", "call", "function"];

/// An edit from the texts of the setup panel's editors (`(field, text)`,
/// each field's JSON) and the entry to run them on (none: the scenario's
/// own), of the texts that are JSON; the others are problems of their
/// field.
pub fn edit_of_texts(texts: &[(&str, &str)], function: Option<&str>) -> (Value, Vec<Problem>) {
    let mut edit = serde_json::Map::new();
    let mut problems = Vec::new();
    for (field, text) in texts {
        match serde_json::from_str::<Value>(text) {
            Ok(v) => {
                edit.insert(field.to_string(), v);
            }
            Err(e) => problems.push(Problem::new(*field, not_json(&e))),
        }
    }
    if let Some(function) = function {
        edit.insert("function".into(), Value::String(function.into()));
    }
    (Value::Object(edit), problems)
}

/// The lesson's scenario `base` with an edit applied (`{"model": [...],
/// "process": ...}`), shown in `lang`; or why the edit is refused.
pub fn changed_scenario(base: &Scenario, lang: Lang, edit: &Value) -> Result<Scenario, Vec<Problem>> {
    let problem = |field: &str, key: &'static str| vec![Problem::word(field, key)];
    let Some(edit) = edit.as_object() else {
        return Err(problem("(edit)", "edit_not_object"));
    };
    // (CPython ran a recorded program: the page cannot run it otherwise)
    if crate::programs::recorded::of(base.function).is_some() {
        return Err(problem("(edit)", "edit_recorded"));
    }
    if let Some(key) = edit.keys().find(|k| !EDITABLE.contains(&k.as_str())) {
        return Err(problem(key, "edit_only"));
    }
    let mut raw = Value::clone(&base.raw);
    // Every editor's problems at once (the model's and the process's).
    let mut refused = Vec::new();
    if let Some(model) = edit.get("model") {
        match changed_replies(base, lang, model) {
            Ok(replies) => raw["model"] = replies,
            Err(problems) => refused.extend(problems),
        }
    }
    if let Some(process) = edit.get("process") {
        refused.extend(process_problems(process));
    }
    // (a refused field stays the lesson's: the format's checks of the
    // others are said with it)
    for field in ["process", "tool_results", "call"] {
        if let Some(value) = edit.get(field).filter(|_| !refused.iter().any(|p| p.field.starts_with(field))) {
            raw[field] = value.clone();
        }
    }
    // Another loop of the program on the same replies (an anti-pattern
    // beside the lesson's loop): one its program lists to run beside it.
    if let Some(function) = edit.get("function") {
        let other = function.as_str().and_then(crate::programs::function);
        match other.filter(|f| crate::programs::beside(base.function, *f)) {
            Some(f) => raw["function"] = Value::String(f.name().to_string()),
            None => return Err(problem("function", "edit_function")),
        }
    }
    // The lesson's expectations and questions describe the lesson's run.
    // (a new map, not `remove`: no removal code for the page)
    if let Value::Object(map) = &raw {
        let mut kept = serde_json::Map::new();
        for (k, v) in map.iter().filter(|(k, _)| *k != "expect" && *k != "questions") {
            kept.insert(k.clone(), v.clone());
        }
        raw = Value::Object(kept);
    }
    // The scenario format's own checks say what `check` says.
    match Scenario::from_value(raw) {
        Ok(changed) if refused.is_empty() => Ok(changed),
        Ok(_) => Err(refused),
        Err(more) => Err(refused.into_iter().chain(more).collect()),
    }
}

/// The replies of an edit, a reply left as shown keeping every language
/// (a changed one is the learner's own words); or why not.
fn changed_replies(base: &Scenario, lang: Lang, model: &Value) -> Result<Value, Vec<Problem>> {
    let list = match model.as_array() {
        None => return Err(vec![Problem::word("model", "check_replies")]),
        Some(list) if list.is_empty() => return Err(vec![Problem::word("model", "edit_empty")]),
        Some(list) => list,
    };
    check_replies(list)?;
    let shown = base.localized(lang);
    let replies = list.iter().enumerate().map(|(i, reply)| match shown.model.get(i) {
        Some(same) if same == reply => base.raw["model"][i].clone(),
        _ => reply.clone(),
    });
    Ok(Value::Array(replies.collect()))
}

/// What is wrong with an edit's process outcomes: an empty list would
/// leave every run of main.py without an outcome; a misspelt field
/// (`stdot`) would pass as an outcome without it.
fn process_problems(process: &Value) -> Vec<Problem> {
    if process.as_array().is_some_and(Vec::is_empty) {
        return vec![Problem::word("process", "edit_process_empty")];
    }
    let each: Vec<(String, &Value)> = match process.as_array() {
        Some(list) => list.iter().enumerate().map(|(i, o)| (format!("process[{i}]"), o)).collect(),
        None => vec![("process".to_string(), process)],
    };
    let odd = |o: &Value| {
        o.as_object().and_then(|o| o.keys().find(|k| !OUTCOME_FIELDS.contains(&k.as_str())).cloned())
    };
    each.into_iter()
        .filter_map(|(at, o)| odd(o).map(|key| Problem::word(format!("{at}.{key}"), "edit_process_field")))
        .collect()
}

/// The fields of a process outcome.
const OUTCOME_FIELDS: &[&str] = &["returncode", "stdout", "stderr", "timeout", "os_error"];

/// The fields of a Messages API reply an edit may hold (and `error`, a
/// scripted failure of the model call).
const REPLY_FIELDS: &[&str] =
    &["stop_reason", "content", "id", "type", "role", "model", "usage", "stop_sequence", "error"];

/// The scenario format lets a reply be malformed on purpose (to show a
/// protocol error); an edit still has to be a reply: an object whose
/// `stop_reason`, if given, is a text.
fn check_replies(list: &[Value]) -> Result<(), Vec<Problem>> {
    let problems: Vec<Problem> = list
        .iter()
        .enumerate()
        .filter_map(|(i, reply)| match reply {
            // A misspelt field (`stop_reasn`) would pass as a reply without it.
            Value::Object(map) => {
                match (map.keys().find(|k| !REPLY_FIELDS.contains(&k.as_str())), map.get("stop_reason")) {
                    (Some(key), _) => Some(Problem::word(format!("model[{i}].{key}"), "edit_reply_field")),
                    (None, None | Some(Value::String(_)) | Some(Value::Null)) => None,
                    (None, Some(_)) => {
                        Some(Problem::word(format!("model[{i}].stop_reason"), "edit_stop_reason"))
                    }
                }
            }
            _ => Some(Problem::word(format!("model[{i}]"), "edit_not_reply")),
        })
        .collect();
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems)
    }
}
