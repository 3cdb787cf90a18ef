def ask_twice(question):
    """Grows its record by binding the name to a longer list once: a block
    that kept the list it was given kept the record."""
    messages = [{"role": "user", "content": question}]  #| ask.start
    reply = client.messages.create(model="teaching-model", max_tokens=1024, messages=messages)
    messages.append({"role": "assistant", "content": reply.content})
    messages = messages + [{"role": "user", "content": "And again?"}]  #| ask.again
    reply = client.messages.create(model="teaching-model", max_tokens=1024, messages=messages)
    messages.append({"role": "assistant", "content": reply.content})
    return reply.content[0].text
