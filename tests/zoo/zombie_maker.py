"""Every turn starts a short-lived detached grandchild (a new session, a double fork, an
empty environment) that exits at once: orphaned, it is reparented to arbiter, the
subreaper, which must reap it as it arrives."""
import os
import zoo


def turn(message, n):
    pid = os.fork()
    if pid == 0:
        os.setsid()
        if os.fork() == 0:
            os.execve("/bin/sh", ["sh", "-c", "sleep 0.05"], {})
        os._exit(0)
    os.waitpid(pid, 0)
    return None


zoo.play(turn)
