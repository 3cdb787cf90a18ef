//! Shared vocabulary: the names every layer uses and none of them owns.
//!
//! This is the leaf of the crate's layering (see ARCHITECTURE.md): it
//! imports nothing from the crate, so any module may import it.

use serde::Serialize;

/// A function of a teaching program (`run_loop`, `ask_claude`, …), known
/// by its name: names are unique across the built-in programs
/// (`programs::function` finds one; a test holds them unique). A name,
/// not an enum: a new program brings its own functions without touching
/// this file. A recorded program's function (`programs::recorded`: an
/// author's Python, loaded at run time) may share its name with a built-in
/// one or another pack's, so it carries its pack's number after the name
/// ([`Function::recorded`]): one text, no bigger a step, and the name is
/// what [`Function::name`] gives.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Function(&'static str);

/// What separates a recorded function's name from its pack's number.
const PACK_MARK: char = '\u{0}';

impl Function {
    /// The function with this name (for a program's own table; anyone else
    /// looks a name up with `programs::function`).
    pub const fn named(name: &'static str) -> Function {
        Function(name)
    }

    /// A function of a recorded program, known by the text
    /// [`Function::recorded_text`] made (leaked once per pack).
    pub fn recorded(text: &'static str) -> Function {
        Function(text)
    }

    /// The text a recorded function of pack `pack` is known by.
    pub fn recorded_text(name: &str, pack: usize) -> String {
        format!("{name}{PACK_MARK}{pack}")
    }

    /// The name as the code and the page spell it (`run_loop`).
    pub fn name(self) -> &'static str {
        self.0.split(PACK_MARK).next().unwrap_or(self.0)
    }

    /// The number of the recorded program it belongs to, if it is one.
    pub fn pack(self) -> Option<usize> {
        self.0.split_once(PACK_MARK).and_then(|(_, n)| n.parse().ok())
    }
}

impl std::fmt::Debug for Function {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for Function {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// The language a listing is shown in. The steps are recorded from the
/// Rust; the Python is the lesson's, proven to run the same steps; an
/// author's own Python listing (registered at run time, its marks checked)
/// is `Authored` with its number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Code {
    Python,
    Rust,
    Authored(u16),
}

impl Code {
    pub const ALL: [Code; 2] = [Code::Python, Code::Rust];

    pub fn name(self) -> &'static str {
        match self {
            Code::Python | Code::Authored(_) => "python",
            Code::Rust => "rust",
        }
    }

    /// A Python listing, the program's or an author's.
    pub fn is_python(self) -> bool {
        self != Code::Rust
    }

    pub fn from_name(name: &str) -> Option<Code> {
        Code::ALL.into_iter().find(|c| c.name() == name.trim().to_ascii_lowercase())
    }
}

/// Sort one of the few short lists the crate sorts (breakpoints, listing
/// lines, names, questions: tens of items), stably, by a key. An insertion
/// sort: a few hundred bytes of wasm per use where the standard library's
/// sort costs kilobytes per element type — and the page downloads them.
pub fn sort_small_by_key<T, K: Ord>(items: &mut [T], key: impl Fn(&T) -> K) {
    sort_small_by(items, |a, b| key(a) > key(b));
}

/// [`sort_small_by_key`] by the items themselves.
pub fn sort_small<T: Ord>(items: &mut [T]) {
    sort_small_by(items, |a, b| a > b);
}

/// The insertion sort itself: `after(a, b)` says `a` belongs after `b`.
pub fn sort_small_by<T>(items: &mut [T], after: impl Fn(&T, &T) -> bool) {
    for i in 1..items.len() {
        let mut j = i;
        while j > 0 && after(&items[j - 1], &items[j]) {
            items.swap(j - 1, j);
            j -= 1;
        }
    }
}

/// A number written as Rust's `{}` writes an `f64` (`3`, `1.5`,
/// `0.0000001`: the shortest digits that read back, never an exponent) —
/// through serde_json's float writer, which the crate has anyway, instead
/// of the standard library's float formatting (kilobytes the page would
/// download). The text is `format!("{x}")`'s wherever the shortest form has
/// up to 15 significant digits (the page's coordinates, a fixture's
/// `timeout_s`); past that it is another shortest form that reads back as
/// `x` (tests/properties.rs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Decimal(pub f64);

