"""The baseline of benches/python.rs: an Asalto referee in one Python process that imports
both course bots and alternates their calls with the rules, as the course's own referee
does. The rules come from tests/differential/course_model.py, a model of the course
referee written from the rules page independently of arbiter.

Usage: python3 asalto_referee.py REBEL_BOT.py OFFICER_BOT.py FIRST_SEED [GAMES]
Plays GAMES games (default 1), seeds FIRST_SEED, FIRST_SEED + 1, ..., each with fresh
Player instances built while $ASALTO_BENCH_SEED holds the game's seed. One line per game:
{"seed", "winner" ("rebel", "officer" or null), "reason", "plies", "moves": every reply
as the bot returned it, as JSON}.
"""

import importlib.util
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "differential"))

from course_model import (  # noqa: E402
    INITIAL,
    as_points,
    apply,
    end_check,
    huff_victim,
    is_valid_move,
)

ROUND_LIMIT = 1000


def load_player_class(path):
    path = os.path.abspath(path)
    folder = os.path.dirname(path)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    name = os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module.Player


def as_json(value):
    """A reply as arbiter's adapter puts it on the wire: tuples become lists."""
    if isinstance(value, (list, tuple)):
        return [as_json(v) for v in value]
    return value


def play(classes, seed):
    os.environ["ASALTO_BENCH_SEED"] = str(seed)
    bots = {role: cls() for role, cls in classes.items()}
    board = [list(row) for row in INITIAL]
    illegal = {"rebel": 0, "officer": 0}
    moves = []
    result = None
    rounds = 0
    while result is None and rounds < ROUND_LIMIT:
        rounds += 1
        for role, piece in (("rebel", "R"), ("officer", "O")):
            other = "officer" if role == "rebel" else "rebel"
            try:
                move = getattr(bots[role], "play_" + role)([row[:] for row in board])
            except Exception:
                result = (other, "exception")
                break
            moves.append(as_json(move))
            kind = is_valid_move(board, move, piece)
            if kind is None:
                illegal[role] += 1
                continue
            points = as_points(move)
            if kind == "step" and piece == "O":
                victim = huff_victim(board, points[0])
                if victim is not None:
                    board[victim[0]][victim[1]] = "."
                    continue
            apply(board, points)
            result = end_check(board)
            if result is not None:
                break
    if result is None:
        r, o = illegal["rebel"], illegal["officer"]
        result = ("rebel" if r < o else "officer" if o < r else None, "limit")
    return {
        "seed": seed,
        "winner": result[0],
        "reason": result[1],
        "plies": len(moves),
        "moves": moves,
    }


def main():
    if len(sys.argv) not in (4, 5):
        sys.stderr.write(__doc__)
        return 2
    classes = {
        "rebel": load_player_class(sys.argv[1]),
        "officer": load_player_class(sys.argv[2]),
    }
    first = int(sys.argv[3])
    games = int(sys.argv[4]) if len(sys.argv) == 5 else 1
    for seed in range(first, first + games):
        sys.stdout.write(json.dumps(play(classes, seed), separators=(",", ":")) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
