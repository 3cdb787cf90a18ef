# 准备与入口。场景文件为这次运行提供替身：client（SDK 的客户端，
# 像 Messages API 一样检查请求，用场景里的回复作答）、QUESTION、
# SYSTEM、TOOLS、MODEL、MAX_CALLS 和 TOOL_FUNCTIONS（商店的工具，
# 按场景给出结果）。
outcome = agent_loop(QUESTION, max_calls=MAX_CALLS)
print(outcome["status"], "· 模型调用", outcome["calls"], "次")
print(outcome["text"])
