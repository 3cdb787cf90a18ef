//! The one breakpoint grammar: a label (`loop.ask`), a line number of the
//! entry function's listing (`12`), or `function:line` (`run_main:5`), and
//! the line a breakpoint really goes to. The attribute, the API and a click
//! on a line number all go through here.

use super::notice::Notice;
use crate::lesson;
use crate::programs;
use crate::vocab::{Code, Function};
use std::collections::BTreeSet;

/// The one breakpoint grammar: a label (`loop.ask`), a line number of
/// `entry`'s listing (`12`), or `function:line` (`run_main:5`); numbers
/// count in the listing shown (`code`). The line must exist there.
pub fn parse_breakpoint(item: &str, entry: Function, code: Code) -> Result<(Function, u32), String> {
    match spot(item, entry)? {
        Spot::Line(f, n) => stop_line(code, f, n).map(|n| (f, n)),
        Spot::Label(label) => {
            lesson::label_line(entry, code, label).ok_or_else(|| format!("unknown label {label:?}"))
        }
    }
}

/// What a breakpoint item names, before any listing is looked at.
enum Spot<'a> {
    Label(&'a str),
    Line(Function, u32),
}

/// The grammar alone: `function:line`, a number (of `entry`), or a label.
fn spot(item: &str, entry: Function) -> Result<Spot<'_>, String> {
    let item = item.trim();
    let number = |n: &str| n.trim().parse::<u32>().map_err(|_| format!("{n:?} is not a line number"));
    if let Some((f, n)) = item.split_once(':') {
        let f = programs::function_near(entry, f.trim()).ok_or_else(|| format!("unknown function {f:?}"))?;
        return Ok(Spot::Line(f, number(n)?));
    }
    if item.chars().next().is_some_and(|c| c.is_ascii_digit()) {
        return Ok(Spot::Line(entry, number(item)?));
    }
    Ok(Spot::Label(item))
}

/// The breakpoints of a list (the `breakpoints` attribute: items split by
/// commas or spaces), and a notice for each item that cannot be placed.
/// An item given twice is placed once, and after [`NOTICES_SHOWN`] notices
/// one more says how many other items could not be placed: a list of
/// 100,000 items (a hostile link) costs what its distinct items cost.
pub fn place_all(list: &str, entry: Function, code: Code) -> (Vec<(Function, u32)>, Vec<Notice>) {
    let (mut placed, mut notices) = (BTreeSet::new(), Vec::new());
    let mut seen = BTreeSet::new();
    let mut unplaced = 0usize;
    for item in list.split([',', ' ']).map(str::trim).filter(|x| !x.is_empty()) {
        if !seen.insert(item) {
            continue;
        }
        match parse_breakpoint(item, entry, code) {
            Ok(spot) => drop(placed.insert(spot)),
            Err(_) if notices.len() < NOTICES_SHOWN => notices.push(breakpoint_notice(item, entry)),
            Err(_) => unplaced += 1,
        }
    }
    if unplaced > 0 {
        notices.push(Notice { key: "notice_breakpoint_more", values: vec![("n", unplaced.to_string())] });
    }
    (placed.into_iter().collect(), notices)
}

/// What [`place_all`] says of a list.
pub const NOTICES: [&str; 3] = ["notice_breakpoint", "notice_breakpoint_line", "notice_breakpoint_more"];

/// How many items of one list that cannot be placed get a notice each.
pub const NOTICES_SHOWN: usize = 10;

/// Why a breakpoint item cannot be placed, as a notice: a well-formed
/// line that the listing lacks says so; anything else gets the grammar.
fn breakpoint_notice(item: &str, entry: Function) -> Notice {
    match spot(item, entry) {
        Ok(Spot::Line(f, n)) => Notice {
            key: "notice_breakpoint_line",
            values: vec![("value", item.into()), ("function", f.name().into()), ("line", n.to_string())],
        },
        _ => {
            let example =
                crate::predict::nearest(item, &lesson::labels_of_entry(entry)).unwrap_or(item).to_string();
            Notice { key: "notice_breakpoint", values: vec![("value", item.into()), ("example", example)] }
        }
    }
}

/// A click on a line where the run stops on no line from there on.
pub fn no_stop_notice(function: Function, line: u32) -> Notice {
    Notice { key: "notice_no_stop", values: vec![("value", format!("{}:{line}", function.name()))] }
}

/// The line a breakpoint on `line` really goes to: that line if the run can
/// stop there, else the next one that can.
pub fn stop_line(code: Code, function: Function, line: u32) -> Result<u32, String> {
    if lesson::listing_in(code, function).line(line).is_none() {
        return Err(format!("{} has no line {line}", function.name()));
    }
    lesson::stoppable_lines_in(code, function)
        .into_iter()
        .find(|n| *n >= line)
        .ok_or_else(|| format!("{} stops on no line from line {line} on", function.name()))
}
