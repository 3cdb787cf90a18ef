"""Run a lesson listing under CPython with the setup the page shows, and
print what happened as JSON: the (function, line) of every line event of
the lesson's functions (from sys.settrace), the entry's result or error,
and every line it printed.

    python3 cli/src/replay.py LISTING SETUP FUNCTION [LIMITS]
    python3 cli/src/replay.py --statements LISTING

LISTING is a program's Python listing (core/src/programs/lesson_one/runtime.py, runtime.zh.py);
SETUP is the setup and entry text for one scenario, exactly as the page
shows it (tests/python.rs and `agent-loop-cli check --listing` write it);
FUNCTION is the scenario's entry point. The setup runs in the listing's
namespace, as it would below it in one file. A line event inside a
statement that spans several lines counts as the statement's first line
(that is where the listing's marks are); the last check of a `for` loop,
the one that ends it, is no step (the recorded run has none) and is left
out.

LIMITS, when given, is JSON: {"steps": S, "chars": C, "names": true}. The run is stopped
once it has taken S line events or printed more than C characters (the
author CLI's `check --listing` gives them, so that no listing holds
CPython's memory without end); the JSON then says {"stopped": {"kind":
"steps" or "output", "limit": …}} and holds what was recorded until then.
The time a run takes is bounded from outside, by whoever runs python3.
With "names", each step also lists the names its frame holds then
(sorted), after its line.

With --statements, print the first line of every statement in each
function instead (what tests/python.rs checks the marks against; a `try:`
is no statement of its own there).

Standard library only.
"""

import ast
import contextlib
import importlib.util
import io
import json
import pathlib
import sys
import traceback

# The name the setup gives an entry's return value (`outcome` unless named here).
RETURNED = {"ask_claude": "response", "run_main": "result"}
# The trace error kind of an exception nobody caught, by its name
# (`raised` for any other; `model_error` for anything ask_claude raises).
ERRORS = {"ValueError": "value_error", "BadRequestError": "bad_request", "StopIteration": "stop_iteration"}


def lesson_functions(source):
    """The names of the functions the listing defines at its top level:
    the program's own (a generator expression inside one is not)."""
    return {node.name for node in ast.parse(source).body if isinstance(node, ast.FunctionDef)}


def statement_lines(source):
    """Map every line of every statement to the statement's first line
    (the innermost statement wins: ast.walk visits outer ones first). A
    `try:` line and an `except …:` line map to None: entering a try and
    matching a handler are part of the step that follows, so the listing
    marks the lines inside them."""
    starts = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.stmt):
            body_start = min((child.lineno for child in getattr(node, "body", [])), default=None)
            last = (body_start - 1) if body_start else node.end_lineno
            for line in range(node.lineno, last + 1):
                starts[line] = None if isinstance(node, ast.Try) else node.lineno
        if isinstance(node, ast.ExceptHandler):
            for line in range(node.lineno, node.body[0].lineno):
                starts[line] = None
    return starts


def loop_bodies(source):
    """Each `for` header line with the lines of its body."""
    bodies = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.For, ast.While)):
            bodies[node.lineno] = range(node.body[0].lineno, node.body[-1].end_lineno + 1)
    return bodies


def without_loop_exits(steps, bodies):
    """Drop a loop header's line event when its frame goes on outside the
    body: that check found nothing left and ended the loop."""
    kept = []
    for i, step in enumerate(steps):
        if step[0] == "line" and step[2] in bodies:
            following = next((s for s in steps[i + 1:] if s[3] == step[3]), None)
            if following is None or following[0] != "line" or following[2] not in bodies[step[2]]:
                continue
        kept.append(step)
    return [s[:3] + s[4:] for s in kept]


class Stop(BaseException):
    """A limit was reached; a BaseException, so that the listing's own
    `except Exception` does not take it."""


