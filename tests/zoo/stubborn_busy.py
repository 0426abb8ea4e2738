"""Ignores SIGXCPU and spins the CPU forever on its first turn: only the hard CPU limit's
SIGKILL ends it."""
import signal

import zoo

signal.signal(signal.SIGXCPU, signal.SIG_IGN)


def spin(message, n):
    while True:
        pass


zoo.play(spin)
