"""Runs a course-style Hinger agent as an arbiter protocol v1 bot (docs/PROTOCOL.md).

A course agent is a file `a3_agent.py` with a class `Agent`, next to an `a1_state.py` with
a class `State`: `State(grid)` takes the board as a list of lists of ints, `Agent(size,
name=...)` takes the board's size `(m, n)`, and `agent.move(state, mode)` returns the cell to
take a counter from, e.g. `(i, j)`. The agent knows nothing of the protocol: this adapter
speaks it for the agent.

Usage: python3 -u hinger_adapter.py AGENT_FILE [--mode MODE]
       (arbiter embeds this file and runs it with -c)

- After `hello`: the agent's folder goes first on sys.path, `a1_state.py` is imported (by
  path, as the module `a1_state`, so the agent's own `from a1_state import State` gets the
  same module) and then the agent file. An error there is sent as `error` (an `exception`
  at the handshake); `ready` announces the agent's folder name.
- The board's size arrives with the first `turn`, so the agent is built then, once:
  `Agent((m, n), name=FOLDER)` (`name` only if its constructor takes one).
- Each turn: `agent.move(State(grid), mode)` with a fresh grid. The mode is `--mode`, else
  the environment variable ARBITER_HINGER_MODE, else `alphabeta`.
- The reply: if the result is a sequence (tuple, list, numpy array) whose first two items
  are integers (numpy integers and anything with __index__ count; booleans do not), the
  move is those two: `(2, 3)`, `[2, 3]` and `(2, 3, 0.5)` all send `[2, 3]`. Anything else
  (None, a single number, a string, `((2, 3),)`, `(2.0, 3)`) is sent as what it is, for
  the referee to judge as the illegal move it is. An exception is sent as `error` with
  its traceback.
- Prints never reach the protocol: the real stdout is duplicated to a private descriptor
  and descriptor 1 is pointed at stderr; stdin is replaced by /dev/null.
- Exits on `end` or at end of input. Standard library only, Python 3.8 or newer.
"""

import collections.abc
import importlib.util
import inspect
import json
import math
import operator
import os
import sys


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


MAX_DEPTH = 16
DEFAULT_MODE = "alphabeta"


def open_protocol():
    """The protocol's input and output streams, with the agent's fds 0 and 1 neutralised."""
    out_fd = os.dup(1)
    in_fd = os.dup(0)
    os.dup2(2, 1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    sys.stdout = sys.stderr
    sys.stdin = open(os.devnull, "r")
    proto_out = os.fdopen(out_fd, "w", encoding="utf-8", newline="\n")
    proto_in = os.fdopen(in_fd, "r", encoding="utf-8", errors="replace", newline="\n")
    return proto_in, proto_out


def to_wire(value, depth=0):
    """Any value as JSON: sequences become lists, integer-like values ints, anything else
    what it is (or its repr)."""
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


def as_integer(value):
    """The int an integer-like value stands for, or None (booleans are not integers)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float) or not hasattr(type(value), "__index__"):
        return None
    try:
        return operator.index(value)
    except Exception:
        return None


def to_move(result):
    """The wire move for an agent's result: its first two items when both are integers,
    else the result as it is."""
    items = result
    tolist = getattr(result, "tolist", None)
    if callable(tolist) and not isinstance(result, (list, tuple)):
        try:
            items = tolist()
        except Exception:
            items = result
    if isinstance(items, (list, tuple, collections.abc.Sequence)) and not isinstance(
        items, (str, bytes, bytearray)
    ):
        try:
            first = list(items[:2]) if isinstance(items, (list, tuple)) else [items[0], items[1]]
        except Exception:
            first = []
        if len(first) == 2:
            pair = [as_integer(v) for v in first]
            if None not in pair:
                return pair
    return to_wire(result)


class Protocol:
    def __init__(self, proto_in, proto_out):
        self.proto_in = proto_in
        self.proto_out = proto_out

    def send(self, message):
        try:
            line = json.dumps(message, separators=(",", ":"), allow_nan=False)
        except (TypeError, ValueError):
            line = json.dumps({"type": "move", "move": repr(message.get("move"))[:200]})
        self.proto_out.write(line + "\n")
        self.proto_out.flush()

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


def load_module(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError("cannot load %r as a Python module" % path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def load_agent(path):
    """The agent's State and Agent classes."""
    folder = os.path.dirname(path)
    sys.path.insert(0, folder)
    state_file = os.path.join(folder, "a1_state.py")
    if not os.path.isfile(state_file):
        raise ImportError("no a1_state.py next to %s" % path)
    state_module = load_module("a1_state", state_file)
    name = os.path.splitext(os.path.basename(path))[0]
    agent_module = load_module(name, path)
    state_class = getattr(state_module, "State", None)
    if state_class is None:
        raise AttributeError("%s defines no class `State`" % os.path.basename(state_file))
    agent_class = getattr(agent_module, "Agent", None)
    if agent_class is None:
        raise AttributeError("%s defines no class `Agent`" % os.path.basename(path))
    return state_class, agent_class


def takes_name(cls):
    try:
        params = inspect.signature(cls).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.name == "name" or p.kind == p.VAR_KEYWORD for p in params)


def parse_mode(argv):
    if "--mode" in argv:
        i = argv.index("--mode")
        if i + 1 < len(argv):
            return argv[i + 1]
    return os.environ.get("ARBITER_HINGER_MODE") or DEFAULT_MODE


def main():
    if len(sys.argv) < 2:
        sys.stderr.write("usage: hinger_adapter.py AGENT_FILE [--mode MODE]\n")
        return 2
    path = os.path.abspath(sys.argv[1])
    mode = parse_mode(sys.argv[2:])
    team = os.path.basename(os.path.dirname(path)) or "agent"
    proto = Protocol(*open_protocol())

    hello = proto.receive()
    if hello is None:
        return 0
    try:
        state_class, agent_class = load_agent(path)
    except BaseException:
        proto.send({"type": "error", "message": current_traceback()})
        return 1
    proto.send({"type": "ready", "name": team})

    agent = None
    while True:
        message = proto.receive()
        if message is None or message.get("type") == "end":
            return 0
        if message.get("type") != "turn":
            continue
        try:
            grid = [[int(c) for c in row] for row in message["board"]]
            if agent is None:
                size = (len(grid), len(grid[0]) if grid else 0)
                if takes_name(agent_class):
                    agent = agent_class(size, name=team)
                else:
                    agent = agent_class(size)
            result = agent.move(state_class(grid), mode)
            reply = {"type": "move", "move": to_move(result)}
        except BaseException:
            proto.send({"type": "error", "message": current_traceback()})
            return 1
        proto.send(reply)


if __name__ == "__main__":
    code = main()
    sys.stderr.flush()
    # Skips waiting for threads the agent may have left running.
    os._exit(code)
