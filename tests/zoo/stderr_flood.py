"""Writes 4 MiB to stderr before every move, then moves."""
import sys
import zoo


def turn(message, n):
    sys.stderr.write(("noise " * 1024 + "\n") * 700)
    sys.stderr.flush()


zoo.play(turn)
