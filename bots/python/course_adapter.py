"""Runs a course-style Asalto bot as an arbiter protocol v1 bot (docs/PROTOCOL.md).

A course bot is a Python file with a class `Player` whose methods `play_rebel(board)` and
`play_officer(board)` take the 7x7 board (a list of 7 lists of 1-character strings) and
return a move as a sequence of (row, col) points. The bot knows nothing of the protocol:
this adapter speaks it for the bot.

Every `turn` calls the bot, also when its side has no legal move (blocked rebels, officers
that cannot move): the course referee calls it then too, with the usual board, and the
referee counts whatever comes back, `None` included, as an illegal move.

Usage: python3 -u course_adapter.py BOT_FILE   (arbiter embeds this file and runs it with -c)

The protocol stream is protected from the bot: before the bot is imported, the real stdout
is duplicated to a private descriptor and descriptor 1 is pointed at stderr, so whatever
the bot prints (even from C code) lands in its stderr log; stdin likewise is replaced by
/dev/null so an `input()` in the bot cannot eat a protocol line. Standard library only,
Python 3.8 or newer.
"""

import collections.abc
import importlib.util
import json
import math
import operator
import os
import sys
import traceback

MAX_DEPTH = 16


def open_protocol():
    """The protocol's input and output descriptors, with the bot's fds 0 and 1 neutralised."""
    out_fd = os.dup(1)
    in_fd = os.dup(0)
    os.dup2(2, 1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    sys.stdout = sys.stderr
    sys.stdin = open(os.devnull, "r")
    # Bytes in and out, with no text layer: a turn costs one read and one write.
    proto_in = os.fdopen(in_fd, "rb")
    return proto_in, out_fd


def plain_move(value):
    """The usual reply, a list or tuple of (row, col) pairs of ints, as lists; None for
    anything else, which `to_wire` then converts with care."""
    kind = type(value)
    if kind is not list and kind is not tuple:
        return None
    out = []
    for point in value:
        kind = type(point)
        if (kind is tuple or kind is list) and len(point) == 2:
            row, col = point
            if type(row) is int and type(col) is int:
                out.append([row, col])
                continue
        return None
    return out


def to_wire(value, depth=0):
    """A bot's return value as JSON: sequences become lists and integer-like values (numpy
    integers, anything with __index__) ints, so a move comes out as [[r, c], ...]. Anything
    else is passed on as what it is (None, a string, a float, a dict) for the referee to
    count as the illegal move it is."""
    if depth > MAX_DEPTH:
        return repr(value)[:200]
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    tolist = getattr(value, "tolist", None)
    if callable(tolist) and not isinstance(value, (list, tuple)):
        try:
            converted = tolist()
        except Exception:
            converted = value
        if converted is not value:
            return to_wire(converted, depth + 1)
    if isinstance(value, dict):
        return {str(k): to_wire(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (bytes, bytearray)):
        return repr(value)[:200]
    if hasattr(type(value), "__index__"):
        try:
            return operator.index(value)
        except Exception:
            return repr(value)[:200]
    if isinstance(value, (list, tuple, range, collections.abc.Sequence)):
        try:
            return [to_wire(v, depth + 1) for v in value]
        except Exception:
            return repr(value)[:200]
    return repr(value)[:200]


MOVE_LINE = '{"type":"move","move":%s}\n'
ENCODE = json.JSONEncoder(separators=(",", ":"), allow_nan=False).encode


class Protocol:
    def __init__(self, proto_in, out_fd):
        self.proto_in = proto_in
        self.out_fd = out_fd

    def send(self, message):
        try:
            line = ENCODE(message)
        except (TypeError, ValueError):
            line = ENCODE({"type": "move", "move": repr(message.get("move"))[:200]})
        self.write(line + "\n")

    def write(self, line):
        data = line.encode("utf-8", "replace")
        while data:
            data = data[os.write(self.out_fd, data) :]

    def receive(self):
        """The next protocol message, or None at end of input. Lines that are not JSON
        objects are skipped."""
        while True:
            line = self.proto_in.readline()
            if not line:
                return None
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if isinstance(message, dict):
                return message


def load_player(path):
    folder = os.path.dirname(path)
    # The bot's own folder first, so that its helper modules import.
    sys.path.insert(0, folder)
    name = os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError("cannot load %r as a Python module" % path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    player_class = getattr(module, "Player", None)
    if player_class is None:
        raise AttributeError("%s defines no class `Player`" % path)
    return name, player_class()


def main():
    if len(sys.argv) < 2:
        sys.stderr.write("usage: course_adapter.py BOT_FILE\n")
        return 2
    path = os.path.abspath(sys.argv[1])
    proto = Protocol(*open_protocol())

    hello = proto.receive()
    if hello is None:
        return 0
    role = hello.get("role")
    try:
        name, player = load_player(path)
    except BaseException:
        proto.send({"type": "error", "message": traceback.format_exc()})
        return 1
    announced = getattr(player, "name", None)
    proto.send({"type": "ready", "name": announced if isinstance(announced, str) else name})

    while True:
        message = proto.receive()
        if message is None or message.get("type") == "end":
            return 0
        if message.get("type") != "turn":
            continue
        role = message.get("role", role)
        try:
            board = [list(row) for row in message["board"]]
            method = getattr(player, "play_" + str(role))
            result = method(board)
            plain = plain_move(result)
            if plain is None:
                reply = {"type": "move", "move": to_wire(result)}
        except BaseException:
            proto.send({"type": "error", "message": traceback.format_exc()})
            return 1
        if plain is None:
            proto.send(reply)
        else:
            # The usual move, lists of ints, whose str() is its JSON once spaces go.
            proto.write(MOVE_LINE % str(plain).replace(" ", ""))


if __name__ == "__main__":
    code = main()
    sys.stderr.flush()
    # Skips waiting for threads the bot may have left running.
    os._exit(code)
