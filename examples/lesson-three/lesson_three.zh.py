"""第三课：模型做决定，代码做保证。

调用哪个工具、传什么参数，由模型决定。有两件事不交给模型：
工具失败了也要给出回答（带 is_error 的 tool_result，模型读得懂，
还能接着补救）；一次对话里退款的总额不能超过 REFUND_LIMIT，
不管模型怎么要求。
"""

REFUND_LIMIT = 100  # 一次对话最多退款多少（美元）


def execute_tool(call, refunded):
    """执行一次工具请求；无论结果如何，都用一个 tool_result 回答它。"""
    result = {"type": "tool_result", "tool_use_id": call.id}  #| tool.envelope
    tool = TOOL_FUNCTIONS.get(call.name)  #| tool.find
    if tool is None:  #| tool.known
        result["content"] = f"没有这个工具：{call.name}"  #| tool.unknown
        result["is_error"] = True
        return result
    if call.name == "refund":  #| limit.is_refund
        amount = call.input.get("amount", 0)  #| limit.amount
        if refunded + amount > REFUND_LIMIT:  #| limit.check
            result["content"] = (  #| limit.refuse
                f"代码拒绝：已经退款 {refunded}，"
                f"再退 {amount} 就超过上限 {REFUND_LIMIT}"
            )
            result["is_error"] = True
            return result
    try:
        value = tool(**call.input)  #| tool.run
    except Exception as error:
        result["content"] = f"{type(error).__name__}: {error}"  #| tool.failed
        result["is_error"] = True
        return result  #| tool.failed_return
    result["content"] = str(value)  #| tool.ok
    return result  #| tool.return


def agent_loop(question, max_calls=5):
    """提问，执行模型要求的工具，再提问；最多请求模型 max_calls 次。"""
    messages = [{"role": "user", "content": question}]  #| loop.start
    refunded = 0  #| loop.refunded
    for calls in range(1, max_calls + 1):  #| loop.next_call
        response = client.messages.create(  #| loop.ask
            model=MODEL, max_tokens=1024, system=SYSTEM,
            tools=TOOLS, messages=messages,
        )
        messages.append({"role": "assistant", "content": response.content})  #| loop.save_response
        if response.stop_reason != "tool_use":  #| loop.check_stop
            text = "\n".join(b.text for b in response.content if b.type == "text")  #| loop.text
            return {"status": "answered", "text": text, "calls": calls, "messages": messages}  #| loop.answered
        results = []  #| loop.results
        for call in response.content:  #| loop.next_block
            if call.type != "tool_use":  #| loop.skip_text
                continue
            result = execute_tool(call, refunded)  #| loop.execute
            if call.name == "refund" and not result.get("is_error"):  #| loop.count_refund
                refunded += call.input["amount"]  #| loop.refunded_more
            results.append(result)  #| loop.collect
        messages.append({"role": "user", "content": results})  #| loop.save_results
    text = f"已用完 {max_calls} 次模型调用；记录交给人工处理"  #| loop.call_limit
    return {"status": "call_limit", "text": text, "calls": max_calls, "messages": messages}
