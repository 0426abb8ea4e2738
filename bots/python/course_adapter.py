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
import math
import operator
import os
import re
import sys

MAX_DEPTH = 16


def current_traceback():
    """The exception being handled, as Python prints it. The module that formats it is
    imported only now: a bot that never raises does not pay for it at every start (some
    2 ms, a good part of what the adapter adds to Python's own start-up)."""
    kind, value, trace = sys.exc_info()
    try:
        import traceback

        return "".join(traceback.format_exception(kind, value, trace))
    except BaseException:
        return "Traceback unavailable\n%s: %s\n" % (getattr(kind, "__name__", kind), value)


def at_the_bot(trace, path, player_class):
    """`trace` with the bot's class named as where it failed, when none of its frames is in a
    file (all are the adapter's or the import machinery's): an error raised in the adapter's
    own call of the bot (a constructor that takes other arguments, a `play_rebel` that is
    not there) then still names the bot's file and the line of its `Player` (of its
    `__init__` for a constructor's)."""
    files = re.findall(r'File "([^"]*)"', trace)
    if player_class is None or any(not f.startswith("<") for f in files):
        return trace
    init = getattr(player_class, "__init__", None)
    code = getattr(init, "__code__", None)
    if code is not None and code.co_filename == path:
        line, what = code.co_firstlineno, "__init__"
    else:
        try:
            import inspect

            line, what = inspect.getsourcelines(player_class)[1], "Player"
        except BaseException:
            return trace
    lines = trace.rstrip("\n").split("\n")
    lines.insert(len(lines) - 1, '  File "%s", line %d, in %s' % (path, line, what))
    return "\n".join(lines) + "\n"


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


NULL_MOVE = '{"type":"move","move":null}\n'
METHODS = {"rebel": "play_rebel", "officer": "play_officer"}


# The `move` line of a move of N points, for the usual lengths.
MOVE_FORMATS = {
    n: '{"type":"move","move":[' + ",".join(["[%d,%d]"] * n) + "]}\n" for n in range(1, 17)
}


def move_line(value):
    """The `move` line for the usual reply, a list or tuple of (row, col) pairs of ints,
    or None (what a blocked side usually returns); None for anything else, which `to_wire`
    then converts with care. The line is what json.dumps would write, without spaces."""
    if value is None:
        return NULL_MOVE
    kind = type(value)
    if kind is not list and kind is not tuple:
        return None
    numbers = []
    for point in value:
        kind = type(point)
        if (kind is tuple or kind is list) and len(point) == 2:
            row, col = point
            if type(row) is int and type(col) is int:
                numbers.append(row)
                numbers.append(col)
                continue
        return None
    line = MOVE_FORMATS.get(len(value))
    if line is None:
        return '{"type":"move","move":[%s]}\n' % ",".join(
            "[%d,%d]" % pair for pair in zip(numbers[::2], numbers[1::2])
        )
    return line % tuple(numbers)


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


_json = None


def json_module():
    """The json module, imported the first time a message needs it: the usual hello, turns,
    replies and end never do, and the import is over a millisecond of a bot's start or end."""
    global _json
    if _json is None:
        import json

        _json = json
    return _json


def encode(message):
    """A message as one line of JSON, without spaces (NaN and infinities refused)."""
    return json_module().dumps(message, separators=(",", ":"), allow_nan=False)


def ready_line(name):
    """The `ready` line for a name of letters, digits and `_.- ` (a module's name, usually),
    as json.dumps writes it; None for any other name, which `encode` then writes."""
    if type(name) is str and name.isascii() and all(c.isalnum() or c in "_.- " for c in name):
        return '{"type":"ready","name":"%s"}\n' % name
    return None


# The `hello` exactly as arbiter writes it to a course bot: read without the json module
# (see `json_module`); any other line goes through json.loads.
_COUNT = r"(?:0|[1-9][0-9]*)"
ASALTO_HELLO = re.compile(
    r'\{"type":"hello","protocol":1,"game":"asalto","role":"(rebel|officer)",'
    + r'"time_limit_ms":'
    + _COUNT
    + r',"init_limit_ms":'
    + _COUNT
    + r',"seed":'
    + _COUNT
    + r"\}\r?\n?"
)

