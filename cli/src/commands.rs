//! The author CLI's commands, once for every place it runs.
//!
//! `check`, `trace`, `setup`, `check --listing`, `import` and `record` are
//! written here against [`Io`]: what the commands need from the machine (a
//! file's kind and bytes, a folder's names, a file written, standard
//! output and error, CPython).
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

pub use crate::machine::{read_fixture, Io, Kind, Written, MAX_FIXTURE_BYTES};
use crate::machine::{write_out, Done, FAILED, OK, USAGE};
use crate::{first_view, import, listing, out, python, record, shown};
use agent_loop_core::i18n::Lang;
use agent_loop_core::lesson::trace_json;
use agent_loop_core::run::{record_scenario, CheckRun};
use agent_loop_core::scenario::{Problem, Scenario};
use agent_loop_core::session::findings;
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

fn usage(me: &str) -> String {
    let pad = " ".repeat(me.len() + 1);
    format!(
        "usage:
  {me} trace <scenario.json>   print the recorded trace as JSON
  {pad}                        (at most 64 MB of it; --max-output <MB> lifts that)
  {me} check <dir|file>        validate every *.json fixture in <dir>, or one file
  {me} setup <scenario.json> [zh|en]
  {pad}                        print the setup and entry as Python (what runs after the listing)
  {me} check --listing <lesson.py> [<dir>] [--timeout <s>] [--stamp]
  {pad}                        check an author's own listing; with python3, run it
  {pad}                        under CPython on the scenarios (shipped, or <dir>'s),
  {pad}                        each run stopped after 10 s unless --timeout says;
  {pad}                        --stamp writes the stamp the page asks for
  {me} import <file> [--id <id>] [-o <file>]
  {pad}  [--function run_loop|agent_loop | --manifest <manifest.json>]
  {pad}                        print a scenario that replays a logged Messages API
  {pad}                        conversation: for lesson one's run_loop (the default),
  {pad}                        lesson two's agent_loop, or your own program (recorded
  {pad}                        to compare when python3 is there); warnings on stderr
  {me} record <manifest.json> [-o <pack.json>] [--max-steps <n>] [--timeout <s>]
  {pad}                        run your own Python program under CPython (3.10+) on
  {pad}                        each scenario of the manifest, traced line by line, and
  {pad}                        write the program pack the element replays
  {me} first-view [<attribute>=<value> …] [--program <pack.json>] [--stylesheet <url>]
  {pad}  [--boxes wide,narrow]
  {pad}                        print the element's first view for these attributes: the
  {pad}                        markup a page puts inside <agent-loop-playground>, which
  {pad}                        the browser paints before any module has loaded; a box for
  {pad}                        each width range asked for (wide, medium, column, narrow)"
    )
}

/// The commands, as the usage names them.
const COMMANDS: [&str; 6] = ["trace", "check", "setup", "import", "record", "first-view"];

/// Run the command `args` (without the program's name); `me` is the name
/// the usage line shows. The exit code.
pub fn run(me: &str, args: &[OsString], io: &mut dyn Io) -> u8 {
    // (`help`, `--help` or `-h` alone, or right after a command: `record --help`)
    let help = |a: &OsString| a == "--help" || a == "-h";
    let command = |a: &OsString| COMMANDS.iter().any(|c| a == c);
    let asked = match args {
        [one] => help(one) || one == "help",
        [first, second] => command(first) && help(second),
        _ => false,
    };
    if asked {
        return match io.out(format!("{}\n", usage(me)).as_bytes()) {
            Written::Failed(_) => FAILED,
            _ => OK,
        };
    }
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
        (Some("trace"), _) => match trace_args(&args[1..]) {
            Ok((file, max)) => trace(io, file, max),
            Err(why) => {
                io.err(&why);
                return None;
            }
        },
        (Some("check"), 2) if args[1] != "--listing" => check(io, Path::new(&args[1])),
        (Some("setup"), 2 | 3) => {
            let wanted = args.get(2).map_or(Some("en"), |l| l.to_str());
            let Some(lang) = wanted.and_then(Lang::parse) else {
                io.err(&format!(
                    "{}: not a language of the playground (zh or en)",
                    shown::text(&args[2].to_string_lossy())
                ));
                return None;
            };
            setup(io, Path::new(&args[1]), lang)
        }
        (Some("check"), 3..) if args[1] == "--listing" => {
            return with(io, listing::args(&args[2..]), check_listing)
        }
        (Some("import"), _) => return with(io, import::args(&args[1..]), import),
        (Some("record"), _) => return with(io, record::args(&args[1..]), record),
        (Some("first-view"), _) => return with(io, first_view::args(&args[1..]), first_view::run),
        _ => return None,
    })
}

