"""Building staged trees: ``sevt``, ``full`` and ``indep`` (R: R/sevt.R, R/full_indep.R)."""
import numpy as np
import pandas as pd

from pystagedtrees._stagevec import DENSE_MAX, StageLabels, StageVector, dense_too_large
from pystagedtrees.counting import check_order, count_situations, read_data
from pystagedtrees.fit import sevt_fit
from pystagedtrees._learn_kernels import rsum
from pystagedtrees.model import LogLik, Sevt
from pystagedtrees._validation import check_flag, check_number

__all__ = ["sevt", "full", "indep"]

_UNSET = object()


def _check_tree(tree, name):
    if len(tree) < 2:
        raise ValueError(
            f"`{name}` gives {len(tree)} variable(s); a staged tree needs at "
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


def _structure(tree, full):
    """Stage vectors of the saturated (full) or independence model."""
    stages, labels = [], []
    n_sit = 1
    for i, k in enumerate(len(lev) for lev in tree.values()):
        if i == 0:
            vector, lab = _root_stage()
        elif full:
            if n_sit > DENSE_MAX:
                raise dense_too_large(n_sit, f"full stage vector of {list(tree)[i]!r}")
            vector = StageVector(n_sit, np.arange(n_sit, dtype=np.int32))
            lab = StageLabels.numbered(np.arange(1, n_sit + 1))
        else:
            vector = StageVector.build(n_sit, [], [], 0)
            lab = StageLabels.numbered([1])
        stages.append(vector)
        labels.append(lab)
        n_sit *= k
    return stages, labels


def _levels_of(x, order, name):
    if isinstance(x, (pd.DataFrame, pd.Series)):
        _, levels, _ = read_data(x, order, name=name)
        return levels
    if not isinstance(x, dict):
        raise TypeError(
            f"`{name}` must be a dict of levels, a DataFrame or a table of "
            f"counts; got {type(x).__name__}."
        )
    tree = {str(v): [str(lev) for lev in levels] for v, levels in x.items()}
    if order is not None:
        tree = {v: tree[v] for v in check_order(order, list(tree), "order")}
    return tree


def sevt(x, full=False, order=None):
    """A staged tree structure, without data (R: ``sevt``).

    Parameters
    ----------
    x : dict of str to list, pandas.DataFrame or pandas.Series
        The levels of each variable (in tree order), or data from which
        they are read.
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
    tree = _check_tree(_levels_of(x, order, "x"), "x")
    stages, labels = _structure(tree, check_flag(full, "full"))
    return Sevt(tree, stages, labels)


def _from_data(data, order, join_unobserved, lambda_, name_unobserved, full):
    lambda_ = check_number(lambda_, "lambda_")
    join_unobserved = check_flag(join_unobserved, "join_unobserved")
    if not isinstance(name_unobserved, str):
        raise TypeError(
            f"`name_unobserved` must be a string; got {name_unobserved!r}."
        )
    codes, tree, weights = read_data(data, order)
    _check_tree(tree, "data")
    situations, counts = count_situations(codes, [len(lev) for lev in tree.values()], weights)
    if join_unobserved:
        stages, labels = [], []
        for i, sit in enumerate(situations):
            if i == 0:
                vector, lab = _root_stage()
            else:
                n_sit = int(np.prod([len(lev) for lev in list(tree.values())[:i]], dtype=object))
                own = np.arange(len(sit)) if full else np.zeros(len(sit))
                vector = StageVector.build(n_sit, sit, own, len(sit) if full else 1)
                lab = StageLabels.numbered(sit + 1) if full else StageLabels.numbered([1])
                lab = lab.append(name_unobserved)
            stages.append(vector)
            labels.append(lab)
        model = Sevt(tree, stages, labels)
        model.name_unobserved = [name_unobserved]
    else:
        stages, labels = _structure(tree, full)
        model = Sevt(tree, stages, labels)
    model._ctab_sit, model._ctab = situations, counts
    model.data_raw = data
    if not full and not join_unobserved and isinstance(data, pd.DataFrame):
        return _fit_marginals(model, codes, lambda_)
    return sevt_fit(model, lambda_=lambda_)


def _fit_marginals(model, codes, lambda_):
    """R's ``indep.data.frame(join_unobserved = FALSE)``: each variable from its own margin.

    Every non-missing value counts (not only rows complete up to the
    variable) and ``nobs`` is the number of rows; this differs from
    ``sevt_fit`` only when the data have missing values.
    """
    model.lambda_ = lambda_
    model._prob, model._n, ll = [], [], 0.0
    for i, k in enumerate(model._k):
        column = codes[:, i]
        margin = np.bincount(column[column >= 0], minlength=int(k)).astype(float)
        smoothed = margin + lambda_
        prob = smoothed / rsum(smoothed)
        model._prob.append(prob[None, :])
        model._n.append(np.array([margin.sum()]))
        ll = ll + rsum(margin[margin > 0] * np.log(prob[margin > 0]))
    model.ll = LogLik(ll, int(sum(model._k - 1)), codes.shape[0])
    return model


def full(data, order=None, join_unobserved=True, lambda_=0, name_unobserved="UNOBSERVED"):
    """The saturated staged tree fitted to data (R: ``full``).

    Every situation is its own stage; with ``join_unobserved`` the
    situations that data never reach share one stage, ``name_unobserved``.

    Parameters
    ----------
    data : pandas.DataFrame or pandas.Series
        Categorical data, or a table of counts (a Series indexed by a
        MultiIndex of levels).
    order : list of str, optional
        Variables in tree order (default: the data's column order).
    join_unobserved : bool, default True
    lambda_ : float, default 0
        Additive smoothing of the stage probabilities.
    name_unobserved : str, default "UNOBSERVED"

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
        Non-categorical (float) columns.

    Examples
    --------
    >>> import pandas as pd
    >>> import pystagedtrees as st
    >>> df = pd.DataFrame({"A": ["a", "b", "a", "a"], "B": ["x", "x", "y", "x"]})
    >>> model = st.full(df, lambda_=1)
    >>> model.stage_prob["B"]["1"].round(3).tolist()
    [0.6, 0.4]
    """
    return _from_data(data, order, join_unobserved, lambda_, name_unobserved, True)


def indep(data, order=None, join_unobserved=True, lambda_=0, name_unobserved="UNOBSERVED"):
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
    return _from_data(data, order, join_unobserved, lambda_, name_unobserved, False)
