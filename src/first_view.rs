//! The first view: the playground as it opens, made as markup before any
//! module has loaded. A page carries it inside the element as a
//! declarative shadow root (`<template shadowrootmode="open">`), so the
//! browser paints the first snapshot with the page itself (hidden and
//! inert until its stylesheet shows it); the element takes it over in the
//! same task as its own first draw, once its module is ready
//! (www/element/first.js).
//!
//! It is the frame ([`shell`]) with every panel filled by the same
//! functions the renderer writes with ([`panels`], [`view`]), from a
//! [`Session`] recorded natively by the same core: the run it shows is
//! the run the element records. Pure: the CLI's `first-view` and the
//! build call it.

use crate::figure::Layout;
use crate::markup::esc;
use crate::panels;
use crate::shell;
use crate::view;
use agent_loop_core::lesson::listing_shown;
use agent_loop_core::programs;
use agent_loop_core::session::Session;

/// The narrowest element the wide figure is drawn for (Layout::for_element)
/// with the setup panel open (dom::fit_width: from 900 px): the wide
/// view is shown from here.
pub const WIDE_FROM: u32 = 1056;

/// The widths the narrow view is shown at: an element narrower than the
/// first (a phone: the narrow figure under the code), or from the second
/// up to the third, exclusive (a tablet: the narrow figure beside the
/// code, the setup panel closed). Between them, and from the third up to
/// [`WIDE_FROM`], neither view is drawn as the element would draw itself,
/// so none is shown (element.css).
pub const NARROW_AT: (u32, u32, u32) = (534, 760, 900);

/// The two views a page carries, each shown at the widths it is drawn
/// for: `(data-first, figure layout, setup panel open)`.
const VIEWS: [(&str, Layout, bool); 2] = [("wide", Layout::WIDE, true), ("narrow", Layout::NARROW, false)];

/// The element's first view for `session`, as the content of its
/// declarative shadow root: `stylesheet` is where the page finds
/// element.css; `made_for`, the element's attributes it was made for (the
/// element drops a first view made for others: www/element/first.js);
/// `compact`, as the element with that attribute draws itself (its setup
/// panel closed, its lower panels hidden by element.css). It holds two
/// boxes, the wide view and the narrow one: the stylesheet shows the one
/// drawn for the element's width ([`WIDE_FROM`], [`NARROW_AT`]), and the
/// element keeps the box it draws into and drops the other.
pub fn first_view(session: &Session, stylesheet: &str, made_for: &str, compact: bool) -> String {
    let boxes: String = VIEWS
        .iter()
        .map(|&(name, layout, open)| view_box(session, made_for, compact, name, layout, open && !compact))
        .collect();
    format!(
        r#"<template shadowrootmode="open"><link rel="stylesheet" href="{css}">{boxes}</template>"#,
        css = esc(stylesheet),
    )
}

