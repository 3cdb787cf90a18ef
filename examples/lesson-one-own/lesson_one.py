def ask_claude(client, model, messages):
    """一次模型请求：只发请求、取回回复，不执行工具，也不决定下一步。"""
    response = client.messages.create(  #| ask.create
        model=model, system=SYSTEM, messages=messages, tools=TOOLS,
        max_tokens=1024,
    )
    return response.model_dump(mode="json", exclude_none=True)  #| ask.dump


def run_main(call, workspace, timeout=3):
    """只运行工作目录里的 main.py；这是受限的工具，不是沙箱。"""
    result = {"type": "tool_result", "tool_use_id": call["id"]}  #| main.envelope
    if call.get("name") != "run_main" or call.get("input") != {}:  #| main.validate
        return {**result, "content": "不支持这个工具或参数。", "is_error": True}  #| main.reject
    try:
        process = subprocess.run(  #| main.spawn
            [sys.executable, "main.py"], cwd=workspace,
            capture_output=True, text=True, timeout=timeout,
        )
        output = (process.stdout + process.stderr).strip() or "（没有输出）"  #| main.output
        return {  #| main.exited
            **result, "content": f"exit_code={process.returncode}\n{output[:2000]}",
            "is_error": process.returncode != 0,
        }
    except subprocess.TimeoutExpired:
        return {**result, "content": f"超时：{timeout} 秒内没有结束。", "is_error": True}  #| main.timeout
    except OSError as error:
        return {**result, "content": f"启动失败：{error}", "is_error": True}  #| main.cannot_start


def run_loop(ask, execute, max_calls=4, emit=print):
    """循环：请求模型、执行它要的工具、保存结果；返回状态和完整记录。"""
    if max_calls < 1:  #| loop.check_budget
        raise ValueError("max_calls 至少为 1")
    messages = [{"role": "user", "content": QUESTION}]  #| loop.start

    def finish(status, text, calls):
        return {"status": status, "text": text, "calls": calls, "messages": messages}  #| loop.finish

    for number in range(1, max_calls + 1):  #| loop.next_call
        emit(f"第 {number} 次请求模型")  #| loop.emit_call
        try:
            response = ask(messages)  #| loop.ask
        except Exception as error:
            return finish("model_error", f"模型请求失败：{type(error).__name__}", number)  #| loop.model_error
        blocks = response.get("content")  #| loop.read
        reason = response.get("stop_reason")
        if not isinstance(blocks, list) or any(  #| loop.check_format
            not isinstance(block, dict) or block.get("type") not in ("text", "tool_use")
            for block in blocks
        ):
            return finish("protocol_error", "回复的格式不是本课支持的。", number)
        messages.append({"role": "assistant", "content": blocks})  #| loop.save_response
        calls = [block for block in blocks if block["type"] == "tool_use"]  #| loop.calls
        text = "\n".join(block.get("text", "") for block in blocks if block["type"] == "text")
        if reason == "end_turn" and not calls and text.strip():  #| loop.check_answer
            return finish("answered", text, number)  #| loop.answered
        if reason not in ("end_turn", "tool_use"):  #| loop.check_reason
            return finish("model_stopped", f"模型停下了：{reason}；请检查回复。", number)  #| loop.model_stopped
        ids = [call.get("id") for call in calls]
        if reason != "tool_use" or not calls or any(  #| loop.check_calls
            not isinstance(call_id, str) or not call_id for call_id in ids
        ) or len(set(ids)) != len(ids):
            return finish("protocol_error", "停止原因和工具请求对不上。", number)
        results = []  #| loop.results
        for call in calls:  #| loop.next_tool
            emit(f"执行工具 {call.get('name')}")
            result = execute(call)  #| loop.execute
            results.append(result)
            emit("工具结果：" + result["content"].splitlines()[-1])
        messages.append({"role": "user", "content": results})  #| loop.save_results
        emit("工具结果已存入记录，下一次请求会带上")  #| loop.saved
    return finish("call_limit", f"已用完 {max_calls} 次模型调用；记录交还给用户。", max_calls)  #| loop.call_limit
