//! The author CLI under Node: [`run`] is `agent_loop_cli::commands::run`
//! with Node behind its [`Io`] trait. The machine's side is
//! `node/agent-loop-playground.js`, a small script that owns `fs`,
//! `process` and `child_process`; this file only converts.
//!
//! Every call into JavaScript is `catch`: an exception there becomes the
//! command's error text, never an unwind through this module. A value of
//! the wrong shape is read as an error too.

use agent_loop_cli::commands::{self, Io, Kind, Written};
use agent_loop_cli::python::{self, Bounds, PyRun, Python, Stopped};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// The script's object: its methods are the machine.
    pub type NodeIo;
    /// A file's size in bytes, -1 for a folder, -2 for anything else.
    #[wasm_bindgen(method, catch)]
    fn kind(this: &NodeIo, path: &str) -> Result<JsValue, JsValue>;
    /// At most `max` bytes of a file.
    #[wasm_bindgen(method, catch)]
    fn read(this: &NodeIo, path: &str, max: f64) -> Result<JsValue, JsValue>;
    /// A folder's entry names.
    #[wasm_bindgen(method, catch)]
    fn list(this: &NodeIo, dir: &str) -> Result<JsValue, JsValue>;
    /// `""` when written, `"closed"` when the reader went away, else why not.
    #[wasm_bindgen(method, catch)]
    fn out(this: &NodeIo, bytes: &[u8]) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn err(this: &NodeIo, line: &str) -> Result<JsValue, JsValue>;
    /// Write a file (created or replaced).
    #[wasm_bindgen(method, catch)]
    fn write(this: &NodeIo, path: &str, bytes: &[u8]) -> Result<JsValue, JsValue>;
    /// What `python3 --version` wrote to its standard output, once it
    /// exited 0 within `seconds` and `bytes`; else `null`.
    #[wasm_bindgen(method, catch, js_name = hasPython)]
    fn has_python(this: &NodeIo, seconds: f64, bytes: f64) -> Result<JsValue, JsValue>;
    /// `{success, stdout: Uint8Array, stderr: string, stopped: "" | "time"
    /// | "output"}` of one harness run under the supervisor, `files` on its
    /// standard input (the supervisor first, read by `boot`), within
    /// `seconds` and `bytes`.
    #[wasm_bindgen(method, catch)]
    fn python(
        this: &NodeIo,
        boot: &str,
        files: &[u8],
        arguments: Vec<String>,
        seconds: f64,
        bytes: f64,
    ) -> Result<JsValue, JsValue>;
}

/// Run the CLI on `args` (without `node` and the script) and give its exit
/// code; `me` is the command name the usage line shows.
#[wasm_bindgen]
pub fn run(me: &str, args: Vec<String>, io: NodeIo) -> u8 {
    let args: Vec<OsString> = args.into_iter().map(OsString::from).collect();
    commands::run(me, &args, &mut Node { io, python: None })
}

type Runner = Box<dyn FnMut([&str; 3], &[&str], Bounds) -> Result<PyRun, String>>;

struct Node {
    io: NodeIo,
    /// CPython's runner, once looked up (`None` inside: not on this machine).
    python: Option<Option<Runner>>,
}

/// The text of a thrown value: an `Error`'s message, a string as it is.
fn said(thrown: JsValue) -> String {
    if let Some(text) = thrown.as_string() {
        return text;
    }
    match js_sys::Reflect::get(&thrown, &"message".into()).ok().and_then(|m| m.as_string()) {
        Some(message) => message,
        None => "an unreadable error".into(),
    }
}

/// A path as the script gets it (lossy only for a name that is no text).
fn text(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

fn bytes(value: &JsValue) -> Option<Vec<u8>> {
    value.is_instance_of::<js_sys::Uint8Array>().then(|| js_sys::Uint8Array::new(value).to_vec())
}

impl Io for Node {
    fn kind(&mut self, path: &Path) -> Result<Kind, String> {
        let size = self.io.kind(&text(path)).map_err(said)?.as_f64().ok_or("no size given")?;
        Ok(match size {
            -1.0 => Kind::Dir,
            s if s >= 0.0 => Kind::File(s as u64),
            _ => Kind::Other,
        })
    }

    fn read(&mut self, path: &Path, max: u64) -> Result<Vec<u8>, String> {
        let value = self.io.read(&text(path), max as f64).map_err(said)?;
        bytes(&value).ok_or_else(|| "no bytes given".into())
    }

    fn list(&mut self, dir: &Path) -> Result<Vec<PathBuf>, String> {
        let names = self.io.list(&text(dir)).map_err(said)?;
        let names: js_sys::Array = names.dyn_into().map_err(|_| "no names given")?;
        Ok(names.iter().filter_map(|n| n.as_string()).map(|n| dir.join(n)).collect())
    }

    fn out(&mut self, bytes: &[u8]) -> Written {
        match self.io.out(bytes).map(|v| v.as_string()) {
            Ok(Some(s)) if s.is_empty() => Written::Ok,
            Ok(Some(s)) if s == "closed" => Written::Closed,
            Ok(Some(s)) => Written::Failed(s),
            Ok(None) => Written::Failed("no answer from the output".into()),
            Err(e) => Written::Failed(said(e)),
        }
    }

    fn err(&mut self, line: &str) {
        let _ = self.io.err(line);
    }

    fn write(&mut self, path: &Path, bytes: &[u8]) -> Result<(), String> {
        self.io.write(&text(path), bytes).map(|_| ()).map_err(said)
    }

    fn python(&mut self) -> Option<Python<'_>> {
        let io = &self.io;
        let runner = self.python.get_or_insert_with(|| {
            let (seconds, bytes) = (python::PROBE.seconds, python::PROBE.bytes as f64);
            let answer =
                io.has_python(seconds, bytes).ok().and_then(|v| v.dyn_into::<js_sys::Uint8Array>().ok());
            let runs = answer.is_some_and(|out| python::probe_says_python3(true, &out.to_vec()));
            let io: NodeIo = AsRef::<JsValue>::as_ref(io).clone().unchecked_into();
            runs.then(|| {
                Box::new(move |files: [&str; 3], arguments: &[&str], bounds: Bounds| {
                    python_run(&io, files, arguments, bounds)
                }) as Runner
            })
        });
        runner.as_deref_mut().map(|r| r as Python)
    }
}

/// One harness run through the script, read back.
fn python_run(io: &NodeIo, files: [&str; 3], arguments: &[&str], bounds: Bounds) -> Result<PyRun, String> {
    let arguments = arguments.iter().map(|a| a.to_string()).collect();
    let files = python::files_for_supervisor(files);
    let got =
        io.python(python::BOOT, &files, arguments, bounds.seconds, bounds.bytes as f64).map_err(said)?;
    let field = |name: &str| js_sys::Reflect::get(&got, &name.into()).unwrap_or(JsValue::UNDEFINED);
    let stopped = match field("stopped").as_string().as_deref() {
        Some("time") => Some(Stopped::Time),
        Some("output") => Some(Stopped::Output),
        _ => None,
    };
    python::ran(PyRun {
        success: field("success").as_bool() == Some(true),
        stdout: bytes(&field("stdout")).ok_or("the harness run gave no output")?,
        stderr: field("stderr").as_string().unwrap_or_default(),
        stopped,
    })
}
