"""The staged tree classifiers and their scikit-learn estimator (see the package docstring)."""
from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Literal

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from sklearn.utils.validation import check_is_fitted

from pystagedtrees import bnc
from pystagedtrees.base._dask import is_dask
from pystagedtrees.base._data import (
    HANDLE_UNKNOWN,
    check_column,
    check_frame,
    check_observed,
    encode_frame,
)
from pystagedtrees.base._estimator import (
    CategoricalClassifier,
    dask_training_frame,
    observe_training,
)
from pystagedtrees.base._validation import (
    check_choice,
    check_int,
    check_names,
    check_number,
    check_smoothing,
)
from pystagedtrees.bnc._dask import count_families as bnc_tables
from pystagedtrees.bnc._params import fit_structure, lp_arguments
from pystagedtrees.bnc._structure import SCORES as EDGE_SCORES
from pystagedtrees.bnc._structure import tan_cl_encoded
from pystagedtrees.fitting._construct import full
from pystagedtrees.fitting._fit import sevt_fit
from pystagedtrees.graphs._as_sevt import as_sevt
from pystagedtrees.graphs._parentslist import ParentsList, as_parentslist
from pystagedtrees.inference._inference import class_log_posterior, encode_rows
from pystagedtrees.learners._clustering import stages_hclust, stages_kmeans
from pystagedtrees.learners._learners import stages_bhc, stages_fbhc
from pystagedtrees.model import Sevt
from pystagedtrees.rng import RNG_KINDS, Rng, Seed, check_seed, resolve_source

if TYPE_CHECKING:
    import dask.dataframe as dd

__all__ = [
    "ordering_mi",
    "ordering_cmi",
    "ordering_ch",
    "sevt_refine",
    "sevt_tan_cl",
    "sevt_tan_hc",
    "sevt_kdb",
    "sevt_naive",
    "StagedTreeClassifier",
]

REFINERS = {"bhc": stages_bhc, "fbhc": stages_fbhc, None: None}
"""How a classifier's staged tree is refined (None: left as the classifier)."""


# -- data ----------------------------------------------------------------------

def _class_and_features(data, class_, name="data"):
    """Check the data and return the class name and the features in data order."""
    check_frame(data, name)
    non_str = [c for c in data.columns if not isinstance(c, str)]
    if non_str:
        raise TypeError(f"`{name}` column names must be strings; got {non_str[:3]}.")
    if data.shape[1] < 2:
        raise ValueError(
            f"`{name}` must hold the class and at least one feature; it has "
            f"{data.shape[1]} column."
        )
    if class_ is None:
        class_ = data.columns[0]
    check_column(class_, "class_", data, name)
    return class_, [c for c in data.columns if c != class_]


# -- orderings -------------------------------------------------------------------

def _entropy(ids):
    """Empirical entropy (nats) of the values ``ids`` (small non-negative ints)."""
    counts = np.bincount(ids)
    p = counts[counts > 0] / ids.shape[0]
    return float(-np.sum(p * np.log(p)))


def _joint(a, b, kb):
    """Ids of the pairs ``(a, b)`` of non-negative codes, ``b`` taking ``kb``
    values, renumbered densely in the order of the pairs."""
    key = a * kb + b
    size = int(key.max()) + 1 if len(key) else 0
    if size > 4 * len(key) + 1024:  # sparse keys: sort them
        return np.unique(key, return_inverse=True)[1].ravel()
    present = np.bincount(key, minlength=size) > 0  # dense keys: a table, linear
    return (np.cumsum(present) - 1)[key]


def _ordering_codes(data, class_):
    """Class and feature codes, a missing value counting as one more value."""
    class_, features = _class_and_features(data, class_)
    codes, levels = encode_frame(data, columns=[class_] + features)
    codes = codes.astype(np.int64) + 1
    radix = [len(levels[c]) + 1 for c in [class_] + features]
    return class_, features, codes, radix


TIE_RTOL = 1e-9
"""Scores this close are ties: equal in exact arithmetic (e.g. two features that are
relabellings of each other), they differ only by the rounding of their sums."""


def _first_best(scores, maximise):
    """Index of the first best score (R's which.max/which.min), ties up to rounding
    included; NaN is never best unless all are."""
    scores = np.asarray(scores, dtype=float)
    if np.all(np.isnan(scores)):
        return 0
    best = np.nanmax(scores) if maximise else np.nanmin(scores)
    return int(np.flatnonzero(np.isclose(scores, best, rtol=TIE_RTOL, atol=TIE_RTOL))[0])


def _greedy_order(data, class_, make_score, maximise, condition_on_class):
    """Pick features one by one, each the best ``score(x, k_x, s)`` given the chosen set ``s``.

    ``make_score(c, k_c)`` builds the score from the class codes.
    """
    class_, features, codes, radix = _ordering_codes(data, class_)
    score = make_score(codes[:, 0], radix[0])
    n = codes.shape[0]
    chosen = codes[:, 0] if condition_on_class else np.zeros(n, dtype=np.int64)
    free = list(range(1, len(radix)))
    order = [class_]
    while free:
        scores = [score(codes[:, j], radix[j], chosen) for j in free]
        j = free.pop(_first_best(scores, maximise))
        order.append(features[j - 1])
        chosen = _joint(chosen, codes[:, j], radix[j])
    return order


