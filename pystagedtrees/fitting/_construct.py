"""Building staged trees: ``sevt``, ``full`` and ``indep`` (R: R/sevt.R, R/full_indep.R)."""
from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Literal

import numpy as np
import pandas as pd

from pystagedtrees.base._dask import dask_levels, dask_meta, is_dask_frame
from pystagedtrees.base._data import check_frame, own_copy
from pystagedtrees.base._loglik import LogLik
from pystagedtrees.base._validation import (
    check_choice,
    check_flag,
    check_levels,
    check_smoothing,
)
from pystagedtrees.fitting._counting import (
    USE_NA,
    check_order,
    column_margins,
    count_dask_frame,
    count_paths,
    count_situations,
    read_data,
)
from pystagedtrees.fitting._fit import (
    fit_in_place,
    fit_variable,
    warn_unobserved_name_taken,
)
from pystagedtrees.fitting._scores import compute_loglik
from pystagedtrees.kernels._stage_scores import rsum
from pystagedtrees.model._sevt import OPTIONAL_FIELDS, Sevt, check_sevt
from pystagedtrees.model._stagevec import (
    DENSE_MAX,
    StageLabels,
    StageVector,
    dense_too_large,
    first_gap,
)
from pystagedtrees.model._trie import MAX_SITUATIONS, first_deep_variable

if TYPE_CHECKING:
    import dask.dataframe as dd

__all__ = ["sevt", "full", "indep", "sevt_add", "copy_sevt"]

_UNSET = object()


def _check_tree(tree, name, chosen_by=None):
    """Two variables or more, each with distinct levels; ``chosen_by`` names
    the argument that picked the variables of ``name``, if any."""
    if len(tree) < 2:
        raise ValueError(
            f"`{chosen_by or name}` gives {len(tree)} variable(s); a staged tree needs at "
            "least two variables."
        )
    for v, lev in tree.items():
        if len(lev) == 0:
            raise ValueError(f"`{name}`: variable {v!r} has no levels.")
        if len(set(lev)) != len(lev):
            raise ValueError(f"`{name}`: variable {v!r} repeats a level: {lev}.")
    return tree


def _root_stage():
    return StageVector(1, np.zeros(1, dtype=np.int32)), StageLabels.numbered([1])


def _variable_stages(var, n_sit, full, observed=None, name_unobserved=None):
    """Stage vector and labels of one non-root variable.

    ``full`` gives every situation its own stage, labelled by its 1-based
    position; otherwise all share stage "1".  With ``observed`` only those
    situations (sorted indices) get those stages and the others share the
    stage ``name_unobserved``; if an observed stage already has that name,
    they join it, as in R.  A ``name_unobserved`` of None is R's
    ``new_label`` of the unjoined stages: one past the last situation, or "2".
    """
    if observed is not None:
        own = np.arange(len(observed)) if full else np.zeros(len(observed), dtype=np.int64)
        # the situations of a deep variable are numbered in the trie, in path
        # order: their stages are numbered by their place among the observed
        numbers = observed + 1 if n_sit <= MAX_SITUATIONS else np.arange(1, len(observed) + 1)
        labels = StageLabels.numbered(numbers) if full else StageLabels.numbered([1])
        if name_unobserved is None:
            name_unobserved = str(n_sit + 1) if full else "2"
        unobserved_id = labels.index(name_unobserved)
        if len(observed) == n_sit:  # no situation is unobserved: no such stage
            unobserved_id = -1
        elif unobserved_id < 0:
            # ids in order of first appearance along the situations, as the fit
            # numbers them (R's unique(stages)), so that it moves nothing: the
            # unobserved stage comes in where its first situation does
            gap = first_gap(observed)
            unobserved_id = gap if full else min(gap, 1)
            own += own >= unobserved_id
            labels = labels.insert(unobserved_id, name_unobserved)
        else:
            warn_unobserved_name_taken(var, name_unobserved)
        return StageVector.build(n_sit, observed, own, unobserved_id), labels
    if full:
        if n_sit > DENSE_MAX:
            raise dense_too_large(
                n_sit, f"full stage vector of {var!r}", DENSE_MAX,
                "a stage per situation is built only up to that; use fewer variables, or, "
                "from data, let the unobserved situations share one stage "
                "(full(join_unobserved=True))")
        return (
            StageVector(n_sit, np.arange(n_sit, dtype=np.int32)),
            StageLabels.numbered(np.arange(1, n_sit + 1)),
        )
    return StageVector.build(n_sit, [], [], 0), StageLabels.numbered([1])


