# Setup and entry. A scenario file gives this run its stand-ins: client
# (the SDK's client, checked like the Messages API, answering with the
# scenario's replies), QUESTION, SYSTEM, TOOLS, MODEL, MAX_CALLS and
# TOOL_FUNCTIONS (the shop's tools, playing the scenario's results).
outcome = agent_loop(QUESTION, max_calls=MAX_CALLS)
print(outcome["status"], "· model calls:", outcome["calls"])
print(outcome["text"])