def _normalised_cmi(c, kc):
    """``I(C; X | S) / H(X)``: NaN for a constant X, as R's 0/0."""
    def score(x, kx, s):
        cs = _joint(s, c, kc)
        xs = _joint(s, x, kx)
        cxs = _joint(cs, x, kx)
        # a plug-in CMI is >= 0; a negative value is rounding
        cmi = max(0.0, _entropy(cs) + _entropy(xs) - _entropy(cxs) - _entropy(s))
        h_x = _entropy(x)
        return cmi / h_x if h_x > 0 else np.nan
    return score


def ordering_mi(data: pd.DataFrame, class_: str | None = None) -> list[str]:
    """Class first, then the features by decreasing normalised mutual information with it.

    The score of a feature ``X`` is ``I(C; X) / H(X)`` (empirical, in any
    log base), the ordering of Carli, Leonelli & Varando (2023).  Ties (up
    to rounding, see ``TIE_RTOL``) keep the data order; a constant feature
    (score 0/0) comes last.  A missing value counts as one more value.

    Parameters
    ----------
    data : pandas.DataFrame
        Categorical data with the class.
    class_ : str, optional
        The class column (default: the first column).

    Returns
    -------
    list of str
        The class, then every feature.

    Examples
    --------
    >>> from pystagedtrees import ordering_mi
    >>> import pandas as pd
    >>> d = pd.DataFrame({"c": list("aabb"), "noise": list("xyxy"), "copy": list("uuvv")})
    >>> ordering_mi(d)
    ['c', 'copy', 'noise']
    """
    class_, features, codes, radix = _ordering_codes(data, class_)
    zero = np.zeros(codes.shape[0], dtype=np.int64)
    score = _normalised_cmi(codes[:, 0], radix[0])
    scores = [score(codes[:, j], radix[j], zero) for j in range(1, len(radix))]
    # decreasing, ties in data order, NaN last (R's order(decreasing = TRUE))
    left, order = list(range(len(features))), [class_]
    while left:
        order.append(features[left.pop(_first_best([scores[j] for j in left], True))])
    return order


def ordering_cmi(data: pd.DataFrame, class_: str | None = None) -> list[str]:
    """Class first, then greedily the feature most informative about the class given those chosen.

    Step by step, the next feature maximises the normalised conditional
    mutual information ``I(C; X | S) / H(X)``, ``S`` being the features
    already chosen (the first step is :func:`ordering_mi`'s score).  Ties go
    to the earliest feature in data order; a constant feature is taken only
    when nothing else is left.

    Parameters
    ----------
    data : pandas.DataFrame
    class_ : str, optional
        The class column (default: the first column).

    Returns
    -------
    list of str

    Examples
    --------
    >>> from pystagedtrees import ordering_cmi
    >>> import pandas as pd
    >>> d = pd.DataFrame({"c": list("abab" * 2), "x": list("uuvv" * 2), "y": list("pqqp" * 2)})
    >>> ordering_cmi(d)  # c = x XOR y: y tells nothing alone, everything after x
    ['c', 'x', 'y']
    """
    return _greedy_order(data, class_, _normalised_cmi, True, False)


def ordering_ch(data: pd.DataFrame, class_: str | None = None) -> list[str]:
    """Class first, then greedily the feature of least conditional entropy given those before it.

    Step by step, the next feature minimises ``H(X | C, S)``, ``S`` being
    the features already chosen: the features best predicted by the path
    so far come first.  Ties go to the earliest feature in data order.  A
    missing value counts as one more value, but a feature missing in every
    row goes last (as :func:`ordering_mi` puts it): in a staged tree it
    would cut every row's path short.

    Parameters
    ----------
    data : pandas.DataFrame
    class_ : str, optional
        The class column (default: the first column).

    Returns
    -------
    list of str

    Examples
    --------
    >>> from pystagedtrees import ordering_ch
    >>> import pandas as pd
    >>> d = pd.DataFrame({"c": list("aabb"), "free": list("xyxy"), "copy": list("uuvv")})
    >>> ordering_ch(d)
    ['c', 'copy', 'free']
    """
    def conditional_entropy(x, kx, s):
        if not x.any():  # code 0 is a missing value
            return np.nan
        return _entropy(_joint(s, x, kx)) - _entropy(s)

    return _greedy_order(data, class_, lambda c, kc: conditional_entropy, False, True)


ORDERINGS = {"mi": ordering_mi, "cmi": ordering_cmi, "ch": ordering_ch}
CLUSTERINGS = ("kmeans", "hclust")


