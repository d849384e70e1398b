"""Greedy wrapper learners scored by cross-validated accuracy.

tan_hc, tan_hcsp (Keogh & Pazzani, 2002), kdb (hill-climbing k-dependence),
fssj and bsej (Pazzani, 1996), as bnclassify 0.4.8 runs them: the same
candidate order, folds, stopping rule and random tie breaking.

Candidates are scored by :class:`~pystagedtrees.bnc._scoring.FoldScorer`.
"""
from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd

from pystagedtrees.base._validation import check_int, check_number, check_smoothing
from pystagedtrees.bnc._dataset import encode_dataset
from pystagedtrees.bnc._folds import EQUAL_TOL, check_folds, max_random, stratified_folds
from pystagedtrees.bnc._model import BNCModel
from pystagedtrees.bnc._scoring import FoldScorer
from pystagedtrees.bnc._structure import anb_model
from pystagedtrees.rng import RandomSource, Rng, Seed, resolve_source

__all__ = ["tan_hc", "tan_hcsp", "kdb", "fssj", "bsej"]


class _Dag:
    """A semi-naive structure during search: features and their feature parents."""

    __slots__ = ("features", "parents", "origin", "child")

    def __init__(self, features, parents):
        self.features = tuple(features)
        self.parents = {f: tuple(parents.get(f, ())) for f in self.features}
        self.origin = self.child = None  # see with_parents

    def with_parents(self, child, new_parents):
        parents = dict(self.parents)  # already tuples in feature order: no rebuild
        parents[child] = parents[child] + tuple(new_parents)
        dag = _Dag.__new__(_Dag)
        dag.features, dag.parents = self.features, parents
        dag.origin, dag.child = self, child  # what changed, for changed_since
        return dag

    def changed_since(self, other):
        """The features whose parents differ from ``other``'s (or that it
        lacks), in feature order, when this structure is ``other`` with
        parents or features added; else None."""
        if self.origin is other:  # one step away: most candidates
            child = self.child
            return [child] if self.parents[child] != other.parents.get(child) else []
        touched, dag = set(), self
        while dag is not other:
            if dag.origin is None:
                return None
            touched.add(dag.child)
            dag = dag.origin
        return [f for f in self.features
                if f in touched and self.parents[f] != other.parents.get(f)]

    def with_feature(self, feature, parents=()):
        dag = _Dag(self.features + (feature,), {**self.parents, feature: tuple(parents)})
        dag.origin, dag.child = self, feature  # one family added, for changed_since
        return dag

    def without_feature(self, feature):
        # bnclassify rebuilds the arcs when it removes a node, grouped by parent
        # in graph order: each family's parents come out in graph order
        keep = [f for f in self.features if f != feature]
        rank = {f: i for i, f in enumerate(keep)}
        return _Dag(keep, {f: sorted((p for p in self.parents[f] if p != feature),
                                     key=rank.__getitem__) for f in keep})

    def ancestors(self, node):
        seen, stack = set(), list(self.parents[node])
        while stack:
            v = stack.pop()
            if v not in seen:
                seen.add(v)
                stack.extend(self.parents[v])
        return seen

    def has_arc(self, parent, child):
        return parent in self.parents[child]

    def supernodes(self):
        """Connected components of the feature graph, in graph order."""
        adjacent = {f: set(self.parents[f]) for f in self.features}
        for f in self.features:
            for p in self.parents[f]:
                adjacent[p].add(f)
        rank = {f: i for i, f in enumerate(self.features)}
        seen, out = set(), []
        for f in self.features:
            if f in seen:
                continue
            component, stack = set(), [f]
            while stack:
                v = stack.pop()
                if v not in component:
                    component.add(v)
                    stack.extend(adjacent[v])
            seen |= component
            out.append(sorted(component, key=rank.__getitem__))
        return out


