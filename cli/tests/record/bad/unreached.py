def count(n):
    total = 0  #| count.start
    for i in range(n):
        total += i  #| count.add
    if total < 0:
        print("below zero")  #| count.below
    return total
