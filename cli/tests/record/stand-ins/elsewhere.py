def ask_once(question):
    """Keeps its conversation on an object, where the recorder does not
    look for the record."""
    state = Conversation()
    state.messages.append({"role": "user", "content": question})  #| ask.start
    reply = client.messages.create(model="teaching-model", max_tokens=1024, messages=state.messages)
    state.messages.append({"role": "assistant", "content": reply.content})
    return reply.content[0].text
