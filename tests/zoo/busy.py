"""Spins the CPU forever on its first turn."""
import zoo


def spin(message, n):
    while True:
        pass


zoo.play(spin)
