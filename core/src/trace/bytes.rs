//! The byte form a recording travels in from one instance of the module to
//! another (a worker records, the page shows): numbers as LEB128, texts
//! with their length first. A reader checks every length against what is
//! left, so bytes that were not written by [`Writer`] are refused, never a
//! panic.

use std::cell::RefCell;

/// Bytes being written.
#[derive(Default)]
pub struct Writer {
    pub bytes: Vec<u8>,
}

impl Writer {
    pub fn u64(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.bytes.push((v as u8) | 0x80);
            v >>= 7;
        }
        self.bytes.push(v as u8);
    }

    /// A signed number (zigzag: small negatives stay short).
    pub fn i64(&mut self, v: i64) {
        self.u64(((v << 1) ^ (v >> 63)) as u64);
    }

    pub fn str(&mut self, s: &str) {
        self.u64(s.len() as u64);
        self.bytes.extend_from_slice(s.as_bytes());
    }
}

/// What bytes that do not read as a recording are refused with: how far
/// the reader got.
#[derive(Debug, PartialEq, Eq)]
pub struct Malformed(pub usize);

/// Bytes being read back.
pub struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    pub fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes, at: 0 }
    }

    /// Reading on from `at` (a run read in slices: where the last one stopped).
    pub fn at(bytes: &'a [u8], at: usize) -> Reader<'a> {
        Reader { bytes, at: at.min(bytes.len()) }
    }

    /// How far it has read.
    pub fn offset(&self) -> usize {
        self.at
    }

    pub fn malformed(&self) -> Malformed {
        Malformed(self.at)
    }

    pub fn u64(&mut self) -> Result<u64, Malformed> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = *self.bytes.get(self.at).ok_or(self.malformed())?;
            self.at += 1;
            v |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(self.malformed())
    }

    pub fn i64(&mut self) -> Result<i64, Malformed> {
        let v = self.u64()?;
        Ok(((v >> 1) as i64) ^ -((v & 1) as i64))
    }

    /// A number below `bound` (an index, a count the bytes must hold).
    pub fn below(&mut self, bound: u64) -> Result<u64, Malformed> {
        let v = self.u64()?;
        if v < bound {
            Ok(v)
        } else {
            Err(self.malformed())
        }
    }

    /// A count of items, each at least one byte long: never more than the
    /// bytes left (a length field cannot make the reader allocate).
    pub fn count(&mut self) -> Result<usize, Malformed> {
        let v = self.u64()?;
        if v <= (self.bytes.len() - self.at) as u64 {
            Ok(v as usize)
        } else {
            Err(self.malformed())
        }
    }

    pub fn str(&mut self) -> Result<&'a str, Malformed> {
        let len = self.count()?;
        let slice = &self.bytes[self.at..self.at + len];
        let text = std::str::from_utf8(slice).map_err(|_| self.malformed())?;
        self.at += len;
        Ok(text)
    }

    /// All bytes read, nothing after them.
    pub fn end(&self) -> Result<(), Malformed> {
        if self.at == self.bytes.len() {
            Ok(())
        } else {
            Err(self.malformed())
        }
    }
}

/// The most distinct names and labels read back in one thread: each is
/// kept for good, so bytes cannot make the module grow without end.
const INTERNED: usize = 4096;

thread_local! {
    static NAMES: RefCell<Vec<&'static str>> = const { RefCell::new(Vec::new()) };
}

/// A name or label read back, as the `&'static str` a step and a local
/// hold: one copy per distinct text, kept for the thread's life.
pub fn intern(text: &str) -> Option<&'static str> {
    NAMES.with(|names| {
        let mut names = names.borrow_mut();
        if let Some(found) = names.iter().find(|n| **n == text) {
            return Some(*found);
        }
        if names.len() >= INTERNED {
            return None;
        }
        let kept: &'static str = text.to_string().leak();
        names.push(kept);
        Some(kept)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_texts_read_back_as_written() {
        let mut w = Writer::default();
        let numbers = [0u64, 1, 127, 128, 300, u32::MAX as u64, u64::MAX];
        for n in numbers {
            w.u64(n);
        }
        for n in [0i64, -1, 1, i64::MIN, i64::MAX] {
            w.i64(n);
        }
        w.str("消息 record");
        let mut r = Reader::new(&w.bytes);
        for n in numbers {
            assert_eq!(r.u64(), Ok(n));
        }
        for n in [0i64, -1, 1, i64::MIN, i64::MAX] {
            assert_eq!(r.i64(), Ok(n));
        }
        assert_eq!(r.str(), Ok("消息 record"));
        assert_eq!(r.end(), Ok(()));
    }

    #[test]
    fn a_length_past_the_end_or_a_broken_text_is_refused() {
        let mut w = Writer::default();
        w.u64(1000);
        w.bytes.extend_from_slice(b"short");
        assert!(Reader::new(&w.bytes).str().is_err());
        assert!(Reader::new(&[2, 0xff, 0xfe]).str().is_err());
        assert!(Reader::new(&[0x80; 11]).u64().is_err());
        assert!(Reader::new(&[5]).below(5).is_err());
    }

    #[test]
    fn a_text_is_interned_once() {
        let a = intern("a.label").unwrap();
        let b = intern(&String::from("a.label")).unwrap();
        assert!(std::ptr::eq(a, b));
    }
}
