"""Tries to read the opponent's files, write into the results folder and the opponent's
folder, list the other sandboxes and reach the network; reports each attempt on stderr
as `spy: WHAT: denied` or `spy: WHAT: ALLOWED`, then plays. Refuses to run as root.

Arguments: RESULTS_DIR OPPONENT_DIR OPPONENT_FILE SANDBOX_BASE."""
import os
import socket
import sys
import zoo

zoo.refuse_root()
results, opponent_dir, opponent_file, sandbox_base = sys.argv[1:5]


def attempt(what, action):
    try:
        action()
        verdict = "ALLOWED"
    except OSError:
        verdict = "denied"
    sys.stderr.write("spy: %s: %s\n" % (what, verdict))
    sys.stderr.flush()


def write(path):
    with open(path, "w") as f:
        f.write("spy was here\n")


def read(path):
    with open(path) as f:
        f.read()


def connect():
    s = socket.create_connection(("1.1.1.1", 53), timeout=1)
    s.close()


def turn(message, n):
    if n == 1:
        attempt("read opponent file", lambda: read(opponent_file))
        attempt("list opponent folder", lambda: os.listdir(opponent_dir))
        attempt("write opponent folder", lambda: write(os.path.join(opponent_dir, "spy.txt")))
        attempt("write results folder", lambda: write(os.path.join(results, "spy.txt")))
        attempt("list sandboxes", lambda: os.listdir(sandbox_base))
        attempt("network", connect)


zoo.play(turn)
