"""A well-behaved opponent: answers every turn at once."""
import zoo

zoo.play()
