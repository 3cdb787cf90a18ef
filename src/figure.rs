//! The SVG figure for one snapshot: the message record as cards, with
//! tool_use ↔ tool_result pairing, what this step changed, the staged
//! results, what is in flight (a request or a tool run), the call budget,
//! the stop_reason and the final status.
//!
//! Built as one escaped string (fast to swap per step). Only the first
//! `record_len` messages exist at a snapshot; very long records fold their
//! middle so the figure stays readable.

use crate::markup::{clip, esc};
use agent_loop_core::i18n::Lang;
use agent_loop_core::lesson;
use agent_loop_core::programs::lesson_one;
use agent_loop_core::run::Trace;
use agent_loop_core::trace::Event;
use agent_loop_core::vocab::Decimal;
use serde_json::Value;

const LINE_H: f64 = 18.0;

/// The figure's geometry: wide (a desktop column) or narrow (a phone, a
/// narrow course column), where long lines wrap instead of shrinking.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Layout {
    /// Width of the drawing (its viewBox).
    pub w: f64,
    card_x: f64,
    card_w: f64,
}

impl Layout {
    pub const WIDE: Layout = Layout { w: 520.0, card_x: 40.0, card_w: 460.0 };
    pub const NARROW: Layout = Layout { w: 340.0, card_x: 24.0, card_w: 310.0 };
    /// The layout for a figure box `width` CSS pixels wide.
    pub fn for_width(width: f64) -> Layout {
        if width > 0.0 && width < Layout::WIDE.w - 20.0 {
            Layout::NARROW
        } else {
            Layout::WIDE
        }
    }
    /// The layout for an element `width` CSS pixels wide (0: unknown):
    /// the figure takes half of it above 900 px (code beside it), else all
    /// of it, less padding.
    pub fn for_element(width: f64) -> Layout {
        let figure = if width > 900.0 { width / 2.0 - 28.0 } else { width - 34.0 };
        if width > 0.0 {
            Layout::for_width(figure)
        } else {
            Layout::WIDE
        }
    }

    /// Room for text inside a card.
    fn card_text(&self) -> f64 {
        self.card_w - 28.0
    }
    /// Room for text inside a full-width panel.
    fn panel_text(&self) -> f64 {
        self.w - 48.0
    }
}
/// Records longer than this fold their middle.
pub const FOLD_AFTER: usize = 20;
const KEEP_HEAD: usize = 1;
const KEEP_TAIL: usize = 10;

/// Everything the figure needs about the current moment.
pub struct Moment<'a> {
    pub trace: &'a Trace,
    pub position: usize,
    /// Record length at the previously shown step (to mark what changed).
    pub previous_len: usize,
    pub lang: Lang,
    pub started: bool,
    /// The card whose full text is open, if any.
    pub opened: Option<usize>,
    pub layout: Layout,
}

struct Svg {
    body: String,
    y: f64,
    l: Layout,
}

