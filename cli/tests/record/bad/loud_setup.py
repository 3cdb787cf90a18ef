count(1)
print("x" * 300000)