/// One view: the frame with every panel filled, its figure drawn for
/// `layout`, its setup panel open or not, in a box named `name`.
fn view_box(
    session: &Session,
    made_for: &str,
    compact: bool,
    name: &str,
    layout: Layout,
    open: bool,
) -> String {
    let s = session;
    let lang = s.lang();
    let mut frame = Frame(shell::shell(s.presentation().heading_level));
    for (selector, key) in shell::LABELS {
        frame.fill(selector, &esc(lang.word(key)));
    }
    for (selector, key) in shell::NAMED {
        frame.set(selector, "aria-label", lang.word(key));
    }
    frame.0 = pressed(&frame.0, "alp-lang", "data-lang", lang.code());
    frame.fill(".alp-controls", &view::controls(lang, &s.presentation().controls));
    frame.fill(".alp-select", &panels::picker(s));
    frame.fill(".alp-setup", &panels::setup(s));
    // (as the element fits its width: open only in a wide one, never compact)
    frame.flag(".alp-setup", "open", open);
    frame.panel(".alp-beside", &panels::beside(s));
    frame.panel(".alp-problems", &panels::problems(s));
    let (trace, code) = (s.replay().trace(), s.replay().code());
    let one = programs::recorded::of(trace.function).is_some();
    frame.set(".alp-listings", "aria-label", lang.word("listing"));
    frame.shown(".alp-listings", !one);
    frame.0 = pressed(&frame.0, "alp-listing", "data-listing", code.name());
    frame.fill(".alp-l-provenance", &esc(&view::provenance(trace, lang)));
    let step = panels::step(s, layout);
    frame.fill(".alp-code", &listing(s, step.as_ref().and_then(|p| p.view.current)));
    if s.presentation().reveal {
        frame.set(".alp-code", "class", "alp-code alp-show-instr");
        frame.set(".alp-reveal-box", "checked", "");
    }
    let status = step.map(|p| fill_step(&mut frame, &p)).unwrap_or_default();
    let (predict, hidden) = panels::predict(s);
    frame.fill(".alp-predict-panel", &predict);
    frame.shown(".alp-predict-panel", !hidden);
    if s.predictions().on() {
        frame.set(".alp-predict-box", "checked", "");
    }
    let (compare, pair) = view::comparison(s);
    frame.panel(".alp-compare", &compare);
    frame.panel(".alp-fig-pair", &pair);
    frame.fill(".alp-ticks", &panels::ticks(s));
    frame.panel(".alp-bp-note", &panels::unreached(s));
    format!(
        r#"<div class="alp-root alp{compact}" data-first="{name}" data-for="{made_for}" hidden inert lang="{lang}" data-listing="{listing}" data-status="{status}" tabindex="-1">{body}</div>"#,
        made_for = esc(made_for),
        lang = esc(lang.html_lang()),
        listing = code.name(),
        body = frame.0,
        compact = if compact { " alp-compact" } else { "" },
    )
}

/// The step's panels: its figure, caption, card, locals, output, counter
/// and timeline; its status, escaped, for the box.
fn fill_step(frame: &mut Frame, p: &panels::Step) -> String {
    let v = &p.view;
    frame.fill(".alp-stack", &esc(&v.stack));
    for (selector, html) in [
        (".alp-fig-head", &p.head),
        (".alp-fig-record", &p.record),
        (".alp-fig-staged", &p.staged),
        (".alp-figure-text", &p.alternative),
        (".alp-card-full", &p.card),
        (".alp-locals", &p.locals),
        (".alp-output", &p.output),
    ] {
        frame.fill(selector, html);
    }
    for (selector, text) in [
        (".alp-caption-title", &v.caption.0),
        (".alp-caption-body", &v.caption.1),
        (".alp-live", &v.live),
        (".alp-counter", &v.counter),
    ] {
        frame.fill(selector, &esc(text));
    }
    frame.fill(".alp-view-count", &v.record_len.to_string());
    frame.set(".alp-view-count", "data-grew", if v.record_grew { "true" } else { "false" });
    frame.set(".alp-slider", "max", &v.total.saturating_sub(1).to_string());
    frame.set(".alp-slider", "value", &v.position.to_string());
    frame.set(".alp-slider", "aria-valuetext", &v.counter);
    esc(&v.status)
}

