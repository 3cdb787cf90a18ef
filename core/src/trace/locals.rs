//! All locals of a trace, shared between steps (the recorder writes them,
//! the page reads a step's set back as JSON).

use super::bytes::{intern, Malformed, Reader, Writer};
use crate::preview::{text_hash, Fnv, Local, MORE};
use crate::vocab::Function;
use serde_json::Value;

/// Slots of the name cache (a lesson has a few dozen names); 2^6, the
/// top six bits of the hashed address.
const NAME_CACHE: usize = 64;

/// All locals of a trace, shared between steps: each distinct value is
/// stored once as JSON text, each set of `(name, value)` pairs once in a
/// flat list, and a step points at its set. A list that grows past the
/// preview's items changes only in its closing count (`"… (+N more)"`):
/// such a value is stored as the one before it with another count, so a
/// loop over 150,000 tool calls does not keep 150,000 copies of one
/// preview.
#[derive(Debug, Default)]
pub struct LocalsTable {
    /// Names per (function, name): a frame's locals do not evict another's.
    names: Vec<(Function, &'static str)>,
    /// The set each name first appears in (set ids grow with the steps).
    first: Vec<u32>,
    /// Name ids by the name's literal (its address and length) and function,
    /// [`NAME_CACHE`] slots, filled while recording.
    name_cache: Vec<(&'static str, Function, u16)>,
    values: Vec<Stored>,
    /// `(start, len)` into `pairs`.
    sets: Vec<(u32, u16)>,
    pairs: Vec<(u16, u32)>,
    /// Recording-time caches: the last value per name (to skip serialising
    /// an unchanged local) and value text by hash (to share repeats).
    last: Vec<(u64, u32)>,
    by_hash: HashIndex,
    /// Where a changed value's text is written first (one buffer, reused:
    /// a value already in the table costs no allocation).
    scratch: Vec<u8>,
    /// Bytes of value text held (for the memory budget).
    values_bytes: usize,
}

impl LocalsTable {
    fn name_id(&mut self, function: Function, name: &'static str) -> u16 {
        // A call site passes the same literal every time: a small cache by
        // the literal (its hashed address: neighbouring short literals get
        // slots of their own) answers most lookups without a scan over
        // every name, which was a tenth of a long recording.
        let slot = (spread(name.as_ptr() as u64) >> 58) as usize;
        if let Some(&(literal, f, id)) = self.name_cache.get(slot) {
            // (address and length: a label's head is another name at the same address)
            if std::ptr::eq(literal, name) && f == function && id != u16::MAX {
                return id;
            }
        }
        let id = self.find_name(function, name);
        if self.name_cache.is_empty() {
            self.name_cache = vec![("", function, u16::MAX); NAME_CACHE];
        }
        self.name_cache[slot] = (name, function, id);
        id
    }

    fn find_name(&mut self, function: Function, name: &'static str) -> u16 {
        // Compare addresses first, contents only when that misses.
        let same_literal = |n: &(Function, &'static str)| std::ptr::eq(n.1, name) && n.0 == function;
        let found = self
            .names
            .iter()
            .position(same_literal)
            .or_else(|| self.names.iter().position(|n| *n == (function, name)));
        match found {
            Some(i) => i as u16,
            None => {
                self.names.push((function, name));
                self.first.push(self.sets.len() as u32);
                self.last.push((0, u32::MAX));
                (self.names.len() - 1) as u16
            }
        }
    }

    fn value_id(&mut self, name: u16, local: &dyn Local) -> u32 {
        let mut fp = Fnv::new();
        local.fingerprint(&mut fp);
        let last = self.last[name as usize];
        if last.1 != u32::MAX && last.0 == fp.0 {
            return last.1;
        }
        self.scratch.clear();
        local.write(&mut self.scratch);
        let text = std::str::from_utf8(&self.scratch).unwrap_or_default();
        let hash = text_hash(text);
        let id = match self.by_hash.get(hash) {
            Some(id) if matches!(&self.values[id as usize], Stored::Text(t) if **t == *text) => id,
            _ => {
                let stored = match self.recount(last.1, text) {
                    Some(more) => more,
                    None => {
                        self.values_bytes += text.len();
                        Stored::Text(text.into())
                    }
                };
                self.values_bytes += 16;
                let whole = matches!(stored, Stored::Text(_));
                self.values.push(stored);
                let id = (self.values.len() - 1) as u32;
                if whole {
                    self.by_hash.insert(hash, id);
                }
                id
            }
        };
        self.last[name as usize] = (fp.0, id);
        id
    }

    /// Intern a set of locals; a set equal to the previous one is shared.
    pub(super) fn add(&mut self, function: Function, pairs: &[(&'static str, &dyn Local)]) -> u32 {
        let start = self.pairs.len();
        for &(name, value) in pairs {
            let n = self.name_id(function, name);
            let v = self.value_id(n, value);
            self.pairs.push((n, v));
        }
        let len = self.pairs.len() - start;
        if let Some(&(s, l)) = self.sets.last() {
            if l as usize == len && self.pairs[s as usize..s as usize + len] == self.pairs[start..] {
                self.pairs.truncate(start);
                return (self.sets.len() - 1) as u32;
            }
        }
        self.sets.push((start as u32, len as u16));
        (self.sets.len() - 1) as u32
    }

    /// Bytes held by the values and sets (for the memory budget).
    pub fn held(&self) -> usize {
        self.values_bytes + self.pairs.len() * 8 + self.sets.len() * 8
    }

    /// Drop the recording caches and spare capacity.
    pub(super) fn finish(&mut self) {
        self.last = Vec::new();
        self.by_hash = Default::default();
        self.name_cache = Vec::new();
        self.values.shrink_to_fit();
        self.sets.shrink_to_fit();
        self.pairs.shrink_to_fit();
    }

    /// The locals of set `id` as a JSON object (names in alphabetical order).
    pub fn json(&self, id: u32) -> Value {
        // (inserted one by one: collecting into the map would sort, and the
        // module keeps the standard sort out)
        let mut map = serde_json::Map::new();
        for (n, v) in self.set(id) {
            map.insert(self.names[*n as usize].1.to_string(), self.value(*v));
        }
        Value::Object(map)
    }

    /// One local of a set, if it has one of that name (only that value is
    /// read back: a walk over many steps for one name parses nothing else).
    pub fn get(&self, id: u32, name: &str) -> Option<Value> {
        let (_, v) = self.set(id).iter().find(|(n, _)| self.names[*n as usize].1 == name)?;
        Some(self.value(*v))
    }

    /// The names of set `id` with their value ids (nothing is read back).
    pub fn pairs(&self, id: u32) -> impl Iterator<Item = (&'static str, u32)> + '_ {
        self.set(id).iter().map(|(n, v)| (self.names[*n as usize].1, *v))
    }

    /// A value by its id (from [`LocalsTable::pairs`]).
    pub fn value_json(&self, v: u32) -> Value {
        self.value(v)
    }

    /// Every name the recording has for `function` by set `upto` (a set
    /// of a later step holds no name that first appears after it): a walk
    /// back from that set that has found all of them can stop.
    pub fn names_of(&self, function: Function, upto: u32) -> impl Iterator<Item = &'static str> + '_ {
        let named = self.names.iter().zip(&self.first);
        named.filter(move |((f, _), first)| *f == function && **first <= upto).map(|((_, n), _)| *n)
    }

    /// Write the table in its byte form (a finished recording's: the
    /// recording caches are not written). `function` gives a function's
    /// index in the caller's table.
    pub fn write(&self, w: &mut Writer, mut function: impl FnMut(Function) -> u64) {
        w.u64(self.names.len() as u64);
        for ((f, name), first) in self.names.iter().zip(&self.first) {
            w.u64(function(*f));
            w.str(name);
            w.u64((*first).into());
        }
        w.u64(self.values.len() as u64);
        for value in &self.values {
            match value {
                Stored::Text(text) => {
                    w.u64(0);
                    w.str(text);
                }
                Stored::More(base, n) => {
                    w.u64(1);
                    w.u64((*base).into());
                    w.u64(*n);
                }
            }
        }
        // (a set starts where the one before it ends: its length alone is
        // written; a value as the change from its name's value before)
        w.u64(self.sets.len() as u64);
        for (_, len) in &self.sets {
            w.u64((*len).into());
        }
        w.u64(self.pairs.len() as u64);
        let mut last = vec![0u32; self.names.len()];
        for (name, value) in &self.pairs {
            w.u64((*name).into());
            w.i64(i64::from(*value) - i64::from(last[*name as usize]));
            last[*name as usize] = *value;
        }
    }

    /// A table [`LocalsTable::write`] wrote, every index in it checked.
    pub fn read(r: &mut Reader, functions: &[Function]) -> Result<LocalsTable, Malformed> {
        let mut table = LocalsTable::default();
        let names = r.count()?;
        if names > usize::from(u16::MAX) {
            return Err(r.malformed());
        }
        for _ in 0..names {
            let function = functions[r.below(functions.len() as u64)? as usize];
            let name = intern(r.str()?).ok_or(r.malformed())?;
            table.names.push((function, name));
            table.first.push(r.below(u64::from(u32::MAX))? as u32);
        }
        for i in 0..r.count()? {
            let value = match r.below(2)? {
                0 => Stored::Text(r.str()?.into()),
                _ => Stored::More(r.below(i as u64)? as u32, r.u64()?),
            };
            table.values_bytes += 16 + if let Stored::Text(t) = &value { t.len() } else { 0 };
            table.values.push(value);
        }
        let sets = r.count()?;
        let (mut ranges, mut start) = (Vec::with_capacity(sets), 0u64);
        for _ in 0..sets {
            let len = r.below(u64::from(u16::MAX) + 1)?;
            ranges.push((u32::try_from(start).map_err(|_| r.malformed())?, len as u16));
            start += len;
        }
        let pairs = r.count()?;
        let mut last = vec![0u32; table.names.len()];
        table.pairs.reserve(pairs);
        for _ in 0..pairs {
            let name = r.below(table.names.len() as u64)? as usize;
            let value = i64::from(last[name]) + r.i64()?;
            let value = u32::try_from(value).ok().filter(|v| (*v as usize) < table.values.len());
            last[name] = value.ok_or(r.malformed())?;
            table.pairs.push((name as u16, last[name]));
        }
        if start != pairs as u64 {
            return Err(r.malformed());
        }
        table.sets = ranges;
        Ok(table)
    }

    /// The functions whose locals the table holds (once per name).
    pub fn functions(&self) -> impl Iterator<Item = Function> + '_ {
        self.names.iter().map(|(f, _)| *f)
    }

    /// How many sets the table holds (a step's `locals` is one of them).
    pub fn sets(&self) -> usize {
        self.sets.len()
    }

    fn set(&self, id: u32) -> &[(u16, u32)] {
        let (start, len) = self.sets.get(id as usize).copied().unwrap_or((0, 0));
        &self.pairs[start as usize..start as usize + len as usize]
    }

    fn value(&self, v: u32) -> Value {
        let parsed = match &self.values[v as usize] {
            Stored::Text(text) => serde_json::from_str(text),
            Stored::More(base, n) => serde_json::from_str(&with_count(self.base_text(*base), *n)),
        };
        parsed.unwrap_or(Value::Null)
    }

    fn base_text(&self, id: u32) -> &str {
        match &self.values[id as usize] {
            Stored::Text(text) => text,
            Stored::More(base, _) => self.base_text(*base),
        }
    }

    /// `text` as the value `last` with another closing count, when that is
    /// all that differs.
    fn recount(&self, last: u32, text: &str) -> Option<Stored> {
        let base = match self.values.get(last as usize)? {
            Stored::Text(_) => last,
            Stored::More(base, _) => *base,
        };
        let (head, n) = split_count(text)?;
        let (base_head, _) = split_count(self.base_text(base))?;
        (head == base_head).then_some(Stored::More(base, n))
    }
}

/// Value ids by the hash of their text, open addressing (a B-tree's
/// lookups were a tenth of a 10,000-call recording; nothing here needs the
/// order). A hash seen again points at the later id, as an insert would.
#[derive(Debug, Default)]
struct HashIndex {
    /// `(hash, id)`, `id == u32::MAX` for an empty slot; a power of two long.
    slots: Vec<(u64, u32)>,
    len: usize,
}

impl HashIndex {
    fn slot(&self, hash: u64) -> usize {
        let mask = self.slots.len() - 1;
        let mut i = (spread(hash) >> 32) as usize & mask;
        while self.slots[i].1 != u32::MAX && self.slots[i].0 != hash {
            i = (i + 1) & mask;
        }
        i
    }

    fn get(&self, hash: u64) -> Option<u32> {
        if self.slots.is_empty() {
            return None;
        }
        let (_, id) = self.slots[self.slot(hash)];
        (id != u32::MAX).then_some(id)
    }

    fn insert(&mut self, hash: u64, id: u32) {
        // (kept at most half full: probes stay short)
        if (self.len + 1) * 2 > self.slots.len() {
            let grown = vec![(0, u32::MAX); (self.slots.len() * 2).max(64)];
            let old = std::mem::replace(&mut self.slots, grown);
            for (h, v) in old.into_iter().filter(|s| s.1 != u32::MAX) {
                let i = self.slot(h);
                self.slots[i] = (h, v);
            }
        }
        let i = self.slot(hash);
        self.len += usize::from(self.slots[i].1 == u32::MAX);
        self.slots[i] = (hash, id);
    }
}

/// A word's bits spread over the high bits (Fibonacci hashing), for a slot.
fn spread(x: u64) -> u64 {
    x.wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

/// A value's text: whole, or another value's with its closing count changed.
#[derive(Debug, PartialEq)]
enum Stored {
    Text(Box<str>),
    More(u32, u64),
}

/// A list preview's text before its closing count (the JSON string
/// [`MORE`] frames, then `]`), and the count.
fn split_count(text: &str) -> Option<(&str, u64)> {
    let body = text.strip_suffix("\"]")?.strip_suffix(MORE.1)?;
    let at = body.rfind(MORE.0)?;
    let head = text[..at].strip_suffix('"')?;
    Some((head, body[at + MORE.0.len()..].parse().ok()?))
}

fn with_count(base: &str, n: u64) -> String {
    let head = split_count(base).map_or(base, |(head, _)| head);
    format!("{head}\"{}{n}{}\"]", MORE.0, MORE.1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hash_index_finds_what_it_holds_and_nothing_else() {
        let mut index = HashIndex::default();
        assert_eq!(index.get(7), None);
        // Hashes that share their slot's bits, and enough of them to grow several times.
        let hashes: Vec<u64> =
            (0..5000u64).map(|i| if i % 2 == 0 { i << 40 } else { i.wrapping_mul(0x5851_f42d) }).collect();
        for (id, &h) in hashes.iter().enumerate() {
            index.insert(h, id as u32);
        }
        for (id, &h) in hashes.iter().enumerate() {
            assert_eq!(index.get(h), Some(id as u32), "hash {h:#x}");
        }
        assert_eq!(index.get(u64::MAX), None);
        // A hash seen again points at the later id.
        index.insert(hashes[3], 99_999);
        assert_eq!(index.get(hashes[3]), Some(99_999));
        assert_eq!(index.len, hashes.len());
    }

    #[test]
    fn one_literal_in_two_functions_is_two_names() {
        // The name cache is by the literal: the same literal in another
        // function must not find the first function's name.
        let (f, g) = (Function::named("f"), Function::named("g"));
        let name: &'static str = "x";
        let mut table = LocalsTable::default();
        let mut sets = Vec::new();
        for round in 0..3i64 {
            sets.push(table.add(f, &[(name, &round as &dyn Local)]));
            sets.push(table.add(g, &[(name, &(round + 10) as &dyn Local)]));
        }
        assert_eq!(table.names, vec![(f, "x"), (g, "x")]);
        let shown: Vec<String> = sets.iter().map(|s| table.json(*s)["x"].to_string()).collect();
        assert_eq!(shown, ["0", "10", "1", "11", "2", "12"]);
        // A literal's head at the same address is another name.
        let label: &'static str = "xy";
        let head = &label[..1];
        let a = table.add(f, &[(label, &1i64 as &dyn Local)]);
        let b = table.add(f, &[(head, &2i64 as &dyn Local)]);
        assert_eq!((table.json(a)["xy"].clone(), table.json(b)["x"].clone()), (1.into(), 2.into()));
        // A name that is not the same literal but reads the same is the same name.
        let other = String::from("x").leak();
        let set = table.add(f, &[(other, &5i64 as &dyn Local)]);
        assert_eq!(table.names.len(), 3);
        assert_eq!(table.json(set)["x"], 5);
    }
}
