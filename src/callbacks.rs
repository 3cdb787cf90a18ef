//! The model and the process as JavaScript callbacks.
//!
//! `JsModel` and `JsProcess` implement the core's traits over
//! `js_sys::Function`. Everything crossing the boundary goes through JSON
//! (`JSON.stringify` / `JSON.parse`), so a callback that throws, returns a
//! Promise, a cyclic object or a BigInt becomes data the loop inspects —
//! never a panic.

use agent_loop_core::protocol::{Model, ModelError, Process, ProcessOutcome, Request, Seconds};
use agent_loop_core::scenario::{bad_outcome, outcome_from_json, Scenario};
use agent_loop_core::session::Doubles;
use js_sys::{Array, Function, Object, Reflect, JSON};
use serde_json::Value;
use wasm_bindgen::{JsCast, JsValue};

/// The page's fixture doubles: `fixtureDoubles(fixture) -> {model, process}`
/// from www/doubles.js, passed in by the page (the wasm module imports no
/// script of its own).
pub struct JsDoubles {
    /// `fixtureDoubles`, called once per recording with the scenario.
    pub factory: Function,
}

impl Doubles for JsDoubles {
    fn for_scenario(&self, scenario: &Scenario) -> (Box<dyn Model>, Box<dyn Process>) {
        // The script as this scenario reads it (its replies in its language).
        let script = JSON::parse(&script_text(scenario)).unwrap_or(JsValue::NULL);
        let doubles = self.factory.call1(&JsValue::NULL, &script).unwrap_or(JsValue::NULL);
        let get = |k: &str| {
            Reflect::get(&doubles, &JsValue::from_str(k)).ok().and_then(|f| f.dyn_into::<Function>().ok())
        };
        // A factory that gives no function: the Rust doubles stand in.
        let (model, process) = scenario.doubles();
        let model: Box<dyn Model> = match get("model") {
            Some(f) => Box::new(JsModel::new(f)),
            None => Box::new(model),
        };
        let process: Box<dyn Process> = match get("process") {
            Some(f) => Box::new(JsProcess::new(f)),
            None => Box::new(process),
        };
        (model, process)
    }
}

/// `options[key]` as a string, "" when it is missing or not one (an
/// options object the element hands over).
pub(crate) fn opt_str(options: &JsValue, key: &str) -> String {
    Reflect::get(options, &JsValue::from_str(key)).ok().and_then(|v| v.as_string()).unwrap_or_default()
}

/// Name and message of a thrown JS value. Reads nothing that could throw
/// through Rust: a getter that throws, a Proxy, a non-string `name` or
/// `message` all come back as plain defaults.
fn thrown(error: &JsValue) -> (String, String) {
    let field = |key: &str| {
        Reflect::get(error, &JsValue::from_str(key))
            .ok()
            .and_then(|v| v.as_string())
            .filter(|s| !s.is_empty())
    };
    if error.is_object() || error.is_function() {
        let name = field("name").unwrap_or_else(|| "Error".into());
        // An Error's message may be empty (a bare exception, as the setup's
        // stand-ins raise); only a thrown object without one is said so.
        let message = Reflect::get(error, &JsValue::from_str("message")).ok().and_then(|v| v.as_string());
        return (name, message.unwrap_or_else(|| "(no message)".into()));
    }
    let text = error.as_string().or_else(|| JSON::stringify(error).ok().and_then(|s| s.as_string()));
    ("Error".into(), text.filter(|t| !t.is_empty()).unwrap_or_else(|| "(no message)".into()))
}

/// JS value → JSON, or a description of why it is not JSON.
pub fn to_json(value: &JsValue) -> Result<Value, String> {
    if value.is_undefined() {
        return Ok(Value::Null);
    }
    if value.has_type::<js_sys::Promise>() {
        return Err("a Promise (callbacks must be synchronous)".into());
    }
    let text = JSON::stringify(value).map_err(|e| format!("not JSON-serialisable: {}", thrown(&e).1))?;
    let text = text.as_string().unwrap_or_else(|| "null".into());
    serde_json::from_str(&text).map_err(|e| format!("not usable JSON: {e}"))
}

/// The script the JS doubles replay, as JSON text: the fixture's fields,
/// its replies in the scenario's language, and what a run past the last
/// outcome says. Written straight from the scenario (a big reply is not
/// copied to be written).
fn script_text(scenario: &Scenario) -> String {
    macro_rules! text {
        ($v:expr) => {
            serde_json::to_string($v).unwrap_or_default()
        };
    }
    let mut out = String::from("{");
    let fields = scenario.raw.as_object().into_iter().flatten();
    for (key, value) in fields.filter(|(k, _)| !matches!(k.as_str(), "model" | "no_more_runs")) {
        out.push_str(&format!("{}:{},", text!(key), text!(value)));
    }
    let no_more = scenario.lang.word("double_no_runs");
    out.push_str(&format!("\"model\":{},\"no_more_runs\":{}}}", text!(&scenario.model[..]), text!(no_more)));
    out
}

/// JSON → JS value.
pub fn from_json(value: &Value) -> JsValue {
    JSON::parse(&value.to_string()).unwrap_or(JsValue::NULL)
}

