"""The course-style greedy bot of bots/python/examples, its tie-breaking generator seeded
from $ASALTO_BENCH_SEED (see seeded_random_bot.py)."""

import os
import random
import sys

sys.path.insert(
    0,
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bots", "python", "examples"),
)

import greedy_bot  # noqa: E402


class Player(greedy_bot.Player):
    def __init__(self):
        super().__init__()
        self.rng = random.Random("greedy-" + os.environ.get("ASALTO_BENCH_SEED", "0"))
