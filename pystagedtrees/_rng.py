"""Choice of random source: numpy Generators by default, R's generator for exact replay."""
import numpy as np

from pystagedtrees._rrandom import RRandom

__all__ = ["random_source", "draw_index"]


def random_source(rng, seed, name="rng"):
    """An :class:`RRandom` (``rng="R"``: R's ``set.seed(seed)``) or a numpy Generator."""
    if isinstance(rng, (RRandom, np.random.Generator)):
        return rng
    if isinstance(rng, str) and rng == "R":
        if seed is None:
            raise ValueError(f"`seed` is needed with {name}='R' (the value given to R's set.seed).")
        return RRandom(int(seed))
    if rng is None or (isinstance(rng, str) and rng == "numpy"):
        return np.random.default_rng(seed)
    raise ValueError(
        f"`{name}` must be 'numpy', 'R', a numpy Generator or an RRandom; got {rng!r}."
    )


def draw_index(source, n, size=1):
    """``size`` distinct 0-based indices below ``n`` (R's ``sample(x, size)`` positions)."""
    if isinstance(source, RRandom):
        return [int(j) for j in source.sample_int(n, size)]
    return [int(j) for j in source.choice(n, size, replace=False)]
