"""On its first turn: a grandchild leaves the process group (setsid, double fork) while
holding stdout and stderr open, then the bot itself exits."""
import os
import time
import zoo


def turn(message, n):
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            time.sleep(3600)
        os._exit(0)
    os._exit(0)


zoo.play(turn)
