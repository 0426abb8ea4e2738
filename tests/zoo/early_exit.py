"""Exits before the handshake."""
import sys

sys.stderr.write("zoo: leaving before hello\n")
sys.exit(4)
