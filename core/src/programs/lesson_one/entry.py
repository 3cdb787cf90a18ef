#@ model
# What the model reads besides the record.
QUESTION = @QUESTION@
SYSTEM = @SYSTEM@
TOOLS = @TOOLS@

# A stand-in for the SDK client: it plays this scenario's replies in order.
import copy
from types import SimpleNamespace

REPLIES = iter(@REPLIES@)


class ScriptExhausted(Exception):
    """The scenario has no reply left for this request."""


class Reply:
    """What the SDK hands back: model_dump() gives the reply as a dict."""

    def __init__(self, data):
        self.data = data

    def model_dump(self):
        return copy.deepcopy(self.data)


class Messages:
    """Stands in for client.messages: each request gets the next reply."""

    def create(self, **request):
        reply = next(REPLIES, None)
        if reply is None:
            raise ScriptExhausted()
        if "error" in reply:
            # A failure the scenario asks for, under the name it gives.
            raise type(reply["error"], (Exception,), {})()
        return Reply(reply)


client = SimpleNamespace(messages=Messages())
#@ process
# What run_main uses, with a stand-in for running main.py that plays this
# scenario's outcomes.
import subprocess as real_subprocess
import sys
from itertools import repeat

OUTPUT_LIMIT = @OUTPUT_LIMIT@

RUNS = @RUNS@


class Runs:
    """Stands in for the subprocess module: each run plays the next outcome."""

    TimeoutExpired = real_subprocess.TimeoutExpired

    def run(self, command, timeout, **options):
        run = next(RUNS, None)
        if run is None:
            raise OSError("the fixture has no more process outcomes")
        if run.get("timeout"):
            raise self.TimeoutExpired(command, timeout)
        if "os_error" in run:
            raise OSError(run["os_error"])
        return real_subprocess.CompletedProcess(
            command, run["returncode"],
            run.get("stdout", ""), run.get("stderr", ""))


subprocess = Runs()  # run_main calls this stand-in
#@ ask_claude
# The entry: one request, and what came back.
first = [{"role": "user", "content": QUESTION}]
response = ask_claude(client, "teaching-model", first)
print("stop_reason:", response.get("stop_reason"))
calls = [block for block in response.get("content") or []
         if isinstance(block, dict) and block.get("type") == "tool_use"]
print("tool_use id:", calls[0].get("id") if calls else None)
#@ run_main
# The entry: one tool request, and the result it gets.
call = @CALL@
result = run_main(call, ".", timeout=@TIMEOUT@)
print("is_error:", result["is_error"])
print(result["content"])
#@ run_loop
# The entry: the loop, with the model and the tool it may call.
ask = lambda messages: ask_claude(client, "teaching-model", messages)
execute = lambda call: run_main(call, ".", timeout=@TIMEOUT@)
outcome = run_loop(ask, execute, max_calls=@MAX_CALLS@)
print(outcome["status"], "· model calls:", outcome["calls"])
print(outcome["text"])
