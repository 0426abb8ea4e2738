"""Team 12: one ply of look-ahead. Officers take the longest capture, rebels pick the step that
scores best afterwards. Deterministic: ties go to the first move found."""

from utils import officer_moves, play, rebel_steps, score


class Player:
    def play_rebel(self, board):
        moves = rebel_steps(board)
        if not moves:
            return None
        return max(moves, key=lambda m: score(play(board, m)))

    def play_officer(self, board):
        moves = officer_moves(board)
        if not moves:
            return None
        return min(moves, key=lambda m: (-len(m), score(play(board, m))))
