def count(n):
    total = 0  #| count.start
    for i in range(n):
        total += i  #| count.add
    print("total", total)
    return total  #| count.return
