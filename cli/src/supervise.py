"""The author CLI's supervisor of one python3 run. The CLI starts it in
the private folder it made for the run (alp-python-..., which holds this
file); it is not a command to run by hand.

    python3 -S supervise.py HARNESS LISTING SETUP [ARGUMENTS...]

The run, `python3 HARNESS LISTING SETUP ARGUMENTS...`, gets a process
group of its own, and its standard output and error come through this
process. Whatever way the run ends, every process left in its group is
stopped, and the CLI's pipes close when the run ends, even when a process
it started has left the group and still holds its output.

The run does not see the terminal's Ctrl-C (its group is not the
terminal's); this process does, and it stops the run's group and removes
the folder, also when the CLI has died of the same Ctrl-C. The CLI stops a
run by SIGTERM (under Node) or by closing this process's standard input
(natively); the CLI going away stops it too. A signal the CLI was started
to ignore (a background job's SIGINT) stays ignored.
"""

import _thread
import os
import signal

run = None  # the run, once started
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


def stop_all(status, remove=True):
    """Stop the run's group; remove the run's folder (`remove`, or when the
    CLI has gone and so cannot); exit with `status`."""
    with one_way_out:
        if run is not None:
            try:
                os.killpg(run.pid, signal.SIGKILL)
            except OSError:
                pass  # the group has ended already
        folder = os.path.dirname(os.path.abspath(__file__))
        # (only the folder the CLI made for this run: it holds this file)
        if (remove or cli_gone()) and os.path.basename(folder).startswith("alp-python-"):
            try:
                own = os.path.samefile(folder, os.getcwd())
            except OSError:
                own = False
            if own:
                import shutil

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
import stat  # noqa: E402
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


def watch_the_cli():
    """Stop everything once the CLI closes standard input or goes away."""
    is_pipe = stat.S_ISFIFO(os.fstat(0).st_mode)
    while True:
        if is_pipe:
            ready, _, _ = select.select([0], [], [], 0.2)
            if ready and not os.read(0, 4096):
                stop_all(137)
        else:
            time.sleep(0.2)
        if cli_gone():
            stop_all(137)


def main():
    global run, starting
    if cli_gone():
        stop_all(137)
    starting = True
    run = subprocess.Popen(
        [sys.executable, *sys.argv[1:]],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    starting = False
    if pending is not None:
        stop_all(128 + pending)
    threading.Thread(target=watch_the_cli, daemon=True).start()
    pump({run.stdout.fileno(): 1, run.stderr.fileno(): 2})
    status = run.wait()
    # What the run left behind is stopped; the CLI removes the folder.
    stop_all(128 - status if status < 0 else status, remove=False)


if __name__ == "__main__":
    main()