class Capped:
    """Standard output while the run lasts: at most `limit` characters,
    then `over()` (which stops the run)."""

    def __init__(self, limit, over):
        self.parts, self.chars, self.limit, self.over = [], 0, limit, over

    def write(self, text):
        if self.limit is not None and self.chars + len(text) > self.limit:
            self.over()
        self.chars += len(text)
        self.parts.append(text)
        return len(text)

    def flush(self):
        pass

    def getvalue(self):
        return "".join(self.parts)


def statements(path):
    """Per function of the listing, the first line of each statement in its body."""
    tree = ast.parse(pathlib.Path(path).read_text(encoding="utf-8"))
    out = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            lines = set()
            for inner in ast.walk(node):
                if isinstance(inner, ast.stmt) and inner is not node and not isinstance(inner, ast.Try):
                    lines.add(inner.lineno)
            out[node.name] = sorted(lines)
    return out


def main(listing, setup, function, limits=None):
    limits = json.loads(limits) if limits else {}
    max_steps = limits.get("steps")
    # (each step's local names too, when asked: what tests/python.rs
    # compares with the locals panel)
    names = (lambda frame: [sorted(frame.f_locals)]) if limits.get("names") else (lambda frame: [])
    stopped = []

    def stop(kind, limit):
        if not stopped:
            stopped.append({"kind": kind, "limit": limit})
        sys.settrace(None)
        raise Stop(kind)

    listing = pathlib.Path(listing).resolve()
    spec = importlib.util.spec_from_file_location("runtime", listing)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    source = listing.read_text(encoding="utf-8")
    starts = statement_lines(source)
    lesson = lesson_functions(source)
    steps = []

    def tracer(frame, event, arg):
        code = frame.f_code
        if code.co_filename != str(listing) or code.co_name not in lesson:
            return None
        if stopped or (max_steps is not None and len(steps) >= max_steps):
            stop("steps", max_steps)
        if event == "call":
            steps.append(["call", code.co_name, code.co_firstlineno, id(frame), *names(frame)])
        elif event == "line" and starts.get(frame.f_lineno, frame.f_lineno) is not None:
            steps.append(["line", code.co_name, starts.get(frame.f_lineno, frame.f_lineno), id(frame), *names(frame)])
        return tracer

    text = pathlib.Path(setup).read_text(encoding="utf-8")
    compiled = compile(text, str(setup), "exec")
    printed = Capped(limits.get("chars"), lambda: stop("output", limits.get("chars")))
    error, raised = None, None
    # The setup runs as the program's main module (an exception it defines
    # is `Name`, not `runtime.Name`, in a traceback).
    module.__dict__["__name__"] = "__main__"
    sys.settrace(tracer)
    try:
        with contextlib.redirect_stdout(printed):
            exec(compiled, module.__dict__)
    except Stop:
        pass
    except Exception as exception:
        raised = exception
        error = "model_error" if function == "ask_claude" else ERRORS.get(type(exception).__name__, "raised")
    finally:
        sys.settrace(None)
    if stopped:
        # (what the listing did after a limit, catching the Stop, is not its run)
        steps = without_loop_exits(steps, loop_bodies(source))
        json.dump({"steps": steps, "result": None, "error": None, "output": [], "stopped": stopped[0]},
                  sys.stdout, ensure_ascii=False)
        return
    result = None if error else module.__dict__.get(RETURNED.get(function, "outcome"))
    output = printed.getvalue().split("\n")[:-1]
    if raised is not None:
        # What Python prints last for an exception nobody catches.
        output.append(traceback.format_exception_only(type(raised), raised)[-1].rstrip("\n"))
    steps = without_loop_exits(steps, loop_bodies(source))
    json.dump({"steps": steps, "result": result, "error": error, "output": output, "stopped": None},
              sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    if sys.argv[1] == "--statements":
        json.dump(statements(sys.argv[2]), sys.stdout)
    else:
        main(*sys.argv[1:5])