def _resolve_order(ordering, data, class_):
    """The tree order: class first, then the features as ``ordering`` says."""
    class_, features = _class_and_features(data, class_)
    if ordering is None:
        return [class_] + features
    expected = f"one of {sorted(ORDERINGS)}, a list of variables, a callable or None"
    if isinstance(ordering, str):
        if ordering not in ORDERINGS:
            raise ValueError(f"`ordering` must be {expected}; got {ordering!r}.")
        return ORDERINGS[ordering](data, class_)
    if callable(ordering):
        order = check_names(ordering(data, class_), "ordering(data, class_)")
    elif isinstance(ordering, Iterable):
        order = check_names(ordering, "ordering")
    else:
        raise TypeError(f"`ordering` must be {expected}; got {ordering!r}.")
    if order[:1] != [class_] or sorted(order) != sorted([class_] + features):
        raise ValueError(
            f"`ordering` must list the class {class_!r} first and then every feature once; "
            f"got {order}."
        )
    return order


# -- refinements -------------------------------------------------------------------

def _refine(model, refine):
    check_choice(refine, "refine", REFINERS)
    return model if refine is None else REFINERS[refine](model)


def sevt_refine(x: bnc.BNCModel, data: pd.DataFrame, lambda_: float = 1,
                refine: Literal["bhc", "fbhc"] | None = "bhc") -> Sevt:
    """The staged tree of a Bayesian network classifier, fitted and refined.

    Parameters
    ----------
    x : pystagedtrees.bnc.BNCModel
        A classifier structure (fitted or not; only its DAG is used).
    data : pandas.DataFrame
        Training data with the class and the classifier's features.
    lambda_ : float, default 1
        Additive smoothing of the stage probabilities.
    refine : {"bhc", "fbhc", None}, default "bhc"
        Join stages with :func:`stages_bhc` (or :func:`stages_fbhc`) under
        BIC; None keeps the classifier's own staged tree.

    Returns
    -------
    Sevt
        Variables in the topological order of the DAG that takes the class
        first and otherwise follows the data's column order (R's order for
        the refinements of Leonelli & Varando).

    Examples
    --------
    >>> from pystagedtrees import sevt_refine
    >>> import pystagedtrees as st
    >>> from pystagedtrees import bnc
    >>> d = st.datasets.titanic()[["Survived", "Class", "Sex", "Age"]]
    >>> tan = bnc.tan_cl("Survived", d)
    >>> refined = sevt_refine(tan, d)
    >>> plain = sevt_refine(tan, d, refine=None)
    >>> st.BIC(refined) <= st.BIC(plain)
    True
    """
    if not isinstance(x, bnc.BNCModel):
        raise TypeError(f"`x` must be a BNCModel (from pystagedtrees.bnc); got {type(x).__name__}.")
    if x.is_aode:
        raise TypeError("`x` is an AODE ensemble, which is no single DAG to refine.")
    class_, _ = _class_and_features(data, x.class_var)
    missing = [f for f in x.features if f not in data.columns]
    if missing:
        raise ValueError(f"`data` lacks the classifier's feature(s) {missing}.")
    listed = [class_] + [c for c in data.columns if c in x.features]
    check_observed(data, listed, "data")
    return _refined_tree(x, listed, data[listed], data, lambda_, refine)


def _refined_tree(x, listed, values, data, lambda_, refine):
    """:func:`sevt_refine` once checked: the variables ``listed`` in their order,
    their levels ``values`` (a dict or a frame), fitted on ``data`` (rows, or Dask)."""
    parents = {v: list(x.families[v][1:]) for v in listed}
    tree = as_sevt(parents, values=values)
    fitted = sevt_fit(tree, data=data[tree.variables], lambda_=lambda_)
    return _refine(fitted, refine)


def _bnc_structure(method, data, class_, k=3, folds=5, epsilon=0.01, smooth=1,
                   score="loglik", seed=None, rng="numpy"):
    """The bnclassify structure a refinement starts from."""
    class_, features = _class_and_features(data, class_)
    check_observed(data, data.columns, "data")
    if method == "nb":
        return bnc.nb(class_, data)
    if method == "tan_cl":
        return bnc.tan_cl(class_, data, score=score)
    folds = check_int(folds, "folds", minimum=2)
    if folds > data.shape[0]:
        # bnc's own message would call it `k`, which sevt_kdb uses for another thing
        raise ValueError(
            f"`folds` must be at most the number of rows (n_samples = {data.shape[0]}); "
            f"got {folds}."
        )
    wrapper = dict(k=folds, epsilon=epsilon, smooth=smooth, seed=seed, rng=rng)
    if method == "tan_hc":
        return bnc.tan_hc(class_, data, **wrapper)
    if method == "kdb":
        k = check_int(k, "k", minimum=1)
        return bnc.kdb(class_, data, kdbk=min(k, len(features)), **wrapper)
    raise ValueError(f"unknown classifier structure {method!r}.")


