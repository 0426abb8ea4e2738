"""Misbehaving raw protocol bot (no adapter): answers its first turn with a 3 MiB line
(-> over the 1 MiB line bound: an illegal move), then plays on with valid messages."""
import json
import sys


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


turns = 0
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        send({"type": "ready", "name": "huge-line"})
    elif message["type"] == "turn":
        turns += 1
        if turns == 1:
            sys.stdout.write('{"type":"move","move":"' + "x" * (3 << 20) + '"}\n')
            sys.stdout.flush()
        else:
            send({"type": "move", "move": None})
    elif message["type"] == "end":
        break
