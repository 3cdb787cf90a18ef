#@ model
# 除了记录，模型还会读到这些。
QUESTION = @QUESTION@
SYSTEM = @SYSTEM@
TOOLS = @TOOLS@

# SDK 客户端的替身：按顺序给出本场景写好的回答。
import copy
from types import SimpleNamespace

REPLIES = iter(@REPLIES@)


class ScriptExhausted(Exception):
    """场景里已经没有可给这次请求的回答了。"""


class Reply:
    """SDK 返回的对象：model_dump() 把回答变成字典。"""

    def __init__(self, data):
        self.data = data

    def model_dump(self):
        return copy.deepcopy(self.data)


class Messages:
    """代替 client.messages：每次请求拿到下一个回答。"""

    def create(self, **request):
        reply = next(REPLIES, None)
        if reply is None:
            raise ScriptExhausted()
        if "error" in reply:
            # 场景要求的失败，用场景给的名字抛出。
            raise type(reply["error"], (Exception,), {})()
        return Reply(reply)


client = SimpleNamespace(messages=Messages())
#@ process
# run_main 用到的名字，以及运行 main.py 的替身：
# 按顺序给出本场景写好的运行结果。
import subprocess as real_subprocess
import sys
from itertools import repeat

OUTPUT_LIMIT = @OUTPUT_LIMIT@

RUNS = @RUNS@


class Runs:
    """代替 subprocess 模块：每次运行给出下一个结果。"""

    TimeoutExpired = real_subprocess.TimeoutExpired

    def run(self, command, timeout, **options):
        run = next(RUNS, None)
        if run is None:
            raise OSError("场景里已经没有可用的运行结果")
        if run.get("timeout"):
            raise self.TimeoutExpired(command, timeout)
        if "os_error" in run:
            raise OSError(run["os_error"])
        return real_subprocess.CompletedProcess(
            command, run["returncode"],
            run.get("stdout", ""), run.get("stderr", ""))


subprocess = Runs()  # run_main 调用的是这个替身
#@ ask_claude
# 入口：请求一次，看看拿回了什么。
first = [{"role": "user", "content": QUESTION}]
response = ask_claude(client, "teaching-model", first)
print("stop_reason:", response.get("stop_reason"))
calls = [block for block in response.get("content") or []
         if isinstance(block, dict) and block.get("type") == "tool_use"]
print("tool_use id:", calls[0].get("id") if calls else None)
#@ run_main
# 入口：一次工具请求，和它得到的结果。
call = @CALL@
result = run_main(call, ".", timeout=@TIMEOUT@)
print("is_error:", result["is_error"])
print(result["content"])
#@ run_loop
# 入口：循环本身，带上模型和它可以调用的工具。
ask = lambda messages: ask_claude(client, "teaching-model", messages)
execute = lambda call: run_main(call, ".", timeout=@TIMEOUT@)
outcome = run_loop(ask, execute, max_calls=@MAX_CALLS@)
print(outcome["status"], "· 模型调用", outcome["calls"], "次")
print(outcome["text"])
