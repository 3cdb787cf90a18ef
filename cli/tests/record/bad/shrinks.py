def talk(turns):
    messages = [{"role": "user", "content": "hi"}]
    for turn in range(turns):
        messages.append({"role": "assistant", "content": "hello"})
        if turn == 1:
            messages.pop(0)
    return messages
