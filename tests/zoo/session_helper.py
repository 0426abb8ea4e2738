"""At hello starts a helper in its own session (where it may: a jail refuses, and the helper
is then an orphan) with an empty environment (no process
group, no token to find it by), then plays politely and exits at `end` (or, with the
argument `sleep`, sleeps on its first turn until it is killed): the helper must not
outlive the game. The helper's command line names this file, so a test can find it."""
import os
import subprocess
import sys
import time
import zoo


def start_helper(message):
    command = [sys.executable, "-c", "import time; time.sleep(3600)", os.path.abspath(__file__)]
    quiet = dict(env={}, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        subprocess.Popen(command, start_new_session=True, **quiet)
    except PermissionError:
        # A jail refuses a new session: the helper is then a double-forked orphan with an
        # empty environment, which must not outlive the game either.
        if os.fork() == 0:
            try:
                subprocess.Popen(command, **quiet)
            finally:
                os._exit(0)


def turn(message, n):
    if "sleep" in sys.argv[1:]:
        time.sleep(3600)


zoo.play(turn, on_hello=start_helper)
