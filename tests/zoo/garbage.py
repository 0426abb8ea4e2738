"""Answers its turn with binary garbage lines, then a JSON object that is no message."""
import os
import sys
import zoo


def turn(message, n):
    out = sys.stdout.buffer
    for _ in range(200):
        out.write(os.urandom(300).replace(b"\n", b"?") + b"\n")
    out.write(b'{"oops": "no type"}\n')
    out.flush()
    return zoo.ANSWERED


zoo.play(turn)
