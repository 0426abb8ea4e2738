"""An example Hinger agent in the course style (task 3): `Agent(size, name=...)` with
`move(state, mode)` for the modes 'minimax' and 'alphabeta' (depth-limited; a move on a
hinger wins at once). Returns an (i, j) tuple, or None when no move is possible."""

from a1_state import State

WIN = 1000


class Agent:
    def __init__(self, size, name="example"):
        self.size = size
        self.name = name
        self.modes = ["minimax", "alphabeta"]
        self.depth = {"minimax": 1, "alphabeta": 2}

    def __str__(self):
        return "Agent " + self.name

    def move(self, state, mode="alphabeta"):
        moves = list(state.moves())
        if not moves:
            return None
        for (i, j) in moves:
            if state.is_hinger(i, j):
                return (i, j)
        print("agent %s thinking in %s mode over %d cells" % (self.name, mode, len(moves)))
        depth = self.depth.get(mode, 2)
        best, best_value = moves[0], -WIN - 1
        alpha, beta = -WIN - 1, WIN + 1
        for (i, j) in moves:
            child = state.take(i, j)
            if mode == "minimax":
                value = -self.minimax(child, depth - 1)
            else:
                value = -self.alphabeta(child, depth - 1, -beta, -alpha)
            if value > best_value:
                best, best_value = (i, j), value
            alpha = max(alpha, value)
        return best

    def minimax(self, state, depth):
        """The value for the side to move (negamax form)."""
        moves = list(state.moves())
        if not moves:
            return 0
        if any(state.is_hinger(i, j) for (i, j) in moves):
            return WIN
        if depth <= 0:
            return self.evaluate(state)
        return max(-self.minimax(state.take(i, j), depth - 1) for (i, j) in moves)

    def alphabeta(self, state, depth, alpha, beta):
        moves = list(state.moves())
        if not moves:
            return 0
        if any(state.is_hinger(i, j) for (i, j) in moves):
            return WIN
        if depth <= 0:
            return self.evaluate(state)
        best = -WIN - 1
        for (i, j) in moves:
            value = -self.alphabeta(state.take(i, j), depth - 1, -beta, -alpha)
            best = max(best, value)
            alpha = max(alpha, value)
            if alpha >= beta:
                break
        return best

    def evaluate(self, state):
        # Fewer counters left to the opponent's advantage is unknown; stay neutral.
        return 0
