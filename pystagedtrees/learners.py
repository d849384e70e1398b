"""Score-based stage learners: ``stages_bhc``, ``stages_fbhc``, ``stages_hc``,
``stages_bhcr``, ``stages_simplebhc``, ``stages_csbhc`` (R: R/stages_*.R).

Every learner takes a fitted model and returns a new one, with R's visit
order and tie rules.  The default score (``-BIC``, or the strings ``"bic"``
and ``"aic"``) runs in compiled kernels that update the log-likelihood
locally; any other callable ``score(model) -> float`` (larger is better) goes
through a generic path that rescores every candidate model, as R does.
"""
import numbers

import numpy as np

from pystagedtrees._learn_kernels import backward_join, max_levels
from pystagedtrees.fit import check_scope
from pystagedtrees.model import LogLik, check_sevt, sevt_method
from pystagedtrees.scores import AIC, BIC, compute_loglik
from pystagedtrees.stage_ops import join_stage_ids

__all__ = [
    "stages_bhc",
    "stages_fbhc",
]


def _default_score(model):
    return -BIC(model)


def resolve_score(score, name="score"):
    """``(penalty per df, callable)``; the penalty is None for a custom callable."""
    if score is None or (isinstance(score, str) and score.lower() == "bic"):
        return "bic", _default_score
    if isinstance(score, str) and score.lower() == "aic":
        return "aic", lambda model: -AIC(model)
    if callable(score):
        return None, score
    raise TypeError(
        f"`{name}` must be None, 'bic', 'aic' or a callable model -> float; got {score!r}."
    )


def _penalty(kind, model):
    return float(np.log(model.ll.nobs)) if kind == "bic" else 2.0


def check_max_iter(max_iter, name="max_iter"):
    """``None`` or ``inf`` means no limit (R's ``Inf``)."""
    if max_iter is None or (isinstance(max_iter, float) and np.isinf(max_iter) and max_iter > 0):
        return np.iinfo(np.int64).max
    if isinstance(max_iter, bool) or not isinstance(max_iter, numbers.Integral) or max_iter < 0:
        raise ValueError(f"`{name}` must be a non-negative integer or None; got {max_iter!r}.")
    return int(max_iter)


def prepare(object, scope, ignore):
    """A fitted copy with a stored log-likelihood, the scope and the ignored labels."""
    check_sevt(object, fitted=True)
    if object._ctab is None:
        raise ValueError("`object` has no contingency tables: fit it with data first.")
    model = object.copy()
    if model.ll is None:
        model.ll = compute_loglik(model)
    positions = check_scope(model, scope)
    if 0 in positions:
        raise ValueError("`scope` cannot include the root variable, which has a single stage.")
    if ignore is None:
        ignore = model.name_unobserved or []
    elif isinstance(ignore, str):
        ignore = [ignore]
    return model, positions, {str(s) for s in ignore}


def free_stage_ids(model, i, ignore):
    """Stage ids of variable ``i`` not ignored, in order of first appearance."""
    labels = model._labels[i]
    return [int(s) for s in model._stages[i].first_appearance() if labels[s] not in ignore]


def first_situations(model, i, ids):
    """Index of the first situation of each stage (orders R's ``unique``)."""
    vector = model._stages[i]
    order = vector.first_appearance()
    rank = np.empty(len(model._labels[i]), dtype=np.int64)
    rank[order] = np.arange(len(order))
    return rank[np.asarray(ids, dtype=np.int64)]


def apply_merges(model, i, ids, merges, prob, n):
    """Install the joins found by a kernel (local indices into ``ids``)."""
    ids = np.asarray(ids, dtype=np.int64)
    mapping = np.arange(len(model._labels[i]), dtype=np.int32)
    for keep, drop in merges:
        mapping[ids[drop]] = ids[keep]
    # a kept stage may be dropped later: follow the chains
    while True:
        chained = mapping[mapping]
        if np.array_equal(chained, mapping):
            break
        mapping = chained
    model._prob[i][ids] = prob
    model._n[i][ids] = n
    model._stages[i] = model._stages[i].remap(mapping)
    survivors = np.flatnonzero(mapping == np.arange(len(mapping)))
    model.reindex_stages(i, survivors)


def _check_levels(model, i):
    if model._k[i] > max_levels():
        raise ValueError(
            f"variable {model.variables[i]!r} has {model._k[i]} levels; the learners "
            f"accept at most {max_levels()}."
        )


