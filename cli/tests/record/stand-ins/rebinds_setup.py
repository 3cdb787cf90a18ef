from types import SimpleNamespace


def create(**request):
    said = SimpleNamespace(type="text", text="Hello.", history=request["messages"])
    return SimpleNamespace(stop_reason="end_turn", content=[said])


client = SimpleNamespace(messages=SimpleNamespace(create=create))
print(ask_twice("Say hello."))
