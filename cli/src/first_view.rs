//! `first-view`: the element's first view for a set of its attributes, as
//! the markup a page puts inside `<agent-loop-playground …>` (a
//! declarative shadow root). The browser paints it with the page, before
//! any module has loaded; the element takes it over when it is ready, and
//! drops it unseen when its attributes are not the ones it was made for.
//!
//! The run it shows is recorded here by the same core as the element's,
//! with the scenario files' fixture doubles, and drawn by the page crate's
//! own markup functions ([`agent_loop_playground::first_view`]).

use crate::machine::{read_fixture, write_out, Done, Io, FAILED, OK};
use crate::shown;
use agent_loop_core::session::{FixtureDoubles, Options, Session};
use agent_loop_playground::first_view::{boxes_named, first_view, FirstBox, DEFAULT_BOXES};
use std::ffi::OsString;
use std::path::PathBuf;

/// The attributes the first view draws, each with the option the element
/// hands it over as (www/element/attributes.js's `option`; a test holds
/// the two to each other). `program-src` is a file read here.
pub const DRAWN: [(&str, &str); 12] = [
    ("function", "function"),
    ("program", "program"),
    ("compare", "compare"),
    ("scenario", "scenario"),
    ("lang", "lang"),
    ("breakpoints", "breakpoints"),
    ("controls", "controls"),
    ("listing", "listing"),
    ("heading-level", "headingLevel"),
    ("predict", "predict"),
    ("step", "step"),
    ("compact", "compact"),
];

/// Attributes that change nothing the first view draws (the host's style,
/// what happens later), and `program-src`, the pack's address (its file
/// is `--program`, else that address read as a path here).
pub const UNDRAWN: [&str; 7] =
    ["theme", "editors", "keep-place", "fetch-timeout", "time-budget", "memory-budget", "program-src"];

/// The element's attributes the first view cannot be made for: an element
/// with one draws its own view once ready.
pub const REFUSED: [&str; 5] = ["height", "src", "listing-src", "listing-src-zh", "listing-src-en"];

/// What `first-view` was asked for.
#[derive(Debug)]
pub struct Args {
    /// The element's attributes, as `name=value` (a flag: `name`).
    pub attributes: Vec<(String, String)>,
    /// The pack `program-src=` names, as a file here (none: its address).
    pub program: Option<PathBuf>,
    /// Where the page finds element.css.
    pub stylesheet: String,
    /// Names given that are not the element's (`id`, `class`): left out.
    pub others: Vec<String>,
    /// The boxes it has, each shown at its widths (`--boxes`).
    pub boxes: Vec<FirstBox>,
}

/// `[name=value …] [--program <pack.json>] [--stylesheet <url>] [--boxes <names>]`.
pub fn args(args: &[OsString]) -> Result<Args, String> {
    let mut wanted = Args {
        attributes: Vec::new(),
        program: None,
        stylesheet: "first-view.css".into(),
        others: Vec::new(),
        boxes: boxes_named(&DEFAULT_BOXES.join(","))?,
    };
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        let text =
            arg.to_str().ok_or_else(|| format!("{}: not UTF-8", shown::text(&arg.to_string_lossy())))?;
        match text {
            "--stylesheet" | "--program" | "--boxes" => {
                let value = rest.next().ok_or_else(|| format!("{text} needs a value"))?;
                match text {
                    "--program" => wanted.program = Some(PathBuf::from(value)),
                    "--boxes" => {
                        wanted.boxes =
                            boxes_named(&value.to_string_lossy()).map_err(|e| format!("--boxes: {e}"))?;
                    }
                    _ => wanted.stylesheet = value.to_string_lossy().into_owned(),
                }
            }
            _ => {
                let (name, value) = text.split_once('=').unwrap_or((text, ""));
                if REFUSED.contains(&name) {
                    return Err(refused(name));
                }
                if !DRAWN.iter().any(|(n, _)| *n == name) && !UNDRAWN.contains(&name) {
                    wanted.others.push(name.to_string());
                    continue;
                }
                if wanted.attributes.iter().any(|(n, _)| n == name) {
                    return Err(format!("{}: given twice", shown::text(name)));
                }
                wanted.attributes.push((name.to_string(), value.to_string()));
            }
        }
    }
    Ok(wanted)
}

/// Why an attribute cannot be given.
fn refused(name: &str) -> String {
    format!(
        "{}: the first view cannot be made for an element with this attribute: \
         it draws its own view once ready (docs/element-api.md, \"The first view\")",
        shown::text(name)
    )
}

/// The options the element would be built with for these attributes.
fn options(wanted: &Args, program: Option<(String, String)>) -> Options {
    let mut options = Options::default();
    for (name, value) in &wanted.attributes {
        let option = DRAWN.iter().find(|(n, _)| n == name).map_or("", |(_, o)| *o);
        let field = match option {
            "function" => &mut options.function,
            "program" => &mut options.program,
            "compare" => &mut options.compare,
            "scenario" => &mut options.scenario,
            "lang" => &mut options.lang,
            "breakpoints" => &mut options.breakpoints,
            "controls" => &mut options.controls,
            "listing" => &mut options.listing,
            "headingLevel" => &mut options.heading_level,
            "step" => &mut options.step,
            "predict" => {
                options.predict = true;
                continue;
            }
            _ => continue,
        };
        *field = value.clone();
    }
    options.program_src = program.map(|(name, text)| (name, Ok(text)));
    options
}

/// The first view, or what stops it (a notice the element would show is
/// said as a warning: the view shows it too).
fn make(io: &mut dyn Io, wanted: &Args) -> Result<(String, Vec<String>), String> {
    let src = wanted.attributes.iter().find(|(n, _)| n == "program-src").map(|(_, v)| PathBuf::from(v));
    let program = match wanted.program.as_ref().or(src.as_ref()) {
        Some(path) => {
            let text = read_fixture(io, path).map_err(|why| format!("{}: {why}", shown::path(path)))?;
            // (named as the element names it: by its address)
            let name = src.as_ref().unwrap_or(path).to_string_lossy().into_owned();
            Some((name, text))
        }
        None => None,
    };
    let session =
        Session::new(Box::new(FixtureDoubles), &options(wanted, program)).map_err(|e| e.to_string())?;
    let lang = session.lang();
    let others = wanted.others.iter().map(|name| {
        format!(
            "warning: {}: not an attribute of the element: the view is made without it",
            shown::text(name)
        )
    });
    let warnings =
        others.chain(session.notices().iter().map(|n| format!("warning: {}", n.text(lang)))).collect();
    // (as www/element/first.js writes them: by name, JSON)
    let mut given = wanted.attributes.clone();
    given.sort();
    let made_for = serde_json::to_string(&given).map_err(|e| e.to_string())?;
    // (present and not "off", as the element reads it)
    let compact = wanted.attributes.iter().any(|(n, v)| n == "compact" && v != "off");
    let view = first_view(&session, &wanted.stylesheet, &made_for, compact, &wanted.boxes);
    Ok((view, warnings))
}

/// The command: the markup on standard output, after a warning on standard
/// error for each notice it shows; what stops it, exit 1.
pub fn run(io: &mut dyn Io, wanted: &Args) -> Done {
    match make(io, wanted) {
        Ok((view, warnings)) => {
            for warning in warnings {
                io.err(&warning);
            }
            write_out(io, &format!("{view}\n")).map(|()| OK)
        }
        Err(why) => {
            io.err(&why);
            Err(FAILED)
        }
    }
}
