"""Structure learners that need no search: naive Bayes, Chow-Liu TAN, AODE."""
from __future__ import annotations

import heapq
import math
import warnings
from collections.abc import Sequence
from itertools import combinations
from typing import Literal

import pandas as pd

from pystagedtrees.base._validation import check_choice, check_names
from pystagedtrees.bnc._dataset import encode_dataset
from pystagedtrees.bnc._model import BNCModel
from pystagedtrees.bnc._params import family_table
from pystagedtrees.bnc._statistics import cmi_table

__all__ = ["nb", "tan_cl", "aode", "anb_model", "ode_scores"]

SCORES = ("loglik", "bic", "aic")


def anb_model(class_var, features, feature_parents, learner=None):
    """An augmented naive Bayes: every feature gets its parents plus the class.

    ``feature_parents`` maps a feature to its feature parents in arc order
    (missing features have none).
    """
    fams = {f: (f, *feature_parents.get(f, ()), class_var) for f in features}
    fams[class_var] = (class_var,)
    return BNCModel(class_var, features, fams, learner=learner)


def nb(class_: str, dataset: pd.DataFrame | None = None,
       features: str | Sequence[str] | None = None) -> BNCModel:
    """Naive Bayes structure: the class is the only parent of each feature.

    Parameters
    ----------
    class_ : str
        Name of the class column.
    dataset : pandas.DataFrame, optional
        Categorical data; every column but the class is a feature.
    features : str or list of str, optional
        The features when there is no ``dataset``.  As in R, they are
        ignored when ``dataset`` is given (with a warning here).

    Returns
    -------
    BNCModel
        The structure (fit it with :func:`lp`).

    Examples
    --------
    >>> import pandas as pd
    >>> from pystagedtrees.bnc import nb
    >>> nb("c", pd.DataFrame({"c": ["a", "b"], "x": ["u", "v"], "y": ["u", "u"]}))
    <Bayesian network classifier (structure only): class 'c', 2 features, 2 arcs>
    >>> nb("c", features=["x", "y", "z"])
    <Bayesian network classifier (structure only): class 'c', 3 features, 3 arcs>
    """
    return anb_model(class_, _structure_features(class_, dataset, features), {},
                     learner=("nb", {}))


def _structure_features(class_, dataset, features):
    """R's rule for nb and aode: the features of ``dataset`` if given, else ``features``."""
    if dataset is not None:
        if features is not None:
            warnings.warn("`features` is ignored when `dataset` is given (as in R): "
                          "every column but the class is a feature.", UserWarning, stacklevel=3)
        return list(encode_dataset(class_, dataset).features)
    if not isinstance(class_, str):
        raise TypeError(f"`class_` must be a column name (str); got {class_!r}.")
    if features is None:
        raise ValueError("give `dataset` or `features`: without data the features are "
                         "the names in `features`.")
    feats = check_names(features, "features")
    if len(set(feats)) < len(feats):
        raise ValueError(f"`features` lists a variable twice: {feats}.")
    if class_ in feats:
        raise ValueError(f"`features` includes the class {class_!r}.")
    return feats


def ode_scores(enc, a, b):
    """Pairwise terms of the one-dependence scores for features ``a`` and ``b``.

    Returns ``(loglik, bic, aic)``: the class-conditional mutual information
    (natural log) over the rows complete on (a, b, class), and its BIC and
    AIC penalised versions ``N cmi - ln(N)/2 df`` and ``N cmi - df``.
    """
    t = family_table(enc, [a, b, enc.class_var])
    ra, rb, rc = t.shape
    cmi = cmi_table(t)
    n = float(t.sum())
    if n == 0:
        # R stops here too (with an internal assertion)
        raise ValueError(
            f"features {a!r} and {b!r} are never observed together with the class in "
            "`dataset`: their dependence cannot be scored."
        )
    df = (ra - 1) * (rb - 1) * rc
    return cmi, n * cmi - (math.log(n) / 2) * df, n * cmi - df


class _Edge:
    """Heap entry ordered by the negated weight only, so ties keep the heap's
    own order (the one Boost's Kruskal gets from std::priority_queue)."""

    __slots__ = ("key", "ends")

    def __init__(self, weight, ends):
        self.key = -weight
        self.ends = ends

    def __lt__(self, other):
        return self.key < other.key


def _max_weight_forest(nodes, edges):
    """Kruskal on negated weights; ``edges`` are ``(a, b, weight)`` in order."""
    root = {v: v for v in nodes}

    def find(v):
        while root[v] != v:
            root[v] = root[root[v]]
            v = root[v]
        return v

    heap = []
    for a, b, w in edges:
        heapq.heappush(heap, _Edge(w, (a, b)))
    kept = []
    while heap:
        a, b = heapq.heappop(heap).ends
        ra, rb = find(a), find(b)
        if ra != rb:
            root[ra] = rb
            kept.append((a, b))
    return kept


