"""Searching the variable order of a staged tree: ``search_greedy`` and ``search_best``.

R: R/search_greedy.R, R/search_best.R.  Both grow trees one variable at a
time with :func:`~pystagedtrees.sevt_add` and learn the stages of the new
variable only (``alg(..., scope=var)``), so the data are encoded once and
every candidate tree is counted from the codes.
"""
from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from pystagedtrees.base._data import own_copy
from pystagedtrees.base._validation import (
    check_call_fits,
    check_flag,
    check_score_value,
    check_smoothing,
    check_steps_fit,
)
from pystagedtrees.fitting._construct import _check_tree, append_from_codes, model_from_codes
from pystagedtrees.fitting._counting import read_data
from pystagedtrees.fitting._scores import BIC
from pystagedtrees.learners._learners import STAGE_BYTES, stages_bhc
from pystagedtrees.model._sevt import Sevt, check_learned

__all__ = ["search_greedy", "search_best"]


class _EncodedData:
    """The data encoded once; builds full trees and appends variables from codes."""

    def __init__(self, data, lambda_, join_unobserved):
        self.data = own_copy(data)  # every model built keeps it as data_raw
        self.codes, self.tree, self.weights = read_data(data)
        _check_tree(self.tree, "data")
        self.variables = list(self.tree)
        self.lambda_ = lambda_
        self.join_unobserved = join_unobserved

    def _columns(self, variables):
        return self.codes[:, [self.variables.index(v) for v in variables]]

    def full(self, order):
        """R's ``full(data, order = order, join_unobserved, lambda)``."""
        tree = {v: self.tree[v] for v in order}
        return model_from_codes(
            self._columns(order), tree, self.weights, self.data,
            self.join_unobserved, self.lambda_, "UNOBSERVED", True,
        )

    def add(self, model, var):
        """R's ``sevt_add(model, var, data, join_unobserved)``."""
        codes = self._columns(model.variables + [var])
        return append_from_codes(
            model, var, self.tree[var], codes, self.weights, self.join_unobserved
        )


def _check_search(data, alg, search_criterion, lambda_, join_unobserved, alg_args):
    if not callable(alg):
        raise TypeError(f"`alg` must be a stage learner such as stages_bhc; got {alg!r}.")
    if not callable(search_criterion):
        raise TypeError(
            "`search_criterion` must be a function of a model returning a number "
            f"(such as BIC); got {search_criterion!r}."
        )
    if "scope" in alg_args:
        raise TypeError(
            "`scope` cannot be passed to `alg`: the search sets it to the "
            "variable being added."
        )
    # before any fitting: an unknown option would fail only at the first call
    name = getattr(alg, "__name__", alg)
    check_call_fits(alg, f"`alg_args` must be options of `alg` ({name!r})", None, scope=None,
                    **alg_args)
    lambda_ = check_smoothing(lambda_, "lambda_")
    join_unobserved = check_flag(join_unobserved, "join_unobserved")
    encoded = _EncodedData(data, lambda_, join_unobserved)
    _check_search_memory(encoded, alg, name)
    return encoded


def _distinct_rows_without_each(codes):
    """For each column, the number of distinct rows of the other columns.

    Rows are hashed once (a sum of codes times odd 64-bit constants); a
    column's hash is taken out by subtraction.  Two distinct rows share a
    hash with probability about 2^-64: a bound for estimates, not for results.
    """
    weights = np.random.default_rng(0).integers(1, 2**63, size=codes.shape[1], dtype=np.uint64)
    weights |= np.uint64(1)
    shifted = codes.astype(np.int64) + 1  # missing values (-1) are a value here
    row_hash = np.zeros(len(codes), dtype=np.uint64)
    for j in range(codes.shape[1]):
        row_hash += shifted[:, j].astype(np.uint64) * weights[j]
    return [len(np.unique(row_hash - shifted[:, j].astype(np.uint64) * weights[j]))
            for j in range(codes.shape[1])]


def _check_search_memory(encoded, alg, name):
    """Refuse, before building any tree, a search whose learner could not hold
    some variable added last, after every other: its situations are then the
    distinct rows of the other columns (plus one unobserved stage)."""
    needed = STAGE_BYTES.get(alg)
    if needed is None:
        return
    counts = _distinct_rows_without_each(encoded.codes)
    check_steps_fit(
        ((f"{name} on {var!r} added after every other variable, in up to {m + 1:,} stages",
          needed(m + 1, len(encoded.tree[var]))) for var, m in zip(encoded.variables, counts)),
        "use fewer rows or columns, or a learner of less memory (stages_kmeans)")


def _criterion(search_criterion, model):
    return check_score_value(search_criterion(model), "search_criterion")


