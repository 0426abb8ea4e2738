"""Misbehaving course bot: thinks for 30 seconds, far past the move limit (-> timeout)."""
import time


class Player:
    def play_rebel(self, board):
        time.sleep(30)
        return [[3, 2], [2, 2]]

    def play_officer(self, board):
        time.sleep(30)
        return [[1, 2], [0, 2]]