def sevt_tan_cl(data: pd.DataFrame, class_: str | None = None,
                score: Literal["loglik", "bic", "aic"] = "loglik", lambda_: float = 1,
                refine: Literal["bhc", "fbhc"] | None = "bhc") -> Sevt:
    """Staged tree refinement of the Chow-Liu TAN (R: ``st_bhc_tan_cl``).

    ``bnc.tan_cl`` learns the TAN, :func:`sevt_refine` turns it into a
    staged tree fitted with ``lambda_`` and refines it with ``refine``.

    Parameters
    ----------
    data : pandas.DataFrame
    class_ : str, optional
        The class column (default: the first column).
    score : {"loglik", "bic", "aic"}, default "loglik"
        Edge score of the TAN.
    lambda_ : float, default 1
    refine : {"bhc", "fbhc", None}, default "bhc"

    Returns
    -------
    Sevt

    Examples
    --------
    >>> from pystagedtrees import sevt_tan_cl
    >>> import pystagedtrees as st
    >>> d = st.datasets.titanic()[["Survived", "Class", "Sex", "Age"]]
    >>> model = sevt_tan_cl(d)
    >>> model.variables[0], model.ll.df < sevt_tan_cl(d, refine=None).ll.df
    ('Survived', True)
    """
    class_, _ = _class_and_features(data, class_)
    return sevt_refine(_bnc_structure("tan_cl", data, class_, score=score), data, lambda_, refine)


def sevt_tan_hc(data: pd.DataFrame, class_: str | None = None, folds: int = 5,
                epsilon: float = 0.01, smooth: float = 1, lambda_: float = 1,
                refine: Literal["bhc", "fbhc"] | None = "bhc", seed: Seed = None,
                rng: Rng = "numpy") -> Sevt:
    """Staged tree refinement of the hill-climbing TAN (R: ``st_bhc_tan_hc``).

    Parameters
    ----------
    data : pandas.DataFrame
    class_ : str, optional
        The class column (default: the first column).
    folds : int, default 5
        Cross-validation folds of the search (bnclassify's ``k``).
    epsilon : float, default 0.01
        Least accuracy gain of a search step.
    smooth : float, default 1
        Smoothing of the classifiers fitted during the search (as the
        project's R reference records it; the papers' scripts leave
        bnclassify's default 0, so pass ``smooth=0`` to replay them).
    lambda_ : float, default 1
    refine : {"bhc", "fbhc", None}, default "bhc"
    seed : int or numpy.random.Generator, optional
        Folds and ties of the search.
    rng : {"numpy", "R", "R-rounding"} or a random source in use, default "numpy"
        The generator (see :mod:`pystagedtrees.rng`): ``"R"`` replays R
        after ``set.seed(seed)``.

    Returns
    -------
    Sevt

    Examples
    --------
    >>> from pystagedtrees import sevt_tan_hc
    >>> import pystagedtrees as st
    >>> d = st.datasets.titanic()[["Survived", "Class", "Sex", "Age"]]
    >>> sevt_tan_hc(d, seed=1).variables[0]
    'Survived'
    """
    class_, _ = _class_and_features(data, class_)
    structure = _bnc_structure("tan_hc", data, class_, folds=folds, epsilon=epsilon,
                               smooth=smooth, seed=seed, rng=rng)
    return sevt_refine(structure, data, lambda_, refine)


def sevt_kdb(data: pd.DataFrame, class_: str | None = None, k: int = 3, folds: int = 5,
             epsilon: float = 0.01, smooth: float = 1, lambda_: float = 1,
             refine: Literal["bhc", "fbhc"] | None = "bhc", seed: Seed = None,
             rng: Rng = "numpy") -> Sevt:
    """Staged tree refinement of a k-dependence classifier (R: ``st_bhc_3db``, ``st_bhc_5db``).

    Parameters
    ----------
    data : pandas.DataFrame
    class_ : str, optional
        The class column (default: the first column).
    k : int, default 3
        Most feature parents of a feature (bnclassify's ``kdbk``); as in the
        paper, at most the number of features (``min(k, p)``).
    folds : int, default 5
        Cross-validation folds of the search (bnclassify's ``k``).
    epsilon, smooth, lambda_, refine, seed, rng
        As in :func:`sevt_tan_hc`.

    Returns
    -------
    Sevt

    Examples
    --------
    >>> from pystagedtrees import sevt_kdb
    >>> import pystagedtrees as st
    >>> d = st.datasets.titanic()[["Survived", "Class", "Sex", "Age"]]
    >>> sevt_kdb(d, k=5, seed=1).variables[0]
    'Survived'
    """
    class_, _ = _class_and_features(data, class_)
    structure = _bnc_structure("kdb", data, class_, k=k, folds=folds, epsilon=epsilon,
                               smooth=smooth, seed=seed, rng=rng)
    return sevt_refine(structure, data, lambda_, refine)


# -- naive staged tree ---------------------------------------------------------------

