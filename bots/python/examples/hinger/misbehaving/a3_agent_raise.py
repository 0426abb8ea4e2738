"""A misbehaving Hinger agent: raises on its second move."""


class Agent:
    def __init__(self, size):
        self.calls = 0

    def move(self, state, mode):
        self.calls += 1
        if self.calls == 2:
            raise ValueError("deliberate failure on move 2")
        return list(next(state.moves()))
