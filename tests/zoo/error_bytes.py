"""On its first turn raises an error whose message holds an undecodable byte (as
os.fsdecode makes of a file name in another encoding) and sends the traceback as an
`error`, as the course adapter does: json.dumps writes the lone surrogate \\udcff."""
import os
import traceback
import zoo


def turn(message, n):
    try:
        raise FileNotFoundError("no such model file: " + os.fsdecode(b"weights-\xff.bin"))
    except FileNotFoundError:
        zoo.send({"type": "error", "message": traceback.format_exc()})
    return zoo.ANSWERED


zoo.play(turn)