def _structure(tree, full, observed=None, name_unobserved=None, trie=None):
    """Stage vectors of the saturated (full) or independence model.

    With ``observed`` (the situations data reach, per variable, numbered
    in ``trie`` on deep variables), the other situations share the
    unobserved stage ``name_unobserved``.  Returns the arguments of
    :class:`Sevt`.
    """
    root_vector, root_labels = _root_stage()
    stages, labels = [root_vector], [root_labels]
    n_sit = 1
    variables, levels = list(tree), list(tree.values())
    for i in range(1, len(levels)):
        n_sit *= len(levels[i - 1])
        vector, lab = _variable_stages(
            variables[i], n_sit, full, None if observed is None else observed[i],
            name_unobserved,
        )
        stages.append(vector)
        labels.append(lab)
    return stages, labels, trie


def _levels_of(x, order, name):
    if isinstance(x, (pd.DataFrame, pd.Series)):
        _, levels, _ = read_data(x, order, name=name)
        return levels
    if isinstance(x, (list, tuple)):
        # R's unnamed list: variables V1..Vn, and `order` (of names) unused
        if order is not None:
            warnings.warn(f"`order` is ignored: `{name}` is an unnamed list of levels, "
                          "whose variables are V1, V2, ...", stacklevel=3)
            order = None
        x = {f"V{j + 1}": levels for j, levels in enumerate(x)}
    if not isinstance(x, dict):
        raise TypeError(
            f"`{name}` must be a dict of levels, a list of level lists, a DataFrame or a "
            f"table of counts; got {type(x).__name__}."
        )
    tree = {str(v): check_levels(levels, v, name) for v, levels in x.items()}
    if order is not None:
        tree = {v: tree[v] for v in check_order(order, list(tree), "order")}
    return tree


def sevt(x: Mapping[str, Sequence[str]] | Sequence[Sequence[str]] | pd.DataFrame | pd.Series,
         full: bool = False, order: Sequence[str] | None = None) -> Sevt:
    """A staged tree structure, without data (R: ``sevt``).

    Parameters
    ----------
    x : dict of str to list, list of lists, pandas.DataFrame or pandas.Series
        The levels of each variable (in tree order), or data from which
        they are read.  A list of level lists names the variables ``V1,
        V2, ...`` as R does for an unnamed list (``order`` is then ignored,
        with a warning).
    full : bool, default False
        Every situation in its own stage (the saturated model) instead of
        one stage per variable (the independence model).
    order : list of str, optional
        Variables to use, in this order.

    Returns
    -------
    Sevt
        An unfitted model.

    Examples
    --------
    >>> import pystagedtrees as st
    >>> st.sevt({"A": ["a", "b"], "B": ["x", "y", "z"], "C": ["0", "1"]}, full=True).stages()
    {'B': ['1', '2'], 'C': ['1', '2', '3', '4', '5', '6']}
    """
    tree = _check_tree(_levels_of(x, order, "x"), "x", None if order is None else "order")
    return Sevt(tree, *_structure(tree, check_flag(full, "full")))


def _check_levels_arg(levels):
    """``full``/``indep``'s ``levels``: None or a dict of variable to distinct level strings."""
    if levels is None:
        return None
    if not isinstance(levels, Mapping):
        raise TypeError(f"`levels` must be a dict of variable to its levels; got "
                        f"{type(levels).__name__}.")
    return {str(v): check_levels(lev, v, "levels") for v, lev in levels.items()}


