"""Plays one move, then dies of an uncaught exception in the middle of the game."""
import zoo


def turn(message, n):
    if n >= 2:
        raise RuntimeError("zoo: crash in the middle of the game")


zoo.play(turn)
