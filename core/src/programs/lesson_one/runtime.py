"""The agent loop in Python: one model request, one tool run, and the loop.

The same three functions as runtime.rs, written the way the lesson writes
them; runtime.zh.py is this file in Chinese, line for line. The page's
steps are recorded from the Rust compiled to WebAssembly; the test suite
runs each language's file under CPython, with the setup the page shows, for
every shipped scenario and checks that it runs the same lines to the same
result, record and output. The `#|` marks name those steps (the labels of
runtime.rs); the page does not show them. What they use besides (QUESTION,
SYSTEM, TOOLS, sys, subprocess, OUTPUT_LIMIT) comes from the setup.
"""


def ask_claude(client, model, messages):
    """Ask the model once. No tool runs here and nothing loops: send the
    agreement, the whole record and the tool list; hand back the answer."""
    response = client.messages.create(  #| ask.build ask.create
        model=model, system=SYSTEM, messages=messages,
        tools=TOOLS, max_tokens=1024,
    )
    return response.model_dump()  #| ask.return


def run_main(call, workspace, timeout=3):
    """Run main.py for one tool request and wrap what happened in a
    tool_result. A program that fails is a result too."""
    result = {"type": "tool_result", "tool_use_id": call.get("id")}  #| main.envelope
    if call.get("name") != "run_main" or call.get("input") != {}:  #| main.validate
        result["content"] = "unsupported tool or arguments"  #| main.reject
        result["is_error"] = True  #| main.reject_flag
        return result  #| main.return@1
    try:
        process = subprocess.run(  #| main.spawn
            [sys.executable, "main.py"], cwd=workspace,
            capture_output=True, text=True, timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        result["content"] = f"timed out after {timeout} s"  #| main.timeout
        result["is_error"] = True  #| main.timeout_flag
    except OSError as error:
        result["content"] = f"cannot start: {error}"  #| main.cannot_start
        result["is_error"] = True  #| main.cannot_start_flag
    else:
        output = (process.stdout + process.stderr).strip()  #| main.exited
        output = output[:OUTPUT_LIMIT]  #| main.cap
        output = output or "(no output)"  #| main.placeholder
        result["content"] = f"exit_code={process.returncode}\n{output}"  #| main.content
        result["is_error"] = process.returncode != 0  #| main.flag
    return result  #| main.return@2


def run_loop(ask, execute, max_calls=4, emit=print):
    """The loop. ask reads the whole record and returns the model's
    answer; execute runs one tool request. Every answer and every result
    is saved; the loop stops on stop_reason, never on what a text says."""
    if max_calls < 1:  #| loop.check_budget
        raise ValueError(  #| loop.bad_budget
            f"max_calls must be at least 1, got {max_calls}")
    messages = [{"role": "user", "content": QUESTION}]  #| loop.start
    kinds = ("text", "tool_use")  # the block types this lesson reads  #| loop.rule

    for number in range(1, max_calls + 1):  #| loop.next_call
        emit(f"model call {number}")  #| loop.announce
        try:
            response = ask(messages)  #| loop.ask
        except Exception as error:
            # A failed request hands control back: no retry, no made-up result.
            text = f"model request failed: {type(error).__name__}"  #| loop.model_error
            return {"status": "model_error", "text": text,  #| loop.finish_model_error
                    "calls": number, "messages": messages}
        reason = response.get("stop_reason") or "(none)"  #| loop.read
        blocks = response.get("content")  #| loop.content
        if not isinstance(blocks, list) or not all(  #| loop.check_format
                isinstance(block, dict) and block.get("type") in kinds
                for block in blocks):
            text = "the response is not in a format this lesson supports"  #| loop.bad_format
            return {"status": "protocol_error", "text": text,  #| loop.finish_bad_format
                    "calls": number, "messages": messages}
        # The whole answer goes into the record before anything is decided.
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
            text = f"the model stopped: {reason}; check the response"  #| loop.model_stopped
            return {"status": "model_stopped", "text": text,  #| loop.finish_model_stopped
                    "calls": number, "messages": messages}
        ids = [call.get("id") for call in calls]  #| loop.check_ids
        filled = all(isinstance(i, str) and i != "" for i in ids)  #| loop.ids_filled
        unique = filled and len(set(ids)) == len(ids)  #| loop.ids_unique
        if (reason != "tool_use" or not calls  #| loop.check_calls
                or not filled or not unique):
            text = "the stop reason and the tool requests disagree"  #| loop.calls_mismatch
            return {"status": "protocol_error", "text": text,  #| loop.finish_mismatch
                    "calls": number, "messages": messages}
        # Each result must name the id of its request.
        results = []  #| loop.results
        for call in calls:  #| loop.next_tool
            emit(f"executing {call.get('name', '?')}")  #| loop.announce_tool
            result = execute(call)  #| loop.execute
            last_line = (result["content"].splitlines() or [""])[-1]  #| loop.collect
            emit(f"tool result: {last_line}")  #| loop.report_tool
            results.append(result)  #| loop.stage_result
        messages.append({"role": "user", "content": results})  #| loop.save_results
        emit("saved the tool results for the next call")  #| loop.saved
    text = (f"model calls used up ({max_calls} of {max_calls}); "  #| loop.call_limit
            "the record goes back to the user")
    return {"status": "call_limit", "text": text,  #| loop.finish_call_limit
            "calls": max_calls, "messages": messages}
