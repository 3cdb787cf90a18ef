//! The host page's built-ins the playground depends on, as they were when
//! the module started, each called through a `catch` binding.
//!
//! A host page may replace `Date.now` or the `innerHTML` setter later (a
//! test double, an analytics wrapper, plain sabotage): the playground keeps
//! using the originals, and one that throws anyway is a `Result`, never a
//! JS exception unwinding through wasm (which would leave the page borrowed
//! for good). Markup goes through one Trusted Types policy,
//! `agent-loop-playground`, so that a page enforcing Trusted Types can let
//! the element draw its own (already escaped) markup.

use js_sys::{Function, Object, Reflect};
use std::cell::RefCell;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::Element;

/// The Trusted Types policy name a page's CSP may list (`trusted-types agent-loop-playground`).
pub(crate) const POLICY: &str = "agent-loop-playground";

struct Builtins {
    now: Option<Function>,
    inner_html: Option<Function>,
    /// `policy.createHTML`, bound to the policy (None: no Trusted Types, or
    /// the page refused the policy: plain strings, which such a page refuses).
    create_html: Option<(JsValue, Function)>,
}

thread_local! {
    static BUILTINS: RefCell<Option<Builtins>> = const { RefCell::new(None) };
}

fn get(target: &JsValue, key: &str) -> Option<JsValue> {
    Reflect::get(target, &JsValue::from_str(key)).ok().filter(|v| !v.is_undefined() && !v.is_null())
}

/// `Object.getOwnPropertyDescriptor(Element.prototype, "innerHTML").set`,
/// read without any binding that could throw.
fn inner_html_setter(global: &JsValue) -> Option<Function> {
    let element = get(global, "Element")?;
    let prototype = get(&element, "prototype")?;
    let descriptor =
        Reflect::get_own_property_descriptor(prototype.unchecked_ref::<Object>(), &"innerHTML".into())
            .ok()
            .filter(|d| d.is_object())?;
    get(&descriptor, "set")?.dyn_into().ok()
}

fn policy(global: &JsValue) -> Option<(JsValue, Function)> {
    let factory = get(global, "trustedTypes")?;
    let create: Function = get(&factory, "createPolicy")?.dyn_into().ok()?;
    // The markup is escaped where it is built (markup.rs): the policy passes it on.
    let identity = Closure::<dyn Fn(JsValue) -> JsValue>::new(|html: JsValue| html);
    let rules = Object::new();
    Reflect::set(&rules, &"createHTML".into(), identity.as_ref()).ok()?;
    // (one per module, for the page's lifetime)
    identity.forget();
    // A page whose CSP does not list the name refuses it (with a console report).
    let policy = create.call2(&factory, &JsValue::from_str(POLICY), &rules).ok()?;
    let create_html = get(&policy, "createHTML")?.dyn_into().ok()?;
    Some((policy, create_html))
}

/// Read the built-ins once, at module start (`#[wasm_bindgen(start)]`).
pub(crate) fn capture() {
    BUILTINS.with(|b| *b.borrow_mut() = Some(read()));
}

fn read() -> Builtins {
    let global: JsValue = js_sys::global().into();
    let now = get(&global, "Date").and_then(|d| get(&d, "now")).and_then(|f| f.dyn_into().ok());
    Builtins { now, inner_html: inner_html_setter(&global), create_html: policy(&global) }
}

/// `f` over the captured built-ins; read now if the start function did not
/// run (a test harness that calls exports directly).
fn with<R>(f: impl FnOnce(&Builtins) -> R) -> R {
    BUILTINS.with(|b| {
        if b.borrow().is_none() {
            let read = read();
            b.borrow_mut().get_or_insert(read);
        }
        // (shared: a setter the page replaced may call back into the module)
        let b = b.borrow();
        match b.as_ref() {
            Some(b) => f(b),
            None => f(&Builtins { now: None, inner_html: None, create_html: None }),
        }
    })
}

/// Milliseconds since the epoch from the page's original clock; NaN when
/// there is none or it throws (the recording's step and call caps still
/// bound it; only the time budget cannot be told).
pub(crate) fn now() -> f64 {
    with(|b| {
        let Some(now) = b.now.as_ref() else { return f64::NAN };
        now.call0(&JsValue::UNDEFINED).ok().and_then(|t| t.as_f64()).unwrap_or(f64::NAN)
    })
}

/// Put `html` (escaped markup the playground built) into `el`. Err: what
/// the page answered instead.
pub(crate) fn set_html(el: &Element, html: &str) -> Result<(), String> {
    with(|b| {
        let value = match &b.create_html {
            Some((policy, create)) => {
                create.call1(policy, &JsValue::from_str(html)).map_err(|e| describe(&e))?
            }
            None => JsValue::from_str(html),
        };
        let result = match &b.inner_html {
            Some(setter) => setter.call1(el, &value).map(drop),
            None => Reflect::set(el, &"innerHTML".into(), &value).map(drop),
        };
        result.map_err(|e| describe(&e))
    })
}

/// A thrown value in a few words (at most 500 characters), read without
/// anything that could throw.
pub(crate) fn describe(error: &JsValue) -> String {
    let message = get(error, "message").and_then(|m| m.as_string()).or_else(|| error.as_string());
    let message = message.filter(|m| !m.is_empty()).unwrap_or_else(|| "an error".into());
    message.chars().take(500).collect()
}
