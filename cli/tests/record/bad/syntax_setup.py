count(3