def _from_data(data, order, join_unobserved, lambda_, name_unobserved, full, levels):
    """``full``/``indep`` after checking their arguments."""
    lambda_ = check_smoothing(lambda_, "lambda_")
    join_unobserved = check_flag(join_unobserved, "join_unobserved")
    if name_unobserved is not None and not isinstance(name_unobserved, str):
        raise TypeError(
            f"`name_unobserved` must be a string or None; got {name_unobserved!r}."
        )
    levels = _check_levels_arg(levels)
    if is_dask_frame(data):
        order = check_order(order, list(dask_meta(data, "data").columns))
        _check_levels_named(levels, order)
        tree = _check_tree(dask_levels(data, order, levels, "data"), "data",
                           None if order is None else "order")
        marginal = not full and not join_unobserved  # R fits each margin (_fit_marginals)
        situations, counts, margins, n_rows = count_dask_frame(data, tree, margins=marginal)
        return model_from_counts(tree, situations, counts,
                                 (margins, n_rows) if marginal else None, None,
                                 join_unobserved, lambda_, name_unobserved, full)
    if levels is not None and isinstance(data, pd.DataFrame):
        order = check_order(order, list(check_frame(data, "data").columns))
        _check_levels_named(levels, order)
    codes, tree, weights = read_data(data, order, levels)
    _check_tree(tree, "data", None if order is None else "order")
    return model_from_codes(
        codes, tree, weights, own_copy(data), join_unobserved, lambda_, name_unobserved, full
    )


def _check_levels_named(levels, order):
    unknown = [v for v in levels or {} if v not in order]
    if unknown:
        raise ValueError(f"`levels` names variable(s) {unknown} that are not among the "
                         f"variables used, {order}.")


def model_from_codes(codes, tree, weights, data, join_unobserved, lambda_,
                     name_unobserved, full):
    """The fitted full or independence model of encoded data (checked arguments).

    ``codes`` has one column per variable of ``tree``, in tree order; one
    variable is allowed (the order searches score single variables).
    ``data`` becomes ``data_raw`` as it is: the caller copies the user's.
    """
    n_levels = [len(lev) for lev in tree.values()]
    situations, counts, trie = count_paths(codes, n_levels, weights)
    rows = None  # the margins only where they are used
    if isinstance(data, pd.DataFrame) and not full and not join_unobserved:
        rows = (column_margins(codes, n_levels), codes.shape[0])
    return model_from_counts(tree, situations, counts, rows, data, join_unobserved, lambda_,
                             name_unobserved, full, trie)


def model_from_counts(tree, situations, counts, rows, data, join_unobserved, lambda_,
                      name_unobserved, full, trie=None):
    """:func:`model_from_codes` from the tables: ``rows`` is ``(margins, n_rows)`` when
    the data were rows (R's ``indep`` of a data frame fits each margin), else None;
    ``trie`` numbers the deep variables' situations (the data's paths)."""
    if join_unobserved:
        model = Sevt(tree, *_structure(tree, full, situations, name_unobserved, trie))
        # R records the name given, none for fresh labels (name None)
        model.name_unobserved = None if name_unobserved is None else [name_unobserved]
    else:
        model = Sevt(tree, *_structure(tree, full, trie=trie))
    model.set_counts(situations, counts, data)
    if not full and not join_unobserved and rows is not None:
        return _fit_marginals(model, *rows, lambda_)
    return fit_in_place(model, lambda_)  # a model no one else holds: no copy


def _fit_marginals(model, margins, n_rows, lambda_):
    """R's ``indep.data.frame(join_unobserved = FALSE)``: each variable from its own margin.

    Every non-missing value counts (not only rows complete up to the
    variable) and ``nobs`` is the number of rows; this differs from
    ``sevt_fit`` only when the data have missing values.
    """
    model.lambda_ = lambda_
    model.start_fit()
    ll = 0.0
    for i, margin in enumerate(margins):
        smoothed = margin + lambda_
        with np.errstate(invalid="ignore"):  # an all-missing column with lambda 0: NaN, as R
            prob = smoothed / rsum(smoothed)
        model.set_stage_probabilities(i, prob[None, :], np.array([margin.sum()]))
        ll = ll + rsum(margin[margin > 0] * np.log(prob[margin > 0]))
    model.ll = LogLik(ll, int(sum(model.n_levels - 1)), n_rows)
    return model


