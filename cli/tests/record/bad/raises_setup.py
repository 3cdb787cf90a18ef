x = undefined_name + 1
count(3)
