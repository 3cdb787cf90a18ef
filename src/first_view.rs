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

/// Where the element's own layout changes with its width (CSS pixels):
/// the figure under the code is wide from here (Layout::for_element)…
pub const WIDE_ALONE_FROM: u32 = 534;
/// …the code and the figure are side by side from here (element.css)…
pub const BESIDE_FROM: u32 = 760;
/// …the setup panel opens from here (dom::fit_width)…
pub const SETUP_OPEN_FROM: u32 = 900;
/// …and the figure beside the code is wide from here (Layout::for_element).
pub const WIDE_FROM: u32 = 1056;

/// One box of a first view: the element as it draws itself at some
/// widths, shown by element.css at those widths only ([`FirstBox::shown_at`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FirstBox {
    /// Its name (`--boxes`, `data-first`).
    pub name: &'static str,
    /// The figure's layout.
    pub layout: Layout,
    /// Whether the setup panel is open (never in a compact element).
    pub setup_open: bool,
    /// The widths it is shown at, in words (the CLI's usage, the docs).
    pub widths: &'static str,
}

impl FirstBox {
    /// Whether the element draws itself as this box at `width` (whole CSS
    /// pixels): exactly one box of [`BOXES`] is, at any width (element.css's
    /// range queries leave no gap between them, a fraction of a pixel included).
    pub fn shown_at(&self, width: u32) -> bool {
        Layout::for_element(f64::from(width)) == self.layout && (width >= SETUP_OPEN_FROM) == self.setup_open
    }
}

/// Every box a first view can have, at the widths they share out.
pub const BOXES: [FirstBox; 4] = [
    FirstBox { name: "wide", layout: Layout::WIDE, setup_open: true, widths: "1056 px and wider" },
    FirstBox { name: "medium", layout: Layout::NARROW, setup_open: true, widths: "900-1055 px" },
    FirstBox { name: "column", layout: Layout::WIDE, setup_open: false, widths: "534-759 px" },
    FirstBox {
        name: "narrow",
        layout: Layout::NARROW,
        setup_open: false,
        widths: "below 534 px, and 760-899 px",
    },
];

/// The boxes a first view has unless asked for others: a page the full
/// width of a desktop, and a phone.
pub const DEFAULT_BOXES: [&str; 2] = ["wide", "narrow"];

/// The boxes named in `names` (`wide,narrow`), in that order.
pub fn boxes_named(names: &str) -> Result<Vec<FirstBox>, String> {
    let mut out: Vec<FirstBox> = Vec::new();
    for name in names.split(',').map(str::trim) {
        let found = BOXES.iter().find(|b| b.name == name).ok_or_else(|| {
            let known: Vec<String> = BOXES.iter().map(|b| format!("{} ({})", b.name, b.widths)).collect();
            format!("no box named {name:?}: the boxes are {}", known.join(", "))
        })?;
        if out.contains(found) {
            return Err(format!("the box {name} is named twice"));
        }
        out.push(*found);
    }
    Ok(out)
}

/// The element's first view for `session`, as the content of its
/// declarative shadow root: `stylesheet` is where the page finds
/// element.css; `made_for`, the element's attributes it was made for (the
/// element drops a first view made for others: www/element/first.js);
/// `compact`, as the element with that attribute draws itself (its setup
/// panel closed, its lower panels hidden by element.css). It holds one
/// box for each of `boxes`: the stylesheet shows the one drawn for the
/// element's width, if any, and the element draws into the box on screen
/// and drops the others (www/element/first.js).
pub fn first_view(
    session: &Session,
    stylesheet: &str,
    made_for: &str,
    compact: bool,
    boxes: &[FirstBox],
) -> String {
    let boxes: String = boxes
        .iter()
        .map(|b| view_box(session, made_for, compact, b.name, b.layout, b.setup_open && !compact))
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
