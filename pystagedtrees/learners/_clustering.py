"""Clustering learners: ``stages_hclust`` and ``stages_kmeans`` (R: R/stages_hclust.R, R/stages_kmeans.R).

The stages of a variable are clustered by their probability vectors; the
situations of the stages in cluster ``g`` form the new stage ``"g"``.  The
clustering itself is R's, step for step (``stats::hclust``/``cutree`` and
``stats::kmeans`` with R's Hartigan-Wong), so with the same data and, for
k-means, the same random numbers (``rng="R"``), the stages are R's.
"""
from __future__ import annotations

import numbers
from collections.abc import Callable, Iterable, Mapping, Sequence

import numpy as np

from pystagedtrees.base._validation import (
    as_numbers,
    check_int,
    check_steps_fit,
    scalar_of_0d,
)
from pystagedtrees.fitting._fit import fit_variable, smoothed_stage_prob, stage_counts
from pystagedtrees.fitting._scores import (
    compute_loglik,
    observed_stage_ids,
    sevt_df,
    variable_loglik_of,
)
from pystagedtrees.kernels._counts import regroup_stages
from pystagedtrees.kernels._hclust import cut_rows
from pystagedtrees.kernels._rdist import R_DIST_CODES, r_dist
from pystagedtrees.learners._hclust import METHOD_CODES, agglomerate, agglomerate_and_cut, cutree
from pystagedtrees.learners._hclust import METHODS as HCLUST_METHODS
from pystagedtrees.learners._kmeans import as_matrix, best_of_starts, run_options
from pystagedtrees.learners._learners import (
    LEARNER_MEMORY_ADVICE,
    MEMORY_STEPS,
    STAGE_BYTES,
    check_pair_tables,
    pair_tables_step,
    penalty_per_parameter,
    prepare,
    resolve_score,
)
from pystagedtrees.learners._rows import distinct_rows
from pystagedtrees.model._sevt import Sevt, check_sevt
from pystagedtrees.rng import Rng, Seed, resolve_source

__all__ = ["stages_hclust", "stages_kmeans"]

R_DIST_METHODS = tuple(R_DIST_CODES)


def _free_ids_in_prob_order(model, i, ignore):
    """Stage ids not ignored, in the order of the stage probabilities (R's ``names(prob)``)."""
    return model.stage_labels(i).id_array_without(ignore)


def stage_distances(prob, distance):
    """R's ``dist`` between rows of stage probabilities (as a full matrix).

    "totvar" is half the Manhattan distance and "hellinger" the Euclidean
    distance of square roots over sqrt(2), as ``stages_hclust`` defines them.
    """
    rows, method, divisor = _r_dist_of(prob, distance)
    out = np.empty((prob.shape[0], prob.shape[0]))
    r_dist(rows, method, out)
    if divisor != 1.0:  # in place: one n x n table, not two
        out /= divisor
    return out


def _r_dist_of(prob, distance):
    """``(rows, method, divisor)``: ``distance`` between rows of ``prob`` is R's
    ``dist(rows, method) / divisor`` (``rows`` C-contiguous float64)."""
    rows = np.ascontiguousarray(prob, dtype=np.float64)
    if distance == "totvar":
        return rows, "manhattan", 2.0
    if distance == "hellinger":
        return np.sqrt(rows), "euclidean", float(np.sqrt(2.0))
    return rows, distance, 1.0


def _clusterable_probabilities(model, i, ids, learner, prob=None):
    """The probabilities of stages ``ids`` of variable ``i`` (``prob``, when
    the caller has read them), checked to be finite.

    Stages never observed have NaN probabilities when fitted with
    ``lambda_ = 0``; R's clustering stops on them too.
    """
    if prob is None:
        prob = model.stage_probabilities(i).take(ids, axis=0)  # rows: take is 10x faster
    if not np.isfinite(prob).all():
        raise ValueError(
            f"{learner}: variable {model.variables[i]!r} has stages that were never "
            "observed and have no probabilities; fit the model with lambda_ > 0 or "
            "join_unobserved=True, or put those stages in `ignore`."
        )
    return prob


