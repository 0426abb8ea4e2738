"""At hello starts a helper in its own session with an empty environment (no process
group, no token to find it by), then plays politely and exits at `end` (or, with the
argument `sleep`, sleeps on its first turn until it is killed): the helper must not
outlive the game. The helper's command line names this file, so a test can find it."""
import os
import subprocess
import sys
import time
import zoo


def start_helper(message):
    subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(3600)", os.path.abspath(__file__)],
        start_new_session=True,
        env={},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def turn(message, n):
    if "sleep" in sys.argv[1:]:
        time.sleep(3600)


zoo.play(turn, on_hello=start_helper)