impl std::fmt::Display for Decimal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let x = self.0;
        if x.is_nan() {
            return f.write_str("NaN");
        }
        if x.is_infinite() {
            return f.write_str(if x > 0.0 { "inf" } else { "-inf" });
        }
        if x == x.trunc() && x.abs() < 1e15 {
            // Whole numbers: the integer (and "-0" for minus zero).
            let sign = if x.is_sign_negative() && x == 0.0 { "-" } else { "" };
            return write!(f, "{sign}{}", x as i64);
        }
        // Shortest round-trip digits, maybe with an exponent: "1.5e-7".
        let text = serde_json::to_string(&x).unwrap_or_default();
        let (negative, text) = match text.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, text.as_str()),
        };
        let (mantissa, exponent) = match text.split_once(['e', 'E']) {
            Some((m, e)) => (m, e.trim_start_matches('+').parse::<i32>().unwrap_or(0)),
            None => (text, 0),
        };
        let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        // The digits, and after how many of them the decimal point falls.
        let all = format!("{whole}{fraction}");
        let lead = all.len() - all.trim_start_matches('0').len();
        let point = whole.len() as i32 + exponent - lead as i32;
        let digits = all[lead..].trim_end_matches('0');
        let mut out = String::new();
        if negative {
            out.push('-');
        }
        if point <= 0 {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', point.unsigned_abs() as usize));
            out.push_str(digits);
        } else if point as usize >= digits.len() {
            out.push_str(digits);
            out.extend(std::iter::repeat_n('0', point as usize - digits.len()));
        } else {
            out.push_str(&digits[..point as usize]);
            out.push('.');
            out.push_str(&digits[point as usize..]);
        }
        f.write_str(&out)
    }
}

/// A JSON value as Python source (`true` → `True`, `null` → `None`): on one
/// line when it fits in `room` columns after the `used` ones already on its
/// line, else one item per line, indented by four spaces a level. What a
/// setup written in Python shows of a scenario's data; CPython reads it
/// back as the same value. Written into one text as it goes: a value is
/// measured (as far as its room) before it is written, never written twice,
/// so a list of 100,000 replies costs its text and no copy of them.
pub fn py_literal(value: &serde_json::Value, used: usize, room: usize) -> String {
    let mut out = String::new();
    py_block(Lit::One(value), 0, used, room, &mut out);
    out
}

