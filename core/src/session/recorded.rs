//! A recorded program the element was given (`program-src`): its pack
//! read and made a program (`programs::recorded`), its scenarios for the
//! catalogue and the scope that offers only them; or why it cannot be
//! used, as a notice that names the file, and nothing of it is shown.

use super::notice::{Notice, Unreadable};
use super::scope::Scope;
use crate::i18n::Lang;
use crate::programs::recorded::{self, Recording};
use crate::scenario::{questions_of, ProcessScript, Scenario};
use serde_json::{Map, Value};

/// A `program-src` pack as opened.
#[derive(Default)]
pub struct Opened {
    /// The file, as the element named it.
    pub file: String,
    /// Its scenarios, in the pack's order.
    pub scenarios: Vec<Scenario>,
    /// The scope that offers them (none: no pack, or a refused one).
    pub scope: Option<Scope>,
    /// Why it cannot be used.
    pub notice: Option<Notice>,
}

/// Open the pack the element fetched (none: no `program-src`).
pub fn open(given: &Option<(String, Result<String, Unreadable>)>) -> Opened {
    let Some((file, text)) = given else { return Opened::default() };
    let refused = |why: &str, detail: &str| Opened {
        // (the reason as a word of its own)
        notice: Some(Notice {
            key: "notice_program_src",
            values: vec![("value", file.clone()), ("why", reason(why).into()), ("detail", detail.into())],
        }),
        file: file.clone(),
        ..Opened::default()
    };
    let text = match text {
        Ok(text) => text,
        Err((why, detail)) => return refused(why, detail),
    };
    let opened = recorded::load(file, text).and_then(|(pack, program)| {
        // (a loop, not a collect into a Result: the page's module stays smaller)
        let mut scenarios = Vec::with_capacity(pack.scenarios.len());
        for (i, recording) in pack.scenarios.iter().enumerate() {
            scenarios.push(scenario(recording, i)?);
        }
        Ok(Opened {
            file: file.clone(),
            scenarios,
            scope: Some(Scope { function: None, program: Some(program.name) }),
            notice: None,
        })
    });
    opened.unwrap_or_else(|(why, detail)| refused(why, &detail))
}

/// A scenario of a recorded program (the pack's `i`-th): its id, title,
/// entry function and the author's questions (a pack whose questions are
/// not in their shape is refused by the first field that is not); its run
/// is CPython's, read from the pack (`own.scenario` names it), so it has
/// no replies or outcomes of its own.
pub fn scenario(recording: &Recording, i: usize) -> Result<Scenario, recorded::Refused> {
    let questions = match &recording.questions {
        Value::Null => Vec::new(),
        given => questions_of(given, "").map_err(|problems| {
            let field = problems.first().map_or("questions", |p| p.field.as_str());
            ("field", format!("scenarios[{i}].{field}"))
        })?,
    };
    let id = Value::String(recording.id.clone());
    let mut own = Map::new();
    own.insert("scenario".into(), id.clone());
    let mut raw = Map::new();
    raw.insert("id".into(), id);
    raw.insert("function".into(), Value::String(recording.function.name().into()));
    Ok(Scenario {
        id: recording.id.clone(),
        function: recording.function,
        title: recording.title.clone(),
        question: String::new(),
        system: String::new(),
        tool_description: String::new(),
        tools: None,
        lang: Lang::english(),
        max_calls: 0,
        model: Vec::new().into(),
        process: ProcessScript::Each(Vec::new()),
        own,
        expect: None,
        questions,
        raw: Value::Object(raw).into(),
    })
}

/// The word that says why a pack cannot be used: why the element could
/// not fetch it (as for `src=`), or why it cannot be read
/// (`programs::recorded`); else the network's.
fn reason(why: &str) -> &'static str {
    const REASONS: [&str; 12] = [
        "program_src_status",
        "program_src_origin",
        "program_src_redirect",
        "program_src_size",
        "program_src_timeout",
        "program_src_url",
        "program_src_network",
        "program_src_json",
        "program_src_format",
        "program_src_hash",
        "program_src_field",
        "program_src_departs",
    ];
    let found = REASONS.iter().find(|r| r.strip_prefix("program_src_") == Some(why));
    found.copied().unwrap_or("program_src_network")
}
