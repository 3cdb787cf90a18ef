//! The opaque handle JS holds: one playground bound to one host element.
//!
//! The trace stays in wasm memory; each move renders only the current
//! snapshot. Listeners are owned by the handle and removed when it is
//! freed (`free()` from JS, e.g. when the custom element leaves the page).

use super::callbacks::to_json;
use super::figure::{self, Moment};
use super::view::{self, esc, ui, Lang};
use crate::debugger::{Command, Debugger};
use crate::lesson::{self, caption, listing};
use crate::run::Trace;
use crate::scenario::{load_shipped, Problem, Scenario};
use crate::trace::Function;
use js_sys::{Function as JsFunction, Reflect};
use serde_json::{json, Value};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Element, Event, HtmlElement, HtmlInputElement, HtmlSelectElement, KeyboardEvent};

/// A scenario file as loaded: parsed, or its problems.
struct Entry {
    file: String,
    parsed: Result<Scenario, Vec<Problem>>,
}

struct State {
    root: HtmlElement,
    entries: Vec<Entry>,
    current: usize,
    trace: Trace,
    dbg: Debugger,
    lang: Lang,
    reveal: bool,
    shown_listing: Option<Function>,
    previous_len: usize,
    model: Option<JsFunction>,
    process: Option<JsFunction>,
    /// `fixtureDoubles` from www/doubles.js.
    doubles: JsFunction,
    controls: Vec<Command>,
    only_function: Option<Function>,
    current_row: Option<Element>,
    /// A `playground-step` event waiting to be sent once the state is no
    /// longer borrowed (so handlers may call back into the element).
    pending_event: Option<Value>,
    /// What each panel currently shows (see `set_html`).
    shown: RefCell<std::collections::BTreeMap<String, String>>,
}

/// The output panel shows at most this many of the latest lines.
const OUTPUT_TAIL: usize = 40;

type Listener = (String, Closure<dyn FnMut(Event)>);

/// One playground in one element.
#[wasm_bindgen]
pub struct Playground {
    state: Rc<RefCell<State>>,
    listeners: Vec<Listener>,
}

fn opt_str(options: &JsValue, key: &str) -> Option<String> {
    Reflect::get(options, &JsValue::from_str(key)).ok().and_then(|v| v.as_string()).filter(|s| !s.is_empty())
}

fn js_err(message: impl std::fmt::Display) -> JsError {
    JsError::new(&message.to_string())
}

#[wasm_bindgen]
impl Playground {
    /// Build a playground inside `root`. `options` (all optional):
    /// `{doubles, function, scenario, lang, breakpoints, controls, compact}`;
    /// `doubles` (required) is `fixtureDoubles` from www/doubles.js.
    #[wasm_bindgen(constructor)]
    pub fn new(root: HtmlElement, options: JsValue) -> Result<Playground, JsError> {
        let entries: Vec<Entry> =
            load_shipped().into_iter().map(|(file, parsed)| Entry { file, parsed }).collect();
        let lang = Lang::parse(&opt_str(&options, "lang").unwrap_or_else(|| "zh".into()));
        let only_function = opt_str(&options, "function").and_then(|f| Function::from_name(&f));
        let controls = match opt_str(&options, "controls") {
            Some(list) => {
                let chosen: Vec<Command> = list.split([',', ' ']).filter_map(Command::from_name).collect();
                if chosen.is_empty() {
                    Command::ALL.to_vec()
                } else {
                    chosen
                }
            }
            None => Command::ALL.to_vec(),
        };
        let wanted = opt_str(&options, "scenario");
        let current = pick(&entries, wanted.as_deref(), only_function)
            .ok_or_else(|| js_err("no valid scenario to show"))?;
        let scenario = entries[current].parsed.as_ref().map_err(|_| js_err("bad scenario"))?.clone();
        let doubles: JsFunction = Reflect::get(&options, &JsValue::from_str("doubles"))
            .ok()
            .and_then(|f| f.dyn_into().ok())
            .ok_or_else(|| js_err("options.doubles must be fixtureDoubles from doubles.js"))?;
        let trace = super::record_with_callbacks(&doubles, &scenario, None, None);
        let state = State {
            root: root.clone(),
            entries,
            current,
            trace,
            dbg: Debugger::new(),
            lang,
            reveal: false,
            shown_listing: None,
            previous_len: 0,
            model: None,
            process: None,
            doubles,
            controls,
            only_function,
            current_row: None,
            pending_event: None,
            shown: RefCell::default(),
        };
        let state = Rc::new(RefCell::new(state));
        {
            let mut s = state.borrow_mut();
            s.build_shell(opt_str(&options, "compact").is_some());
            if let Some(bps) = opt_str(&options, "breakpoints") {
                s.set_breakpoints_from(&bps);
            }
            if let Some(w) = &wanted {
                if s.scenario().map(|x| &x.id) != Some(w) {
                    s.banner(&format!(
                        "unknown scenario {w:?}; showing {}",
                        s.scenario().map_or("", |x| &x.id)
                    ));
                }
            }
            s.render_all();
        }
        let mut pg = Playground { state, listeners: Vec::new() };
        pg.listen();
        Ok(pg)
    }