class _Additions:
    """The candidates of a forward step, as the families they add to ``dag``
    (``families[j]``: a new feature and its parents); a candidate is built
    as a structure only when chosen (or when the scorer asks for all)."""

    __slots__ = ("dag", "families")

    def __init__(self, dag, families):
        self.dag, self.families = dag, families

    def __len__(self):
        return len(self.families)

    def __getitem__(self, j):
        feature, parents = self.families[j]
        return self.dag.with_feature(feature, parents)

    def dags(self):
        return [self[j] for j in range(len(self))]


def _score(scorer, candidates, draws):
    if isinstance(candidates, _Additions):
        return scorer.added_scores(candidates.families, candidates.dags, draws)
    return scorer.scores(candidates, draws)


def _greedy_search(enc, init, step, k, epsilon, smooth, draws):
    """Hill-climb from ``init`` while CV accuracy improves by >= ``epsilon``."""
    class_codes = enc.codes[:, enc.class_index]
    folds = stratified_folds(class_codes, len(enc.levels[enc.class_var]), k, draws)
    scorer = FoldScorer(enc, folds, smooth)
    current, current_score, candidates, log = None, -np.inf, [init], []
    while candidates:
        if abs(current_score - 1) < EQUAL_TOL:
            break
        scores = _score(scorer, candidates, draws)
        if not scores.max() - epsilon >= current_score:
            break
        best = max_random(scores, draws)
        current, current_score = candidates[best], float(scores[best])
        log.append(current_score)
        scorer.set_current(current)
        candidates = step(current, scorer, draws)
    return current, log


def _arcs_to_orphans(orphans, non_orphans):
    arcs = [(parent, child) for child in orphans for parent in non_orphans]
    if len(orphans) > 1:
        pairs = list(combinations(orphans, 2))
        arcs += pairs + [(b, a) for a, b in pairs]
    return arcs


def _discard_cycles(arcs, dag):
    """Drop arcs into an ancestor of their tail; arcs regrouped by tail."""
    grouped = {}
    for parent, child in arcs:
        grouped.setdefault(parent, []).append(child)
    out = []
    for parent, children in grouped.items():
        above = dag.ancestors(parent)
        out += [(parent, c) for c in children if c not in above]
    return out


def _discard_reversed(arcs):
    """Keep an arc only if no later kept arc is its reverse (scanning upward)."""
    kept = [True] * len(arcs)
    later = set()
    for i in range(len(arcs) - 1, -1, -1):
        if arcs[i][::-1] in later:
            kept[i] = False
        else:
            later.add(arcs[i])
    return [a for a, keep in zip(arcs, kept) if keep]


def _orphans(dag, below):
    return [f for f in dag.features if len(dag.parents[f]) < below]


def _augment_ode(dag, scorer, draws):
    orphans = _orphans(dag, 1)
    if len(orphans) <= 1:
        return []
    non_orphans = [f for f in dag.features if f not in orphans]
    arcs = _discard_reversed(_discard_cycles(_arcs_to_orphans(orphans, non_orphans), dag))
    return [dag.with_parents(child, [parent]) for parent, child in arcs]


def _augment_kdb(kdbk):
    def step(dag, scorer, draws):
        orphans = _orphans(dag, kdbk)
        # bnclassify stops with an error when fewer than kdbk features can
        # still take a parent; the search ends here instead.
        if len(orphans) < kdbk or not orphans:
            return []
        non_orphans = [f for f in dag.features if f not in orphans]
        arcs = [a for a in _arcs_to_orphans(orphans, non_orphans) if not dag.has_arc(*a)]
        arcs = _discard_cycles(arcs, dag)
        return [dag.with_parents(child, [parent]) for parent, child in arcs]

    return step


def _augment_superparent(dag, scorer, draws):
    orphans = _orphans(dag, 1)
    if len(orphans) <= 1:
        return []
    children = {}
    for f in dag.features:
        above = dag.ancestors(f)
        kids = [o for o in orphans if o != f and o not in above]
        if kids:
            children[f] = kids
    if not children:
        return []
    with_all = []
    for sp, kids in children.items():
        d = dag
        for c in kids:
            d = d.with_parents(c, [sp])
        with_all.append(d)
    sp = list(children)[max_random(scorer.scores(with_all, draws), draws)]
    return [dag.with_parents(c, [sp]) for c in children[sp]]


