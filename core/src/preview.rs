//! How a local is shown: one preview rule and one hash.
//!
//! A local is written straight from the running code's data as bounded
//! JSON text ([`Local::write`]): strings cut at [`PREVIEW_CHARS`]
//! characters, lists at [`PREVIEW_ITEMS`] items, nesting at
//! [`PREVIEW_DEPTH`] levels. [`Local::fingerprint`] feeds the same data
//! into [`Fnv`] without allocating, so the recorder can skip a local that
//! did not change since the last step.

use serde_json::Value;

/// Strings in locals are shown up to this many characters.
pub const PREVIEW_CHARS: usize = 400;

/// Strings in locals are shown up to [`PREVIEW_CHARS`]; lists up to this
/// many items; nesting up to [`PREVIEW_DEPTH`] levels.
pub const PREVIEW_ITEMS: usize = 50;
pub const PREVIEW_DEPTH: usize = 24;

/// A value that can be shown as a local: a bounded JSON preview, written
/// straight from the running code's data (never cloning a whole record).
///
/// There is one preview rule, [`Local::write`]; [`preview`] reads its
/// output back when a `Value` is wanted.
pub trait Local {
    /// Append the JSON text of this value's preview to `out`.
    fn write(&self, out: &mut Vec<u8>);
    /// Feed what identifies this value into the hash, without allocating:
    /// an unchanged local is recognised and not written again.
    fn fingerprint(&self, h: &mut Fnv);
}

/// FNV-1a style, 64-bit: tiny, allocation-free, good enough to notice a
/// change (the one hash of the recorder; equality is always checked).
pub struct Fnv(pub u64);

impl Fnv {
    pub fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
    pub fn bytes(&mut self, bytes: &[u8]) {
        // Eight bytes per round: locals are hashed at every step.
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let word = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
            self.0 = (self.0 ^ word).wrapping_mul(0x100_0000_01b3).rotate_left(29);
        }
        for b in chunks.remainder() {
            self.0 = (self.0 ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3);
        }
    }
    fn tag(&mut self, t: u8) {
        self.bytes(&[t]);
    }
    fn len(&mut self, n: usize) {
        self.bytes(&(n as u64).to_le_bytes());
    }
}

impl Default for Fnv {
    fn default() -> Fnv {
        Fnv::new()
    }
}

/// The hash of a text (for sharing repeated values in the table).
pub fn text_hash(text: &str) -> u64 {
    let mut h = Fnv::new();
    h.bytes(text.as_bytes());
    h.0
}

/// Feed a JSON value into the hash: exactly what its preview shows, no
/// more (so a huge list costs what its first items cost).
pub fn fingerprint_value(v: &Value, h: &mut Fnv) {
    fingerprint_at(v, 0, (PREVIEW_DEPTH, PREVIEW_ITEMS), h);
}

/// Feed the whole of a JSON value into the hash, every item at every
/// depth and every character of every text (what names a scenario's
/// content: `session::recorder::run_key`).
pub fn content_hash(v: &Value, h: &mut Fnv) {
    fingerprint_at(v, 0, (usize::MAX, usize::MAX), h);
}

/// `(depth, items)`: how deep, and how many items of a list, are read (a
/// preview's bounds read a long text's head; no bounds, all of it).
fn fingerprint_at(v: &Value, depth: usize, bound: (usize, usize), h: &mut Fnv) {
    match v {
        Value::Array(_) | Value::Object(_) if depth >= bound.0 => h.tag(6),
        Value::String(s) if bound.1 == usize::MAX => {
            h.tag(7);
            h.len(s.len());
            h.bytes(s.as_bytes());
        }
        Value::Null => h.tag(0),
        Value::Bool(b) => h.bytes(&[1, u8::from(*b)]),
        Value::Number(n) => {
            h.tag(2);
            match (n.as_i64(), n.as_u64(), n.as_f64()) {
                (Some(i), _, _) => h.bytes(&i.to_le_bytes()),
                (None, Some(u), _) => {
                    h.tag(8);
                    h.bytes(&u.to_le_bytes());
                }
                (None, None, Some(f)) => h.bytes(&f.to_bits().to_le_bytes()),
                _ => h.tag(9),
            }
        }
        Value::String(s) => s.as_str().fingerprint(h),
        Value::Array(items) => {
            h.tag(4);
            h.len(items.len());
            items.iter().take(bound.1).for_each(|x| fingerprint_at(x, depth + 1, bound, h));
        }
        Value::Object(map) => {
            h.tag(5);
            h.len(map.len());
            for (k, x) in map {
                h.len(k.len());
                h.bytes(k.as_bytes());
                fingerprint_at(x, depth + 1, bound, h);
            }
        }
    }
}

