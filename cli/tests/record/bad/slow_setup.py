import time
count(1)
time.sleep(30)
