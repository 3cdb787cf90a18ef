//! The packs `record` writes hold what CPython did: every step's function,
//! line, event and depth equal a plain `sys.settrace` of the same
//! functions (a small tracer of its own below, with stand-ins of its own),
//! run on the listing as the pack shows it, for every scenario and
//! language of the good manifest and of the examples; and the harness
//! previews a value exactly as the core's one preview rule does.

// The CLI is a native tool.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::record::{python_version, root, series};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A tracer that knows nothing of the recorder: `python3 - job.json`
/// prints `[function, line, event, depth]` of every call, line, exception
/// and return of the listed functions (and the functions inside them; not
/// `<genexpr>` and its kind).
const PLAIN_TRACE: &str = r#"
import builtins, io, json, sys, types

job = json.load(open(sys.argv[1], encoding="utf-8"))

def lang_of(value, lang):
    if isinstance(value, dict):
        if set(value) == {"zh", "en"}:
            return value[lang or "en"]
        return {k: lang_of(v, lang) for k, v in value.items()}
    if isinstance(value, list):
        return [lang_of(v, lang) for v in value]
    return value

class Obj:
    def __init__(self, data):
        self.data = data
    def __getattr__(self, name):
        value = self.data.get(name)
        if name == "content" and isinstance(value, list):
            return [Obj(b) if isinstance(b, dict) else b for b in value]
        return value
    def model_dump(self, **options):
        return json.loads(json.dumps(self.data))

anthropic = types.ModuleType("anthropic")
class APIError(Exception): pass
class BadRequestError(APIError):
    status_code = 400
anthropic.APIError, anthropic.BadRequestError = APIError, BadRequestError

names = {"__name__": "__main__", "__builtins__": builtins, "SCENARIO": job["id"], "LANG": job["lang"]}
script = lang_of(job["script"], job["lang"])
if script is not None:
    replies, asked = iter(script["model"]), [0]
    def create(**request):
        asked[0] += 1
        if asked[0] - 1 in job["refused"]:
            raise BadRequestError("refused")
        return Obj(next(replies))
    def tool_of(outcomes):
        left = iter(outcomes)
        def tool(**given):
            outcome = next(left)
            if "raises" in outcome:
                kind = getattr(builtins, outcome["raises"], None)
                if not (isinstance(kind, type) and issubclass(kind, BaseException)):
                    kind = type(outcome["raises"], (Exception,), {})
                raise kind(outcome.get("message", ""))
            return outcome.get("returns")
        return tool
    tools = {name: tool_of(o) for name, o in script.get("tool_results", {}).items()}
    names.update(tools)
    names.update({"client": types.SimpleNamespace(messages=types.SimpleNamespace(create=create)),
                  "QUESTION": script["question"], "SYSTEM": script.get("system", ""),
                  "TOOLS": script.get("tools", []), "MODEL": "teaching-model",
                  "MAX_CALLS": script.get("max_calls", 4), "TOOL_FUNCTIONS": tools})
sys.modules["anthropic"] = anthropic

ranges = [(f["name"], f["start"], f["end"]) for f in job["functions"]]
def listed(code):
    if code.co_filename != job["program"]["file"] or code.co_name.startswith("<"):
        return None
    return next((n for n, a, b in ranges if a <= code.co_firstlineno <= b), None)

steps, depth = [], [0]
def local(frame, event, arg):
    if event in ("line", "exception"):
        steps.append([listed(frame.f_code), frame.f_lineno, event, depth[0] - 1])
    elif event == "return":
        steps.append([listed(frame.f_code), frame.f_lineno, event, depth[0] - 1])
        depth[0] -= 1
    return local
def trace(frame, event, arg):
    function = listed(frame.f_code)
    if function is None:
        return None
    depth[0] += 1
    steps.append([function, frame.f_lineno, "call", depth[0] - 1])
    return local

codes = [compile(job["program"]["text"], job["program"]["file"], "exec")]
if job["setup"]:
    codes.append(compile(job["setup"]["text"], job["setup"]["file"], "exec"))
out, sys.stdout = sys.stdout, io.StringIO()
sys.settrace(trace)
try:
    for code in codes:
        exec(code, names)
except Exception:
    pass
sys.settrace(None)
sys.stdout = out
json.dump(steps, sys.stdout)
"#;

/// The packs whose steps are checked, with the folder of their manifest.
fn packs() -> Vec<(PathBuf, String)> {
    [
        ("cli/tests/record/good", "cli/tests/record/good.pack.json"),
        ("examples/lesson-three", "examples/lesson-three/lesson-three.pack.json"),
        ("examples/lesson-one-own", "examples/lesson-one-own/lesson-one-own.pack.json"),
    ]
    .iter()
    .map(|(dir, pack)| (root().join(dir), pack.to_string()))
    .collect()
}