/// The model as a JS function `(request) => response`.
pub struct JsModel {
    callback: Function,
    /// The record only grows, so converted messages are kept and only new
    /// ones are converted (all of them in one `JSON.parse`): a long loop
    /// stays linear.
    messages: Array,
    /// Keys and constant values, converted once (strings cost a copy each
    /// time they cross the boundary).
    constants: Option<[JsValue; 8]>,
}

impl JsModel {
    /// The model `callback(request)` answers for (`el.model`, or a double's).
    pub fn new(callback: Function) -> JsModel {
        JsModel { callback, messages: Array::new(), constants: None }
    }

    fn request(&mut self, request: &Request) -> JsValue {
        let known = self.messages.length() as usize;
        if request.messages.len() < known {
            self.messages = Array::new();
        }
        let new = &request.messages[self.messages.length() as usize..];
        if !new.is_empty() {
            let text = serde_json::to_string(new).unwrap_or_else(|_| "[]".into());
            let batch = JSON::parse(&text).unwrap_or(JsValue::NULL);
            for i in 0..new.len() as u32 {
                // (a page that broke JSON.parse or Object.freeze gets what they gave)
                let message = Reflect::get_u32(&batch, i).unwrap_or(JsValue::NULL);
                let _ = try_push(&self.messages, &try_freeze(&message).unwrap_or(message));
            }
        }
        let [k_model, k_system, k_messages, k_tools, k_max, model, system, tools] =
            self.constants.get_or_insert_with(|| {
                ["model", "system", "messages", "tools", "max_tokens"]
                    .map(JsValue::from_str)
                    .into_iter()
                    .chain([
                        JsValue::from_str(request.model),
                        JsValue::from_str(request.system),
                        from_json(request.tools),
                    ])
                    .collect::<Vec<_>>()
                    .try_into()
                    .unwrap_or_else(|_| std::array::from_fn(|_| JsValue::NULL))
            });
        let object = Object::new();
        let _ = Reflect::set(&object, k_model, model);
        let _ = Reflect::set(&object, k_system, system);
        // A fresh array for each call: the callback may keep or change it.
        let messages = try_slice(&self.messages, 0, request.messages.len() as u32)
            .unwrap_or_else(|_| Array::new().into());
        let _ = Reflect::set(&object, k_messages, &messages);
        let _ = Reflect::set(&object, k_tools, tools);
        let _ = Reflect::set(&object, k_max, &JsValue::from_f64(f64::from(request.max_tokens)));
        object.into()
    }
}

// Built-ins a host page could have replaced with something that throws:
// called through `catch` bindings so that nothing unwinds through wasm.
#[wasm_bindgen::prelude::wasm_bindgen]
extern "C" {
    /// An array, as these bindings see it.
    type List;
    #[wasm_bindgen(js_namespace = Object, js_name = freeze, catch)]
    fn try_freeze(value: &JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, js_name = slice, catch)]
    fn slice(this: &List, start: u32, end: u32) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, js_name = push, catch)]
    fn push(this: &List, value: &JsValue) -> Result<u32, JsValue>;
}

fn try_push(list: &Array, value: &JsValue) -> Result<u32, JsValue> {
    list.unchecked_ref::<List>().push(value)
}

fn try_slice(list: &Array, start: u32, end: u32) -> Result<JsValue, JsValue> {
    list.unchecked_ref::<List>().slice(start, end)
}

impl Model for JsModel {
    fn create(&mut self, request: &Request) -> Result<Value, ModelError> {
        let js_request = self.request(request);
        match self.callback.call1(&JsValue::NULL, &js_request) {
            Ok(reply) => {
                Ok(to_json(&reply).unwrap_or_else(|why| Value::String(format!("(unusable reply: {why})"))))
            }
            Err(error) => {
                let (name, message) = thrown(&error);
                Err(ModelError { name, message })
            }
        }
    }
}

/// The process as a JS function `(command, options) => outcome`.
pub struct JsProcess {
    callback: Function,
    /// The command's words and the option's key as JS strings, converted
    /// once (a loop runs the same command every time).
    words: Vec<(String, JsValue)>,
}

impl JsProcess {
    /// The process `callback(command)` stands in for (`el.process`, or a double's).
    pub fn new(callback: Function) -> JsProcess {
        JsProcess { callback, words: Vec::new() }
    }

    fn word(&mut self, text: &str) -> JsValue {
        if let Some((_, js)) = self.words.iter().find(|(t, _)| t == text) {
            return js.clone();
        }
        let js = JsValue::from_str(text);
        self.words.push((text.to_string(), js.clone()));
        js
    }
}

impl Process for JsProcess {
    fn run(&mut self, command: &[&str], timeout: Seconds) -> ProcessOutcome {
        let args = Array::new();
        for word in command {
            let _ = try_push(&args, &self.word(word));
        }
        let options = Object::new();
        let _ = Reflect::set(&options, &self.word("timeout_s"), &JsValue::from_f64(timeout.0));
        match self.callback.call2(&JsValue::NULL, &args, &options) {
            Ok(outcome) => match to_json(&outcome) {
                Ok(json) => outcome_from_json(&json).unwrap_or_else(|(field, say)| bad_outcome(field, &say)),
                Err(why) => ProcessOutcome::CannotStart(format!("bad outcome: {why}")),
            },
            Err(error) => ProcessOutcome::CannotStart(thrown(&error).1),
        }
    }
}
