"""Sleeps forever on its first turn."""
import time
import zoo

zoo.play(lambda m, n: time.sleep(3600))