/// A command run on its arguments as `read` took them; `None` (the usage,
/// after why) when they are wrong.
fn with<A>(io: &mut dyn Io, read: Result<A, String>, run: fn(&mut dyn Io, &A) -> Done) -> Option<Done> {
    match read {
        Ok(wanted) => Some(run(io, &wanted)),
        Err(why) => {
            io.err(&why);
            None
        }
    }
}

/// A file's text, or the reason said on standard error and exit code 2.
fn read_or_say(io: &mut dyn Io, file: &Path) -> Result<String, u8> {
    read_fixture(io, file).map_err(|why| {
        io.err(&format!("{}: {why}", shown::path(file)));
        USAGE
    })
}

/// The `*.json` files of a folder, sorted; or why not (said, exit 2).
fn json_files(io: &mut dyn Io, dir: &Path) -> Result<Vec<PathBuf>, u8> {
    let mut files = io.list(dir).map_err(|e| {
        io.err(&format!("{}: cannot read directory: {e}", shown::path(dir)));
        USAGE
    })?;
    // (UPPER.JSON and a file named `.json` are fixtures too)
    files.retain(|p| {
        p.file_name().is_some_and(|n| n.to_string_lossy().to_ascii_lowercase().ends_with(".json"))
    });
    files.sort();
    Ok(files)
}

/// `field: problem (line N)` for each problem: the line of the text the
/// field is on, when it has one (the core's own reading of the lines, one
/// pass over the text for all of them).
fn located(problems: &[Problem], text: &str) -> Vec<String> {
    let mut found = problems.to_vec();
    agent_loop_core::scenario::json_lines::at_lines(&mut found, &[("", text)]);
    found
        .iter()
        .zip(problems)
        .map(|(at, problem)| match at.line {
            Some(n) => format!("{} (line {n})", shown::problem(problem)),
            None => shown::problem(problem),
        })
        .collect()
}

/// `trace`'s arguments: the scenario and `--max-output <MB>`, in either
/// order; `Err` says what is wrong (said before the usage).
fn trace_args(args: &[OsString]) -> Result<(&Path, u64), String> {
    let mut rest = args.iter();
    let (mut file, mut max) = (None, out::MAX_TRACE_MB);
    while let Some(arg) = rest.next() {
        match arg == "--max-output" {
            true => max = out::megabytes(rest.next().ok_or("--max-output needs a value")?)?,
            false if file.is_none() => file = Some(Path::new(arg)),
            false => return Err("trace takes one scenario".into()),
        }
    }
    Ok((file.ok_or("trace needs a scenario: trace <scenario.json>")?, max))
}

fn trace(io: &mut dyn Io, file: &Path, max_mb: u64) -> Done {
    let text = read_or_say(io, file)?;
    let scenario = Scenario::parse(&text).map_err(|problems| {
        for p in located(&problems, &text) {
            io.err(&format!("{}: {p}", shown::path(file)));
        }
        FAILED
    })?;
    let trace = record_scenario(&scenario);
    drop(scenario);
    let written = out::json(io, &trace_json(&trace), max_mb << 20);
    match written {
        Ok(()) | Err(out::Failure::Closed) => Ok(OK),
        Err(out::Failure::Failed(e)) => {
            io.err(&format!("cannot write the output: {e}"));
            Err(FAILED)
        }
        Err(out::Failure::TooLarge) => {
            io.err(&format!(
                "{}: the trace is more than {max_mb} MB of JSON, so none of it was written \
                 (the output limit; raise it with --max-output <MB>)",
                shown::path(file)
            ));
            Err(FAILED)
        }
        Err(out::Failure::Serialise(e)) => {
            io.err(&format!("{}: cannot serialise trace: {e}", shown::path(file)));
            Err(FAILED)
        }
    }
}