def full(data: pd.DataFrame | pd.Series | dd.DataFrame, order: Sequence[str] | None = None,
         join_unobserved: bool = True, lambda_: float = 0,
         name_unobserved: str | None = "UNOBSERVED",
         levels: Mapping[str, Sequence[str]] | None = None) -> Sevt:
    """The saturated staged tree fitted to data (R: ``full``).

    Every situation is its own stage; with ``join_unobserved`` the
    situations that data never reach share one stage, ``name_unobserved``.

    Parameters
    ----------
    data : pandas.DataFrame, pandas.Series or dask.dataframe.DataFrame
        Categorical data, or a table of counts (a Series indexed by a
        MultiIndex of levels).  A Dask frame is counted partition by
        partition and its tables summed: the model keeps the tables, not
        the rows (``data_raw`` is None).  Its columns need known categories
        (``ddf.categorize()``) or ``levels``.
    order : list of str, optional
        Variables in tree order (default: the data's column order).
    join_unobserved : bool, default True
    lambda_ : float, default 0
        Additive smoothing of the stage probabilities.
    name_unobserved : str or None, default "UNOBSERVED"
        None gives each variable's unobserved stage a fresh number, as
        :func:`join_unobserved` does with ``name=None``.
    levels : dict of str to list of str, optional
        The levels of some variables, in order (not in R); a value outside
        them is an error.  Default: read from the data.

    Returns
    -------
    Sevt

    Raises
    ------
    ValueError
        Empty data, unknown names in ``order``, ``lambda_ < 0``, fewer than
        two variables, or a saturated tree too large to store without
        ``join_unobserved``.
    TypeError
        Float columns with values that are not whole numbers (whole
        floats are levels, read as R's ``as.factor`` reads them).

    Examples
    --------
    >>> import pandas as pd
    >>> import pystagedtrees as st
    >>> df = pd.DataFrame({"A": ["a", "b", "a", "a"], "B": ["x", "x", "y", "x"]})
    >>> model = st.full(df, lambda_=1)
    >>> model.stage_prob["B"]["1"].round(3).tolist()
    [0.6, 0.4]
    """
    return _from_data(data, order, join_unobserved, lambda_, name_unobserved, True,
                      levels)


def indep(data: pd.DataFrame | pd.Series | dd.DataFrame, order: Sequence[str] | None = None,
          join_unobserved: bool = True, lambda_: float = 0,
          name_unobserved: str | None = "UNOBSERVED",
          levels: Mapping[str, Sequence[str]] | None = None) -> Sevt:
    """The independence staged tree fitted to data (R: ``indep``).

    All situations of a variable share one stage ("1"); with
    ``join_unobserved`` the unobserved ones are gathered in a separate stage.
    The arguments are those of :func:`full`.  As in R, a DataFrame fitted
    without ``join_unobserved`` estimates each variable from all its
    non-missing values and counts every row in ``nobs``.

    Returns
    -------
    Sevt

    Examples
    --------
    >>> import pandas as pd
    >>> import pystagedtrees as st
    >>> df = pd.DataFrame({"A": ["a", "b", "a", "a"], "B": ["x", "x", "y", "x"]})
    >>> st.indep(df).stages()
    {'B': ['1', '1']}
    """
    return _from_data(data, order, join_unobserved, lambda_, name_unobserved, False,
                      levels)


def sevt_add(object: Sevt, var: str, data: pd.DataFrame | pd.Series, join_unobserved: bool = True,
             useNA: Literal["ifany", "no", "always"] = "ifany") -> Sevt:
    """Append a variable to a fitted staged tree (R: ``sevt_add``).

    The new last variable starts saturated, every situation in its own
    stage, and is fitted from ``data`` with the model's ``lambda_``; the
    other variables keep their stages, counts and probabilities.

    Parameters
    ----------
    object : Sevt
        A fitted model with contingency tables.
    var : str
        The variable to add; a column of ``data`` that is not in the model.
    data : pandas.DataFrame or pandas.Series
        Data (or a table of counts) holding the model's variables and
        ``var``.  The new variable is counted on the rows where it and every
        model variable are present, as R counts it; its levels are read from
        ``data``, those of the model's variables must be the model's.
    join_unobserved : bool, default True
        Gather the situations of ``var`` that data never reach in the
        model's first unobserved stage name (``"UNOBSERVED"`` when the model
        has none; R stops with an error there).  That stage is listed last,
        as in R.
    useNA : {"ifany", "no", "always"}, default "ifany"
        Accepted for R's signature; as in R it changes nothing, since the
        new variable counts only rows without missing values anyway.

    Returns
    -------
    Sevt
        A new model with ``var`` last and the log-likelihood recomputed.
        ``data_raw`` stays the model's, as in R.

    Examples
    --------
    >>> import pystagedtrees as st
    >>> titanic = st.datasets.titanic_table()
    >>> model = st.full(titanic, order=["Age", "Class"])
    >>> model = st.sevt_add(model, "Survived", titanic)
    >>> model.variables, round(float(st.logLik(model)), 4)
    (['Age', 'Class', 'Survived'], -4439.8827)
    """
    check_sevt(object, fitted=True)
    if not object.has_counts:
        raise ValueError("`object` has no contingency tables: fit it with data first.")
    if not isinstance(var, str):
        raise TypeError(f"`var` must be a variable name (str); got {var!r}.")
    if var in object.variables:
        raise ValueError(f"`var` {var!r} is already a variable of the model.")
    if isinstance(data, pd.DataFrame):
        data = check_frame(data, "data")  # integer column names as the model's strings
    columns = data.columns if isinstance(data, pd.DataFrame) else getattr(data.index, "names", [])
    if isinstance(data, (pd.DataFrame, pd.Series)) and var not in columns:
        raise ValueError(f"`var` {var!r} is not a variable of `data`; its variables are "
                         f"{list(columns)}.")
    join_unobserved = check_flag(join_unobserved, "join_unobserved")
    check_choice(useNA, "useNA", USE_NA)
    codes, tree, weights = read_data(data, object.variables + [var], object.tree)
    _check_tree(tree, "data")  # a variable without levels, as full() refuses it
    if first_deep_variable([len(lev) for lev in tree.values()]) is not None:
        raise ValueError(
            f"`var` {var!r} would have {math.prod(int(k) for k in object.n_levels)} "
            f"situations, more than the {MAX_SITUATIONS} sevt_add numbers; build the model "
            "with all its variables with full() or indep() instead.")
    return append_from_codes(object, var, tree[var], codes, weights, join_unobserved)


