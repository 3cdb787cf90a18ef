def agent_loop(question, max_calls=4):
    """The loop as the SDK's own examples write it: the reply's content
    objects go into the record as they came."""
    messages = [{"role": "user", "content": question}]  #| loop.start
    for _ in range(max_calls):
        response = client.messages.create(  #| loop.ask
            model="teaching-model", max_tokens=1024, tools=TOOLS, messages=messages,
        )
        messages.append({"role": "assistant", "content": response.content})  #| loop.save
        if response.stop_reason != "tool_use":
            return response.content[0].text  #| loop.answer
        results = []
        for block in response.content:
            if block.type == "tool_use":
                results.append({"type": "tool_result", "tool_use_id": block.id, "content": run_main()})
        messages.append({"role": "user", "content": results})  #| loop.results
    return "out of calls"