def _forward_join(all_features):
    def step(dag, scorer, draws):
        absent = [f for f in all_features if f not in dag.features]
        supernodes = dag.supernodes()
        return _Additions(dag, [(f, ()) for f in absent]
                          + [(f, tuple(s)) for f in absent for s in supernodes])

    return step


def _backward_join(dag, scorer, draws):
    excludes = [dag.without_feature(f) for f in dag.features]
    supernodes = dag.supernodes()
    merges = []
    for i, j in combinations(range(len(supernodes)), 2):
        d = dag
        for child in supernodes[i]:
            d = d.with_parents(child, supernodes[j])
        merges.append(d)
    return excludes + merges


def _run_wrapper(name, class_, dataset, k, epsilon, smooth, cache_reset,
                 draws: RandomSource, make_init, step, extra_args):
    enc = encode_dataset(class_, dataset)
    kdbk = check_int(extra_args.get("kdbk", 0), "kdbk")
    if len(enc.features) < kdbk:
        raise ValueError(
            f"`kdbk` ({kdbk}) exceeds the number of features (n_features = {len(enc.features)})."
        )
    k = check_folds(k, enc.codes.shape[0])
    epsilon = check_number(epsilon, "epsilon")
    smooth = check_smoothing(smooth, "smooth")
    # unused (see the docstring), but checked as R uses it: a count of steps
    check_int(cache_reset, "cache_reset", minimum=1, allow_none=True)
    init = make_init(enc.features)
    dag, log = _greedy_search(enc, init, step(enc.features), k, epsilon, smooth, draws)
    args = dict(k=k, epsilon=epsilon, smooth=smooth, **extra_args)
    model = anb_model(class_, dag.features, dag.parents, learner=(name, args))
    model.greedy_scores_log = log
    return model


def _naive_bayes(features):
    return _Dag(features, {})


_WRAPPER_DOC = """

    Parameters
    ----------
    class_ : str
        Name of the class column.
    dataset : pandas.DataFrame
        Categorical data; every other column is a candidate feature.
    k : int
        Number of cross-validation folds (stratified, drawn once per search).{kdbk}
    epsilon : float
        Minimum absolute improvement in CV accuracy to accept a step.
    smooth : float
        Dirichlet pseudo-count of the CPTs fitted inside the search.
    seed : int or numpy.random.Generator, optional
        The seed of ``rng``, which draws the folds and breaks ties.
    rng : {{"numpy", "R", "R-rounding"}} or a random source in use, default "numpy"
        The generator (see :mod:`pystagedtrees.rng`): with ``"R"``
        everything random is drawn as R after ``set.seed(seed)``.
    random_state : optional
        Deprecated alias of ``seed`` (FutureWarning); a source in use
        given here acts as ``rng``.
    cache_reset : int >= 1 or None
        Accepted for compatibility with bnclassify, where it is the number of
        accepted steps after which the cache of CPTs is emptied (None:
        never); R fails on 0.  It only bounds memory, so it is checked and
        otherwise unused: here the scores cached during a search are kept
        within a memory budget (at most 1 GiB), least recently used first out.

    Returns
    -------
    BNCModel
        The structure (fit it with :func:`lp`); ``greedy_scores_log`` holds
        the accuracy of each accepted step.

    Examples
    --------
    >>> import pandas as pd
    >>> from pystagedtrees.bnc import {name}
    >>> d = pd.DataFrame({{"c": list("aabbaabb"), "x": list("uuvvuuvv"),
    ...                   "y": list("uvuvuvvv")}})
    >>> m = {name}("c", d, k=2, seed=0)
    >>> 0 <= m.greedy_scores_log[-1] <= 1
    True
"""


