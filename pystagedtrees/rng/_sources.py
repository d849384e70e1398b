"""Choice of random source: numpy Generators by default, R's generator for exact replay."""
import numpy as np

from pystagedtrees.rng._rrandom import RRandom
from pystagedtrees.base._validation import check_seed

__all__ = ["random_source", "tie_source", "draw_index"]


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
