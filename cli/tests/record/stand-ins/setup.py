# Stand-ins for the SDK's reply objects, the ways an author writes them:
# a SimpleNamespace, a dataclass, a namedtuple, and a class of their own
# with neither model_dump() nor fields the recorder can read; and blocks
# that hold themselves or the whole conversation.
from collections import namedtuple
from dataclasses import dataclass, field
from types import SimpleNamespace

TOOLS = [{"name": "run_main", "description": "Run main.py.", "input_schema": {"type": "object", "properties": {}}}]


@dataclass
class TextBlock:
    type: str
    text: str


@dataclass
class CachedBlock:
    type: str
    text: str
    cache: str = field(init=False)


Named = namedtuple("Named", "type text")


@dataclass
class Loaded:
    type: str
    text: str = ""

    def __getattribute__(self, name):
        if name == "text":
            raise NotImplementedError("not loaded")
        return object.__getattribute__(self, name)


class Tag:
    pass


class Opaque:
    def __init__(self, text):
        self._text = text

    @property
    def type(self):
        return "text"

    @property
    def text(self):
        return self._text


class Messages:
    def __init__(self):
        self.calls = 0

    def create(self, **request):
        self.calls += 1
        if self.calls == 1:
            call = SimpleNamespace(type="tool_use", id="call_1", name="run_main", input={})
            return SimpleNamespace(stop_reason="tool_use", content=[call])
        if SCENARIO == "opaque":
            return SimpleNamespace(stop_reason="end_turn", content=[Opaque("It printed ok.")])
        if SCENARIO == "unset":
            return SimpleNamespace(stop_reason="end_turn", content=[CachedBlock(type="text", text="It printed ok.")])
        if SCENARIO == "named":
            return SimpleNamespace(stop_reason="end_turn", content=[Named(type="text", text="It printed ok.")])
        if SCENARIO == "raising":
            return SimpleNamespace(stop_reason="end_turn", content=[Loaded(type="text")])
        if SCENARIO == "tags":
            return SimpleNamespace(stop_reason="end_turn", content=[{"type": "text", "text": "ok", "tags": {Tag()}}])
        if SCENARIO == "cycles":
            block = SimpleNamespace(type="text", text="It printed ok.", history=request["messages"])
            block.me = block
            return SimpleNamespace(stop_reason="end_turn", content=[block, block])
        return SimpleNamespace(stop_reason="end_turn", content=[TextBlock(type="text", text="It printed ok.")])


def run_main():
    return "ok"


client = SimpleNamespace(messages=Messages())
print(agent_loop("Run main.py and report."))
