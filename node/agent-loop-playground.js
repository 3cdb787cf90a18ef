#!/usr/bin/env node
// The author CLI without Rust: `npx agent-loop-playground check|trace|setup|import|record …`.
// The commands are the native CLI's own (agent-loop-cli, compiled to
// WebAssembly: agent_loop_node.js and its .wasm beside this file); this
// script only lends them the machine — files, standard output and error,
// python3 for `check --listing` and `record`. Every function here answers or throws a
// plain Error, which the module reads as the command's error text.
import { readFileSync, statSync, readdirSync, openSync, readSync, closeSync, writeSync } from "node:fs";
import { writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { initSync, run } from "./agent_loop_node.js";

// The words of the native CLI for the errors a file system gives most
// (Rust's `No such file or directory (os error 2)`), so both say the same.
const OS_WORDS = {
  ENOENT: [2, "No such file or directory"],
  EACCES: [13, "Permission denied"],
  ENOTDIR: [20, "Not a directory"],
  EISDIR: [21, "Is a directory"],
  ELOOP: [40, "Too many levels of symbolic links"],
  ENAMETOOLONG: [36, "File name too long"],
  ENOSPC: [28, "No space left on device"],
  EIO: [5, "Input/output error"],
  EBADF: [9, "Bad file descriptor"],
  EPERM: [1, "Operation not permitted"],
  EMFILE: [24, "Too many open files"],
};

function osError(e) {
  const words = OS_WORDS[e && e.code];
  return new Error(words ? `${words[1]} (os error ${words[0]})` : String((e && e.message) || e));
}

function machine(f) {
  try {
    return f();
  } catch (error) {
    throw osError(error);
  }
}

// Write all of `data` (text, or bytes the module lends for this call) to a
// file descriptor; a pipe that is full for a moment is waited for, one
// whose reader went away is "closed".
function writeAll(fd, data) {
  let bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
  while (bytes.length > 0) {
    try {
      bytes = bytes.subarray(writeSync(fd, bytes));
    } catch (e) {
      if (e.code === "EAGAIN") {
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
        continue;
      }
      if (e.code === "EPIPE") return "closed";
      return osError(e).message;
    }
  }
  return "";
}

const io = {
  kind(path) {
    const meta = machine(() => statSync(path));
    return meta.isFile() ? meta.size : meta.isDirectory() ? -1 : -2;
  },
  read(path, max) {
    return machine(() => {
      const fd = openSync(path, "r");
      try {
        const buffer = Buffer.alloc(Math.min(max, statSync(path).size + 1));
        let got = 0;
        for (let n; got < buffer.length && (n = readSync(fd, buffer, got, buffer.length - got, null)) > 0; ) got += n;
        return new Uint8Array(buffer.buffer, buffer.byteOffset, got);
      } finally {
        closeSync(fd);
      }
    });
  },
  list(dir) {
    return machine(() => readdirSync(dir));
  },
  out(bytes) {
    return writeAll(1, bytes);
  },
  err(line) {
    writeAll(2, line + "\n");
  },
  write(path, bytes) {
    machine(() => writeFileSync(path, bytes));
  },
  // What `python3 --version` wrote, once it exited 0 within `seconds` and
  // `bytes` (cli/src/python.rs's PROBE); else null.
  hasPython(seconds, bytes) {
    const probe = spawnSync("python3", ["--version"], { stdio: ["ignore", "pipe", "ignore"], timeout: Math.ceil(seconds * 1000), killSignal: "SIGKILL", maxBuffer: bytes });
    return probe.error || probe.status !== 0 || !probe.stdout ? null : new Uint8Array(probe.stdout);
  },
  // `python3 -I -S -c <boot> pid <arguments…>`, the supervisor, the harness,
  // the listing and the setup on its standard input (`files`; `boot` reads
  // and runs the supervisor, cli/src/python.rs): the supervisor makes a
  // private folder for them (0700, in one step), runs the harness in it and
  // removes it after, also when it fails, is stopped or on Ctrl-C; hash
  // randomisation off, as the native CLI runs it. Stopped after `seconds`,
  // or when it writes more than `bytes` to standard output or error
  // (`stopped` says which), as the native CLI stops it: by SIGTERM, on which
  // the supervisor stops every process the run started (its process group)
  // before it exits.
  python(boot, files, args, seconds, bytes) {
    const env = { ...process.env, ALP_CLI_PID: String(process.pid), PYTHONHASHSEED: "0", PYTHONDONTWRITEBYTECODE: "1", PYTHONIOENCODING: "utf-8" };
    const done = spawnSync("python3", ["-I", "-S", "-c", boot, "pid", ...args], {
      env,
      input: files,
      stdio: ["pipe", "pipe", "pipe"],
      timeout: Math.ceil(seconds * 1000),
      killSignal: "SIGTERM",
      maxBuffer: bytes,
    });
    const code = done.error && done.error.code;
    const stopped = code === "ETIMEDOUT" ? "time" : code === "ENOBUFS" ? "output" : "";
    // (EPIPE: python3 ended before it read all its files; what it said tells why)
    if (done.error && !stopped && code !== "EPIPE") throw new Error(`cannot run python3: ${done.error.message}`);
    return {
      success: !stopped && done.status === 0,
      stdout: stopped || !done.stdout ? new Uint8Array(0) : new Uint8Array(done.stdout),
      stderr: stopped || !done.stderr ? "" : done.stderr.toString("utf8"),
      stopped,
    };
  },
};

let code;
try {
  initSync({ module: readFileSync(new URL("./agent_loop_node_bg.wasm", import.meta.url)) });
  code = run("agent-loop-playground", process.argv.slice(2), io);
} catch (e) {
  writeAll(2, `agent-loop-playground: internal error: ${(e && e.message) || e}\n`);
  code = 70;
}
process.exitCode = code;
