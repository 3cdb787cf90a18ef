//! The opaque handle JS holds: one playground bound to one host element.
//!
//! Small methods, each a call into the [`Session`] followed by a draw; the
//! trace stays in wasm memory. A `playground-step` event is sent only after
//! the page is no longer borrowed, so a handler may call back in.

use crate::callbacks::{from_json, opt_str, to_json, JsDoubles, JsModel, JsProcess};
use crate::events;
use crate::render::Page;
use agent_loop_core::debugger::Command;
use agent_loop_core::i18n::Lang;
use agent_loop_core::lesson;
use agent_loop_core::pack::{self, Refusal};
use agent_loop_core::protocol::{Model, Process};
use agent_loop_core::scenario::{Phrase, Problem, Scenario};
use agent_loop_core::session::options::ListingFile;
use agent_loop_core::session::{ahead, notice};
use agent_loop_core::session::{Maker, Options, Override, Session, Unreadable};
use js_sys::{Function as JsFunction, Reflect};
use serde_json::json;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use web_sys::HtmlElement;

/// One playground in one element.
#[wasm_bindgen]
pub struct Playground {
    page: Rc<RefCell<Page>>,
    listeners: Vec<events::Listener>,
    root: HtmlElement,
    /// Where the learner is, kept outside the page's cell after every
    /// update: readable even when an error in the host page left the page
    /// borrowed for good (the element then starts a new playground there).
    place: events::Place,
}

/// `options.files`: `[{name, text}]` or `[{name, error}]`, the scenario
/// files the element fetched (`src=`).
fn files(options: &JsValue) -> Vec<(String, Result<String, Unreadable>)> {
    let list = Reflect::get(options, &JsValue::from_str("files")).unwrap_or(JsValue::UNDEFINED);
    let Some(list) = list.dyn_ref::<js_sys::Array>() else { return Vec::new() };
    list.iter()
        .map(|f| {
            let name = opt_str(&f, "name");
            let text = Reflect::get(&f, &JsValue::from_str("text")).ok().and_then(|t| t.as_string());
            (name, text.ok_or_else(|| (opt_str(&f, "error"), opt_str(&f, "detail"))))
        })
        .collect()
}

/// `options.listings`: `[{name, lang, text}]` or `[{name, lang, error,
/// detail}]`, the author's listings the element fetched (`listing-src`,
/// `listing-src-zh`, `listing-src-en`; `lang` empty for any language).
fn listings(options: &JsValue) -> Vec<ListingFile> {
    let list = Reflect::get(options, &JsValue::from_str("listings")).unwrap_or(JsValue::UNDEFINED);
    let Some(list) = list.dyn_ref::<js_sys::Array>() else { return Vec::new() };
    list.iter()
        .map(|f| {
            let name = opt_str(&f, "name");
            let lang = Some(opt_str(&f, "lang")).filter(|l| !l.is_empty());
            let text = Reflect::get(&f, &JsValue::from_str("text")).ok().and_then(|t| t.as_string());
            (name, lang, text.ok_or_else(|| (opt_str(&f, "error"), opt_str(&f, "detail"))))
        })
        .collect()
}

/// `options.programSrc`: `{name, text}` or `{name, error, detail}`, the
/// recorded program's pack the element fetched (`program-src`), if any.
fn program_src(options: &JsValue) -> Option<(String, Result<String, Unreadable>)> {
    let f = Reflect::get(options, &JsValue::from_str("programSrc")).ok().filter(JsValue::is_object)?;
    let text = Reflect::get(&f, &JsValue::from_str("text")).ok().and_then(|t| t.as_string());
    Some((opt_str(&f, "name"), text.ok_or_else(|| (opt_str(&f, "error"), opt_str(&f, "detail")))))
}

fn js_err(message: impl std::fmt::Display) -> JsError {
    JsError::new(&message.to_string())
}

/// The error a call throws when the program it would show has its texts in
/// a pack that has not arrived: `{name: "PackNeeded", pack, message}`.
/// element.js fetches `data/<pack>.json`, hands it to `Playground.addPack`
/// and makes the call again.
fn pack_needed(pack: &str) -> JsValue {
    let error = js_sys::Error::new(&pack::needed(pack).to_string());
    error.set_name("PackNeeded");
    let _ = Reflect::set(&error, &JsValue::from_str("pack"), &JsValue::from_str(pack));
    error.into()
}

