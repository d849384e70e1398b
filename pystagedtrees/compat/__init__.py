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
    """Convert a Python object to R (see :func:`pystagedtrees.compat._convert.to_r`).

    Raises
    ------
    ImportError
        rpy2 or R is not installed (the message says what to install).
    """
    from pystagedtrees.compat._convert import to_r as convert

    return convert(x, **options)


def from_r(x: Any) -> Any:
    """Convert an R object to Python (see :func:`pystagedtrees.compat._convert.from_r`)."""
    from pystagedtrees.compat._convert import from_r as convert

    return convert(x)


def r_call(name: str, *args: Any, **kwargs: Any) -> Any:
    """Call an R function on converted arguments (see :func:`pystagedtrees.compat._call.r_call`)."""
    from pystagedtrees.compat._call import r_call as call

    return call(name, *args, **kwargs)


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