impl Svg {
    /// Words of the page (from the language tables).
    fn text(&mut self, x: f64, y: f64, class: &str, text: &str) {
        let (x, y) = (Decimal(x), Decimal(y));
        self.body.push_str(&format!(r#"<text x="{x}" y="{y}" class="{class}">{}</text>"#, esc(text)));
    }
    /// Data and code (ids, field names, values): the same in every language.
    fn data(&mut self, x: f64, y: f64, class: &str, text: &str) {
        self.text(x, y, &format!("{class} alp-data"), text);
    }
    fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, class: &str) {
        let [x, y, w, h] = [x, y, w, h].map(Decimal);
        self.body
            .push_str(&format!(r#"<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="6" class="{class}"/>"#));
    }
}

/// One line of a card: its text and, for pairing, a tool id.
struct Row {
    text: String,
    /// Data (the same in every language) rather than words of the page.
    data: bool,
    class: &'static str,
    use_id: Option<String>,
    result_id: Option<String>,
    /// The rest of a wrapped row (drawn indented).
    more: bool,
}

fn rows_of(message: &Value, lang: Lang) -> Vec<Row> {
    let mut rows = Vec::new();
    let row = |text: String, class: &'static str| Row {
        text,
        data: true,
        use_id: None,
        result_id: None,
        class,
        more: false,
    };
    let words = |text: String, class: &'static str| Row {
        text,
        data: false,
        use_id: None,
        result_id: None,
        class,
        more: false,
    };
    match &message["content"] {
        Value::String(s) => rows.push(row(format!("“{}”", clip(s, 56)), "alp-t-text")),
        Value::Array(blocks) if blocks.is_empty() => {
            rows.push(words(format!("[ ] {}", lang.word("empty_content")), "alp-t-warn"))
        }
        Value::Array(blocks) => {
            for b in blocks {
                match b["type"].as_str() {
                    Some("text") => rows.push(row(
                        format!("text: {}", clip(b["text"].as_str().unwrap_or(""), 50)),
                        "alp-t-text",
                    )),
                    Some("tool_use") => {
                        let id = b["id"].as_str().unwrap_or("").to_string();
                        let input = clip(&b["input"].to_string(), 24);
                        let name = b["name"].as_str().unwrap_or("?");
                        rows.push(Row {
                            text: format!(
                                "tool_use  id={}  name={}  input={input}",
                                clip(&id, 14),
                                clip(name, 16)
                            ),
                            data: true,
                            class: "alp-t-use",
                            use_id: Some(id),
                            result_id: None,
                            more: false,
                        });
                    }
                    Some("tool_result") => {
                        let id = b["tool_use_id"].as_str().unwrap_or("").to_string();
                        let err = b["is_error"].as_bool().unwrap_or(false);
                        rows.push(Row {
                            text: format!("tool_result → {}  is_error={err}", clip(&id, 14)),
                            data: true,
                            class: if err { "alp-t-err" } else { "alp-t-ok" },
                            use_id: None,
                            result_id: Some(id),
                            more: false,
                        });
                        // The first line (exit code) and the last (where a
                        // traceback says what went wrong).
                        let content = b["content"].as_str().unwrap_or("");
                        let first = content.lines().next().unwrap_or("");
                        let last = content
                            .lines()
                            .skip(1)
                            .last()
                            .map(|l| format!("  ·  {}", clip(&lang.said_text(l), 40)))
                            .unwrap_or_default();
                        rows.push(row(format!("   {}{last}", clip(&lang.said_text(first), 30)), "alp-t-dim"));
                    }
                    other => rows.push(words(
                        lang.fill("not_in_lesson", &[("kind", other.unwrap_or("?").to_string())]),
                        "alp-t-warn",
                    )),
                }
            }
        }
        other => rows.push(row(format!("content: {}", clip(&other.to_string(), 40)), "alp-t-warn")),
    }
    rows
}

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
    let at_end = m.started && m.position + 1 >= t.steps.len();
    let lang = m.lang;
    let l = m.layout;
    let mut svg = Svg { body: String::new(), y: 10.0, l };
    let title = esc(lang.word("figure_title"));

