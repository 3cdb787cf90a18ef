count(3)
