"""Pyodide side of the bench's comparison: run one scenario through
tests/python/replay.py's own main() (its teaching doubles for the model and
the process, and its sys.settrace tracer over the lesson's three functions)
and return the JSON it prints.

replay.py is imported as is: it imports subprocess only for the
CompletedProcess and TimeoutExpired classes and replaces runtime.subprocess
with its double before anything runs, so no process is ever started (Pyodide
cannot start one). RUNTIME resolves to /alp/core/src/runtime.py because replay.py
sits at /alp/tests/python/ in Pyodide's file system, as in the repository.
"""

import contextlib
import io

import replay


def run(path):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        replay.main(path)
    return out.getvalue()
