"""Tries to kill every other process it can see, then everything it may signal
(kill -9 -1). Refuses to run as root."""
import os
import signal
import sys
import zoo

zoo.refuse_root()


def turn(message, n):
    me = os.getpid()
    killed = denied = 0
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) in (me, 1):
            continue
        try:
            os.kill(int(name), signal.SIGKILL)
            killed += 1
        except PermissionError:
            denied += 1
        except ProcessLookupError:
            pass
    sys.stderr.write("zoo: killed %d, denied %d\n" % (killed, denied))
    sys.stderr.flush()
    os.kill(-1, signal.SIGKILL)


zoo.play(turn)
