"""Helper module for the misbehaving bots: legal moves, from random_rules.py beside it (a
copy of ../random_bot.py: a confined bot reads its own folder only). Importing it also
checks that a course bot's own folder is on the module path."""

import importlib.util
import os

_path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "random_rules.py")
_spec = importlib.util.spec_from_file_location("_random_bot_rules", _path)
_rules = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_rules)


def a_legal_move(board, role):
    moves = _rules.rebel_moves(board) if role == "rebel" else _rules.officer_moves(board)
    return moves[0] if moves else None