/// The error a call throws when the run it would show was recorded in the
/// worker and is still bytes: `{name: "Reading", message}`. Its reading
/// has started: the element (`readBack`, www/element/elsewhere.js) calls `readGiven`
/// once per task until it returns false, and makes the call again.
fn reading() -> JsValue {
    let error = js_sys::Error::new(&Refusal::Reading.to_string());
    error.set_name("Reading");
    error.into()
}

/// A call made from inside one of this playground's own callbacks (for
/// example a step event handler calling `command`) while it is busy.
fn busy() -> JsError {
    js_err("the playground is busy (called from inside its own update); try again after the event")
}

#[wasm_bindgen]
impl Playground {
    /// Build a playground inside `root`. `options` (all optional but
    /// `doubles`): every attribute the element hands over, under the
    /// `option` key www/element/attributes.js gives it (`function`,
    /// `program`, `compare`, `scenario`, `lang`, `breakpoints`, `controls`,
    /// `compact`, `listing`, `theme`, `headingLevel`, `predict`, `step`,
    /// `timeBudget`, `memoryBudget`), and what the element adds
    /// (`PlaygroundOptions` in www/types/agent-loop-playground.d.ts):
    /// `doubles` (`fixtureDoubles` from doubles.js), `files`, `listings`,
    /// `programSrc`, `width`, `restarted`, `waiting`, `recording`. tests/js/check.mjs fails when
    /// the keys read below and those differ.
    #[wasm_bindgen(constructor)]
    pub fn new(root: HtmlElement, options: JsValue) -> Result<Playground, JsValue> {
        let factory: JsFunction = Reflect::get(&options, &JsValue::from_str("doubles"))
            .ok()
            .and_then(|f| f.dyn_into().ok())
            .ok_or_else(|| js_err("options.doubles must be fixtureDoubles from doubles.js"))?;
        let wanted = Options {
            function: opt_str(&options, "function"),
            program: opt_str(&options, "program"),
            compare: opt_str(&options, "compare"),
            scenario: opt_str(&options, "scenario"),
            lang: opt_str(&options, "lang"),
            breakpoints: opt_str(&options, "breakpoints"),
            time_budget: opt_str(&options, "timeBudget"),
            memory_budget: opt_str(&options, "memoryBudget"),
            clock: Some(crate::builtins::now),
            listing: opt_str(&options, "listing"),
            controls: opt_str(&options, "controls"),
            heading_level: opt_str(&options, "headingLevel"),
            theme: opt_str(&options, "theme"),
            files: files(&options),
            listings: listings(&options),
            program_src: program_src(&options),
            predict: !opt_str(&options, "predict").is_empty(),
            step: opt_str(&options, "step"),
            restarted: opt_str(&options, "restarted"),
            waiting: opt_str(&options, "waiting"),
            recording: opt_str(&options, "recording"),
        };
        let session = Session::new(Box::new(JsDoubles { factory }), &wanted).map_err(|e| match e.pack() {
            Some(name) => pack_needed(name),
            None => js_err(e).into(),
        })?;
        let compact = !opt_str(&options, "compact").is_empty();
        let width = Reflect::get(&options, &JsValue::from_str("width")).ok().and_then(|w| w.as_f64());
        let page = Page::new(root.clone(), session, compact, width.unwrap_or(0.0));
        if let Some(why) = &page.failure {
            // (the element shows it: in the reader's language)
            let said = page.session.lang().fill("markup_refused", &[("why", why.clone())]);
            return Err(js_err(said).into());
        }
        let place = events::Place::default();
        events::remember(&place, &page);
        let page = Rc::new(RefCell::new(page));
        let listeners = events::listen(&page, &place);
        Ok(Playground { page, listeners, root, place })
    }

    /// Whether an update is under way (a call from inside its callbacks is refused as busy).
    #[wasm_bindgen(js_name = isBusy)]
    pub fn is_busy(&self) -> bool {
        self.page.try_borrow_mut().is_err()
    }

    /// `{scenario, step, started, whatIf, breakpoints, listing, lang}` as JSON text, at any time.
    #[wasm_bindgen(js_name = lastPlace)]
    pub fn last_place(&self) -> String {
        self.place.borrow().clone()
    }

    /// `{scenario, function, step, steps, line, label, depth, status, …}`.
    pub fn state(&self) -> JsValue {
        match self.page.try_borrow() {
            Ok(p) => from_json(&p.session.state()),
            Err(_) => JsValue::NULL,
        }
    }

