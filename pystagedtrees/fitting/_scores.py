"""Scores of a fitted staged tree: log-likelihood, AIC and BIC (as R counts them)."""
from __future__ import annotations

import ast
import linecache
import math
import sys
import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd

from pystagedtrees.base._loglik import LogLik
from pystagedtrees.base._validation import check_number
from pystagedtrees.kernels._stage_scores import rsum, variable_loglik
from pystagedtrees.model._sevt import Sevt, check_sevt

__all__ = ["logLik", "AIC", "BIC", "sevt_df", "sevt_nvar", "sevt_varnames", "compute_loglik"]


def observed_stage_ids(model, i):
    """The stage id of each observed situation of variable ``i`` (a row of its
    counts), to be read only (they may be the model's own)."""
    return model.stage_vector(i).lookup(model.observed_situations(i), copy=False)


def variable_loglik_of(model, i, stage_of_row=None):
    """Log-likelihood contribution of variable ``i``, with R's summation;
    ``stage_of_row``: :func:`observed_stage_ids`, when the caller has them."""
    if stage_of_row is None:
        stage_of_row = observed_stage_ids(model, i)
    return variable_loglik(np.ascontiguousarray(model.situation_counts(i)),
                           np.ascontiguousarray(model.stage_probabilities(i)), stage_of_row)


def sevt_df(object: Sevt) -> int:
    """Number of free parameters: ``(k1 - 1) + sum_i |stages_i| (k_i - 1)``.

    Unobserved stages count, as in R.

    Examples
    --------
    >>> import pandas as pd
    >>> import pystagedtrees as st
    >>> st.sevt_df(st.sevt({"A": ["0", "1"], "B": ["0", "1"]}, full=True))
    3
    """
    check_sevt(object)
    return int(sum(len(object.stage_labels(i)) * (k - 1) for i, k in enumerate(object.n_levels)))


def sevt_nvar(object: Sevt) -> int:
    """Number of variables in the tree (R: ``sevt_nvar``).

    Examples
    --------
    >>> import pystagedtrees as st
    >>> st.sevt_nvar(st.sevt({"A": ["0", "1"], "B": ["0", "1"]}))
    2
    """
    check_sevt(object)
    return len(object.variables)


def sevt_varnames(object: Sevt) -> list[str]:
    """Names of the variables in tree order (R: ``sevt_varnames``).

    Examples
    --------
    >>> import pystagedtrees as st
    >>> st.sevt_varnames(st.sevt({"A": ["0", "1"], "B": ["0", "1"]}, order=["B", "A"]))
    ['B', 'A']
    """
    check_sevt(object)
    return list(object.variables)


def compute_loglik(model, per_variable=None, checked=False):
    """The log-likelihood recomputed from the counts and probabilities.

    ``per_variable``: each variable's :func:`variable_loglik_of`, from a
    caller that has them (a fit, or a learner that keeps them while it
    changes one variable of its own fitted copy at a time).  ``checked``:
    the caller has made sure the model is fitted with counts (a learner's
    ``prepare``), so the checks are not made again.
    """
    if per_variable is None:
        if not checked:
            if not model.has_counts:
                raise ValueError(
                    "`object` has no contingency tables: fit it with data "
                    "(sevt_fit(object, data)) before asking for its log-likelihood."
                )
            check_sevt(model, fitted=True)
        per_variable = [variable_loglik_of(model, i) for i in range(len(model.variables))]
    total = rsum(np.asarray(per_variable, dtype=np.float64))
    nobs = float(model.situation_counts(0).sum())
    return LogLik(float(total), sevt_df(model), nobs)


def logLik(object: Sevt) -> LogLik:
    """Log-likelihood of a fitted staged tree (R: ``logLik.sevt``).

    Returns the stored value when there is one, else recomputes it.

    Returns
    -------
    LogLik
        A float with attributes ``df`` (free parameters, unobserved stages
        included) and ``nobs`` (number of observations at the root).

    Examples
    --------
    >>> import pystagedtrees as st
    >>> model = st.full(st.datasets.titanic_table(), lambda_=0)
    >>> ll = st.logLik(model)
    >>> round(float(ll), 6), ll.df, ll.nobs
    (-5151.517117, 30, 2201)
    """
    check_sevt(object)
    if object.ll is not None:
        return object.ll
    return compute_loglik(object)


