"""Misbehaving raw protocol bot (no adapter): floods stdout with chatter and stderr with
noise around every move (-> chatter and stderr are kept bounded; the moves count)."""
import json
import sys

LINE = "flooding chatter " * 8 + "\n"
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "ready", "name": "flood"}), flush=True)
    elif message["type"] == "turn":
        sys.stdout.write(LINE * 20000)
        sys.stderr.write(LINE * 20000)
        print(json.dumps({"type": "move", "move": None}), flush=True)
    elif message["type"] == "end":
        break
