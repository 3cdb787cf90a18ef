"""A small program with what authors write: a class, a generator, a
comprehension, keyword-only arguments, try/except/else/finally, a nested
function, f-strings; and a loop that forgets its tool requests, so that
the API refuses its second request."""
import anthropic


class Ledger:
    """Notes kept beside the record."""

    def __init__(self):
        self.lines = []

    def add(self, text):
        self.lines.append(text)
        return len(self.lines)


def numbered(items):
    for n, item in enumerate(items, start=1):  #| gen.next
        yield f"{n}. {item}"  #| gen.yield


def weather_loop(question, *, max_calls=3, ledger=None):
    messages = [{"role": "user", "content": question}]  #| loop.start
    ledger = ledger or Ledger()

    def note(text):
        return ledger.add(text)  #| loop.note

    for calls in range(1, max_calls + 1):
        try:
            response = client.messages.create(  #| loop.ask
                model=MODEL, max_tokens=256, system=SYSTEM, tools=TOOLS, messages=messages,
            )
        except anthropic.BadRequestError as error:
            note(f"refused: {error.status_code}")  #| loop.refused
            return {"status": "bad_request", "messages": messages, "notes": ledger.lines}
        else:
            messages.append({"role": "assistant", "content": response.content})  #| loop.save_response
        finally:
            note(f"call {calls}")  #| loop.count
        if response.stop_reason != "tool_use":
            return {"status": "answered", "messages": messages, "notes": list(numbered(ledger.lines))}
        results = [
            {"type": "tool_result", "tool_use_id": block.id,
             "content": str(TOOL_FUNCTIONS[block.name](**block.input))}
            for block in response.content if block.type == "tool_use"
        ]
        messages.append({"role": "user", "content": results})  #| loop.save_results
    return {"status": "call_limit", "messages": messages, "notes": ledger.lines}


def forgetful_loop(question, max_calls=3):
    messages = [{"role": "user", "content": question}]
    for calls in range(max_calls):
        try:
            response = client.messages.create(
                model=MODEL, max_tokens=256, system=SYSTEM, tools=TOOLS, messages=messages,
            )
        except anthropic.BadRequestError as error:
            return {"status": "bad_request", "messages": messages, "error": str(error)}
        kept = [block for block in response.content if block.type == "text"]
        messages.append({"role": "assistant", "content": kept})
        if response.stop_reason != "tool_use":
            return {"status": "answered", "messages": messages}
        results = [{"type": "tool_result", "tool_use_id": b.id, "content": "18 C"}
                   for b in response.content if b.type == "tool_use"]
        messages.append({"role": "user", "content": results})
    return {"status": "call_limit", "messages": messages}
