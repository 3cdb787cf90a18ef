//! Turns a [`Session`] into DOM: the page's one renderer.
//!
//! It reads what changed ([`Session::take_changes`]) and redraws only those
//! panels, and of those only the ones whose markup differs from what is on
//! screen, so a step that leaves a panel alone costs no DOM work there.

use crate::builtins;
use crate::dom;
use crate::figure::Layout;
use crate::markup::esc;
use crate::panels;
use crate::shell;
use crate::view;
use agent_loop_core::i18n::Lang;
use agent_loop_core::lesson::listing_shown;
use agent_loop_core::programs;
use agent_loop_core::session::{Changes, Notice, Session};
use agent_loop_core::step_view::edit_problems;
use agent_loop_core::vocab::{Code, Function};
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlElement, HtmlInputElement, HtmlSelectElement};

/// The DOM of one playground and the session it shows.
pub(crate) struct Page {
    pub root: HtmlElement,
    pub session: Session,
    /// What each panel shows now (selector → markup).
    shown: Vec<(&'static str, String)>,
    /// The listing on screen.
    shown_listing: Option<(Function, Code)>,
    /// Listings drawn before and taken off screen, by function, listing and
    /// language: entering a function again puts its rows back instead of
    /// building them anew (most of a step's cost when the frame changes).
    listing_cache: Vec<((Function, Code, Lang), Element)>,
    /// The language the listing on screen was drawn in.
    shown_lang: Option<Lang>,
    pub(crate) current_row: Option<Element>,
    /// A drawn step's scrolls, made once all is written: (the step moved, the figure changed).
    scroll_pending: Option<(bool, bool)>,
    /// A `playground-step` event is being sent (see `events::send_step`).
    pub dispatching: bool,
    /// A handler moved the playground again during that event.
    pub event_pending: bool,
    /// Notices already said in the console (those still shown).
    warned: Vec<Notice>,
    /// Broken scenario files already said in the console.
    warned_files: usize,
    /// Scenarios are being added one call after another (`addScenario`):
    /// the picker and the problems wait for [`Page::flush`].
    pub defer_catalogue: bool,
    /// The catalogue changed while drawing it was deferred.
    catalogue_pending: bool,
    /// The figure's geometry, from the width of its box.
    layout: Layout,
    /// A version was just run from the page's buttons: its comparison is
    /// brought into view with the focus on it, once drawn.
    pub show_compare: bool,
    /// `Some(compact)` until the width-dependent layout is set.
    unfitted: Option<bool>,
    /// Markup the page refused (a host page's `innerHTML` that throws, a
    /// Trusted Types policy it does not allow), until the caller takes it.
    pub failure: Option<String>,
}

impl Page {
    /// Build the shell inside `root` and draw everything.
    /// `width`: the element's width in CSS pixels (0: unknown), from which
    /// the figure's layout is guessed without forcing a layout of the new
    /// markup; the element's resize observer corrects a wrong guess.
    pub(crate) fn new(root: HtmlElement, session: Session, compact: bool, width: f64) -> Page {
        let _ = root.class_list().add_2("alp", if compact { "alp-compact" } else { "alp" });
        let failure = builtins::set_html(&root, &shell::shell(session.presentation().heading_level)).err();
        if width > 0.0 {
            dom::fit_width(&root, compact, width);
        }
        if !root.has_attribute("tabindex") {
            let _ = root.set_attribute("tabindex", "-1");
        }
        let mut page = Page {
            root,
            session,
            shown: Vec::new(),
            shown_listing: None,
            listing_cache: Vec::new(),
            shown_lang: None,
            current_row: None,
            scroll_pending: None,
            dispatching: false,
            event_pending: false,
            warned: Vec::new(),
            warned_files: 0,
            defer_catalogue: false,
            catalogue_pending: false,
            layout: Layout::WIDE,
            show_compare: false,
            unfitted: (width <= 0.0).then_some(compact),
            failure,
        };
        page.layout = Layout::for_element(width);
        page.draw();
        page
    }

    /// The element is now `width` CSS pixels wide: lay the figure out again
    /// if it crossed between wide and narrow. Returns whether it did.
    pub(crate) fn relayout(&mut self, width: f64) -> bool {
        if let Some(compact) = self.unfitted.filter(|_| width > 0.0) {
            dom::fit_width(&self.root, compact, width);
            self.unfitted = None;
        }
        let layout = Layout::for_element(width);
        if layout == self.layout {
            return false;
        }
        self.layout = layout;
        self.shown
            .retain(|(part, _)| ![".alp-fig-head", ".alp-fig-record", ".alp-fig-staged"].contains(part));
        self.draw_step();
        self.keep_in_view();
        true
    }

