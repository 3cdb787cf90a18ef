//! The scenarios recorded: each one run by the harness in each language
//! of the program, a `file` scenario's requests checked by the core's own
//! API checks (`agent_loop_core::api::refusal`, the page's checker), and
//! what a run broke said at its scenario.
//!
//! The one checker: Python cannot call Rust in the middle of a run, so a
//! run's stand-in client logs every request; they are checked here in
//! order, and at the first the API would refuse the scenario runs again
//! with the harness told to raise `anthropic.BadRequestError` (400,
//! `invalid_request_error`, the checker's message) at that request. Again
//! until no request is refused that was not raised at (at most
//! [`MAX_REFUSED`] times): the run is deterministic up to that request,
//! so the earlier verdicts hold.

use super::harness::{self, Failed, Limits, Machine};
use super::manifest::{Entry, Manifest};
use super::program::{Listing, Program};
use super::questions;
use crate::shown;
use agent_loop_core::api;
use agent_loop_core::i18n::Lang;
use agent_loop_core::protocol::Request;
use agent_loop_core::scenario::Scenario;
use serde_json::{json, Map, Value};
use std::path::Path;

/// The most requests one run may have refused.
pub(super) const MAX_REFUSED: usize = 16;

/// A scenario file in the fixture format, checked as `check` checks one;
/// `function`, `id` and `title` may be left out (the manifest's id and
/// title; lesson two's shape when it has `tools`, `tool_results` or
/// `system`, else lesson one's). They are added on the line of the
/// opening brace, so every problem keeps its line.
pub(super) fn parse_file(text: &str, entry: &Entry) -> Result<Scenario, Vec<String>> {
    let said = |problems: Vec<agent_loop_core::scenario::Problem>| -> Vec<String> {
        problems
            .iter()
            .map(|p| match p.line {
                Some(n) => format!("{} (line {n})", shown::problem(p)),
                None => shown::problem(p),
            })
            .collect()
    };
    let obj = match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(obj)) => obj,
        _ => return Scenario::parse(text).map_err(said),
    };
    let mut add = Vec::new();
    if !obj.contains_key("function") {
        let lesson_two = ["tools", "tool_results", "system"].iter().any(|k| obj.contains_key(*k));
        add.push(format!("\"function\": {}", json!(if lesson_two { "agent_loop" } else { "run_loop" })));
    }
    if !obj.contains_key("id") {
        add.push(format!("\"id\": {}", json!(entry.id)));
    }
    if !obj.contains_key("title") {
        add.push(format!("\"title\": {}", json!(entry.title)));
    }
    let open = text.find('{').unwrap_or(0);
    let comma = if obj.is_empty() || add.is_empty() { "" } else { ", " };
    let patched = format!("{}{{{}{comma}{}", &text[..open], add.join(", "), &text[open + 1..]);
    Scenario::parse(&patched).map_err(said)
}

/// What a `file` scenario's stand-ins play, in the run's language.
fn script(scenario: &Scenario, lang: Lang) -> Value {
    let s = scenario.localized(lang);
    let setup = s.setup();
    let process = match s.raw.get("process") {
        Some(Value::Array(list)) => json!({"each": list}),
        Some(one) => json!({"always": one}),
        None => json!({"each": []}),
    };
    let results = s.raw.get("tool_results").filter(|v| v.is_object()).cloned().unwrap_or_else(|| json!({}));
    json!({
        "question": s.question, "system": setup.system, "tools": setup.tools, "model": s.model.to_vec(),
        "process": process, "tool_results": results, "max_calls": s.max_calls,
        "timeout_s": s.own.get("timeout_s").and_then(Value::as_f64).unwrap_or(3.0),
        "no_more_runs": lang.word("double_no_runs"),
    })
}

/// What the page's checker says of a logged request (`None`: accepted).
pub(super) fn refusal_of(request: &Value) -> Option<String> {
    let messages = request["messages"].as_array().map(Vec::as_slice).unwrap_or_default();
    let max_tokens = request["max_tokens"].as_u64().map_or(0, |n| u32::try_from(n).unwrap_or(u32::MAX));
    api::refusal(&Request {
        model: request["model"].as_str().unwrap_or(""),
        system: request["system"].as_str().unwrap_or(""),
        messages,
        tools: &request["tools"],
        max_tokens,
    })
}

/// The first request the checker refuses that the run did not refuse:
/// `Ok(Some((k, message)))`; `Err` when a request the run refused is one
/// the checker accepts now (the program ran otherwise than before).
fn first_new_refusal(
    requests: &Value,
    refused: &Map<String, Value>,
) -> Result<Option<(usize, String)>, String> {
    for (k, logged) in requests.as_array().into_iter().flatten().enumerate() {
        match (refused.contains_key(&k.to_string()), refusal_of(&logged["request"])) {
            (true, None) => {
                return Err(format!(
                    "request {k} was refused in an earlier run and is accepted in this one: \
                     the program does not run the same way twice, so its requests cannot be checked"
                ))
            }
            (false, Some(message)) => return Ok(Some((k, message))),
            _ => {}
        }
    }
    Ok(None)
}