    /// `{scenario, function, step, steps, line, label, depth, status, …}`.
    pub fn state(&self) -> JsValue {
        match self.state.try_borrow() {
            Ok(s) => super::callbacks::from_json(&s.state_json()),
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
        self.state.try_borrow_mut().map_err(|_| busy())?.apply(command);
        flush(&self.state);
        Ok(self.state())
    }

    /// Flip a breakpoint; `line` is a listing line number or a label.
    #[wasm_bindgen(js_name = toggleBreakpoint)]
    pub fn toggle_breakpoint(&self, function: &str, line: JsValue) -> Result<bool, JsError> {
        let mut s = self.state.try_borrow_mut().map_err(|_| busy())?;
        let (f, n) = resolve_breakpoint(function, &line)?;
        let on = s.dbg.toggle(f, n);
        s.sync_breakpoints();
        Ok(on)
    }

    /// Show another scenario (by id).
    pub fn load(&self, scenario_id: &str) -> Result<(), JsError> {
        let mut s = self.state.try_borrow_mut().map_err(|_| busy())?;
        let index = s
            .entries
            .iter()
            .position(|e| e.parsed.as_ref().is_ok_and(|p| p.id == scenario_id))
            .ok_or_else(|| js_err(format!("unknown scenario {scenario_id:?}")))?;
        s.switch_to(index);
        drop(s);
        flush(&self.state);
        Ok(())
    }

    /// Add a scenario from JSON text or an object. Returns its id; a bad
    /// fixture is listed with its problems and the error names them.
    #[wasm_bindgen(js_name = addScenario)]
    pub fn add_scenario(&self, fixture: JsValue) -> Result<String, JsError> {
        let mut s = self.state.try_borrow_mut().map_err(|_| busy())?;
        let parsed = match fixture.as_string() {
            Some(text) => Scenario::parse(&text),
            None => to_json(&fixture)
                .map_err(|why| vec![Problem { field: "(file)".into(), message: why }])
                .and_then(Scenario::from_value),
        };
        let file = match &parsed {
            Ok(sc) => format!("{}.json", sc.id),
            Err(_) => "(added scenario)".into(),
        };
        let result = match &parsed {
            Ok(sc) => Ok(sc.id.clone()),
            Err(problems) => {
                Err(js_err(problems.iter().map(|p| format!("{file}: {p}")).collect::<Vec<_>>().join("\n")))
            }
        };
        s.entries.retain(|e| !(e.file == file && parsed.is_ok()));
        s.entries.push(Entry { file, parsed });
        s.render_picker();
        s.render_problems();
        result
    }

    /// Replace the model double (`null` restores the fixture double).
    #[wasm_bindgen(js_name = setModel)]
    pub fn set_model(&self, model: JsValue) -> Result<(), JsError> {
        let f = callback(model, "model")?;
        let mut s = self.state.try_borrow_mut().map_err(|_| busy())?;
        s.model = f;
        s.rerecord();
        drop(s);
        flush(&self.state);
        Ok(())
    }

    /// Replace the process double (`null` restores the fixture double).
    #[wasm_bindgen(js_name = setProcess)]
    pub fn set_process(&self, process: JsValue) -> Result<(), JsError> {
        let f = callback(process, "process")?;
        let mut s = self.state.try_borrow_mut().map_err(|_| busy())?;
        s.process = f;
        s.rerecord();
        drop(s);
        flush(&self.state);
        Ok(())
    }

    /// Switch language: "zh" or "en".
    #[wasm_bindgen(js_name = setLang)]
    pub fn set_lang(&self, lang: &str) {
        // Re-entrant when our own render sets the element's lang attribute: nothing to do.
        if let Ok(mut s) = self.state.try_borrow_mut() {
            if s.lang != Lang::parse(lang) {
                s.lang = Lang::parse(lang);
                s.relabel();
            }
        }
    }

    /// Jump to a step index (timeline).
    pub fn seek(&self, position: u32) -> Result<(), JsError> {
        self.state.try_borrow_mut().map_err(|_| busy())?.seek(position as usize);
        flush(&self.state);
        Ok(())
    }

    /// Show or hide the tracing lines in the listing.
    #[wasm_bindgen(js_name = setReveal)]
    pub fn set_reveal(&self, on: bool) -> Result<(), JsError> {
        let mut s = self.state.try_borrow_mut().map_err(|_| busy())?;
        s.reveal = on;
        s.render_reveal();
        Ok(())
    }

    /// The current step as JSON (function, line, locals, …).
    #[wasm_bindgen(js_name = currentStep)]
    pub fn current_step(&self) -> JsValue {
        let Ok(s) = self.state.try_borrow() else { return JsValue::NULL };
        let step = s.trace.steps.get(s.dbg.position());
        super::callbacks::from_json(&step.map(|st| lesson::step_json(&s.trace, st)).unwrap_or(Value::Null))
    }

    /// The recorded trace's `result` and `error`.
    pub fn outcome(&self) -> JsValue {
        let Ok(s) = self.state.try_borrow() else { return JsValue::NULL };
        super::callbacks::from_json(
            &json!({"result": s.trace.result, "error": s.trace.error, "output": s.trace.output}),
        )
    }
}

/// A call made from inside one of this playground's own callbacks (for
/// example a step event handler calling `command`) while it is busy.
fn busy() -> JsError {
    js_err("the playground is busy (called from inside its own update); try again after the event")
}

/// Send a queued `playground-step` event, with the state no longer borrowed.
fn flush(state: &Rc<RefCell<State>>) {
    let Ok(mut s) = state.try_borrow_mut() else { return };
    let (Some(detail), root) = (s.pending_event.take(), s.root.clone()) else { return };
    drop(s);
    let init = web_sys::CustomEventInit::new();
    init.set_detail(&super::callbacks::from_json(&detail));
    init.set_bubbles(true);
    if let Ok(event) = web_sys::CustomEvent::new_with_event_init_dict("playground-step", &init) {
        let _ = root.dispatch_event(&event);
    }
}

fn callback(value: JsValue, what: &str) -> Result<Option<JsFunction>, JsError> {
    if value.is_null() || value.is_undefined() {
        return Ok(None);
    }
    value.dyn_into::<JsFunction>().map(Some).map_err(|_| js_err(format!("{what} must be a function or null")))
}

fn resolve_breakpoint(function: &str, line: &JsValue) -> Result<(Function, u32), JsError> {
    if let Some(n) = line.as_f64() {
        let f =
            Function::from_name(function).ok_or_else(|| js_err(format!("unknown function {function:?}")))?;
        let n = n as u32;
        if listing(f).line(n).is_none() {
            return Err(js_err(format!("{function} has no line {n}")));
        }
        return Ok((f, n));
    }
    let label = line.as_string().unwrap_or_default();
    lesson::line_of_label(&label).ok_or_else(|| js_err(format!("unknown label {label:?}")))
}

/// The entry to show first: the wanted id, else the first valid one of the
/// wanted function.
fn pick(entries: &[Entry], wanted: Option<&str>, function: Option<Function>) -> Option<usize> {
    let ok = |e: &Entry| e.parsed.as_ref().ok().cloned();
    if let Some(w) = wanted {
        if let Some(i) = entries.iter().position(|e| ok(e).is_some_and(|s| s.id == w)) {
            return Some(i);
        }
    }
    let preferred = ["report", "error", "request"];
    for id in preferred {
        if let Some(i) = entries
            .iter()
            .position(|e| ok(e).is_some_and(|s| s.id == id && function.is_none_or(|f| s.function == f)))
        {
            return Some(i);
        }
    }
    entries.iter().position(|e| ok(e).is_some_and(|s| function.is_none_or(|f| s.function == f)))
}

impl Playground {
    fn listen(&mut self) {
        let root = self.state.borrow().root.clone();
        let on = |state: &Rc<RefCell<State>>, f: fn(&mut State, Event)| {
            let state = Rc::clone(state);
            Closure::<dyn FnMut(Event)>::new(move |e: Event| {
                // A re-entrant event (e.g. focus changes during render) is skipped, not a panic.
                if let Ok(mut s) = state.try_borrow_mut() {
                    f(&mut s, e);
                }
                flush(&state);
            })
        };
        for (name, handler) in [
            ("click", State::on_click as fn(&mut State, Event)),
            ("change", State::on_change),
            ("input", State::on_input),
            ("keydown", State::on_key),
        ] {
            let closure = on(&self.state, handler);
            let _ = root.add_event_listener_with_callback(name, closure.as_ref().unchecked_ref());
            self.listeners.push((name.to_string(), closure));
        }
    }
}

impl Drop for Playground {
    fn drop(&mut self) {
        if let Ok(s) = self.state.try_borrow() {
            for (name, closure) in &self.listeners {
                let _ = s.root.remove_event_listener_with_callback(name, closure.as_ref().unchecked_ref());
            }
            s.root.set_inner_html("");
        }
    }
}

impl State {
    fn scenario(&self) -> Option<&Scenario> {
        self.entries.get(self.current).and_then(|e| e.parsed.as_ref().ok())
    }

