//! What is in flight above the record (the request being sent, a tool run
//! as four stages with its values) and the staged results below it.

use super::canvas::*;
use super::rows::*;
use crate::markup::clip;
use agent_loop_core::lesson;
use agent_loop_core::programs::recorded::Sent;
use agent_loop_core::programs::{self, Asks, Figure, Pipe, ToolRun};
use agent_loop_core::run::Trace;
use agent_loop_core::trace::{Event, Step};
use agent_loop_core::vocab::Decimal;
use serde_json::Value;

/// What the figure draws of the run's program.
pub(super) fn figure_of(t: &Trace) -> &'static Figure {
    programs::of(t.function).figure
}

/// The model call number at or before `position` (of a function with a
/// call budget).
pub(super) fn latest_number(t: &Trace, position: usize) -> i64 {
    let budget = figure_of(t).budget;
    t.steps[..=position.min(t.steps.len().saturating_sub(1))]
        .iter()
        .rev()
        .filter(|s| budget.contains(&s.function))
        .find_map(|s| t.local(s, "number")?.as_i64())
        .unwrap_or(0)
}

/// The latest stop_reason seen at or before `position`: from the last
/// step that has one, or none since a new request began. The walk back is
/// remembered (`Trace::reason_walk`): at the end of a long tool loop, a
/// step from a nearby one does not walk the loop again.
pub(super) fn latest_reason(t: &Trace, position: usize) -> Option<String> {
    let figure = figure_of(t);
    let asks = figure.asks.as_ref().map(|a| a.function);
    // Some(None): a new request starts here; Some(Some(r)): r is seen here.
    let reason_at = |i: usize| -> Option<Option<String>> {
        let s = &t.steps[i];
        // (a recorded run's new request starts where its pack says one is sent)
        let sent = || s.function.pack().is_some() && lesson::request_at(t, i).is_some();
        // (nor where a recorded program's request raised: no reply came)
        let raised = || s.function.pack().is_some() && s.event == Event::Exception;
        if figure.fresh.contains(&s.label) || sent() || raised() {
            return Some(None);
        }
        // (only the locals that can hold it are read: a tool loop of
        // thousands of steps is walked by name)
        let text = |v: &Value| v.as_str().map(String::from);
        let reason = t.local(s, "reason").and_then(|r| text(&r));
        let reason = reason.or_else(|| t.local(s, "response").and_then(|r| text(&r["stop_reason"])));
        let returned = || t.local(s, "return").and_then(|r| text(&r["stop_reason"]));
        let reason =
            reason.or_else(|| (s.event == Event::Return && Some(s.function) == asks).then(returned)?);
        reason.map(Some)
    };
    let at = t.reason_walk.latest(t.steps.len(), position, |i| reason_at(i).is_some())?;
    reason_at(at).flatten()
}

/// The request or tool run in progress, drawn above the record.
pub(super) fn in_flight(svg: &mut Svg, m: &Moment, locals: &Value) {
    let Some(step) = m.trace.steps.get(m.position) else { return };
    let figure = figure_of(m.trace);
    // (a loop draws its record, not a request; a function the program
    // draws nothing for has nothing in flight)
    if let Some(asks) = figure.asks.as_ref().filter(|a| a.function == step.function) {
        request_in_flight(svg, m, step, locals, asks);
    } else if let Some(tool) = figure.tool.as_ref().filter(|t| t.function == step.function) {
        tool_pipeline(svg, m, step, tool);
        tool_values(svg, m, step, locals, tool);
    } else if let Some(sent) = lesson::request_at(m.trace, m.position) {
        request_sent(svg, m, step, sent);
    }
}

/// A recorded program's request, drawn at the stop it is sent from: the
/// tools and max_tokens it carries (when its pack kept them) and how many
/// messages; the reply comes once the line has run.
pub(super) fn request_sent(svg: &mut Svg, m: &Moment, step: &Step, sent: &Sent) {
    let lang = m.lang;
    let tools = sent.tools.as_ref().map(|t| format!("tools: [{}]", t.join(", ")));
    let max_tokens = sent.max_tokens.map(|n| format!("max_tokens: {n}"));
    let carried: Vec<String> = tools.into_iter().chain(max_tokens).collect();
    let mut lines = Vec::new();
    if !carried.is_empty() {
        lines.push((carried.join("   "), true));
    }
    let n = sent.messages.unwrap_or(step.record_len);
    lines.push((lang.fill("recorded_flight_messages", &[("n", n.to_string())]), false));
    lines.push((lang.word("flight_waiting").to_string(), false));
    panel(svg, lang.word("recorded_flight"), &lines, "alp-flight-ask");
}

