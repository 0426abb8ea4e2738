"""A misbehaving Hinger agent: returns None on its second move (an illegal reply)."""

from a1_state import State  # noqa: F401 (the course layout)


class Agent:
    def __init__(self, size, name="none"):
        self.calls = 0

    def move(self, state, mode):
        self.calls += 1
        if self.calls == 2:
            return None
        return next(state.moves())
