"""An example Hinger state in the course style (task 1): the grid, its active regions and
its hingers. Used by the example agent in a3_agent.py."""


class State:
    def __init__(self, grid):
        # A copy, so that the caller's grid is never changed.
        self.result = [list(row) for row in grid]
        self.m = len(self.result)
        self.n = len(self.result[0]) if self.m else 0

    def __str__(self):
        return "\n".join(" ".join(str(c) for c in row) for row in self.result)

    def clone(self):
        return State(self.result)

    def moves(self):
        """Every active cell, row-major."""
        for i in range(self.m):
            for j in range(self.n):
                if self.result[i][j] > 0:
                    yield (i, j)

    def numRegions(self):
        """Active regions: 8-connected groups of non-empty cells."""
        seen = set()
        count = 0
        for start in self.moves():
            if start in seen:
                continue
            count += 1
            stack = [start]
            seen.add(start)
            while stack:
                i, j = stack.pop()
                for di in (-1, 0, 1):
                    for dj in (-1, 0, 1):
                        a, b = i + di, j + dj
                        if (0 <= a < self.m and 0 <= b < self.n and (a, b) not in seen
                                and self.result[a][b] > 0):
                            seen.add((a, b))
                            stack.append((a, b))
        return count

    def is_hinger(self, i, j):
        """A cell of one counter whose removal makes more regions."""
        if self.result[i][j] != 1:
            return False
        before = self.numRegions()
        self.result[i][j] = 0
        after = self.numRegions()
        self.result[i][j] = 1
        return after > before

    def numHingers(self):
        return sum(1 for (i, j) in self.moves() if self.is_hinger(i, j))

    def take(self, i, j):
        """The state after taking one counter from (i, j)."""
        s = self.clone()
        s.result[i][j] -= 1
        return s
