//! The author CLI's commands, once for every place it runs.
//!
//! `check`, `trace`, `setup`, `check --listing` and `import` are written
//! here against [`Io`]: what the commands need from the machine (a file's
//! kind and bytes, a folder's names, standard output and error, CPython).
//! The native binary (`main.rs`) gives it `std::fs`; the Node build
//! (`node/`, `npx agent-loop-playground …`) gives it Node's `fs`. So both
//! say the same words with the same exit codes; only the usage line names
//! the command differently.
//!
//! It never panics: it reads only regular files of at most 16 MB (a FIFO or
//! a device named `x.json` is skipped with a message), accepts a UTF-8 BOM,
//! takes any path the OS gives it, and a closed or full standard output
//! ends it with a message (a reader that stops early, like `head`, is a
//! quiet exit).

use crate::{import, listing};
use agent_loop_core::i18n::Lang;
use agent_loop_core::lesson::trace_json;
use agent_loop_core::predict;
use agent_loop_core::run::record_scenario;
use agent_loop_core::scenario::{Problem, Scenario};
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The largest fixture the CLI reads.
pub const MAX_FIXTURE_BYTES: u64 = 16 * 1024 * 1024;

/// What a path is.
pub enum Kind {
    /// A regular file of this many bytes.
    File(u64),
    Dir,
    /// A FIFO, a device, a socket.
    Other,
}

/// How a write to standard output went.
pub enum Written {
    Ok,
    /// The reader went away (`| head`).
    Closed,
    /// Any other failure (a full disk), said as it is.
    Failed(String),
}

/// What the commands need from the machine. Errors are the machine's own
/// words (`No such file or directory (os error 2)`).
pub trait Io {
    /// What `path` is; `Err` when it cannot be looked at (missing).
    fn kind(&mut self, path: &Path) -> Result<Kind, String>;
    /// At most `max` bytes of the file (more means too large).
    fn read(&mut self, path: &Path, max: u64) -> Result<Vec<u8>, String>;
    /// The entries of a folder, as paths inside it.
    fn list(&mut self, dir: &Path) -> Result<Vec<PathBuf>, String>;
    fn out(&mut self, text: &str) -> Written;
    /// One line on standard error; a closed standard error is not an error.
    fn err(&mut self, line: &str);
    /// A runner of CPython, if `python3` runs here.
    fn python(&mut self) -> Option<listing::Python<'_>>;
}

/// Exit codes: success, a problem found, a usage or reading error.
const OK: u8 = 0;
const FAILED: u8 = 1;
const USAGE: u8 = 2;