/// `import`: the scenario (to standard output or `-o`'s file) and its
/// warnings, or the refusals and exit code 1.
fn import(io: &mut dyn Io, wanted: &import::Args) -> Done {
    let file = wanted.file.as_path();
    let text = read_or_say(io, file)?;
    let name = file
        .file_name()
        .map_or_else(|| file.to_string_lossy().into_owned(), |n| n.to_string_lossy().into_owned());
    let id = wanted.id.clone().unwrap_or_else(|| import::id_from_file_name(&name));
    let shown_file = shown::path(file);
    let lines = |problems: Vec<Problem>| -> Vec<String> {
        problems.iter().map(|p| format!("{shown_file}: {}", shown::problem(p))).collect()
    };
    let imported = match (&wanted.manifest, wanted.function.as_deref()) {
        (Some(manifest), _) => {
            let manifest_text = read_or_say(io, manifest)?;
            let manifest_name = shown::path(manifest);
            let dir = manifest.parent().unwrap_or(Path::new(""));
            let of = record::ManifestFile { name: &manifest_name, dir, text: &manifest_text };
            let log = record::Log { text: &text, file_name: &name, shown: &shown_file, id: &id };
            record::import_log(&mut OnIo(io), of, log, record::Limits::DEFAULT)
        }
        (None, Some("agent_loop")) => import::import_agent_loop(&text, &id, &name).map_err(lines),
        (None, _) => import::import(&text, &id, &name).map_err(lines),
    };
    match imported {
        Ok(imported) => {
            for warning in &imported.warnings {
                io.err(&format!("{shown_file}: warning: {}", shown::problem(warning)));
            }
            let pretty = import::to_pretty_json(&imported.scenario);
            match &wanted.out {
                None => write_out(io, &pretty).map(|()| OK),
                Some(path) => io.write(path, pretty.as_bytes()).map(|()| OK).map_err(|e| {
                    io.err(&format!("{}: cannot write: {e}", shown::path(path)));
                    FAILED
                }),
            }
        }
        Err(refusals) => {
            for refusal in &refusals {
                io.err(refusal);
            }
            io.err(&format!("{shown_file}: not imported"));
            Err(FAILED)
        }
    }
}

fn setup(io: &mut dyn Io, file: &Path, lang: Lang) -> Done {
    let parsed = read_fixture(io, file)
        .map_err(|why| vec![why])
        .and_then(|text| Scenario::parse(&text).map_err(|problems| located(&problems, &text)));
    match parsed {
        Ok(scenario) => {
            write_out(io, &agent_loop_core::run::setup_text(&scenario.into_localized(lang))).map(|()| OK)
        }
        Err(problems) => {
            for p in problems {
                io.err(&format!("{}: {p}", shown::path(file)));
            }
            Err(FAILED)
        }
    }
}

fn check_listing(io: &mut dyn Io, wanted: &listing::Args) -> Done {
    let (file, seconds) = (wanted.listing.as_path(), wanted.seconds);
    let text = read_or_say(io, file)?;
    let scenarios: Vec<Scenario> = match wanted.dir.as_deref() {
        None => agent_loop_core::scenario::load_shipped().into_iter().filter_map(|(_, s)| s.ok()).collect(),
        Some(dir) => {
            let files = json_files(io, dir)?;
            let texts: Vec<String> = files.iter().filter_map(|f| read_fixture(io, f).ok()).collect();
            let read: Vec<Scenario> = texts.iter().filter_map(|t| Scenario::parse(t).ok()).collect();
            if read.len() < files.len() {
                let skipped = files.len() - read.len();
                io.err(&format!(
                    "{}: {skipped} of {} file(s) skipped, not scenarios check accepts (see `check {}`)",
                    shown::path(dir),
                    files.len(),
                    shown::path(dir)
                ));
            }
            read
        }
    };
    let name = shown::path(file.file_name().map_or(file, Path::new));
    let lang = listing::language_of(&text);
    let report = listing::check(&name, &text, lang, &scenarios, io.python(), seconds);
    write_out(io, &listing::render(file, &report))?;
    let wrote = wanted.stamp && listing::may_stamp(&report) && write_stamp(io, file, &text, &report)?;
    if let Some(line) = listing::stamp_line(file, &report, wanted.stamp, wrote) {
        write_out(io, &line)?;
    }
    Ok(if report.passed() && wrote == wanted.stamp { OK } else { FAILED })
}

/// Write the stamp the report found into the listing `file` (`text`).
fn write_stamp(io: &mut dyn Io, file: &Path, text: &str, report: &listing::Report) -> Result<bool, u8> {
    use agent_loop_core::lesson::stamp::Verdict;
    let Some((Verdict::Current | Verdict::Missing | Verdict::Stale(_), now)) = &report.stamp else {
        // (one of the program's own listings: it needs none)
        return Ok(true);
    };
    let stamped = agent_loop_core::lesson::stamp::stamped(text, now);
    match io.write(file, stamped.as_bytes()) {
        Ok(()) => Ok(true),
        Err(why) => {
            io.err(&format!("{}: cannot write the stamp: {why}", shown::path(file)));
            Err(FAILED)
        }
    }
}

