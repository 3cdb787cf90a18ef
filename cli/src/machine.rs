//! What the commands need from the machine ([`Io`]): a file's kind and
//! bytes, a folder's names, a file written, standard output and error,
//! CPython. The native binary gives it `std::fs`, the Node build Node's
//! `fs`; `commands` re-exports it. And what every command reads and writes
//! through it: a fixture's text within its limit, standard output, the
//! exit codes.

use crate::python;
use std::path::{Path, PathBuf};

/// The largest fixture the CLI reads.
pub const MAX_FIXTURE_BYTES: u64 = 16 * 1024 * 1024;

/// Exit codes: success, a problem found, a usage or reading error.
pub(crate) const OK: u8 = 0;
pub(crate) const FAILED: u8 = 1;
pub(crate) const USAGE: u8 = 2;

/// What a path is.
pub enum Kind {
    /// A regular file of this many bytes.
    File(u64),
    /// A directory (its scenario files are read).
    Dir,
    /// A FIFO, a device, a socket.
    Other,
}

/// How a write to standard output went.
pub enum Written {
    /// Every byte was written.
    Ok,
    /// The reader went away (`| head`).
    Closed,
    /// Any other failure (a full disk), said as it is.
    Failed(String),
}

/// What the commands need from the machine. Errors are the machine's own
/// words (`No such file or directory (os error 2)`).
pub trait Io {
    /// What `path` is; `Err` when it cannot be looked at (missing).
    fn kind(&mut self, path: &Path) -> Result<Kind, String>;
    /// At most `max` bytes of the file (more means too large).
    fn read(&mut self, path: &Path, max: u64) -> Result<Vec<u8>, String>;
    /// The entries of a folder, as paths inside it.
    fn list(&mut self, dir: &Path) -> Result<Vec<PathBuf>, String>;
    /// Bytes for standard output (a trace comes in pieces of 64 KB).
    fn out(&mut self, bytes: &[u8]) -> Written;
    /// One line on standard error; a closed standard error is not an error.
    fn err(&mut self, line: &str);
    /// Write `bytes` as the file `path` (created or replaced).
    fn write(&mut self, path: &Path, bytes: &[u8]) -> Result<(), String>;
    /// A runner of CPython, if `python3` runs here.
    fn python(&mut self) -> Option<python::Python<'_>>;
}

/// A command's exit code, success or failure alike.
pub(crate) type Done = Result<u8, u8>;

/// Write to standard output. A reader that went away (`| head`) is no
/// error: the rest is not written, and the exit code is still the
/// command's own (a broken file is exit 1 even into `head -n1`). Any other
/// failure is said, exit 1.
pub(crate) fn write_out(io: &mut dyn Io, text: &str) -> Result<(), u8> {
    match io.out(text.as_bytes()) {
        Written::Ok | Written::Closed => Ok(()),
        Written::Failed(e) => {
            io.err(&format!("cannot write the output: {e}"));
            Err(FAILED)
        }
    }
}

/// A fixture's text: only a regular file, at most [`MAX_FIXTURE_BYTES`],
/// UTF-8 (a leading BOM is dropped).
pub fn read_fixture(io: &mut dyn Io, path: &Path) -> Result<String, String> {
    let too_large = || format!("larger than {} MB, skipped", MAX_FIXTURE_BYTES >> 20);
    match io.kind(path).map_err(|e| format!("cannot read: {e}"))? {
        Kind::File(len) if len > MAX_FIXTURE_BYTES => return Err(too_large()),
        Kind::File(_) => {}
        Kind::Dir | Kind::Other => {
            return Err("not a regular file (a directory, FIFO or device), skipped".into())
        }
    }
    let bytes = io.read(path, MAX_FIXTURE_BYTES + 1).map_err(|e| format!("cannot read: {e}"))?;
    if bytes.len() as u64 > MAX_FIXTURE_BYTES {
        return Err(too_large());
    }
    let text = String::from_utf8(bytes)
        .map_err(|e| format!("not UTF-8 text (byte {})", e.utf8_error().valid_up_to()))?;
    Ok(text.strip_prefix('\u{feff}').map(str::to_string).unwrap_or(text))
}
