"""Fitting stage probabilities: ``sevt_fit`` and ``join_unobserved`` (R: R/sevt_fit.R)."""
from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from pystagedtrees.base._dask import dask_levels, is_dask_frame
from pystagedtrees.base._data import own_copy
from pystagedtrees.base._rows import SEQUENTIAL_BELOW, row_sums
from pystagedtrees.base._validation import (
    check_flag,
    check_names,
    check_smoothing,
    check_trace,
    user_stacklevel,
)
from pystagedtrees.fitting._counting import count_dask_frame, count_situations, read_data
from pystagedtrees.fitting._scores import compute_loglik, observed_stage_ids, variable_loglik_of
from pystagedtrees.kernels._counts import smooth_rows, sum_rows_by_stage
from pystagedtrees.model._sevt import Sevt, check_sevt
from pystagedtrees.model._stagevec import new_label

if TYPE_CHECKING:
    import dask.dataframe as dd

__all__ = ["sevt_fit", "fit_in_place", "join_unobserved", "check_scope"]


def check_scope(model, scope, name="scope", default_root=False):
    """Variable positions named by ``scope`` (default: all but the root)."""
    variables = model.variables
    if scope is None:
        return list(range(0 if default_root else 1, len(variables)))
    return [model.var_index(v, name) for v in check_names(scope, name)]


def fit_variable(model, i):
    """Recompute the probabilities of variable ``i`` from the stored counts,
    and return the stage id of each of its observed situations.

    Stage ids are renumbered in order of first appearance, as R rebuilds
    ``prob`` from ``unique(stages)``.
    """
    model.keep_stages(i, model.stage_vector(i).first_appearance())
    stage_of_row = observed_stage_ids(model, i)
    model.set_stage_probabilities(i, *refitted_stage_prob(model, i, stage_of_row))
    return stage_of_row


def stage_counts(model, i, stage_of_row=None):
    """The stored counts of variable ``i`` summed by stage id (stages x levels);
    ``stage_of_row``: :func:`observed_stage_ids`, when the caller has them."""
    counts = np.ascontiguousarray(model.situation_counts(i))
    if stage_of_row is None:
        stage_of_row = observed_stage_ids(model, i)
    by_stage = np.zeros((len(model.stage_labels(i)), int(model.n_levels[i])))
    sum_rows_by_stage(counts, stage_of_row, by_stage)
    return by_stage


def refitted_stage_prob(model, i, stage_of_row=None):
    """Probabilities and sample sizes of the stages of variable ``i``
    estimated from the stored counts (by stage id), leaving the model as it is."""
    return smoothed_stage_prob(model, stage_counts(model, i, stage_of_row))


def smoothed_stage_prob(model, prob):
    """:func:`refitted_stage_prob` from the stage counts ``prob`` (stages x
    levels, C-contiguous), smoothed and divided in place: the counts are not kept."""
    lambda_ = model.lambda_ or 0.0  # unset (copy_sevt without it): none, as the learners
    if 0 < prob.shape[1] < SEQUENTIAL_BELOW:  # one pass, the numbers of the lines below
        sizes = np.empty(prob.shape[0])
        smooth_rows(prob, lambda_, sizes)
        return prob, sizes
    sizes = row_sums(prob)
    prob += lambda_
    with np.errstate(invalid="ignore", divide="ignore"):
        prob /= row_sums(prob)[:, None]
    return prob, sizes


def sevt_fit(object: Sevt, data: pd.DataFrame | pd.Series | dd.DataFrame | None = None,
             lambda_: float | None = None, scope: Sequence[str] | None = None,
             compute_logLik: bool = True) -> Sevt:
    """Estimate the stage probabilities of a staged tree (R: ``sevt_fit``).

    Parameters
    ----------
    object : Sevt
    data : pandas.DataFrame, pandas.Series or dask.dataframe.DataFrame, optional
        Data to count; default: the contingency tables stored in the model.
        A Dask frame is counted partition by partition; the model then
        keeps the tables, not the rows (``data_raw`` is None).
    lambda_ : float, optional
        Additive smoothing; default the model's (0 with a warning if unset).
    scope : list of str, optional
        Refit only these variables, from the stored tables (the model must
        be fitted already; ``data`` and ``lambda_`` are then ignored, with a
        warning, as in R).  A scope naming every variable is a complete fit.
    compute_logLik : bool, default True

    Returns
    -------
    Sevt
        A new fitted model; probabilities are ``(c + lambda_) / sum(c + lambda_)``
        per stage, NaN for an empty stage when ``lambda_ = 0``.

    Examples
    --------
    >>> import pandas as pd
    >>> import pystagedtrees as st
    >>> df = pd.DataFrame({"A": ["a", "b", "a", "a"], "B": ["x", "x", "y", "x"]})
    >>> model = st.sevt_fit(st.sevt(df), data=df, lambda_=0)
    >>> model.stage_prob["A"]["1"].tolist()
    [0.75, 0.25]
    """
    check_sevt(object)
    # new data replace the tables and the fit (unless `scope` ignores them): not copied
    model = (object.copy() if data is None or scope is not None
             else object.copy_without(("ctables", "prob")))
    lambda_ = check_smoothing(lambda_, "lambda_", allow_none=True)
    compute_logLik = check_flag(compute_logLik, "compute_logLik")
    positions = None if scope is None else check_scope(model, scope)
    if positions is not None and set(positions) == set(range(len(model.variables))):
        positions = None  # as in R, a scope of every variable is a complete fit
    if positions is not None:
        if not object.has_probabilities or not object.has_counts:
            raise ValueError(
                "`scope` refits part of a fitted model: `object` must be fitted "
                "with data first."
            )
        if data is not None or lambda_ is not None:
            warnings.warn(
                "sevt_fit with `scope` uses the stored tables and lambda_; "
                "`data` and `lambda_` are ignored.",
                stacklevel=2,
            )
    else:
        if is_dask_frame(data):  # the tables only: the model keeps no rows
            dask_levels(data, model.variables, model.tree, "data")  # the columns are there
            model.set_counts(*count_dask_frame(data, model.tree)[:2], None)
        elif data is not None:
            codes, _, weights = read_data(data, model.variables, model.tree)
            model.set_counts(*count_situations(codes, model.n_levels, weights,
                                               model.situation_trie), own_copy(data))
        elif not model.has_counts:
            raise ValueError(
                "`data` is needed: `object` holds no contingency tables to fit from."
            )
        if lambda_ is None:
            if model.lambda_ is None:
                warnings.warn("`lambda_` not given: using lambda_ = 0.", stacklevel=2)
                lambda_ = 0.0
            else:
                lambda_ = model.lambda_
        return fit_in_place(model, lambda_, compute_logLik)
    for i in positions:
        fit_variable(model, i)
    model.ll = compute_loglik(model) if compute_logLik else None
    return model


