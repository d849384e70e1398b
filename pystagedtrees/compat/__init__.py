"""Move models and data between Python and R, through rpy2 (optional).

Install the extra with ``pip install -e ".[r]"`` from a clone (it needs R);
R's stagedtrees and bnclassify come from CRAN
(``install.packages(c("stagedtrees", "bnclassify"))``).  This package
imports without rpy2 or R: rpy2 is loaded on the first conversion, and
:func:`to_r` and the others raise an ImportError saying what to install when
it cannot be.

* :func:`to_r` / :func:`from_r`: staged trees (R ``sevt``), bnclassify
  classifiers (``bnc_bn``), data frames of factors (level order and unused
  levels kept), tables of counts, parents lists (``parentslist``),
  vectors and lists.  Round trips keep
  every field R reads (stages, probabilities, counts, log-likelihood,
  lambda, data); a model's ``score``, ``em`` and ``fit_em`` and a
  classifier's AWNB/WANBIA weights and MANB posteriors stay behind.
* :func:`r_call`: call a stagedtrees, bnclassify or base R function on
  converted arguments and convert the result back.
* :func:`set_seed`: R's ``set.seed``, for replaying R's random learners.

Conversions use rpy2's ``localconverter``; nothing is activated globally.
R is single-threaded: call it from one thread only.

Examples
--------
>>> from pystagedtrees import compat
>>> isinstance(compat.r_available(), bool)
True
"""
from __future__ import annotations

from typing import Any

__all__ = ["to_r", "from_r", "r_call", "set_seed", "r_available", "has_r_package"]


def to_r(x: Any, **options: Any) -> Any:
    """Convert a Python object to R.

    Parameters
    ----------
    x : object
        A :class:`~pystagedtrees.Sevt` (to an R ``sevt``), a
        :class:`~pystagedtrees.bnc.BNCModel` (to a bnclassify ``bnc_bn`` or
        ``bnc_dag``), a DataFrame (to a data.frame of factors), a Series of
        counts indexed by levels (to a ``table``), a categorical Series or
        ``pandas.Categorical`` (to a factor), a :class:`~pystagedtrees.LogLik`,
        a parents list (to a ``parentslist``), a numpy array, a scalar, None
        (``NULL``), a list or a dict (named list).
        rpy2 objects pass through unchanged.
    **options
        Passed to the converter of ``x`` (e.g. ``factors=False`` for a
        DataFrame, ``data_raw=False`` for a Sevt).

    Returns
    -------
    rpy2 object

    Raises
    ------
    TypeError
        An object of a type that is not converted.
    ImportError
        rpy2 or R is not installed (the message says what to install).
    """
    from pystagedtrees.compat._convert import to_r as convert

    return convert(x, **options)


def from_r(x: Any) -> Any:
    """Convert an R object to Python.

    An R ``sevt`` becomes a :class:`~pystagedtrees.Sevt`; a bnclassify
    ``bnc_bn``/``bnc_dag`` a :class:`~pystagedtrees.bnc.BNCModel`; a
    data.frame a DataFrame; a factor a ``pandas.Categorical``; a ``table`` a
    Series of counts; a ``logLik`` a :class:`~pystagedtrees.LogLik`; a
    ``parentslist`` a :class:`~pystagedtrees.ParentsList`; a
    matrix with dimnames a DataFrame, without a numpy array; a named vector
    a Series; an unnamed vector of length one a scalar, longer a numpy
    array; a list a dict (when every element is named) or a list; NULL None.
    Other R objects (functions, environments) are returned unchanged.

    Raises
    ------
    TypeError
        ``x`` is not an rpy2 object.
    ImportError
        rpy2 or R is not installed (the message says what to install).
    """
    from pystagedtrees.compat._convert import from_r as convert

    return convert(x)


def r_call(name: str, *args: Any, convert_result: bool = True, time_limit: float | None = None,
           **kwargs: Any) -> Any:
    """Call an R function on converted arguments and convert its result back.

    Parameters
    ----------
    name : str
        The function: ``"pkg::fun"`` (or ``"pkg:::fun"``), or a bare name
        looked up among the exports of stagedtrees, then bnclassify (those
        installed), then R's search path (base, stats, ...).  Loading the
        packages registers their methods, so ``"predict"`` or ``"BIC"``
        dispatch on staged trees and classifiers.
    *args, **kwargs
        Arguments, converted with :func:`~pystagedtrees.compat.to_r`
        (rpy2 objects pass unchanged).  A trailing underscore is dropped
        from keyword names, so ``lambda_=1`` is R's ``lambda = 1``.
    convert_result : bool, default True
        Convert the result with :func:`~pystagedtrees.compat.from_r`;
        False returns the rpy2 object.
    time_limit : float, optional
        Seconds of elapsed time after which R stops the call with an error
        (R's ``setTimeLimit``).

    Returns
    -------
    object

    Raises
    ------
    rpy2.rinterface_lib.embedded.RRuntimeError
        The R call failed (a RuntimeError, with R's message).
    ImportError
        rpy2 or R is not installed (the message says what to install).
    """
    from pystagedtrees.compat._call import r_call as call

    return call(name, *args, convert_result=convert_result, time_limit=time_limit, **kwargs)


def set_seed(seed: int) -> None:
    """R's ``set.seed(seed)``."""
    from pystagedtrees.compat._call import set_seed as seed_r

    seed_r(seed)


def r_available() -> bool:
    """Whether rpy2 can start R here."""
    try:
        import pystagedtrees.compat._session  # noqa: F401
    except ImportError:
        return False
    return True


def has_r_package(name: str) -> bool:
    """Whether R and the R package ``name`` are available."""
    if not isinstance(name, str) or not name:
        raise TypeError(f"`name` must be the name of an R package (a non-empty str); "
                        f"got {name!r}.")
    if not r_available():
        return False
    from pystagedtrees.compat._session import has_package

    return has_package(name)
