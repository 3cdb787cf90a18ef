def talk(turns):
    messages = [{"role": "user", "content": "hi"}]
    seen = []
    for turn in range(turns):
        messages.append({"role": "assistant", "content": "hello"})
        seen.append(turn)
    return messages
