"""Two arbiter builds against each other and against the course-style referee, on the
short game of benches/python.rs (seeded random rebels against seeded greedy officers, 64
plies), run in turns so that the machine's drift falls on all three alike.

Usage: python3 benches/baseline/ab_short_game.py ARBITER_A ARBITER_B [RUNS] [PYTHON]

Each ARBITER is an `arbiter` program (a build of another commit: `cargo build --release`
in a worktree; it must be named `arbiter`, and its build's `arbiter-jail`, which builds
its bots' jails, must be beside it where the build makes one).
Each gets its own temporary folder: a build keeps its own confinement finding and its
own compiled adapter code there. RUNS defaults to 40 turns, PYTHON to the interpreter
that runs this script. Prints the median wall time of `arbiter play` for each build and
of asalto_referee.py, and each build's ratio to the referee.
"""

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def main():
    if len(sys.argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    builds = [os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])]
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 40
    python = sys.argv[4] if len(sys.argv) > 4 else sys.executable
    with tempfile.TemporaryDirectory(prefix="arbiter-ab-") as work:
        # The seeded bots import the course examples they wrap; a confined bot sees only
        # its own folder, so both are copied into one.
        bots = os.path.join(work, "bots")
        os.mkdir(bots)
        for folder in (HERE, os.path.join(ROOT, "bots", "python", "examples")):
            for name in os.listdir(folder):
                if name.endswith(".py"):
                    shutil.copy(os.path.join(folder, name), bots)
        env = dict(os.environ, ASALTO_BENCH_SEED="0")
        temps = []
        for i in range(len(builds)):
            temp = os.path.join(work, "tmp%d" % i)
            os.mkdir(temp)
            temps.append(temp)
        game = ["--rebel", "seeded_random_bot.py", "--officer", "seeded_greedy_bot.py"]
        referee = [python, os.path.join(HERE, "asalto_referee.py")]
        referee += ["seeded_random_bot.py", "seeded_greedy_bot.py", "0", "1"]
        times = [[] for _ in builds] + [[]]
        for turn in range(runs):
            order = list(range(len(builds)))
            if turn % 2:
                order.reverse()
            for i in order:
                command = [builds[i], "play", "--python", python] + game
                times[i].append(timed(command, bots, dict(env, TMPDIR=temps[i])))
            times[-1].append(timed(referee, bots, env))
        base = statistics.median(times[-1])
        for label, samples in zip(builds + ["asalto_referee.py"], times):
            median = statistics.median(samples)
            print("%-60s %7.2f ms  %.3fx the referee" % (label, median * 1e3, median / base))
    return 0


def timed(command, cwd, env):
    started = time.perf_counter()
    done = subprocess.run(
        command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit("%s failed (%d): %s" % (command[0], done.returncode, done.stderr.decode()))
    return elapsed


if __name__ == "__main__":
    sys.exit(main())