    fn q(&self, selector: &str) -> Option<Element> {
        self.root.query_selector(selector).ok().flatten()
    }

    /// Replace a panel's markup — only when it changed, so a step that
    /// leaves a panel alone costs no DOM work and no layout there.
    fn set_html(&self, selector: &str, html: &str) {
        if self.unchanged(selector, html) {
            return;
        }
        if let Some(el) = self.q(selector) {
            el.set_inner_html(html);
        }
    }

    fn set_text(&self, selector: &str, text: &str) {
        if self.unchanged(selector, text) {
            return;
        }
        if let Some(el) = self.q(selector) {
            el.set_text_content(Some(text));
        }
    }

    fn unchanged(&self, selector: &str, content: &str) -> bool {
        let mut shown = self.shown.borrow_mut();
        if shown.get(selector).is_some_and(|c| c == content) {
            return true;
        }
        shown.insert(selector.to_string(), content.to_string());
        false
    }

    fn build_shell(&mut self, compact: bool) {
        let _ = self.root.class_list().add_1("alp");
        if compact {
            let _ = self.root.class_list().add_1("alp-compact");
        }
        self.root.set_inner_html(
            r#"<div class="alp-bar">
  <label class="alp-pick"><span class="alp-l-scenario"></span> <select class="alp-select"></select></label>
  <div class="alp-langs" role="group"><button type="button" class="alp-lang" data-lang="zh" lang="zh">中文</button><button type="button" class="alp-lang" data-lang="en" lang="en">English</button></div>
  <label class="alp-reveal"><input type="checkbox" class="alp-reveal-box"> <span class="alp-l-reveal"></span></label>
</div>
<div class="alp-problems" role="alert" hidden></div>
<div class="alp-controls" role="toolbar"></div>
<div class="alp-timeline"><input type="range" class="alp-slider" min="0" max="0" value="0"><svg class="alp-ticks" viewBox="0 0 1000 8" preserveAspectRatio="none" aria-hidden="true"></svg><span class="alp-counter" aria-live="off"></span></div>
<div class="alp-main">
  <section class="alp-code-panel"><h2 class="alp-h3"><span class="alp-l-code"></span> <span class="alp-stack"></span></h2><div class="alp-code" tabindex="-1"></div></section>
  <section class="alp-figure-panel"><h2 class="alp-h3 alp-l-record"></h2><div class="alp-figure"></div><div class="alp-sr alp-figure-text"></div></section>
</div>
<section class="alp-caption"><h2 class="alp-caption-title"></h2><p class="alp-caption-body"></p></section>
<div class="alp-sr alp-live" aria-live="polite"></div>
<div class="alp-lower">
  <section class="alp-locals-panel"><h2 class="alp-h3 alp-l-locals"></h2><dl class="alp-locals"></dl></section>
  <section class="alp-output-panel"><h2 class="alp-h3 alp-l-output"></h2><pre class="alp-output"></pre></section>
</div>"#,
        );
        if !self.root.has_attribute("tabindex") {
            let _ = self.root.set_attribute("tabindex", "-1");
        }
    }

