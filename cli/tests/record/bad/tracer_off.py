import sys


def count(n):
    total = 0
    sys.settrace(None)
    for i in range(n):
        total += i
    return total
