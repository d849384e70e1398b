"""The numpy backend of :class:`~pystagedtrees.rng.RandomSource`."""
from typing import Any

import numpy as np

from pystagedtrees.rng._source import RandomSource

__all__ = ["NumpySource"]


class NumpySource(RandomSource):
    """Draws from a numpy ``Generator``, whose stream it continues.

    Examples
    --------
    >>> import numpy as np
    >>> from pystagedtrees.rng import NumpySource
    >>> source = NumpySource(np.random.default_rng(1))
    >>> reference = np.random.default_rng(1)
    >>> source.sample_int(5, 2).tolist() == reference.choice(5, 2, replace=False).tolist()
    True
    """

    def __init__(self, generator: np.random.Generator) -> None:
        self._generator = generator
        self._buffer = np.empty(0)

    def __repr__(self) -> str:
        return f"NumpySource({self._generator!r})"

    def runif(self, n: int, a: float = 0.0, b: float = 1.0) -> np.ndarray:
        return self._generator.uniform(a, b, n)

    def rexp(self, n: int) -> np.ndarray:
        return self._generator.exponential(size=n)

    def unif_index(self, n: int) -> int:
        return int(self._generator.integers(n))

    def sample_int(self, n: int, size: int | None = None, replace: bool = False,
                   prob: Any = None) -> np.ndarray:
        weights = None if prob is None else np.asarray(prob) / np.sum(prob)
        return self._generator.choice(n, n if size is None else size, replace=replace, p=weights)

    def permutation(self, n: int, size: int | None = None) -> np.ndarray:
        return self._generator.permutation(n)[:size]

    def peek_uniforms(self, n: int) -> np.ndarray:
        # the kernel's unused uniforms are simply dropped: numpy's stream
        # need not follow R's consumption
        if self._buffer.shape[0] < n:
            self._buffer = np.empty(n)
        return self._generator.random(n, out=self._buffer[:n])

    def advance(self, n_used: int) -> None:
        """Nothing to do: :meth:`peek_uniforms` consumed its draws."""

    def order_for_inversion(self, prob: np.ndarray, order: np.ndarray, rows: np.ndarray) -> None:
        """Nothing to do: numpy's inversion walks the levels in order."""

    @property
    def generator(self) -> np.random.Generator:
        return self._generator
