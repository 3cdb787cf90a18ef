//! Where a problem sits in the text it was read from: the line of each
//! value of a JSON text, by its path (`[1].stop_reason`), for a scenario
//! file's problems and a refused what-if edit's (in the editor's text).

use super::fields::Problem;
use std::collections::BTreeMap;

/// Each problem that names a place in one of `texts` (`(field, text)`:
/// `model[1].stop_reason` in the `model` editor's text; field `""` for a
/// whole file) gets that place's line. Each text is read once, whatever
/// the number of problems (50,000 problems in an 8 MB file: one pass).
pub fn at_lines(problems: &mut [Problem], texts: &[(&str, &str)]) {
    let mut read: Vec<Option<BTreeMap<String, usize>>> = texts.iter().map(|_| None).collect();
    for p in problems.iter_mut().filter(|p| p.line.is_none() && !p.field.starts_with('(')) {
        let Some(i) = texts.iter().position(|(f, _)| p.field.starts_with(f)) else { continue };
        let (field, text) = texts[i];
        let places = read[i].get_or_insert_with(|| first_lines(text));
        // (a file's fields are keys of its top object: `.model[1]`)
        let path =
            if field.is_empty() { format!(".{}", p.field) } else { p.field[field.len()..].to_string() };
        // The place itself, else the nearest place that holds it (in a
        // file, not the whole file: a missing field has no line).
        let floor = usize::from(field.is_empty());
        let found = (floor..=path.len())
            .rev()
            .filter(|&n| path.is_char_boundary(n))
            .find_map(|n| places.get(&path[..n]).copied());
        p.line = found;
    }
}

/// Each path's first line (a repeated key's first value).
fn first_lines(text: &str) -> BTreeMap<String, usize> {
    let mut first = BTreeMap::new();
    for (path, line) in value_lines(text) {
        first.entry(path).or_insert(line);
    }
    first
}

/// Where each value of a JSON text starts: its path (`[1].stop_reason`)
/// and line (from 1). A text that is not JSON gives what was read of it.
fn value_lines(text: &str) -> Vec<(String, usize)> {
    // The open containers: the path to each, and its next index (arrays) or
    // the last key read (objects).
    enum Open {
        List(String, usize),
        Map(String, Option<String>),
    }
    let (mut out, mut stack, mut line) = (Vec::new(), Vec::<Open>::new(), 1);
    let mut chars = text.chars().peekable();
    let mut expect_key = false;
    while let Some(c) = chars.next() {
        let here = |stack: &[Open]| match stack.last() {
            None => String::new(),
            Some(Open::List(p, i)) => format!("{p}[{i}]"),
            Some(Open::Map(p, k)) => format!("{p}.{}", k.clone().unwrap_or_default()),
        };
        match c {
            '\n' => line += 1,
            '"' => {
                let mut word = String::new();
                while let Some(c) = chars.next() {
                    match c {
                        '\\' => word.extend(chars.next()),
                        '"' => break,
                        c => word.push(c),
                    }
                }
                if expect_key {
                    if let Some(Open::Map(_, k)) = stack.last_mut() {
                        *k = Some(word);
                    }
                    expect_key = false;
                } else {
                    out.push((here(&stack), line));
                }
            }
            '[' | '{' => {
                let path = here(&stack);
                out.push((path.clone(), line));
                stack.push(if c == '[' { Open::List(path, 0) } else { Open::Map(path, None) });
                expect_key = c == '{';
            }
            ']' | '}' => {
                stack.pop();
            }
            ',' => match stack.last_mut() {
                Some(Open::List(_, i)) => *i += 1,
                Some(Open::Map(..)) => expect_key = true,
                None => {}
            },
            // (a number, true, false or null: once, where it starts)
            c if (c.is_ascii_alphanumeric() || c == '-')
                && out.last().is_none_or(|(p, _)| *p != here(&stack)) =>
            {
                out.push((here(&stack), line));
            }
            _ => {}
        }
    }
    out
}
