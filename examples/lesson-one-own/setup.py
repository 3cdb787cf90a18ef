# 准备与入口：本课的问题、系统提示和工具说明，SDK 客户端与 subprocess 的
# 教学替身（不发 API 请求，也不启动 main.py），最后是调用入口。
# 录制器在运行前把场景名放进 SCENARIO。
import json
from types import SimpleNamespace

QUESTION = "运行 main.py，只报告结果。"
SYSTEM = "照用户的要求做。要运行 main.py 就调用 run_main；拿到结果后如实报告，不改任何文件。"
TOOLS = [{
    "name": "run_main",
    "description": "运行工作目录中的 main.py，返回退出码和它的输出。",
    "input_schema": {"type": "object", "properties": {}, "additionalProperties": False},
}]
MAX_CALLS = {"limit": 2}.get(SCENARIO, 4)
sys = SimpleNamespace(executable="python")


class Reply:
    """SDK 返回的对象：model_dump() 把回复变成字典。"""

    def __init__(self, data):
        self.data = data

    def model_dump(self, **options):
        return json.loads(json.dumps(self.data))


class ConnectionLost(Exception):
    """网络断开时 SDK 抛出的那类异常。"""


class Messages:
    """client.messages 的替身：按场景给出回复。"""

    def __init__(self):
        self.calls = 0

    def create(self, **request):
        self.calls += 1
        if SCENARIO == "model-error":
            raise ConnectionLost()
        if SCENARIO == "truncated":
            return Reply({"stop_reason": "max_tokens", "content": []})
        if SCENARIO == "limit" or len(request["messages"]) == 1:
            return Reply({"stop_reason": "tool_use", "content": [{
                "type": "tool_use", "id": f"call_{self.calls}", "name": "run_main", "input": {},
            }]})
        last = request["messages"][-1]["content"][0]["content"]
        words = "main.py 运行失败：除以零。" if "ZeroDivisionError" in last else last
        return Reply({"stop_reason": "end_turn", "content": [{"type": "text", "text": words}]})


class TimeoutExpired(Exception):
    pass


class Runs:
    """subprocess 的替身：按场景给出 main.py 的运行结果。"""

    TimeoutExpired = TimeoutExpired

    def run(self, command, **options):
        if SCENARIO == "timeout":
            raise TimeoutExpired(command, options["timeout"])
        ok = SCENARIO == "success"
        return SimpleNamespace(
            returncode=0 if ok else 1,
            stdout="ok\n" if ok else "",
            stderr="" if ok else "ZeroDivisionError: division by zero\n",
        )


client = SimpleNamespace(messages=Messages())
subprocess = Runs()

# 调用入口
outcome = run_loop(
    lambda messages: ask_claude(client, "teaching-model", messages),
    lambda call: run_main(call, ".", timeout=3),
    max_calls=MAX_CALLS,
)
print(outcome["status"], "· 模型调用", outcome["calls"], "次 · 记录", len(outcome["messages"]), "条")
print(outcome["text"])