impl Local for Value {
    fn write(&self, out: &mut Vec<u8>) {
        write_preview(self, 0, Bounds::LOCAL, out);
    }
    fn fingerprint(&self, h: &mut Fnv) {
        fingerprint_value(self, h);
    }
}
impl Local for str {
    fn write(&self, out: &mut Vec<u8>) {
        write_str(&shortened(self), out);
    }
    fn fingerprint(&self, h: &mut Fnv) {
        h.tag(3);
        h.len(self.len());
        // The preview shows the first PREVIEW_CHARS characters (at most 4
        // bytes each) and how many characters follow.
        match self.len() > PREVIEW_CHARS * 4 {
            false => h.bytes(self.as_bytes()),
            true => {
                let head = self.char_indices().nth(PREVIEW_CHARS).map_or(self.len(), |(i, _)| i);
                h.bytes(&self.as_bytes()[..head]);
                h.len(self.chars().count());
            }
        }
    }
}
impl Local for String {
    fn write(&self, out: &mut Vec<u8>) {
        self.as_str().write(out);
    }
    fn fingerprint(&self, h: &mut Fnv) {
        self.as_str().fingerprint(h);
    }
}
impl<T: Local> Local for [T] {
    fn write(&self, out: &mut Vec<u8>) {
        out.push(b'[');
        for (i, item) in self.iter().take(PREVIEW_ITEMS).enumerate() {
            if i > 0 {
                out.push(b',');
            }
            item.write(out);
        }
        write_more(self.len(), PREVIEW_ITEMS, out);
        out.push(b']');
    }
    fn fingerprint(&self, h: &mut Fnv) {
        h.tag(4);
        h.len(self.len());
        self.iter().take(PREVIEW_ITEMS).for_each(|x| x.fingerprint(h));
    }
}
impl<T: Local> Local for Vec<T> {
    fn write(&self, out: &mut Vec<u8>) {
        self.as_slice().write(out);
    }
    fn fingerprint(&self, h: &mut Fnv) {
        self.as_slice().fingerprint(h);
    }
}
impl<T: Local> Local for Option<T> {
    fn write(&self, out: &mut Vec<u8>) {
        match self {
            Some(v) => v.write(out),
            None => out.extend_from_slice(b"null"),
        }
    }
    fn fingerprint(&self, h: &mut Fnv) {
        match self {
            Some(v) => v.fingerprint(h),
            None => h.tag(0),
        }
    }
}
impl<T: Local + ?Sized> Local for &T {
    fn write(&self, out: &mut Vec<u8>) {
        (**self).write(out);
    }
    fn fingerprint(&self, h: &mut Fnv) {
        (**self).fingerprint(h);
    }
}
macro_rules! number_local {
    ($($t:ty),*) => {$(
        impl Local for $t {
            fn write(&self, out: &mut Vec<u8>) {
                let _ = serde_json::to_writer(out, self);
            }
            fn fingerprint(&self, h: &mut Fnv) {
                h.bytes(&self.to_le_bytes());
            }
        }
    )*};
}
number_local!(i64, u32, usize, f64);
impl Local for bool {
    fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(if *self { b"true" } else { b"false" });
    }
    fn fingerprint(&self, h: &mut Fnv) {
        h.bytes(&[1, u8::from(*self)]);
    }
}

impl Local for crate::protocol::Seconds {
    fn write(&self, out: &mut Vec<u8>) {
        self.0.write(out);
    }
    fn fingerprint(&self, h: &mut Fnv) {
        self.0.fingerprint(h);
    }
}

