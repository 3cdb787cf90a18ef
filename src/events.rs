//! The event wiring: DOM events on the playground's root become session
//! calls, then a draw, then (after the borrow ends) a `playground-step`
//! event for the host page. Nothing here decides what a click means beyond
//! reading which control it hit.

use crate::callbacks::from_json;
use crate::dom;
use crate::render::Page;
use agent_loop_core::debugger::Command;
use agent_loop_core::i18n::Lang;
use agent_loop_core::pack::Refusal;
use agent_loop_core::programs;
use agent_loop_core::vocab::Code;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Element, Event, HtmlInputElement, HtmlSelectElement, KeyboardEvent};

/// A DOM listener owned by the handle (removed when it is freed).
pub(crate) type Listener = (&'static str, Closure<dyn FnMut(Event)>);

/// A DOM event handler: changes the session; true when the host page
/// should hear about it.
type Handler = fn(&mut Page, &Event) -> bool;

/// Where the learner is (JSON text), kept beside the page (see `Playground::last_place`).
pub(crate) type Place = Rc<RefCell<String>>;

/// Keep where the learner is now.
pub(crate) fn remember(place: &Place, p: &Page) {
    let s = &p.session;
    let r = s.replay();
    let breakpoints: Vec<String> =
        r.debugger().breakpoints().map(|(f, n)| format!("{}:{n}", f.name())).collect();
    let now = serde_json::json!({
        "scenario": r.trace().scenario, "step": r.position(), "started": r.started(),
        "whatIf": s.what_if_state().changed.is_some(), "breakpoints": breakpoints,
        "listing": r.code().name(), "lang": s.lang().code(),
    });
    if let Ok(mut kept) = place.try_borrow_mut() {
        *kept = now.to_string();
    }
}

/// Markup the page refused during a draw no caller hears of (a click, a
/// resize): said once in the console.
pub(crate) fn say_failure(p: &mut Page) {
    if let Some(why) = p.failure.take() {
        let text = format!("agent-loop-playground: the page refused the playground's markup: {why}");
        web_sys::console::error_1(&JsValue::from_str(&text));
    }
}

/// Listen for clicks, changes, slider input and keys on the root.
pub(crate) fn listen(page: &Rc<RefCell<Page>>, place: &Place) -> Vec<Listener> {
    let root = page.borrow().root.clone();
    let handlers: [(&'static str, Handler); 4] =
        [("click", on_click), ("change", on_change), ("input", on_input), ("keydown", on_key)];
    let mut listeners = Vec::new();
    for (name, handler) in handlers {
        let (page, place) = (Rc::clone(page), Rc::clone(place));
        let closure = Closure::<dyn FnMut(Event)>::new(move |e: Event| {
            // A re-entrant event (e.g. focus changes during a draw) is skipped, not a panic.
            let Ok(mut p) = page.try_borrow_mut() else { return };
            let notify = handler(&mut p, &e);
            p.draw();
            say_failure(&mut p);
            remember(&place, &p);
            let answers = p.session.take_answers();
            let root = p.root.clone();
            drop(p);
            send_answers(&root, answers);
            if notify {
                send_step(&page);
            }
        });
        let _ = root.add_event_listener_with_callback(name, closure.as_ref().unchecked_ref());
        listeners.push((name, closure));
    }
    listeners
}

/// Remove the listeners and empty the root (also when an error in the
/// page left it borrowed: nothing here needs the page).
pub(crate) fn unlisten(root: &web_sys::HtmlElement, listeners: &[Listener]) {
    for (name, closure) in listeners {
        let _ = root.remove_event_listener_with_callback(name, closure.as_ref().unchecked_ref());
    }
    let _ = crate::builtins::set_html(root, "");
}

/// How many events one move may cause through handlers that move the
/// playground again before the chain is cut (with a console warning).
const MAX_CHAINED_EVENTS: u32 = 10_000;

/// Tell the host page where the playground is now (`playground-step`).
///
/// A handler of this event may move the playground again: that move is
/// drawn at once, and its event is sent after this one returns — a loop
/// here, never a recursion through the handler.
pub(crate) fn send_step(page: &Rc<RefCell<Page>>) {
    {
        let Ok(mut p) = page.try_borrow_mut() else { return };
        if p.dispatching {
            p.event_pending = true;
            return;
        }
        p.dispatching = true;
    }
    let mut sent = 0;
    loop {
        let Ok(mut p) = page.try_borrow_mut() else { break };
        p.event_pending = false;
        let (detail, root) = (p.session.state(), p.root.clone());
        drop(p);
        let init = web_sys::CustomEventInit::new();
        init.set_detail(&from_json(&detail));
        init.set_bubbles(true);
        // Out of the element's shadow root to the host page's listeners.
        init.set_composed(true);
        if let Ok(event) = web_sys::CustomEvent::new_with_event_init_dict("playground-step", &init) {
            let _ = root.dispatch_event(&event);
        }
        sent += 1;
        if !page.try_borrow().is_ok_and(|p| p.event_pending) {
            break;
        }
        if sent >= MAX_CHAINED_EVENTS {
            web_sys::console::warn_1(&JsValue::from_str(
                "agent-loop-playground: playground-step handlers kept moving the playground; stopped after 10,000 events",
            ));
            break;
        }
    }
    if let Ok(mut p) = page.try_borrow_mut() {
        p.dispatching = false;
        p.event_pending = false;
    }
}

/// Tell the host page about each answer given (`playground-answer`).
pub(crate) fn send_answers(root: &web_sys::HtmlElement, answers: Vec<serde_json::Value>) {
    for detail in answers {
        let init = web_sys::CustomEventInit::new();
        init.set_detail(&from_json(&detail));
        init.set_bubbles(true);
        init.set_composed(true);
        if let Ok(event) = web_sys::CustomEvent::new_with_event_init_dict("playground-answer", &init) {
            let _ = root.dispatch_event(&event);
        }
    }
}

/// A pick the session refused for now, which the element finishes (the
/// event stays inside the shadow root): `alp-pack` when a pack is to be
/// fetched first, `alp-read` when a run from the worker is to be read back
/// first (a slice per task); then it shows what `then` says (`{scenario}`
/// or `{lang}`).
fn ask_element(root: &web_sys::HtmlElement, why: &Refusal, mut then: serde_json::Value) {
    let name = match why {
        Refusal::PackNeeded(pack) => {
            then["pack"] = pack.as_str().into();
            "alp-pack"
        }
        Refusal::Reading => "alp-read",
        Refusal::Said(_) => return,
    };
    let init = web_sys::CustomEventInit::new();
    init.set_detail(&from_json(&then));
    init.set_bubbles(true);
    if let Ok(event) = web_sys::CustomEvent::new_with_event_init_dict(name, &init) {
        let _ = root.dispatch_event(&event);
    }
}

fn target_element(e: &Event) -> Option<Element> {
    e.target().and_then(|t| t.dyn_into::<Element>().ok())
}

/// A control, a breakpoint number or a language button. Returns whether
/// the host page should hear about it.
fn on_click(p: &mut Page, e: &Event) -> bool {
    let Some(target) = target_element(e) else { return false };
    // Only controls inside this playground (a host page's own `data-lang`
    // or `data-command` around the element means nothing here).
    let root: &web_sys::Node = p.root.as_ref();
    let hit = |selector: &str| target.closest(selector).ok().flatten().filter(|el| root.contains(Some(el)));
    if let Some(b) = hit("[data-command]") {
        match b.get_attribute("data-command").and_then(|n| Command::from_name(&n)) {
            Some(c) => p.session.command(c),
            None => return false,
        }
    } else if let Some(b) = hit("[data-choice]") {
        let Some(choice) = b.get_attribute("data-choice").and_then(|n| n.parse().ok()) else { return false };
        return p.session.answer(choice).is_ok();
    } else if let Some(b) = hit("[data-action]") {
        let function = b.get_attribute("data-function");
        return act(p, &b.get_attribute("data-action").unwrap_or_default(), function.as_deref());
    } else if let Some(b) = hit(".alp-bp") {
        // (a name of the program on screen: a recorded one's functions are its own)
        let near = p.session.replay().trace().function;
        let f = b.get_attribute("data-function").and_then(|f| programs::function_near(near, &f));
        let n = b.get_attribute("data-line").and_then(|n| n.parse().ok());
        let Some((f, n)) = f.zip(n) else { return false };
        if p.session.toggle_line(f, n).is_err() {
            return false;
        }
    } else if let Some(card) = hit("[data-message-index]") {
        let Some(i) = card.get_attribute("data-message-index").and_then(|i| i.parse().ok()) else {
            return false;
        };
        p.session.toggle_card(i);
        return false;
    } else if let Some(b) = hit(".alp-view") {
        let record = b.get_attribute("data-view").as_deref() == Some("record");
        dom::show_view(&p.root, record, p.current_row.as_ref());
        return false;
    } else if let Some(b) = hit(".alp-listing") {
        let Some(code) = b.get_attribute("data-listing").and_then(|c| Code::from_name(&c)) else {
            return false;
        };
        p.session.set_code(code);
    } else if let Some(b) = hit("[data-lang]") {
        let Some(lang) = b.get_attribute("data-lang").and_then(|l| Lang::parse(&l)) else { return false };
        if let Err(why) = p.session.set_lang(lang) {
            // A language whose table is in a pack not fetched yet, or whose
            // run is still being read back: the element fetches or reads it
            // and switches (keeper.js).
            ask_element(&p.root, &why, serde_json::json!({ "lang": lang.code() }));
            return false;
        }
    } else {
        return false;
    }
    true
}

/// The buttons of the prediction, what-if and comparison panels (`beside`:
/// the loop a "run beside" button names).
fn act(p: &mut Page, action: &str, beside: Option<&str>) -> bool {
    match action {
        "try-again" => p.session.try_again(),
        "to-parting" => p.session.to_parting(),
        "back-to-lesson" => {
            let _ = p.session.what_if(None);
        }
        // The editors' texts as they are, on the scenario's own loop.
        "what-if" => {
            let editors = p.root.query_selector_all("textarea[data-edit]").ok();
            let texts: Vec<(String, String)> = (0..editors.as_ref().map_or(0, |l| l.length()))
                .filter_map(|i| editors.as_ref()?.item(i)?.dyn_into::<web_sys::Element>().ok())
                .filter_map(|t| {
                    let value = js_sys::Reflect::get(&t, &JsValue::from_str("value")).ok()?.as_string()?;
                    Some((t.get_attribute("data-edit")?, value))
                })
                .collect();
            let texts: Vec<(&str, &str)> = texts.iter().map(|(f, t)| (f.as_str(), t.as_str())).collect();
            p.show_compare = p.session.what_if_texts(&texts, None).is_ok();
            return p.show_compare;
        }
        // Another loop of the lesson on the scenario's own replies (the
        // lesson's loop beside it ran on those).
        "beside" => {
            let edit = serde_json::json!({ "function": beside.unwrap_or_default() });
            p.show_compare = p.session.what_if(Some(&edit)).is_ok();
            return p.show_compare;
        }
        _ => return false,
    }
    true
}

/// The scenario picker and the "show tracing lines" box.
fn on_change(p: &mut Page, e: &Event) -> bool {
    let Some(target) = e.target() else { return false };
    if let Some(select) = target.dyn_ref::<HtmlSelectElement>() {
        let id = select.value();
        return match p.session.load(&id) {
            Ok(()) => true,
            Err(why) => {
                // A program whose texts are in a pack not fetched yet, or a
                // run still being read back: the element fetches or reads it
                // and loads the scenario (keeper.js).
                ask_element(&p.root, &why, serde_json::json!({ "scenario": id }));
                false
            }
        };
    } else if let Some(input) = target.dyn_ref::<HtmlInputElement>() {
        if input.class_list().contains("alp-reveal-box") {
            p.session.set_reveal(input.checked());
        }
        if input.class_list().contains("alp-predict-box") {
            p.session.set_predict(input.checked());
            return true;
        }
    }
    false
}

/// The timeline slider.
fn on_input(p: &mut Page, e: &Event) -> bool {
    let Some(input) = e.target().and_then(|t| t.dyn_into::<HtmlInputElement>().ok()) else { return false };
    if !input.class_list().contains("alp-slider") {
        return false;
    }
    match input.value().parse::<usize>() {
        Ok(i) => {
            p.session.seek(i);
            true
        }
        Err(_) => false,
    }
}

/// Debugger keys: F8, F10, F11, Shift+F11, and the arrows outside fields.
fn on_key(p: &mut Page, e: &Event) -> bool {
    let Some(k) = e.dyn_ref::<KeyboardEvent>() else { return false };
    // Enter or Space on a focused message card opens its full text.
    let card = target_element(e).and_then(|t| t.closest("[data-message-index]").ok().flatten());
    if let (Some(card), "Enter" | " ") = (card, k.key().as_str()) {
        if let Some(i) = card.get_attribute("data-message-index").and_then(|i| i.parse().ok()) {
            e.prevent_default();
            e.stop_propagation();
            p.session.toggle_card(i);
        }
        return false;
    }
    // On a line number, ↑ ↓ Home End move between the line numbers.
    if let Some(bp) = target_element(e).filter(|t| t.class_list().contains("alp-bp")) {
        if dom::rove(&p.root, &bp, &k.key()) {
            e.prevent_default();
            e.stop_propagation();
            return false;
        }
    }
    let in_field =
        target_element(e).is_some_and(|el| matches!(el.tag_name().as_str(), "INPUT" | "SELECT" | "TEXTAREA"));
    if k.key() == "Escape" && p.session.replay().opened().is_some() {
        p.session.close_card();
        return false;
    }
    let command = match (k.key().as_str(), k.shift_key()) {
        ("F8", _) => Command::Continue,
        ("F10", _) => Command::Step,
        ("F11", true) => Command::StepOut,
        ("F11", false) => Command::StepInto,
        ("ArrowRight" | "ArrowDown", _) if !in_field => Command::Step,
        ("ArrowLeft" | "ArrowUp", _) if !in_field => Command::Back,
        _ => return false,
    };
    // The key is the playground's: the host page (an mdBook binds the arrows
    // to "next chapter") must not act on it as well.
    e.prevent_default();
    e.stop_propagation();
    p.session.command(command);
    true
}
