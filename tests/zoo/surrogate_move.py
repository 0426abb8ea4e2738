"""Answers every turn with a string holding a lone surrogate, the way the course adapter
sends one (json.dumps writes it as the escape \\ud800): valid JSON, an illegal move."""
import zoo

zoo.play(lambda m, n: "\ud800")