def _relabel_by_groups(model, i, ids, groups):
    """Stages ``ids[j]`` become the stage ``str(groups[j])`` (groups numbered
    from 1), refitted; the others keep their labels.  Returns the new stage
    id of each observed situation (a row of the counts).

    The new stages are numbered in order of first appearance along the
    situations, as :func:`fit_variable` numbers them: a new stage first
    appears where the first of the old stages it gathers does.  A stage left
    out whose label is a group's number joins that group (R joins them by
    name).
    """
    labels, vector = model.stage_labels(i), model.stage_vector(i)
    keys = labels.keys()  # numbers as themselves, names negative
    keys[ids] = groups
    n_groups = int(groups.max())
    stored, default_at, default = vector.stored_ids()
    counts = np.ascontiguousarray(model.situation_counts(i))
    # -1 in mapping: an id no situation uses (filled by hand: numpy.full's
    # Python layer costs more than the fill, and this runs for every variable)
    mapping, new_of_group = np.empty(len(labels), dtype=np.int32), np.empty(n_groups + 1,
                                                                             dtype=np.int32)
    mapping.fill(-1)
    new_of_group.fill(-1)
    n_bound = n_groups + len(labels) - len(ids)  # the groups and the stages left out, at most
    first_old, by_stage = np.empty(n_bound, dtype=np.int32), np.zeros((n_bound, counts.shape[1]))
    new_stored, row_stage = np.empty_like(stored), np.empty(counts.shape[0], dtype=np.int32)
    n_new = regroup_stages(stored, default_at, default, keys, new_of_group, mapping, first_old,
                           new_stored, counts, observed_stage_ids(model, i), row_stage, by_stage)
    # every new id is some old stage's in use, so replace_stages need not look
    model.replace_stages(i, vector.with_stored_ids(new_stored, mapping),
                         labels.keyed(keys, first_old[:n_new]), all_used=True)
    model.set_stage_probabilities(i, *smoothed_stage_prob(model, by_stage[:n_new]))
    return row_stage


def _loglik_reusing(model, known):
    """``compute_loglik(model)``, reusing the variables' terms in ``known``
    (by position), which the learner computed as it learned them."""
    return compute_loglik(model, [known[i] if i in known else variable_loglik_of(model, i)
                                  for i in range(len(model.variables))])


def _per_variable_k(k, positions, model, default=None):
    """R's recycling of ``k``: a number for all, a list recycled, or a dict by variable.

    Variables a dict leaves out, and None values, get ``default``; every
    value is checked.
    """
    def checked(v):
        return check_int(default if v is None else v, "k", minimum=1, allow_none=default is None)

    k = scalar_of_0d(k)
    if isinstance(k, dict):
        unknown = [v for v in k if v not in model.variables]
        if unknown:
            raise ValueError(f"`k` names {unknown}, which are not variables of the model.")
        values = {i: k.get(model.variables[i], default) for i in positions}
    elif k is None or isinstance(k, (numbers.Number, str, bytes)):
        return dict.fromkeys(positions, checked(k)) if positions else {}  # checked once
    elif not isinstance(k, Iterable):
        raise TypeError(f"`k` must be a number, a list or a dict by variable; got {k!r}.")
    else:
        recycled = list(k)
        if not recycled:
            raise ValueError("`k` is empty.")
        values = {i: recycled[n % len(recycled)] for n, i in enumerate(positions)}
    return {i: checked(v) for i, v in values.items()}


def _learning_scope(model, scope, limit):
    check_sevt(model)  # `prepare` then checks that it is fitted
    if scope is not None:
        return scope
    limit = check_int(limit, "limit", minimum=2, allow_none=True) or len(model.variables)
    if not 2 <= limit <= len(model.variables):
        raise ValueError(
            f"`limit` must be between 2 and the number of variables "
            f"({len(model.variables)}); got {limit}."
        )
    return model.variables[1:limit]


