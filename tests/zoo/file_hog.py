"""On its first turn writes a file past the file-size limit (run it with --file-mb 1).
Python ignores SIGXFSZ, so the write fails with OSError: [Errno 27] File too large.
With the argument `report`, the bot sends that traceback as an `error` message (as the
course adapter does); without it, the error goes uncaught to stderr and the bot exits."""
import os
import sys
import tempfile
import traceback
import zoo


def turn(message, n):
    try:
        with tempfile.TemporaryFile(dir=os.path.dirname(os.path.abspath(__file__))) as f:
            f.write(b"x" * (3 << 20))
            f.flush()
    except OSError:
        if "report" not in sys.argv[1:]:
            raise
        zoo.send({"type": "error", "message": traceback.format_exc()})
        return zoo.ANSWERED
    return None


zoo.play(turn)
