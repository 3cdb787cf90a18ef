#@ model
# What the model reads besides the record.
QUESTION = @QUESTION@
MODEL = "teaching-model"
SYSTEM = @SYSTEM@
TOOLS = @TOOLS@
MAX_ITERS = @MAX_ITERS@  # a safety net only

# A stand-in for the SDK client. Like the Messages API, it first checks
# the request and refuses a broken one with a 400; then it plays this
# scenario's replies in order.
import re
from types import SimpleNamespace

REPLIES = iter(@REPLIES@)
NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")


class BadRequestError(Exception):
    """What the SDK raises when the API answers 400 invalid_request_error."""

    def __init__(self, message):
        error = {"type": "invalid_request_error", "message": message}
        super().__init__(f"Error code: 400 - {{'type': 'error', 'error': {error}}}")


class ScriptExhausted(Exception):
    """The scenario has no reply left for this request."""


class Reply(dict):
    """A reply read the way the SDK's is: response.stop_reason, block.type."""

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
    """What the API says of a request it refuses; None when it is fine."""
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
    """Stands in for client.messages: checks, then the next reply."""

    def create(self, **request):
        refused = refusal(**request)
        if refused is not None:
            raise BadRequestError(refused)
        reply = next(REPLIES, None)
        if reply is None:
            raise ScriptExhausted()
        if "error" in reply:
            # A failure the scenario asks for, under the name it gives.
            raise type(reply["error"], (Exception,), {})()
        return as_reply(reply)


client = SimpleNamespace(messages=Messages())
#@ tools
# Stand-ins for the application's tools: each plays this scenario's
# outcomes in order (a value it returns, or an exception it raises).
RESULTS = @TOOL_RESULTS@


def scripted(name):
    outcomes = iter(RESULTS[name])

    def tool(**tool_input):
        outcome = next(outcomes, None)
        if outcome is None:
            raise ScriptExhausted(f"no more results for {name}")
        if "raises" in outcome:
            error = type(outcome["raises"], (Exception,), {})
            raise error(str(outcome.get("message", "")))
        return outcome.get("returns")
    return tool


TOOL_FUNCTIONS = {name: scripted(name) for name in RESULTS}
#@ entry
# The entry: the loop on the scenario's question, and its final text.
outcome = @FUNCTION@(QUESTION)
print(outcome["text"])
