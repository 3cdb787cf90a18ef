talk(2)
