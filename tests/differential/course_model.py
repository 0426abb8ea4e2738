"""An independent model of the course's Asalto referee, written from the rules page
(docs/rules/asalto.md) and not from arbiter's code: the differential test plays the same
deterministic course bots through `arbiter play` and through this model and compares the
games move by move.

What it models, as the course referee does it:
- the loop: rounds of a rebel turn then an officer turn; each turn the side's Player is
  called with a copy of the board, whether or not that side has a legal move;
- `is_valid_move`: shape, then each point in range and on the board, then the mover's piece
  on the start point, then the move itself (a rebel's one step up or sideways toward the
  middle onto an empty point; an officer's step onto an empty point, or a chain of jumps
  each over a rebel onto an empty point);
- huffing: an officer step while any officer could capture is not played; the first
  capable officer in the order [mover, the others row-major] is removed, uncounted;
- an invalid reply costs the turn and counts one illegal move (where the course referee
  crashes on None and the like, the rules page makes them illegal moves);
- the end checks after a legal move only: fewer than 9 rebels, the fortress full, the
  officers unable to move;
- an exception loses the game at once;
- after the round limit, fewer illegal moves wins, equal counts tie (the assignment text;
  the course referee's own comparison is a bug the rules page overrides).

Usage: python3 course_model.py GAMES.jsonl
Each input line is {"id": ..., "bot": PATH, "round_limit": N}: the bot file (a course bot
with a class `Player`) plays both roles, one instance each. Each output line is
{"id", "winner" ("rebel", "officer" or null), "reason" (captured, fortress, immobile,
limit or exception), "rounds", "illegal": {"rebel", "officer"}, "turns": [[role, verdict],
...] with verdicts move, huff, illegal and exception, "board": the final rows}.
"""

import importlib.util
import json
import os
import sys

SIZE = 7
ORTHOGONAL = [(-1, 0), (1, 0), (0, -1), (0, 1)]
DIAGONAL = [(-1, -1), (-1, 1), (1, -1), (1, 1)]
FORTRESS = [(r, c) for r in range(0, 3) for c in range(2, 5)]
INITIAL = [
    "  ...  ",
    "  O.O  ",
    "RR...RR",
    "RRRRRRR",
    "RRRRRRR",
    "  RRR  ",
    "  RRR  ",
]


def playable(r, c):
    if r < 0 or r >= SIZE or c < 0 or c >= SIZE:
        return False
    return 2 <= c <= 4 if (r < 2 or r > 4) else True


def lines_from(r, c):
    """Directions with a line leaving (r, c): diagonals only where r % 2 == c % 2."""
    return ORTHOGONAL + DIAGONAL if r % 2 == c % 2 else ORTHOGONAL


def officer_can_capture(board, r, c):
    for dr, dc in lines_from(r, c):
        mid, to = (r + dr, c + dc), (r + 2 * dr, c + 2 * dc)
        if playable(*mid) and playable(*to):
            if board[mid[0]][mid[1]] == "R" and board[to[0]][to[1]] == ".":
                return True
    return False


def officers(board):
    return [(r, c) for r in range(SIZE) for c in range(SIZE) if board[r][c] == "O"]


def officers_can_move(board):
    for r, c in officers(board):
        if officer_can_capture(board, r, c):
            return True
        for dr, dc in lines_from(r, c):
            if playable(r + dr, c + dc) and board[r + dr][c + dc] == ".":
                return True
    return False


def as_points(move):
    """The reply's points as (row, col) ints on the board, or None if it is not a move."""
    if not isinstance(move, (list, tuple)) or len(move) < 2:
        return None
    points = []
    for point in move:
        if not isinstance(point, (list, tuple)) or len(point) != 2:
            return None
        r, c = point
        if type(r) is not int or type(c) is not int:
            return None
        if not playable(r, c):
            return None
        points.append((r, c))
    return points


