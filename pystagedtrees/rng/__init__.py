"""Randomness: one protocol, three generators.

Every random draw of the library goes through a :class:`RandomSource`,
whose methods are named after the R functions they replay (``runif``,
``rexp``, ``unif_index``, ``sample_int``, ...).  Its backends:

- :class:`NumpySource`: a numpy ``Generator`` (the default);
- :class:`RRandom`: R after ``set.seed(seed)`` with R >= 3.6's defaults
  (Mersenne-Twister, Inversion, Rejection sampling), draw for draw;
- :class:`RRoundingRandom`: R under ``RNGversion("3.5.0")`` (Rounding
  sampling), as bnclassify's own tests and vignette ran.

:func:`resolve_source` turns a function's arguments into a source, by one
rule:

``rng`` picks the generator
    ``"numpy"`` (the default), ``"R"`` or ``"R-rounding"``; or a source
    already in use (an :class:`RRandom`, :class:`RRoundingRandom`,
    :class:`NumpySource` or numpy ``Generator``), whose stream then
    continues, so that nested or successive calls share one stream as
    successive calls share it in one R session (``rng=RRandom(1)`` in
    ``search_best(..., alg=stages_kmeans)``).  Where ``rng=None`` is the
    default of tie breaking (``predict``, ``sevt_fit_em``, ``stages_em``),
    it draws nothing: the first level wins.
the seed is ``seed`` in functions, ``random_state`` in the scikit-learn estimators
    For numpy: None (fresh entropy), an integer >= 0, or a numpy
    ``Generator``, whose stream continues.  For ``"R"`` and
    ``"R-rounding"``: an integer, the argument of R's ``set.seed``
    (required).  A legacy ``RandomState`` seeds either (a seed is drawn
    from it).  With a source in use as ``rng`` no seed is given.

In :mod:`pystagedtrees.bnc` functions ``random_state`` is a deprecated
alias of ``seed`` (it warns with a FutureWarning and behaves as before; a
source in use given there acts as ``rng``).  The estimators
(``BNClassifier``, ``StagedTreeClassifier``, ``BNClassifierChain``) keep
scikit-learn's ``random_state``, with ``rng`` where R can be replayed.
"""
from pystagedtrees.rng._numpy import NumpySource
from pystagedtrees.rng._resolve import (
    RNG_KINDS,
    Rng,
    Seed,
    check_seed,
    continues_a_stream,
    resolve_source,
)
from pystagedtrees.rng._rounding import RRoundingRandom
from pystagedtrees.rng._rrandom import RRandom
from pystagedtrees.rng._source import RandomSource

__all__ = [
    "NumpySource", "RNG_KINDS", "RRandom", "RRoundingRandom", "RandomSource", "Rng", "Seed",
    "check_seed", "continues_a_stream", "resolve_source",
]
