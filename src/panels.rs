//! What each panel of the frame shows for a session, as markup: the one
//! place that says it. The renderer (`render`) writes these into the DOM
//! as the session changes; the first view ([`crate::first_view`]) writes
//! them all into the frame's markup at once, at build time. Pure.

use crate::explore;
use crate::figure::{self, Layout, Moment};
use crate::view;
use agent_loop_core::session::Session;
use agent_loop_core::step_view::{edit_problems, question_line, step_view, StepView};

/// The scenario picker's options.
pub fn picker(s: &Session) -> String {
    view::picker(s.catalogue().entries(), s.catalogue().current(), s.catalogue().scope(), s.lang())
}

/// The setup panel: the scenario's setup and its editors.
pub fn setup(s: &Session) -> String {
    let (lang, problems) = (s.lang(), edit_problems(s));
    s.scenario().map(|x| view::setup(&x.localized(lang), lang, &problems)).unwrap_or_default()
}

/// The other loops of the program, to run beside this one (empty: none).
pub fn beside(s: &Session) -> String {
    let lang = s.lang();
    s.catalogue()
        .shown()
        .map(|scenario| {
            let beside = s.what_if_state().changed.as_ref().map(|c| c.function);
            explore::beside(scenario, beside.filter(|f| *f != scenario.function), lang)
        })
        .unwrap_or_default()
}

/// The notices and the broken scenario files (empty: none).
pub fn problems(s: &Session) -> String {
    view::problems(s.catalogue().entries(), s.notices(), s.lang())
}

/// The prediction panel, and whether it is hidden.
pub fn predict(s: &Session) -> (String, bool) {
    let p = s.predictions();
    let html = explore::predict_panel(p.pending(), question_line(s), p.last_answer(), p.score(), s.lang());
    let hidden = !p.on() || html.is_empty();
    (html, hidden)
}

/// The timeline's ticks: one for each stop at a breakpoint (at most 2,000).
pub fn ticks(s: &Session) -> String {
    let dbg = s.replay().debugger();
    let steps = &s.replay().trace().steps;
    let n = steps.len().max(1);
    dbg.hit_positions(steps)
        .iter()
        .take(2000)
        .map(|&i| {
            // Integer maths: the tick scale is 0..996 of a 1000-wide viewBox.
            format!(r#"<rect x="{}" y="0" width="4" height="8" class="alp-tick"/>"#, i * 996 / n)
        })
        .collect()
}

/// The note on breakpoints the run never reaches (empty: none).
pub fn unreached(s: &Session) -> String {
    view::unreached(&s.replay().unreached_breakpoints(), s.lang())
}

/// Everything the current step shows, panel by panel.
pub struct Step {
    /// The step's words and numbers (caption, counter, status, …).
    pub view: StepView,
    /// The figure's head: the status strip and what is in flight (most
    /// steps change only this drawing).
    pub head: String,
    /// The record's messages.
    pub record: String,
    /// What waits to be appended to the record.
    pub staged: String,
    /// The figure said in words, for a screen reader.
    pub alternative: String,
    /// The opened card's full text.
    pub card: String,
    /// The locals of the frame on screen.
    pub locals: String,
    /// The output printed so far (and the summary at the end).
    pub output: String,
}

/// The current step's panels (none before a run exists), the figure laid out by `layout`.
pub fn step(s: &Session, layout: Layout) -> Option<Step> {
    s.replay().step()?;
    let view = step_view(s);
    let (lang, trace) = (s.lang(), s.replay().trace());
    let moment = Moment {
        trace,
        position: view.position,
        previous_len: s.replay().previous_len(),
        lang,
        started: view.started,
        opened: s.replay().opened(),
        layout,
        part: view.part,
    };
    let [head, record, staged] = figure::render_parts(&moment);
    let python = s.replay().code().is_python();
    Some(Step {
        head,
        record,
        staged,
        alternative: figure::text_alternative(trace, s.replay().record_len(), lang),
        card: figure::card_text(trace, s.replay().opened(), s.replay().record_len(), lang),
        locals: view.locals.as_ref().map_or(String::new(), |l| view::locals(l, lang, python)),
        output: view::output_with(&trace.output, view.output_len, lang, view.at_end.then_some(trace)),
        view,
    })
}