def stages_hclust(object: Sevt, distance: str = "totvar",
                  k: int | Sequence[int] | Mapping[str, int] | None = None,
                  method: str = "complete", ignore: Sequence[str] | None = None,
                  limit: int | None = None, scope: Sequence[str] | None = None,
                  score: str | Callable[[Sevt], float] | None = None) -> Sevt:
    """Hierarchical clustering of the stages of each variable (R: ``stages_hclust``).

    Parameters
    ----------
    object : Sevt
        A fitted model.
    distance : str, default "totvar"
        "totvar", "hellinger", or a method of R's ``dist`` ("euclidean",
        "maximum", "manhattan", "canberra", "minkowski").
    k : int, list, dict or None
        Number of groups per variable (recycled over ``scope``); None picks,
        per variable, the number of groups with the best ``score``.
    method : str, default "complete"
        Linkage: "complete", "single", "average", "ward.D", "ward.D2",
        "mcquitty", "median", "centroid".
    ignore : list of str, optional
        Stages left out (default: the unobserved stage names).
    limit : int, optional
        Learn the variables 2..limit (default all).
    scope : list of str, optional
        Variables to learn (overrides ``limit``).
    score : None, "bic", "aic" or callable
        Used to choose ``k`` when it is None (default ``-BIC``).

    Returns
    -------
    Sevt
        Stages named "1".."k" after the groups of R's ``cutree``.

    Notes
    -----
    R stops with an error when a variable has fewer than two stages to
    cluster; here such a variable is left as it is.

    Examples
    --------
    >>> import pystagedtrees as st
    >>> model = st.stages_hclust(st.full(st.datasets.titanic_table(), lambda_=1), k=2)
    >>> sorted(set(model.stages("Survived")))
    ['1', '2', 'UNOBSERVED']
    """
    if not isinstance(distance, str) or distance not in ("totvar", "hellinger") + R_DIST_METHODS:
        raise ValueError(
            f"`distance` must be 'totvar', 'hellinger' or one of {list(R_DIST_METHODS)}; "
            f"got {distance!r}."
        )
    if not isinstance(method, str) or method not in HCLUST_METHODS:
        raise ValueError(f"`method` must be one of {list(HCLUST_METHODS)}; got {method!r}.")
    kind, score_fn = resolve_score(score)
    model, positions, ignore = prepare(object, _learning_scope(object, scope, limit), ignore)
    ks = _per_variable_k(k, positions, model)
    # the steps' free stages and distinct rows, by variable (learning one
    # leaves the others'), unless the memory is unknown and they are not read
    seen = {}
    check_steps_fit(_hclust_steps(model, positions, ignore, ks, method, seen),
                    LEARNER_MEMORY_ADVICE)
    loglik = {}  # the learned variables' log-likelihoods
    for i in positions:
        ids, rows, prob = seen[i] if i in seen else (
            _free_ids_in_prob_order(model, i, ignore), None, None)
        if len(ids) < 2:
            continue
        prob = _clusterable_probabilities(model, i, ids, "stages_hclust", prob)
        groups = None
        if ks[i] is not None and method in _DUPLICATE_BLIND_METHODS:
            rows = rows if rows is not None else distinct_rows(prob)  # (memory unknown)
            groups = _cut_distinct_rows(prob, rows, distance, method, min(ks[i], len(ids)))
        if groups is None:
            check_pair_tables(model, i, len(ids), 1, "stages_hclust")  # distances, merged in place
            diss = stage_distances(prob, distance)
            if ks[i] is not None:
                groups = agglomerate_and_cut(diss, method, min(ks[i], len(ids)))
            else:
                groups = _best_cut(model, i, ids, agglomerate(diss, method).merge, kind, score_fn)
        loglik[i] = variable_loglik_of(model, i, _relabel_by_groups(model, i, ids, groups))
        if ks[i] is None:  # the next variable's best cut reads the model's score
            model.ll = _loglik_reusing(model, loglik)
    model.ll = _loglik_reusing(model, loglik)
    return model