    /// Draw the picker and the problems a run of `addScenario` calls left.
    pub(crate) fn flush(&mut self) {
        self.defer_catalogue = false;
        self.draw();
    }

    /// Draw what changed in the session since the last draw.
    pub(crate) fn draw(&mut self) {
        let mut changes = self.session.take_changes();
        let catalogue = changes.catalogue || self.catalogue_pending;
        self.catalogue_pending = catalogue && self.defer_catalogue;
        changes.catalogue = catalogue && !self.defer_catalogue;
        if changes.lang {
            self.draw_words();
        }
        if changes.lang || changes.trace || changes.catalogue {
            self.draw_picker();
            self.draw_setup();
        } else if changes.setup {
            self.draw_edit_error();
        }
        if changes.lang || changes.catalogue || changes.notices {
            self.draw_problems();
        }
        if changes.reveal {
            self.draw_reveal();
        }
        if changes.lang || changes.trace || changes.listing {
            self.shown_listing = None;
            self.draw_listing_switch();
        }
        // (the catalogue and the notices have their own panels)
        if (Changes { catalogue: false, notices: false, ..changes }).any() {
            self.draw_step();
            self.scroll_pending =
                self.scroll_pending.map(|(started, f)| (started && changes.step && !changes.lang, f));
            self.draw_compare();
        }
        if changes.predict || changes.lang {
            self.draw_predict();
        }
        if changes.breakpoints || changes.trace || changes.lang {
            self.draw_breakpoints();
        }
        self.keep_in_view();
    }

    fn q(&self, selector: &str) -> Option<Element> {
        self.root.query_selector(selector).ok().flatten()
    }

    /// The same, for a panel hidden while it has nothing to show.
    fn set_panel(&mut self, selector: &'static str, html: &str) {
        self.set_html(selector, html);
        dom::set_hidden(self.q(selector), html.is_empty());
    }

    /// Replace a panel's markup, only when it changed.
    fn set_html(&mut self, selector: &'static str, html: &str) {
        let known = self.shown.iter().position(|(part, _)| *part == selector);
        if known.is_some_and(|i| self.shown[i].1 == html) {
            return;
        }
        if let Some(el) = self.q(selector) {
            if !self.put(&el, html) {
                // Not on screen: drawn again next time.
                return;
            }
        }
        match known {
            Some(i) => self.shown[i].1 = html.to_string(),
            None => self.shown.push((selector, html.to_string())),
        }
    }

    /// `el.innerHTML = html`, keeping what the page refused. False when it did.
    fn put(&mut self, el: &Element, html: &str) -> bool {
        match builtins::set_html(el, html) {
            Ok(()) => true,
            Err(why) => {
                self.failure.get_or_insert(why);
                false
            }
        }
    }

    fn set_text(&mut self, selector: &'static str, text: &str) {
        self.set_html(selector, &esc(text));
    }

    /// Words that depend only on the language.
    fn draw_words(&mut self) {
        let lang = self.session.lang();
        let _ = self.root.set_attribute("lang", lang.html_lang());
        for (selector, key) in shell::LABELS {
            self.set_text(selector, lang.word(key));
        }
        for (el, key) in shell::NAMED.iter().filter_map(|(selector, key)| Some((self.q(selector)?, *key))) {
            let _ = el.set_attribute("aria-label", lang.word(key));
        }
        dom::set_pressed(&self.root, ".alp-lang", |b| {
            b.get_attribute("data-lang").as_deref() == Some(lang.code())
        });
        let controls = view::controls(lang, &self.session.presentation().controls);
        self.set_html(".alp-controls", &controls);
    }

    fn draw_picker(&mut self) {
        let html = panels::picker(&self.session);
        self.set_html(".alp-select", &html);
        // (a pick that did not happen, its pack not fetched, is undone)
        let select = self.q(".alp-select").and_then(|e| e.dyn_into::<HtmlSelectElement>().ok());
        if let (Some(select), Some(shown)) = (select, self.session.catalogue().shown()) {
            select.set_value(&shown.id);
        }
    }

    fn draw_setup(&mut self) {
        let html = panels::setup(&self.session);
        self.set_html(".alp-setup", &html);
        let html = panels::beside(&self.session);
        self.set_panel(".alp-beside", &html);
    }

