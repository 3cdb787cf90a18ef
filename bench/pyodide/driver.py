"""Pyodide side of the bench's comparison: run the lesson's listing and the
report scenario's setup through cli/src/replay.py's own main() (its
sys.settrace tracer over the lesson's three functions; the setup's
stand-ins for the SDK client and for subprocess, so no process is ever
started: Pyodide cannot start one) and return the JSON it prints.
"""

import contextlib
import io

import replay


def run(listing, setup, function):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        replay.main(listing, setup, function)
    return out.getvalue()
