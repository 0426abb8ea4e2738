"""A deterministic course-style Asalto bot for differential testing (TeamXX.py style).

A bot file is a subclass of `ScriptedPlayer` named `Player` with a class attribute `SEED`
(the differential test writes one such file per game, beside a copy of this module). Its
replies depend only on its seed, its role and the boards it has been shown, so the same
bot file replays the same game under any referee that asks it the same questions: a
referee that skips a turn shifts every later reply.

Each role draws a temperament from its seed (how often it plays a legal move, provokes a
huff, sends a random in-range pair or a malformed reply, or raises) and then, per turn,
one of those kinds of reply:
- a legal move, from its own move generator (written from the rules, like a student's);
- a rule breach: a step in any of the eight directions from one of its pieces onto an
  empty point (often down, outward or diagonal where no line runs);
- for officers, a plain step while a capture is on the board: the referee huffs;
- a random pair of in-range points, legal by chance at most;
- a malformed reply: None, strings, a bare tuple, a single point, a flat list, a dict,
  out-of-range or string coordinates, too many points;
- rarely, an exception.
With no legal move on the board, a "legal move" turn sends a random pair instead.
Legal moves come as lists or as tuples of tuples (a course referee accepts both).
"""

import random

SIZE = 7
ORTHOGONAL = [(-1, 0), (1, 0), (0, -1), (0, 1)]
DIAGONAL = [(-1, -1), (-1, 1), (1, -1), (1, 1)]
FORTRESS = [(r, c) for r in range(0, 3) for c in range(2, 5)]

MALFORMED = [
    None,
    "resign",
    "",
    (3, 2),
    [[3, 2]],
    [3, 2, 2, 2],
    {"from": [3, 2], "to": [2, 2]},
    [[3, 2], [2]],
    [[-1, 0], [0, 0]],
    [[7, 3], [6, 3]],
    [["3", "2"], ["2", "2"]],
    [[[3, 2]], [[2, 2]]],
    [],
    [[0, 0], [0, 1]],
]


def on_board(r, c):
    if not (0 <= r < SIZE and 0 <= c < SIZE):
        return False
    if r < 2 or r > 4:
        return 2 <= c <= 4
    return True


def directions(r, c):
    return ORTHOGONAL + DIAGONAL if r % 2 == c % 2 else ORTHOGONAL


def pieces(board, kind):
    return [(r, c) for r in range(SIZE) for c in range(SIZE) if board[r][c] == kind]


def rebel_moves(board, upward_only=False):
    moves = []
    for r, c in pieces(board, "R"):
        for dr, dc in directions(r, c):
            tr, tc = r + dr, c + dc
            if not on_board(tr, tc) or board[tr][tc] != ".":
                continue
            if dr > 0 or (c < 3 and dc < 0) or (c > 3 and dc > 0):
                continue
            if upward_only and dr == 0:
                continue
            moves.append([[r, c], [tr, tc]])
    return moves


def can_capture(board, r, c):
    for dr, dc in directions(r, c):
        mr, mc, tr, tc = r + dr, c + dc, r + 2 * dr, c + 2 * dc
        if on_board(mr, mc) and on_board(tr, tc):
            if board[mr][mc] == "R" and board[tr][tc] == ".":
                return True
    return False


def capture_chains(board, start):
    chains = []

    def extend(path, cells):
        r, c = path[-1]
        for dr, dc in directions(r, c):
            mr, mc, tr, tc = r + dr, c + dc, r + 2 * dr, c + 2 * dc
            if not (on_board(mr, mc) and on_board(tr, tc)):
                continue
            if cells[mr][mc] != "R" or cells[tr][tc] != ".":
                continue
            cells[mr][mc] = "."
            chain = path + [[tr, tc]]
            chains.append(chain)
            extend(chain, cells)
            cells[mr][mc] = "R"

    cells = [row[:] for row in board]
    cells[start[0]][start[1]] = "."
    extend([list(start)], cells)
    return chains


def officer_steps(board):
    steps = []
    for r, c in pieces(board, "O"):
        for dr, dc in directions(r, c):
            tr, tc = r + dr, c + dc
            if on_board(tr, tc) and board[tr][tc] == ".":
                steps.append([[r, c], [tr, tc]])
    return steps


def officer_captures(board):
    chains = []
    for start in pieces(board, "O"):
        chains.extend(capture_chains(board, start))
    return chains


def breaches(board, kind):
    """Steps in all eight directions onto empty points: many break a rule."""
    out = []
    for r, c in pieces(board, kind):
        for dr, dc in ORTHOGONAL + DIAGONAL:
            tr, tc = r + dr, c + dc
            if on_board(tr, tc) and board[tr][tc] == ".":
                out.append([[r, c], [tr, tc]])
    return out


class ScriptedPlayer:
    SEED = 0

    def __init__(self):
        self.rng = None
        self.weights = None

    def start(self, role):
        self.rng = random.Random(self.SEED * 2 + (0 if role == "rebel" else 1))
        rng = self.rng
        # legal, breach, huff, random pair, malformed, exception
        self.weights = [
            rng.choice([2, 6, 12, 30]),
            rng.choice([0, 1, 3]),
            rng.choice([0, 2, 8]) if role == "officer" else 0,
            rng.choice([0, 1, 3]),
            rng.choice([0, 1, 3, 6]),
            rng.choice([0, 0, 0, 0.05, 0.2]),
        ]
        self.tuples = rng.random() < 0.3
        self.eager = rng.choice([0.0, 0.5, 0.9])

    def play_rebel(self, board):
        return self.reply(board, "rebel")

    def play_officer(self, board):
        return self.reply(board, "officer")

    def reply(self, board, role):
        if self.rng is None:
            self.start(role)
        rng = self.rng
        kind = rng.choices(range(6), weights=self.weights)[0]
        if kind == 5:
            raise ValueError("scripted exception")
        if kind == 4:
            return rng.choice(MALFORMED)
        if kind == 1:
            options = breaches(board, "R" if role == "rebel" else "O")
            if options:
                return rng.choice(options)
        if kind == 2:
            captures = officer_captures(board)
            steps = officer_steps(board)
            if captures and steps:
                return rng.choice(steps)
        if kind in (0, 1, 2):
            move = self.legal(board, role)
            if move is not None:
                if self.tuples:
                    return tuple(tuple(p) for p in move)
                return move
        return [[rng.randrange(SIZE), rng.randrange(SIZE)] for _ in range(2)]

    def legal(self, board, role):
        rng = self.rng
        if role == "rebel":
            moves = rebel_moves(board)
            # Mostly upward and into the fortress: fills it and hems the officers in.
            for prefer in (self.into_fortress, self.upward):
                if moves and rng.random() < self.eager:
                    moves = [m for m in moves if prefer(m)] or moves
        else:
            moves = officer_captures(board)
            if not moves:
                moves = officer_steps(board)
                # Some officers roam out of the fortress, leaving it to the rebels.
                if moves and rng.random() < self.eager:
                    moves = [m for m in moves if m[1][0] > m[0][0]] or moves
        return rng.choice(moves) if moves else None

    @staticmethod
    def into_fortress(move):
        return tuple(move[1]) in FORTRESS

    @staticmethod
    def upward(move):
        return move[1][0] < move[0][0]