#: Linkages under which the union of two clusters at dissimilarity 0 is at
#: exactly the same dissimilarity (a maximum, a minimum, or the mean of two
#: equal numbers) from every other cluster as each of them was.
_DUPLICATE_BLIND_METHODS = ("complete", "single", "mcquitty", "median")


def _cut_distinct_rows(prob, rows, distance, method, k):
    """``cutree(hclust(dist(prob), method), k)`` computed on the distinct rows of ``prob``.

    Stages with equal probabilities are at dissimilarity 0, so R's hclust
    merges all of them before anything else, each into the first of its
    group, and under :data:`_DUPLICATE_BLIND_METHODS` the merged groups keep
    the dissimilarities of that first row: the later merges are those of the
    distinct rows in order of first appearance, ties included, and so is any
    cut into at most that many groups.  Fewer distinct rows than stages make
    this quadratic in the distinct rows instead of the stages (eeg's 3,160
    stages of X14 have 143 distinct probability vectors).  None when the cut
    splits equal rows (then the order of R's merges at 0 decides) or when
    distinct rows are at dissimilarity 0.  ``rows`` is ``distinct_rows(prob)``,
    whose table of distances the up-front memory steps allowed.
    """
    row_of, first = rows
    n_distinct = first.shape[0]
    if k > n_distinct:
        return None
    if n_distinct == 1:
        return np.ones(prob.shape[0], dtype=np.int64)
    x, r_method, divisor = _r_dist_of(prob[first], distance)
    groups = np.empty(n_distinct, dtype=np.int64)
    if not cut_rows(x, R_DIST_CODES[r_method], divisor, METHOD_CODES[method], k, groups):
        return None  # distinct rows at dissimilarity 0
    return groups[row_of]


def _best_cut(model, i, ids, merge, kind, score_fn):
    """The cut (1..n groups) with the best score, the first on ties (R's which.max).

    For BIC and AIC (``kind``) only the cuts :func:`_near_best_cuts` finds
    are scored on the model; a score function of the user's sees every cut.
    """
    cuts = range(1, len(ids) + 1)
    if kind is not None and not _group_names_taken(model, i, ids):
        cuts = _near_best_cuts(model, i, ids, merge, kind)
    best_groups, best_score = None, -np.inf
    for n_groups in cuts:
        groups = cutree(merge, n_groups)
        candidate = model.copy()
        _relabel_by_groups(candidate, i, ids, groups)
        candidate.ll = compute_loglik(candidate)
        value = score_fn(candidate)
        if value > best_score:
            best_groups, best_score = groups, value
    return best_groups


def _group_names_taken(model, i, ids):
    """Whether a stage left out of the clustering has a numeric name, which a
    group could take (the two would then merge)."""
    return bool(np.delete(model.stage_labels(i).numeric_mask(), ids).any())


