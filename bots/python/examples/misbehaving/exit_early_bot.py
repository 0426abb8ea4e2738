"""Misbehaving course bot: exits while being imported, before the handshake (-> crash)."""
import os
import sys

sys.stderr.write("exit_early_bot: giving up at import\n")
sys.stderr.flush()
os._exit(3)
