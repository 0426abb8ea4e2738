"""Floods stdout with chatter forever on its first turn."""
import sys
import zoo


def turn(message, n):
    line = "chatter " * 16 + "\n"
    while True:
        sys.stdout.write(line * 64)


zoo.play(turn)
