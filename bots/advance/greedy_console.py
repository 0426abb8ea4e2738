#!/usr/bin/env python3
"""An Advance console bot, run once per move as the course runs students' programs:

    greedy_console.py name                 prints the bot's name
    greedy_console.py white|black IN OUT   reads the board in IN, writes the board after
                                           its move to OUT

It plays the legal move that wins the most material (a capture, a shot, a conversion),
ties broken at random. The rules are those of docs/rules/advance.md.
"""
import random
import sys

N = 9
VALUE = {"z": 1, "b": 2, "j": 3, "m": 4, "s": 5, "c": 6, "d": 7, "g": 0}
ORTHO = [(-1, 0), (1, 0), (0, -1), (0, 1)]
KING = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if (dr, dc) != (0, 0)]
KNIGHT = [(-2, -1), (-2, 1), (-1, -2), (-1, 2), (1, -2), (1, 2), (2, -1), (2, 1)]
SHOTS = [(-3, 0), (3, 0), (0, -3), (0, 3), (-2, -2), (-2, 2), (2, -2), (2, 2)]


def colour(p):
    if p.isupper():
        return "white"
    if p.islower():
        return "black"
    return None


def other(side):
    return "black" if side == "white" else "white"


def on(r, c):
    return 0 <= r < N and 0 <= c < N


def protected(b, r, c):
    side = colour(b[r][c])
    sentinel = "S" if side == "white" else "s"
    return side is not None and any(
        on(r + dr, c + dc) and b[r + dr][c + dc] == sentinel for dr, dc in ORTHO)


def capturable(b, r, c, side):
    p = b[r][c]
    return colour(p) == other(side) and p.lower() != "g" and not protected(b, r, c)


def clear(b, r, c, tr, tc):
    dr, dc = (tr > r) - (tr < r), (tc > c) - (tc < c)
    r, c = r + dr, c + dc
    while (r, c) != (tr, tc):
        if b[r][c] != ".":
            return False
        r, c = r + dr, c + dc
    return True


def attacks(b, r, c, side, tr, tc):
    p, dr, dc = b[r][c].lower(), tr - r, tc - c
    f = -1 if side == "white" else 1
    if p == "z":
        if dr == f and abs(dc) <= 1:
            return True
        return dr == 2 * f and dc in (-2, 0, 2) and b[r + f][c + dc // 2] == "."
    if p in "bg":
        return (dr, dc) != (0, 0) and abs(dr) <= 1 and abs(dc) <= 1
    if p == "s":
        return (dr, dc) in KNIGHT
    if p == "c":
        return (dr, dc) in SHOTS
    if p == "m":
        return (dr == 0) != (dc == 0) and clear(b, r, c, tr, tc)
    if p == "d":
        line = dr == 0 or dc == 0 or abs(dr) == abs(dc)
        return line and max(abs(dr), abs(dc)) >= 2 and clear(b, r, c, tr, tc)
    return False


def in_danger(b, side):
    general = "G" if side == "white" else "g"
    at = [(r, c) for r in range(N) for c in range(N) if b[r][c] == general]
    if not at or protected(b, *at[0]):
        return False
    tr, tc = at[0]
    enemy = other(side)
    return any(colour(b[r][c]) == enemy and attacks(b, r, c, enemy, tr, tc)
               for r in range(N) for c in range(N))


def piece_moves(b, r, c, side):
    """(kind, target) pairs: step, build, swap, convert, shoot."""
    p = b[r][c].lower()
    empty = lambda tr, tc: b[tr][tc] == "."
    out = []
    if p == "z":
        f = -1 if side == "white" else 1
        for dc in (-1, 0, 1):
            tr, tc = r + f, c + dc
            if not on(tr, tc):
                continue
            if empty(tr, tc) or capturable(b, tr, tc, side):
                out.append(("step", tr, tc))
            lr, lc = r + 2 * f, c + 2 * dc
            if empty(tr, tc) and on(lr, lc) and capturable(b, lr, lc, side):
                out.append(("step", lr, lc))
    elif p in "bg":
        for dr, dc in KING:
            tr, tc = r + dr, c + dc
            if on(tr, tc) and (empty(tr, tc) or capturable(b, tr, tc, side)):
                out.append(("step", tr, tc))
                if p == "b" and empty(tr, tc):
                    out.append(("build", tr, tc))
    elif p == "j":
        for dr, dc in KING:
            tr, tc = r + dr, c + dc
            if not on(tr, tc):
                continue
            q = b[tr][tc]
            if q == ".":
                out.append(("step", tr, tc))
            elif colour(q) == side and q.lower() != "j":
                out.append(("swap", tr, tc))
            elif colour(q) == other(side) and q.lower() != "g":
                out.append(("convert", tr, tc))
    elif p in "md":
        for dr, dc in (ORTHO if p == "m" else KING):
            tr, tc, dist = r + dr, c + dc, 1
            while on(tr, tc) and empty(tr, tc):
                out.append(("step", tr, tc))
                tr, tc, dist = tr + dr, tc + dc, dist + 1
            if on(tr, tc):
                if p == "m" and (b[tr][tc] == "#" or capturable(b, tr, tc, side)):
                    out.append(("step", tr, tc))
                if p == "d" and dist >= 2 and capturable(b, tr, tc, side):
                    out.append(("step", tr, tc))
    elif p == "s":
        for dr, dc in KNIGHT:
            tr, tc = r + dr, c + dc
            if on(tr, tc) and (empty(tr, tc) or capturable(b, tr, tc, side)):
                out.append(("step", tr, tc))
    elif p == "c":
        for dr, dc in ORTHO:
            if on(r + dr, c + dc) and empty(r + dr, c + dc):
                out.append(("step", r + dr, c + dc))
        for dr, dc in SHOTS:
            if on(r + dr, c + dc) and capturable(b, r + dr, c + dc, side):
                out.append(("shoot", r + dr, c + dc))
    return out


def apply(b, r, c, kind, tr, tc):
    b = [row[:] for row in b]
    if kind == "step":
        b[tr][tc], b[r][c] = b[r][c], "."
    elif kind == "build":
        b[tr][tc] = "#"
    elif kind == "swap":
        b[tr][tc], b[r][c] = b[r][c], b[tr][tc]
    elif kind == "convert":
        b[tr][tc] = b[tr][tc].swapcase()
    elif kind == "shoot":
        b[tr][tc] = "."
    return b


def material(b, side):
    return sum(VALUE[p.lower()] for row in b for p in row if colour(p) == side)


def main(argv):
    if len(argv) == 2 and argv[1] == "name":
        print("greedy-console")
        return 0
    side, path_in, path_out = argv[1], argv[2], argv[3]
    with open(path_in) as f:
        board = [list(line.rstrip("\r\n")) for line in f.read().splitlines()[:N]]
    best, top = [], None
    for r in range(N):
        for c in range(N):
            if colour(board[r][c]) != side:
                continue
            for kind, tr, tc in piece_moves(board, r, c, side):
                after = apply(board, r, c, kind, tr, tc)
                if in_danger(after, side):
                    continue
                score = material(after, side) - material(after, other(side))
                if top is None or score > top:
                    best, top = [], score
                if score == top:
                    best.append(after)
    if not best:
        print("no legal move", file=sys.stderr)
        return 1
    with open(path_out, "w") as f:
        f.write("".join("".join(row) + "\n" for row in random.choice(best)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
