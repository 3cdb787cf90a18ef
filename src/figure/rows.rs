//! A message as the rows of its card: each block's lines, wrapped to the
//! card, with the tool_use / tool_result ids the pairing lines join.

use super::canvas::*;
use crate::markup::clip;
use agent_loop_core::i18n::{grouped, Lang};
use agent_loop_core::run::Trace;
use serde_json::Value;

/// One line of a card: its text and, for pairing, a tool id.
pub(super) struct Row {
    pub(super) text: String,
    /// Data (the same in every language) rather than words of the page.
    pub(super) data: bool,
    pub(super) class: &'static str,
    pub(super) use_id: Option<String>,
    pub(super) result_id: Option<String>,
    /// The rest of a wrapped row (drawn indented).
    pub(super) more: bool,
}

impl Row {
    /// A row of data (shown as it came, in every language).
    fn data(text: String, class: &'static str) -> Row {
        Row { text, data: true, class, use_id: None, result_id: None, more: false }
    }

    /// A row of the page's own words.
    fn words(text: String, class: &'static str) -> Row {
        Row { data: false, ..Row::data(text, class) }
    }
}

/// A card shows at most this many blocks of its message, then how many
/// more there are (the opened card lists up to `text::CARD` of them).
pub(super) const BLOCKS_SHOWN: usize = 12;

pub(super) fn rows_of(message: &Value, lang: Lang) -> Vec<Row> {
    match &message["content"] {
        Value::String(s) => vec![Row::data(format!("“{}”", clip(s, 112)), "alp-t-text")],
        Value::Array(blocks) if blocks.is_empty() => {
            vec![Row::words(format!("[ ] {}", lang.word("empty_content")), "alp-t-warn")]
        }
        Value::Array(blocks) => {
            let mut rows: Vec<Row> =
                blocks.iter().take(BLOCKS_SHOWN).flat_map(|b| block_rows(b, lang)).collect();
            rows.extend(more_blocks(blocks.len().saturating_sub(BLOCKS_SHOWN), lang));
            rows
        }
        other => vec![Row::data(format!("content: {}", clip(&other.to_string(), 40)), "alp-t-warn")],
    }
}

/// The row that counts the blocks a card leaves out (none when none is).
pub(super) fn more_blocks(hidden: usize, lang: Lang) -> Option<Row> {
    (hidden > 0).then(|| Row::words(lang.fill("more_blocks", &[("n", grouped(hidden))]), "alp-t-dim"))
}

/// The rows of one content block.
fn block_rows(b: &Value, lang: Lang) -> Vec<Row> {
    // (a text where a block belongs: a recorded program's object kept as
    // its repr, or a reply that broke the protocol; shown as it is)
    if let Value::String(text) = b {
        return vec![Row::data(format!("“{}”", clip(text, 112)), "alp-t-warn")];
    }
    match b["type"].as_str() {
        Some("text") => {
            vec![Row::data(format!("text: {}", clip(b["text"].as_str().unwrap_or(""), 112)), "alp-t-text")]
        }
        Some("tool_use") => {
            let id = b["id"].as_str().unwrap_or("").to_string();
            let input = clip(&b["input"].to_string(), 24);
            let name = b["name"].as_str().unwrap_or("?");
            let text = format!("tool_use  id={}  name={}  input={input}", clip(&id, 14), clip(name, 16));
            vec![Row { use_id: Some(id), ..Row::data(text, "alp-t-use") }]
        }
        Some("tool_result") => {
            let id = b["tool_use_id"].as_str().unwrap_or("").to_string();
            // (is_error as the block has it: lesson two's results leave it out)
            let err = b["is_error"].as_bool().unwrap_or(false);
            let flag = b.get("is_error").map_or(String::new(), |e| format!("  is_error={e}"));
            let text = format!("tool_result → {}{flag}", clip(&id, 14));
            let class = if err { "alp-t-err" } else { "alp-t-ok" };
            // The first line (exit code) and the last (where a traceback
            // says what went wrong).
            let (first, last) = ends(b["content"].as_str().unwrap_or(""));
            // (cut at two lines of a wide card; the card wraps what is longer than one)
            let last = last.map(|l| format!("  ·  {}", clip(l, 112))).unwrap_or_default();
            vec![
                Row { result_id: Some(id), ..Row::data(text, class) },
                Row::data(format!("   {}{last}", clip(first, 112)), "alp-t-dim"),
            ]
        }
        other => vec![Row::words(
            lang.fill("not_in_lesson", &[("kind", other.unwrap_or("?").to_string())]),
            "alp-t-warn",
        )],
    }
}

/// The first line of a text and its last (when it has more than one),
/// read from its ends only: a result of megabytes costs no more.
fn ends(text: &str) -> (&str, Option<&str>) {
    const NEAR: usize = 4096;
    let head = &text[..floor(text, NEAR)];
    let first = head.lines().next().unwrap_or("");
    let tail = &text[floor(text, text.len().saturating_sub(NEAR))..];
    let last = tail.lines().last().filter(|_| text.lines().nth(1).is_some());
    (first, last)
}

/// The largest char boundary of `text` at or before `i`.
fn floor(text: &str, i: usize) -> usize {
    (0..=i.min(text.len())).rev().find(|&j| text.is_char_boundary(j)).unwrap_or(0)
}

/// A line cut into pieces that fit in `room` pixels: after a gap of two
/// spaces (between fields) if there is one, else after a space, else
/// anywhere. A piece keeps its last space, so the pieces read as the line.
pub(super) fn wrap(line: &str, room: f64) -> Vec<String> {
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
pub(super) const UNPAIRED_ROOM: f64 = 74.0;

/// The rows of a card, long ones wrapped; a tool id stays on the first
/// piece, and a tool request's row leaves `mark_room` for its mark.
pub(super) fn wrap_rows(rows: Vec<Row>, room: f64, mark_room: f64) -> Vec<Row> {
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

/// The name of the run's record: the local a recorded program's pack
/// names, `messages` for the built-in lessons.
pub(super) fn record_name(t: &Trace) -> &'static str {
    agent_loop_core::programs::recorded::of(t.function).map_or("messages", |r| r.record)
}

/// What the figure says of a record that holds no message: it is empty,
/// or (a recorded run that never had its record local) there is none.
pub(super) fn no_messages(t: &Trace, lang: Lang) -> String {
    let recorded = agent_loop_core::programs::recorded::of(t.function).is_some();
    let name = record_name(t);
    if recorded && !t.steps.iter().any(|s| t.local(s, name).is_some()) {
        lang.fill("no_record", &[("name", name.to_string())])
    } else {
        lang.word("empty_record").to_string()
    }
}
