"""Runs one python3 for the CLI and answers for every process it starts.

    python3 supervise.py HARNESS LISTING SETUP [ARGUMENTS...]

The CLI starts this, in the run's private folder (its working directory),
and it starts `python3 HARNESS LISTING SETUP ARGUMENTS...` there in a
process group of its own. Whatever way the run ends, every process in
that group goes with it: a listing that forks a `sleep` and is stopped at
the time limit leaves nothing running.

Being in a group of its own, the run does not see the terminal's Ctrl-C.
This process does (it stays in the CLI's group), and it stops the run's
group and removes the folder, also when the CLI died of the same Ctrl-C
before it could. The CLI stops a run by SIGTERM (under Node) or by closing
this process's standard input (natively); either, and the CLI going away,
stop the group too. Standard output and error are the run's own: this
process writes nothing.
"""

import os
import select
import shutil
import signal
import stat
import subprocess
import sys
import threading
import time

run = None


def stop_all(status):
    """Stop the run's group, remove the folder, exit with `status`."""
    if run is not None:
        try:
            os.killpg(run.pid, signal.SIGKILL)
        except OSError:
            pass  # the group has ended already
    shutil.rmtree(os.getcwd(), ignore_errors=True)
    os._exit(status)


def on_signal(number, _frame):
    stop_all(128 + number)


def watch_the_cli(parent):
    """Stop everything once the CLI closes standard input or goes away."""
    is_pipe = stat.S_ISFIFO(os.fstat(0).st_mode)
    while True:
        if is_pipe:
            ready, _, _ = select.select([0], [], [], 0.2)
            if ready and not os.read(0, 4096):
                stop_all(137)
        else:
            time.sleep(0.2)
        if os.getppid() != parent:
            stop_all(137)


def main():
    global run
    for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, on_signal)
    parent = os.getppid()
    run = subprocess.Popen(
        [sys.executable, *sys.argv[1:]], stdin=subprocess.DEVNULL, start_new_session=True
    )
    threading.Thread(target=watch_the_cli, args=(parent,), daemon=True).start()
    status = run.wait()
    try:
        os.killpg(run.pid, signal.SIGKILL)  # what the run left behind
    except OSError:
        pass
    sys.exit(128 - status if status < 0 else status)


if __name__ == "__main__":
    main()
