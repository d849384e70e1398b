"""R's generator under ``RNGversion("3.5.0")``: the rounding backend."""
import numpy as np

from pystagedtrees.rng._rrandom import RRandom

__all__ = ["RRoundingRandom"]


class RRoundingRandom(RRandom):
    """R's stream under ``RNGversion("3.5.0")`` (``sample.kind = "Rounding"``).

    The uniforms, exponential and normal draws and the sampling with
    probabilities are those of :class:`RRandom`; only the index draw
    differs: ``floor(n * unif_rand())`` instead of rejection sampling.
    bnclassify's own tests and vignette were written under this setting:
    ``rng=RRoundingRandom(s)`` (or ``rng="R-rounding", seed=s``) replays
    ``RNGversion("3.5.0"); set.seed(s)`` before the call in R.

    Examples
    --------
    >>> from pystagedtrees.rng import RRoundingRandom
    >>> RRoundingRandom(42).sample_int(5, 5).tolist()  # R 3.5: set.seed(42); sample(5) - 1
    [4, 3, 0, 1, 2]
    """

    # .Random.seed[1] for Mersenne-Twister + Inversion + Rounding
    _kind_code = 403
    _kind_name = "Mersenne-Twister, Inversion, Rounding"

    def _draw_index(self, n):
        return int(n * self._uniforms(1)[0])

    def _fill_indices(self, n, out):
        out[:] = np.floor(n * self._uniforms(out.shape[0]))

    def _fill_partial_shuffle(self, n, out):
        # R's pool: the drawn entry is replaced by the last one of the shrinking pool
        uniforms = self._uniforms(out.shape[0])
        pool = np.arange(n, dtype=np.int64)
        for i in range(out.shape[0]):
            j = int((n - i) * uniforms[i])
            out[i] = pool[j]
            pool[j] = pool[n - i - 1]
