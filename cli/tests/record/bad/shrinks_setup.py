talk(3)
