"""Fitting and learning with missing values by imputation: ``sevt_fit_em``, ``stages_em``.

R: R/sevt_fit_em.R, R/stages_em.R.  Each iteration fills every missing value
of the model's variables with its most probable level given the rest of the
row (:func:`~pystagedtrees.predict` with the current model), then refits
(and, for ``stages_em``, relearns the stages) on the completed data.  This
is the "hard" EM of R: there is no convergence test on the probabilities.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pandas as pd

from pystagedtrees.base._data import check_frame, encode_frame
from pystagedtrees.base._validation import check_call_fits, check_flag, check_int
from pystagedtrees.compare._compare import compare_stages
from pystagedtrees.fitting._construct import copy_sevt
from pystagedtrees.fitting._fit import sevt_fit
from pystagedtrees.inference._inference import class_log_posterior, most_probable
from pystagedtrees.learners._learners import check_learner_call_memory, stages_bhc
from pystagedtrees.model._sevt import Sevt, check_learned, check_sevt
from pystagedtrees.rng import Rng, Seed, resolve_source

__all__ = ["sevt_fit_em", "stages_em"]


def _em_data(model, data):
    """The data to impute: ``data``, else the model's raw data (a DataFrame),
    with string column names as the model's variables (``full`` converts them)."""
    if data is None:
        if not isinstance(model.shared_data_raw, pd.DataFrame):
            raise ValueError(
                "`data` is needed: the model's raw data is not a DataFrame of "
                "rows (a table of counts has no missing values to impute)."
            )
        data = model.shared_data_raw
    elif not isinstance(data, pd.DataFrame):
        raise TypeError(
            f"`data` must be a pandas DataFrame of rows; got {type(data).__name__}."
        )
    return check_frame(data, "data")


def impute(data, model, chain_impute=False, source=None):
    """``data`` with each missing value of a model variable set to its most probable level.

    Variables are filled in tree order; each one is predicted from the
    original row, or with ``chain_impute`` from the row as already filled.
    A value stays missing where every level has probability 0.  Ties go to
    the first level, or are drawn from the random ``source`` as R draws
    them.  The model's columns come back as categoricals over the model's
    levels; other columns are unchanged.
    """
    variables = model.variables
    codes, _ = encode_frame(data, columns=variables, levels=model.tree)
    original = codes.copy()
    for i in range(len(variables)):
        missing = codes[:, i] < 0
        if missing.any():
            rows = (codes if chain_impute else original)[missing]
            codes[missing, i] = most_probable(class_log_posterior(model, rows, i), source)
    filled = data.copy()
    for i, var in enumerate(variables):
        filled[var] = pd.Categorical.from_codes(codes[:, i], model.tree[var])
    return filled


def sevt_fit_em(object: Sevt, data: pd.DataFrame | None = None, lambda_: float | None = None,
                scope: Sequence[str] | None = None, max_iter: int = 5,
                chain_impute: bool = False, seed: Seed = None, rng: Rng = None) -> Sevt:
    """Fit a staged tree to data with missing values by iterated imputation (R: ``sevt_fit_em``).

    ``max_iter`` times: impute the missing values of ``data`` with the
    current model, then refit it on the completed data.

    Parameters
    ----------
    object : Sevt
        A fitted model (the first imputation uses its probabilities).
    data : pandas.DataFrame, optional
        Rows with missing values; default the model's ``data_raw``.  A row
        whose imputation sums out more than 2^24 completions is refused
        (ValueError), as :func:`~pystagedtrees.predict` refuses it.
    lambda_ : float, optional
        Smoothing of every refit (default the model's).
    scope : list of str, optional
        As in :func:`~pystagedtrees.sevt_fit`: a scope that leaves variables
        out refits them from the stored tables and ignores the imputed data
        (with a warning), as R does.
    max_iter : int, default 5
        Number of imputation-refit rounds (at least 1; there is no
        convergence test).
    chain_impute : bool, default False
        Impute each variable from the row as already imputed.
    seed, rng
        How ties between equally probable levels are broken, as in
        :func:`~pystagedtrees.predict`: the first level by default (rng=None);
        a level drawn from ``rng`` otherwise (see :mod:`pystagedtrees.rng`),
        so with ``rng="R", seed=s`` the result equals R's after
        ``set.seed(s)``.  A ``seed`` without ``rng`` is an error (it would
        be unused).

    Returns
    -------
    Sevt
        Fitted on the last completed data (its ``data_raw``), without a
        stored log-likelihood (as in R; :func:`~pystagedtrees.logLik`
        computes it); ``fit_em = {"iter": max_iter}``.

    Examples
    --------
    >>> import numpy as np
    >>> import pystagedtrees as st
    >>> data = st.datasets.titanic()
    >>> data = data.mask(np.random.default_rng(1).random(data.shape) < 0.1)
    >>> model = st.sevt_fit_em(st.full(data, lambda_=1))
    >>> int(model.data_raw.isna().sum().sum()), model.fit_em
    (0, {'iter': 5})
    """
    check_sevt(object, fitted=True)
    data = _em_data(object, data)
    max_iter = check_int(max_iter, "max_iter", minimum=1)
    chain_impute = check_flag(chain_impute, "chain_impute")
    source = resolve_source(seed, rng, optional=True)
    model = object
    for iteration in range(1, max_iter + 1):
        completed = impute(data, model, chain_impute, source)
        model = sevt_fit(model, data=completed, lambda_=lambda_, scope=scope,
                         compute_logLik=False)
        model.fit_em = {"iter": iteration}
    return model