def fit_in_place(model, lambda_, compute_logLik=True):
    """Fit every variable of ``model`` itself (not a copy) from its tables
    with smoothing ``lambda_``, and return it (checked arguments)."""
    model.lambda_ = lambda_
    model.start_fit()
    per_variable = []
    for i in range(len(model.variables)):
        # a variable's stage ids serve its fit and its log-likelihood: looked up once
        stage_of_row = fit_variable(model, i)
        if compute_logLik:
            per_variable.append(variable_loglik_of(model, i, stage_of_row))
    model.ll = compute_loglik(model, per_variable) if compute_logLik else None
    return model


def warn_unobserved_name_taken(var, name):
    """Warn that the unobserved situations of ``var`` join the observed stage ``name`` (as in R)."""
    warnings.warn(
        f"the unobserved situations' stage name {name!r} is the label of an observed stage "
        f"of {var!r}: as in R, they join that stage, and learners that ignore "
        "name_unobserved leave it alone; choose a name no stage has.", UserWarning,
        stacklevel=user_stacklevel())


def join_unobserved(object: Sevt, fit: bool = True, trace: int = 0,
                    name: str | None = "UNOBSERVED", scope: Sequence[str] | None = None,
                    lambda_: float | None = None) -> Sevt:
    """Gather the situations that data never reach into one stage (R: ``join_unobserved``).

    Parameters
    ----------
    object : Sevt
        A model with contingency tables.
    fit : bool, default True
        Refit the model afterwards.
    trace : int, default 0
        Print what is joined when > 0.
    name : str or None, default "UNOBSERVED"
        Label of the new stage; None picks a fresh numeric label per variable
        (R's ``new_label``), which, as in R, is not added to
        ``name_unobserved``: learners may join those stages.
    scope : list of str, optional
        Variables to treat (default all but the root).
    lambda_ : float, optional
        Smoothing for the refit (default the model's).

    Returns
    -------
    Sevt

    Examples
    --------
    >>> import pystagedtrees as st
    >>> model = st.full(st.datasets.titanic_table(), join_unobserved=False)
    >>> st.join_unobserved(model).stages()["Survived"][12:]
    ['UNOBSERVED', '14', 'UNOBSERVED', '16']
    """
    check_sevt(object)
    if not object.has_counts:
        raise ValueError(
            "`object` has no contingency tables: fit it with data first."
        )
    if name is not None and not isinstance(name, str):
        raise TypeError(f"`name` must be a string or None; got {name!r}.")
    fit = check_flag(fit, "fit")
    trace = check_trace(trace)
    lambda_ = check_smoothing(lambda_, "lambda_", allow_none=True)
    model = object.copy()
    for i in check_scope(model, scope):
        labels = model.stage_labels(i)
        label = name if name is not None else new_label(labels.tolist())
        observed = model.observed_situations(i)[model.situation_counts(i).sum(axis=1) > 0]
        stage_id = labels.index(label)
        if (stage_id >= 0 and len(observed) < model.n_situations(i)
                and (model.stage_vector(i).lookup(observed) == stage_id).any()):
            warn_unobserved_name_taken(model.variables[i], label)
        if stage_id < 0:
            labels = labels.append(label)
            stage_id = len(labels) - 1
        vector = model.stage_vector(i).with_default_outside(observed, stage_id)
        if trace > 0:
            print(f"{model.variables[i]}: unobserved situations joined in stage {label!r}")
        model.erase_fit()  # stage ids change: the fit is redone below
        model.assign_stages(i, vector, labels)
    if name is not None:  # as R, which records the name given, none for fresh labels
        model.name_unobserved = list(dict.fromkeys((model.name_unobserved or []) + [name]))
    if fit:
        lam = model.lambda_ if lambda_ is None else lambda_
        return sevt_fit(model, lambda_=0.0 if lam is None else lam)
    model.erase_fit()
    return model
