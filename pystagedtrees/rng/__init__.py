"""Randomness: numpy's generators and exact replays of R's."""
from pystagedtrees.rng._rrandom import RRandom

__all__ = ["RRandom"]
