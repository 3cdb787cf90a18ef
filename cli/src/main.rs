//! Author CLI.
//!
//! `agent-loop-cli trace <scenario.json>` prints the trace as JSON.
//! `agent-loop-cli check <dir|file>` validates every `*.json` fixture in
//! `<dir>` (or the one file) and prints `file: field: problem (line N)` lines; exit code 1 if
//! any, or if there is no fixture at all.
//! `agent-loop-cli check --listing <lesson.py> [<dir>]` checks an author's
//! own Python listing like the page does and, with `python3`, runs it under
//! CPython on the program's scenarios (the shipped ones, or `<dir>`'s); exit
//! code 1 on a problem or a departure (see `agent_loop_cli::listing`).
//! `agent-loop-cli setup <scenario.json> [zh|en]` prints the setup and
//! entry as Python, the text the setup panel shows and CPython runs after
//! the listing (English unless a language is given).
//! `agent-loop-cli import <conversation.json> [--id <id>]` turns a
//! logged Messages API request body into a scenario on standard output;
//! approximations are warnings on standard error, a refusal is exit 1 with
//! nothing on standard output (see `agent_loop_cli::import`).
//!
//! It never panics: it reads only regular files of at most 16 MB (a FIFO or
//! a device named `x.json` is skipped with a message), accepts a UTF-8 BOM,
//! takes any path the OS gives it, and a closed or full standard output
//! ends it with a message (a reader that stops early, like `head`, is a
//! quiet exit).

fn main() -> std::process::ExitCode {
    native::cli()
}

mod native {
    use agent_loop_cli::{import, listing};
    use agent_loop_core::lesson::trace_json;
    use agent_loop_core::predict;
    use agent_loop_core::run::record_scenario;
    use agent_loop_core::scenario::{Problem, Scenario};
    use std::collections::BTreeMap;
    use std::ffi::OsString;
    use std::io::{self, Read, Write};
    use std::path::{Path, PathBuf};
    use std::process::ExitCode;

    /// The largest fixture the CLI reads.
    pub const MAX_FIXTURE_BYTES: u64 = 16 * 1024 * 1024;

    const USAGE: &str = "usage:
  agent-loop-cli trace <scenario.json>   print the recorded trace as JSON
  agent-loop-cli check <dir|file>        validate every *.json fixture in <dir>, or one file
  agent-loop-cli setup <scenario.json> [zh|en]
                                         print the setup and entry as Python (what runs after the listing)
  agent-loop-cli check --listing <lesson.py> [<dir>]
                                         check an author's own listing; with python3, run it
                                         under CPython on the scenarios (shipped, or <dir>'s)
  agent-loop-cli import <file> [--id <id>]
                                         print a scenario that replays a logged Messages API
                                         request body; approximations warned on stderr";

    pub fn cli() -> ExitCode {
        let args: Vec<OsString> = std::env::args_os().skip(1).collect();
        let command = args.first().and_then(|a| a.to_str());
        match (command, args.len()) {
            (Some("trace"), 2) => trace(Path::new(&args[1])),
            (Some("check"), 2) => check(Path::new(&args[1])),
            (Some("setup"), 2 | 3) => setup(Path::new(&args[1]), args.get(2).and_then(|l| l.to_str())),
            (Some("check"), 3 | 4) if args[1] == "--listing" => {
                check_listing(Path::new(&args[2]), args.get(3).map(Path::new))
            }
            (Some("import"), _) => match import_args(&args[1..]) {
                Some((file, id)) => import(Path::new(file), id),
                None => {
                    say_err(USAGE);
                    ExitCode::from(2)
                }
            },
            _ => {
                say_err(USAGE);
                ExitCode::from(2)
            }
        }
    }

    /// A line on standard error; a closed standard error is not an error.
    fn say_err(line: &str) {
        let _ = writeln!(io::stderr(), "{line}");
    }

    /// Write to standard output. A reader that went away (`| head`) ends the
    /// program quietly; any other failure (a full disk) is said, exit 1.
    fn write_out(text: &str) -> Result<(), ExitCode> {
        let mut out = io::stdout().lock();
        match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Err(ExitCode::SUCCESS),
            Err(e) => {
                say_err(&format!("cannot write the output: {e}"));
                Err(ExitCode::FAILURE)
            }
        }
    }