/// One run of the harness, its requests checked (`file` scenarios).
fn checked_run(machine: &mut dyn Machine, listing: &Listing, mut job: Value) -> Result<Value, String> {
    let mut refused = Map::new();
    loop {
        job["refuse"] = Value::Object(refused.clone());
        let answer =
            harness::call(machine, &listing.source.text, &job, "run").map_err(|failed| match failed {
                Failed::Python(why) | Failed::Run(why) => why,
            })?;
        match first_new_refusal(&answer["requests"], &refused)? {
            None => return Ok(answer),
            Some(_) if refused.len() >= MAX_REFUSED => {
                return Err(format!(
                    "the API would refuse more than {MAX_REFUSED} of its requests; it was stopped"
                ))
            }
            Some((k, message)) => {
                refused.insert(k.to_string(), Value::String(message));
            }
        }
    }
}

/// What a run broke, in a sentence; `None` for a run that is fine.
fn trouble(
    answer: &Value,
    m: &Manifest,
    listing: &Listing,
    program: &Program,
    limits: Limits,
) -> Option<String> {
    let p = &answer["problem"];
    let at = |line: &Value| format!("{}:{line}", listing.source.path);
    let said = match p["kind"].as_str() {
        Some("steps") => Some(format!(
            "the run took more than {} steps and was stopped (the step budget; raise it with --max-steps)",
            p["limit"]
        )),
        Some("time") => Some(harness::time_budget(limits.seconds)),
        Some("output") => Some(format!(
            "the run printed more than {} characters; a pack keeps at most that much of a run's output",
            p["limit"]
        )),
        Some("record_shrank") => Some(format!(
            "the record `{}` went from {} to {} messages at {}: a run has one record, and it only grows \
             (append to it; record one conversation per scenario)",
            m.record,
            p["before"],
            p["now"],
            at(&p["line"])
        )),
        Some("record_changed") => Some(format!(
            "message {} of the record `{}` was changed after it was appended (at step {}); the figure \
             draws each message as it was appended: append a new message instead of changing one",
            p["message"], m.record, p["step"]
        )),
        _ => None,
    };
    let stepped = answer["steps"].as_array().is_some_and(|s| !s.is_empty());
    if said.is_none() && stepped && answer["end"].is_null() {
        // (a pack keeps how each run ends: the figure's status and the ending question)
        return Some(
            "the run turned the tracer off (sys.settrace) before its traced entry ended, so how it ends was not \
             recorded; a pack keeps how each run ends"
                .into(),
        );
    }
    if said.is_some() || stepped {
        return said;
    }
    let names: Vec<&str> = program.functions.iter().map(|f| f.name.as_str()).collect();
    Some(match answer["escaped"].get("line").and_then(Value::as_str) {
        Some(line) => {
            let place = answer["escaped"]["where"].as_str().map(|w| format!("{}: ", shown_place(w, listing)));
            format!("the run raised before it called a traced function: {}{line}", place.unwrap_or_default())
        }
        None => format!(
            "the run never called a traced function ({}): the setup's entry call should call one",
            names.join(", ")
        ),
    })
}

/// `file:line` as the CLI names the file (beside the manifest).
fn shown_place(place: &str, listing: &Listing) -> String {
    let sources = std::iter::once(&listing.source).chain(listing.setup.as_ref());
    for source in sources {
        if let Some(line) = place.strip_prefix(&format!("{}:", source.file)) {
            return format!("{}:{line}", source.path);
        }
    }
    place.to_string()
}

/// The job of one scenario in one language.
fn job(
    m: &Manifest,
    program: &Program,
    listing: &Listing,
    entry: &Entry,
    script: Value,
    limits: Limits,
) -> Value {
    let setup = listing.setup.as_ref().map(|s| json!({"file": s.file, "text": s.text}));
    let lang = (program.listings.len() > 1).then_some(listing.lang);
    json!({
        "program": {"file": listing.source.file}, "setup": setup,
        "functions": program.functions.iter().map(|f| f.json()).collect::<Vec<_>>(),
        "record": m.record, "limits": limits.json(),
        "scenario": {"id": entry.id, "lang": lang, "script": script},
    })
}

