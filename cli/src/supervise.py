"""The author CLI's supervisor of one python3 run; it is not a command to
run by hand. The CLI starts python3 with a few lines (python.rs's BOOT)
that read this source from the standard input and run it:

    python3 -I -S -c BOOT MODE [ARGUMENTS...]

and writes to its standard input this source (its length in eight
digits, then its bytes), then the harness, the listing and the setup,
each as its length in bytes on a line of its own, then its bytes. This
process makes the run's private folder (alp-python-..., 0700, in TMPDIR or
/tmp, made in one step under a name never used before), writes the three
files there (harness.py, listing.py, setup.py) and runs `python3 harness.py
listing.py setup.py ARGUMENTS...` in it.
It removes that folder, and only that one, whatever way the run ends.
The folder is made after this process handles Ctrl-C: no moment leaves
it behind. (`-I`: nothing of the folder the CLI runs in is imported in
place of the standard library.) What stops this process from running
the harness at all is said on a line that starts with CANNOT, exit 1.

The run gets a process group of its own, and its standard output and
error come through this process. Whatever way the run ends, every process
left in its group is stopped, and the CLI's pipes close when the run ends,
even when a process it started has left the group and still holds its
output.

The run does not see the terminal's Ctrl-C (its group is not the
terminal's); this process does, and it stops the run's group and removes
the folder, also when the CLI has died of the same Ctrl-C. The CLI stops a
run by SIGTERM (under Node, MODE `pid`) or by closing this process's
standard input after the three files (natively, MODE `pipe`); the CLI
going away stops it too. A signal the CLI was started to ignore (a
background job's SIGINT) stays ignored.
"""

import _thread
import os
import signal

CANNOT = "cannot run python3 here: "  # (cli/src/python.rs reads it)
run = None  # the run, once started
folder = None  # the run's folder, once made
starting = False  # while it is being started
pending = None  # a signal that came while it was being started
parent = os.getppid()
cli = int(os.environ.pop("ALP_CLI_PID", "") or 0)  # the CLI says which it is
one_way_out = _thread.RLock()  # (the main thread and the watch both end here)


def cli_gone():
    """Whether the CLI has gone: this process has a new parent, or the CLI
    is no more (it may have died before this one started)."""
    if os.getppid() != parent:
        return True
    if cli:
        try:
            os.kill(cli, 0)
        except ProcessLookupError:
            return True
        except OSError:
            pass  # there, and not ours to signal
    return False


def stop_all(status):
    """Stop the run's group, remove the run's folder and exit with
    `status`."""
    with one_way_out:
        if run is not None:
            try:
                os.killpg(run.pid, signal.SIGKILL)
            except OSError:
                pass  # the group has ended already
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
        os._exit(status)


def on_signal(number, _frame):
    global pending
    if starting and run is None:
        pending = number  # acted on as soon as the run exists
    else:
        stop_all(128 + number)


# Before the other imports: from here on a Ctrl-C removes the folder.
for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    if signal.getsignal(number) != signal.SIG_IGN:
        signal.signal(number, on_signal)

import select  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402


def write_all(fd, data):
    """Pass bytes on; a CLI that no longer reads stops everything."""
    try:
        while data:
            data = data[os.write(fd, data):]
    except OSError:
        stop_all(141)


def drain(source, target):
    """What the run left in a pipe once it ended (a pipe's buffer, and no
    more: a process that left the group may go on writing)."""
    os.set_blocking(source, False)
    left = 1 << 20
    while left > 0:
        try:
            data = os.read(source, min(left, 65536))
        except BlockingIOError:
            return
        if not data:
            return
        write_all(target, data)
        left -= len(data)


def pump(pipes):
    """Pass the run's output on until the run has ended."""
    while pipes:
        ready, _, _ = select.select(list(pipes), [], [], 0.1)
        for source in ready:
            data = os.read(source, 65536)
            if data:
                write_all(pipes[source], data)
            else:
                del pipes[source]
        if pipes and run.poll() is not None:
            for source, target in pipes.items():
                drain(source, target)
            return


def watch_the_cli(mode):
    """Stop everything once the CLI closes standard input (`pipe`) or goes
    away."""
    while True:
        if mode == "pipe":
            ready, _, _ = select.select([0], [], [], 0.2)
            if ready and not os.read(0, 4096):
                stop_all(137)
        else:
            time.sleep(0.2)
        if cli_gone():
            stop_all(137)


def read_exactly(count):
    """`count` bytes of standard input; the CLI gone before, the end."""
    parts = []
    while count > 0:
        data = os.read(0, min(count, 1 << 20))
        if not data:
            stop_all(137)
        parts.append(data)
        count -= len(data)
    return b"".join(parts)


def read_files():
    """The three texts the CLI writes: each a line with its length, then
    its bytes."""
    texts = []
    for _ in range(3):
        line = b""
        while not line.endswith(b"\n"):
            data = os.read(0, 1)
            if not data or len(line) > 20:
                stop_all(137)
            line += data
        texts.append(read_exactly(int(line)))
    return texts


def make_folder():
    """A new folder only this user may enter, under a name not used
    before; the signals wait until it is known, so that one that comes
    meanwhile removes it."""
    global folder
    base = os.path.abspath(os.environ.get("TMPDIR") or "/tmp")
    blocked = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}
    for _ in range(100):
        path = os.path.join(base, "alp-python-" + os.urandom(8).hex())
        signal.pthread_sigmask(signal.SIG_BLOCK, blocked)
        try:
            os.mkdir(path, 0o700)
            folder = path
        except FileExistsError:
            continue
        except OSError as e:
            cannot(f"cannot make a private temporary folder in {base}: {e.strerror}")
        finally:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, blocked)
        return path
    cannot(f"cannot make a private temporary folder in {base}: every name tried is taken")


def cannot(why):
    """Say what keeps the harness from running, remove the folder, end."""
    try:
        sys.stderr.write(CANNOT + why + "\n")
        sys.stderr.flush()
    finally:
        stop_all(1)


def main():
    mode = sys.argv[1]
    if cli_gone():
        stop_all(137)
    texts = read_files()
    here = make_folder()
    try:
        paths = [os.path.join(here, name) for name in ("harness.py", "listing.py", "setup.py")]
        for path, text in zip(paths, texts):
            with open(path, "wb") as file:
                file.write(text)
    except OSError as e:
        cannot(f"cannot write the run's files in {here}: {e.strerror}")
    try:
        supervise(mode, paths)
    except Exception as e:  # (the folder goes whatever failed)
        cannot(f"the supervisor failed: {type(e).__name__}: {e}")


def supervise(mode, paths):
    """Run the harness in its folder and pass its output on until it ends."""
    global run, starting
    starting = True
    run = subprocess.Popen(
        [sys.executable, *paths, *sys.argv[2:]],
        cwd=folder,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    starting = False
    if pending is not None:
        stop_all(128 + pending)
    threading.Thread(target=watch_the_cli, args=(mode,), daemon=True).start()
    pump({run.stdout.fileno(): 1, run.stderr.fileno(): 2})
    status = run.wait()
    # What the run left behind is stopped, and its folder removed.
    stop_all(128 - status if status < 0 else status)


if __name__ == "__main__":
    main()