# A `turn` exactly as arbiter writes it for Asalto: read without building the JSON
# objects, which costs several microseconds a turn. The pattern takes only lines that are
# valid JSON with these keys once each and no escapes, so what it reads is what json.loads
# would; any other line goes through json.loads.
_ROW = r'"([ .RO]{7})"'
ASALTO_TURN = re.compile(
    r'\{"type":"turn","role":"(rebel|officer)","board":\['
    + ",".join([_ROW] * 7)
    + r'\],"illegal":\{"officer":'
    + _COUNT
    + r',"rebel":'
    + _COUNT
    + r'\},"ply":'
    + _COUNT
    + r"\}\r?\n?"
)


# The start of arbiter's `end`: the game is over and the adapter exits, which needs nothing
# from the rest of the line, so the json module is not imported for it (see `json_module`).
END_START = b'{"type":"end",'


class Protocol:
    def __init__(self, proto_in, out_fd):
        self.proto_in = proto_in
        self.out_fd = out_fd

    def send(self, message):
        try:
            line = encode(message)
        except (TypeError, ValueError):
            line = encode({"type": "move", "move": repr(message.get("move"))[:200]})
        self.write(line + "\n")

    def write(self, line):
        data = line.encode("utf-8", "replace")
        written = os.write(self.out_fd, data)
        while written < len(data):
            data = data[written:]
            written = os.write(self.out_fd, data)

    def receive_hello(self):
        """The first protocol message, or None at end of input: the usual hello as the
        part of it that is used, its role; any other JSON object whole. Lines that are
        not JSON objects are skipped."""
        while True:
            line = self.proto_in.readline()
            if not line:
                return None
            hello = ASALTO_HELLO.fullmatch(line.decode("latin-1"))
            if hello is not None:
                return {"role": hello[1]}
            message = decode(line)
            if message is not None:
                return message


def decode(line):
    """A line's JSON object, or None when it is not one."""
    try:
        message = json_module().loads(line)
    except ValueError:
        return None
    return message if isinstance(message, dict) else None


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
        raise AttributeError("%s defines no class `Player`" % os.path.basename(path))
    global PLAYER_CLASS
    PLAYER_CLASS = player_class
    return name, player_class()


# The bot's `Player` once its file is loaded: where an error of the adapter's call of it
# points (`at_the_bot`).
PLAYER_CLASS = None


def main():
    if len(sys.argv) < 2:
        sys.stderr.write("usage: course_adapter.py BOT_FILE\n")
        return 2
    path = os.path.abspath(sys.argv[1])
    proto = Protocol(*open_protocol())

    hello = proto.receive_hello()
    if hello is None:
        return 0
    role = hello.get("role")
    try:
        name, player = load_player(path)
    except BaseException:
        trace = at_the_bot(current_traceback(), path, PLAYER_CLASS)
        proto.send({"type": "error", "message": trace})
        return 1
    announced = getattr(player, "name", None)
    name = announced if isinstance(announced, str) else name
    ready = ready_line(name)
    if ready is None:
        proto.send({"type": "ready", "name": name})
    else:
        proto.write(ready)

    # The loop runs once a turn: what it uses is looked up once, here.
    readline = proto.proto_in.readline
    asalto_turn = ASALTO_TURN.fullmatch
    write = proto.write
    while True:
        line = readline()
        if not line:
            return 0
        # Only an ASCII line can match; latin-1 decodes any line without failing.
        turn = asalto_turn(line.decode("latin-1"))
        if turn is not None:
            rows = turn.groups()
            role = rows[0]
            name = METHODS[role]
            rows = rows[1:]
        elif line.startswith(END_START):
            return 0
        else:
            message = decode(line)
            if message is None:
                continue
            kind = message.get("type")
            if kind == "end":
                return 0
            if kind != "turn":
                continue
            role = message.get("role", role)
            name = "play_" + str(role)
            rows = None
        try:
            if rows is None:
                rows = message["board"]
            board = list(map(list, rows))
            method = getattr(player, name)
            result = method(board)
            reply = move_line(result)
            if reply is None:
                reply = {"type": "move", "move": to_wire(result)}
        except BaseException:
            trace = at_the_bot(current_traceback(), path, PLAYER_CLASS)
            proto.send({"type": "error", "message": trace})
            return 1
        if type(reply) is str:
            write(reply)
        else:
            proto.send(reply)


if __name__ == "__main__":
    code = main()
    sys.stderr.flush()
    # Skips waiting for threads the bot may have left running.
    os._exit(code)