    /// Apply a control: run, debug, step, stepInto, stepOut, continue, back, reset.
    pub fn command(&self, name: &str) -> Result<JsValue, JsError> {
        let command = Command::from_name(name).ok_or_else(|| {
            js_err(format!(
                "unknown command {name:?} (run, debug, step, stepInto, stepOut, continue, back, reset)"
            ))
        })?;
        self.apply(|s| s.command(command))?;
        Ok(self.state())
    }

    /// Flip a breakpoint; `line` is a listing line number of `function`, a
    /// label (`loop.ask`) or `function:line`. Returns whether it is now set.
    #[wasm_bindgen(js_name = toggleBreakpoint)]
    pub fn toggle_breakpoint(&self, function: &str, line: JsValue) -> Result<bool, JsError> {
        let spec = match (line.as_f64(), line.as_string()) {
            (Some(n), _) if n.fract() == 0.0 && n >= 1.0 && n <= f64::from(u32::MAX) => {
                (n as u32).to_string()
            }
            (Some(n), _) => {
                return Err(js_err(format!("{} is not a line number", agent_loop_core::vocab::Decimal(n))))
            }
            (None, Some(s)) => s,
            (None, None) => return Err(js_err("line must be a line number or a label")),
        };
        let mut on = false;
        self.update(|s| s.toggle_breakpoint(function, &spec).map(|now| on = now))?;
        Ok(on)
    }

    /// `breakpoints` (the list replaces every breakpoint) or `step` (gone to, as the page
    /// would open at it) set again on an open playground; a mistake is a notice.
    pub fn again(&self, name: &str, value: &str) -> Result<(), JsError> {
        match name {
            "breakpoints" => self.apply(|s| s.set_breakpoints(value)),
            _ => self.apply(|s| s.start_at(value)),
        }
    }

    /// Show another scenario (by id). One whose program's pack has not
    /// arrived throws `PackNeeded` (see [`pack_needed`]); one whose run is
    /// still bytes from the worker, `Reading` (see [`reading`]).
    pub fn load(&self, scenario_id: &str) -> Result<(), JsValue> {
        self.update_packed(|s| s.load(scenario_id))
    }

    /// Add a program's texts from its pack file (`data/<pack>.json`), for
    /// every playground of the page. Returns the pack's name.
    #[wasm_bindgen(js_name = addPack)]
    pub fn add_pack(name: &str, text: &str) -> Result<String, JsError> {
        agent_loop_core::programs::add_pack(name, text).map_err(js_err)
    }

    /// The pack `pack` (its file `file`) could not be fetched: a notice in
    /// the element (a language's says the language stays), and the picker
    /// shows the scenario on screen again.
    #[wasm_bindgen(js_name = packUnavailable)]
    pub fn pack_unavailable(&self, file: String, detail: String, pack: String) -> Result<(), JsError> {
        let language = Lang::parse(&pack).filter(|l| l.waiting().is_some());
        self.apply(|s| match language {
            Some(l) => s.file_notice(notice::language_unavailable(&file, l.name(), &detail)),
            None => s.file_notice(notice::unreadable_file(&file, "pack", &detail)),
        })
    }

    /// Add a scenario from JSON text or an object. Returns its id; a bad
    /// fixture is listed with its problems and the error names them.
    #[wasm_bindgen(js_name = addScenario)]
    pub fn add_scenario(&self, fixture: JsValue) -> Result<String, JsValue> {
        let parsed = match fixture.as_string() {
            Some(text) => Scenario::parse(&text),
            None => to_json(&fixture)
                .map_err(|why| {
                    vec![Problem::new("(file)", Phrase::with("check_unreadable", &[("detail", why)]))]
                })
                .and_then(Scenario::from_value),
        };
        let mut id = String::new();
        // (the picker is drawn once for a run of calls: `flush`, which the
        // element calls once the calling script is done)
        if let Ok(mut page) = self.page.try_borrow_mut() {
            page.defer_catalogue = true;
        }
        self.update_packed(|s| {
            s.add_file(agent_loop_core::session::ADDED, parsed, None).map(|added| id = added)
        })?;
        Ok(id)
    }

    /// Draw what a run of `addScenario` calls left to draw (the picker).
    pub fn flush(&self) -> Result<(), JsError> {
        let mut page = self.page.try_borrow_mut().map_err(|_| busy())?;
        page.flush();
        events::say_failure(&mut page);
        Ok(())
    }

