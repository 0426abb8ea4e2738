"""A course-style bot (a `Player` class, run through arbiter's course adapter) whose
misbehaviour is chosen by $ZOO_CASE:
- surrogate: returns a string holding a lone surrogate;
- huge_int: returns a point whose row is a 400-digit integer;
- undecodable_error: raises an error whose message holds an undecodable byte;
- file_hog: writes a file past the file-size limit (run with --file-mb 1): Python ignores
  SIGXFSZ, so the write raises OSError: [Errno 27] File too large.
"""
import os
import tempfile

CASE = os.environ.get("ZOO_CASE", "")


class Player:
    def play(self, board):
        if CASE == "surrogate":
            return "\ud800"
        if CASE == "huge_int":
            return [[10 ** 400, 2], [2, 2]]
        if CASE == "undecodable_error":
            raise FileNotFoundError("no such model file: " + os.fsdecode(b"weights-\xff.bin"))
        if CASE == "file_hog":
            folder = os.path.dirname(os.path.abspath(__file__))
            with tempfile.TemporaryFile(dir=folder) as f:
                f.write(b"x" * (3 << 20))
                f.flush()
        return [[3, 2], [2, 2]]

    play_rebel = play
    play_officer = play