def _direct_forest(nodes, edges):
    """Orient each tree away from its first node (in ``nodes`` order).

    Returns the feature order (trees by first node, nodes in ``nodes`` order
    within each) and each node's parent.
    """
    adjacent = {v: [] for v in nodes}
    for a, b in edges:
        adjacent[a].append(b)
        adjacent[b].append(a)
    parent, order = {}, []
    seen = set()
    for start in nodes:
        if start in seen:
            continue
        seen.add(start)
        component, queue = [start], [start]
        while queue:
            v = queue.pop(0)
            for w in adjacent[v]:
                if w not in seen:
                    seen.add(w)
                    parent[w] = v
                    component.append(w)
                    queue.append(w)
        rank = {v: i for i, v in enumerate(nodes)}
        order.extend(sorted(component, key=rank.__getitem__))
    return order, parent


def tan_cl(class_: str, dataset: pd.DataFrame, score: Literal["loglik", "bic", "aic"] = "loglik",
           root: str | None = None) -> BNCModel:
    """Tree augmented naive Bayes by Chow-Liu's algorithm (Friedman et al., 1997).

    The augmenting tree is the maximum-weight spanning tree of the
    class-conditional mutual information between features; with
    ``score="bic"`` or ``"aic"`` penalised weights below zero are dropped and
    the result may be a forest.

    Parameters
    ----------
    class_ : str
    dataset : pandas.DataFrame
    score : {"loglik", "bic", "aic"}
    root : str, optional
        A feature name; anything else is an error here (R ignores it).  It
        does not choose the root, as in bnclassify 0.4.8: each tree is
        rooted at its first feature in column order.

    Notes
    -----
    Candidate edges are the feature pairs in column order; ties between
    equal weights are broken as Boost's Kruskal does in R.  With a single
    feature R stops with an error; here the result is naive Bayes.

    Returns
    -------
    BNCModel

    Examples
    --------
    >>> import pandas as pd
    >>> from pystagedtrees.bnc import tan_cl, families
    >>> d = pd.DataFrame({"c": list("aabb"), "x": list("uvuv"), "y": list("uvvv")})
    >>> families(tan_cl("c", d))
    {'x': ('x', 'c'), 'y': ('y', 'x', 'c'), 'c': ('c',)}
    """
    check_choice(score, "score", SCORES)
    enc = encode_dataset(class_, dataset)
    if root is not None and not isinstance(root, str):
        raise TypeError(f"`root` must be the name of a feature (a str); got {root!r}.")
    if root is not None and root not in enc.features:
        raise ValueError(f"`root` {root!r} is not a feature of `dataset`.")
    return tan_cl_encoded(enc, score, root)


def tan_cl_encoded(enc, score="loglik", root=None):
    """:func:`tan_cl` of encoded (possibly row-weighted) data, arguments checked."""
    class_ = enc.class_var
    feats = enc.features
    which = SCORES.index(score)
    edges = []
    for a, b in combinations(feats, 2):
        w = ode_scores(enc, a, b)[which]
        if w >= 0:
            edges.append((a, b, w))
    order, parent = _direct_forest(feats, _max_weight_forest(feats, edges))
    parents = {f: [parent[f]] for f in parent}
    return anb_model(class_, order, parents,
                     learner=("tan_cl", dict(score=score, root=root)))


def _spode(class_var, features, superparent):
    others = [f for f in features if f != superparent]
    return anb_model(class_var, [superparent, *others], {f: [superparent] for f in others})


def aode(class_: str, dataset: pd.DataFrame | None = None,
         features: str | Sequence[str] | None = None) -> BNCModel:
    """Averaged one-dependence estimators (Webb et al., 2005).

    One SPODE per feature (that feature a parent of all the others); their
    joint probabilities are averaged.  With a single feature this is naive
    Bayes.  The features are those of ``dataset``, else ``features``, as in
    :func:`nb` (R's ``aode`` takes only ``dataset``: it stops without one).

    Examples
    --------
    >>> import pandas as pd
    >>> from pystagedtrees.bnc import aode
    >>> m = aode("c", pd.DataFrame({"c": ["a", "b"], "x": ["u", "v"], "y": ["u", "u"]}))
    >>> [sp.features[0] for sp in m.models]
    ['x', 'y']
    """
    feats = _structure_features(class_, dataset, features)
    if not feats:
        raise ValueError("aode needs at least one feature besides `class_`.")
    if len(feats) == 1:
        return anb_model(class_, feats, {}, learner=("aode", {}))
    model = anb_model(class_, feats, {}, learner=("aode", {}))
    model.models = [_spode(class_, feats, sp) for sp in feats]
    return model