def line_step(a, b, length):
    """The direction if b is `length` points from a along a line leaving a, else None."""
    dr, dc = b[0] - a[0], b[1] - a[1]
    if dr % length or dc % length:
        return None
    d = (dr // length, dc // length)
    if d not in lines_from(*a):
        return None
    return d


def is_valid_move(board, move, piece):
    """'step' or 'capture' when `move` is legal for `piece` ('R' or 'O'), else None.
    An officer step is judged as a step here; the huff comes after."""
    points = as_points(move)
    if points is None:
        return None
    start = points[0]
    if board[start[0]][start[1]] != piece:
        return None
    if piece == "R":
        if len(points) != 2:
            return None
        to = points[1]
        d = line_step(start, to, 1)
        if d is None or board[to[0]][to[1]] != ".":
            return None
        if d[0] > 0:
            return None
        if (start[1] < 3 and d[1] < 0) or (start[1] > 3 and d[1] > 0):
            return None
        return "step"
    if len(points) == 2 and line_step(start, points[1], 1) is not None:
        to = points[1]
        return "step" if board[to[0]][to[1]] == "." else None
    cells = [row[:] for row in board]
    cells[start[0]][start[1]] = "."
    at = start
    for to in points[1:]:
        d = line_step(at, to, 2)
        if d is None:
            return None
        mid = (at[0] + d[0], at[1] + d[1])
        if not playable(*mid) or cells[mid[0]][mid[1]] != "R":
            return None
        if cells[to[0]][to[1]] != ".":
            return None
        cells[mid[0]][mid[1]] = "."
        at = to
    return "capture"


def huff_victim(board, mover):
    """The officer a plain step by `mover` loses, or None when no officer could capture."""
    order = [mover] + [p for p in officers(board) if p != mover]
    for r, c in order:
        if officer_can_capture(board, r, c):
            return (r, c)
    return None


def apply(board, points):
    piece = board[points[0][0]][points[0][1]]
    board[points[0][0]][points[0][1]] = "."
    for a, b in zip(points, points[1:]):
        if abs(b[0] - a[0]) == 2 or abs(b[1] - a[1]) == 2:
            board[(a[0] + b[0]) // 2][(a[1] + b[1]) // 2] = "."
    board[points[-1][0]][points[-1][1]] = piece


def end_check(board):
    rebels = sum(row.count("R") for row in board)
    if rebels < 9:
        return ("officer", "captured")
    if all(board[r][c] == "R" for r, c in FORTRESS):
        return ("rebel", "fortress")
    if not officers_can_move(board):
        return ("rebel", "immobile")
    return None


def play(player_class, round_limit):
    board = [list(row) for row in INITIAL]
    bots = {"rebel": player_class(), "officer": player_class()}
    illegal = {"rebel": 0, "officer": 0}
    turns = []
    rounds = 0
    result = None
    while result is None and rounds < round_limit:
        rounds += 1
        for role, piece in (("rebel", "R"), ("officer", "O")):
            other = "officer" if role == "rebel" else "rebel"
            try:
                move = getattr(bots[role], "play_" + role)([row[:] for row in board])
            except Exception:
                turns.append([role, "exception"])
                result = (other, "exception")
                break
            kind = is_valid_move(board, move, piece)
            if kind is None:
                illegal[role] += 1
                turns.append([role, "illegal"])
                continue
            points = as_points(move)
            if kind == "step" and piece == "O":
                victim = huff_victim(board, points[0])
                if victim is not None:
                    board[victim[0]][victim[1]] = "."
                    turns.append([role, "huff"])
                    continue
            apply(board, points)
            turns.append([role, "move"])
            result = end_check(board)
            if result is not None:
                break
    if result is None:
        r, o = illegal["rebel"], illegal["officer"]
        result = ("rebel" if r < o else "officer" if o < r else None, "limit")
    return {
        "winner": result[0],
        "reason": result[1],
        "rounds": rounds,
        "illegal": illegal,
        "turns": turns,
        "board": ["".join(row) for row in board],
    }


def load_player_class(path):
    folder = os.path.dirname(os.path.abspath(path))
    if folder not in sys.path:
        sys.path.insert(0, folder)
    name = os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.Player


def main():
    with open(sys.argv[1], encoding="utf-8") as games:
        for line in games:
            if not line.strip():
                continue
            game = json.loads(line)
            out = play(load_player_class(game["bot"]), game["round_limit"])
            out["id"] = game["id"]
            sys.stdout.write(json.dumps(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
