//! What the page shows for the step on screen, decided here and not in the
//! page: the line about to run, the frame stack, the caption (withheld
//! while a question waits, since it would give the answer away), the
//! counter and the live-region text, the locals under the names the listing
//! has, how much output has been printed, the status, the words of a
//! refused what-if edit, the line a waiting question quotes, and where the
//! comparison of two runs places each. The page's renderer turns a [`StepView`] into
//! markup and compares it with what it drew last; a native test reads the
//! same value.

mod frame;

pub use frame::frame_locals;

use crate::i18n::grouped;
use crate::lesson;
use crate::programs::Part;
use crate::session::Session;
use crate::vocab::Function;
use serde_json::Value;

/// Every decision about one step, as data.
#[derive(Clone, Debug, PartialEq)]
pub struct StepView {
    pub started: bool,
    /// The step's index and how many there are.
    pub position: usize,
    pub total: usize,
    /// The line about to run in the listing shown: its function and number
    /// (none before the start).
    pub current: Option<(Function, u32)>,
    /// `run_loop` or `run_loop › ask_claude`.
    pub stack: String,
    /// The caption's title and body.
    pub caption: (String, String),
    /// The part of the figure the caption's stage is about (none while a
    /// question holds the caption).
    pub part: Part,
    /// `step 3 / 40`, and at a breakpoint how many times the run has
    /// stopped there so far.
    pub counter: String,
    pub breakpoint_hits: Option<usize>,
    /// What a screen reader hears after a move.
    pub live: String,
    /// The locals, only those the listing shown has a name for (the
    /// Python has no `blocks` where the Rust does).
    pub locals: Option<Value>,
    /// How many output lines are printed so far, and whether the run is
    /// over (the page then adds the summary).
    pub output_len: usize,
    pub at_end: bool,
    pub status: String,
    /// How many messages the record holds at this step, and whether the
    /// move that led here added any (the phone's record button says so).
    pub record_len: usize,
    pub record_grew: bool,
    /// A refused what-if edit, `field: why` per problem, in the reader's
    /// language (empty: none).
    pub edit_problems: Vec<String>,
}

/// The view of the step `session` shows now.
pub fn step_view(session: &Session) -> StepView {
    let lang = session.lang();
    let trace = session.replay().trace();
    let started = session.replay().started();
    let position = session.replay().position();
    let step = session.replay().step().filter(|_| started);
    let entry = trace.function;
    let stack = match step {
        Some(s) if s.depth > 0 => format!("{} › {}", entry.name(), s.function.name()),
        _ => entry.name().to_string(),
    };
    let caption = if session.predictions().pending().is_some() {
        (lang.word("caption_predict_title").to_string(), lang.word("caption_predict").to_string())
    } else if started {
        lesson::caption(lang, trace, position)
    } else {
        let title = session.scenario().map(|x| x.title(lang.code()).to_string()).unwrap_or_default();
        (title, lang.word("not_started").to_string())
    };
    let total = trace.steps.len();
    let shown_number = if started { position + 1 } else { 0 };
    let replay = session.replay();
    let hits = step.and_then(|_| replay.debugger().hits_so_far(position, &trace.steps));
    let mut counter = lang.fill("step_counter", &[("n", grouped(shown_number)), ("total", grouped(total))]);
    if let Some(hits) = hits {
        counter = lang.fill("step_counter_hit", &[("counter", counter), ("hits", grouped(hits))]);
    }
    let live = lang.fill(
        "live",
        &[("counter", counter.clone()), ("title", caption.0.clone()), ("body", caption.1.clone())],
    );
    let locals = step.map(|_| frame_locals(trace, position, session.replay().code()));
    StepView {
        started,
        position,
        total,
        current: step.map(|s| (s.function, lesson::line_in(session.replay().code(), s))),
        stack,
        caption,
        part: match step {
            Some(s) if session.predictions().pending().is_none() => lesson::part(s),
            _ => Part::None,
        },
        counter,
        breakpoint_hits: hits,
        live,
        locals,
        output_len: step.map_or(0, |s| s.output_len as usize),
        at_end: started && position + 1 >= total,
        status: session.replay().status().to_string(),
        record_len: session.replay().record_len(),
        record_grew: session.replay().record_len() > session.replay().previous_len(),
        edit_problems: edit_problems(session),
    }
}

/// The line a waiting question is about, quoted: its function, number and
/// text (on a phone the listing may be off screen). A breakpoint question
/// is about the breakpoint's line, any other about its step's own.
pub fn question_line(session: &Session) -> Option<(Function, u32, &'static str)> {
    let ask = session.predictions().pending()?;
    let code = session.replay().code();
    let (function, n) = ask.about.or_else(|| {
        let step = session.replay().trace().steps.get(ask.step)?;
        Some((step.function, lesson::line_in(code, step)))
    })?;
    let lines = &lesson::listing_shown(code, function, session.lang()).lines;
    let text = lines.iter().find(|l| l.number == Some(n)).map_or("", |l| l.text.trim());
    Some((function, n, text))
}