/// A value the page shows as Python writes it, not as data: a function
/// or an object the setup passes in (`<function <lambda>>`). Its preview
/// is `{"$repr": text}`; [`read_repr`] reads it back.
pub struct Repr(pub &'static str);

impl Local for Repr {
    fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(b"{\"$repr\":");
        write_str(self.0, out);
        out.push(b'}');
    }
    fn fingerprint(&self, h: &mut Fnv) {
        h.tag(9);
        h.bytes(self.0.as_bytes());
    }
}

/// The text of a [`Repr`] preview (read where values are written).
pub use crate::vocab::read_repr;

impl Local for crate::protocol::ProcessOutcome {
    /// What the listing's `subprocess.run` hands back once the program
    /// exited (the fields of Python's `CompletedProcess` the lesson reads).
    fn write(&self, out: &mut Vec<u8>) {
        if let crate::protocol::ProcessOutcome::Exited { returncode, stdout, stderr } = self {
            out.extend_from_slice(b"{\"returncode\":");
            returncode.write(out);
            out.extend_from_slice(b",\"stderr\":");
            stderr.write(out);
            out.extend_from_slice(b",\"stdout\":");
            stdout.write(out);
            out.push(b'}');
        } else {
            out.extend_from_slice(b"null");
        }
    }
    fn fingerprint(&self, h: &mut Fnv) {
        if let crate::protocol::ProcessOutcome::Exited { returncode, stdout, stderr } = self {
            returncode.fingerprint(h);
            stdout.fingerprint(h);
            stderr.fingerprint(h);
        }
    }
}

impl Local for crate::protocol::ModelError {
    fn write(&self, out: &mut Vec<u8>) {
        serde_json::json!({"name": self.name, "message": self.message}).write(out);
    }
    fn fingerprint(&self, h: &mut Fnv) {
        self.name.fingerprint(h);
        self.message.fingerprint(h);
    }
}

impl Local for crate::protocol::Request<'_> {
    fn write(&self, out: &mut Vec<u8>) {
        // The messages are the record the page already draws: count them
        // only. Written field by field (keys in the order a JSON object of
        // them would have): a loop writes one request per call.
        out.extend_from_slice(b"{\"max_tokens\":");
        self.max_tokens.write(out);
        out.extend_from_slice(b",\"messages\":");
        write_str(&record_ref(self.messages.len()), out);
        out.extend_from_slice(b",\"model\":");
        self.model.write(out);
        out.extend_from_slice(b",\"system\":");
        self.system.write(out);
        out.extend_from_slice(b",\"tools\":");
        write_preview(self.tools, 1, Bounds::LOCAL, out);
        out.push(b'}');
    }
    fn fingerprint(&self, h: &mut Fnv) {
        h.len(self.messages.len());
        h.bytes(self.system.as_bytes());
        h.bytes(&self.max_tokens.to_le_bytes());
    }
}

/// A string as a local shows it: at most [`PREVIEW_CHARS`] characters,
/// then how many were left out.
fn shortened(s: &str) -> std::borrow::Cow<'_, str> {
    cut(s, PREVIEW_CHARS)
}

/// Any text the page shows (an output line, a caption's quote of an error)
/// is cut at this many characters: as many as lesson one keeps of a tool's
/// output.
pub const SHOWN_CHARS: usize = 2000;

/// At most `max` characters of `s`, then how many were left out
/// (`… (+N chars)`): the one rule for a string too long to show.
pub fn cut(s: &str, max: usize) -> std::borrow::Cow<'_, str> {
    if s.len() <= max {
        return s.into();
    }
    let Some((end, _)) = s.char_indices().nth(max) else { return s.into() };
    let rest = s[end..].chars().count();
    format!("{}… (+{rest} chars)", &s[..end]).into()
}

/// The length, in characters, of the string a preview stands for: its own
/// length, or for a shortened one the length it had (read back exactly).
pub fn full_length(shown: &str) -> usize {
    let shown_chars = shown.chars().count();
    let cut = shown.strip_suffix(" chars)").and_then(|s| s.rsplit_once("… (+"));
    match cut {
        Some((head, more)) if head.chars().count() == PREVIEW_CHARS => {
            more.parse::<usize>().map_or(shown_chars, |n| PREVIEW_CHARS + n)
        }
        _ => shown_chars,
    }
}