def stages_em(object: Sevt, data: pd.DataFrame | None = None,
              stages_alg: Callable[..., Sevt] = stages_bhc, max_iter_em: int = 5,
              incremental: bool = False, chain_impute: bool = False, seed: Seed = None,
              rng: Rng = None, **alg_args: Any) -> Sevt:
    """Learn stages from data with missing values by iterated imputation (R: ``stages_em``).

    Each round imputes the missing values with the current model, refits
    the starting structure (or, with ``incremental``, the current model) on
    the completed data and learns its stages with ``stages_alg``.  It stops
    when the stages no longer change (:func:`~pystagedtrees.compare_stages`)
    or after ``max_iter_em`` rounds, and the result is refitted on the last
    completed data.

    Parameters
    ----------
    object : Sevt
        A fitted model: the starting structure and the first imputer.
    data : pandas.DataFrame, optional
        Rows with missing values; default the model's ``data_raw``.  A row
        whose imputation sums out more than 2^24 completions is refused
        (ValueError), as :func:`~pystagedtrees.predict` refuses it.
    stages_alg : callable, default stages_bhc
        A stage learner (any ``stages_*`` function): it must return a
        staged tree.
    max_iter_em : int, default 5
    incremental : bool, default False
        Start each round's learning from the current model instead of the
        starting structure.
    chain_impute : bool, default False
        Impute each variable from the row as already imputed.
    seed, rng
        How imputation ties are broken, as in :func:`sevt_fit_em` (a ``seed``
        needs an ``rng``).  With a random ``stages_alg``, R's result needs
        one R generator shared by both: ``g = RRandom(s)``, ``rng=g`` and
        ``stages_alg=functools.partial(stages_kmeans, rng=g)``.
    **alg_args
        Further arguments of ``stages_alg``.

    Returns
    -------
    Sevt
        With ``data_raw`` the original data and ``em = {"iter": i}``, the
        last round run (the one whose stages equalled the previous ones, if
        they converged).

    Examples
    --------
    >>> import numpy as np
    >>> import pystagedtrees as st
    >>> titanic = st.datasets.titanic()
    >>> holes = np.random.default_rng(1).random(titanic.shape) < 0.1
    >>> learned = st.stages_em(st.full(titanic.mask(holes), lambda_=1))
    >>> learned.em, bool(learned.data_raw.isna().to_numpy().sum() == holes.sum())
    ({'iter': 3}, True)
    """
    check_sevt(object, fitted=True)
    data = _em_data(object, data)
    if not callable(stages_alg):
        raise TypeError(
            f"`stages_alg` must be a stage learner such as stages_bhc; got {stages_alg!r}."
        )
    # before any imputation: an unknown option would fail only at the first call
    check_call_fits(stages_alg, "further arguments must be options of `stages_alg` "
                    f"({getattr(stages_alg, '__name__', stages_alg)!r})", object, **alg_args)
    check_learner_call_memory(stages_alg, object, alg_args)
    max_iter_em = check_int(max_iter_em, "max_iter_em", minimum=1)
    incremental = check_flag(incremental, "incremental")
    chain_impute = check_flag(chain_impute, "chain_impute")
    source = resolve_source(seed, rng, optional=True)
    model = object.copy()
    model.em = {}
    start = copy_sevt(model, extra=["lambda", "name_unobserved", "em"])
    for iteration in range(1, max_iter_em + 1):
        completed = impute(data, model, chain_impute, source)
        start = sevt_fit(model if incremental else start, data=completed)
        learned = check_learned(stages_alg(start, **alg_args), "stages_alg")
        learned.em = {"iter": iteration}
        if compare_stages(model, learned):
            model.em = {"iter": iteration}
            break
        model = learned
    model = sevt_fit(model, data=completed)
    model.data_raw = data
    return model
