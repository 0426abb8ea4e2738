"""The course-style random bot of bots/python/examples, its generator seeded from
$ASALTO_BENCH_SEED so that a game can be played again move for move: by arbiter (one
process per bot) and by asalto_referee.py (both bots in one process)."""

import os
import random
import sys

sys.path.insert(
    0,
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bots", "python", "examples"),
)

import random_bot  # noqa: E402


class Player(random_bot.Player):
    def __init__(self):
        super().__init__()
        self.rng = random.Random("random-" + os.environ.get("ASALTO_BENCH_SEED", "0"))
