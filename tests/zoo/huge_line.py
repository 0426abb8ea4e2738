"""Answers every turn with a 10 MB line."""
import sys
import zoo


def turn(message, n):
    sys.stdout.write('{"type":"move","move":"' + "x" * (10 << 20) + '"}\n')
    sys.stdout.flush()
    # The referee takes the over-long line as this turn's (illegal) reply and sends the
    # next turn; the move zoo.play sends now is unsolicited and dropped.
    return None


zoo.play(turn)