fn write_str(s: &str, out: &mut Vec<u8>) {
    let _ = serde_json::to_writer(out, s);
}

/// How much of a value a preview keeps: string characters, list items,
/// nesting levels. [`Bounds::LOCAL`] is the locals' rule; the page's
/// opened card keeps more.
#[derive(Clone, Copy, Debug)]
pub struct Bounds {
    pub chars: usize,
    pub items: usize,
    pub depth: usize,
}

impl Bounds {
    pub const LOCAL: Bounds = Bounds { chars: PREVIEW_CHARS, items: PREVIEW_ITEMS, depth: PREVIEW_DEPTH };
}

/// `v` as its preview within `bounds` (the rule locals follow, with other
/// limits), read back as a value.
pub fn bounded(v: &Value, bounds: Bounds) -> Value {
    let mut out = Vec::new();
    write_preview(v, 0, bounds, &mut out);
    serde_json::from_slice(&out).unwrap_or(Value::Null)
}

/// The closing item of a cut list says how many items it left out.
pub const MORE: (&str, &str) = ("… (+", " more)");

fn write_more(len: usize, items: usize, out: &mut Vec<u8>) {
    if len > items {
        out.push(b',');
        write_str(&format!("{}{}{}", MORE.0, len - items, MORE.1), out);
    }
}

/// How many items a list preview left out (the number in its closing
/// item; 0 for a list that was not cut).
pub fn left_out(items: &[Value]) -> usize {
    let more =
        items.last().and_then(Value::as_str).and_then(|s| s.strip_prefix(MORE.0)?.strip_suffix(MORE.1));
    more.and_then(|n| n.parse().ok()).unwrap_or(0)
}

/// The preview rule for JSON values: strings shortened, lists cut,
/// nesting cut, each at its `bounds`.
fn write_preview(v: &Value, depth: usize, bounds: Bounds, out: &mut Vec<u8>) {
    match v {
        Value::Array(_) | Value::Object(_) if depth >= bounds.depth => write_str("…", out),
        Value::String(s) => write_str(&cut(s, bounds.chars), out),
        Value::Array(items) => {
            out.push(b'[');
            for (i, x) in items.iter().take(bounds.items).enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_preview(x, depth + 1, bounds, out);
            }
            write_more(items.len(), bounds.items, out);
            out.push(b']');
        }
        // (a dict whose one key is `$repr` would read as a Repr: it is
        // written as Python writes the dict instead)
        Value::Object(_) if crate::vocab::read_repr(v).is_some() => {
            let text = format!("{{'$repr': {}}}", crate::vocab::py_repr(&v["$repr"]));
            out.extend_from_slice(b"{\"$repr\":");
            write_str(&cut(&text, bounds.chars), out);
            out.push(b'}');
        }
        Value::Object(map) => {
            out.push(b'{');
            for (i, (k, x)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_str(k, out);
                out.push(b':');
                write_preview(x, depth + 1, bounds, out);
            }
            out.push(b'}');
        }
        other => {
            let _ = serde_json::to_writer(out, other);
        }
    }
}

/// How a local that is the whole record is shown: it is what the figure
/// draws, so only its length (`(the record, n = 4)`).
pub fn record_ref(len: usize) -> String {
    format!("(the record, n = {len})")
}

/// The length in a [`record_ref`] text, if the text is one exactly.
pub fn read_record_ref(text: &str) -> Option<usize> {
    let n: usize = text.strip_prefix("(the record, n = ")?.strip_suffix(')')?.parse().ok()?;
    (record_ref(n) == text).then_some(n)
}

/// The preview of a local as a JSON value (the text [`Local::write`]
/// produces, read back).
pub fn preview<T: Local + ?Sized>(value: &T) -> Value {
    let mut out = Vec::new();
    value.write(&mut out);
    serde_json::from_slice(&out).unwrap_or(Value::Null)
}
