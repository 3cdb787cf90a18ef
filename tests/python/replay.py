"""Run core/src/runtime.py under CPython on one scenario fixture, with teaching
doubles for the model and the process, and print what happened as JSON:
the (function, line) of every line event of the three lesson functions
(from sys.settrace), the entry point's result or error, and what it emitted.

    python3 tests/python/replay.py fixtures/scenarios/report.json

Standard library only. tests/python.rs compares the output with the Rust
trace of the same scenario.
"""

import copy
import importlib.util
import json
import pathlib
import subprocess
import sys
import types

HERE = pathlib.Path(__file__).resolve().parent
RUNTIME = HERE.parent.parent / "core" / "src" / "runtime.py"
LESSON = ("ask_claude", "run_main", "run_loop")
MODEL = "teaching-model"


def load_runtime():
    spec = importlib.util.spec_from_file_location("runtime", RUNTIME)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Response:
    """What the SDK returns: an object whose model_dump() is the reply."""

    def __init__(self, reply):
        self.reply = reply

    def model_dump(self, **options):
        return copy.deepcopy(self.reply)


class Client:
    """A client whose messages.create replays the fixture's model replies."""

    def __init__(self, replies):
        self.replies = list(replies)
        self.messages = self

    def create(self, **request):
        if not self.replies:
            raise type("ScriptExhausted", (Exception,), {})("the fixture has no more model replies")
        reply = self.replies.pop(0)
        if isinstance(reply, dict) and isinstance(reply.get("error"), str):
            name = reply["error"]
            raise type(name, (Exception,), {})(f"{name} (scripted by the fixture)")
        return Response(reply)


def process_double(script):
    """A stand-in for the subprocess module, replaying process outcomes."""
    runs = script if isinstance(script, list) else None

    def run(command, **options):
        if runs is not None:
            if not runs:
                raise OSError("the fixture has no more process outcomes")
            outcome = runs.pop(0)
        else:
            outcome = script
        if outcome.get("timeout") is True:
            raise subprocess.TimeoutExpired(command, options.get("timeout"))
        if "os_error" in outcome:
            raise OSError(outcome["os_error"])
        return subprocess.CompletedProcess(
            command, outcome["returncode"], outcome.get("stdout", ""), outcome.get("stderr", "")
        )

    return types.SimpleNamespace(run=run, TimeoutExpired=subprocess.TimeoutExpired)


def main(path):
    fixture = json.loads(pathlib.Path(path).read_text(encoding="utf-8-sig"))
    runtime = load_runtime()
    runtime.subprocess = process_double(copy.deepcopy(fixture.get("process", [])))
    # The lesson's texts in the learner's language, swapped in the way a
    # demo swaps module-level names (the test passes them with the fixture).
    if "question" in fixture:
        runtime.QUESTION = fixture["question"]
    if "system" in fixture:
        runtime.SYSTEM = fixture["system"]
    if "tool_description" in fixture:
        runtime.TOOLS = [dict(runtime.TOOLS[0], description=fixture["tool_description"])]
    client = Client(copy.deepcopy(fixture.get("model", [])))
    timeout = fixture.get("timeout_s", 3)
    if isinstance(timeout, float) and timeout.is_integer():
        timeout = int(timeout)
    output = []
    steps = []

    def tracer(frame, event, arg):
        code = frame.f_code
        if code.co_filename != str(RUNTIME) or code.co_name not in LESSON:
            return None
        if event == "call":
            steps.append(["call", code.co_name, code.co_firstlineno])
        elif event == "line":
            steps.append(["line", code.co_name, frame.f_lineno])
        return tracer

    function = fixture["function"]
    result, error = None, None
    sys.settrace(tracer)
    try:
        if function == "ask_claude":
            result = runtime.ask_claude(client, MODEL, [{"role": "user", "content": runtime.QUESTION}])
        elif function == "run_main":
            call = fixture.get("call", {"type": "tool_use", "id": "call_1", "name": "run_main", "input": {}})
            result = runtime.run_main(call, ".", timeout)
        else:
            ask = lambda messages: runtime.ask_claude(client, MODEL, messages)
            execute = lambda call: runtime.run_main(call, ".", timeout)
            result = runtime.run_loop(ask, execute, fixture.get("max_calls", 4), emit=output.append)
    except ValueError:
        error = "value_error"
    except Exception as raised:
        error = "model_error" if function == "ask_claude" else type(raised).__name__
    finally:
        sys.settrace(None)
    json.dump({"steps": steps, "result": result, "error": error, "output": output}, sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    main(sys.argv[1])
