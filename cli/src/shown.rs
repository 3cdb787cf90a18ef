//! Names as the CLI prints them. A file name (or an argument) is printed
//! as it is, unless it holds a character that would act instead of being
//! read: a control character (a newline that starts a line of its own, an
//! ESC that drives the terminal) or one that reorders or breaks a line
//! (U+2028, U+2029, the bidirectional controls). Such a name is printed
//! quoted and escaped, as Rust's `{:?}` writes it (`"x\nchecked 7
//! fixture(s): 7 ok.json"`), so no name can forge a line of the CLI's
//! output or reach the terminal. A problem found in a file is printed the
//! same way: its place (a key of the file is a place) as a name, and such
//! a character in its message escaped where it stands.

use agent_loop_core::i18n::Lang;
use agent_loop_core::scenario::Problem;
use std::path::Path;

/// Whether `c` acts on what is printed rather than being read.
fn acts(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{2028}' | '\u{2029}')
        || ('\u{202a}'..='\u{202e}').contains(&c)
        || ('\u{2066}'..='\u{2069}').contains(&c)
}

/// `text` as it is, or quoted and escaped when a character of it acts.
pub fn text(text: &str) -> String {
    match text.chars().any(acts) {
        true => format!("{text:?}"),
        false => text.to_string(),
    }
}

/// A path as the CLI prints it (a name that is no UTF-8 has its bytes
/// replaced, as before).
pub fn path(path: &Path) -> String {
    text(&path.to_string_lossy())
}

/// A sentence with every character that acts escaped where it stands
/// (`\n`, `\u{1b}`), unquoted: the sentence stays one line of text.
pub fn inline(sentence: &str) -> String {
    match sentence.chars().any(acts) {
        true => {
            sentence.chars().map(|c| if acts(c) { c.escape_debug().to_string() } else { c.into() }).collect()
        }
        false => sentence.to_string(),
    }
}

/// `place: message`, as `Problem`'s `Display` says it (in English), its
/// place shown as a name and its message as one line.
pub fn problem(problem: &Problem) -> String {
    format!("{}: {}", text(&problem.field), inline(&problem.message(Lang::english())))
}