def append_from_codes(object, var, levels, codes, weights, join_unobserved):
    """:func:`sevt_add` on encoded data (model variables then ``var``)."""
    situations, counts = count_situations(codes, [*object.n_levels, len(levels)], weights)
    position = len(object.variables)
    model = object.copy()
    unobserved = None
    if join_unobserved:
        unobserved = model.name_unobserved[0] if model.name_unobserved else "UNOBSERVED"
        model.name_unobserved = list(dict.fromkeys((model.name_unobserved or []) + [unobserved]))
    vector, labels = _variable_stages(
        var, object.n_situations(position), True,
        situations[position] if join_unobserved else None, unobserved
    )
    model.append_variable(var, levels, vector, labels, situations[position], counts[position])
    fit_variable(model, position)
    if unobserved is not None:
        # R lists the observed situations' stages first, the unobserved one last
        last = model.stage_labels(position).index(unobserved)
        if last >= 0:
            ids = [j for j in range(len(model.stage_labels(position))) if j != last]
            model.keep_stages(position, ids + [last])
    model.ll = compute_loglik(model)
    return model




def copy_sevt(object: Sevt, extra: str | Sequence[str] | None = None) -> Sevt:
    """A copy of the structure of a staged tree, plus chosen fields (R: ``copy_sevt``).

    Parameters
    ----------
    object : Sevt
    extra : str or list of str, optional
        Fields to keep besides the tree and the stages, by their R names:
        ``"lambda"``, ``"name_unobserved"``, ``"data_raw"``, ``"ctables"``,
        ``"prob"``, ``"ll"``, ``"score"``, ``"em"``, ``"fit_em"``.  A field
        the model does not have is skipped, as in R.

    Returns
    -------
    Sevt
        Unfitted unless ``"prob"`` is kept.

    Examples
    --------
    >>> import pystagedtrees as st
    >>> model = st.full(st.datasets.titanic_table(), lambda_=1)
    >>> copy = st.copy_sevt(model, extra="lambda")
    >>> copy.is_fitted, copy.lambda_, copy.stages() == model.stages()
    (False, 1.0, True)
    """
    check_sevt(object)
    if extra is None:
        extra = []
    elif isinstance(extra, str):
        extra = [extra]
    elif not isinstance(extra, (list, tuple)):
        raise TypeError(f"`extra` must be a field name or a list of them; got {extra!r}.")
    known = ("lambda", "lambda_") + OPTIONAL_FIELDS[1:]
    unknown = [name for name in extra if name not in known]
    if unknown:
        raise ValueError(
            f"`extra` names unknown field(s) {unknown}; known fields are "
            f"{sorted(set(known) - {'lambda_'})}."
        )
    kept = {"lambda_" if name == "lambda" else name for name in extra}
    return object.copy_without([field for field in OPTIONAL_FIELDS if field not in kept])