def tan_hc(class_: str, dataset: pd.DataFrame, k: int, epsilon: float = 0.01, smooth: float = 0,
           cache_reset: int | None = None, seed: Seed = None, rng: Rng = "numpy",
           random_state: Seed | RandomSource = None) -> BNCModel:
    """Tree augmented naive Bayes by hill-climbing on CV accuracy.

    Starting from naive Bayes, each step adds the arc (between features that
    keeps a one-dependence structure) that most improves accuracy.
    """
    draws = resolve_source(seed, rng, random_state=random_state)
    return _run_wrapper("tan_hc", class_, dataset, k, epsilon, smooth, cache_reset,
                        draws, _naive_bayes, lambda feats: _augment_ode, {})


def tan_hcsp(class_: str, dataset: pd.DataFrame, k: int, epsilon: float = 0.01, smooth: float = 0,
             cache_reset: int | None = None, seed: Seed = None, rng: Rng = "numpy",
             random_state: Seed | RandomSource = None) -> BNCModel:
    """Tree augmented naive Bayes by hill-climbing with super-parents.

    Each step first picks the best super-parent (a feature made parent of
    every orphan it can take), then its best single child.
    """
    draws = resolve_source(seed, rng, random_state=random_state)
    return _run_wrapper("tan_hcsp", class_, dataset, k, epsilon, smooth, cache_reset,
                        draws, _naive_bayes,
                        lambda feats: _augment_superparent, {})


def kdb(class_: str, dataset: pd.DataFrame, k: int, kdbk: int = 2, epsilon: float = 0.01,
        smooth: float = 0, cache_reset: int | None = None, seed: Seed = None,
        rng: Rng = "numpy", random_state: Seed | RandomSource = None) -> BNCModel:
    """k-dependence Bayesian classifier by hill-climbing on CV accuracy.

    Like :func:`tan_hc`, but a feature may take up to ``kdbk`` feature
    parents (``kdbk`` must not exceed the number of features).
    """
    kdbk = check_int(kdbk, "kdbk", minimum=1)
    draws = resolve_source(seed, rng, random_state=random_state)
    return _run_wrapper("kdb", class_, dataset, k, epsilon, smooth, cache_reset,
                        draws, _naive_bayes,
                        lambda feats: _augment_kdb(int(kdbk)), dict(kdbk=int(kdbk)))


def fssj(class_: str, dataset: pd.DataFrame, k: int, epsilon: float = 0.01, smooth: float = 0,
         cache_reset: int | None = None, seed: Seed = None, rng: Rng = "numpy",
         random_state: Seed | RandomSource = None) -> BNCModel:
    """Forward sequential selection and joining (Pazzani, 1996).

    Starts from the class alone; each step adds a feature, either on its own
    or joined to an existing group of features (a complete sub-graph).
    """
    draws = resolve_source(seed, rng, random_state=random_state)
    return _run_wrapper("fssj", class_, dataset, k, epsilon, smooth, cache_reset,
                        draws, lambda feats: _Dag((), {}), _forward_join, {})


def bsej(class_: str, dataset: pd.DataFrame, k: int, epsilon: float = 0.01, smooth: float = 0,
         cache_reset: int | None = None, seed: Seed = None, rng: Rng = "numpy",
         random_state: Seed | RandomSource = None) -> BNCModel:
    """Backward sequential elimination and joining (Pazzani, 1996).

    Starts from naive Bayes; each step removes a feature or joins two groups.
    """
    draws = resolve_source(seed, rng, random_state=random_state)
    return _run_wrapper("bsej", class_, dataset, k, epsilon, smooth, cache_reset,
                        draws, _naive_bayes, lambda feats: _backward_join, {})


_KDBK_DOC = """
    kdbk : int
        Maximum number of feature parents of a feature."""

for _f in (tan_hc, tan_hcsp, kdb, fssj, bsej):
    _f.__doc__ = _f.__doc__.rstrip() + "\n" + _WRAPPER_DOC.format(
        name=_f.__name__, kdbk=_KDBK_DOC if _f is kdb else "")