    /// Add the text of a scenario file fetched from `name` (`src=`); its
    /// problems name the file. Returns the scenario id.
    #[wasm_bindgen(js_name = addScenarioFile)]
    pub fn add_scenario_file(&self, name: String, text: String) -> Result<String, JsValue> {
        let mut id = String::new();
        self.update_packed(|s| s.add_file(&name, ahead::parsed(&text), Some(&text)).map(|added| id = added))?;
        Ok(id)
    }

    /// A scenario file that could not be fetched: a notice in the element.
    #[wasm_bindgen(js_name = fileUnreadable)]
    pub fn file_unreadable(&self, name: String, why: String, detail: String) -> Result<(), JsError> {
        self.apply(|s| s.file_notice(notice::unreadable_file(&name, &why, &detail)))
    }

    /// A long `src=` file that came after the playground opened is being recorded in the
    /// worker: a notice in the element until it is added (`addScenarioFile`).
    #[wasm_bindgen(js_name = fileRecording)]
    pub fn file_recording(&self, name: String) -> Result<(), JsError> {
        self.apply(|s| s.file_notice(notice::recording(&name)))
    }

    /// The element is now `width` CSS pixels wide: the figure is laid out
    /// again when it crosses between wide and narrow.
    pub fn relayout(&self, width: f64) {
        if let Ok(mut page) = self.page.try_borrow_mut() {
            page.relayout(width);
            events::say_failure(&mut page);
        }
    }

    /// Predictions on or off.
    #[wasm_bindgen(js_name = setPredict)]
    pub fn set_predict(&self, on: bool) -> Result<JsValue, JsError> {
        self.apply(|s| s.set_predict(on))?;
        Ok(self.state())
    }

    /// Answer the question on screen (0 is the first choice); returns the
    /// `playground-answer` detail, which is also sent as an event.
    pub fn answer(&self, choice: u32) -> Result<JsValue, JsError> {
        let mut detail = serde_json::Value::Null;
        self.update(|s| s.answer(choice as usize).map(|d| detail = d))?;
        Ok(from_json(&detail))
    }

    /// Forget this scenario's answers and start again.
    #[wasm_bindgen(js_name = tryAgain)]
    pub fn try_again(&self) -> Result<JsValue, JsError> {
        self.apply(|s| s.try_again())?;
        Ok(self.state())
    }

    /// `{model: [...], process: ...}` (either may be left out): record that
    /// version and compare it with the lesson's run; `null` goes back. A bad
    /// edit throws, naming each field, and changes nothing.
    #[wasm_bindgen(js_name = whatIf)]
    pub fn what_if(&self, edit: JsValue) -> Result<JsValue, JsError> {
        let edit =
            if edit.is_null() || edit.is_undefined() { None } else { Some(to_json(&edit).map_err(js_err)?) };
        self.update(|s| {
            s.what_if(edit.as_ref())
                .map_err(|problems| problems.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))
        })?;
        Ok(self.state())
    }

    /// The edit the version on screen was made with (`whatIf`, the page's
    /// editors or buttons), or null on the lesson's run.
    #[wasm_bindgen(js_name = currentEdit)]
    pub fn current_edit(&self) -> JsValue {
        match self.page.try_borrow() {
            Ok(p) => match (&p.session.what_if_state().changed, &p.session.what_if_state().edit) {
                (Some(_), Some(edit)) => from_json(edit),
                _ => JsValue::NULL,
            },
            Err(_) => JsValue::NULL,
        }
    }

    /// Replace the model double (`null` restores the fixture double).
    #[wasm_bindgen(js_name = setModel)]
    pub fn set_model(&self, model: JsValue) -> Result<(), JsError> {
        let maker = maker(model, "model", |f| Box::new(JsModel::new(f)) as Box<dyn Model>)?;
        self.apply(|s| s.set_double(Override::Model(maker)))
    }

    /// Replace the process double (`null` restores the fixture double).
    #[wasm_bindgen(js_name = setProcess)]
    pub fn set_process(&self, process: JsValue) -> Result<(), JsError> {
        let maker = maker(process, "process", |f| Box::new(JsProcess::new(f)) as Box<dyn Process>)?;
        self.apply(|s| s.set_double(Override::Process(maker)))
    }

    /// Switch language by code (`zh`, `en`). Unknown codes are refused; a
    /// language whose table is in a pack not here yet throws `PackNeeded`;
    /// one whose run is still bytes from the worker, `Reading`.
    #[wasm_bindgen(js_name = setLang)]
    pub fn set_lang(&self, lang: &str) -> Result<(), JsValue> {
        let lang = Lang::parse(lang).ok_or_else(|| js_err(format!("unknown language {lang:?}")))?;
        self.update_packed(|s| s.set_lang(lang))
    }

    /// Show the `python` or the `rust` listing (position and breakpoints stay).
    #[wasm_bindgen(js_name = setListing)]
    pub fn set_listing(&self, name: &str) -> Result<(), JsError> {
        let code = agent_loop_core::vocab::Code::from_name(name)
            .ok_or_else(|| js_err(format!("unknown listing {name:?} (python or rust)")))?;
        self.apply(|s| s.set_code(code))
    }

    /// Jump to a step index (timeline).
    pub fn seek(&self, position: u32) -> Result<(), JsError> {
        self.apply(|s| s.seek(position as usize))
    }

    /// Show or hide the tracing lines in the listing.
    #[wasm_bindgen(js_name = setReveal)]
    pub fn set_reveal(&self, on: bool) -> Result<(), JsError> {
        self.apply(|s| s.set_reveal(on))
    }

    /// The current step as JSON (function, line, locals, …).
    #[wasm_bindgen(js_name = currentStep)]
    pub fn current_step(&self) -> JsValue {
        let Ok(p) = self.page.try_borrow() else { return JsValue::NULL };
        let trace = p.session.replay().trace();
        from_json(&p.session.replay().step().map(|st| lesson::step_json(trace, st)).unwrap_or_default())
    }

    /// The recorded trace's `result` and `error`, and what it printed.
    pub fn outcome(&self) -> JsValue {
        let Ok(p) = self.page.try_borrow() else { return JsValue::NULL };
        let t = p.session.replay().trace();
        from_json(&json!({"result": t.returned(), "error": t.error, "output": t.output}))
    }
}

