"""The protocol every random draw of the library goes through (see the package docstring)."""
from abc import ABC, abstractmethod
from typing import Any

import numpy as np

__all__ = ["RandomSource"]


class RandomSource(ABC):
    """A stream of random draws, named after the R functions they replay.

    The backends are :class:`~pystagedtrees.rng.NumpySource` (a numpy
    ``Generator``), :class:`~pystagedtrees.rng.RRandom` (R after
    ``set.seed``) and :class:`~pystagedtrees.rng.RRoundingRandom` (R under
    ``RNGversion("3.5.0")``).  Indices are 0-based.  Each method says what
    the R backends replay; the numpy backend draws the same kind of value
    from its Generator (its stream is numpy's, not R's).
    """

    @abstractmethod
    def runif(self, n: int, a: float = 0.0, b: float = 1.0) -> np.ndarray:
        """``n`` uniforms on (a, b): R's ``runif(n, a, b)`` (``unif_rand()`` n times)."""

    @abstractmethod
    def rexp(self, n: int) -> np.ndarray:
        """``n`` standard exponential draws: R's ``rexp(n)``."""

    @abstractmethod
    def unif_index(self, n: int) -> int:
        """One index in 0 .. n-1: R's ``R_unif_index(n)``."""

    @abstractmethod
    def sample_int(self, n: int, size: int | None = None, replace: bool = False,
                   prob: Any = None) -> np.ndarray:
        """``size`` indices below ``n`` (all ``n`` by default): R's
        ``sample.int(n, size, replace, prob) - 1``; ``prob`` are weights, not
        necessarily normalised."""

    @abstractmethod
    def permutation(self, n: int, size: int | None = None) -> np.ndarray:
        """The first ``size`` entries (all by default) of a random permutation of 0 .. n-1.

        R draws them as :meth:`sample_int` (R's sampling is a partial
        shuffle); numpy shuffles all ``n`` (``Generator.permutation``), a
        different stream from :meth:`sample_int`'s ``Generator.choice``:
        each call site keeps the one it has always used.
        """

    @abstractmethod
    def peek_uniforms(self, n: int) -> np.ndarray:
        """The next ``n`` uniforms, for a kernel that uses a number of them
        known only afterwards; :meth:`advance` then consumes what it used.

        The array may be reused by the next call: the kernel must not keep it.
        """

    @abstractmethod
    def advance(self, n_used: int) -> None:
        """Consume the ``n_used`` uniforms of the last :meth:`peek_uniforms`."""

    @abstractmethod
    def order_for_inversion(self, prob: np.ndarray, order: np.ndarray, rows: np.ndarray) -> None:
        """Put ``rows`` of ``prob`` (one distribution per row) and of ``order``
        (their level codes), in place, in the order inversion sampling walks
        the levels: R's ``sample(prob=)`` sorts them by decreasing
        probability (``revsort``); numpy keeps the level order."""

    @property
    @abstractmethod
    def generator(self) -> Any:
        """The object handed to a user's ``rfun(k, rng)``: the numpy
        Generator, or the R source itself."""
