"""Misbehaving course bot: forks a child on its first move that lives on (holding the
protocol pipe it inherited) and plays normally. The game must go on, and the child must
not outlive the game."""
import os
import time

from asalto_moves import a_legal_move


class Player:
    def __init__(self):
        self.forked = False

    def _play(self, board, role):
        if not self.forked:
            self.forked = True
            if os.fork() == 0:
                time.sleep(60)
                os._exit(0)
        return a_legal_move(board, role)

    def play_rebel(self, board):
        return self._play(board, "rebel")

    def play_officer(self, board):
        return self._play(board, "officer")
