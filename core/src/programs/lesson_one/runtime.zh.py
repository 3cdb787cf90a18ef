"""用 Python 写的智能体循环：一次模型请求、一次工具运行，和循环本身。

这是 runtime.py 的中文版，逐行对应：注释、文档字符串和代码写进记录的
每句话都是中文。页面上的每一步来自编译成 WebAssembly 的 Rust；测试
会在 CPython 里，配上页面展示的设置代码，对每个内置场景运行每种语言
的这份文件，检查它走过的行、结果、记录和输出都与 Rust 相同。
行尾的 `#|` 标记写的是这些步骤（runtime.rs 的标签），页面不显示。
函数用到的其他名字（QUESTION、SYSTEM、TOOLS、sys、subprocess、OUTPUT_LIMIT）
由设置代码提供。

"""


def ask_claude(client, model, messages):
    """只问模型一次。这里不执行工具，也不循环：把工作约定、完整记录
    和工具列表一起发出去，再把模型的回答原样交回。"""
    response = client.messages.create(  #| ask.build ask.create
        model=model, system=SYSTEM, messages=messages,
        tools=TOOLS, max_tokens=1024,
    )
    return response.model_dump()  #| ask.return


def run_main(call, workspace, timeout=3):
    """为一次工具请求运行 main.py，把结果包成 tool_result。
    程序运行失败也是一种结果，照样交回。"""
    result = {"type": "tool_result", "tool_use_id": call.get("id")}  #| main.envelope
    if call.get("name") != "run_main" or call.get("input") != {}:  #| main.validate
        result["content"] = "不支持的工具或参数"  #| main.reject
        result["is_error"] = True  #| main.reject_flag
        return result  #| main.return@1
    try:
        process = subprocess.run(  #| main.spawn
            [sys.executable, "main.py"], cwd=workspace,
            capture_output=True, text=True, timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        result["content"] = f"运行超时：{timeout} 秒内没有结束"  #| main.timeout
        result["is_error"] = True  #| main.timeout_flag
    except OSError as error:
        result["content"] = f"无法启动：{error}"  #| main.cannot_start
        result["is_error"] = True  #| main.cannot_start_flag
    else:
        output = (process.stdout + process.stderr).strip()  #| main.exited
        output = output[:OUTPUT_LIMIT]  #| main.cap
        output = output or "（没有输出）"  #| main.placeholder
        result["content"] = f"exit_code={process.returncode}\n{output}"  #| main.content
        result["is_error"] = process.returncode != 0  #| main.flag
    return result  #| main.return@2


def run_loop(ask, execute, max_calls=4, emit=print):
    """循环本身。ask 读完整记录、返回模型的回答；execute 运行一次工具
    请求。每个回答、每个结果都存进记录；循环看 stop_reason 决定停不停，
    从不看文字里说了什么。"""
    if max_calls < 1:  #| loop.check_budget
        raise ValueError(  #| loop.bad_budget
            f"max_calls 至少为 1，收到的是 {max_calls}")
    messages = [{"role": "user", "content": QUESTION}]  #| loop.start
    kinds = ("text", "tool_use")  # 本课的循环只读这两种块  #| loop.rule

    for number in range(1, max_calls + 1):  #| loop.next_call
        emit(f"第 {number} 次请求模型")  #| loop.announce
        try:
            response = ask(messages)  #| loop.ask
        except Exception as error:
            # 请求失败就把控制权交回：不重试，也不编造结果。
            text = f"模型请求失败：{type(error).__name__}"  #| loop.model_error
            return {"status": "model_error", "text": text,  #| loop.finish_model_error
                    "calls": number, "messages": messages}
        reason = response.get("stop_reason") or "(none)"  #| loop.read
        blocks = response.get("content")  #| loop.content
        if not isinstance(blocks, list) or not all(  #| loop.check_format
                isinstance(block, dict) and block.get("type") in kinds
                for block in blocks):
            text = "响应里有本课的循环不处理的内容"  #| loop.bad_format
            return {"status": "protocol_error", "text": text,  #| loop.finish_bad_format
                    "calls": number, "messages": messages}
        # 先把整个回答存进记录，再做任何判断。
        messages.append({"role": "assistant", "content": blocks})  #| loop.save_response
        calls = [block for block in blocks  #| loop.find_calls
                 if block["type"] == "tool_use"]
        texts = [block.get("text", "") for block in blocks  #| loop.join_text
                 if block["type"] == "text"]
        text = "\n".join(texts)  #| loop.join_lines
        if reason == "end_turn" and not calls and text.strip():  #| loop.check_answer
            return {"status": "answered", "text": text,  #| loop.answered
                    "calls": number, "messages": messages}
        if reason not in ("end_turn", "tool_use"):  #| loop.check_reason
            text = f"模型停下了：{reason}；请检查这次响应"  #| loop.model_stopped
            return {"status": "model_stopped", "text": text,  #| loop.finish_model_stopped
                    "calls": number, "messages": messages}
        ids = [call.get("id") for call in calls]  #| loop.check_ids
        filled = all(isinstance(i, str) and i != "" for i in ids)  #| loop.ids_filled
        unique = filled and len(set(ids)) == len(ids)  #| loop.ids_unique
        if (reason != "tool_use" or not calls  #| loop.check_calls
                or not filled or not unique):
            text = "停止原因和工具请求对不上"  #| loop.calls_mismatch
            return {"status": "protocol_error", "text": text,  #| loop.finish_mismatch
                    "calls": number, "messages": messages}
        # 每个结果都要写上它所回应的请求的 id。
        results = []  #| loop.results
        for call in calls:  #| loop.next_tool
            emit(f"执行工具 {call.get('name', '?')}")  #| loop.announce_tool
            result = execute(call)  #| loop.execute
            last_line = (result["content"].splitlines() or [""])[-1]  #| loop.collect
            emit(f"工具结果：{last_line}")  #| loop.report_tool
            results.append(result)  #| loop.stage_result
        messages.append({"role": "user", "content": results})  #| loop.save_results
        emit("工具结果已存入记录，下一次请求会带上")  #| loop.saved
    text = (f"{max_calls} 次模型调用已经用完；"  #| loop.call_limit
            "记录交还给用户")
    return {"status": "call_limit", "text": text,  #| loop.finish_call_limit
            "calls": max_calls, "messages": messages}
