"""Misbehaving course bot: its constructor raises (-> exception at the handshake)."""


class Player:
    def __init__(self):
        raise ValueError("cannot load my opening book")

    def play_rebel(self, board):
        return [[3, 2], [2, 2]]

    def play_officer(self, board):
        return [[1, 2], [0, 2]]