/// `template` with each `@NAME@` in it (capitals and `_`) written by
/// `put(NAME, text)`, in one pass, into the one text (a large value is not
/// copied again for each name after it); `put` answers false for a name
/// it does not know, which stays as it is.
pub fn fill_in(template: &str, put: &mut dyn FnMut(&str, &mut String) -> bool) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(at) = rest.find('@') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let name_len = after.find(|c: char| !(c.is_ascii_uppercase() || c == '_')).unwrap_or(after.len());
        let named = name_len > 0 && after[name_len..].starts_with('@');
        if named && put(&after[..name_len], &mut out) {
            rest = &after[name_len + 1..];
        } else {
            out.push('@');
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// [`py_literal`] written at the end of `out`.
pub fn py_literal_into(value: &serde_json::Value, used: usize, room: usize, out: &mut String) {
    py_block(Lit::One(value), 0, used, room, out);
}

/// [`py_literal_into`] of a list given as its items (no list built of them).
pub fn py_list_into(items: &[serde_json::Value], used: usize, room: usize, out: &mut String) {
    py_block(Lit::List(items), 0, used, room, out);
}

/// A value to write: one value, or a list of them.
#[derive(Clone, Copy)]
enum Lit<'a> {
    One(&'a serde_json::Value),
    List(&'a [serde_json::Value]),
}

impl<'a> Lit<'a> {
    /// The items of a list.
    fn items(self) -> Option<&'a [serde_json::Value]> {
        match self {
            Lit::List(items) => Some(items),
            Lit::One(serde_json::Value::Array(items)) => Some(items),
            Lit::One(_) => None,
        }
    }
}

fn py_block(lit: Lit, indent: usize, used: usize, room: usize, out: &mut String) {
    use serde_json::Value;
    if room.checked_sub(used).and_then(|budget| flat_width(lit, budget)).is_some() {
        return py_flat(lit, out);
    }
    let inner = indent + 4;
    let pad = " ".repeat(inner);
    match lit {
        _ if lit.items().is_some_and(|list| !list.is_empty()) => {
            out.push_str("[\n");
            for item in lit.items().unwrap_or_default() {
                out.push_str(&pad);
                py_block(Lit::One(item), inner, inner, room, out);
                out.push_str(",\n");
            }
            out.push_str(&" ".repeat(indent));
            out.push(']');
        }
        Lit::One(Value::Object(map)) if !map.is_empty() => {
            out.push_str("{\n");
            for (key, value) in map {
                out.push_str(&pad);
                out.push_str(&json_string(key));
                out.push_str(": ");
                py_block(Lit::One(value), inner, inner + string_width(key) + 2, room, out);
                out.push_str(",\n");
            }
            out.push_str(&" ".repeat(indent));
            out.push('}');
        }
        _ => py_flat(lit, out),
    }
}

/// A text as a JSON string literal (what a Python string literal of it is).
fn json_string(text: &str) -> String {
    serde_json::Value::String(text.to_string()).to_string()
}

/// The characters of [`json_string`] of `text`, counted, not written.
fn string_width(text: &str) -> usize {
    2 + text
        .chars()
        .map(|c| match c {
            '"' | '\\' | '\n' | '\r' | '\t' | '\u{8}' | '\u{c}' => 2,
            c if c < ' ' => 6,
            _ => 1,
        })
        .sum::<usize>()
}

/// The characters of a value on one line, if at most `budget` (counting
/// stops as soon as it is more).
fn flat_width(lit: Lit, budget: usize) -> Option<usize> {
    use serde_json::Value;
    let items = |widths: &mut dyn Iterator<Item = Option<usize>>| -> Option<usize> {
        let mut total = 2;
        for (i, width) in widths.enumerate() {
            total += width? + if i > 0 { 2 } else { 0 };
            if total > budget {
                return None;
            }
        }
        (total <= budget).then_some(total)
    };
    if let Some(list) = lit.items() {
        return items(&mut list.iter().map(|v| flat_width(Lit::One(v), budget)));
    }
    let width = match lit {
        Lit::List(_) | Lit::One(Value::Array(_)) => return None,
        Lit::One(Value::Object(map)) => {
            return items(&mut map.iter().map(|(k, v)| {
                let key = string_width(k) + 2;
                Some(key + flat_width(Lit::One(v), budget.checked_sub(key)?)?)
            }))
        }
        Lit::One(Value::Null) => 4,
        Lit::One(Value::Bool(b)) => {
            if *b {
                4
            } else {
                5
            }
        }
        Lit::One(Value::String(text)) => string_width(text),
        Lit::One(number @ Value::Number(_)) => number.to_string().len(),
    };
    (width <= budget).then_some(width)
}

/// A value as Python source on one line.
fn py_flat(lit: Lit, out: &mut String) {
    use serde_json::Value;
    let list = |out: &mut String, list: &[Value]| {
        out.push('[');
        for (i, item) in list.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            py_flat(Lit::One(item), out);
        }
        out.push(']');
    };
    if let Some(items) = lit.items() {
        return list(out, items);
    }
    match lit {
        Lit::List(_) | Lit::One(Value::Array(_)) => {}
        Lit::One(Value::Null) => out.push_str("None"),
        Lit::One(Value::Bool(b)) => out.push_str(if *b { "True" } else { "False" }),
        // A JSON string is a Python string literal (serde writes no `\/`).
        Lit::One(value @ (Value::Number(_) | Value::String(_))) => out.push_str(&value.to_string()),
        Lit::One(Value::Object(map)) => {
            out.push('{');
            for (i, (key, value)) in map.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(&json_string(key));
                out.push_str(": ");
                py_flat(Lit::One(value), out);
            }
            out.push('}');
        }
    }
}

/// What Python's `str()` gives for a JSON value read from JSON: a string
/// itself, `None`, `True`, a number, or the `repr` of a list or a dict.
pub fn py_str(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::String(s) => s.clone(),
        other => py_repr(other),
    }
}

/// [`py_repr`] of `text` cut to its first `chars` characters, the cut
/// said by `…` inside the quotes (`'That refund is over…'`), so a caption
/// still reads as a text of Python's; a text that fits is left whole.
pub fn py_repr_cut(text: &str, chars: usize) -> String {
    let Some((end, _)) = text.char_indices().nth(chars) else {
        return py_repr(&serde_json::Value::String(text.to_string()));
    };
    let mut repr = py_repr(&serde_json::Value::String(text[..end].to_string()));
    let quote = repr.pop().unwrap_or('\'');
    repr.push('…');
    repr.push(quote);
    repr
}

