from types import SimpleNamespace


class Conversation:
    def __init__(self):
        self.messages = []


def create(**request):
    return SimpleNamespace(stop_reason="end_turn", content=[SimpleNamespace(type="text", text="Hello.")])


client = SimpleNamespace(messages=SimpleNamespace(create=create))
print(ask_once("Say hello."))