def call_expressions(frame, n_models):
    """The source text of the models given to the AIC/BIC call running in ``frame``
    (its caller's), normalised as R's ``deparse`` normalises them, or None.

    R labels the rows of its table with the calls' expressions.  Python 3.11
    records where each call stands in the source; with the source at hand
    (a file, a notebook cell, a doctest) its arguments are read back.  None
    where that fails: Python 3.10, no source (``python -c``), arguments
    unpacked with ``*``, or two models written alike (R stops there).
    ``m1.AIC(m2)`` gives ``m1`` and ``m2``.
    """
    positions = None if frame is None else getattr(frame.f_code, "co_positions", None)
    if positions is None:
        return None
    try:
        line, end_line, column, end_column = list(positions())[frame.f_lasti // 2]
        lines = linecache.getlines(frame.f_code.co_filename, frame.f_globals)
        if line is None or column is None or not lines:
            return None
        # columns count UTF-8 bytes
        text = "".join(lines[line - 1:end_line]).encode()
        end = len(text) - len(lines[end_line - 1].encode()) + end_column
        call = ast.parse(text[column:end].decode(), mode="eval").body
    except (IndexError, SyntaxError, UnicodeDecodeError, ValueError):
        return None
    if not isinstance(call, ast.Call) or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    given = list(call.args)
    if len(given) == n_models - 1 and isinstance(call.func, ast.Attribute):
        given = [call.func.value] + given  # m1.AIC(m2)
    labels = [ast.unparse(a) for a in given]
    if len(labels) != n_models or len(set(labels)) != n_models:
        return None
    return labels


def _user_frame():
    """The frame of the first caller outside this package (a method of Sevt
    delegates to AIC, which calls this module)."""
    package = __name__.split(".")[0]
    frame = sys._getframe(1)
    while frame is not None and frame.f_globals.get("__name__", "").split(".")[0] == package:
        frame = frame.f_back
    return frame


def _information_criterion(name, models, penalty, names):
    """``-2 ll + penalty(ll) df`` of one model, or R's table of several."""
    if names is not None:
        if isinstance(names, (str, bytes)) or not hasattr(names, "__len__"):
            raise TypeError(f"names must be a sequence of row labels, one per model, "
                            f"not {type(names).__name__}")
        if len(models) == 1 or len(names) != len(models):
            raise ValueError(f"names must give one row label per model: {len(models)} "
                             f"model(s), {len(names)} name(s); a single model gives a "
                             f"number, not a table")
        if len(set(names)) != len(names):  # R's row.names<- refuses them too
            raise ValueError(f"names must be distinct; got {list(names)}")
    scores = []
    for model in models:
        ll = logLik(model)
        with np.errstate(divide="ignore"):  # no observation: -inf, as in R
            scores.append((ll, -2.0 * float(ll) + penalty(ll) * ll.df))
    if len(scores) == 1:
        return scores[0][1]
    if len({ll.nobs for ll, _ in scores}) > 1:
        warnings.warn("models are not all fitted to the same number of observations",
                      stacklevel=3)
    if names is None:  # R's labels: the expressions of AIC's or BIC's caller
        names = call_expressions(_user_frame(), len(models))
    return pd.DataFrame({"df": [ll.df for ll, _ in scores], name: [v for _, v in scores]},
                        index=None if names is None else list(names))


def AIC(object: Sevt, *others: Sevt, k: float = 2,
        names: Sequence[str] | None = None) -> float | pd.DataFrame:
    """Akaike information criterion, ``-2 ll + k df``.

    With several models, as R's ``AIC(m1, m2, ...)``: a DataFrame with
    columns ``df`` and ``AIC``, one row per model in argument order (and a
    warning if their numbers of observations differ).  As in R, the rows are
    labelled with the expressions the models were given as (``m1``,
    ``st.full(t)``), read from the caller's source; ``names`` gives other
    labels.  Where the source cannot be read (Python 3.10, ``python -c``,
    ``AIC(*models)``, the same expression twice) the rows are numbered from 0.

    Examples
    --------
    >>> import pystagedtrees as st
    >>> model = st.indep(st.datasets.titanic_table())
    >>> round(st.AIC(model), 4) == round(-2 * float(st.logLik(model)) + 2 * 7, 4)
    True
    >>> st.AIC(model, st.full(st.datasets.titanic_table()), names=["indep", "full"]).df
    indep     7
    full     30
    Name: df, dtype: int64
    >>> st.AIC(model, st.full(st.datasets.titanic_table())).index.tolist()  # doctest: +SKIP
    ['model', 'st.full(st.datasets.titanic_table())']
    """
    k = check_number(k, "k")
    return _information_criterion("AIC", (object, *others), lambda ll: k, names)


def BIC(object: Sevt, *others: Sevt, names: Sequence[str] | None = None) -> float | pd.DataFrame:
    """Bayesian information criterion, ``-2 ll + log(nobs) df``.

    With several models, a DataFrame as :func:`AIC` gives, its rows labelled
    as R labels them (or by ``names``).

    Examples
    --------
    >>> import pystagedtrees as st
    >>> round(st.BIC(st.full(st.datasets.titanic_table())), 5)
    10533.93425
    """
    return _information_criterion("BIC", (object, *others), lambda ll: log_nobs(ll.nobs), names)


def log_nobs(nobs):
    """log(nobs) for BIC's penalty."""
    # math.log takes ints past 2^64 (numpy does not); no observation: -inf, as in R
    return math.log(nobs) if nobs > 0 else -math.inf