fn plain_trace(job: &Value) -> Value {
    let id = job["id"].as_str().unwrap_or("");
    let path =
        std::env::temp_dir().join(format!("alp-plain-{}-{id}-{}.json", std::process::id(), job["lang"]));
    std::fs::write(&path, job.to_string()).unwrap();
    let out = Command::new("python3")
        .args(["-c", PLAIN_TRACE, path.to_str().unwrap()])
        .env("PYTHONHASHSEED", "0")
        .output()
        .unwrap();
    std::fs::remove_file(&path).ok();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The job of the plain tracer for one run of the pack.
fn job_of(pack: &Value, dir: &Path, scenario: &Value, lang: &str) -> Value {
    let run = &scenario["runs"][lang];
    let script = scenario["file"].as_str().map(|file| {
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        serde_json::from_str::<Value>(&text).unwrap()
    });
    let refused: Vec<usize> = run["requests"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
        .filter(|(_, r)| !r["refused"].is_null())
        .map(|(k, _)| k)
        .collect();
    let setup = pack["setup"].get(lang).map(|s| json!({"file": s["file"], "text": s["text"]}));
    let several = pack["languages"].as_array().map_or(0, Vec::len) > 1;
    json!({
        "id": scenario["id"], "lang": if several { json!(lang) } else { Value::Null },
        "program": {"file": pack["listings"][lang]["file"], "text": pack["listings"][lang]["text"]},
        "setup": setup, "functions": pack["functions"], "script": script, "refused": refused,
    })
}

#[test]
fn every_recorded_step_is_where_a_plain_settrace_is() {
    let Some(version) = python_version() else { return };
    let mut compared = 0;
    for (dir, file) in packs() {
        let pack: Value =
            serde_json::from_str(&std::fs::read_to_string(root().join(&file)).unwrap()).unwrap();
        for scenario in pack["scenarios"].as_array().unwrap() {
            for (lang, run) in scenario["runs"].as_object().unwrap() {
                if run["python"].as_str().map(series) != Some(series(&version)) {
                    eprintln!("{file}: recorded by CPython {}, not {version}; not compared", run["python"]);
                    continue;
                }
                let plain = plain_trace(&job_of(&pack, &dir, scenario, lang));
                let recorded: Vec<Value> = run["steps"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|s| json!([s["function"], s["line"], s["event"], s["depth"]]))
                    .collect();
                let plain = plain.as_array().unwrap();
                let at = (0..recorded.len().max(plain.len())).find(|&i| recorded.get(i) != plain.get(i));
                assert!(
                    at.is_none(),
                    "{file}: {} ({lang}) parts from a plain settrace at step {at:?}: recorded {:?}, plain {:?}",
                    scenario["id"],
                    at.and_then(|i| recorded.get(i)),
                    at.and_then(|i| plain.get(i))
                );
                compared += 1;
            }
        }
    }
    eprintln!("{compared} runs compared with a plain settrace");
    assert!(compared == 0 || compared >= 17, "{compared} runs compared");
}

/// A Python value for each preview rule (no integer past 64 bits: JSON
/// has none).
fn samples() -> Vec<Value> {
    let deep = (0..30).fold(json!("bottom"), |inner, _| json!([inner]));
    let deep_map = (0..30).fold(json!(1), |inner, i| json!({ format!("k{i}"): inner }));
    vec![
        json!("short"),
        json!("x".repeat(1000)),
        json!("中".repeat(401)),
        json!((0..120).collect::<Vec<_>>()),
        deep,
        deep_map,
        json!({"b": [1.5, -2, true, null], "a": {"z": "y".repeat(450)}}),
        json!([{"type": "tool_use", "id": "t", "input": {}}, "é".repeat(400)]),
        json!(1e300),
        json!(""),
        json!({"$repr": "namespace(x=1)"}),
        json!([{"$repr": "it's"}, {"$repr": 1}]),
    ]
}

#[test]
fn the_harness_previews_a_value_as_the_core_does() {
    if python_version().is_none() {
        return;
    }
    let harness = root().join("cli/src/record.py");
    let program = format!(
        "import importlib.util, json, sys\n\
         spec = importlib.util.spec_from_file_location('harness', {:?})\n\
         harness = importlib.util.module_from_spec(spec); spec.loader.exec_module(harness)\n\
         values = json.loads(sys.stdin.read())\n\
         json.dump([harness.Preview().value(v) for v in values], sys.stdout)\n",
        harness.to_str().unwrap()
    );
    let mut child = Command::new("python3")
        .args(["-c", &program])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let values = samples();
    std::io::Write::write_all(
        child.stdin.as_mut().unwrap(),
        Value::Array(values.clone()).to_string().as_bytes(),
    )
    .unwrap();
    drop(child.stdin.take());
    let out = child.wait_with_output().unwrap();
    let python: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    for (value, theirs) in values.iter().zip(&python) {
        assert_eq!(&agent_loop_core::preview::preview(value), theirs, "the preview of {value}");
    }
}
