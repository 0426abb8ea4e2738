"""Misbehaving course bot: prints to stdout (through print and straight to descriptor 1)
inside its moves. None of it may reach the protocol: it all lands in the bot's stderr log."""
import os
import sys

from asalto_moves import a_legal_move

print("noisy bot loading, this goes to stdout")


class Player:
    def _play(self, board, role):
        print("thinking about", board)
        print('{"type":"move","move":null}')
        sys.stdout.write("half a line without newline ")
        os.write(1, b'{"type":"error","message":"fake, written to fd 1"}\n')
        return a_legal_move(board, role)

    def play_rebel(self, board):
        return self._play(board, "rebel")

    def play_officer(self, board):
        return self._play(board, "officer")
