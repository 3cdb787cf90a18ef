//! Author CLI.
//!
//! `agent-loop-playground trace <scenario.json>` prints the trace as JSON.
//! `agent-loop-playground check <dir>` validates every `*.json` fixture in
//! `<dir>` and prints `file: field: problem` lines; exit code 1 if any.

//!
//! Built for wasm32 (the page's module), this target is the library alone:
//! `main` is empty there and none of the CLI is compiled in.

#[cfg(not(target_arch = "wasm32"))]
fn main() -> std::process::ExitCode {
    native::cli()
}

// Links the library, whose wasm-bindgen exports are the module's API.
#[cfg(target_arch = "wasm32")]
use agent_loop_playground as _;

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use agent_loop_playground::lesson::trace_json;
    use agent_loop_playground::run::record_scenario;
    use agent_loop_playground::scenario::Scenario;
    use std::path::{Path, PathBuf};
    use std::process::ExitCode;

    const USAGE: &str = "usage:
      agent-loop-playground trace <scenario.json>   print the recorded trace as JSON
      agent-loop-playground check <dir>             validate every *.json fixture in <dir>";

    pub fn cli() -> ExitCode {
        let args: Vec<String> = std::env::args().skip(1).collect();
        match args.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
            ["trace", file] => trace(Path::new(file)),
            ["check", dir] => check(Path::new(dir)),
            _ => {
                eprintln!("{USAGE}");
                ExitCode::from(2)
            }
        }
    }

    fn trace(file: &Path) -> ExitCode {
        let text = match std::fs::read_to_string(file) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("{}: cannot read: {e}", file.display());
                return ExitCode::from(2);
            }
        };
        match Scenario::parse(&text) {
            Ok(scenario) => {
                let trace = record_scenario(&scenario);
                let json = serde_json::to_string_pretty(&trace_json(&trace));
                match json {
                    Ok(json) => {
                        println!("{json}");
                        ExitCode::SUCCESS
                    }
                    Err(e) => {
                        eprintln!("{}: cannot serialise trace: {e}", file.display());
                        ExitCode::FAILURE
                    }
                }
            }
            Err(problems) => {
                for p in problems {
                    eprintln!("{}: {p}", file.display());
                }
                ExitCode::FAILURE
            }
        }
    }

    fn check(dir: &Path) -> ExitCode {
        let mut files: Vec<PathBuf> = match std::fs::read_dir(dir) {
            Ok(entries) => entries.filter_map(Result::ok).map(|e| e.path()).collect(),
            Err(e) => {
                eprintln!("{}: cannot read directory: {e}", dir.display());
                return ExitCode::from(2);
            }
        };
        files.retain(|p| p.extension().is_some_and(|e| e == "json"));
        files.sort();
        let mut bad = 0;
        let mut ids = std::collections::BTreeMap::new();
        for file in &files {
            let problems = match std::fs::read_to_string(file) {
                Err(e) => vec![format!("(file): cannot read: {e}")],
                Ok(text) => match Scenario::parse(&text) {
                    Ok(s) => match ids.insert(s.id.clone(), file.clone()) {
                        Some(other) => vec![format!("id: {:?} is already used by {}", s.id, other.display())],
                        None => Vec::new(),
                    },
                    Err(problems) => problems.iter().map(ToString::to_string).collect(),
                },
            };
            for p in &problems {
                println!("{}: {p}", file.display());
            }
            bad += usize::from(!problems.is_empty());
        }
        println!("checked {} fixture(s): {} ok, {} with problems", files.len(), files.len() - bad, bad);
        if bad == 0 {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        }
    }
}
