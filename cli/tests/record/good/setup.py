# The entry: SCENARIO names the scenario; a scenario file's stand-ins
# (client, QUESTION, SYSTEM, TOOLS, MODEL, MAX_CALLS, TOOL_FUNCTIONS) are here.
if SCENARIO == "count":
    print(list(numbered(["tea", "cake"])))
else:
    loop = forgetful_loop if SCENARIO == "forgets" else weather_loop
    outcome = loop(QUESTION, max_calls=MAX_CALLS)
    print(outcome["status"], len(outcome["messages"]))
