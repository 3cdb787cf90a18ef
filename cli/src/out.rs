//! JSON on standard output: counted first against a limit, so a value
//! too large is said and none of it written (never half a JSON), then
//! written in pieces of 64 KB (never one string), stopping when the
//! reader goes away.

use crate::machine::{Io, Written};
use crate::shown;
use serde::Serialize;
use std::ffi::OsString;
use std::io::Write;

/// Megabytes `trace` writes at most unless `--max-output` says.
pub const MAX_TRACE_MB: u64 = 64;

/// Why JSON was not all written.
#[derive(Debug)]
pub enum Failure {
    /// It is more than the limit: nothing was written.
    TooLarge,
    /// The reader went away (`| head`): the rest was not written.
    Closed,
    /// Standard output failed (a full disk), said as it is.
    Failed(String),
    /// The value could not be written as JSON.
    Serialise(String),
}

/// The value of `--max-output`: a whole number of MB above 0; `Err` says
/// why not.
pub fn megabytes(value: &OsString) -> Result<u64, String> {
    let mb = value.to_str().and_then(|s| s.parse::<u64>().ok()).filter(|mb| (1..1 << 40).contains(mb));
    mb.ok_or_else(|| {
        format!("--max-output: {} is not a whole number of MB above 0", shown::text(&value.to_string_lossy()))
    })
}

/// Bytes counted, not kept; more than `max` stops the writer.
struct Counted {
    bytes: u64,
    max: u64,
}

impl Write for Counted {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.bytes += bytes.len() as u64;
        match self.bytes > self.max {
            true => Err(std::io::ErrorKind::FileTooLarge.into()),
            false => Ok(bytes.len()),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Standard output as a `std::io::Write` in pieces of 64 KB, so a large
/// value is never one string, and a reader that goes away stops it.
struct Out<'a> {
    io: &'a mut dyn Io,
    buffer: Vec<u8>,
    /// How writing ended, when it did.
    ended: Option<Written>,
}

impl Write for Out<'_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.buffer.extend_from_slice(bytes);
        if self.buffer.len() >= 1 << 16 {
            self.flush()?;
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if self.ended.is_some() {
            return Err(std::io::ErrorKind::BrokenPipe.into());
        }
        match self.io.out(&self.buffer) {
            Written::Ok => {
                self.buffer.clear();
                Ok(())
            }
            other => {
                self.ended = Some(other);
                Err(std::io::ErrorKind::BrokenPipe.into())
            }
        }
    }
}

/// Write `value` as pretty JSON and a newline to standard output, if it
/// is at most `max` bytes: it is serialised twice, first only counted.
pub fn json(io: &mut dyn Io, value: &impl Serialize, max: u64) -> Result<(), Failure> {
    let mut counted = Counted { bytes: 1, max };
    match serde_json::to_writer_pretty(&mut counted, value) {
        Err(_) if counted.bytes > max => return Err(Failure::TooLarge),
        Err(e) => return Err(Failure::Serialise(e.to_string())),
        Ok(()) if counted.bytes > max => return Err(Failure::TooLarge),
        Ok(()) => {}
    }
    let mut out = Out { io, buffer: Vec::with_capacity(1 << 16), ended: None };
    let written = serde_json::to_writer_pretty(&mut out, value)
        .map_err(std::io::Error::from)
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush());
    match (written, out.ended) {
        (Ok(()), _) => Ok(()),
        (Err(_), Some(Written::Closed)) => Err(Failure::Closed),
        (Err(_), Some(Written::Failed(e))) => Err(Failure::Failed(e)),
        (Err(e), _) => Err(Failure::Serialise(e.to_string())),
    }
}
