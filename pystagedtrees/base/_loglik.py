"""Shared result types: :class:`LogLik`, the log-likelihood with R's ``df`` and ``nobs``.

Staged trees and Bayesian network classifiers both return it, so it lives
below both.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from pystagedtrees.base._validation import check_int

__all__ = ["LogLik"]


class LogLik(float):
    """A log-likelihood value with R's ``df`` and ``nobs`` attributes.

    Immutable, as a float is: models and their copies share it.

    Examples
    --------
    >>> from pystagedtrees import LogLik
    >>> ll = LogLik(-10.5, df=3, nobs=20)
    >>> float(ll), ll.df, ll.nobs
    (-10.5, 3, 20)
    """

    def __new__(cls, value: float, df: int, nobs: int) -> LogLik:
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
            raise TypeError(f"`value` must be a number (a log-likelihood); got {value!r}.")
        df = check_int(df, "df")
        if isinstance(nobs, (bool, np.bool_)) or not isinstance(nobs, numbers.Real):
            raise TypeError(f"`nobs` must be a number >= 0 or inf; got {nobs!r}.")
        if not nobs >= 0:
            raise ValueError(f"`nobs` must be a number >= 0 or inf; got {nobs!r}.")
        # a count of rows is whole; tables of weighted counts (R fits them) need not be,
        # and inf is a total too large to count
        if nobs != math.inf and float(nobs).is_integer():
            nobs = int(nobs)
        obj = super().__new__(cls, value)
        for name, attribute in (("df", df), ("nobs", nobs)):
            object.__setattr__(obj, name, attribute)
        return obj

    def __setattr__(self, name, value):
        raise AttributeError(
            f"LogLik is immutable: build a new one, LogLik(value, df, nobs), to change {name!r}.")

    def __delattr__(self, name):
        self.__setattr__(name, None)

    def __repr__(self):
        return f"'log Lik.' {float(self):.10g} (df={self.df})"

    def __reduce__(self):
        return (LogLik, (float(self), self.df, self.nobs))