def search_greedy(data: pd.DataFrame | pd.Series, alg: Callable[..., Sevt] = stages_bhc,
                  search_criterion: Callable[[Sevt], float] = BIC, lambda_: float = 0,
                  join_unobserved: bool = True, **alg_args: Any) -> Sevt:
    """Greedy search of the variable order (R: ``search_greedy``).

    The first variable is the one whose one-variable tree has the lowest
    ``search_criterion``; then, repeatedly, each remaining variable is
    appended (:func:`~pystagedtrees.sevt_add`), its stages are learned with
    ``alg(model, scope=var, **alg_args)``, and the candidate with the lowest
    criterion is kept.  Ties keep the earlier column, as R's strict ``<``.

    Parameters
    ----------
    data : pandas.DataFrame or pandas.Series
        Categorical data or a table of counts, with at least two variables.
    alg : callable, default stages_bhc
        A stage learner accepting ``scope`` (any ``stages_*`` function).
    search_criterion : callable, default BIC
        Function of a model to minimise.
    lambda_ : float, default 0
        Smoothing passed to :func:`~pystagedtrees.full`.
    join_unobserved : bool, default True
        Passed to :func:`~pystagedtrees.full` and
        :func:`~pystagedtrees.sevt_add`.
    **alg_args
        Further arguments of ``alg`` (not ``scope``).

    Returns
    -------
    Sevt
        The learned staged tree, variables in the order found.

    Examples
    --------
    >>> import pystagedtrees as st
    >>> model = st.search_greedy(st.datasets.titanic_table(), alg=st.stages_fbhc)
    >>> model.variables
    ['Age', 'Sex', 'Survived', 'Class']
    """
    encoded = _check_search(data, alg, search_criterion, lambda_, join_unobserved, alg_args)
    best, best_value = None, None
    for var in encoded.variables:
        candidate = encoded.full([var])
        value = _criterion(search_criterion, candidate)
        if best is None or value < best_value:
            best, best_value = candidate, value
    model = best
    while len(model.variables) < len(encoded.variables):
        best, best_value = None, None
        for var in encoded.variables:
            if var in model.variables:
                continue
            candidate = check_learned(alg(encoded.add(model, var), scope=[var], **alg_args), "alg")
            value = _criterion(search_criterion, candidate)
            if best is None or value < best_value:
                best, best_value = candidate, value
        model = best
    return model


# past this the dynamic programme makes over 2 * 10^7 learner calls (about 1 ms each)
MAX_BEST_VARIABLES = 20


def search_best(data: pd.DataFrame | pd.Series, alg: Callable[..., Sevt] = stages_bhc,
                search_criterion: Callable[[Sevt], float] = BIC, lambda_: float = 0,
                join_unobserved: bool = True, **alg_args: Any) -> Sevt:
    """Best variable order by dynamic programming (R: ``search_best``).

    The method of Silander & Leong (2013): for every set ``W`` of variables,
    from singletons up, the best last variable ("sink") ``v`` of ``W`` is the
    one minimising ``score(W - v) + crit(alg(sevt_add(full(W - v), v),
    scope=v)) - crit(full(W - v))``.  Following the sinks back from the set
    of all variables gives the order, and the result is
    ``alg(full(data, order), **alg_args)``.  When the criterion decomposes
    over variables (BIC, AIC, the log-likelihood) and ``alg`` learns each
    variable independently, no order scores better.

    Sets are visited in R's ``combn`` order and ties keep the first sink, so
    the order found is R's.  The cost grows as ``p * 2 ** (p - 1)`` learner
    calls for ``p`` variables: more than 20 variables are refused.

    A random learner (``stages_kmeans``) draws afresh in every call.  To
    replay an R search, pass one R generator for the whole search, e.g.
    ``rng=RRandom(seed)`` from :mod:`pystagedtrees.rng` (a source in use);
    ``rng="R", seed=s`` would restart the stream at every call, unlike R.

    Parameters
    ----------
    data, alg, search_criterion, lambda_, join_unobserved, **alg_args
        As in :func:`search_greedy`.

    Returns
    -------
    Sevt

    Examples
    --------
    >>> import pystagedtrees as st
    >>> model = st.search_best(st.datasets.titanic_table(), alg=st.stages_bhc)
    >>> model.variables
    ['Class', 'Survived', 'Sex', 'Age']
    """
    encoded = _check_search(data, alg, search_criterion, lambda_, join_unobserved, alg_args)
    variables = encoded.variables
    if len(variables) > MAX_BEST_VARIABLES:
        p = len(variables)
        raise ValueError(
            f"`data` has {p} variables: search_best would make {p * 2 ** (p - 1):,} learner "
            f"calls and hold {math.comb(p, p // 2):,} trees at once; it takes at most "
            f"{MAX_BEST_VARIABLES} variables (use search_greedy, or fewer columns).")
    scores, sinks = {}, {}
    # the full trees of the sets one variable smaller, with their criterion
    previous = {}
    for var in variables:
        model = encoded.full([var])
        previous[(var,)] = model, _criterion(search_criterion, model)
        scores[(var,)], sinks[(var,)] = previous[(var,)][1], var
    for size in range(2, len(variables) + 1):
        current = {}
        for subset in itertools.combinations(variables, size):
            best_sink, best_value = None, None
            for var in subset:
                rest = tuple(v for v in subset if v != var)
                base, base_value = previous[rest]
                added = check_learned(alg(encoded.add(base, var), scope=[var], **alg_args), "alg")
                value = scores[rest] + (_criterion(search_criterion, added) - base_value)
                if best_value is None or value < best_value:
                    best_sink, best_value = var, value
            scores[subset], sinks[subset] = best_value, best_sink
            if size < len(variables):
                model = encoded.full(list(subset))
                current[subset] = model, _criterion(search_criterion, model)
        previous = current
    order = []
    left = tuple(variables)
    while left:
        order.insert(0, sinks[left])
        left = tuple(v for v in left if v != order[0])
    return check_learned(alg(encoded.full(order), **alg_args), "alg")