    /// A fixture's text: only a regular file, at most [`MAX_FIXTURE_BYTES`],
    /// UTF-8 (a leading BOM is dropped).
    pub fn read_fixture(path: &Path) -> Result<String, String> {
        let meta = std::fs::metadata(path).map_err(|e| format!("cannot read: {e}"))?;
        if !meta.is_file() {
            return Err("not a regular file (a directory, FIFO or device), skipped".into());
        }
        if meta.len() > MAX_FIXTURE_BYTES {
            return Err(format!("larger than {} MB, skipped", MAX_FIXTURE_BYTES >> 20));
        }
        let file = std::fs::File::open(path).map_err(|e| format!("cannot read: {e}"))?;
        let mut bytes = Vec::new();
        file.take(MAX_FIXTURE_BYTES + 1).read_to_end(&mut bytes).map_err(|e| format!("cannot read: {e}"))?;
        if bytes.len() as u64 > MAX_FIXTURE_BYTES {
            return Err(format!("larger than {} MB, skipped", MAX_FIXTURE_BYTES >> 20));
        }
        let text = String::from_utf8(bytes)
            .map_err(|e| format!("not UTF-8 text (byte {})", e.utf8_error().valid_up_to()))?;
        Ok(text.strip_prefix('\u{feff}').map(str::to_string).unwrap_or(text))
    }

    /// A file's text, or the reason said on standard error and exit code 2.
    fn read_or_say(file: &Path) -> Result<String, ExitCode> {
        read_fixture(file).map_err(|why| {
            say_err(&format!("{}: {why}", file.display()));
            ExitCode::from(2)
        })
    }

    /// The `*.json` files of a folder, sorted; or why not (said, exit 2).
    fn json_files(dir: &Path) -> Result<Vec<PathBuf>, ExitCode> {
        let entries = std::fs::read_dir(dir).map_err(|e| {
            say_err(&format!("{}: cannot read directory: {e}", dir.display()));
            ExitCode::from(2)
        })?;
        let mut files: Vec<PathBuf> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
        files.retain(|p| p.extension().is_some_and(|e| e == "json"));
        files.sort();
        Ok(files)
    }

    /// `field: problem (line N)`: the line of the text the field is on,
    /// when it has one (the core's own reading of the lines).
    fn located(problem: &Problem, text: &str) -> String {
        let mut found = [problem.clone()];
        agent_loop_core::scenario::json_lines::at_lines(&mut found, &[("", text)]);
        match found[0].line {
            Some(n) => format!("{problem} (line {n})"),
            None => problem.to_string(),
        }
    }

    fn trace(file: &Path) -> ExitCode {
        let text = match read_or_say(file) {
            Ok(t) => t,
            Err(code) => return code,
        };
        match Scenario::parse(&text) {
            Ok(scenario) => {
                let trace = record_scenario(&scenario);
                let json = serde_json::to_string_pretty(&trace_json(&trace));
                match json {
                    Ok(json) => match write_out(&(json + "\n")) {
                        Ok(()) => ExitCode::SUCCESS,
                        Err(code) => code,
                    },
                    Err(e) => {
                        say_err(&format!("{}: cannot serialise trace: {e}", file.display()));
                        ExitCode::FAILURE
                    }
                }
            }
            Err(problems) => {
                for p in problems {
                    say_err(&format!("{}: {}", file.display(), located(&p, &text)));
                }
                ExitCode::FAILURE
            }
        }
    }

    /// `<file>`, `<file> --id <id>` or `--id <id> <file>`; the id must be
    /// UTF-8 (it is checked by the importer).
    fn import_args(args: &[OsString]) -> Option<(&OsString, Option<&str>)> {
        match args {
            [file] => Some((file, None)),
            [flag, id, file] | [file, flag, id] if flag == "--id" => Some((file, Some(id.to_str()?))),
            _ => None,
        }
    }

    fn import(file: &Path, id: Option<&str>) -> ExitCode {
        let text = match read_or_say(file) {
            Ok(t) => t,
            Err(code) => return code,
        };
        let name =
            file.file_name().map_or_else(|| file.display().to_string(), |n| n.to_string_lossy().into_owned());
        let id = id.map_or_else(|| import::id_from_file_name(&name), str::to_string);
        match import::import(&text, &id, &name) {
            Ok(imported) => {
                for warning in &imported.warnings {
                    say_err(&format!("{}: warning: {warning}", file.display()));
                }
                match write_out(&import::to_pretty_json(&imported.scenario)) {
                    Ok(()) => ExitCode::SUCCESS,
                    Err(code) => code,
                }
            }
            Err(refusals) => {
                for refusal in &refusals {
                    say_err(&format!("{}: {refusal}", file.display()));
                }
                say_err(&format!("{}: not imported", file.display()));
                ExitCode::FAILURE
            }
        }
    }

