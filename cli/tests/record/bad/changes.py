def talk():
    messages = [{"role": "user", "content": "hi"}]
    messages.append({"role": "assistant", "content": "hello"})
    messages[0]["content"] = "changed"
    return messages