/// A step of one run, as the comparison names it: its label and line in
/// the listing shown.
pub type At = Option<(&'static str, u32)>;

/// Where the comparison panel (what if) places the two runs: the step on
/// screen once started, the changed run's step and the lesson's there, and
/// both at the step where they part.
#[derive(Clone, Debug, PartialEq)]
pub struct Places {
    pub position: Option<usize>,
    pub here: At,
    pub lesson_here: At,
    pub parting: (At, At),
    /// Beside another loop, past the step where they part: no step of the
    /// lesson's loop stands beside this one any more.
    pub parted: bool,
    /// Where values first differ before that (the changed run's step).
    pub values: At,
    /// The new run started over though the learner was at this step; the
    /// word that says why.
    pub restart: Option<(usize, &'static str)>,
    /// What each run goes on to do where they part (the lesson's, the
    /// changed one's): its step's caption title, in the reader's language.
    pub doing: Option<(String, String)>,
}

/// The comparison's places, when a changed version is on screen.
pub fn comparison_places(session: &Session) -> Option<Places> {
    let comparison = session.what_if_state().comparison.as_ref()?;
    let replay = session.replay();
    let at = |i: usize| replay.trace().steps.get(i).map(|st| (st.label, lesson::line_in(replay.code(), st)));
    let position = replay.started().then_some(replay.position());
    let other_loop = comparison.lesson.function != comparison.changed.function;
    Some(Places {
        position,
        here: replay.step().map(|st| (st.label, lesson::line_in(replay.code(), st))),
        // (beside another loop of the program, the lesson's step is the one
        // that stands beside this one, not the one with the same number)
        lesson_here: position.and_then(|p| match &session.what_if_state().lesson_run {
            Some(lesson) if other_loop => crate::session::counterpart(lesson, replay.trace(), p)
                .and_then(|l| session.what_if_state().lesson_step(l, replay.code())),
            _ => session.what_if_state().lesson_step(p, replay.code()),
        }),
        parted: other_loop && position.zip(comparison.parts_at).is_some_and(|(p, at)| p > at),
        values: comparison.values_from.as_ref().and_then(|(v, _)| at(*v)),
        restart: session.what_if_state().restart,
        doing: match (&session.what_if_state().lesson_run, comparison.lesson_at, comparison.parts_at) {
            (Some(lesson), Some(l), Some(n)) => {
                let (lang, changed) = (session.lang(), replay.trace());
                let titles = (lesson::caption(lang, lesson, l).0, lesson::caption(lang, changed, n).0);
                Some(titles).filter(|(a, b)| !a.is_empty() && !b.is_empty() && a != b)
            }
            _ => None,
        },
        parting: match (comparison.lesson_at, comparison.parts_at) {
            (Some(l), Some(n)) => (session.what_if_state().lesson_step(l, replay.code()), at(n)),
            _ => (None, None),
        },
    })
}

/// A refused what-if edit, `field: why` per problem, in the reader's
/// language (the setup panel needs only this part of the view).
pub fn edit_problems(session: &Session) -> Vec<String> {
    session.what_if_state().problems.iter().map(|p| p.text(session.lang())).collect()
}

/// The two records side by side (what if): each run's record, how much
/// of it exists at the step shown — the lesson's at the step that stands
/// beside it — and whether its column marks that place, and the first
/// message where the two final records differ.
pub struct Pair<'a> {
    pub lesson: Side<'a>,
    pub changed: Side<'a>,
    /// None: the same records, message for message.
    pub differs_at: Option<usize>,
    /// Predict first, before the run on screen has ended: only what both
    /// runs have made so far is drawn, and no verdict (it would answer).
    pub hide_unmade: bool,
}

/// One run of a [`Pair`].
pub struct Side<'a> {
    pub trace: &'a crate::run::Trace,
    /// Messages made at the step shown (all of them before the start, or
    /// past where another loop parted from the lesson's).
    pub made: usize,
    /// Its place is marked (started, and a step of it stands here).
    pub here: bool,
    /// How the run ends, as the comparison says it.
    pub ending: &'a str,
}

/// The [`Pair`], when a changed version whose record the comparison sets
/// side by side is on screen (a tool run's comparison sets its results
/// side by side instead: no pair).
pub fn pair(session: &Session) -> Option<Pair<'_>> {
    let what_if = session.what_if_state();
    let (lesson, replay) = (what_if.lesson_run.as_ref()?, session.replay());
    let (changed, at, started) = (replay.trace(), replay.position(), replay.started());
    let c = what_if
        .comparison
        .as_ref()
        .filter(|c| c.lesson.tool_result.is_none() && c.changed.tool_result.is_none())?;
    let other_loop = c.lesson.function != c.changed.function;
    // (beside another loop, past where they part no lesson step stands here)
    let parted = other_loop && c.parts_at.is_some_and(|p| at > p);
    let beside = match other_loop {
        _ if parted => None,
        true => crate::session::counterpart(lesson, changed, at),
        false => Some(at.min(lesson.steps.len().saturating_sub(1))),
    };
    let (a, b) = (&lesson.record, &changed.record);
    let hide_unmade = session.predictions().on() && !(started && at + 1 >= changed.steps.len());
    let mut pair = Pair {
        lesson: side(lesson, beside.filter(|_| started), &c.lesson.ending),
        changed: side(changed, Some(at).filter(|_| started), &c.changed.ending),
        differs_at: (0..a.len().max(b.len())).find(|&i| a.get(i) != b.get(i)),
        hide_unmade,
    };
    // (predicting, nothing is made before the start)
    if hide_unmade && !started {
        (pair.lesson.made, pair.changed.made) = (0, 0);
    }
    Some(pair)
}

/// A run of the pair at its `step` (none: not started, or no step of it
/// stands beside the one shown).
fn side<'a>(trace: &'a crate::run::Trace, step: Option<usize>, ending: &'a str) -> Side<'a> {
    let made = step.and_then(|i| trace.steps.get(i)).map(|s| s.record_len as usize);
    let all = trace.record.len();
    Side { trace, made: made.unwrap_or(all).min(all), here: made.is_some(), ending }
}