    fn setup(file: &Path, lang: Option<&str>) -> ExitCode {
        let Some(lang) = agent_loop_core::i18n::Lang::parse(lang.unwrap_or("en")) else {
            say_err(USAGE);
            return ExitCode::from(2);
        };
        let parsed = read_fixture(file).map_err(|why| vec![why]).and_then(|text| {
            Scenario::parse(&text).map_err(|problems| problems.iter().map(|p| located(p, &text)).collect())
        });
        match parsed {
            Ok(scenario) => match write_out(&agent_loop_core::run::setup_text(&scenario.localized(lang))) {
                Ok(()) => ExitCode::SUCCESS,
                Err(code) => code,
            },
            Err(problems) => {
                for p in problems {
                    say_err(&format!("{}: {p}", file.display()));
                }
                ExitCode::FAILURE
            }
        }
    }

    fn check_listing(file: &Path, dir: Option<&Path>) -> ExitCode {
        let text = match read_or_say(file) {
            Ok(t) => t,
            Err(code) => return code,
        };
        let scenarios: Vec<Scenario> = match dir {
            None => {
                agent_loop_core::scenario::load_shipped().into_iter().filter_map(|(_, s)| s.ok()).collect()
            }
            Some(dir) => {
                let files = match json_files(dir) {
                    Ok(files) => files,
                    Err(code) => return code,
                };
                files
                    .iter()
                    .filter_map(|f| read_fixture(f).ok())
                    .filter_map(|t| Scenario::parse(&t).ok())
                    .collect()
            }
        };
        let name =
            file.file_name().map_or_else(|| file.display().to_string(), |n| n.to_string_lossy().into());
        let lang = listing::language_of(&text);
        let report = listing::check(&name, &text, lang, &scenarios, listing::find_python());
        if let Err(code) = write_out(&listing::render(file, &report)) {
            return code;
        }
        if report.passed() {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        }
    }

    fn check(dir: &Path) -> ExitCode {
        // A folder's *.json files, or one file named as it is.
        let files = match dir.is_dir() {
            false if dir.exists() => vec![dir.to_path_buf()],
            _ => match json_files(dir) {
                Ok(files) => files,
                Err(code) => return code,
            },
        };
        if files.is_empty() {
            let _ = write_out(&format!("{}: no *.json fixture to check\n", dir.display()));
            return ExitCode::FAILURE;
        }
        let mut bad = 0;
        let mut ids = BTreeMap::new();
        let mut report = String::new();
        for file in &files {
            // Near misses are said, and the file still counts as ok.
            if let Some((s, text)) =
                read_fixture(file).ok().and_then(|t| Some((Scenario::parse(&t).ok()?, t)))
            {
                for w in &agent_loop_core::run::unexpected_warnings(&s) {
                    report.push_str(&format!("{}: warning: {}\n", file.display(), located(w, &text)));
                }
            }
            let problems = match read_fixture(file) {
                Err(why) => vec![format!("(file): {why}")],
                Ok(text) => match Scenario::parse(&text) {
                    Ok(s) => match ids.insert(s.id.clone(), file.clone()) {
                        Some(other) => vec![format!("id: {:?} is already used by {}", s.id, other.display())],
                        // A question must sit on a line this run reaches.
                        None if s.questions.is_empty() => Vec::new(),
                        None => {
                            let unasked = predict::problems(&s, &record_scenario(&s));
                            unasked.iter().map(|p| located(p, &text)).collect()
                        }
                    },
                    Err(problems) => problems.iter().map(|p| located(p, &text)).collect(),
                },
            };
            for p in &problems {
                report.push_str(&format!("{}: {p}\n", file.display()));
            }
            bad += usize::from(!problems.is_empty());
        }
        report.push_str(&format!(
            "checked {} fixture(s): {} ok, {} with problems\n",
            files.len(),
            files.len() - bad,
            bad
        ));
        if let Err(code) = write_out(&report) {
            return code;
        }
        if bad == 0 {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        }
    }
}
