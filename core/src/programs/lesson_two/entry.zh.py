#@ model
# 除了记录，模型还会读到的内容。
QUESTION = @QUESTION@
MODEL = "teaching-model"
SYSTEM = @SYSTEM@
TOOLS = @TOOLS@
MAX_ITERS = @MAX_ITERS@  # 只是安全网

# SDK 客户端的替身。它像 Messages API 一样先检查请求，
# 不合规的请求以 400 拒绝；合规的，按顺序播放这个场景写好的回复。
import re
from types import SimpleNamespace

REPLIES = iter(@REPLIES@)
NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")


class BadRequestError(Exception):
    """API 回答 400 invalid_request_error 时，SDK 抛出的异常。"""

    def __init__(self, message):
        error = {"type": "invalid_request_error", "message": message}
        super().__init__(f"Error code: 400 - {{'type': 'error', 'error': {error}}}")


class ScriptExhausted(Exception):
    """场景里已经没有回复可以回答这次请求了。"""


class Reply(dict):
    """像 SDK 的回复那样读取：response.stop_reason、block.type。"""

    def __getattr__(self, name):
        return self.get(name)


def as_reply(value):
    if isinstance(value, dict):
        return Reply({key: as_reply(item) for key, item in value.items()})
    if isinstance(value, list):
        return [as_reply(item) for item in value]
    return value


def blocks_of(message):
    content = message.get("content")
    return content if isinstance(content, list) else []


def ids_of(blocks, kind, key):
    return [b.get(key) for b in blocks if b.get("type") == kind]


def refusal(model, max_tokens, messages, tools=(), **rest):
    """API 拒绝请求时给出的说明；请求没问题时为 None。"""
    if not model:
        return "model: Field required"
    if max_tokens < 1:
        return "max_tokens: Input should be greater than or equal to 1"
    if not messages:
        return "messages: at least one message is required"
    for i, tool in enumerate(tools):
        name = tool.get("name")
        if not (isinstance(name, str) and NAME.fullmatch(name)):
            return (f"tools.{i}.name: String should match pattern "
                    "'^[a-zA-Z0-9_-]{1,64}$'")
        if not isinstance(tool.get("input_schema"), dict):
            return f"tools.{i}.input_schema: Field required"
        if any(t.get("name") == name for t in tools[:i]):
            return "tools: Tool names must be unique."
    last = len(messages) - 1
    for i, message in enumerate(messages):
        role = message.get("role")
        if role not in ("user", "assistant"):
            return f"messages.{i}.role: Input should be 'user' or 'assistant'"
        if i == 0 and role != "user":
            return 'messages: first message must use the "user" role'
        if i > 0 and messages[i - 1].get("role") == role:
            return ('messages: roles must alternate between "user" and '
                    f'"assistant", but found multiple "{role}" roles in a row')
        if not message.get("content") and not (i == last and role == "assistant"):
            return (f"messages.{i}: all messages must have non-empty content "
                    "except for the optional final assistant message")
    blocks = [blocks_of(m) for m in messages]
    kinds = {b.get("type") for bs in blocks for b in bs}
    if not tools and kinds & {"tool_use", "tool_result"}:
        return ("Requests which include `tool_use` or `tool_result` blocks "
                "must define tools.")
    for i, message in enumerate(messages):
        for j, block in enumerate(blocks[i]):
            for field in ("id", "name"):
                if block.get("type") == "tool_use" and not isinstance(
                        block.get(field), str):
                    return f"messages.{i}.content.{j}.tool_use.{field}: Field required"
        asked = []
        if i > 0 and messages[i - 1].get("role") == "assistant":
            asked = ids_of(blocks[i - 1], "tool_use", "id")
        for j, id in enumerate(ids_of(blocks[i], "tool_result", "tool_use_id")):
            if id not in asked:
                return (f"messages.{i}.content.{j}: unexpected `tool_use_id` found "
                        f"in `tool_result` blocks: {id}. Each `tool_result` block "
                        "must have a corresponding `tool_use` block in the "
                        "previous message.")
        if i < last and message.get("role") == "assistant":
            answered = ids_of(blocks[i + 1], "tool_result", "tool_use_id")
            missing = [id for id in ids_of(blocks[i], "tool_use", "id")
                       if id not in answered]
            if missing:
                return (f"messages.{i}: `tool_use` ids were found without "
                        "`tool_result` blocks immediately after: "
                        f"{', '.join(missing)}. Each `tool_use` block must have "
                        "a corresponding `tool_result` block in the next message.")
    return None


class Messages:
    """代替 client.messages：先检查，再给出下一条回复。"""

    def create(self, **request):
        refused = refusal(**request)
        if refused is not None:
            raise BadRequestError(refused)
        reply = next(REPLIES, None)
        if reply is None:
            raise ScriptExhausted()
        if "error" in reply:
            # 场景要求的失败，用它给出的名字。
            raise type(reply["error"], (Exception,), {})()
        return as_reply(reply)


client = SimpleNamespace(messages=Messages())
#@ tools
# 应用里工具的替身：每个都按顺序播放这个场景写好的结果
# （要么返回一个值，要么抛出一个异常）。
RESULTS = @TOOL_RESULTS@


def scripted(name):
    outcomes = iter(RESULTS[name])

    def tool(**tool_input):
        outcome = next(outcomes, None)
        if outcome is None:
            raise ScriptExhausted(f"{name} 没有更多结果了")
        if "raises" in outcome:
            error = type(outcome["raises"], (Exception,), {})
            raise error(str(outcome.get("message", "")))
        return outcome.get("returns")
    return tool


TOOL_FUNCTIONS = {name: scripted(name) for name in RESULTS}
#@ entry
# 入口：用场景的问题运行循环，打印最终文字。
outcome = @FUNCTION@(QUESTION)
print(outcome["text"])
