"""A course-style Asalto bot that plays greedily: officers take the longest capture,
rebels advance into the fortress and avoid stepping where they can be jumped.

It imports the rules of asalto_moves.py from its own folder, as course bots with
helper modules do.
"""

import random

from asalto_moves import FORTRESS, apply, officer_moves, rebel_moves


def rebel_score(board, move):
    (r, c), (tr, tc) = move
    after = apply(board, move)
    score = 0.0
    if (tr, tc) in FORTRESS and (r, c) not in FORTRESS:
        score += 10
    score += 2 * (r - tr)  # upwards
    exposed = [m for m in officer_moves(after) if len(m) > 1 and _is_capture(m)]
    score -= 6 * max((len(m) - 1 for m in exposed), default=0)
    return score


def _is_capture(move):
    (r, c), (tr, tc) = move[0], move[1]
    return abs(tr - r) == 2 or abs(tc - c) == 2


def officer_score(board, move):
    if _is_capture(move):
        return 100 + 10 * (len(move) - 1)
    # Steps: towards the rebels' front, i.e. downwards, keeps the fortress covered less;
    # stay near the fortress instead.
    (tr, tc) = move[-1]
    return -abs(tr - 2) - abs(tc - 3) * 0.5


class Player:
    def __init__(self):
        self.rng = random.Random()

    def _best(self, board, moves, score):
        if not moves:
            return None
        scored = [(score(board, m), self.rng.random(), m) for m in moves]
        return max(scored)[2]

    def play_rebel(self, board):
        return self._best(board, rebel_moves(board), rebel_score)

    def play_officer(self, board):
        return self._best(board, officer_moves(board), officer_score)