/// The listing shown, its breakpoints pressed, the line about to run
/// marked, and its first line number the Tab stop.
fn listing(s: &Session, current: Option<(agent_loop_core::vocab::Function, u32)>) -> String {
    let (function, code, lang) = (s.replay().shown_function(), s.replay().code(), s.lang());
    let mut rows = view::listing_rows(listing_shown(code, function, lang), code, lang);
    let dbg = s.replay().debugger();
    for (bf, n) in dbg.breakpoints().filter(|(bf, _)| *bf == function) {
        let button =
            format!(r#"class="alp-bp" data-function="{}" data-line="{n}" aria-pressed="false""#, bf.name());
        rows =
            rows.replacen(&button, &button.replace(r#"aria-pressed="false""#, r#"aria-pressed="true""#), 1);
    }
    if let Some((cf, n)) = current.filter(|(cf, _)| *cf == function) {
        let row = format!(r#"data-function="{}" data-line="{n}">"#, cf.name());
        rows = rows.replacen(&row, &row.replace('>', r#" aria-current="step">"#), 1);
    }
    let rows = first_tab_stop(&rows);
    format!(r#"<div class="alp-listing-body">{rows}</div>"#)
}

/// The first line number's button is the listing's one Tab stop.
fn first_tab_stop(rows: &str) -> String {
    match rows.find(r#"class="alp-bp""#).and_then(|at| rows[at..].find(r#"tabindex="-1""#).map(|i| at + i)) {
        Some(i) => format!(r#"{}tabindex="0"{}"#, &rows[..i], &rows[i + r#"tabindex="-1""#.len()..]),
        None => rows.to_string(),
    }
}

/// The toggle buttons of class `class`: the one whose `key` is `value`
/// pressed, the others not (`aria-pressed` last, as the renderer adds it).
fn pressed(html: &str, class: &str, key: &str, value: &str) -> String {
    let mut out = String::with_capacity(html.len() + 64);
    let mut rest = html;
    while let Some(at) = rest.find(&format!(r#"class="{class}" {key}=""#)) {
        let close = at + rest[at..].find('>').unwrap_or(0);
        let on = rest[at..close].contains(&format!(r#"{key}="{value}""#));
        out.push_str(&rest[..close]);
        out.push_str(&format!(r#" aria-pressed="{on}""#));
        rest = &rest[close..];
    }
    out.push_str(rest);
    out
}

/// The frame's markup, its elements found by a class each has alone.
struct Frame(String);

impl Frame {
    /// Where the opening tag of the element with class `selector` (`.alp-x`)
    /// starts and ends (its `>`).
    fn tag(&self, selector: &str) -> Option<(usize, usize)> {
        let class = selector.strip_prefix('.')?;
        let html = &self.0;
        let mut from = 0;
        while let Some(i) = html[from..].find(r#"class=""#) {
            let start = from + i + r#"class=""#.len();
            let end = start + html[start..].find('"')?;
            if html[start..end].split(' ').any(|c| c == class) {
                let open = html[..start].rfind('<')?;
                let close = end + html[end..].find('>')?;
                return Some((open, close));
            }
            from = end;
        }
        None
    }

    /// Put `html` inside the element (it was empty).
    fn fill(&mut self, selector: &str, html: &str) {
        if let Some((_, close)) = self.tag(selector) {
            self.0.insert_str(close + 1, html);
        }
    }

    /// Set an attribute of the element (`""`: one without a value).
    fn set(&mut self, selector: &str, name: &str, value: &str) {
        let Some((open, close)) = self.tag(selector) else { return };
        let tag = &self.0[open..close];
        let written =
            if value.is_empty() { format!(" {name}") } else { format!(r#" {name}="{}""#, esc(value)) };
        let at = format!(r#" {name}=""#);
        let new = match tag.find(&at) {
            Some(i) => {
                let end = i + at.len() + tag[i + at.len()..].find('"').map_or(0, |e| e + 1);
                format!("{}{written}{}", &tag[..i], &tag[end..])
            }
            None => format!("{tag}{written}"),
        };
        self.0.replace_range(open..close, &new);
    }

    /// Show or hide the element (`hidden`).
    fn shown(&mut self, selector: &str, shown: bool) {
        self.flag(selector, "hidden", !shown);
    }

    /// Give the element the attribute `name` without a value, or take it
    /// away (the shell writes such attributes last in a tag).
    fn flag(&mut self, selector: &str, name: &str, on: bool) {
        let Some((open, close)) = self.tag(selector) else { return };
        let tag = self.0[open..close].to_string();
        let bare = tag.strip_suffix(&format!(" {name}")).unwrap_or(&tag);
        let new = if on { format!("{bare} {name}") } else { bare.to_string() };
        self.0.replace_range(open..close, &new);
    }

    /// A panel hidden while it has nothing to show.
    fn panel(&mut self, selector: &str, html: &str) {
        self.fill(selector, html);
        self.shown(selector, !html.is_empty());
    }
}