    /// Language-dependent labels, controls and listing.
    fn relabel(&mut self) {
        let lang = self.lang;
        let _ = self.root.set_attribute("lang", if lang == Lang::Zh { "zh-CN" } else { "en" });
        for (sel, key) in [
            (".alp-l-scenario", "scenario"),
            (".alp-l-reveal", "reveal"),
            (".alp-l-code", "code"),
            (".alp-l-record", "record"),
            (".alp-l-locals", "locals"),
            (".alp-l-output", "output"),
        ] {
            self.set_text(sel, ui(lang, key));
        }
        if let Some(bar) = self.q(".alp-controls") {
            let _ = bar.set_attribute("aria-label", ui(lang, "controls"));
        }
        if let Some(slider) = self.q(".alp-slider") {
            let _ = slider.set_attribute("aria-label", ui(lang, "timeline"));
        }
        if let Ok(buttons) = self.root.query_selector_all(".alp-lang") {
            for i in 0..buttons.length() {
                if let Some(b) = buttons.item(i).and_then(|n| n.dyn_into::<Element>().ok()) {
                    let pressed = b.get_attribute("data-lang").as_deref() == Some(lang.code());
                    let _ = b.set_attribute("aria-pressed", if pressed { "true" } else { "false" });
                }
            }
        }
        self.set_html(".alp-controls", &view::controls(lang, &self.controls));
        self.render_picker();
        self.shown_listing = None;
        self.render_step();
    }