def _backward_join_fast(model, positions, ignore, kind, max_iter, first_improvement, trace):
    penalty = _penalty(kind, model)
    ll, df = float(model.ll), float(model.ll.df)
    for i in positions:
        _check_levels(model, i)
        ids = free_stage_ids(model, i, ignore)
        if len(ids) < 2:
            continue
        prob = np.ascontiguousarray(model._prob[i][ids])
        n = np.ascontiguousarray(model._n[i][ids], dtype=np.float64)
        first = np.ascontiguousarray(first_situations(model, i, ids))
        merges = np.empty((len(ids), 2), dtype=np.int64)
        n_joins, ll, df = backward_join(
            prob, n, first, model.lambda_ or 0.0, ll, df, penalty, max_iter,
            first_improvement, merges,
        )
        apply_merges(model, i, ids, merges[:n_joins], prob, n)
        if trace > 0:
            print(f"{'fast ' if first_improvement else ''}BHC over {model.variables[i]} "
                  f"done after {n_joins} joins")
    model.ll = LogLik(ll, int(round(df)), model.ll.nobs)
    return -(-2.0 * ll + penalty * df)


def _backward_join_generic(model, positions, ignore, score, max_iter, first_improvement, trace):
    now = score(model)
    for i in positions:
        iterations = 0
        while iterations < max_iter:
            iterations += 1
            ids = free_stage_ids(model, i, ignore)
            best, best_score = None, now
            for a in range(1, len(ids)):
                for b in range(a):
                    candidate = model.copy()
                    join_stage_ids(candidate, i, ids[a], ids[b])
                    value = score(candidate)
                    if value >= best_score:
                        best, best_score = candidate, value
                        if first_improvement:
                            break
                if first_improvement and best is not None:
                    break
            if best is None:
                break
            model.__dict__.update(best.__dict__)
            now = best_score
        if trace > 0:
            print(f"BHC over {model.variables[i]} done after {iterations} iterations")
    return now


def _backward_join(object, score, max_iter, scope, ignore, trace, first_improvement):
    model, positions, ignore = prepare(object, scope, ignore)
    kind, score_fn = resolve_score(score)
    max_iter = check_max_iter(max_iter)
    if kind is None:
        value = _backward_join_generic(model, positions, ignore, score_fn, max_iter,
                                       first_improvement, trace)
    else:
        value = _backward_join_fast(model, positions, ignore, kind, max_iter,
                                    first_improvement, trace)
    model.score = {"value": value, "f": score_fn}
    return model


@sevt_method
def stages_bhc(object, score=None, max_iter=None, scope=None, ignore=None, trace=0):
    """Backward hill-climbing: join pairs of stages while the score improves (R: ``stages_bhc``).

    For each variable in ``scope``, every pair of stages is tried (in R's
    order: later stage outer, earlier inner) and the best join is made, the
    last of equally good joins winning (R's ``>=``); this repeats until no
    join keeps the score from falling.  A join keeps the later stage's name.

    Parameters
    ----------
    object : Sevt
        A fitted model.
    score : None, "bic", "aic" or callable, default None
        The score to maximise; None means ``-BIC``.  A callable receives a
        model and returns a float (slower: every candidate is rescored).
    max_iter : int, optional
        At most this many joins per variable (default: no limit).
    scope : list of str, optional
        Variables to learn (default: all but the root).
    ignore : list of str, optional
        Stages never joined (default: the unobserved stage names).
    trace : int, default 0

    Returns
    -------
    Sevt
        The learned model, with ``score = {"value": ..., "f": ...}``.

    Examples
    --------
    >>> import pystagedtrees as st
    >>> model = st.full(st.datasets.titanic_table()).stages_bhc().stndnaming()
    >>> round(float(model.ll), 6), model.ll.df
    (-5160.167893, 17)
    >>> round(st.prob(model, {"Survived": "Yes"}, {"Age": "Adult"}), 7)
    0.3107124
    """
    return _backward_join(object, score, max_iter, scope, ignore, trace, False)


@sevt_method
def stages_fbhc(object, score=None, max_iter=None, scope=None, ignore=None, trace=0):
    """Fast backward hill-climbing: take the first join that does not lower the score (R: ``stages_fbhc``).

    Same arguments as :func:`stages_bhc`; pairs are visited in the same
    order and the first acceptable join is made at once.

    Examples
    --------
    >>> import pystagedtrees as st
    >>> model = st.stages_fbhc(st.full(st.datasets.titanic_table()))
    >>> round(float(model.ll), 6), model.ll.df
    (-5172.465269, 15)
    """
    return _backward_join(object, score, max_iter, scope, ignore, trace, True)