/// The files `check` looks at: a folder's `*.json` files, or one file
/// named as it is.
fn files_to_check(io: &mut dyn Io, dir: &Path) -> Result<Vec<PathBuf>, u8> {
    match io.kind(dir) {
        Ok(Kind::Dir) => json_files(io, dir),
        Ok(_) => Ok(vec![dir.to_path_buf()]),
        Err(e) => {
            io.err(&format!("{}: cannot read: {e}", shown::path(dir)));
            Err(USAGE)
        }
    }
}

/// Every problem of one file for `check`, and its warnings, each at its
/// line (the core's findings: the same the page says of a `src=` file).
fn problems_of(
    io: &mut dyn Io,
    file: &Path,
    ids: &mut BTreeMap<String, PathBuf>,
) -> (Vec<String>, Vec<String>) {
    let text = match read_fixture(io, file) {
        Err(why) => return (vec![format!("(file): {why}")], Vec::new()),
        Ok(text) => text,
    };
    // One recording (within the page's memory budget) for every check.
    let mut record = |s: &Scenario| CheckRun::record(s, agent_loop_core::run::offline_limits());
    let found = findings::of(Scenario::parse(&text), Some(&text), &mut record);
    let mut problems = match &found.parsed {
        Err(problems) => located(problems, &text),
        Ok(_) => Vec::new(),
    };
    // (a valid file's id: the first file that has it keeps it)
    if let Ok(s) = &found.parsed {
        match ids.get(&s.id) {
            Some(other) => problems.push(format!("id: {:?} is already used by {}", s.id, shown::path(other))),
            None => drop(ids.insert(s.id.clone(), file.to_path_buf())),
        }
    }
    (problems, located(&found.warnings, &text))
}

fn check(io: &mut dyn Io, dir: &Path) -> Done {
    let files = files_to_check(io, dir)?;
    if files.is_empty() {
        write_out(io, &format!("{}: no *.json fixture to check\n", shown::path(dir)))?;
        return Err(FAILED);
    }
    let (mut bad, mut ids, mut report) = (0, BTreeMap::new(), String::new());
    for file in &files {
        let (problems, warnings) = problems_of(io, file, &mut ids);
        for p in &problems {
            report.push_str(&format!("{}: {p}\n", shown::path(file)));
        }
        // Warnings are said, and a file with no problem still counts as ok.
        for w in &warnings {
            report.push_str(&format!("{}: warning: {w}\n", shown::path(file)));
        }
        bad += usize::from(!problems.is_empty());
    }
    let ok = files.len() - bad;
    report.push_str(&format!("checked {} fixture(s): {ok} ok, {bad} with problems\n", files.len()));
    write_out(io, &report)?;
    Ok(if bad == 0 { OK } else { FAILED })
}

/// `record`'s machine: the files through [`read_fixture`], CPython
/// through the CLI's runner.
struct OnIo<'a>(&'a mut dyn Io);

impl record::Machine for OnIo<'_> {
    fn read(&mut self, path: &Path) -> Result<String, String> {
        read_fixture(self.0, path)
    }

    fn python(
        &mut self,
        texts: [&str; 3],
        mode: &str,
        bounds: python::Bounds,
    ) -> Option<Result<python::PyRun, String>> {
        self.0.python().map(|run| run(texts, &[mode], bounds))
    }

    fn has_python(&mut self) -> bool {
        self.0.python().is_some()
    }
}

fn record(io: &mut dyn Io, wanted: &record::Args) -> Done {
    let text = read_or_say(io, &wanted.manifest)?;
    let name = shown::path(&wanted.manifest);
    let dir = wanted.manifest.parent().unwrap_or(Path::new(""));
    match record::record(&mut OnIo(io), &name, dir, &text, wanted.limits) {
        Ok(done) => {
            match &wanted.out {
                None => write_out(io, &done.pack)?,
                Some(path) => io.write(path, done.pack.as_bytes()).map_err(|e| {
                    io.err(&format!("{}: cannot write: {e}", shown::path(path)));
                    FAILED
                })?,
            }
            for line in &done.warnings {
                io.err(line);
            }
            io.err(&done.summary);
            Ok(OK)
        }
        Err(said) => {
            for line in said {
                io.err(&line);
            }
            io.err(&format!("{name}: not recorded"));
            Err(FAILED)
        }
    }
}
