"""The tests' tiny program in Python: ask the model one question and print
the text of its answer."""

MODEL = "teaching-model"


def ask_once(client, question):
    """Ask the model one question, print every text it answers with, and
    hand back the texts."""
    messages = [{"role": "user", "content": question}]  #| once.start
    tools = []  #| once.tools
    response = client.messages.create(model=MODEL, messages=messages, tools=tools, max_tokens=256)  #| once.request once.ask
    texts = []  #| once.texts
    for block in response.content:  #| once.next_block
        print(block.text)  #| once.print
        texts.append(block.text)  #| once.keep
    return "\n".join(texts)  #| once.return
