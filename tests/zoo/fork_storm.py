"""Forks 300 sleeping children on its first turn (fewer where the process limit says
no), then sleeps."""
import os
import sys
import time
import zoo


def turn(message, n):
    made = 0
    for _ in range(300):
        try:
            pid = os.fork()
        except OSError:
            break
        if pid == 0:
            time.sleep(3600)
            os._exit(0)
        made += 1
    sys.stderr.write("zoo: forked %d children\n" % made)
    sys.stderr.flush()
    time.sleep(3600)


zoo.play(turn)
