"""Misbehaving course bot: plays one move, then kills its own process on the second
(-> crash, with the exit status)."""
import os

from asalto_moves import a_legal_move


class Player:
    def __init__(self):
        self.moves = 0

    def _play(self, board, role):
        self.moves += 1
        if self.moves == 2:
            os._exit(5)
        return a_legal_move(board, role)

    def play_rebel(self, board):
        return self._play(board, "rebel")

    def play_officer(self, board):
        return self._play(board, "officer")