impl Playground {
    /// [`Playground::update`] for a change that cannot be refused.
    fn apply(&self, change: impl FnOnce(&mut Session)) -> Result<(), JsError> {
        self.update(|s| {
            change(s);
            Ok::<(), Refusal>(())
        })
    }

    /// [`Playground::update`], a refusal that names a pack thrown as
    /// `PackNeeded` (see [`pack_needed`]), one that waits for a run to be
    /// read back as `Reading` (see [`reading`]).
    fn update_packed(&self, change: impl FnOnce(&mut Session) -> Result<(), Refusal>) -> Result<(), JsValue> {
        let mut typed = None;
        let result = self.update(|s| {
            change(s).inspect_err(|why| {
                typed = match why {
                    Refusal::PackNeeded(name) => Some(pack_needed(name)),
                    Refusal::Reading => Some(reading()),
                    Refusal::Said(_) => None,
                }
            })
        });
        match typed {
            Some(error) => Err(error),
            None => result.map_err(Into::into),
        }
    }

    /// Change the session, draw, then send the step event (if the step
    /// moved) once the page is no longer borrowed.
    fn update<E: std::fmt::Display>(
        &self,
        change: impl FnOnce(&mut Session) -> Result<(), E>,
    ) -> Result<(), JsError> {
        let mut page = self.page.try_borrow_mut().map_err(|_| busy())?;
        // A refused change may still have changed something (a broken
        // scenario is listed with its problems): draw either way.
        let result = change(&mut page.session).map_err(js_err);
        let moved = page.session.peek_changes().step;
        page.draw();
        // (a change the page could not draw is still made: said to the caller)
        let result = match page.failure.take() {
            Some(why) => result.and(Err(js_err(format!("the page refused the playground's markup: {why}")))),
            None => result,
        };
        events::remember(&self.place, &page);
        let answers = page.session.take_answers();
        let root = page.root.clone();
        drop(page);
        events::send_answers(&root, answers);
        if moved {
            events::send_step(&self.page);
        }
        result
    }
}

impl Drop for Playground {
    fn drop(&mut self) {
        events::unlisten(&self.root, &self.listeners);
    }
}

/// An author callback as a maker of fresh adapters (`None` for null or
/// undefined); anything else but a function is refused.
fn maker<T: ?Sized + 'static>(
    value: JsValue,
    what: &str,
    adapt: fn(JsFunction) -> Box<T>,
) -> Result<Option<Maker<T>>, JsError> {
    if value.is_null() || value.is_undefined() {
        return Ok(None);
    }
    let f =
        value.dyn_into::<JsFunction>().map_err(|_| js_err(format!("{what} must be a function or null")))?;
    Ok(Some(Box::new(move || adapt(f.clone()))))
}
