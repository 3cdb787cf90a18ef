"""第二课的 Python：核心循环，以及三个看上去没错的循环。

与 teaching.rs 是同样的函数，按课上的写法写成；
本文件是 core_loop.py 的中文版，逐行对应。
页面记录的是 Rust；测试会用 CPython 运行每种语言的文件，
加上页面显示的准备代码，检查它执行的行、结果、记录和输出都相同。
`#|` 标记给这些步骤命名（即 teaching.rs 的标签）；页面不显示它们。
client、MODEL、SYSTEM、TOOLS、MAX_ITERS 和 TOOL_FUNCTIONS
都来自准备代码。
"""


def execute_tool(name, tool_input):
    """运行模型请求的工具。模型只负责请求；能运行什么由这段代码决定，
    不认识的名字一律拒绝。"""
    if name not in TOOL_FUNCTIONS:  #| tool.check
        raise ValueError(f"未知工具：{name}")  #| tool.unknown
    return TOOL_FUNCTIONS[name](**tool_input)  #| tool.run


def agent_loop(user_query):
    """课上的循环：每次请求都带上完整记录，遇到 end_turn 就停，
    运行每个被请求的工具，并把结果连同 id 一起交回。
    MAX_ITERS 是安全网，不是刹车。"""
    messages = [{"role": "user", "content": user_query}]  #| core.start
    for turn in range(1, MAX_ITERS + 1):  #| core.next_turn
        response = client.messages.create(  #| core.ask
            model=MODEL, max_tokens=1024, system=SYSTEM,
            tools=TOOLS, messages=messages)
        print(f"第 {turn} 轮：stop_reason={response.stop_reason}")  #| core.announce
        if response.stop_reason == "end_turn":  #| core.check_stop
            break  #| core.stop
        # 保存完整的 content，包括 tool_use 块：id 就在它们身上。
        messages.append({"role": "assistant", "content": response.content})  #| core.save_reply
        results = []  #| core.results
        for block in response.content:  #| core.next_block
            if block.type == "tool_use":  #| core.is_tool
                out = execute_tool(block.name, block.input)  #| core.execute
                results.append({"type": "tool_result",  #| core.collect
                                "tool_use_id": block.id, "content": str(out)})
        messages.append({"role": "user", "content": results})  #| core.save_results
    else:
        print("达到轮数上限：请排查原因，这不是正常结束")  #| core.cap
    final_text = next(b.text for b in response.content  #| core.final
                      if b.type == "text")
    return {"text": final_text, "turns": turn, "messages": messages}  #| core.return


def stop_on_text(user_query):
    """反模式：和 agent_loop 一样，只是它在回复文字里出现“完成”时
    停下，而不是看 stop_reason。"""
    messages = [{"role": "user", "content": user_query}]  #| core.start
    for turn in range(1, MAX_ITERS + 1):  #| core.next_turn
        response = client.messages.create(  #| core.ask
            model=MODEL, max_tokens=1024, system=SYSTEM,
            tools=TOOLS, messages=messages)
        print(f"第 {turn} 轮：stop_reason={response.stop_reason}")  #| core.announce
        text = " ".join(b.text for b in response.content  #| text.join
                        if b.type == "text")
        if "完成" in text.lower():  # 读的是文字，不是信号  #| text.check_done
            break  #| core.stop
        # 保存完整的 content，包括 tool_use 块：id 就在它们身上。
        messages.append({"role": "assistant", "content": response.content})  #| core.save_reply
        results = []  #| core.results
        for block in response.content:  #| core.next_block
            if block.type == "tool_use":  #| core.is_tool
                out = execute_tool(block.name, block.input)  #| core.execute
                results.append({"type": "tool_result",  #| core.collect
                                "tool_use_id": block.id, "content": str(out)})
        messages.append({"role": "user", "content": results})  #| core.save_results
    else:
        print("达到轮数上限：请排查原因，这不是正常结束")  #| core.cap
    final_text = next(b.text for b in response.content  #| core.final
                      if b.type == "text")
    return {"text": final_text, "turns": turn, "messages": messages}  #| core.return


def cap_as_brake(user_query):
    """反模式：计划就是三轮。走到上限就算完成，没有任何警告，
    被截断的工作看上去像一个答案。"""
    messages = [{"role": "user", "content": user_query}]  #| core.start
    for turn in range(1, 3 + 1):  # 当刹车用：不管什么任务都只走三轮  #| core.next_turn
        response = client.messages.create(  #| core.ask
            model=MODEL, max_tokens=1024, system=SYSTEM,
            tools=TOOLS, messages=messages)
        print(f"第 {turn} 轮：stop_reason={response.stop_reason}")  #| core.announce
        if response.stop_reason == "end_turn":  #| core.check_stop
            break  #| core.stop
        # 保存完整的 content，包括 tool_use 块：id 就在它们身上。
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
    """反模式：它只保存回复的文字。tool_use 块和它们的 id 丢了，
    下一次请求里的结果就无法配对。"""
    messages = [{"role": "user", "content": user_query}]  #| core.start
    for turn in range(1, MAX_ITERS + 1):  #| core.next_turn
        response = client.messages.create(  #| core.ask
            model=MODEL, max_tokens=1024, system=SYSTEM,
            tools=TOOLS, messages=messages)
        print(f"第 {turn} 轮：stop_reason={response.stop_reason}")  #| core.announce
        if response.stop_reason == "end_turn":  #| core.check_stop
            break  #| core.stop
        text = " ".join(b.text for b in response.content  #| only.join
                        if b.type == "text")
        # 只留下了文字：tool_use 块在这里被丢掉。
        messages.append({"role": "assistant", "content": text})  #| only.save_text
        results = []  #| core.results
        for block in response.content:  #| core.next_block
            if block.type == "tool_use":  #| core.is_tool
                out = execute_tool(block.name, block.input)  #| core.execute
                results.append({"type": "tool_result",  #| core.collect
                                "tool_use_id": block.id, "content": str(out)})
        messages.append({"role": "user", "content": results})  #| core.save_results
    else:
        print("达到轮数上限：请排查原因，这不是正常结束")  #| core.cap
    final_text = next(b.text for b in response.content  #| core.final
                      if b.type == "text")
    return {"text": final_text, "turns": turn, "messages": messages}  #| core.return