/// A logged request as the pack keeps it: its step and refusal, and what
/// the figure draws of it in flight (its tools' names, `max_tokens`, how
/// many messages); its messages are the record's.
fn kept_request(logged: &Value) -> Value {
    let request = &logged["request"];
    // (only what the reader takes: names that are texts, a whole max_tokens)
    let tools =
        request["tools"].as_array().map(|t| t.iter().filter_map(|t| t["name"].as_str()).collect::<Vec<_>>());
    json!({
        "step": logged["step"], "refused": logged["refused"],
        "tools": tools, "max_tokens": request["max_tokens"].as_u64().filter(|n| *n <= u64::from(u32::MAX)),
        "messages": request["messages"].as_array().map(Vec::len),
    })
}

/// The run as the pack keeps it.
fn kept(mut answer: Value, checked: bool) -> Value {
    let requests: Vec<Value> =
        answer["requests"].as_array().into_iter().flatten().map(kept_request).collect();
    let mut run = json!({});
    let notes = ["record_found", "lists", "unreadable"];
    for key in ["python", "steps", "values", "record", "output", "printed", "end"].into_iter().chain(notes) {
        run[key] = answer[key].take();
    }
    if checked {
        run["requests"] = Value::Array(requests);
    }
    run
}

/// Where a second language's run leaves the first's: same function,
/// line, depth and event at every step.
fn departs(first: (&Listing, &Value), other: (&Listing, &Value)) -> Option<String> {
    let steps = |run: &Value| run["steps"].as_array().cloned().unwrap_or_default();
    let key = |s: Option<&Value>| {
        s.map(|s| (s["function"].clone(), s["line"].clone(), s["depth"].clone(), s["event"].clone()))
    };
    let (a, b) = (steps(first.1), steps(other.1));
    let at = (0..a.len().max(b.len())).find(|&i| key(a.get(i)) != key(b.get(i)))?;
    let said = |l: &Listing, s: Option<&Value>| match s {
        Some(s) => format!(
            "{}:{} ({} {})",
            l.source.path,
            s["line"],
            s["function"].as_str().unwrap_or(""),
            s["event"].as_str().unwrap_or("")
        ),
        None => "the end of the run".into(),
    };
    Some(format!(
        "the {} program departs from the {} one at step {at}: {} there, {} here; each language's program runs the same lines",
        other.0.lang,
        first.0.lang,
        said(first.0, a.get(at)),
        said(other.0, b.get(at))
    ))
}

/// Record one scenario in every language of the program: the pack's
/// scenario, or what went wrong.
fn scenario(
    machine: &mut dyn Machine,
    m: &Manifest,
    program: &Program,
    dir: &Path,
    entry: &Entry,
    limits: Limits,
) -> Result<Value, Vec<String>> {
    let (mut questions, mut parsed) = (entry.questions.clone(), None);
    if let Some(file) = &entry.file {
        let path = shown::path(&dir.join(file));
        let text = machine.read(&dir.join(file)).map_err(|why| vec![format!("{path}: {why}")])?;
        let text = text.replace("\r\n", "\n");
        let s = parse_file(&text, entry)
            .map_err(|problems| problems.into_iter().map(|p| format!("{path}: {p}")).collect::<Vec<_>>())?;
        let unmarked = questions::check_file(&path, &text, program);
        if !unmarked.is_empty() {
            return Err(unmarked);
        }
        questions.extend(questions::of_file(&text));
        parsed = Some(s);
    }
    let runs = runs_of(machine, m, program, entry, parsed.as_ref(), limits)?;
    let mut by_lang = Map::new();
    for (listing, run) in runs {
        by_lang.insert(listing.lang.to_string(), run);
    }
    let mut out = json!({"id": entry.id, "title": entry.title, "runs": by_lang});
    if let Some(file) = &entry.file {
        out["file"] = json!(file);
    }
    if !questions.is_empty() {
        out["questions"] = Value::Array(questions);
    }
    Ok(out)
}

/// One scenario (its file read, or `None`: the program's own stand-ins)
/// run in every language of the program: each language's run as the pack
/// keeps it, or what went wrong, said at the scenario.
pub(super) fn runs_of<'p>(
    machine: &mut dyn Machine,
    m: &Manifest,
    program: &'p Program,
    entry: &Entry,
    parsed: Option<&Scenario>,
    limits: Limits,
) -> Result<Vec<(&'p Listing, Value)>, Vec<String>> {
    let mut runs = Vec::new();
    for listing in &program.listings {
        let lang = Lang::parse(listing.lang).unwrap_or_else(Lang::english);
        let script = parsed.map_or(Value::Null, |s| script(s, lang));
        let here =
            |why: String| vec![m.said(&entry.field, &format!("{}, {}: {why}", entry.id, listing.lang))];
        let answer =
            checked_run(machine, listing, job(m, program, listing, entry, script, limits)).map_err(here)?;
        if let Some(why) = trouble(&answer, m, listing, program, limits) {
            return Err(here(why));
        }
        runs.push((listing, kept(answer, parsed.is_some())));
    }
    for other in &runs[1..] {
        if let Some(why) = departs((runs[0].0, &runs[0].1), (other.0, &other.1)) {
            return Err(vec![m.said(&entry.field, &format!("{}: {why}", entry.id))]);
        }
    }
    Ok(runs)
}

