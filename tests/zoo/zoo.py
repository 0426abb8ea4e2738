"""Shared protocol loop for the misbehaving test bots in this folder (raw protocol v1).

Each bot calls play(on_turn): hello is answered with ready, every turn with on_turn's
move (or a harmless default), end or end of input stops the bot.
"""
import json
import os
import sys

MOVE = [[3, 2], [2, 2]]
# Returned by a turn handler that answered the turn itself.
ANSWERED = object()


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def refuse_root():
    """Bots that attack their surroundings run only unprivileged (under --sandbox user)."""
    if os.getuid() == 0:
        sys.stderr.write("refusing to misbehave as root\n")
        sys.exit(9)


def play(on_turn=None, on_hello=None):
    turns = 0
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        kind = message.get("type")
        if kind == "hello":
            if on_hello:
                on_hello(message)
            send({"type": "ready", "name": os.path.basename(sys.argv[0])})
        elif kind == "turn":
            turns += 1
            move = on_turn(message, turns) if on_turn else None
            if move is not ANSWERED:
                send({"type": "move", "move": MOVE if move is None else move})
        elif kind == "end":
            return
