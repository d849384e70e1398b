"""One interface over the two sources of randomness: numpy and R replay.

The learners only call ``unif_rand()``, ``uniforms(n)`` (that many
``unif_rand()`` at once), ``unif_index(n)`` (0-based) and ``sample_int(n,
size)`` (0-based, without replacement), so the same code
draws either from a numpy Generator or, for ``rng="R"``, exactly what R draws
after ``set.seed(seed)``.
"""

import numpy as np

from pystagedtrees.rng._sources import random_source
from pystagedtrees.rng._rrandom import RRandom
from pystagedtrees.base._validation import check_choice, check_random_state

__all__ = ["resolve_rng", "NumpyDraws", "RoundingDraws"]

RNG_KINDS = ("numpy", "R")


class NumpyDraws:
    """The draws the learners need, from a numpy Generator."""

    def __init__(self, generator):
        self.generator = generator

    def unif_rand(self):
        return float(self.generator.random())

    def uniforms(self, n):
        return self.generator.random(n)

    def unif_index(self, n):
        return int(self.generator.integers(n))

    def sample_int(self, n, size):
        return self.generator.permutation(n)[:size]


class RoundingDraws:
    """R's stream under ``RNGversion("3.5.0")`` (``sample.kind="Rounding"``).

    The uniforms are R's (from :class:`pystagedtrees.rng._rrandom.RRandom`); only
    the index draw differs: ``floor(n * unif_rand())`` instead of rejection
    sampling.  bnclassify's own tests and vignette were written under this
    setting: ``random_state=RoundingDraws(s)`` in a learner replays
    ``RNGversion("3.5.0"); set.seed(s)`` before the call in R.

    Examples
    --------
    >>> from pystagedtrees.bnc import RoundingDraws
    >>> RoundingDraws(42).sample_int(5, 5).tolist()  # R 3.5: set.seed(42); sample(5) - 1
    [4, 3, 0, 1, 2]
    """

    def __init__(self, seed):
        self.stream = RRandom(seed)

    def unif_rand(self):
        return self.stream.unif_rand()

    def uniforms(self, n):
        return self.stream.runif(n)

    def unif_index(self, n):
        return int(n * self.stream.unif_rand())

    def sample_int(self, n, size):
        pool = list(range(n))
        out = np.empty(size, dtype=np.int64)
        for i in range(size):
            j = self.unif_index(n)
            out[i] = pool[j]
            n -= 1
            pool[j] = pool[n]
        return out


class RDraws:
    """The draws the learners need, from an ``RRandom`` stream (R's defaults)."""

    def __init__(self, stream):
        self.stream = stream

    def unif_rand(self):
        return self.stream.unif_rand()

    def uniforms(self, n):
        return self.stream.runif(n)

    def unif_index(self, n):
        return self.stream.unif_index(n)

    def sample_int(self, n, size):
        return self.stream.sample_int(n, size)


def resolve_rng(random_state=None, rng="numpy", seed=None):
    """The draw source for ``random_state`` (numpy) or ``rng="R", seed=``.

    ``rng="R"`` replays R's default generator (Mersenne-Twister, Rejection
    sampling) after ``set.seed(seed)``.  ``random_state`` may also be an
    ``RRandom`` (an R stream already in use), a :class:`RoundingDraws` (R's
    pre-3.6 sampling) or the draws of an enclosing call, so nested learners
    share one stream as in R.
    """
    if hasattr(random_state, "uniforms"):
        return random_state
    if isinstance(random_state, RRandom):
        return RDraws(random_state)
    check_choice(rng, "rng", RNG_KINDS)
    if rng == "numpy":
        if seed is not None:
            raise ValueError("`seed` is for rng='R'; use `random_state` with numpy.")
        state = check_random_state(random_state)
        if isinstance(state, np.random.RandomState):  # scikit-learn's legacy generator
            state = state.randint(np.iinfo(np.int32).max)
        return NumpyDraws(random_source("numpy", state))
    if random_state is not None:
        raise ValueError("`random_state` is for rng='numpy'; use `seed` with rng='R'.")
    return RDraws(random_source("R", seed))
