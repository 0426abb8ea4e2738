"""Misbehaving course bot: returns things that are not moves, one per turn (-> each is an
illegal move; the game goes on)."""

BAD = [None, "e2e4", 3.5, {"a": 1}, [[1]], float("nan"), True, [[3, 2], "x"], object()]


class Player:
    def __init__(self):
        self.turn = 0

    def _play(self):
        value = BAD[self.turn % len(BAD)]
        self.turn += 1
        return value

    def play_rebel(self, board):
        return self._play()

    def play_officer(self, board):
        return self._play()
