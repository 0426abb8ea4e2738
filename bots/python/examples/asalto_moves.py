"""The rules of Asalto for the example bots of this folder: legal moves and the board after
a move (docs/rules/asalto.md). A team's own helper module, imported from the bot's folder as
course submissions do; not a bot (it has no Player), so it is no entrant of a run and every
bot of this folder may read it. random_bot.py keeps its own copy of these rules so that it
stands alone as a single file.

A board is a list of 7 lists of 1-character strings ('R' rebel, 'O' officer, '.' empty
point, ' ' off the board); a move is a list of [row, col] points: the piece's start, then
each point it lands on.
"""

SIZE = 7
ORTHOGONAL = [(-1, 0), (1, 0), (0, -1), (0, 1)]
DIAGONAL = [(-1, -1), (-1, 1), (1, -1), (1, 1)]
FORTRESS = [(r, c) for r in range(0, 3) for c in range(2, 5)]


def on_board(r, c):
    """One of the 33 playable points."""
    if not (0 <= r < SIZE and 0 <= c < SIZE):
        return False
    if r < 2 or r > 4:
        return 2 <= c <= 4
    return True


def directions(r, c):
    """The line directions leaving (r, c): diagonals only from points where r%2 == c%2."""
    if r % 2 == c % 2:
        return ORTHOGONAL + DIAGONAL
    return ORTHOGONAL


def pieces(board, kind):
    return [(r, c) for r in range(SIZE) for c in range(SIZE) if board[r][c] == kind]


def rebel_moves(board):
    moves = []
    for r, c in pieces(board, "R"):
        for dr, dc in directions(r, c):
            tr, tc = r + dr, c + dc
            if not on_board(tr, tc) or board[tr][tc] != ".":
                continue
            if dr > 0:  # never downwards
                continue
            if c < 3 and dc < 0:  # left of the middle: never further left
                continue
            if c > 3 and dc > 0:  # right of the middle: never further right
                continue
            moves.append([[r, c], [tr, tc]])
    return moves


def capture_chains(board, start):
    """Every capturing chain (one or more jumps) of the officer at `start`."""
    chains = []

    def extend(path, cells):
        r, c = path[-1]
        for dr, dc in directions(r, c):
            mr, mc = r + dr, c + dc
            tr, tc = r + 2 * dr, c + 2 * dc
            if not (on_board(mr, mc) and on_board(tr, tc)):
                continue
            if cells[mr][mc] != "R" or cells[tr][tc] != ".":
                continue
            cells[mr][mc] = "."
            cells[r][c] = "."
            cells[tr][tc] = "O"
            chain = path + [[tr, tc]]
            chains.append(chain)
            extend(chain, cells)
            cells[tr][tc] = "."
            cells[r][c] = "O"
            cells[mr][mc] = "R"

    cells = [row[:] for row in board]
    extend([list(start)], cells)
    return chains


def officer_moves(board):
    """Captures when any officer can capture (a plain step would be huffed), else steps."""
    captures = []
    for start in pieces(board, "O"):
        captures.extend(capture_chains(board, start))
    if captures:
        return captures
    steps = []
    for r, c in pieces(board, "O"):
        for dr, dc in directions(r, c):
            tr, tc = r + dr, c + dc
            if on_board(tr, tc) and board[tr][tc] == ".":
                steps.append([[r, c], [tr, tc]])
    return steps


def apply(board, move):
    """The board after `move` (a fresh copy), captured rebels removed."""
    cells = [row[:] for row in board]
    (r, c) = move[0]
    piece = cells[r][c]
    cells[r][c] = "."
    for (ar, ac), (br, bc) in zip(move, move[1:]):
        if abs(br - ar) == 2 or abs(bc - ac) == 2:
            cells[(ar + br) // 2][(ac + bc) // 2] = "."
    (r, c) = move[-1]
    cells[r][c] = piece
    return cells
