"""Answers every turn twice, the second reply written right after the first."""
import zoo


def turn(message, n):
    zoo.send({"type": "move", "move": zoo.MOVE})
    zoo.send({"type": "move", "move": zoo.MOVE})
    return zoo.ANSWERED


zoo.play(turn)