/// The text of a value previewed as Python writes it, not as data
/// (`{"$repr": text}`: the preview's `Repr`, a recorded program's object).
pub fn read_repr(value: &serde_json::Value) -> Option<&str> {
    let map = value.as_object().filter(|m| m.len() == 1)?;
    map.get("$repr")?.as_str()
}

/// Python's `repr()` of a JSON value read from JSON.
pub fn py_repr(value: &serde_json::Value) -> String {
    use serde_json::Value;
    match value {
        Value::String(s) => {
            // Single quotes unless the text has one and no double quote.
            let quote = if s.contains('\'') && !s.contains('"') { '"' } else { '\'' };
            let mut out = String::from(quote);
            for c in s.chars() {
                match c {
                    '\\' => out.push_str("\\\\"),
                    '\n' => out.push_str("\\n"),
                    '\r' => out.push_str("\\r"),
                    '\t' => out.push_str("\\t"),
                    c if c == quote => {
                        out.push('\\');
                        out.push(c);
                    }
                    c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                        out.push_str(&format!("\\x{:02x}", c as u32))
                    }
                    c => out.push(c),
                }
            }
            out.push(quote);
            out
        }
        Value::Array(list) => format!("[{}]", list.iter().map(py_repr).collect::<Vec<_>>().join(", ")),
        Value::Object(map) => match read_repr(value) {
            // (a value the harness could only write as its repr: as Python wrote it)
            Some(repr) => repr.to_string(),
            None => {
                let items: Vec<String> = map
                    .iter()
                    .map(|(k, v)| format!("{}: {}", py_repr(&Value::String(k.clone())), py_repr(v)))
                    .collect();
                format!("{{{}}}", items.join(", "))
            }
        },
        other => {
            let mut out = String::new();
            py_flat(Lit::One(other), &mut out);
            out
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_literal_fits_its_line_or_opens_one_item_per_line() {
        let v = json!({"a": [1, true, null], "b": "x"});
        assert_eq!(py_literal(&v, 0, 80), r#"{"a": [1, True, None], "b": "x"}"#);
        assert_eq!(py_literal(&v, 0, 30), "{\n    \"a\": [1, True, None],\n    \"b\": \"x\",\n}");
        assert_eq!(py_literal(&json!([[1, 2], [3]]), 70, 76), "[\n    [1, 2],\n    [3],\n]");
        // Escapes count as they are written: a line is split exactly where a written one would be.
        let escaped = json!(["a\"\\\n\u{1}é", 12345, false]);
        let flat = py_literal(&escaped, 0, 80);
        assert_eq!(flat, r#"["a\"\\\n\u0001é", 12345, False]"#);
        let width = flat.chars().count();
        assert_eq!(py_literal(&escaped, 80 - width, 80), flat);
        assert_ne!(py_literal(&escaped, 81 - width, 80), flat);
        // A list given as its items is written as the list.
        let items = [json!({"k": "v"}), json!([1, [2]])];
        for (used, room) in [(0, 80), (15, 20), (0, 3)] {
            let mut out = String::from(">");
            py_list_into(&items, used, room, &mut out);
            assert_eq!(out, format!(">{}", py_literal(&json!(items), used, room)));
        }
    }

    #[test]
    fn a_template_is_filled_in_one_pass() {
        let mut put = |name: &str, out: &mut String| match name {
            "A" => {
                out.push_str("@B@");
                true
            }
            "B" => {
                out.push('b');
                true
            }
            _ => false,
        };
        assert_eq!(fill_in("x @A@ @B@ @C@ a@b @ @@B@@", &mut put), "x @B@ b @C@ a@b @ @b@");
    }

    #[test]
    fn str_and_repr_are_python_s() {
        assert_eq!(py_str(&json!("a\nb")), "a\nb");
        assert_eq!(py_str(&json!(null)), "None");
        assert_eq!(py_str(&json!(false)), "False");
        assert_eq!(py_repr(&json!("it's")), "\"it's\"");
        assert_eq!(py_repr(&json!("a'b\"c\n")), "'a\\'b\"c\\n'");
        assert_eq!(py_str(&json!({"k": ["v", 1]})), "{'k': ['v', 1]}");
    }
}
