//! Two records side by side (what if: a changed version, or another loop
//! on the same replies, beside the lesson's run): aligned message by
//! message, the first message where they differ marked in both, each
//! run's place at the step shown, and the verdict in one line above them.
//!
//! HTML, not SVG: two short columns of one-line cards that wrap as the
//! panel narrows (a phone keeps them side by side, each half as wide).

use super::rows::rows_of;
use crate::markup::{clip, esc};
use agent_loop_core::i18n::Lang;
use agent_loop_core::step_view::{Pair, Side};

/// Records longer than this show the rows that matter (the first ones,
/// around the first difference, where each run is, the last) and fold the
/// rest.
const ALL_ROWS: usize = 12;

/// The pair as HTML, each run named (`names`: the lesson's, the changed
/// one's; `data`: they are loops' names, the same in every language).
pub fn pair(p: &Pair, (names, data): ((&str, &str), bool), lang: Lang) -> String {
    let (lesson, changed) = (&p.lesson, &p.changed);
    let rows = match p.hide_unmade {
        true => lesson.made.max(changed.made),
        false => lesson.trace.record.len().max(changed.trace.record.len()),
    };
    let verdict = match p.hide_unmade {
        true => String::new(),
        false => format!(r#"<p class="alp-pair-verdict">{}</p>"#, esc(&verdict(p, names, lang))),
    };
    let no = if data { r#" translate="no""# } else { "" };
    let mut html = format!(
        r#"<p class="alp-pair-title">{}</p>{verdict}<div class="alp-pair-grid" role="table"><div role="row" class="alp-pair-head"><span role="columnheader"{no}>{}</span><span role="columnheader"{no}>{}</span></div>"#,
        esc(lang.word("pair_title")),
        esc(names.0),
        esc(names.1),
    );
    let mut folded = 0;
    for i in 0..rows {
        if !shown(p, i, rows) {
            folded += 1;
            continue;
        }
        fold(&mut html, &mut folded, lang);
        html.push_str(r#"<div role="row" class="alp-pair-row">"#);
        cell(&mut html, p, lesson, i, lang);
        cell(&mut html, p, changed, i, lang);
        html.push_str("</div>");
    }
    fold(&mut html, &mut folded, lang);
    html.push_str("</div>");
    html
}

/// One line: how each run ends, and from which message the records differ.
fn verdict(p: &Pair, names: (&str, &str), lang: Lang) -> String {
    let ends = |side: &Side, name: &str| {
        let (name, end, n) =
            (name.to_string(), lang.status(side.ending), side.trace.record.len().to_string());
        lang.fill("pair_ends", &[("name", name), ("end", end), ("n", n)])
    };
    let tail = match p.differs_at {
        Some(at) => lang.fill("pair_differ", &[("at", at.to_string())]),
        None => lang.word("pair_same").to_string(),
    };
    format!("{}{}{}{tail}", ends(&p.lesson, names.0), lang.word("pair_and"), ends(&p.changed, names.1))
}

/// Is row `i` of a pair of `rows` rows drawn?
fn shown(p: &Pair, i: usize, rows: usize) -> bool {
    let near = |at: usize| i + 1 >= at && i <= at + 1;
    let marked = |side: &Side| side.here && near(side.made.saturating_sub(1));
    rows <= ALL_ROWS
        || i < 2
        || i + 1 == rows
        || p.differs_at.is_some_and(near)
        || marked(&p.lesson)
        || marked(&p.changed)
}

/// The rows left out since the last one drawn, as one line.
fn fold(html: &mut String, folded: &mut usize, lang: Lang) {
    if *folded > 0 {
        let note = lang.fill("folded", &[("n", std::mem::take(folded).to_string())]);
        html.push_str(&format!(
            r#"<div role="row" class="alp-pair-fold"><span role="cell">{}</span></div>"#,
            esc(&note)
        ));
    }
}

/// Message `i` of one run: its role and a line of its content; dimmed when
/// the run has not made it yet at the step shown, marked where the two
/// records first differ and where the run's record ends at this step.
fn cell(html: &mut String, p: &Pair, side: &Side, i: usize, lang: Lang) {
    let mut class = String::from("alp-pair-cell");
    let mut marks = String::new();
    // (predicting, a difference is not said before both runs have made the message)
    let both_made = i < p.lesson.made && i < p.changed.made;
    if p.differs_at == Some(i) && (!p.hide_unmade || both_made) {
        class.push_str(" alp-pair-parts");
        marks.push_str(&format!(r#"<span class="alp-pair-mark">{}</span>"#, esc(lang.word("pair_first"))));
    }
    if p.hide_unmade && i >= side.made {
        html.push_str(&format!(r#"<span role="cell" class="{class} alp-pair-later">#{i} …</span>"#));
        return;
    }
    let Some(message) = side.trace.record.get(i) else {
        let none = esc(lang.word("pair_none"));
        let cell = format!(r#"<span role="cell" class="{class} alp-pair-none">#{i} {none}{marks}</span>"#);
        html.push_str(&cell);
        return;
    };
    if i >= side.made {
        class.push_str(" alp-pair-later");
    }
    if side.here && i + 1 == side.made {
        class.push_str(" alp-pair-here");
        marks.push_str(&format!(r#"<span class="alp-pair-mark">{}</span>"#, esc(lang.word("pair_here"))));
    }
    let role = message["role"].as_str().unwrap_or("?");
    let line: Vec<String> = rows_of(message, lang).into_iter().map(|r| r.text.trim().to_string()).collect();
    html.push_str(&format!(
        r#"<span role="cell" class="{class}" data-item="{i}"><span translate="no">#{i} {}: {}</span>{marks}</span>"#,
        esc(role),
        esc(&clip(&line.join("; "), 48)),
    ));
}
