"""Lesson three: the model decides, the code guarantees.

The model chooses which tool to call and with what. Two things are not
left to it: a tool that fails still gets an answer (a tool_result with
is_error, which the model can read and recover from), and no
conversation refunds more than REFUND_LIMIT, whatever the model asks.
"""

REFUND_LIMIT = 100  # the most one conversation may refund, in dollars


def execute_tool(call, refunded):
    """Run one tool request; whatever happens, answer it with a tool_result."""
    result = {"type": "tool_result", "tool_use_id": call.id}  #| tool.envelope
    tool = TOOL_FUNCTIONS.get(call.name)  #| tool.find
    if tool is None:  #| tool.known
        result["content"] = f"unknown tool: {call.name}"  #| tool.unknown
        result["is_error"] = True
        return result
    if call.name == "refund":  #| limit.is_refund
        amount = call.input.get("amount", 0)  #| limit.amount
        if refunded + amount > REFUND_LIMIT:  #| limit.check
            result["content"] = (  #| limit.refuse
                f"refused by code: {refunded} already refunded, "
                f"{amount} more would pass the limit of {REFUND_LIMIT}"
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
    """Ask, run what the model asks for, repeat; at most max_calls calls."""
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
    text = f"stopped after {max_calls} model calls; the record goes back to a person"  #| loop.call_limit
    return {"status": "call_limit", "text": text, "calls": max_calls, "messages": messages}
