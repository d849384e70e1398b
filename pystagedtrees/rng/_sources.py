"""Choice of random source: numpy Generators by default, R's generator for exact replay."""
import copy

import numpy as np

from pystagedtrees.rng._rrandom import RRandom
from pystagedtrees.base._validation import check_seed

__all__ = ["random_source", "tie_source", "draw_index", "resolve_rng"]


def random_source(rng, seed, name="rng"):
    """An :class:`RRandom` (``rng="R"``: R's ``set.seed(seed)``) or a numpy Generator."""
    if isinstance(rng, (RRandom, np.random.Generator)):
        return rng
    if isinstance(rng, str) and rng == "R":
        if seed is None:
            raise TypeError(f"`seed` is needed with {name}='R' (the value given to R's set.seed).")
        return RRandom(check_seed(seed, for_r=True))
    if rng is None or (isinstance(rng, str) and rng == "numpy"):
        if isinstance(seed, np.random.Generator):
            return seed
        return np.random.default_rng(check_seed(seed))
    raise ValueError(
        f"`{name}` must be 'numpy', 'R', a numpy Generator or an RRandom; got {rng!r}."
    )


def tie_source(rng, seed):
    """The source breaking ties between equally probable levels: None (the first wins) for rng=None.

    A seed without ``rng`` would be ignored, so it is refused instead.
    """
    if rng is None:
        if seed is not None:
            raise ValueError(
                "`seed` needs `rng` ('numpy' or 'R'): with rng=None ties go to the first "
                f"level and nothing is drawn; got seed={seed!r}."
            )
        return None
    return random_source(rng, seed)


def draw_index(source, n, size=1):
    """``size`` distinct 0-based indices below ``n`` (R's ``sample(x, size)`` positions)."""
    if isinstance(source, RRandom):
        return [int(j) for j in source.sample_int(n, size)]
    return [int(j) for j in source.choice(n, size, replace=False)]


class _NumpySource:
    """Draws from a numpy Generator."""

    def __init__(self, generator):
        self.generator = generator
        self._buffer = np.empty(0)

    def index(self, n):
        return int(self.generator.integers(n))

    def choice_without_replacement(self, n, size):
        return self.generator.choice(n, size, replace=False)

    def uniform(self, n, low=0.0, high=1.0):
        return self.generator.uniform(low, high, n)

    def exponential(self, n):
        return self.generator.exponential(size=n)

    def categorical(self, prob, size):
        return self.generator.choice(len(prob), size, p=np.asarray(prob) / np.sum(prob))

    def peek_uniforms(self, n):
        """Uniforms for a kernel; the kernel's leftovers are simply dropped.

        One buffer is refilled call after call (kernels never keep it).
        """
        if self._buffer.shape[0] < n:
            self._buffer = np.empty(n)
        return self.generator.random(n, out=self._buffer[:n])

    def advance(self, n_used):
        """Nothing to do: a Generator's stream need not match R's consumption."""

    @property
    def engine(self):
        return self.generator


class _RSource:
    """Draws from R's stream, exactly as R's functions consume it."""

    def __init__(self, rr):
        self.rr = rr

    def index(self, n):
        return self.rr.unif_index(n)

    def choice_without_replacement(self, n, size):
        return self.rr.sample_int(n, size)

    def uniform(self, n, low=0.0, high=1.0):
        return self.rr.runif(n, low, high)

    def exponential(self, n):
        return self.rr.rexp(n)

    def categorical(self, prob, size):
        return self.rr.sample_int(len(prob), size, replace=True, prob=prob)

    def peek_uniforms(self, n):
        """The next ``n`` uniforms, without consuming them (see :meth:`advance`)."""
        return copy.deepcopy(self.rr).runif(n)

    def advance(self, n_used):
        self.rr.runif(n_used)

    @property
    def engine(self):
        return self.rr


def resolve_rng(seed, rng):
    """The random source for ``seed`` and ``rng`` (see the module docstring)."""
    if isinstance(rng, RRandom):
        if seed is not None:
            raise ValueError("give either `seed` or an RRandom `rng`, not both.")
        return _RSource(rng)
    if isinstance(rng, str) and rng == "R":
        # R's set.seed(seed) is replayed
        return _RSource(RRandom(check_seed(seed, for_r=True)))
    if rng is None or (isinstance(rng, str) and rng == "numpy"):
        if isinstance(seed, np.random.Generator):
            return _NumpySource(seed)
        return _NumpySource(np.random.default_rng(check_seed(seed)))
    if isinstance(rng, np.random.Generator):
        if seed is not None:
            raise ValueError("give either `seed` or a Generator `rng`, not both.")
        return _NumpySource(rng)
    raise ValueError(
        f"`rng` must be 'numpy', 'R', a numpy Generator or an RRandom; got {rng!r}."
    )
