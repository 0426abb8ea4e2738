"""Allocates 64 MiB blocks on its first turn until allocation fails (uncaught
MemoryError). Run it only under a memory limit."""
import zoo

hoard = []


def turn(message, n):
    while True:
        hoard.append(bytearray(64 << 20))


zoo.play(turn)
