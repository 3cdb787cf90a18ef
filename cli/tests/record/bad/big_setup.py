count(30000)
