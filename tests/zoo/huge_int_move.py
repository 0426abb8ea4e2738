"""Answers every turn with a point whose row is a 400-digit integer, as the course adapter
sends one: valid JSON that serde_json cannot hold as a number, an illegal move."""
import zoo

zoo.play(lambda m, n: [[10 ** 400, 2], [2, 2]])
