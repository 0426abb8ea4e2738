"""A misbehaving Hinger agent: returns its cell as floats, (2.0, 3.0), which is not a move."""


class Agent:
    def __init__(self, size, name="float"):
        pass

    def move(self, state, mode):
        i, j = next(state.moves())
        return (float(i), float(j))