def sevt_naive(data: pd.DataFrame, class_: str | None = None,
               ordering: str | Sequence[str] | Callable[[pd.DataFrame, str], Sequence[str]]
               | None = "cmi", cluster: Literal["kmeans", "hclust"] = "kmeans",
               k: int | None = None, lambda_: float = 1, seed: Seed = None,
               rng: Rng = "numpy") -> Sevt:
    """The naive staged tree: every variable's situations clustered into ``k`` stages.

    The full tree with the class first and the features in ``ordering`` is
    fitted with ``lambda_`` (unobserved situations joined), then the stages
    of every feature are clustered with :func:`stages_kmeans` (R's
    ``st_kmeans_cmi``) or :func:`stages_hclust` (total variation, complete
    linkage: R's ``st_hclust_cmi``).  The model has at most ``k`` observed
    stages per variable, so its size grows like naive Bayes's.

    Parameters
    ----------
    data : pandas.DataFrame
    class_ : str, optional
        The class column (default: the first column).
    ordering : {"cmi", "mi", "ch"}, list, callable or None, default "cmi"
        The features' order: a heuristic (:func:`ordering_cmi`, ...), an
        explicit order (the class first), a callable ``(data, class_) ->
        order``, or None for the data's order.
    cluster : {"kmeans", "hclust"}, default "kmeans"
        k-means follows the 2024 experiments (``st_kmeans_cmi``); the
        original naive staged tree (Carli, Leonelli & Varando, 2023)
        clustered with ``"hclust"``.
    k : int, optional
        Stages per variable (default: the number of class levels); k-means
        makes no more stages than a variable has distinct observed stage
        distributions (where R's ``kmeans`` stops with an error).
    lambda_ : float, default 1
    seed : int or numpy.random.Generator, optional
        Initial centres of k-means.
    rng : {"numpy", "R", "R-rounding"} or a random source in use, default "numpy"
        The generator (see :mod:`pystagedtrees.rng`): ``"R"`` draws the
        centres as R after ``set.seed(seed)``.

    Returns
    -------
    Sevt

    Examples
    --------
    >>> from pystagedtrees import sevt_naive
    >>> import pystagedtrees as st
    >>> d = st.datasets.titanic()[["Survived", "Class", "Sex", "Age"]]
    >>> model = sevt_naive(d, seed=1)
    >>> model.variables[0], len(set(model.stages("Age")) - {"UNOBSERVED"}) <= 2
    ('Survived', True)
    """
    class_, _ = _class_and_features(data, class_)
    order = _resolve_order(ordering, data, class_)
    model = full(data, order=order, join_unobserved=True, lambda_=lambda_)
    if k is None:
        k = len(model.tree[class_])
    k = check_int(k, "k", minimum=1)
    if check_choice(cluster, "cluster", CLUSTERINGS) == "kmeans":
        return stages_kmeans(model, k=_kmeans_sizes(model, k), seed=seed, rng=rng)
    return stages_hclust(model, k=k, distance="totvar", method="complete")


def _kmeans_sizes(model, k):
    """``k`` per variable, at most its number of distinct observed stage distributions.

    k-means needs as many distinct points as clusters (R stops otherwise);
    with sparse data many situations share one smoothed distribution.
    """
    ignore = set(model.name_unobserved or [])
    sizes = {}
    for i, v in enumerate(model.variables[1:], start=1):
        observed = model.stage_labels(i).ids_without(ignore)
        distinct = len(np.unique(model.stage_probabilities(i)[observed], axis=0)) if observed else 1
        sizes[v] = max(1, min(k, distinct))
    return sizes


def _sevt_full(data, class_, ordering, learner, lambda_):
    """The full tree in ``ordering``, its stages learned by ``learner`` (R: ``st_bhc_cmi``)."""
    order = _resolve_order(ordering, data, class_)
    return learner(full(data, order=order, join_unobserved=True, lambda_=lambda_))


# -- scikit-learn estimator ------------------------------------------------------------

BNC_METHODS = ("nb", "tan_cl", "tan_hc", "kdb")
FULL_METHODS = {"full_bhc": stages_bhc, "full_fbhc": stages_fbhc}
METHODS = BNC_METHODS + ("naive",) + tuple(FULL_METHODS)
RANDOMISED = ("tan_hc", "kdb", "naive")
"""Methods that draw random numbers ("naive" only with k-means clustering)."""


def _by_missing(data, class_):
    """The columns, the class first and then the features with fewer missing
    values first (stable), so that in a classifier's staged tree few rows are
    lost to a missing value early in the order."""
    features = [c for c in data.columns if c != class_]
    return [class_] + sorted(features, key=lambda c: int(data[c].isna().sum()))


def _warn_rows_lost(model, data):
    """Warn when some variable is fitted on less than half the rows observing it.

    In a staged tree a row counts for each variable only up to its first
    missing value in the tree's order (R's rule).
    """
    observed = data[model.variables].notna().to_numpy()
    on_path = np.logical_and.accumulate(observed, axis=1)
    _warn_if_rows_lost(model, observed.sum(axis=0), on_path.sum(axis=0), len(data), 4)


def _warn_dask_rows_lost(model, observed, n_rows):
    """:func:`_warn_rows_lost` of Dask training rows, from the number of rows observing
    each feature (``observed``, a dict) and the model's counts: a variable's counts
    hold the rows observed up to it."""
    n_observed = np.array([observed.get(v, n_rows) for v in model.variables])
    n_used = np.array([int(model.situation_counts(i).sum()) for i in range(len(model.variables))])
    _warn_if_rows_lost(model, n_observed, n_used, n_rows, 5)


