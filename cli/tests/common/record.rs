//! What the record tests share: the CLI natively and under Node, run from
//! the CLI's folder, and the machine's python3.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::SystemTime;

/// A finished run: exit code, standard output and error.
#[derive(Debug, PartialEq)]
pub(crate) struct Ran {
    pub(crate) code: i32,
    pub(crate) out: String,
    pub(crate) err: String,
}

fn ran(out: std::process::Output) -> Ran {
    Ran {
        code: out.status.code().unwrap_or(-1),
        out: String::from_utf8_lossy(&out.stdout).into_owned(),
        err: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The workspace's folder.
pub(crate) fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The native CLI on `args`, in cli/; `path`: the PATH it gets.
pub(crate) fn native(args: &[&str], path: Option<&str>) -> Ran {
    let mut command = Command::new(env!("CARGO_BIN_EXE_agent-loop-cli"));
    command.args(args).current_dir(env!("CARGO_MANIFEST_DIR"));
    if let Some(path) = path {
        command.env("PATH", path);
    }
    ran(command.output().unwrap())
}

fn newest(dir: &Path, newest_so_far: &mut SystemTime) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            newest(&path, newest_so_far);
        } else if let Ok(at) = entry.metadata().and_then(|m| m.modified()) {
            *newest_so_far = (*newest_so_far).max(at);
        }
    }
}

/// Why the Node build cannot be compared here, if it cannot: no `node`,
/// no target/node-cli, or one older than the sources it is built from.
fn node_missing() -> Option<String> {
    let cli = root().join("target/node-cli");
    let built = std::fs::metadata(cli.join("agent_loop_node_bg.wasm")).and_then(|m| m.modified());
    let Ok(built) = built else { return Some("target/node-cli is not built (scripts/build-node)".into()) };
    let mut sources = SystemTime::UNIX_EPOCH;
    for dir in ["cli/src", "node", "core/src", "src", "fixtures/i18n"] {
        newest(&root().join(dir), &mut sources);
    }
    if sources > built {
        return Some("target/node-cli is older than its sources (scripts/build-node)".into());
    }
    match Command::new("node").arg("--version").output() {
        Ok(out) if out.status.success() => None,
        _ => Some("node is not on the PATH".into()),
    }
}

/// The CLI natively, or the Node build when it can run here.
pub(crate) fn clis() -> Vec<(&'static str, Command)> {
    let mut native = Command::new(env!("CARGO_BIN_EXE_agent-loop-cli"));
    native.current_dir(env!("CARGO_MANIFEST_DIR"));
    let mut all = vec![("native", native)];
    all.extend(node_command().map(|node| ("node", node)));
    all
}

/// The Node build (`npx agent-loop-playground`) as a command run in cli/;
/// `None` (said once per test) when it cannot run here, unless
/// `ALP_NODE_CLI=required`, which fails instead.
pub(crate) fn node_command() -> Option<Command> {
    if let Some(why) = node_missing() {
        assert!(
            std::env::var("ALP_NODE_CLI").as_deref() != Ok("required"),
            "the Node CLI is required: {why}"
        );
        eprintln!("the Node CLI is not compared: {why}");
        return None;
    }
    let script = root().join("target/node-cli/agent-loop-playground.js");
    // (--no-warnings: target/node-cli has no package.json saying it is a
    // module, as the package's has; Node would say so on standard error)
    let mut command = Command::new("node");
    command.arg("--no-warnings").arg(script).current_dir(env!("CARGO_MANIFEST_DIR"));
    Some(command)
}

/// The Node build on `args`, in cli/ (see [`node_command`]).
pub(crate) fn node(args: &[&str]) -> Option<Ran> {
    Some(ran(node_command()?.args(args).output().unwrap()))
}

/// A finished run of any command, read as [`Ran`].
pub(crate) fn finished(out: std::process::Output) -> Ran {
    ran(out)
}

/// The machine's python3 version (`3.11.7`), if it has one.
pub(crate) fn python_version() -> Option<String> {
    let out =
        Command::new("python3").args(["-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"]).output();
    let out = out.ok().filter(|o| o.status.success())?;
    Some(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// `3.11` of `3.11.7`: the releases whose line events are the same.
pub(crate) fn series(version: &str) -> &str {
    version.rsplit_once('.').map_or(version, |(series, _)| series)
}

/// The CPython a pack's text says recorded it (its first run's).
pub(crate) fn recorded_by(pack: &str) -> Option<String> {
    let at = pack.find("\"python\": \"")? + "\"python\": \"".len();
    Some(pack[at..].split('"').next()?.to_string())
}
