//! What `el.state()` and the page's events report (docs/element-api.md),
//! read from the session's parts.

use super::predictions::Predictions;
use super::replay::Replay;
use super::what_if::WhatIf;
use crate::i18n::Lang;
use crate::lesson;
use serde_json::{json, Value};

/// The state of one playground as JSON.
pub fn state(r: &Replay, lang: Lang, predictions: &Predictions, what_if: &WhatIf) -> Value {
    // The lesson's run beside the one on screen, and where they part.
    let compare = what_if.lesson_run.as_ref().zip(what_if.comparison.as_ref()).map(|(lesson, c)| {
        json!({"function": lesson.function.name(), "partsAt": c.parts_at, "lessonPartsAt": c.lesson_at})
    });
    let step = r.step();
    let breakpoints: Vec<Value> =
        r.debugger().breakpoints().map(|(f, n)| json!({"function": f.name(), "line": n})).collect();
    json!({
        "scenario": r.trace().scenario,
        "function": r.trace().function.name(),
        "program": crate::programs::of(r.trace().function).name,
        "step": r.position(),
        "steps": r.trace().steps.len(),
        "started": r.started(),
        "line": step.map(|s| lesson::line_in(r.code(), s)),
        "listing": r.code().name(),
        "label": step.map(|s| s.label),
        "stage": step.map(lesson::stage),
        "depth": step.map(|s| s.depth),
        "currentFunction": step.map(|s| s.function.name()),
        "status": r.status(),
        "finalStatus": r.trace().ending(),
        "recordLength": r.record_len(),
        "breakpoints": breakpoints,
        "lang": lang.code(),
        "predict": predictions.on(),
        "question": predictions.pending().map(|a| json!({
            "key": a.key, "text": a.text, "choices": a.choices, "label": a.label, "step": a.step,
        })),
        "score": {"right": predictions.score().0, "answered": predictions.score().1},
        "whatIf": what_if.changed.is_some(),
        "compare": compare,
    })
}
