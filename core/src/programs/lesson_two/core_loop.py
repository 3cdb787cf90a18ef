"""Lesson two in Python: the core loop, and three loops that look right.

The same functions as teaching.rs, written the way the lesson writes them;
core_loop.zh.py is this file in Chinese, line for line. The page records
the Rust; the test suite runs each language's file under CPython with the
setup the page shows and checks that it runs the same lines to the same
result, record and output. The `#|` marks name those steps (the labels of
teaching.rs); the page does not show them. client, MODEL, SYSTEM, TOOLS,
MAX_ITERS and TOOL_FUNCTIONS come from the setup.
"""


def execute_tool(name, tool_input):
    """Run the tool the model asked for. The model only asks; this code
    decides what may run, and refuses a name it does not know."""
    if name not in TOOL_FUNCTIONS:  #| tool.check
        raise ValueError(f"Unknown tool: {name}")  #| tool.unknown
    return TOOL_FUNCTIONS[name](**tool_input)  #| tool.run


def agent_loop(user_query):
    """The lesson's loop: the whole record on every request, stop on
    end_turn, run every tool asked for and send each result back with
    its id. MAX_ITERS is a safety net, not the brake."""
    messages = [{"role": "user", "content": user_query}]  #| core.start
    for turn in range(1, MAX_ITERS + 1):  #| core.next_turn
        response = client.messages.create(  #| core.ask
            model=MODEL, max_tokens=1024, system=SYSTEM,
            tools=TOOLS, messages=messages)
        print(f"turn {turn}: stop_reason={response.stop_reason}")  #| core.announce
        if response.stop_reason == "end_turn":  #| core.check_stop
            break  #| core.stop
        # The whole content, tool_use blocks and all: they carry the ids.
        messages.append({"role": "assistant", "content": response.content})  #| core.save_reply
        results = []  #| core.results
        for block in response.content:  #| core.next_block
            if block.type == "tool_use":  #| core.is_tool
                out = execute_tool(block.name, block.input)  #| core.execute
                results.append({"type": "tool_result",  #| core.collect
                                "tool_use_id": block.id, "content": str(out)})
        messages.append({"role": "user", "content": results})  #| core.save_results
    else:
        print("hit the iteration cap: investigate, this is no normal end")  #| core.cap
    final_text = next(b.text for b in response.content  #| core.final
                      if b.type == "text")
    return {"text": final_text, "turns": turn, "messages": messages}  #| core.return


def stop_on_text(user_query):
    """ANTI-PATTERN: agent_loop, but it stops when the reply's text
    says "done", not on stop_reason."""
    messages = [{"role": "user", "content": user_query}]  #| core.start
    for turn in range(1, MAX_ITERS + 1):  #| core.next_turn
        response = client.messages.create(  #| core.ask
            model=MODEL, max_tokens=1024, system=SYSTEM,
            tools=TOOLS, messages=messages)
        print(f"turn {turn}: stop_reason={response.stop_reason}")  #| core.announce
        text = " ".join(b.text for b in response.content  #| text.join
                        if b.type == "text")
        if "done" in text.lower():  # reads the words, not the signal  #| text.check_done
            break  #| core.stop
        # The whole content, tool_use blocks and all: they carry the ids.
        messages.append({"role": "assistant", "content": response.content})  #| core.save_reply
        results = []  #| core.results
        for block in response.content:  #| core.next_block
            if block.type == "tool_use":  #| core.is_tool
                out = execute_tool(block.name, block.input)  #| core.execute
                results.append({"type": "tool_result",  #| core.collect
                                "tool_use_id": block.id, "content": str(out)})
        messages.append({"role": "user", "content": results})  #| core.save_results
    else:
        print("hit the iteration cap: investigate, this is no normal end")  #| core.cap
    final_text = next(b.text for b in response.content  #| core.final
                      if b.type == "text")
    return {"text": final_text, "turns": turn, "messages": messages}  #| core.return


def cap_as_brake(user_query):
    """ANTI-PATTERN: three turns is the plan. Reaching the cap counts as
    finished, with no warning, so cut-off work looks like an answer."""
    messages = [{"role": "user", "content": user_query}]  #| core.start
    for turn in range(1, 3 + 1):  # the brake: three turns, whatever the task  #| core.next_turn
        response = client.messages.create(  #| core.ask
            model=MODEL, max_tokens=1024, system=SYSTEM,
            tools=TOOLS, messages=messages)
        print(f"turn {turn}: stop_reason={response.stop_reason}")  #| core.announce
        if response.stop_reason == "end_turn":  #| core.check_stop
            break  #| core.stop
        # The whole content, tool_use blocks and all: they carry the ids.
        messages.append({"role": "assistant", "content": response.content})  #| core.save_reply
        results = []  #| core.results
        for block in response.content:  #| core.next_block
            if block.type == "tool_use":  #| core.is_tool
                out = execute_tool(block.name, block.input)  #| core.execute
                results.append({"type": "tool_result",  #| core.collect
                                "tool_use_id": block.id, "content": str(out)})
        messages.append({"role": "user", "content": results})  #| core.save_results
    final_text = next(b.text for b in response.content  #| core.final
                      if b.type == "text")
    return {"text": final_text, "turns": turn, "messages": messages}  #| core.return


def keep_text_only(user_query):
    """ANTI-PATTERN: it saves only the reply's text. The tool_use blocks
    and their ids are lost, so the next request cannot pair the results."""
    messages = [{"role": "user", "content": user_query}]  #| core.start
    for turn in range(1, MAX_ITERS + 1):  #| core.next_turn
        response = client.messages.create(  #| core.ask
            model=MODEL, max_tokens=1024, system=SYSTEM,
            tools=TOOLS, messages=messages)
        print(f"turn {turn}: stop_reason={response.stop_reason}")  #| core.announce
        if response.stop_reason == "end_turn":  #| core.check_stop
            break  #| core.stop
        text = " ".join(b.text for b in response.content  #| only.join
                        if b.type == "text")
        # Only the words are kept: the tool_use blocks are dropped here.
        messages.append({"role": "assistant", "content": text})  #| only.save_text
        results = []  #| core.results
        for block in response.content:  #| core.next_block
            if block.type == "tool_use":  #| core.is_tool
                out = execute_tool(block.name, block.input)  #| core.execute
                results.append({"type": "tool_result",  #| core.collect
                                "tool_use_id": block.id, "content": str(out)})
        messages.append({"role": "user", "content": results})  #| core.save_results
    else:
        print("hit the iteration cap: investigate, this is no normal end")  #| core.cap
    final_text = next(b.text for b in response.content  #| core.final
                      if b.type == "text")
    return {"text": final_text, "turns": turn, "messages": messages}  #| core.return