    fn render_all(&mut self) {
        self.render_problems();
        self.relabel();
        self.sync_breakpoints();
    }

    fn render_picker(&self) {
        let Some(select) = self.q(".alp-select") else { return };
        let mut html = String::new();
        for f in Function::ALL {
            if self.only_function.is_some_and(|o| o != f) {
                continue;
            }
            html.push_str(&format!(r#"<optgroup label="{}">"#, f.name()));
            for (i, e) in self.entries.iter().enumerate() {
                match &e.parsed {
                    Ok(s) if s.function == f => html.push_str(&format!(
                        r#"<option value="{}"{}>{}</option>"#,
                        i,
                        if i == self.current { " selected" } else { "" },
                        esc(s.title(self.lang.code()))
                    )),
                    _ => {}
                }
            }
            html.push_str("</optgroup>");
        }
        let bad: Vec<&Entry> = self.entries.iter().filter(|e| e.parsed.is_err()).collect();
        if !bad.is_empty() {
            html.push_str(r#"<optgroup label="⚠">"#);
            for e in bad {
                html.push_str(&format!(r#"<option disabled>{} ⚠</option>"#, esc(&e.file)));
            }
            html.push_str("</optgroup>");
        }
        select.set_inner_html(&html);
    }

    fn render_problems(&self) {
        let Some(box_) = self.q(".alp-problems") else { return };
        let mut html = String::new();
        for e in &self.entries {
            if let Err(problems) = &e.parsed {
                for p in problems {
                    html.push_str(&format!(
                        "<li><code>{}</code>: {}</li>",
                        esc(&e.file),
                        esc(&p.to_string())
                    ));
                }
            }
        }
        if html.is_empty() {
            let _ = box_.set_attribute("hidden", "");
            box_.set_inner_html("");
        } else {
            box_.remove_attribute("hidden").ok();
            box_.set_inner_html(&format!(
                "<strong>{}</strong><ul>{html}</ul>",
                esc(ui(self.lang, "bad_fixture"))
            ));
        }
    }

    fn banner(&self, message: &str) {
        if let Some(box_) = self.q(".alp-problems") {
            box_.remove_attribute("hidden").ok();
            box_.set_inner_html(&format!("<p>{}</p>", esc(message)));
        }
    }

    fn switch_to(&mut self, index: usize) {
        if self.entries.get(index).is_none_or(|e| e.parsed.is_err()) {
            return;
        }
        self.current = index;
        self.rerecord();
        self.render_picker();
    }

    /// Record the current scenario again (new scenario or new callbacks).
    fn rerecord(&mut self) {
        let Some(scenario) = self.scenario().cloned() else { return };
        self.trace =
            super::record_with_callbacks(&self.doubles, &scenario, self.model.clone(), self.process.clone());
        self.dbg.command(Command::Reset, &self.trace.steps);
        self.previous_len = 0;
        self.shown_listing = None;
        self.sync_breakpoints();
        self.render_step();
        self.notify();
    }

    fn apply(&mut self, command: Command) {
        self.previous_len = self.current_len();
        self.dbg.command(command, &self.trace.steps);
        self.render_step();
        self.notify();
    }

    fn seek(&mut self, position: usize) {
        self.previous_len = self.current_len();
        self.dbg.seek(position, &self.trace.steps);
        self.render_step();
        self.notify();
    }

    fn current_len(&self) -> usize {
        self.trace.steps.get(self.dbg.position()).map_or(0, |s| s.record_len as usize)
    }

    fn set_breakpoints_from(&mut self, list: &str) {
        let entry = self.scenario().map(|s| s.function).unwrap_or(Function::RunLoop);
        for item in list.split([',', ' ']).map(str::trim).filter(|x| !x.is_empty()) {
            let resolved = match item.split_once(':') {
                Some((f, n)) => Function::from_name(f).zip(n.parse().ok()),
                None => match item.parse::<u32>() {
                    Ok(n) => Some((entry, n)),
                    Err(_) => lesson::line_of_label(item),
                },
            };
            match resolved {
                Some((f, n)) if listing(f).line(n).is_some() => self.dbg.set_breakpoint(f, n, true),
                _ => self.banner(&format!("breakpoints: cannot place {item:?}")),
            }
        }
    }

    /// Breakpoint buttons and timeline ticks follow the debugger.
    fn sync_breakpoints(&mut self) {
        if let Ok(buttons) = self.root.query_selector_all(".alp-bp") {
            for i in 0..buttons.length() {
                if let Some(b) = buttons.item(i).and_then(|n| n.dyn_into::<Element>().ok()) {
                    let f = b.get_attribute("data-function").and_then(|f| Function::from_name(&f));
                    let n = b.get_attribute("data-line").and_then(|n| n.parse().ok());
                    let on = f.zip(n).is_some_and(|(f, n)| self.dbg.has_breakpoint(f, n));
                    let _ = b.set_attribute("aria-pressed", if on { "true" } else { "false" });
                }
            }
        }
        let n = self.trace.steps.len().max(1);
        let ticks: String = self
            .dbg
            .hit_positions(&self.trace.steps)
            .iter()
            .take(2000)
            .map(|&i| {
                // Integer maths: the tick scale is 0..996 of a 1000-wide viewBox.
                format!(r#"<rect x="{}" y="0" width="4" height="8" class="alp-tick"/>"#, i * 996 / n)
            })
            .collect();
        self.set_html(".alp-ticks", &ticks);
    }

    fn render_listing(&mut self, function: Function) {
        if self.shown_listing == Some(function) {
            return;
        }
        self.shown_listing = Some(function);
        self.current_row = None;
        self.set_html(".alp-code", &view::listing_rows(listing(function), self.lang));
        self.render_reveal();
        self.sync_breakpoints();
    }

    fn render_reveal(&self) {
        if let Some(code) = self.q(".alp-code") {
            let _ = code.class_list().toggle_with_force("alp-show-instr", self.reveal);
        }
        if let Some(b) = self.q(".alp-reveal-box").and_then(|e| e.dyn_into::<HtmlInputElement>().ok()) {
            b.set_checked(self.reveal);
        }
    }

    /// Draw the current snapshot: listing highlight, figure, caption, locals, output.
    fn render_step(&mut self) {
        let position = self.dbg.position();
        let started = self.dbg.started();
        let Some(step) = self.trace.steps.get(position).cloned() else { return };
        let entry = self.trace.function;
        let shown_function = if started { step.function } else { entry };
        self.render_listing(shown_function);
        // Highlight the line about to run.
        if let Some(old) = self.current_row.take() {
            old.remove_attribute("aria-current").ok();
        }
        if started {
            let sel = format!(
                r#".alp-row[data-function="{}"][data-line="{}"]"#,
                step.function.name(),
                lesson::line(&step)
            );
            if let Some(row) = self.q(&sel) {
                let _ = row.set_attribute("aria-current", "step");
                scroll_into_code(&row, self.q(".alp-code"));
                self.current_row = Some(row);
            }
        }
        self.set_text(
            ".alp-stack",
            &if started { view::stack(entry, step.function, step.depth) } else { entry.name().to_string() },
        );
        // Figure and its text alternative.
        let moment = Moment {
            trace: &self.trace,
            position,
            previous_len: self.previous_len,
            lang: self.lang,
            started,
        };
        self.set_html(".alp-figure", &figure::render(&moment));
        let record_len = if started { step.record_len as usize } else { 0 };
        self.set_html(
            ".alp-figure-text",
            &figure::text_alternative(&self.trace, record_len.min(self.trace.record.len()), self.lang),
        );
        // Caption.
        let (title, body) = if started {
            caption(self.lang.code(), &step, &self.trace)
        } else {
            (
                self.scenario().map(|s| s.title(self.lang.code()).to_string()).unwrap_or_default(),
                ui(self.lang, "not_started").to_string(),
            )
        };
        self.set_text(".alp-caption-title", &title);
        self.set_text(".alp-caption-body", &body);
        let total = self.trace.steps.len();
        let counter =
            format!("{} {} / {}", ui(self.lang, "step_of"), if started { position + 1 } else { 0 }, total);
        self.set_text(".alp-live", &format!("{counter}. {title}. {body}"));
        self.set_text(".alp-counter", &counter);
        if let Some(slider) = self.q(".alp-slider").and_then(|e| e.dyn_into::<HtmlInputElement>().ok()) {
            slider.set_max(&(total.saturating_sub(1)).to_string());
            slider.set_value(&position.to_string());
            let _ = slider.set_attribute("aria-valuetext", &counter);
        }
        // Locals.
        let mut locals = String::new();
        if started {
            if let Value::Object(map) = self.trace.locals_json(&step) {
                for (k, v) in map {
                    let shown = match &v {
                        Value::String(s) => format!("{s:?}"),
                        other => other.to_string(),
                    };
                    locals.push_str(&format!(
                        "<dt>{}</dt><dd>{}</dd>",
                        esc(&k),
                        esc(&view::clip(&shown, 240))
                    ));
                }
            }
        }
        self.set_html(".alp-locals", &locals);
        // Output up to this step.
        let upto = if started { step.output_len as usize } else { 0 };
        let from = upto.saturating_sub(OUTPUT_TAIL);
        let mut lines: Vec<String> = self.trace.output[from..upto.min(self.trace.output.len())]
            .iter()
            .map(|l| view::output_line(self.lang, l))
            .collect();
        if from > 0 {
            lines.insert(0, format!("… (+{from})"));
        }
        let out = if lines.is_empty() { ui(self.lang, "no_output").to_string() } else { lines.join("\n") };
        // The inner div keeps the panel scrolled to the newest line (column-reverse).
        self.set_html(".alp-output", &format!("<div>{}</div>", esc(&out)));
        let status = self.status();
        let _ = self.root.set_attribute("data-status", &status);
    }

    fn status(&self) -> String {
        if !self.dbg.started() {
            return "ready".into();
        }
        if self.dbg.position() + 1 >= self.trace.steps.len() {
            return self
                .trace
                .status()
                .map(str::to_string)
                .or_else(|| self.trace.error.as_ref().map(|e| e.kind.clone()))
                .unwrap_or_else(|| "done".into());
        }
        "paused".into()
    }

    fn state_json(&self) -> Value {
        let step = self.trace.steps.get(self.dbg.position());
        let breakpoints: Vec<Value> =
            self.dbg.breakpoints().map(|(f, n)| json!({"function": f.name(), "line": n})).collect();
        json!({
            "scenario": self.trace.scenario,
            "function": self.trace.function.name(),
            "step": self.dbg.position(),
            "steps": self.trace.steps.len(),
            "started": self.dbg.started(),
            "line": step.map(lesson::line),
            "label": step.map(|s| s.label),
            "stage": step.map(lesson::stage),
            "depth": step.map(|s| s.depth),
            "currentFunction": step.map(|s| s.function.name()),
            "status": self.status(),
            "finalStatus": self.trace.status().map(str::to_string).or_else(|| self.trace.error.as_ref().map(|e| e.kind.clone())),
            "recordLength": if self.dbg.started() { step.map_or(0, |s| s.record_len) } else { 0 },
            "breakpoints": breakpoints,
            "lang": self.lang.code(),
        })
    }

    /// Queue a `playground-step` event (sent by [`flush`] after the borrow ends).
    fn notify(&mut self) {
        self.pending_event = Some(self.state_json());
    }

    fn on_click(&mut self, e: Event) {
        let Some(target) = e.target().and_then(|t| t.dyn_into::<Element>().ok()) else { return };
        if let Ok(Some(b)) = target.closest("[data-command]") {
            if let Some(c) = b.get_attribute("data-command").and_then(|n| Command::from_name(&n)) {
                self.apply(c);
            }
        } else if let Ok(Some(b)) = target.closest(".alp-bp") {
            let f = b.get_attribute("data-function").and_then(|f| Function::from_name(&f));
            let n = b.get_attribute("data-line").and_then(|n| n.parse().ok());
            if let Some((f, n)) = f.zip(n) {
                self.dbg.toggle(f, n);
                self.sync_breakpoints();
                self.notify();
            }
        } else if let Ok(Some(b)) = target.closest("[data-lang]") {
            if let Some(l) = b.get_attribute("data-lang") {
                self.lang = Lang::parse(&l);
                self.relabel();
                self.notify();
            }
        }
    }

    fn on_change(&mut self, e: Event) {
        let Some(target) = e.target() else { return };
        if let Some(select) = target.dyn_ref::<HtmlSelectElement>() {
            if let Ok(i) = select.value().parse::<usize>() {
                self.switch_to(i);
            }
        } else if let Some(input) = target.dyn_ref::<HtmlInputElement>() {
            if input.class_list().contains("alp-reveal-box") {
                self.reveal = input.checked();
                self.render_reveal();
            }
        }
    }

    fn on_input(&mut self, e: Event) {
        let Some(input) = e.target().and_then(|t| t.dyn_into::<HtmlInputElement>().ok()) else { return };
        if input.class_list().contains("alp-slider") {
            if let Ok(i) = input.value().parse::<usize>() {
                self.seek(i);
            }
        }
    }

    fn on_key(&mut self, e: Event) {
        let Some(k) = e.dyn_ref::<KeyboardEvent>() else { return };
        let in_field = e
            .target()
            .and_then(|t| t.dyn_into::<Element>().ok())
            .is_some_and(|el| matches!(el.tag_name().as_str(), "INPUT" | "SELECT" | "TEXTAREA"));
        let command = match (k.key().as_str(), k.shift_key()) {
            ("F8", _) => Some(Command::Continue),
            ("F10", _) => Some(Command::Step),
            ("F11", true) => Some(Command::StepOut),
            ("F11", false) => Some(Command::StepInto),
            ("ArrowRight" | "ArrowDown", _) if !in_field => Some(Command::Step),
            ("ArrowLeft" | "ArrowUp", _) if !in_field => Some(Command::Back),
            _ => None,
        };
        if let Some(c) = command {
            e.prevent_default();
            self.apply(c);
        }
    }
}

/// Keep the current row visible inside the code panel only (the page
/// itself does not jump).
fn scroll_into_code(row: &Element, code: Option<Element>) {
    let (Some(code), Ok(row)) = (code, row.clone().dyn_into::<HtmlElement>()) else { return };
    let Ok(code) = code.dyn_into::<HtmlElement>() else { return };
    let top = row.offset_top();
    let bottom = top + row.offset_height();
    let view_top = code.scroll_top();
    let view_h = code.client_height();
    if top < view_top {
        code.set_scroll_top((top - 24).max(0));
    } else if bottom > view_top + view_h {
        code.set_scroll_top(bottom - view_h + 24);
    }
}
