"""Team 13's helper module (the same name as Team 12's: each team's bot imports its own):
the move generator and score its minimax searches with.
"""

PLAYABLE = {(r, c) for r in range(7) for c in range(7) if 2 <= c <= 4 or 2 <= r <= 4}
STRAIGHT = ((-1, 0), (1, 0), (0, -1), (0, 1))
SLANTED = ((-1, -1), (-1, 1), (1, -1), (1, 1))
FORTRESS = {(r, c) for r in range(3) for c in range(2, 5)}


def lines_from(point):
    r, c = point
    return STRAIGHT + SLANTED if (r + c) % 2 == 0 else STRAIGHT


def find(board, piece):
    return [(r, c) for (r, c) in sorted(PLAYABLE) if board[r][c] == piece]


def empty(board, point):
    return point in PLAYABLE and board[point[0]][point[1]] == "."


def rebel_steps(board):
    steps = []
    for (r, c) in find(board, "R"):
        for (dr, dc) in lines_from((r, c)):
            if dr == 1 or (c < 3 and dc == -1) or (c > 3 and dc == 1):
                continue
            if empty(board, (r + dr, c + dc)):
                steps.append([[r, c], [r + dr, c + dc]])
    return steps


def jumps(board, path):
    """Capture chains continuing `path` (the officer already moved along it on `board`)."""
    found = []
    r, c = path[-1]
    for (dr, dc) in lines_from((r, c)):
        over, land = (r + dr, c + dc), (r + 2 * dr, c + 2 * dc)
        if over in PLAYABLE and board[over[0]][over[1]] == "R" and empty(board, land):
            longer = path + [list(land)]
            found.append(longer)
            found.extend(jumps(play(board, [[r, c], list(land)]), longer))
    return found


def officer_moves(board):
    """Captures if there are any (a plain step would then be huffed), else plain steps."""
    captures = [m for o in find(board, "O") for m in jumps(board, [list(o)])]
    if captures:
        return captures
    return [[[r, c], [r + dr, c + dc]]
            for (r, c) in find(board, "O") for (dr, dc) in lines_from((r, c))
            if empty(board, (r + dr, c + dc))]


def play(board, move):
    """A new board with `move` made, every jumped rebel taken off."""
    after = [list(row) for row in board]
    piece = after[move[0][0]][move[0][1]]
    after[move[0][0]][move[0][1]] = "."
    for (a, b) in zip(move, move[1:]):
        if abs(a[0] - b[0]) == 2 or abs(a[1] - b[1]) == 2:
            after[(a[0] + b[0]) // 2][(a[1] + b[1]) // 2] = "."
    after[move[-1][0]][move[-1][1]] = piece
    return after


def score(board):
    """From the rebels' side: rebels in the fortress and on the board, officers' mobility."""
    rebels = find(board, "R")
    inside = sum(1 for p in rebels if p in FORTRESS)
    advance = sum(6 - r for (r, _) in rebels)
    return 10 * inside + 3 * len(rebels) + advance - len(officer_moves(board))
