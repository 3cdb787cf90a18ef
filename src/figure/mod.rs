//! The SVG figure for one snapshot: the message record as cards, with
//! tool_use ↔ tool_result pairing, what this step changed, the staged
//! results, what is in flight (a request or a tool run), the call budget,
//! the stop_reason and the final status.
//!
//! Built as one escaped string (fast to swap per step). Only the first
//! `record_len` messages exist at a snapshot; very long records fold their
//! middle so the figure stays readable.

use crate::markup::{clip, esc};
use agent_loop_core::programs::Part;
use agent_loop_core::trace::Event;
use agent_loop_core::vocab::Decimal;
use serde_json::Value;

mod canvas;
mod flight;
mod pair;
mod rows;
mod text;

use canvas::*;
pub use canvas::{Layout, Moment, FOLD_AFTER};
use flight::*;
pub use pair::pair;
use rows::*;
pub use text::{card_text, text_alternative};

/// The figure as SVG markup. Data text (ids, field names, values) carries
/// the class `alp-data`; every other word comes from the language tables.
pub fn render(m: &Moment) -> String {
    render_parts(m).concat()
}

/// The figure in three drawings, each drawn from its own top so that one
/// can stay on screen while another changes: the status strip with what is
/// in flight (changes at almost every step), the record (changes when a
/// message is added, a card is opened, or the run is restarted), and the
/// staged results. The record is `svg[data-role="record"]`.
pub fn render_parts(m: &Moment) -> [String; 3] {
    let t = m.trace;
    let step = t.steps.get(m.position);
    let record_len = step.map_or(0, |s| s.record_len as usize).min(t.record.len());
    let locals = step.map(|s| t.locals_json(s)).unwrap_or(Value::Null);
    let (lang, l) = (m.lang, m.layout);
    let mut svg = Svg { body: String::new(), y: 10.0, l };
    status_strip(&mut svg, m);
    // The stage's part is marked; a request, reply or results with nothing
    // drawn for them are the record's (what is sent, what grows).
    let mut mark_record = m.part == Part::Record;
    if m.started {
        mark_record |= !marked(&mut svg, m.part == Part::Flight, |svg| in_flight(svg, m, &locals));
    }
    // The status strip and what is in flight: the caption and the live
    // region say the same in words.
    let head = drawing(
        std::mem::take(&mut svg.body),
        l.w,
        svg.y - 8.0,
        r#"aria-hidden="true" class="alp-fig-head""#,
    );
    // Results waiting to be saved, drawn from their own top; with none,
    // the record they go into is marked instead.
    let mut waiting = Svg { body: String::new(), y: 4.0, l };
    if m.started {
        mark_record |= !marked(&mut waiting, m.part == Part::Staged, |svg| staged(svg, m, &locals));
    }
    let staged = if waiting.body.is_empty() {
        String::new()
    } else {
        drawing(waiting.body, l.w, waiting.y, r#"class="alp-fig-staged""#)
    };
    svg.y = 4.0;
    record_cards(&mut svg, m, record_len);
    let title = esc(lang.word("figure_title"));
    let on = if mark_record { r#" class="alp-on""# } else { "" };
    let record_attrs = format!(r#"data-role="record" role="group" aria-label="{title}"{on}"#);
    let body = format!("<title>{title}</title>{}", std::mem::take(&mut svg.body));
    let record = drawing(body, l.w, svg.y + 4.0, &record_attrs);
    [head, record, staged]
}

/// Draw with `draw`, inside a marked group when `on`; false when the part
/// to be marked drew nothing (true when nothing was to be marked).
fn marked(svg: &mut Svg, on: bool, draw: impl FnOnce(&mut Svg)) -> bool {
    const OPEN: &str = r#"<g class="alp-on">"#;
    let before = svg.body.len();
    if on {
        svg.body.push_str(OPEN);
    }
    draw(svg);
    if !on {
        return true;
    }
    if svg.body.len() == before + OPEN.len() {
        svg.body.truncate(before);
        return false;
    }
    svg.body.push_str("</g>");
    true
}

/// The status strip: the call budget, the last stop_reason, the status
/// (chips that do not fit go to the next line).
fn status_strip(svg: &mut Svg, m: &Moment) {
    let (t, lang, l) = (m.trace, m.lang, m.layout);
    let at_end = m.started && m.position + 1 >= t.steps.len();
    // (text, is data, class)
    let mut chips: Vec<(String, bool, String)> = Vec::new();
    if figure_of(t).budget.contains(&t.function) {
        let calls = [("n", latest_number(t, m.position).to_string()), ("max", t.max_calls.to_string())];
        chips.push((lang.fill("chip_calls", &calls), false, on(m, Part::Calls, "alp-chip alp-chip-calls")));
    }
    if let Some(reason) = latest_reason(t, m.position) {
        chips.push((
            format!("stop_reason: {}", clip(&reason, 18)),
            true,
            on(m, Part::Reason, "alp-chip alp-chip-reason"),
        ));
    }
    let status = if !m.started {
        lang.word("status_not_started").to_string()
    } else if at_end {
        t.ending().map_or_else(|| lang.word("status_done").to_string(), |e| lang.status(e))
    } else {
        lang.word("status_paused").to_string()
    };
    let status_class = match (at_end, t.ending()) {
        (true, Some(ending)) => format!("alp-chip alp-status alp-status-{}", esc(ending)),
        _ => "alp-chip alp-status".into(),
    };
    let status_class = on(m, Part::Status, &status_class);
    chips.push((lang.fill("chip_status", &[("status", status)]), false, status_class));
    let mut x = 10.0;
    for (i, (text, data, class)) in chips.iter().enumerate() {
        let w = 16.0 + text_width(text);
        if x > 10.0 && x + w > l.w - 6.0 {
            x = 10.0;
            svg.y += 30.0;
        }
        svg.body.push_str(&format!(r#"<g class="{class}" data-chip="{i}">"#));
        svg.rect(x, svg.y, w, 24.0, "alp-chip-bg");
        if *data {
            svg.data(x + 7.0, svg.y + 16.5, "alp-chip-text", text);
        } else {
            svg.text(x + 7.0, svg.y + 16.5, "alp-chip-text", text);
        }
        svg.body.push_str("</g>");
        x += w + 8.0;
    }
    svg.y += 36.0;
}

/// A chip's classes, marked when the stage is about it.
fn on(m: &Moment, part: Part, class: &str) -> String {
    if m.part == part {
        format!("{class} alp-on")
    } else {
        class.to_string()
    }
}

/// Where the rows of tool_use and tool_result blocks sit (id, y), for the
/// pairing lines.
#[derive(Default)]
struct Anchors {
    /// A tool_use's id, its row's height, and its place among its reply's requests.
    uses: Vec<(String, f64, usize)>,
    results: Vec<(String, f64)>,
}

/// The record: one card per message that exists at this step (a long
/// record folds its middle), and the lines that pair each tool_use with
/// the tool_result that answers it.
fn record_cards(svg: &mut Svg, m: &Moment, record_len: usize) {
    let (lang, l) = (m.lang, m.layout);
    let name = record_name(m.trace).to_string();
    let title = lang.fill("record_title", &[("name", name), ("n", record_len.to_string())]);
    svg.text(10.0, svg.y + 12.0, "alp-h", &title);
    svg.y += 22.0;
    if record_len == 0 {
        svg.text(l.card_x, svg.y + 14.0, "alp-t-dim", &no_messages(m.trace, lang));
        svg.y += 24.0;
    }
    let folded = record_len > FOLD_AFTER;
    let shown: Vec<usize> = if folded {
        (0..KEEP_HEAD).chain(record_len - KEEP_TAIL..record_len).collect()
    } else {
        (0..record_len).collect()
    };
    let mut anchors = Anchors::default();
    let mut cards = String::new();
    for (k, &i) in shown.iter().enumerate() {
        if folded && k == KEEP_HEAD {
            let hidden = record_len - KEEP_HEAD - KEEP_TAIL;
            let note = lang.fill("folded", &[("n", hidden.to_string())]);
            cards.push_str(&format!(
                r#"<text x="{}" y="{}" class="alp-t-dim alp-fold">{}</text>"#,
                Decimal(l.card_x + 10.0),
                Decimal(svg.y + 14.0),
                esc(&note)
            ));
            svg.y += 24.0;
        }
        let changed = i >= m.previous_len.min(record_len) && m.started;
        svg.y = card(&mut cards, &mut anchors, m, i, svg.y, changed);
    }
    let (links, marks) = pairing(&anchors, m);
    svg.body.push_str(r#"<g data-role="links">"#);
    svg.body.push_str(&links);
    svg.body.push_str("</g>");
    svg.body.push_str(&cards);
    svg.body.push_str(&marks);
    refused(svg, m);
}

/// A request the API refused, as the API's error card below the record,
/// at the step where the program receives it: the run's last, when it
/// ends with the error, or (a recorded program) the step where the error
/// is raised in it.
fn refused(svg: &mut Svg, m: &Moment) {
    let t = m.trace;
    let at_end = m.started && m.position + 1 >= t.steps.len();
    let refused = agent_loop_core::api::refused_message;
    // (read in place: an error may be megabytes, and a step is drawn often)
    let ending = t.error.as_ref().filter(|_| at_end).and_then(|e| refused(&e.message));
    let recorded =
        |s: &&agent_loop_core::trace::Step| s.function.pack().is_some() && s.event == Event::Exception;
    let step = t.steps.get(m.position).filter(|s| m.started && recorded(s));
    let raised = || step.and_then(|s| refused(t.local(s, "raise")?.as_str()?));
    let Some(message) = ending.or_else(raised) else {
        return;
    };
    let l = m.layout;
    // (what it means in words, then the API's message: both wrapped)
    let said = wrap(m.lang.word("card_refused"), l.card_text());
    let rows: Vec<String> = clip(&message, 600).lines().flat_map(|line| wrap(line, l.card_text())).collect();
    let h = 30.0 + LINE_H * (said.len() + rows.len()) as f64;
    svg.body.push_str(r#"<g class="alp-card alp-api-error" data-role="api-error">"#);
    svg.rect(l.card_x, svg.y, l.card_w, h, "alp-card-bg");
    svg.data(l.card_x + 10.0, svg.y + 17.0, "alp-card-head", "400 · invalid_request_error");
    let lines = said.iter().map(|t| (t, false)).chain(rows.iter().map(|t| (t, true)));
    for (r, (text, data)) in lines.enumerate() {
        let y = svg.y + 26.0 + LINE_H * r as f64 + 12.0;
        if data {
            svg.data(l.card_x + 14.0, y, "alp-t-text", text);
        } else {
            svg.text(l.card_x + 10.0, y, "alp-t-dim", text);
        }
    }
    svg.body.push_str("</g>");
    svg.y += h + 10.0;
}

/// One message's card at `y`; returns the `y` below it.
fn card(cards: &mut String, anchors: &mut Anchors, m: &Moment, i: usize, y: f64, changed: bool) -> f64 {
    let (lang, l) = (m.lang, m.layout);
    let message = &m.trace.record[i];
    let role = message["role"].as_str().unwrap_or("?");
    let rows = wrap_rows(rows_of(message, m.lang), l.card_text(), UNPAIRED_ROOM);
    let h = Decimal(26.0 + LINE_H * rows.len() as f64);
    let has_results = rows.iter().any(|r| r.result_id.is_some());
    // (the question opens the record; a plain user message after it is one more message)
    let kind = match (has_results, role) {
        (true, _) => "tool_result",
        (false, "user") if i > 0 => "user_more",
        _ => role,
    };
    // A card opens its full text (click, or Enter when focused).
    cards.push_str(&format!(
        r#"<g data-message-index="{i}" class="alp-card alp-role-{}{}{}" tabindex="0" role="button" aria-pressed="{}">"#,
        esc(role),
        if changed { " alp-changed" } else { "" },
        if m.opened == Some(i) { " alp-opened" } else { "" },
        m.opened == Some(i)
    ));
    cards.push_str(&format!(
        r#"<rect x="{}" y="{}" width="{}" height="{h}" rx="8" class="alp-card-bg"/>"#,
        Decimal(l.card_x),
        Decimal(y),
        Decimal(l.card_w)
    ));
    let label = match kind {
        "user" | "user_more" | "assistant" | "tool_result" => lang.word(&format!("card_{kind}")),
        _ => "",
    };
    cards.push_str(&format!(
        r#"<text x="{}" y="{}" class="alp-card-head"><tspan class="alp-data">#{} {}</tspan>{}</text>"#,
        Decimal(l.card_x + 10.0),
        Decimal(y + 17.0),
        i,
        esc(&format!("{role} · ")),
        esc(label)
    ));
    if changed {
        cards.push_str(&format!(
            r#"<text x="{}" y="{}" class="alp-new">{}</text>"#,
            Decimal(l.card_x + l.card_w - 34.0),
            Decimal(y + 17.0),
            esc(lang.word("new"))
        ));
    }
    for (r, row) in rows.iter().enumerate() {
        let row_y = y + 26.0 + LINE_H * r as f64 + 12.0;
        cards.push_str(&format!(
            r#"<text x="{}" y="{}" class="{}{}">{}</text>"#,
            Decimal(l.card_x + if row.more { 26.0 } else { 14.0 }),
            Decimal(row_y),
            row.class,
            if row.data { " alp-data" } else { "" },
            esc(&row.text)
        ));
        if let Some(id) = &row.use_id {
            let k = anchors.uses.iter().filter(|u| u.1 >= y).count();
            anchors.uses.push((id.clone(), row_y - 4.0, k));
        }
        if let Some(id) = &row.result_id {
            anchors.results.push((id.clone(), row_y - 4.0));
        }
    }
    cards.push_str("</g>");
    y + h.0 + 10.0
}

/// Pairing lines: each tool_use to the tool_result below it that answers
/// it, else a mark that it is unanswered. `(links, marks)`.
fn pairing(anchors: &Anchors, m: &Moment) -> (String, String) {
    let (lang, l) = (m.lang, m.layout);
    let (mut links, mut marks) = (String::new(), String::new());
    // (the pairs of one reply told apart by colour: its k-th request, of four)
    for (id, y1, k) in &anchors.uses {
        match anchors.results.iter().find(|(rid, y2)| rid == id && y2 > y1) {
            Some((_, y2)) => links.push_str(&format!(
                r#"<g class="alp-pair-{k}"><path class="alp-pair" d="M{a} {y1} C {b} {y1}, {b} {y2}, {a} {y2}"/><circle class="alp-pair-dot" cx="{a}" cy="{y1}" r="3"/><circle class="alp-pair-dot" cx="{a}" cy="{y2}" r="3"/></g>"#,
                k = k % 4,
                a = Decimal(l.card_x),
                b = Decimal((l.card_x - 30.0 + 6.0 * (k % 4) as f64).max(3.0)),
                y1 = Decimal(*y1),
                y2 = Decimal(*y2),
            )),
            None => marks.push_str(&format!(
                r#"<g class="alp-unpaired"><circle cx="{a}" cy="{y1}" r="5"/><text x="{x}" y="{ty}" class="alp-t-warn">{label}</text></g>"#,
                a = Decimal(l.card_x),
                y1 = Decimal(*y1),
                x = Decimal(l.card_x + l.card_w - 70.0),
                ty = Decimal(y1 + 4.0),
                label = esc(lang.word("unpaired")),
            )),
        }
    }
    (links, marks)
}