    // Status strip: budget, stop_reason, status. (text, is data, class)
    let number = latest_number(t, m.position);
    let mut chips: Vec<(String, bool, String)> = Vec::new();
    if t.function == lesson_one::RUN_LOOP {
        let calls = [("n", number.to_string()), ("max", t.max_calls.to_string())];
        chips.push((lang.fill("chip_calls", &calls), false, "alp-chip".into()));
    }
    if let Some(reason) = latest_reason(t, m.position) {
        chips.push((format!("stop_reason: {}", clip(&reason, 18)), true, "alp-chip alp-chip-reason".into()));
    }
    let status = if !m.started {
        lang.word("status_not_started").to_string()
    } else if at_end {
        t.ending().map_or_else(|| lang.word("status_done").to_string(), |e| lang.status(e))
    } else {
        lang.word("status_running").to_string()
    };
    let status_class = match (at_end, t.ending()) {
        (true, Some(ending)) => format!("alp-chip alp-status alp-status-{}", esc(ending)),
        _ => "alp-chip alp-status".into(),
    };
    chips.push((lang.fill("chip_status", &[("status", status)]), false, status_class));
    let mut x = 10.0;
    for (i, (text, data, class)) in chips.iter().enumerate() {
        let w = 16.0 + text_width(text);
        // Chips that do not fit go to the next line.
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

    if m.started {
        in_flight(&mut svg, m, &locals);
    }
    // The status strip and what is in flight: the caption and the live
    // region say the same in words.
    let head = drawing(
        std::mem::take(&mut svg.body),
        l.w,
        svg.y - 8.0,
        r#"aria-hidden="true" class="alp-fig-head""#,
    );
    svg.y = 4.0;

    // The record.
    svg.text(10.0, svg.y + 12.0, "alp-h", &lang.fill("record_title", &[("n", record_len.to_string())]));
    svg.y += 22.0;
    if record_len == 0 {
        svg.text(l.card_x, svg.y + 14.0, "alp-t-dim", lang.word("empty_record"));
        svg.y += 24.0;
    }
    let folded = record_len > FOLD_AFTER;
    let shown: Vec<usize> = if folded {
        (0..KEEP_HEAD).chain(record_len - KEEP_TAIL..record_len).collect()
    } else {
        (0..record_len).collect()
    };
    let mut use_rows: Vec<(String, f64)> = Vec::new();
    let mut result_rows: Vec<(String, f64)> = Vec::new();
    let mut links = String::new();
    let mut marks = String::new();
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
        let message = &t.record[i];
        let role = message["role"].as_str().unwrap_or("?");
        let rows = wrap_rows(rows_of(message, m.lang), l.card_text(), UNPAIRED_ROOM);
        let h = Decimal(26.0 + LINE_H * rows.len() as f64);
        let changed = i >= m.previous_len.min(record_len) && m.started;
        let has_results = rows.iter().any(|r| r.result_id.is_some());
        let kind = if has_results { "tool_result" } else { role };
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
            Decimal(svg.y),
            Decimal(l.card_w)
        ));
        let label = match kind {
            "user" | "assistant" | "tool_result" => lang.word(&format!("card_{kind}")),
            _ => "",
        };
        cards.push_str(&format!(
            r#"<text x="{}" y="{}" class="alp-card-head"><tspan class="alp-data">#{} {}</tspan>{}</text>"#,
            Decimal(l.card_x + 10.0),
            Decimal(svg.y + 17.0),
            i,
            esc(&format!("{role} · ")),
            esc(label)
        ));
        if changed {
            cards.push_str(&format!(
                r#"<text x="{}" y="{}" class="alp-new">{}</text>"#,
                Decimal(l.card_x + l.card_w - 34.0),
                Decimal(svg.y + 17.0),
                esc(lang.word("new"))
            ));
        }
        for (r, row) in rows.iter().enumerate() {
            let y = svg.y + 26.0 + LINE_H * r as f64 + 12.0;
            cards.push_str(&format!(
                r#"<text x="{}" y="{}" class="{}{}">{}</text>"#,
                Decimal(l.card_x + if row.more { 26.0 } else { 14.0 }),
                Decimal(y),
                row.class,
                if row.data { " alp-data" } else { "" },
                esc(&row.text)
            ));
            if let Some(id) = &row.use_id {
                use_rows.push((id.clone(), y - 4.0));
            }
            if let Some(id) = &row.result_id {
                result_rows.push((id.clone(), y - 4.0));
            }
        }
        cards.push_str("</g>");
        svg.y += h.0 + 10.0;
    }
    // Pairing lines: each tool_use to the tool_result that answers it.
    for (id, y1) in &use_rows {
        match result_rows.iter().find(|(rid, y2)| rid == id && y2 > y1) {
            Some((_, y2)) => links.push_str(&format!(
                r#"<path class="alp-pair" d="M{a} {y1} C {b} {y1}, {b} {y2}, {a} {y2}"/><circle class="alp-pair-dot" cx="{a}" cy="{y1}" r="3"/><circle class="alp-pair-dot" cx="{a}" cy="{y2}" r="3"/>"#,
                a = Decimal(l.card_x),
                b = Decimal((l.card_x - 30.0).max(3.0)),
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
    svg.body.push_str(r#"<g data-role="links">"#);
    svg.body.push_str(&links);
    svg.body.push_str("</g>");
    svg.body.push_str(&cards);
    svg.body.push_str(&marks);

    let record_attrs = format!(r#"data-role="record" role="group" aria-label="{title}""#);
    let body = format!("<title>{title}</title>{}", std::mem::take(&mut svg.body));
    let record = drawing(body, l.w, svg.y + 4.0, &record_attrs);
    svg.y = 4.0;
    if m.started {
        staged(&mut svg, m, &locals);
    }
    let staged = if svg.body.is_empty() {
        String::new()
    } else {
        drawing(svg.body, l.w, svg.y, r#"class="alp-fig-staged""#)
    };
    [head, record, staged]
}

/// One `<svg>` of the figure, `w` × `h` from its own top.
fn drawing(body: String, w: f64, h: f64, attrs: &str) -> String {
    let (w, h) = (Decimal(w), Decimal(h));
    format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" {attrs} viewBox="0 0 {w} {h}" width="{w}" height="{h}">{body}</svg>"#
    )
}

/// Approximate rendered width of monospace text at 12px: wide (CJK)
/// characters take about twice the room of ASCII ones.
fn text_width(text: &str) -> f64 {
    text.chars().map(char_width).sum()
}

fn char_width(c: char) -> f64 {
    if (c as u32) >= 0x1100 {
        12.5
    } else {
        7.3
    }
}

/// A line cut into pieces that fit in `room` pixels: after a gap of two
/// spaces (between fields) if there is one, else after a space, else
/// anywhere. A piece keeps its last space, so the pieces read as the line.
fn wrap(line: &str, room: f64) -> Vec<String> {
    let mut pieces = Vec::new();
    let mut rest = line.to_string();
    while text_width(&rest) > room && pieces.len() < 8 {
        let mut width = 0.0;
        let fits = rest.char_indices().take_while(|(_, c)| {
            width += char_width(*c);
            width <= room
        });
        let end = fits.last().map_or(0, |(i, c)| i + c.len_utf8());
        let head = &rest[..end];
        let cut = head.rfind("  ").or_else(|| head.rfind(' ')).filter(|&i| i > 8).map_or(end, |i| i + 1);
        if cut == 0 {
            break;
        }
        pieces.push(rest[..cut].to_string());
        rest = rest[cut..].trim_start().to_string();
    }
    pieces.push(rest);
    pieces
}

/// Room kept at the right of a tool request's row for the "unpaired" mark.
const UNPAIRED_ROOM: f64 = 74.0;

/// The rows of a card, long ones wrapped; a tool id stays on the first
/// piece, and a tool request's row leaves `mark_room` for its mark.
fn wrap_rows(rows: Vec<Row>, room: f64, mark_room: f64) -> Vec<Row> {
    let mut out = Vec::new();
    for row in rows {
        let room = if row.use_id.is_some() { room - mark_room } else { room };
        let mut pieces = wrap(&row.text, room).into_iter();
        let first = pieces.next().unwrap_or_default();
        let (class, data) = (row.class, row.data);
        out.push(Row { text: first, ..row });
        out.extend(pieces.map(|text| Row { text, data, class, use_id: None, result_id: None, more: true }));
    }
    out
}

/// The model call number at or before `position`.
fn latest_number(t: &Trace, position: usize) -> i64 {
    t.steps[..=position.min(t.steps.len().saturating_sub(1))]
        .iter()
        .rev()
        .filter(|s| s.function == lesson_one::RUN_LOOP)
        .find_map(|s| t.locals_json(s)["number"].as_i64())
        .unwrap_or(0)
}

/// The latest stop_reason seen at or before `position`.
fn latest_reason(t: &Trace, position: usize) -> Option<String> {
    let end = position.min(t.steps.len().saturating_sub(1));
    for s in t.steps[..=end].iter().rev() {
        if s.label == "loop.ask" || s.label == "ask.create" {
            return None;
        }
        let l = t.locals_json(s);
        if let Some(r) = l["reason"].as_str().or_else(|| l["response"]["stop_reason"].as_str()) {
            return Some(r.to_string());
        }
        if s.event == Event::Return && s.function == lesson_one::ASK_CLAUDE {
            if let Some(r) = l["return"]["stop_reason"].as_str() {
                return Some(r.to_string());
            }
        }
    }
    None
}

/// The request or tool run in progress, drawn above the record.
fn in_flight(svg: &mut Svg, m: &Moment, locals: &Value) {
    let Some(step) = m.trace.steps.get(m.position) else { return };
    let lang = m.lang;
    match step.function {
        lesson_one::ASK_CLAUDE => {
            let max_tokens = agent_loop_core::runtime::MAX_TOKENS;
            let response = match (&locals["response"], &locals["return"]) {
                (Value::Object(r), _) | (_, Value::Object(r)) => {
                    let reason = r.get("stop_reason").and_then(Value::as_str).unwrap_or("?").to_string();
                    let blocks = r.get("content").and_then(Value::as_array).map_or(0, Vec::len).to_string();
                    lang.fill("flight_response", &[("reason", reason), ("blocks", blocks)])
                }
                _ => lang.word("flight_waiting").to_string(),
            };
            let lines = [
                (format!("system ✓   tools: [run_main]   max_tokens: {max_tokens}"), true),
                (lang.fill("flight_messages", &[("n", step.record_len.to_string())]), false),
                (response, false),
            ];
            panel(svg, lang.word("flight_ask"), &lines, "alp-flight-ask");
        }
        lesson_one::RUN_MAIN => {
            let stages = ["call", "validate", "process", "result"];
            let reached = match lesson::stage(step) {
                "main.call" | "main.envelope" => 0,
                "main.validate" | "main.reject" => 1,
                "main.spawn" | "main.output" | "main.timeout" | "main.cannot_start" => 2,
                _ => 3,
            };
            let rejected = m.trace.steps[..=m.position]
                .iter()
                .rev()
                .take_while(|s| s.function == lesson_one::RUN_MAIN)
                .any(|s| lesson::stage(s) == "main.reject");
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
                let label =
                    if skipped { lang.word("pipe_skipped") } else { lang.word(&format!("pipe_{name}")) };
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
            if matches!(step.label, "main.cap" | "main.placeholder" | "main.content") {
                let limit = agent_loop_core::runtime::OUTPUT_LIMIT;
                let before = output_before_cap(m);
                if before > limit {
                    let values = [
                        ("before", before.to_string()),
                        ("after", limit.to_string()),
                        ("limit", limit.to_string()),
                    ];
                    lines.push((lang.fill("output_cap", &values), false));
                }
            }
            if result.is_object() {
                let content = result["content"]
                    .as_str()
                    .map(|c| clip(&lang.said_text(c.lines().next().unwrap_or("")), 30))
                    .unwrap_or_else(|| "…".into());
                let err = result["is_error"].as_bool().map(|b| format!("  is_error={b}")).unwrap_or_default();
                let id = clip(result["tool_use_id"].as_str().unwrap_or("?"), 14);
                lines.push((format!("tool_result → {id}{err}  {content}"), true));
            }
            if !lines.is_empty() {
                panel(svg, lang.word("current_values"), &lines, "alp-flight-main");
            }
        }
        // (run_loop draws its record, not a request; another program's
        // function has nothing in flight to draw)
        _ => {}
    }
}

/// A titled box of lines; each line is `(text, is data)`.
fn panel(svg: &mut Svg, title: &str, lines: &[(String, bool)], class: &str) {
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
fn staged(svg: &mut Svg, m: &Moment, locals: &Value) {
    let Some(step) = m.trace.steps.get(m.position) else { return };
    if step.function != lesson_one::RUN_LOOP {
        return;
    }
    let Some(results) = locals["results"].as_array().filter(|r| !r.is_empty()) else { return };
    let lines: Vec<String> = results
        .iter()
        .map(|r| {
            let content = r["content"].as_str().unwrap_or("");
            format!(
                "tool_result → {}  is_error={}  {}",
                clip(r["tool_use_id"].as_str().unwrap_or("?"), 14),
                r["is_error"].as_bool().unwrap_or(false),
                clip(&m.lang.said_text(content.lines().next().unwrap_or("")), 22)
            )
        })
        .collect();
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
    svg.text(l.card_x + 10.0, svg.y + 17.0, "alp-card-head", m.lang.word("staged"));
    for (i, line) in lines.iter().enumerate() {
        svg.data(l.card_x + 14.0, svg.y + 26.0 + LINE_H * i as f64 + 12.0, "alp-t-dim", line);
    }
    svg.body.push_str("</g>");
    svg.y += h + 10.0;
}

/// A text alternative: the record as an ordered list (HTML). Data items
/// are marked `translate="no"`.
pub fn text_alternative(t: &Trace, record_len: usize, lang: Lang) -> String {
    let mut html = String::from("<ol>");
    let folded = record_len > FOLD_AFTER;
    for i in 0..record_len.min(t.record.len()) {
        if folded && i == KEEP_HEAD {
            let hidden = record_len - KEEP_HEAD - KEEP_TAIL;
            let note = lang.fill("folded_text", &[("n", hidden.to_string())]);
            html.push_str(&format!(r#"<li value="{}">{}</li>"#, i + 1, esc(&note)));
        }
        if folded && i >= KEEP_HEAD && i < record_len - KEEP_TAIL {
            continue;
        }
        let message = &t.record[i];
        let role = message["role"].as_str().unwrap_or("?");
        let rows: Vec<String> = rows_of(message, lang)
            .into_iter()
            .map(|r| match r.data {
                true => format!(r#"<span translate="no">{}</span>"#, esc(r.text.trim())),
                false => esc(&r.text),
            })
            .collect();
        html.push_str(&format!(
            r#"<li value="{}" data-item="{i}"><span translate="no">{}: </span>{}</li>"#,
            i + 1,
            esc(role),
            rows.join("; ")
        ));
    }
    if record_len == 0 {
        html.push_str(&format!("<li>{}</li>", esc(lang.word("empty_record"))));
    }
    html.push_str("</ol>");
    html
}

/// The full text of an open card (its message as JSON), for the region
/// under the figure; empty when none is open.
pub fn card_text(t: &Trace, opened: Option<usize>, record_len: usize, lang: Lang) -> String {
    let Some(i) = opened.filter(|i| *i < record_len.min(t.record.len())) else { return String::new() };
    let text = serde_json::to_string_pretty(&t.record[i]).unwrap_or_default();
    format!(
        r#"<p class="alp-h3">{}</p><pre translate="no">{}</pre>"#,
        esc(&lang.fill("card_full", &[("n", i.to_string())])),
        esc(&text)
    )
}

/// The output's length before the cap: at the `main.cap` step of the
/// current `run_main` (this step or one of the last few).
fn output_before_cap(m: &Moment) -> usize {
    m.trace.steps[..=m.position].iter().rev().take(4).find(|s| s.label == "main.cap").map_or(0, |s| {
        agent_loop_core::preview::full_length(m.trace.locals_json(s)["output"].as_str().unwrap_or(""))
    })
}