def _groups_loglik(counts, lambda_):
    """Log-likelihood of each row of counts under its own smoothed estimate."""
    total = counts.sum(axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = counts * np.log((counts + lambda_) / (total + counts.shape[-1] * lambda_))
    return np.where(counts > 0, terms, 0.0).sum(axis=-1)


def _near_best_cuts(model, i, ids, merge, kind):
    """The cuts (numbers of groups) whose BIC or AIC is within rounding of the best.

    Cuts differ only in the log-likelihood of variable ``i``'s groups and in
    their number.  Each merge adds two groups' counts, so one pass over the
    merges gives every cut's log-likelihood (linear in the stages; scoring
    every cut on a copy of the model was quadratic).  These sums round
    differently from the model's, so the cuts within a relative 1e-9 of the
    best are returned, to be scored on the model.
    """
    lambda_ = model.lambda_ or 0.0
    n = len(ids)
    counts = np.empty((2 * n - 1, int(model.n_levels[i])))
    counts[:n] = stage_counts(model, i).take(ids, axis=0)
    node_loglik = np.empty(2 * n - 1)
    node_loglik[:n] = _groups_loglik(counts[:n], lambda_)
    loglik = np.empty(n)  # loglik[g - 1]: the cut into g groups
    loglik[n - 1] = node_loglik[:n].sum()
    # R's merge rows: -j is stage j (1-based), +s the group made at step s
    nodes = np.where(merge < 0, -merge - 1, n + merge - 1)
    for step, (a, b) in enumerate(nodes.tolist(), start=1):
        new = n + step - 1
        counts[new] = counts[a] + counts[b]
        node_loglik[new] = _groups_loglik(counts[new], lambda_)
        loglik[n - step - 1] = loglik[n - step] + node_loglik[new] - node_loglik[a] - node_loglik[b]
    penalty = penalty_per_parameter(kind, float(model.situation_counts(0).sum()))
    score = 2 * loglik - penalty * np.arange(1, n + 1) * (model.n_levels[i] - 1)
    scale = abs(2 * float(model.ll)) + abs(penalty) * sevt_df(model) + 1
    return (np.flatnonzero(score >= np.max(score) - 1e-9 * scale) + 1).tolist()


def stages_kmeans(object: Sevt, k: int | Sequence[int] | Mapping[str, int] | None = None,
                  algorithm: str = "Hartigan-Wong",
                  transform: Callable[[np.ndarray], np.ndarray] | None = np.sqrt,
                  ignore: Sequence[str] | None = None, limit: int | None = None,
                  scope: Sequence[str] | None = None, nstart: int = 1, seed: Seed = None,
                  rng: Rng = "numpy") -> Sevt:
    """k-means clustering of the stages of each variable (R: ``stages_kmeans``).

    Parameters
    ----------
    object : Sevt
        A fitted model.
    k : int, list or dict, optional
        Number of stages per variable (default: the number of levels of the
        root variable).  A variable with at most ``k`` stages is unchanged.
    algorithm : str, default "Hartigan-Wong"
        "Hartigan-Wong", "Lloyd", "Forgy" or "MacQueen" (R's algorithms).
    transform : callable or None, default numpy.sqrt
        Applied to the probabilities before clustering (None: identity).
    ignore, limit, scope
        As in :func:`stages_hclust`.
    nstart : int, default 1
        Random starts per variable.
    seed : int or numpy.random.Generator, optional
        Seed of the random initial centres.
    rng : {"numpy", "R", "R-rounding"} or a random source in use, default "numpy"
        The generator (see :mod:`pystagedtrees.rng`): "R" draws the centres
        as R does after ``set.seed(seed)``, so the result equals
        ``set.seed(seed); stages_kmeans(...)`` in R.

    Returns
    -------
    Sevt
        Stages named "1".."k" after the k-means clusters.

    Examples
    --------
    >>> import pystagedtrees as st
    >>> model = st.stages_kmeans(st.full(st.datasets.titanic_table(), lambda_=1), k=2, seed=1)
    >>> len(set(model.stages("Survived")) - {"UNOBSERVED"}) <= 2
    True
    """
    if transform is not None and not callable(transform):
        raise TypeError(f"`transform` must be a callable or None; got {transform!r}.")
    options = run_options(10, nstart, algorithm)  # kmeans' own iter.max, as in R
    source = resolve_source(seed, rng)
    model, positions, ignore = prepare(object, _learning_scope(object, scope, limit), ignore)
    default_k = len(model.tree[model.variables[0]])
    ks = _per_variable_k(k, positions, model, default_k)
    seen = {}  # the steps' free stages, by variable (unless the memory is unknown)
    check_steps_fit(_kmeans_steps(model, positions, ignore, seen), LEARNER_MEMORY_ADVICE)
    loglik = {}  # the learned variables' log-likelihoods
    for i in positions:
        k_i = ks[i]
        ids = seen[i] if i in seen else _free_ids_in_prob_order(model, i, ignore)
        if len(ids) > k_i:
            points = _clusterable_points(model, i, ids, transform)
            try:
                groups = best_of_starts(points, min(k_i, len(ids) - 1), options, source)[0]
            except ValueError as exc:  # R stops here too; say which variable
                raise ValueError(f"stages_kmeans: variable {model.variables[i]!r}: {exc}") from exc
            stage_of_row = _relabel_by_groups(model, i, ids, groups)
        else:
            stage_of_row = fit_variable(model, i)
        loglik[i] = variable_loglik_of(model, i, stage_of_row)
    model.ll = _loglik_reusing(model, loglik)
    return model


def _clusterable_points(model, i, ids, transform):
    """The points stages_kmeans clusters for stages ``ids`` of variable ``i``:
    their probabilities, transformed, as :func:`as_matrix` returns them."""
    prob = model.stage_probabilities(i).take(ids, axis=0)  # rows: take is 10x faster
    if transform is None or transform is np.sqrt:
        # one check of the points where the two below would find nothing
        # (per variable they cost as much as clustering a few hundred stages)
        points = prob if transform is None else np.sqrt(prob)
        if points.dtype == np.float64 and np.isfinite(points).all():
            return points
    prob = _clusterable_probabilities(model, i, ids, "stages_kmeans", prob)
    if transform is not None:
        moved = as_numbers(transform(prob), "what `transform` returns")
        if moved.shape != prob.shape:
            raise ValueError(f"`transform` must return an array of the shape it is given, "
                             f"{prob.shape}; got {moved.shape}.")
        prob = moved
    try:
        return as_matrix(prob, "x")
    except ValueError as exc:  # R stops in kmeans; say which variable
        raise ValueError(f"stages_kmeans: variable {model.variables[i]!r}: {exc}") from exc


def _kmeans_bytes(m, k):
    """What stages_kmeans allocates for ``m`` stages: its points (and a
    transformed copy), the centres and a few numbers per point."""
    return 8 * m * (3 * k + 6)


def _kmeans_steps(model, positions, ignore, seen=None):
    """What stages_kmeans allocates per variable; ``seen`` (a dict), if
    given, gets each variable's free stage ids."""
    names, levels = model.variables, model.n_levels.tolist()  # (once: each read copies)
    for i in positions:
        ids = _free_ids_in_prob_order(model, i, ignore)
        yield (f"stages_kmeans clusters the {len(ids):,} free stages of {names[i]!r}",
               _kmeans_bytes(len(ids), levels[i]))
        if seen is not None:
            seen[i] = ids


def _hclust_steps(model, positions, ignore, ks=None, method="complete", seen=None):
    """What stages_hclust allocates per variable: one table of distances,
    between the distinct probability rows where its cut into ``ks[i]``
    groups is made on them (see :func:`_cut_distinct_rows`), else between
    all the free stages.  Without ``ks`` (options not known: called by
    another learner) the distinct rows, a least need the loop's own check
    completes.  ``seen`` (a dict), if given, gets each variable's free stage
    ids, distinct rows and the free stages' probabilities (None where not
    read)."""
    for i in positions:
        ids = _free_ids_in_prob_order(model, i, ignore)
        rows = prob = None
        if len(ids) >= 2:
            k = None if ks is None else ks[i]
            m, kind = len(ids), "free"
            if ks is None or (k is not None and method in _DUPLICATE_BLIND_METHODS):
                prob = model.stage_probabilities(i).take(ids, axis=0)
                rows = distinct_rows(prob)
                n_distinct = len(rows[1])
                if n_distinct < m and (ks is None or min(k, m) <= n_distinct):
                    m, kind = n_distinct, "distinct"
            yield pair_tables_step(model, i, m, 1, "stages_hclust", kind)
        if seen is not None:
            seen[i] = ids, rows, prob


MEMORY_STEPS.update({stages_hclust: _hclust_steps, stages_kmeans: _kmeans_steps})
# the order searches' estimate: hclust's need depends on the probabilities learned
STAGE_BYTES.update({stages_kmeans: _kmeans_bytes})
