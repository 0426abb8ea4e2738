"""Closes its stdout on its first turn and keeps running."""
import os
import time
import zoo


def turn(message, n):
    os.close(1)
    time.sleep(3600)


zoo.play(turn)