fn usage(me: &str) -> String {
    let pad = " ".repeat(me.len());
    format!(
        "usage:
  {me} trace <scenario.json>   print the recorded trace as JSON
  {me} check <dir|file>        validate every *.json fixture in <dir>, or one file
  {me} setup <scenario.json> [zh|en]
  {pad}                        print the setup and entry as Python (what runs after the listing)
  {me} check --listing <lesson.py> [<dir>]
  {pad}                        check an author's own listing; with python3, run it
  {pad}                        under CPython on the scenarios (shipped, or <dir>'s)
  {me} import <file> [--id <id>]
  {pad}                        print a scenario that replays a logged Messages API
  {pad}                        request body; approximations warned on stderr"
    )
}

/// Run the command `args` (without the program's name); `me` is the name
/// the usage line shows. The exit code.
pub fn run(me: &str, args: &[OsString], io: &mut dyn Io) -> u8 {
    match dispatch(args, io) {
        Some(Ok(code) | Err(code)) => code,
        None => {
            io.err(&usage(me));
            USAGE
        }
    }
}

/// The command's outcome; `None` for arguments no command takes.
fn dispatch(args: &[OsString], io: &mut dyn Io) -> Option<Done> {
    let command = args.first().and_then(|a| a.to_str());
    Some(match (command, args.len()) {
        (Some("trace"), 2) => trace(io, Path::new(&args[1])),
        (Some("check"), 2) => check(io, Path::new(&args[1])),
        (Some("setup"), 2 | 3) => {
            let lang = Lang::parse(args.get(2).map_or(Some("en"), |l| l.to_str())?)?;
            setup(io, Path::new(&args[1]), lang)
        }
        (Some("check"), 3 | 4) if args[1] == "--listing" => {
            check_listing(io, Path::new(&args[2]), args.get(3).map(Path::new))
        }
        (Some("import"), _) => {
            let (file, id) = import_args(&args[1..])?;
            import(io, Path::new(file), id)
        }
        _ => return None,
    })
}

type Done = Result<u8, u8>;

/// Write to standard output. A reader that went away ends the program
/// quietly; any other failure is said, exit 1.
fn write_out(io: &mut dyn Io, text: &str) -> Result<(), u8> {
    match io.out(text) {
        Written::Ok => Ok(()),
        Written::Closed => Err(OK),
        Written::Failed(e) => {
            io.err(&format!("cannot write the output: {e}"));
            Err(FAILED)
        }
    }
}

/// A fixture's text: only a regular file, at most [`MAX_FIXTURE_BYTES`],
/// UTF-8 (a leading BOM is dropped).
pub fn read_fixture(io: &mut dyn Io, path: &Path) -> Result<String, String> {
    let too_large = || format!("larger than {} MB, skipped", MAX_FIXTURE_BYTES >> 20);
    match io.kind(path).map_err(|e| format!("cannot read: {e}"))? {
        Kind::File(len) if len > MAX_FIXTURE_BYTES => return Err(too_large()),
        Kind::File(_) => {}
        Kind::Dir | Kind::Other => {
            return Err("not a regular file (a directory, FIFO or device), skipped".into())
        }
    }
    let bytes = io.read(path, MAX_FIXTURE_BYTES + 1).map_err(|e| format!("cannot read: {e}"))?;
    if bytes.len() as u64 > MAX_FIXTURE_BYTES {
        return Err(too_large());
    }
    let text = String::from_utf8(bytes)
        .map_err(|e| format!("not UTF-8 text (byte {})", e.utf8_error().valid_up_to()))?;
    Ok(text.strip_prefix('\u{feff}').map(str::to_string).unwrap_or(text))
}

/// A file's text, or the reason said on standard error and exit code 2.
fn read_or_say(io: &mut dyn Io, file: &Path) -> Result<String, u8> {
    read_fixture(io, file).map_err(|why| {
        io.err(&format!("{}: {why}", file.display()));
        USAGE
    })
}

/// The `*.json` files of a folder, sorted; or why not (said, exit 2).
fn json_files(io: &mut dyn Io, dir: &Path) -> Result<Vec<PathBuf>, u8> {
    let mut files = io.list(dir).map_err(|e| {
        io.err(&format!("{}: cannot read directory: {e}", dir.display()));
        USAGE
    })?;
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

fn trace(io: &mut dyn Io, file: &Path) -> Done {
    let text = read_or_say(io, file)?;
    match Scenario::parse(&text) {
        Ok(scenario) => {
            let trace = record_scenario(&scenario);
            let json = serde_json::to_string_pretty(&trace_json(&trace));
            match json {
                Ok(json) => write_out(io, &(json + "\n")).map(|()| OK),
                Err(e) => {
                    io.err(&format!("{}: cannot serialise trace: {e}", file.display()));
                    Err(FAILED)
                }
            }
        }
        Err(problems) => {
            for p in problems {
                io.err(&format!("{}: {}", file.display(), located(&p, &text)));
            }
            Err(FAILED)
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

fn import(io: &mut dyn Io, file: &Path, id: Option<&str>) -> Done {
    let text = read_or_say(io, file)?;
    let name =
        file.file_name().map_or_else(|| file.display().to_string(), |n| n.to_string_lossy().into_owned());
    let id = id.map_or_else(|| import::id_from_file_name(&name), str::to_string);
    match import::import(&text, &id, &name) {
        Ok(imported) => {
            for warning in &imported.warnings {
                io.err(&format!("{}: warning: {warning}", file.display()));
            }
            write_out(io, &import::to_pretty_json(&imported.scenario)).map(|()| OK)
        }
        Err(refusals) => {
            for refusal in &refusals {
                io.err(&format!("{}: {refusal}", file.display()));
            }
            io.err(&format!("{}: not imported", file.display()));
            Err(FAILED)
        }
    }
}

fn setup(io: &mut dyn Io, file: &Path, lang: Lang) -> Done {
    let parsed = read_fixture(io, file).map_err(|why| vec![why]).and_then(|text| {
        Scenario::parse(&text).map_err(|problems| problems.iter().map(|p| located(p, &text)).collect())
    });
    match parsed {
        Ok(scenario) => {
            write_out(io, &agent_loop_core::run::setup_text(&scenario.localized(lang))).map(|()| OK)
        }
        Err(problems) => {
            for p in problems {
                io.err(&format!("{}: {p}", file.display()));
            }
            Err(FAILED)
        }
    }
}

fn check_listing(io: &mut dyn Io, file: &Path, dir: Option<&Path>) -> Done {
    let text = read_or_say(io, file)?;
    let scenarios: Vec<Scenario> = match dir {
        None => agent_loop_core::scenario::load_shipped().into_iter().filter_map(|(_, s)| s.ok()).collect(),
        Some(dir) => {
            let files = json_files(io, dir)?;
            let texts: Vec<String> = files.iter().filter_map(|f| read_fixture(io, f).ok()).collect();
            texts.iter().filter_map(|t| Scenario::parse(t).ok()).collect()
        }
    };
    let name = file.file_name().map_or_else(|| file.display().to_string(), |n| n.to_string_lossy().into());
    let lang = listing::language_of(&text);
    let report = listing::check(&name, &text, lang, &scenarios, io.python());
    write_out(io, &listing::render(file, &report))?;
    Ok(if report.passed() { OK } else { FAILED })
}

/// The files `check` looks at: a folder's `*.json` files, or one file
/// named as it is.
fn files_to_check(io: &mut dyn Io, dir: &Path) -> Result<Vec<PathBuf>, u8> {
    match io.kind(dir) {
        Ok(Kind::Dir) | Err(_) => json_files(io, dir),
        Ok(_) => Ok(vec![dir.to_path_buf()]),
    }
}

/// One file's problems for `check`; its near misses go into `report`.
fn problems_of(
    io: &mut dyn Io,
    file: &Path,
    ids: &mut BTreeMap<String, PathBuf>,
    report: &mut String,
) -> Vec<String> {
    let text = match read_fixture(io, file) {
        Err(why) => return vec![format!("(file): {why}")],
        Ok(text) => text,
    };
    let s = match Scenario::parse(&text) {
        Err(problems) => return problems.iter().map(|p| located(p, &text)).collect(),
        Ok(s) => s,
    };
    // Near misses are said, and the file still counts as ok.
    for w in &agent_loop_core::run::unexpected_warnings(&s) {
        report.push_str(&format!("{}: warning: {}\n", file.display(), located(w, &text)));
    }
    match ids.insert(s.id.clone(), file.to_path_buf()) {
        Some(other) => vec![format!("id: {:?} is already used by {}", s.id, other.display())],
        // A question must sit on a line this run reaches.
        None if s.questions.is_empty() => Vec::new(),
        None => predict::problems(&s, &record_scenario(&s)).iter().map(|p| located(p, &text)).collect(),
    }
}

fn check(io: &mut dyn Io, dir: &Path) -> Done {
    let files = files_to_check(io, dir)?;
    if files.is_empty() {
        write_out(io, &format!("{}: no *.json fixture to check\n", dir.display()))?;
        return Err(FAILED);
    }
    let (mut bad, mut ids, mut report) = (0, BTreeMap::new(), String::new());
    for file in &files {
        let problems = problems_of(io, file, &mut ids, &mut report);
        for p in &problems {
            report.push_str(&format!("{}: {p}\n", file.display()));
        }
        bad += usize::from(!problems.is_empty());
    }
    let ok = files.len() - bad;
    report.push_str(&format!("checked {} fixture(s): {ok} ok, {bad} with problems\n", files.len()));
    write_out(io, &report)?;
    Ok(if bad == 0 { OK } else { FAILED })
}
