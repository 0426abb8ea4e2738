"""Misbehaving course bot: plays legal moves, then raises on its third move (-> exception)."""
from asalto_moves import a_legal_move


class Player:
    def __init__(self):
        self.moves = 0

    def _play(self, board, role):
        self.moves += 1
        if self.moves == 3:
            raise RuntimeError("deliberate failure on move 3")
        return a_legal_move(board, role)

    def play_rebel(self, board):
        return self._play(board, "rebel")

    def play_officer(self, board):
        return self._play(board, "officer")