    /// A refused edit: only its message changes; the learner's text stays
    /// in the editors, and the run on screen stays as it was.
    fn draw_edit_error(&mut self) {
        let Some(error) = self.q(r#"[data-role="edit-error"]"#) else { return };
        let problems = edit_problems(&self.session);
        let items: String = problems.iter().map(|p| format!("<li>{}</li>", esc(p))).collect();
        self.put(&error, &format!("<ul>{items}</ul>"));
        dom::set_hidden(Some(error), problems.is_empty());
        // The panel's markup is no longer what `shown` remembers.
        self.shown.retain(|(part, _)| *part != ".alp-setup");
    }

    /// The question waiting (with the line it is about), the last answer
    /// and the score.
    fn draw_predict(&mut self) {
        let s = &self.session;
        let (html, hidden) = panels::predict(s);
        let asking = s.predictions().pending().is_some();
        let just_answered = s.predictions().answered_now();
        if let Some(b) = self.q(".alp-predict-box").and_then(|e| e.dyn_into::<HtmlInputElement>().ok()) {
            b.set_checked(s.predictions().on());
        }
        let had_focus = self.root.matches(":focus-within").unwrap_or(false);
        self.set_html(".alp-predict-panel", &html);
        dom::set_hidden(self.q(".alp-predict-panel"), hidden);
        if !had_focus {
            return;
        }
        // Keep the keyboard in the playground: on the first choice of a new
        // question, on the verdict of an answer just given, and on the code
        // when what had the focus is gone.
        let target = match (asking, just_answered) {
            (true, _) => Some(".alp-q-open [data-choice]"),
            (false, true) => Some(".alp-q-result"),
            _ if !self.root.matches(":focus-within").unwrap_or(true) => Some(".alp-code"),
            _ => None,
        };
        if let Some(el) = target.and_then(|t| self.q(t)) {
            dom::focus_still(&el);
        }
    }

    /// The lesson's run beside the changed one (what if), in lockstep.
    fn draw_compare(&mut self) {
        let (html, pair) = view::comparison(&self.session);
        let hidden = html.is_empty();
        self.set_panel(".alp-compare", &html);
        self.set_panel(".alp-fig-pair", &pair);
        // The answer to "run this version" where the learner looks next.
        if std::mem::take(&mut self.show_compare) && !hidden {
            if let Some(panel) = self.q(".alp-compare").and_then(|e| e.dyn_into::<HtmlElement>().ok()) {
                panel.scroll_into_view_with_bool(false);
                let _ = panel.focus();
            }
        }
    }

    fn draw_problems(&mut self) {
        dom::warn_in_console(&self.session, &mut self.warned, &mut self.warned_files);
        let html = panels::problems(&self.session);
        self.set_panel(".alp-problems", &html);
    }

    fn draw_reveal(&self) {
        if let Some(code) = self.q(".alp-code") {
            let _ = code.class_list().toggle_with_force("alp-show-instr", self.session.presentation().reveal);
        }
        if let Some(b) = self.q(".alp-reveal-box").and_then(|e| e.dyn_into::<HtmlInputElement>().ok()) {
            b.set_checked(self.session.presentation().reveal);
        }
    }

    /// Breakpoint buttons and timeline ticks follow the debugger.
    fn draw_breakpoints(&mut self) {
        self.draw_bp_buttons();
        let ticks = panels::ticks(&self.session);
        self.set_html(".alp-ticks", &ticks);
        let note = panels::unreached(&self.session);
        self.set_panel(".alp-bp-note", &note);
    }

    /// The breakpoint buttons of the listing on screen. (The timeline's
    /// ticks scan the whole trace: they are drawn only when the breakpoints
    /// or the trace change, not when the listing changes function.)
    fn draw_bp_buttons(&self) {
        let dbg = self.session.replay().debugger();
        let lines = dbg
            .breakpoints()
            .map(|(f, n)| format!(r#".alp-bp[data-function="{}"][data-line="{n}"]"#, f.name()));
        let near = self.session.replay().trace().function;
        dom::press_only(&self.root, ".alp-bp", &lines.collect::<Vec<_>>(), |b| {
            let f = b.get_attribute("data-function").and_then(|f| programs::function_near(near, &f));
            let n = b.get_attribute("data-line").and_then(|n| n.parse().ok());
            f.zip(n).is_some_and(|(f, n)| dbg.has_breakpoint(f, n))
        });
    }

    /// The Python / Rust buttons follow the listing shown (a recorded
    /// program has one listing: none), and the note under the code says
    /// where its steps come from.
    fn draw_listing_switch(&mut self) {
        let (trace, lang) = (self.session.replay().trace(), self.session.lang());
        let one = programs::recorded::of(trace.function).is_some();
        dom::listing_switch(&self.root, self.session.replay().code(), one, lang.word("listing"));
        self.set_text(".alp-l-provenance", &view::provenance(trace, lang));
    }

    fn draw_listing(&mut self) {
        let function = self.session.replay().shown_function();
        let code = self.session.replay().code();
        if self.shown_listing == Some((function, code)) {
            return;
        }
        let lang = self.session.lang();
        let old = self.shown_listing.replace((function, code));
        self.current_row = None;
        let Some(panel) = self.q(".alp-code") else { return };
        // The listing on screen goes to the cache (it was drawn in this language).
        if let (Some((f, c)), Some(body)) = (old, panel.first_element_child()) {
            let _ = panel.remove_child(&body);
            if self.shown_lang == Some(lang) {
                self.listing_cache.retain(|(key, _)| *key != (f, c, lang));
                self.listing_cache.push(((f, c, lang), body));
            }
        }
        self.put(&panel, "");
        let cached = self.listing_cache.iter().position(|(key, _)| *key == (function, code, lang));
        let body = match cached {
            Some(i) => Some(self.listing_cache.swap_remove(i).1),
            None => self.root.owner_document().and_then(|d| d.create_element("div").ok()).filter(|body| {
                body.set_class_name("alp-listing-body");
                self.put(body, &view::listing_rows(listing_shown(code, function, lang), code, lang))
            }),
        };
        match body {
            Some(body) => drop(panel.append_child(&body)),
            None => self.shown_listing = None, // (drawn again next time)
        }
        self.shown_lang = Some(lang);
        self.draw_reveal();
        self.draw_bp_buttons();
        // The line numbers are one Tab stop (the arrows move between them).
        if self.q(r#".alp-bp[tabindex="0"]"#).is_none() {
            if let Some(first) = self.q(".alp-bp") {
                let _ = first.set_attribute("tabindex", "0");
            }
        }
    }

    /// The current snapshot: listing highlight, figure, caption, locals, output.
    fn draw_step(&mut self) {
        self.draw_listing();
        let Some(panels::Step { view, head, record, staged, alternative, card, locals, output }) =
            panels::step(&self.session, self.layout)
        else {
            return;
        };
        self.current_row = dom::mark_row(&self.root, self.current_row.take(), view.current);
        let (stack, (title, body), counter, live) = (&view.stack, &view.caption, &view.counter, &view.live);
        let (total, position, status) = (view.total, view.position, &view.status);
        self.set_text(".alp-stack", stack);
        // Three drawings: most steps only change the first.
        let figure_changed =
            !self.shown.iter().any(|(part, shown)| *part == ".alp-fig-record" && *shown == record);
        let focused_card = dom::focused_card(&self.root);
        self.set_html(".alp-fig-head", &head);
        self.set_html(".alp-fig-record", &record);
        self.set_html(".alp-fig-staged", &staged);
        if let (true, Some(i)) = (figure_changed, focused_card) {
            dom::focus_card(&self.root, &i);
        }
        self.set_html(".alp-figure-text", &alternative);
        self.set_html(".alp-card-full", &card);
        self.set_text(".alp-caption-title", title);
        self.set_text(".alp-caption-body", body);
        self.set_text(".alp-live", live);
        self.set_text(".alp-counter", counter);
        dom::record_count(&self.root, view.record_len, view.record_grew);
        if let Some(slider) = self.q(".alp-slider").and_then(|e| e.dyn_into::<HtmlInputElement>().ok()) {
            dom::set_attr(&slider, "max", &total.saturating_sub(1).to_string());
            let value = position.to_string();
            if slider.value() != value {
                slider.set_value(&value);
            }
            dom::set_attr(&slider, "aria-valuetext", counter);
        }
        self.set_html(".alp-locals", &locals);
        self.set_html(".alp-output", &output);
        dom::set_attr(&self.root, "data-status", status);
        // Scrolling reads positions: only after every write (a question's
        // panel too), so that one layout serves the whole step.
        self.scroll_pending = Some((view.started, figure_changed && view.started));
    }

    /// The scrolls a drawn step asked for, once every panel is written.
    fn keep_in_view(&mut self) {
        if let Some((moved, figure)) = self.scroll_pending.take() {
            dom::keep_in_view(&self.root, self.current_row.as_ref(), moved, figure);
        }
    }
}