def _warn_if_rows_lost(model, n_observed, n_used, n_rows, stacklevel):
    """The warning of :func:`_warn_rows_lost`, from the number of rows observing each of
    the model's variables and the number counted for it (up to its first missing value)."""
    lost = n_used * 2 < n_observed
    if not lost.any():
        return
    worst = int(np.argmin(np.where(lost, n_used / np.maximum(n_observed, 1), np.inf)))
    earlier = model.variables[:worst]
    culprit = earlier[int(np.argmin(n_observed[:worst]))]
    share = 100 * (1 - n_observed[model.variables.index(culprit)] / n_rows)
    warnings.warn(
        f"StagedTreeClassifier: {model.variables[worst]!r} is fitted on {n_used[worst]} of "
        f"the {n_observed[worst]} rows that observe it: a row counts for each variable of a "
        f"staged tree only up to its first missing value in the tree's order, and "
        f"{culprit!r} (earlier in the order) is missing in {share:.0f}% of the rows.  Drop or "
        "impute features with many missing values, or use BNClassifier, which counts each "
        "family on the rows that observe it.",
        UserWarning, stacklevel=stacklevel,
    )


class StagedTreeClassifier(CategoricalClassifier):
    """Staged tree classifier as a scikit-learn estimator.

    Parameters
    ----------
    method : str, default "tan_cl"
        - "nb", "tan_cl", "tan_hc", "kdb": the staged tree of that
          Bayesian network classifier, refined by ``refine``
          (:func:`sevt_refine`);
        - "naive": the naive staged tree (:func:`sevt_naive`);
        - "full_bhc", "full_fbhc": the full tree in ``ordering``, its
          stages learned by :func:`stages_bhc` / :func:`stages_fbhc`.
    k : int, default 3
        Most feature parents of "kdb" (at most the number of features).
    ordering : {"cmi", "mi", "ch"}, list, callable or None, default "cmi"
        Feature order of "naive" and the full methods (the class comes
        first): a named ordering, the features' names in order (``x0, x1,
        ...`` for an array), a callable ``ordering(data, class_)`` returning
        the whole order, class first, as in :func:`sevt_naive`, or None
        (the column order).  The network methods order the features by
        their network: a list or callable is refused with them.
    lambda_ : float, default 1.0
        Additive smoothing of the stage probabilities (and of ``bnc_``).
    refine : {"bhc", "fbhc", None}, default "bhc"
        Refinement of the classifier methods (None: its own staged tree).
    cluster : {"kmeans", "hclust"}, default "kmeans"
        Stage clustering of "naive".
    n_stages : int, optional
        Stages per variable of "naive" (default: the number of classes).
    folds : int, default 5
        Cross-validation folds of the "tan_hc" and "kdb" searches.
    epsilon : float, default 0.01
        Least accuracy gain of a search step.
    search_smooth : float, default 1.0
        Smoothing of the classifiers fitted during a search.
    tan_score : {"loglik", "bic", "aic"}, default "loglik"
        Edge score of "tan_cl".
    random_state : None, int or numpy.random.Generator
        Seed of the searches and k-means starts (see :mod:`pystagedtrees.rng`).
    rng : {"numpy", "R", "R-rounding"}, default "numpy"
        The generator: ``"R"`` replays R after ``set.seed(random_state)``
        (an int).
    handle_unknown : {"error", "missing"}, default "error"
        A feature value at prediction that is not a level seen in training:
        an error, or treated as a missing value (summed out).

    Attributes
    ----------
    classes_ : numpy.ndarray
    model_ : Sevt
        The fitted staged tree; its class variable is ``class_name_``, whose
        levels ``"0", "1", ...`` are the positions in ``classes_``.  As R's
        models it keeps the training rows (``model_.data_raw``) besides the
        counts, so a pickled classifier holds them; ``clf.model_.data_raw =
        None`` drops them (prediction needs only the counts and probabilities).
    bnc_ : pystagedtrees.bnc.BNCModel or None
        The classifier refined (fitted with ``lambda_``), for the
        classifier methods.
    dag_ : pystagedtrees.graphs._parentslist.ParentsList
        The minimal DAG of ``model_`` (within ``bnc_``'s for a refinement).
    class_name_ : str
    n_features_in_ : int
    feature_names_in_ : numpy.ndarray
        When ``X`` was a DataFrame with string column names.

    Notes
    -----
    Features must be categorical (categorical, string, boolean or
    integer-coded columns); a continuous float column is refused.  Missing
    values are summed out at prediction; a level unseen in training is an
    error unless ``handle_unknown="missing"`` (a cross-validation fold can
    miss a rare level: pass categoricals that list every level, or that
    option).  A DataFrame's columns are matched by name.

    In training, a row counts for each variable of the staged tree only up
    to its first missing value in the tree's order (R's rule: the situation
    of a later variable is unknown).  So a feature with many missing values
    early in the order starves every later one; the classifier methods
    therefore place features with fewer missing values first wherever the
    network allows, and ``fit`` warns when a variable keeps less than half
    of the rows that observe it (the network itself is learned as
    :mod:`pystagedtrees.bnc` learns it, which with ``tan_cl`` roots the tree
    at the first feature).  Dropping or imputing such features helps;
    :class:`~pystagedtrees.bnc.BNClassifier` counts each family on the rows
    that observe it.

    Examples
    --------
    >>> from pystagedtrees import StagedTreeClassifier
    >>> import pystagedtrees as st
    >>> d = st.datasets.titanic()
    >>> X, y = d[["Class", "Sex", "Age"]], d["Survived"]
    >>> clf = StagedTreeClassifier(method="tan_cl").fit(X, y)
    >>> clf.predict(X.iloc[:2]).tolist()
    ['No', 'No']
    >>> print(clf.dag_)  # ( ): partial, { }: context-specific, < >: local dependence
    [__class__][Class|__class__][Sex|(Class):<__class__>][Age|(Class):{__class__}]
    >>> clf.bnc_.families["Age"]  # the TAN it refines
    ('Age', 'Class', '__class__')
    """

    def __init__(self, method: str = "tan_cl", k: int = 3,
                 ordering: str | Sequence[str] | Callable[[pd.DataFrame, str], Sequence[str]]
                 | None = "cmi", lambda_: float = 1.0,
                 refine: Literal["bhc", "fbhc"] | None = "bhc",
                 cluster: Literal["kmeans", "hclust"] = "kmeans", n_stages: int | None = None,
                 folds: int = 5, epsilon: float = 0.01, search_smooth: float = 1.0,
                 tan_score: Literal["loglik", "bic", "aic"] = "loglik", random_state: Seed = None,
                 rng: Literal["numpy", "R", "R-rounding"] = "numpy",
                 handle_unknown: Literal["error", "missing"] = "error") -> None:
        self.method = method
        self.k = k
        self.ordering = ordering
        self.lambda_ = lambda_
        self.refine = refine
        self.cluster = cluster
        self.n_stages = n_stages
        self.folds = folds
        self.epsilon = epsilon
        self.search_smooth = search_smooth
        self.tan_score = tan_score
        self.random_state = random_state
        self.rng = rng
        self.handle_unknown = handle_unknown

    def __sklearn_is_fitted__(self):
        # the parameter lambda_ ends with "_" like a fitted attribute
        return hasattr(self, "model_")

    def _feature_levels(self):
        return {f: self.model_.tree[f] for f in self._names}

    def _randomised(self):
        return self.method in RANDOMISED and not (
            self.method == "naive" and self.cluster == "hclust")

    def _source(self):
        """The fit's random source (only a randomised method needs R's seed)."""
        return resolve_source(self.random_state, self.rng, seed_name="random_state",
                              seed_needed=self._randomised())

    def _ordering(self):
        """``ordering`` as :func:`sevt_naive` takes it: a list of features gets the class first."""
        if self._ordering_listed():
            features = [str(v) for v in self.ordering]
            if sorted(features) != sorted(self._names):
                raise ValueError(
                    f"`ordering` must list every feature once, {self._names}; got {features}."
                )
            return [self.class_name_] + features
        return self.ordering

    def _learn(self, data):
        class_ = self.class_name_
        source = self._source()
        if self.method in BNC_METHODS:
            structure = _bnc_structure(
                self.method, data, class_, k=self.k, folds=self.folds, epsilon=self.epsilon,
                smooth=self.search_smooth, score=self.tan_score, rng=source,
            )
            # the network as bnclassify learns it; only the tree's order moves
            model = sevt_refine(structure, data[_by_missing(data, class_)], self.lambda_,
                                self.refine)
            return model, bnc.lp(structure, data, smooth=self.lambda_)
        if self.method == "naive":
            model = sevt_naive(data, class_, ordering=self._ordering(), cluster=self.cluster,
                               k=self.n_stages, lambda_=self.lambda_, rng=source)
            return model, None
        learner = FULL_METHODS[self.method]
        return _sevt_full(data, class_, self._ordering(), learner, self.lambda_), None

    def _check_params(self):
        """Every parameter, whether or not ``method`` uses it (scikit-learn checks all at fit)."""
        check_choice(self.method, "method", METHODS)
        check_int(self.k, "k", minimum=1)
        if not self._ordering_listed() and not callable(self.ordering):
            if not isinstance(self.ordering, (str, type(None))):
                raise TypeError(
                    f"`ordering` must be one of {[*ORDERINGS, None]}, a list of the features "
                    f"or a callable; got {type(self.ordering).__name__}."
                )
            check_choice(self.ordering, "ordering", [*ORDERINGS, None])
        elif self.method in BNC_METHODS:
            # the network's structure fixes the tree's order: a chosen one would be ignored
            raise ValueError(
                f"`ordering` orders the features of the methods 'naive', 'full_bhc' and "
                f"'full_fbhc'; method={self.method!r} orders them by its network: leave "
                "`ordering` at its default."
            )
        check_smoothing(self.lambda_, "lambda_")
        check_choice(self.refine, "refine", list(REFINERS))
        check_choice(self.cluster, "cluster", CLUSTERINGS)
        check_int(self.n_stages, "n_stages", minimum=1, allow_none=True)
        check_int(self.folds, "folds", minimum=2)
        check_number(self.epsilon, "epsilon")
        check_number(self.search_smooth, "search_smooth")
        check_choice(self.tan_score, "tan_score", EDGE_SCORES)
        check_choice(self.rng, "rng", RNG_KINDS)
        check_seed(self.random_state, self.rng if self._randomised() else "numpy",
                   "random_state")
        check_choice(self.handle_unknown, "handle_unknown", HANDLE_UNKNOWN)

    def _ordering_listed(self):
        """Whether ``ordering`` lists the features (a list, tuple, array, Index or Series)."""
        return isinstance(self.ordering, (list, tuple, np.ndarray, pd.Index, pd.Series))

    def fit(self, X: ArrayLike | pd.DataFrame | dd.DataFrame,
            y: ArrayLike | pd.Series | dd.Series) -> StagedTreeClassifier:
        """Learn the staged tree from features ``X`` and labels ``y``.

        The methods that need only counts ("nb", "tan_cl", and "full_bhc",
        "full_fbhc" with ``ordering`` None or a list) also fit from a Dask
        DataFrame ``X`` of known categoricals and a Dask Series ``y`` split
        alike: each partition is counted where it lies and the tables
        summed; the model, and the warning about rows lost to missing
        values, are those of the same rows in memory.
        """
        self._check_params()
        if is_dask(X) or is_dask(y):
            return self._fit_dask(X, y)
        data = self._training_frame(X, y)
        self.model_, self.bnc_ = self._learn(data)
        _warn_rows_lost(self.model_, data)
        self._dag = None  # read from the model when asked for: large trees need not have one
        return self

    def _dask_methods(self):
        """The methods that fit from Dask input (count-only), as the error lists them."""
        return ["nb", "tan_cl", "full_bhc (ordering None or a list)",
                "full_fbhc (ordering None or a list)"]

    def _fit_dask(self, X, y):
        """The fit of Dask collections, for the methods that need only counts."""
        full_method = self.method in FULL_METHODS and (
            self.ordering is None or self._ordering_listed())
        if self.method not in ("nb", "tan_cl") and not full_method:
            raise TypeError(
                f"`X` is a Dask collection, which method={self.method!r} with "
                f"ordering={self.ordering!r} does not take (it reads rows, not counts); "
                f"these take Dask input: {self._dask_methods()}.")
        training = self._dask_training(X, y)
        self.classes_, observed, n_rows = observe_training(training)
        observed = dict(zip(training.spec.columns, observed))
        training.spec.classes = self.classes_
        data, spec = dask_training_frame(training), training.spec
        if full_method:
            order = [self.class_name_, *spec.columns] if self.ordering is None \
                else self._ordering()
            self.model_ = FULL_METHODS[self.method](
                full(data, order=order, lambda_=self.lambda_, levels=spec.tree))
            self.bnc_ = None
        else:
            enc = bnc_tables(training)[1]
            structure = (tan_cl_encoded(enc, self.tan_score) if self.method == "tan_cl"
                         else bnc.nb(self.class_name_, features=spec.columns))
            # features with fewer missing values first, as _by_missing orders rows
            listed = [self.class_name_] + sorted(spec.columns, key=observed.get, reverse=True)
            listed = [self.class_name_] + [c for c in listed[1:] if c in structure.features]
            self.model_ = _refined_tree(structure, listed, {v: spec.tree[v] for v in listed},
                                        data, self.lambda_, self.refine)
            self.bnc_ = fit_structure(structure, enc, lp_arguments(self.lambda_))
        _warn_dask_rows_lost(self.model_, observed, n_rows)
        self._dag = None
        return self

    @property
    def dag_(self) -> ParentsList:
        """The DAG of the fitted tree: its minimal Bayesian network (:func:`as_parentslist`)."""
        check_is_fitted(self)
        if self._dag is None:
            self._dag = as_parentslist(self.model_, silent=True)
        return self._dag

    def predict_proba(self, X: ArrayLike | pd.DataFrame | dd.DataFrame
                      ) -> np.ndarray | dd.DataFrame:
        """Class posteriors, columns in ``classes_`` order.

        Rows the model gives probability zero under every class (possible
        only with ``lambda_ = 0``) get the class marginal.  A Dask DataFrame
        gets a lazy Dask DataFrame, a column per class.
        """
        if is_dask(X):
            return self._lazy_predictions(X, proba=True)
        frame = self._prediction_frame(X)
        # predict() itself would call X `newdata`
        codes = encode_rows(self.model_, frame, "X")
        c = self.model_.var_index(self.class_name_)
        post = np.exp(class_log_posterior(self.model_, codes, c))
        undefined = np.isnan(post).any(axis=1)
        post[undefined] = self.model_.stage_probabilities(c)[0]  # the class is the root: one stage
        return post
