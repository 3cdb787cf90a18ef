TOTAL = 0  #| outside
def count(n):
    total = 0  #| count.start
    # the loop  #| count.loop
    for i in range(n):  #| count.start
        total += i  #|
    return total  #| no/slash
