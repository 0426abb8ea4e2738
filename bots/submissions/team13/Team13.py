"""Team 13: a fixed-depth minimax (two plies) over the helper's score, printing a line per
move (course bots print; arbiter keeps it in the bot's log, never on the protocol).
Deterministic, like most course bots."""

from utils import officer_moves, play, rebel_steps, score

DEPTH = 2


def value(board, depth, rebels_to_move):
    moves = rebel_steps(board) if rebels_to_move else officer_moves(board)
    if depth == 0 or not moves:
        return score(board)
    values = [value(play(board, m), depth - 1, not rebels_to_move) for m in moves]
    return max(values) if rebels_to_move else min(values)


class Player:
    def choose(self, board, rebels):
        moves = rebel_steps(board) if rebels else officer_moves(board)
        if not moves:
            return None
        pick = max if rebels else min
        best = pick(moves, key=lambda m: value(play(board, m), DEPTH - 1, not rebels))
        print("Team13 considered", len(moves), "moves")
        return best

    def play_rebel(self, board):
        return self.choose(board, True)

    def play_officer(self, board):
        return self.choose(board, False)
