"""One interface over the two sources of randomness: numpy and R replay.

The learners only call ``unif_rand()``, ``unif_index(n)`` (0-based) and
``sample_int(n, size)`` (0-based, without replacement), so the same code
draws either from a numpy Generator or, for ``rng="R"``, exactly what R draws
after ``set.seed(seed)``.
"""
import numbers

import numpy as np

__all__ = ["resolve_rng", "NumpyDraws"]

RNG_KINDS = ("numpy", "R")
SAMPLE_KINDS = ("Rejection", "Rounding")


class NumpyDraws:
    """The draws the learners need, from a numpy Generator."""

    def __init__(self, generator):
        self.generator = generator

    def unif_rand(self):
        return float(self.generator.random())

    def unif_index(self, n):
        return int(self.generator.integers(n))

    def sample_int(self, n, size):
        return self.generator.permutation(n)[:size]


def resolve_rng(random_state=None, rng="numpy", seed=None, sample_kind="Rejection"):
    """The draw source for ``random_state`` (numpy) or ``rng="R", seed=``.

    ``sample_kind`` is R's ``RNGkind(sample.kind=)``: ``"Rejection"`` (R >= 3.6)
    or ``"Rounding"`` (``RNGversion("3.5.0")``, used by bnclassify's tests).
    An object that already draws (from a previous call) is passed through,
    so nested learners share one stream as in R.
    """
    if hasattr(random_state, "unif_rand"):
        return random_state
    if rng not in RNG_KINDS:
        raise ValueError(f"`rng` must be one of {RNG_KINDS}; got {rng!r}.")
    if rng == "numpy":
        if seed is not None:
            raise ValueError("`seed` is for rng='R'; use `random_state` with numpy.")
        return NumpyDraws(np.random.default_rng(random_state))
    if random_state is not None:
        raise ValueError("`random_state` is for rng='numpy'; use `seed` with rng='R'.")
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"`seed` must be an integer with rng='R'; got {seed!r}.")
    if sample_kind not in SAMPLE_KINDS:
        raise ValueError(f"`sample_kind` must be one of {SAMPLE_KINDS}; got {sample_kind!r}.")
    from pystagedtrees._rrandom import RRandom

    return RRandom(int(seed), sample_kind=sample_kind)
