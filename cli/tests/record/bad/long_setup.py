count(100000)
