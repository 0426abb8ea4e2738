"""Answers every turn with a legal move padded with spaces to exactly 1 MiB (1,048,576
bytes, the line limit), ended by "\\r\\n" with the argument `crlf`, else by "\\n"."""
import json
import sys
import zoo

LIMIT = 1 << 20
END = "\r\n" if "crlf" in sys.argv[1:] else "\n"


def turn(message, n):
    line = json.dumps({"type": "move", "move": zoo.MOVE})
    sys.stdout.write(line + " " * (LIMIT - len(line)) + END)
    sys.stdout.flush()
    return zoo.ANSWERED


zoo.play(turn)
