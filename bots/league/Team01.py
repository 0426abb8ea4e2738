"""Team 01: a random legal move (the weakest reference a league usually includes)."""

import random

from asalto_rules import officer_moves, rebel_steps


class Player:
    def __init__(self):
        self.rng = random.Random()

    def play_rebel(self, board):
        moves = rebel_steps(board)
        return self.rng.choice(moves) if moves else None

    def play_officer(self, board):
        moves = officer_moves(board)
        return self.rng.choice(moves) if moves else None