/// A `record` the manifest names that no run of any scenario held as a
/// list: said at the field, with the lists the traced functions held (the
/// figure would draw no message). The default, `messages`, may go unused,
/// for a program need not hold a conversation: that is a warning (one kept
/// on an object, `state.messages`, is not read). The runs' notes of it are
/// taken out either way (a pack does not keep them).
pub(super) fn record_named(m: &Manifest, scenarios: &mut [Value]) -> Result<Vec<String>, Vec<String>> {
    let (mut found, mut lists) = (false, std::collections::BTreeSet::new());
    for scenario in scenarios.iter_mut() {
        for run in scenario["runs"].as_object_mut().into_iter().flat_map(|runs| runs.values_mut()) {
            found |= run["record_found"] == true;
            lists.extend(
                run["lists"].as_array().into_iter().flatten().filter_map(Value::as_str).map(String::from),
            );
            if let Some(run) = run.as_object_mut() {
                run.remove("record_found");
                run.remove("lists");
            }
        }
    }
    if found {
        return Ok(Vec::new());
    }
    let held = match lists.is_empty() {
        true => "they held no list".to_string(),
        false => format!("the lists they held: {}", lists.into_iter().collect::<Vec<_>>().join(", ")),
    };
    if !m.record_given {
        return Ok(vec![m.warned(
            "record",
            &format!(
                "no traced function had a local list named `{}` at any step of any scenario, so the figure \
                 draws no message; if the program keeps a conversation, keep it in a local list (not on an \
                 object) and name that list with `record` ({held})",
                m.record
            ),
        )]);
    }
    Err(vec![m.said(
        "record",
        &format!(
            "no traced function had a list named `{}` at any step of any scenario, so the figure would draw \
             no message; `record` names the list of messages ({held})",
            m.record
        ),
    )])
}

/// A warning for each class of value a scenario's record holds that the
/// recorder could only write as its `repr` (an author's class with no
/// `model_dump()` and no fields it reads), at the first message that
/// holds it: the figure shows such a block as that text, not as the block
/// it stands for. The runs' notes of it are taken out (a pack does not
/// keep them).
pub(super) fn unreadable_said(m: &Manifest, scenarios: &mut [Value]) -> Vec<String> {
    let mut said = Vec::new();
    for scenario in scenarios.iter_mut() {
        // (a class is said once a scenario: at the first message that holds it)
        let mut classes: Vec<String> = Vec::new();
        let entry = m.scenarios.iter().find(|e| scenario["id"] == e.id.as_str());
        let field = entry.map_or("scenarios", |e| e.field.as_str());
        let id = scenario["id"].as_str().unwrap_or_default().to_string();
        for (lang, run) in scenario["runs"].as_object_mut().into_iter().flatten() {
            let found = run.as_object_mut().and_then(|run| run.remove("unreadable"));
            for note in found.as_ref().and_then(Value::as_array).into_iter().flatten() {
                let (Some(i), Some(at), Some(kind)) = (note[0].as_u64(), note[1].as_str(), note[2].as_str())
                else {
                    continue;
                };
                if classes.iter().any(|c| c == kind) {
                    continue;
                }
                classes.push(kind.to_string());
                let at = if at.is_empty() { String::new() } else { format!(" at {at}") };
                let why = format!(
                    "{id}, {lang}: message #{} of the record holds an object of class {kind}{at}, which the \
                     figure can only show as its repr text: make it JSON data (a dict, a list, a string), a \
                     SimpleNamespace or a dataclass, or give its class a model_dump() as the SDK's objects have",
                    i + 1,
                );
                said.push(m.warned(field, &why));
            }
        }
    }
    said
}

/// Record every scenario of the manifest (each one's problems said, the
/// others still recorded).
pub(super) fn record(
    machine: &mut dyn Machine,
    m: &Manifest,
    program: &Program,
    dir: &Path,
    limits: Limits,
) -> Result<Vec<Value>, Vec<String>> {
    let (mut done, mut errors) = (Vec::new(), Vec::new());
    for entry in &m.scenarios {
        match scenario(machine, m, program, dir, entry, limits) {
            Ok(s) => done.push(s),
            Err(said) => errors.extend(said),
        }
    }
    if errors.is_empty() {
        Ok(done)
    } else {
        Err(errors)
    }
}
