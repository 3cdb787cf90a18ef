talk()
