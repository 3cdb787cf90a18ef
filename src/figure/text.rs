//! The figure in words: its text alternative, and the full text of an
//! opened card.

use super::canvas::*;
use super::rows::*;
use crate::markup::esc;
use agent_loop_core::i18n::Lang;
use agent_loop_core::preview::{bounded, Bounds, PREVIEW_DEPTH};
use agent_loop_core::run::Trace;

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
        html.push_str(&format!("<li>{}</li>", esc(&no_messages(t, lang))));
    }
    html.push_str("</ol>");
    html
}

/// The full text of an open card (its message as JSON), for the region
/// under the figure; empty when none is open.
pub fn card_text(t: &Trace, opened: Option<usize>, record_len: usize, lang: Lang) -> String {
    let Some(i) = opened.filter(|i| *i < record_len.min(t.record.len())) else { return String::new() };
    // (a message of 50,000 blocks is not laid out whole at every step)
    let text = serde_json::to_string_pretty(&bounded(&t.record[i], CARD)).unwrap_or_default();
    format!(
        r#"<p class="alp-h3">{}</p><pre translate="no">{}</pre>"#,
        esc(&lang.fill("card_full", &[("n", i.to_string())])),
        esc(&text)
    )
}

/// An opened card shows at most this many items of a list and characters
/// of a string, by the locals' preview rule (the rest counted).
pub(super) const CARD: Bounds = Bounds { chars: 20_000, items: 500, depth: PREVIEW_DEPTH };
