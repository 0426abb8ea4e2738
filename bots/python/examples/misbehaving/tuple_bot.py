"""Course bot returning moves as tuples of tuples of integer-like objects (as numpy integers
are): these are moves like any other and must be accepted."""
from asalto_moves import a_legal_move


class FakeInt:
    """Behaves like numpy.int64 where it matters: it is not an int but has __index__."""

    def __init__(self, value):
        self.value = value

    def __index__(self):
        return self.value


class Player:
    def __init__(self):
        self.turn = 0

    def _play(self, board, role):
        move = a_legal_move(board, role)
        self.turn += 1
        if self.turn % 2:
            return tuple((FakeInt(r), FakeInt(c)) for r, c in move)
        return tuple(tuple(p) for p in move)

    def play_rebel(self, board):
        return self._play(board, "rebel")

    def play_officer(self, board):
        return self._play(board, "officer")