/// The request being sent (with the tools and max_tokens it always
/// sends), and what came back once it did.
pub(super) fn request_in_flight(svg: &mut Svg, m: &Moment, step: &Step, locals: &Value, asks: &Asks) {
    let lang = m.lang;
    let (tools, max_tokens) = (asks.tools, asks.max_tokens);
    let response = match (&locals["response"], &locals["return"]) {
        (Value::Object(r), _) | (_, Value::Object(r)) => {
            let reason = r.get("stop_reason").and_then(Value::as_str).unwrap_or("?").to_string();
            let blocks = r.get("content").and_then(Value::as_array).map_or(0, Vec::len).to_string();
            lang.fill("flight_response", &[("reason", reason), ("blocks", blocks)])
        }
        _ => lang.word("flight_waiting").to_string(),
    };
    let lines = [
        (format!("system ✓   tools: {tools}   max_tokens: {max_tokens}"), true),
        (lang.fill("flight_messages", &[("n", step.record_len.to_string())]), false),
        (response, false),
    ];
    panel(svg, lang.word("flight_ask"), &lines, "alp-flight-ask");
}

/// A tool run as four stages (call, validate, process, result), the one on
/// screen marked.
pub(super) fn tool_pipeline(svg: &mut Svg, m: &Moment, step: &Step, tool: &ToolRun) {
    let lang = m.lang;
    let stages = ["call", "validate", "process", "result"];
    let reached = match (tool.pipe)(lesson::stage(step)) {
        Pipe::Call => 0,
        Pipe::Validate | Pipe::Refused => 1,
        Pipe::Process => 2,
        Pipe::Result => 3,
    };
    let rejected = m.trace.steps[..=m.position]
        .iter()
        .rev()
        .take_while(|s| s.function == tool.function)
        .any(|s| (tool.pipe)(lesson::stage(s)) == Pipe::Refused);
    svg.text(10.0, svg.y + 12.0, "alp-h", lang.word("tool_run"));
    svg.y += 20.0;
    // Four boxes in a row, or two rows of two where it is narrow.
    let per_row = if svg.l.w < Layout::WIDE.w { 2 } else { 4 };
    let box_w = (svg.l.w - 20.0 - 14.0 * (per_row as f64 - 1.0)) / per_row as f64 - 12.0;
    let mut x = 10.0;
    for (i, name) in stages.iter().enumerate() {
        if i > 0 && i % per_row == 0 {
            x = 10.0;
            svg.y += 34.0;
        }
        let skipped = rejected && i == 2;
        let class = match (i.cmp(&reached), skipped) {
            (std::cmp::Ordering::Equal, _) => "alp-pipe alp-pipe-now",
            (std::cmp::Ordering::Less, true) => "alp-pipe alp-pipe-skip",
            (std::cmp::Ordering::Less, false) => "alp-pipe alp-pipe-done",
            _ => "alp-pipe",
        };
        let label = if skipped { lang.word("pipe_skipped") } else { lang.word(&format!("pipe_{name}")) };
        svg.body.push_str(&format!(r#"<g class="{class}" data-pipe="{name}">"#));
        svg.rect(x, svg.y, box_w, 26.0, "alp-pipe-bg");
        svg.text(x + 10.0, svg.y + 17.0, "alp-pipe-text", label);
        svg.body.push_str("</g>");
        if i + 1 < stages.len() {
            svg.data(x + box_w + 2.0, svg.y + 17.0, "alp-t-dim", "→");
        }
        x += box_w + 14.0;
    }
    svg.y += 34.0;
}

/// The values of a tool run so far: the call, the process, the output cap,
/// the result.
pub(super) fn tool_values(svg: &mut Svg, m: &Moment, step: &Step, locals: &Value, tool: &ToolRun) {
    let lang = m.lang;
    let call = if locals["call"].is_object() { &locals["call"] } else { &Value::Null };
    let result = if locals["result"].is_object() { &locals["result"] } else { &locals["return"] };
    let mut lines = Vec::new();
    if !call.is_null() {
        lines.push((
            format!(
                "call: id={} name={} input={}",
                clip(call["id"].as_str().unwrap_or("?"), 14),
                clip(call["name"].as_str().unwrap_or("?"), 16),
                clip(&call["input"].to_string(), 20)
            ),
            true,
        ));
    }
    if let Some(rc) = locals["returncode"].as_i64() {
        lines.push((format!("process: returncode={rc}"), true));
    }
    // Where the output is capped, its length before → after.
    if tool.capped.contains(&step.label) {
        let limit = tool.limit;
        let before = output_before_cap(m, tool.cap_at);
        if before > limit {
            let values =
                [("before", before.to_string()), ("after", limit.to_string()), ("limit", limit.to_string())];
            lines.push((lang.fill("output_cap", &values), false));
        }
    }
    if result.is_object() {
        let content = result["content"]
            .as_str()
            .map(|c| clip(c.lines().next().unwrap_or(""), 30))
            .unwrap_or_else(|| "…".into());
        let err = result["is_error"].as_bool().map(|b| format!("  is_error={b}")).unwrap_or_default();
        let id = clip(result["tool_use_id"].as_str().unwrap_or("?"), 14);
        lines.push((format!("tool_result → {id}{err}  {content}"), true));
    }
    if !lines.is_empty() {
        panel(svg, lang.word("current_values"), &lines, "alp-flight-main");
    }
}

/// A titled box of lines; each line is `(text, is data)`.
pub(super) fn panel(svg: &mut Svg, title: &str, lines: &[(String, bool)], class: &str) {
    let room = svg.l.panel_text();
    let lines: Vec<(String, bool)> =
        lines.iter().flat_map(|(line, data)| wrap(line, room).into_iter().map(move |l| (l, *data))).collect();
    let h = 26.0 + LINE_H * lines.len() as f64;
    svg.body.push_str(&format!(r#"<g class="alp-panel {class}">"#));
    svg.rect(10.0, svg.y, svg.l.w - 20.0, h, "alp-panel-bg");
    svg.text(20.0, svg.y + 17.0, "alp-card-head", title);
    for (i, (line, data)) in lines.iter().enumerate() {
        let y = svg.y + 26.0 + LINE_H * i as f64 + 12.0;
        if *data {
            svg.data(24.0, y, "alp-t-text", line);
        } else {
            svg.text(24.0, y, "alp-t-text", line);
        }
    }
    svg.body.push_str("</g>");
    svg.y += h + 12.0;
}

/// Results collected but not yet appended to the record.
pub(super) fn staged(svg: &mut Svg, m: &Moment, locals: &Value) {
    let Some(step) = m.trace.steps.get(m.position) else { return };
    let figure = figure_of(m.trace);
    if !figure.staged.contains(&step.function) {
        return;
    }
    let lang = m.lang;
    let found = match figure.staged_by_kind {
        true => {
            unsaved(m, step, locals).map(|(name, r)| (lang.fill("recorded_staged", &[("name", name)]), r))
        }
        false => locals["results"].as_array().map(|r| (lang.word("staged").to_string(), r)),
    };
    let Some((title, results)) = found.filter(|(_, r)| !r.is_empty()) else { return };
    // (the local's preview of a long list counts what it left out)
    let saved: Vec<&Value> = results.iter().filter(|r| r.is_object()).collect();
    let hidden = (saved.len() + agent_loop_core::preview::left_out(results)).saturating_sub(BLOCKS_SHOWN);
    let mut lines: Vec<String> = saved
        .iter()
        .take(BLOCKS_SHOWN)
        .map(|r| {
            let content = r["content"].as_str().unwrap_or("");
            // (is_error as the program wrote it: a result without one has none)
            let flag = r["is_error"].as_bool().map_or(String::new(), |e| format!("is_error={e}  "));
            format!(
                "tool_result → {}  {flag}{}",
                clip(r["tool_use_id"].as_str().unwrap_or("?"), 14),
                clip(content.lines().next().unwrap_or(""), 22)
            )
        })
        .collect();
    lines.extend(more_blocks(hidden, lang).map(|row| row.text));
    let l = svg.l;
    let lines: Vec<String> = lines.iter().flat_map(|line| wrap(line, l.card_text())).collect();
    let h = 26.0 + LINE_H * lines.len() as f64;
    svg.body.push_str(r#"<g class="alp-staged" data-role="staged">"#);
    svg.body.push_str(&format!(
        r#"<rect x="{}" y="{}" width="{}" height="{}" rx="8" class="alp-staged-bg"/>"#,
        Decimal(l.card_x),
        Decimal(svg.y),
        Decimal(l.card_w),
        Decimal(h)
    ));
    svg.text(l.card_x + 10.0, svg.y + 17.0, "alp-card-head", &title);
    for (i, line) in lines.iter().enumerate() {
        svg.data(l.card_x + 14.0, svg.y + 26.0 + LINE_H * i as f64 + 12.0, "alp-t-dim", line);
    }
    svg.body.push_str("</g>");
    svg.y += h + 10.0;
}

/// A local of this step holding `tool_result` blocks not all in the record
/// yet, found by what it holds (a recorded program's names are its
/// author's): its name and the list. A list already appended (its ids all
/// answered in the record so far) is the record's now.
fn unsaved<'a>(m: &Moment, step: &Step, locals: &'a Value) -> Option<(String, &'a Vec<Value>)> {
    let record = &m.trace.record[..(step.record_len as usize).min(m.trace.record.len())];
    let blocks = record.iter().filter_map(|message| message["content"].as_array()).flatten();
    // (ids compared as text: a JSON value's equality brings more code into the module)
    let is_result = |b: &Value| b["type"].as_str() == Some("tool_result");
    let answered: Vec<&str> =
        blocks.filter(|b| is_result(b)).filter_map(|b| b["tool_use_id"].as_str()).collect();
    locals.as_object()?.iter().find_map(|(name, value)| {
        let list = value.as_array()?;
        let mut results = list.iter().filter(|r| r.is_object()).peekable();
        results.peek()?;
        let mut unsaved = false;
        for r in results {
            if !is_result(r) {
                return None;
            }
            unsaved |= !r["tool_use_id"].as_str().is_some_and(|id| answered.contains(&id));
        }
        unsaved.then(|| (name.clone(), list))
    })
}

/// The output's length before the cap: at the step `cap_at` of the
/// current tool run (this step or one of the last few).
pub(super) fn output_before_cap(m: &Moment, cap_at: &str) -> usize {
    m.trace.steps[..=m.position].iter().rev().take(4).find(|s| s.label == cap_at).map_or(0, |s| {
        agent_loop_core::preview::full_length(m.trace.locals_json(s)["output"].as_str().unwrap_or(""))
    })
}
