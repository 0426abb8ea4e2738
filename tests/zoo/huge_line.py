"""Answers every turn with a 10 MB line."""
import sys
import zoo


def turn(message, n):
    sys.stdout.write('{"type":"move","move":"' + "x" * (10 << 20) + '"}\n')
    sys.stdout.flush()
    # The referee takes the over-long line as this turn's (illegal) reply.
    return zoo.ANSWERED


zoo.play(turn)
