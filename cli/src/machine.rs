//! What the commands need from the machine ([`Io`]): a file's kind and
//! bytes, a folder's names, a file written, standard output and error,
//! CPython. The native binary gives it `std::fs`, the Node build Node's
//! `fs`; `commands` re-exports it.

use crate::python;
use std::path::{Path, PathBuf};

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
