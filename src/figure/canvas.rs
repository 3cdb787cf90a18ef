//! The figure's canvas: its two layouts (wide, narrow), the moment it
//! draws, the SVG being written, and how wide a text is.

use crate::markup::esc;
use agent_loop_core::i18n::Lang;
use agent_loop_core::programs::Part;
use agent_loop_core::run::Trace;
use agent_loop_core::vocab::Decimal;

pub(super) const LINE_H: f64 = 18.0;

/// The figure's geometry: wide (a desktop column) or narrow (a phone, a
/// narrow course column), where long lines wrap instead of shrinking.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Layout {
    /// Width of the drawing (its viewBox).
    pub w: f64,
    pub(super) card_x: f64,
    pub(super) card_w: f64,
}

impl Layout {
    /// A figure box 520 px wide or more.
    pub const WIDE: Layout = Layout { w: 520.0, card_x: 40.0, card_w: 460.0 };
    /// A narrow figure box (a phone).
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
    /// the figure takes half of it from 760 px (code beside it), else all
    /// of it, less padding.
    pub fn for_element(width: f64) -> Layout {
        let figure = if width >= 760.0 { width / 2.0 - 28.0 } else { width - 34.0 };
        if width > 0.0 {
            Layout::for_width(figure)
        } else {
            Layout::WIDE
        }
    }

    /// Room for text inside a card.
    pub(super) fn card_text(&self) -> f64 {
        self.card_w - 28.0
    }
    /// Room for text inside a full-width panel.
    pub(super) fn panel_text(&self) -> f64 {
        self.w - 48.0
    }
}

/// Records longer than this fold their middle.
pub const FOLD_AFTER: usize = 20;

pub(super) const KEEP_HEAD: usize = 1;

pub(super) const KEEP_TAIL: usize = 10;

/// Everything the figure needs about the current moment.
pub struct Moment<'a> {
    /// The run the figure is drawn from.
    pub trace: &'a Trace,
    /// The step shown (an index into the trace's steps).
    pub position: usize,
    /// Record length at the previously shown step (to mark what changed).
    pub previous_len: usize,
    /// The reader's language.
    pub lang: Lang,
    /// Whether the learner has started the run (before: the first view).
    pub started: bool,
    /// The card whose full text is open, if any.
    pub opened: Option<usize>,
    /// The widths the figure is drawn at.
    pub layout: Layout,
    /// The part of the figure the caption's stage is about: drawn marked.
    pub part: Part,
}

impl<'a> Moment<'a> {
    /// A started run at step `position`, nothing opened, nothing new,
    /// nothing marked (what a test or a bench draws).
    pub fn at(trace: &'a Trace, position: usize, lang: Lang, layout: Layout) -> Moment<'a> {
        Moment {
            trace,
            position,
            previous_len: 0,
            lang,
            started: true,
            opened: None,
            layout,
            part: Part::None,
        }
    }
}

pub(super) struct Svg {
    pub(super) body: String,
    pub(super) y: f64,
    pub(super) l: Layout,
}

impl Svg {
    /// Words of the page (from the language tables).
    pub(super) fn text(&mut self, x: f64, y: f64, class: &str, text: &str) {
        let (x, y) = (Decimal(x), Decimal(y));
        self.body.push_str(&format!(r#"<text x="{x}" y="{y}" class="{class}">{}</text>"#, esc(text)));
    }
    /// Data and code (ids, field names, values): the same in every language.
    pub(super) fn data(&mut self, x: f64, y: f64, class: &str, text: &str) {
        self.text(x, y, &format!("{class} alp-data"), text);
    }
    pub(super) fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, class: &str) {
        let [x, y, w, h] = [x, y, w, h].map(Decimal);
        self.body
            .push_str(&format!(r#"<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="6" class="{class}"/>"#));
    }
}

/// One `<svg>` of the figure, `w` × `h` from its own top.
pub(super) fn drawing(body: String, w: f64, h: f64, attrs: &str) -> String {
    let (w, h) = (Decimal(w), Decimal(h));
    format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" {attrs} viewBox="0 0 {w} {h}" width="{w}" height="{h}">{body}</svg>"#
    )
}

/// Approximate rendered width of monospace text at 12px: wide (CJK)
/// characters take about twice the room of ASCII ones.
pub(super) fn text_width(text: &str) -> f64 {
    text.chars().map(char_width).sum()
}

pub(super) fn char_width(c: char) -> f64 {
    if (c as u32) >= 0x1100 {
        12.5
    } else {
        7.3
    }
}
