"""Score-based stage learners: ``stages_bhc``, ``stages_fbhc``, ``stages_hc``,
``stages_bhcr``, ``stages_simplebhc``, ``stages_csbhc`` (R: R/stages_*.R).

Every learner takes a fitted model and returns a new one, with R's visit
order and tie rules.  The default score (``-BIC``, or the strings ``"bic"``
and ``"aic"``) runs in compiled kernels that update the log-likelihood
locally; any other callable ``score(model) -> float`` (larger is better) goes
through a generic path that rescores every candidate model, as R does.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from pystagedtrees.base._loglik import LogLik
from pystagedtrees.base._validation import (
    check_ignore,
    check_int,
    check_number,
    check_score_value,
    check_steps_fit,
    check_trace,
)
from pystagedtrees.fitting._fit import check_scope, fit_variable, refitted_stage_prob
from pystagedtrees.fitting._scores import AIC, BIC, compute_loglik, log_nobs, variable_loglik_of
from pystagedtrees.kernels._bhc import backward_join, settle_joins
from pystagedtrees.kernels._bj import BYTES_PER_STAGE as BJ_BYTES_PER_STAGE
from pystagedtrees.kernels._bj import BYTES_PER_STAGE_LEVEL as BJ_BYTES_PER_STAGE_LEVEL
from pystagedtrees.kernels._bj import DISTANCE_CODES, backward_join_distance
from pystagedtrees.kernels._hc import ROW_TABLE_ENTRIES, move_situations
from pystagedtrees.kernels._stage_scores import join_probabilities, max_levels, variable_loglik
from pystagedtrees.learners._rows import distinct_rows
from pystagedtrees.model._sevt import Sevt, check_sevt
from pystagedtrees.model._stagevec import ParentStageVector, new_label
from pystagedtrees.rng import Rng, Seed, resolve_source
from pystagedtrees.stage_ops._stage_ops import join_stage_ids, joined_size

__all__ = [
    "stages_bhc",
    "stages_fbhc",
    "stages_bj",
    "stages_hc",
    "stages_bhcr",
    "stages_csbhc",
    "stages_simplebhc",
]


def _default_score(model):
    return -BIC(model)


def _aic_score(model):
    return -AIC(model)


class _CheckedScore:
    """A user's score function whose values are checked; a class, not a
    closure, so that models storing it pickle (when the function does)."""

    def __init__(self, function, name):
        self.function, self.name = function, name

    def __call__(self, model):
        return check_score_value(self.function(model), self.name)


def resolve_score(score, name="score"):
    """``(penalty per df, callable)``; the penalty is None for a custom callable."""
    if score is None or (isinstance(score, str) and score.lower() == "bic"):
        return "bic", _default_score
    if isinstance(score, str) and score.lower() == "aic":
        return "aic", _aic_score
    if callable(score):
        return None, _CheckedScore(score, name)
    raise TypeError(
        f"`{name}` must be None, 'bic', 'aic' or a callable model -> float; got {score!r}."
    )


def penalty_per_parameter(kind, nobs):
    """Score penalty per parameter, for a log-likelihood of ``nobs`` observations."""
    return log_nobs(nobs) if kind == "bic" else 2.0


def check_max_iter(max_iter, name="max_iter"):
    """``None`` or ``inf`` means no limit (R's ``Inf``); so does any count past int64."""
    no_limit = int(np.iinfo(np.int64).max)
    if max_iter is None or (isinstance(max_iter, float) and np.isinf(max_iter) and max_iter > 0):
        return no_limit
    return min(check_int(max_iter, name), no_limit)


def prepare(object, scope, ignore):
    """A fitted copy with a stored log-likelihood, the scope and the ignored labels.

    The copy shares the arrays of ``object`` (:meth:`Sevt.shared_copy`): the
    learners change a variable by replacing its arrays, never in place.
    """
    check_sevt(object, fitted=True)
    if not object.has_counts:
        raise ValueError("`object` has no contingency tables: fit it with data first.")
    model = object.shared_copy()
    if model.ll is None:
        model.ll = compute_loglik(model)
    positions = check_scope(model, scope)
    if 0 in positions:
        raise ValueError("`scope` cannot include the root variable, which has a single stage.")
    return model, positions, check_ignore(ignore, model.name_unobserved)


def free_stage_mask(model, i, ignore):
    """Whether each stage id of variable ``i`` has a label outside ``ignore``."""
    return model.stage_labels(i).mask_without(ignore)


def free_stage_ids(model, i, ignore):
    """Stage ids of variable ``i`` not ignored, in order of first appearance."""
    return free_stages_ranked(model, i, ignore)[0].tolist()


def free_stages_ranked(model, i, ignore, free=None):
    """:func:`free_stage_ids` (an array) and each one's rank among all the
    stages in order of first appearance (R's ``unique()`` order), from one
    pass over the situations.  ``free``: the :func:`free_stage_mask`, when
    the caller has it."""
    order = model.stage_vector(i).first_appearance()
    free = (free_stage_mask(model, i, ignore) if free is None else free)[order]
    return order[free].astype(np.int64), np.flatnonzero(free)


def identical_stage_classes(prob, n):
    """Class ids of stages, equal for bit-identical probabilities and sample sizes."""
    rows = np.ascontiguousarray(np.column_stack([prob, n]))
    return distinct_rows(rows, bitwise=True)[0]


def apply_merges(model, i, ids, merges, prob, n):
    """Install the joins found by a kernel (local indices into ``ids``)."""
    ids = np.asarray(ids, dtype=np.int64)
    mapping = np.arange(len(model.stage_labels(i)), dtype=np.int32)
    keeper = np.arange(len(ids))
    settle_joins(merges, keeper)
    mapping[ids] = ids[keeper]
    all_prob, all_n = model.stage_probabilities(i).copy(), model.stage_sizes(i).copy()
    all_prob[ids] = prob
    all_n[ids] = n
    model.set_stage_probabilities(i, all_prob, all_n)
    model.merge_stage_ids(i, mapping, np.flatnonzero(mapping == np.arange(len(mapping))))


MEMORY_STEPS = {}
"""Per learner (the public function), what it allocates for each variable in
scope: ``steps(model, positions, ignore)`` yields ``(what, bytes)``."""

STAGE_BYTES = {}
"""Per learner, its bytes for a variable of ``k`` levels whose ``m``
situations are each a stage of its own: ``bytes(m, k)`` (the order searches
estimate with it before building any tree)."""


LEARNER_MEMORY_ADVICE = ("start from a model with fewer stages (e.g. indep), or leave that "
                         "variable out of `scope`")


def check_learner_memory(learner, model, positions, ignore):
    """Refuse, before any variable is learned, a learner for which some
    variable in scope needs more memory than the machine can give.

    The steps also refuse what the learner would refuse on reaching a
    variable (too many levels, situations it cannot list), so no variable is
    learned in vain.  Learners without registered steps pass.
    """
    steps = MEMORY_STEPS.get(learner)
    if steps is not None:
        check_steps_fit(steps(model, positions, ignore), LEARNER_MEMORY_ADVICE)


def check_learner_call_memory(learner, model, options):
    """:func:`check_learner_memory` of ``learner(model, **options)``, before a
    function that calls it (``stages_em``) does any work of its own."""
    if learner in MEMORY_STEPS and model.has_counts:
        positions = [i for i in check_scope(model, options.get("scope")) if i != 0]
        check_learner_memory(learner, model, positions,
                             check_ignore(options.get("ignore"), model.name_unobserved))


def free_stage_count(model, i, ignore):
    """Number of stages of variable ``i`` a learner may change."""
    return int(np.count_nonzero(free_stage_mask(model, i, ignore)))


def pair_tables_bytes(tables):
    """``bytes(m, k)`` of ``tables`` tables of numbers over pairs of ``m`` stages."""
    return lambda m, k: tables * 8 * m * m


def pair_tables_step(model, i, n_stages, tables, learner, kind="free"):
    """The ``(what, bytes)`` of ``tables`` tables over pairs of ``n_stages``
    stages of variable ``i`` (R's learners compare the same pairs, in far
    more time)."""
    return (f"{learner} compares the {n_stages:,} {kind} stages of {model.variables[i]!r} "
            f"pairwise, in {tables} table(s) of {n_stages:,} x {n_stages:,} numbers",
            pair_tables_bytes(tables)(n_stages, int(model.n_levels[i])))


def check_pair_tables(model, i, n_stages, tables, learner):
    """Refuse one variable's tables over pairs of stages beyond memory, where
    their size is known only on reaching the variable."""
    check_steps_fit([pair_tables_step(model, i, n_stages, tables, learner)],
                    LEARNER_MEMORY_ADVICE)


def pair_table_steps(learner, tables, compiled=True):
    """Memory steps of a learner holding ``tables`` tables over pairs of free
    stages; a ``compiled`` one also has the compiled loops' limit of levels."""
    def steps(model, positions, ignore):
        for i in positions:
            if compiled:
                _check_levels(model, i)
            m = free_stage_count(model, i, ignore)
            if m >= 2:
                yield pair_tables_step(model, i, m, tables, learner)
    return steps


def _check_levels(model, i):
    if model.n_levels[i] > max_levels():
        raise ValueError(
            f"variable {model.variables[i]!r} has {model.n_levels[i]} levels; the learners "
            f"accept at most {max_levels()} (the compiled loops keep a stage's "
            "probabilities on the stack): leave it out of `scope`."
        )


def _backward_join_fast(model, positions, ignore, kind, max_iter, first_improvement, trace):
    penalty = penalty_per_parameter(kind, model.ll.nobs)
    ll, df = float(model.ll), float(model.ll.df)
    check_learner_memory(stages_fbhc if first_improvement else stages_bhc, model, positions,
                         ignore)
    for i in positions:
        ids, first = free_stages_ranked(model, i, ignore)
        if len(ids) < 2:
            _trace_variable_done(trace, model.variables[i], min(1, max_iter), first_improvement)
            continue
        # rows by ``take`` (C-contiguous): ten times faster than fancy indexing
        prob = model.stage_probabilities(i).take(ids, axis=0)
        n = np.ascontiguousarray(model.stage_sizes(i)[ids], dtype=np.float64)
        merges = np.empty((len(ids), 2), dtype=np.int64)
        n_joins, ll, df = backward_join(
            prob, n, first, identical_stage_classes(prob, n), model.lambda_ or 0.0, ll, df,
            penalty, max_iter, first_improvement, merges,
        )
        if trace > 1:
            labels = model.stage_labels(i)
            for keep, drop in merges[:n_joins]:
                _trace_join(model.variables[i], labels[ids[keep]], labels[ids[drop]],
                            first_improvement)
        apply_merges(model, i, ids, merges[:n_joins], prob, n)
        # R counts the last pass, which finds no join, unless max_iter stops it first
        _trace_variable_done(trace, model.variables[i], min(n_joins + 1, max_iter),
                             first_improvement)
    _trace_done(trace, first_improvement)
    model.ll = LogLik(ll, int(round(df)), model.ll.nobs)
    return -(-2.0 * ll + penalty * df)


def _trace_join(var, kept, dropped, first_improvement):
    """R's ``trace = 2`` line for a join (the kept stage's name first)."""
    if first_improvement:
        print(f"{var}: joined stages {kept} and {dropped}.")
    else:
        print(f"{var}: joined stages: {kept} and {dropped}")


def _trace_variable_done(trace, var, iterations, first_improvement):
    if trace > 0:
        if first_improvement:
            print(f"fast BHC over {var} done after {iterations} iterations.")
        else:
            print(f"BHC over {var} done after {iterations} iterations")


def _trace_done(trace, first_improvement):
    if trace > 0:
        print("fast HC done" if first_improvement else "BHC done")  # R's words


def _join_ids(model, i, keep, drop):
    candidate = model.copy()
    join_stage_ids(candidate, i, keep, drop)
    return candidate


def _backward_join_generic(model, positions, ignore, score, max_iter, first_improvement, trace,
                           join=_join_ids):
    """R's loop, literally: every pair ``join(model, i, later, earlier)`` is rescored."""
    now = score(model)
    for i in positions:
        iterations = 0
        while iterations < max_iter:
            iterations += 1
            ids = free_stage_ids(model, i, ignore)
            best, best_score, pair = None, now, None
            for a in range(1, len(ids)):
                for b in range(a):
                    candidate = join(model, i, ids[a], ids[b])
                    value = score(candidate)
                    if value >= best_score:
                        best, best_score, pair = candidate, value, (ids[a], ids[b])
                        if first_improvement:
                            break
                if first_improvement and best is not None:
                    break
            if best is None:
                break
            if trace > 1:
                _trace_join(model.variables[i], model.stage_labels(i)[pair[0]],
                            model.stage_labels(i)[pair[1]], first_improvement)
            model, now = best, best_score
        _trace_variable_done(trace, model.variables[i], iterations, first_improvement)
    _trace_done(trace, first_improvement)
    return model, now


def _backward_join(object, score, max_iter, scope, ignore, trace, first_improvement):
    model, positions, ignore = prepare(object, scope, ignore)
    kind, score_fn = resolve_score(score)
    max_iter = check_max_iter(max_iter)
    trace = check_trace(trace)
    if kind is None:
        model, value = _backward_join_generic(model, positions, ignore, score_fn, max_iter,
                                              first_improvement, trace)
    else:
        value = _backward_join_fast(model, positions, ignore, kind, max_iter,
                                    first_improvement, trace)
    model.score = {"value": value, "f": score_fn}
    return model


def stages_bhc(object: Sevt, score: str | Callable[[Sevt], float] | None = None,
               max_iter: int | None = None, scope: Sequence[str] | None = None,
               ignore: Sequence[str] | None = None, trace: int = 0) -> Sevt:
    """Backward hill-climbing: join pairs of stages while the score improves (R: ``stages_bhc``).

    For each variable in ``scope``, every pair of stages is tried (in R's
    order: later stage outer, earlier inner) and the best join is made, the
    last of equally good joins winning (R's ``>=``); this repeats until no
    join keeps the score from falling.  A join keeps the later stage's name.

    Parameters
    ----------
    object : Sevt
        A fitted model.  The variables in ``scope`` may have at most 256
        levels (the compiled loops keep a stage's probabilities on the
        stack); more, or tables over pairs of stages that would not fit in
        memory, are refused (ValueError) before any variable is learned.
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


def stages_fbhc(object: Sevt, score: str | Callable[[Sevt], float] | None = None,
                max_iter: int | None = None, scope: Sequence[str] | None = None,
                ignore: Sequence[str] | None = None, trace: int = 0) -> Sevt:
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


def stages_bj(object: Sevt, distance: str = "kullback", thr: float = 0.1,
              scope: Sequence[str] | None = None, ignore: Sequence[str] | None = None,
              trace: int = 0) -> Sevt:
    """Backward joining: join the two closest stages while closer than ``thr`` (R: ``stages_bj``).

    Parameters
    ----------
    object : Sevt
        A fitted model.  The variables in ``scope`` may have at most 256
        levels; more are refused (ValueError) before any variable is
        learned.  Memory grows linearly with the stages (no table of all
        their distances), time about with their square.
    distance : str, default "kullback"
        One of "manhattan", "euclidean", "reny", "kullback", "totvar",
        "hellinger", "bhatt", "chandarw" (R's definitions: symmetrised
        Kullback-Leibler, total variation without the 1/2, ...).
    thr : float, default 0.1
        Stages closer than this are joined.
    scope, ignore, trace
        As in :func:`stages_bhc`.

    Returns
    -------
    Sevt

    Examples
    --------
    >>> import pystagedtrees as st
    >>> model = st.stages_bj(st.full(st.datasets.titanic_table(), lambda_=1))
    >>> round(float(model.ll), 6), model.ll.df
    (-5192.838585, 14)
    """
    if not isinstance(distance, str) or distance not in DISTANCE_CODES:
        raise ValueError(
            f"`distance` must be one of {sorted(DISTANCE_CODES)}; got {distance!r}."
        )
    thr = check_number(thr, "thr")
    trace = check_trace(trace)
    model, positions, ignore = prepare(object, scope, ignore)
    ll, df = float(model.ll), float(model.ll.df)
    # the free stages found once, for the memory check and the joins
    masks = [free_stage_mask(model, i, ignore) for i in positions]
    check_steps_fit(_bj_steps(model, positions, ignore, masks), LEARNER_MEMORY_ADVICE)
    for i, free in zip(positions, masks):
        ids, rank = free_stages_ranked(model, i, ignore, free)
        if len(ids) < 2:
            if trace > 0:
                print(f"backward join over {model.variables[i]} done.")
            continue
        prob = np.ascontiguousarray(model.stage_probabilities(i)[ids])
        n = np.ascontiguousarray(model.stage_sizes(i)[ids], dtype=np.float64)
        merges = np.empty((len(ids), 2), dtype=np.int64)
        n_joins, ll, df = backward_join_distance(
            prob, n, distinct_rows(prob, bitwise=True)[0], rank, model.lambda_ or 0.0, ll, df,
            distance, thr, merges
        )
        if trace > 1:  # R's words
            labels = model.stage_labels(i)
            for keep, drop in merges[:n_joins]:
                print(f"{model.variables[i]}: joined stages: {labels[ids[keep]]} and "
                      f"{labels[ids[drop]]}.")
        apply_merges(model, i, ids, merges[:n_joins], prob, n)
        if trace > 0:
            print(f"backward join over {model.variables[i]} done.")
    if trace > 0:
        print("backward join done.")
    model.ll = LogLik(ll, int(round(df)), model.ll.nobs)
    return model


def _bj_bytes(m, k):
    """What stages_bj keeps for ``m`` stages of ``k`` levels: per stage its
    closest partners, and room for rows of probabilities and their distances."""
    return m * (BJ_BYTES_PER_STAGE + BJ_BYTES_PER_STAGE_LEVEL * k)


def _bj_steps(model, positions, ignore, masks=None):
    """``masks``: each variable's :func:`free_stage_mask`, when the caller has them."""
    for at, i in enumerate(positions):
        _check_levels(model, i)
        m = (free_stage_count(model, i, ignore) if masks is None
             else int(np.count_nonzero(masks[at])))
        if m >= 2:
            yield (f"stages_bj lists the closest partners of the {m:,} free stages of "
                   f"{model.variables[i]!r}", _bj_bytes(m, int(model.n_levels[i])))


def _check_movable(model, i, free):
    """Refuse a variable whose situations in the stages ``free`` (a mask by
    stage id) stages_hc cannot list."""
    vector = model.stage_vector(i)
    if isinstance(vector, ParentStageVector):  # stored per parent configuration
        raise ValueError(
            f"stages_hc moves single situations: {model.variables[i]!r} has "
            f"{vector.n_situations} situations (its stages follow its parents, as in a "
            "tree from a Bayesian network), too many to enumerate; leave it out of `scope`."
        )
    if not vector.is_dense and vector.default >= 0 and free[vector.default]:
        raise ValueError(
            f"stages_hc moves single situations: the stage "
            f"{model.stage_labels(i)[vector.default]!r} of {model.variables[i]!r} gathers "
            f"{vector.n_situations - len(vector.sit)} situations, too many to "
            "enumerate; ignore it (it holds the unobserved situations)."
        )


def _hc_steps(model, positions, ignore, masks=None):
    """What stages_hc allocates per variable: tables over its movable
    situations and the stages they may form (at most one more each), a
    cache of move terms and a table of move scores, both bounded by the
    kernel (32 MiB each).  ``masks``: each
    variable's :func:`free_stage_mask`, when the caller has them."""
    for at, i in enumerate(positions):
        _check_levels(model, i)
        free = free_stage_mask(model, i, ignore) if masks is None else masks[at]
        n_free = int(np.count_nonzero(free))
        if not n_free:
            continue
        _check_movable(model, i, free)
        n_sit = int(model.stage_vector(i).paths_per_stage(len(free))[free].sum())
        yield (f"stages_hc moves the {n_sit:,} situations of {model.variables[i]!r} among "
               f"up to {n_free + n_sit + 1:,} stages",
               _hc_bytes(n_free, n_sit, int(model.n_levels[i])))


def _hc_bytes(n_stages, n_sit, k):
    max_stages = n_stages + n_sit + 1
    score_table = min(ROW_TABLE_ENTRIES, n_sit * (max_stages + 1))
    return 8 * (max_stages * (3 * k + 9) + n_sit * (2 * k + 22) + score_table) + (1 << 25)


def _movable_situations(model, i, free):
    """The situations of variable ``i`` in the stages ``free`` (a mask by
    stage id), for stages_hc: their indices (ascending), stage ids and
    counts, then each observed situation's (a table row's) index among them
    (-1: a fixed row) and stage id."""
    _check_movable(model, i, free)
    vector = model.stage_vector(i)
    rows = model.observed_situations(i)
    keep = free[vector.stage]  # stage ids are small: a mask, no search
    if vector.is_dense:
        listed, at, row_stage = None, rows, vector.stage[rows]
    else:  # the rows outside the listed situations are in the default stage, never free
        listed, row_stage = vector.sit, vector.lookup(rows)
        at = np.searchsorted(listed, rows)
        hit = at < len(listed)
        hit[hit] = listed[at[hit]] == rows[hit]
        at[~hit] = 0
    if keep.all():
        situations = np.arange(vector.n_situations) if listed is None else listed
        stage, row_sit = vector.stage, at
    else:
        situations = np.flatnonzero(keep) if listed is None else listed[keep]
        stage, row_sit = vector.stage[keep], np.cumsum(keep) - 1
        row_sit = np.where(keep[at], row_sit[at], -1)
    if listed is not None:
        row_sit = np.where(hit, row_sit, -1)
    counts = np.zeros((len(situations), int(model.n_levels[i])))
    movable = row_sit >= 0
    counts[row_sit[movable]] = model.situation_counts(i)[movable]
    return situations, stage, counts, row_sit.astype(np.int64, copy=False), row_stage


def _replay_moves(model, i, ids, local_stage, moves, ignore):
    """Labels of the stages after the kernel's moves, named as R names them,
    and each move as ``(situation's position, from label, to label)``.

    A move into an empty stage creates R's ``newname`` of that iteration:
    ``new_label(c(unique(stages), ignore))``, named only when used (an
    iteration makes one move, so the stages in use are those before it).
    """
    labels = model.stage_labels(i)
    free = set(ids.tolist())
    ignored_present = [labels[s] for s in range(len(labels)) if s not in free]
    local_label = [labels[s] for s in ids]
    sizes = np.bincount(local_stage, minlength=len(ids) + len(local_stage) + 1).tolist()
    local_stage = local_stage.tolist()  # Python numbers: one move at a time
    log = []
    for situation, target, _ in moves.tolist():
        if target >= len(local_label):
            local_label.extend([None] * (target + 1 - len(local_label)))
        if sizes[target] == 0:
            in_use = [local_label[s] for s in np.flatnonzero(sizes)]
            local_label[target] = new_label(list(dict.fromkeys(in_use + ignored_present))
                                            + list(ignore))
        source = local_stage[situation]
        log.append((situation, local_label[source], local_label[target]))
        sizes[source] -= 1
        sizes[target] += 1
        local_stage[situation] = target
    return np.array(local_stage, dtype=np.int64), local_label, log


def _set_situation_labels(model, i, situations, stage, stage_labels):
    """Give each listed situation (ascending) of variable ``i`` the label
    ``stage_labels[stage[j]]``, then refit ``i``."""
    current = model.stage_labels(i)
    ids = np.zeros(len(stage_labels), dtype=np.int32)
    for s in np.flatnonzero(np.bincount(stage, minlength=len(stage_labels))):
        ids[s] = current.index(stage_labels[s])
        if ids[s] < 0:
            current = current.append(stage_labels[s])
            ids[s] = len(current) - 1
    model.replace_stages(i, model.stage_vector(i).assign(situations, ids[stage]), current)
    fit_variable(model, i)


def stages_hc(object: Sevt, score: str | Callable[[Sevt], float] | None = None,
              max_iter: int | None = None, scope: Sequence[str] | None = None,
              ignore: Sequence[str] | None = None, trace: int = 0) -> Sevt:
    """Hill climbing: move single situations between stages while the score improves (R: ``stages_hc``).

    In each iteration every situation of every (non-ignored) stage is tried
    in every other stage and in a new one; the best strictly improving move
    is made (the first of equally good moves, R's order: stages by first
    appearance, situations ascending).

    As in R, a moved model is refitted from the tree's tables and scored
    against the model as stored; a variable where no move pays keeps its
    stored probabilities.  The two fits differ only when the stored one
    does not come from the tree's tables, as ``indep``'s with missing
    values (it counts each variable's own values).

    Parameters
    ----------
    object : Sevt
        A fitted model.  The variables in ``scope`` may have at most 256
        levels; more, or situations the learner cannot list or fit in
        memory, are refused (ValueError) before any variable is learned.
    score : None, "bic", "aic" or callable, default None
        The score to maximise; None means ``-BIC`` (see :func:`stages_bhc`).
    max_iter : int, optional
        At most this many moves per variable (default: no limit).
    scope : list of str, optional
        Variables to learn (default: all but the root).
    ignore : list of str, optional
        Stages whose situations never move (default: the unobserved stage names).
    trace : int, default 0

    Returns
    -------
    Sevt

    Examples
    --------
    >>> import pystagedtrees as st
    >>> start = st.indep(st.datasets.titanic_table(), lambda_=1)
    >>> model = st.stages_hc(start)
    >>> st.BIC(model) < st.BIC(start)
    True
    """
    model, positions, ignore = prepare(object, scope, ignore)
    kind, score_fn = resolve_score(score)
    max_iter = check_max_iter(max_iter)
    trace = check_trace(trace)
    if kind is None:
        return _stages_hc_generic(model, positions, ignore, score_fn, max_iter, trace)
    # a moved model's log-likelihood is recomputed from the tree's tables,
    # nobs included, as R's sevt_fit(scope = v) does
    penalty = penalty_per_parameter(kind, float(model.situation_counts(0).sum()))
    # the free stages found once, for the memory check and the climb (a
    # variable's stages change only when it is learned)
    masks = [free_stage_mask(model, i, ignore) for i in positions]
    check_steps_fit(_hc_steps(model, positions, ignore, masks), LEARNER_MEMORY_ADVICE)
    # a move changes one variable: the others' log-likelihoods are kept, not recomputed
    var_lls = np.array([variable_loglik_of(model, j) for j in range(len(model.variables))])
    now = score_fn(model)  # changes only with a move
    for i, free in zip(positions, masks):
        ids = free_stages_ranked(model, i, ignore, free)[0]
        if not len(ids):
            _trace_hc_variable_done(trace, model.variables[i], min(1, max_iter))
            continue
        situations, stage, counts, row_sit, row_stage = _movable_situations(model, i, free)
        local = np.full(len(free), -1, dtype=np.int64)
        local[ids] = np.arange(len(ids))
        local_stage = local[stage]
        start_stage = local_stage.copy()
        moves = np.empty((max(1, min(max_iter, 10 * len(situations) + 100)), 3), dtype=np.int64)
        unmoved_ll, *r_parts = _scoring_parts(model, i, row_sit, row_stage, var_lls)
        n_moves, df = move_situations(
            counts, distinct_rows(counts, bitwise=True)[0], local_stage,
            np.arange(len(ids), dtype=np.int64), len(ids), model.lambda_ or 0.0, unmoved_ll,
            now, float(model.ll.df), penalty, min(max_iter, len(moves)), moves, *r_parts, i,
        )
        if n_moves:  # else R keeps the model, stored probabilities included
            final_stage, local_label, log = _replay_moves(model, i, ids, start_stage,
                                                          moves[:n_moves], ignore)
            _set_situation_labels(model, i, situations, final_stage, local_label)
            var_lls[i] = variable_loglik_of(model, i)
            model.ll = compute_loglik(model, var_lls)
            now = score_fn(model)
            if trace > 1:
                for situation, from_label, to_label in log:
                    _trace_move(model.variables[i], situations[situation], from_label, to_label)
        # R counts the last pass, which moves nothing, unless max_iter stops it first
        _trace_hc_variable_done(trace, model.variables[i], min(n_moves + 1, max_iter))
    if trace > 0:
        print("HC done")
    return model


def _trace_move(var, situation, from_label, to_label):
    """R's ``trace = 2`` line for a move (R numbers situations from 1)."""
    print(f"{var}: moved {situation + 1} from stage {from_label} to stage {to_label}.")


def _trace_hc_variable_done(trace, var, iterations):
    if trace > 0:
        print(f"HC over {var} done after {iterations} iterations.")


def _scoring_parts(model, i, row_sit, row_stage, var_lls):
    """What the hill-climbing kernel scores moves of the movable situations
    of variable ``i`` with, as R scores a move (``row_sit`` and
    ``row_stage`` as :func:`_movable_situations` gives them).

    Returns the log-likelihood no such move changes (the other variables
    with their stored probabilities, and the other stages of ``i``
    refitted; not the stored log-likelihood, which ``indep`` computes from
    each variable's own non-missing values), then, for R's arithmetic on
    ties: the table rows of ``i`` in order, each row's index among
    ``situations`` (-1 if fixed), each row's refitted probabilities, and
    every variable's log-likelihood (``var_lls``, the caller's, as
    :func:`variable_loglik_of` gives them).
    """
    prob, _ = refitted_stage_prob(model, i, row_stage)
    counts = np.ascontiguousarray(model.situation_counts(i), dtype=np.float64)
    row_prob = np.ascontiguousarray(prob[row_stage], dtype=np.float64)
    fixed = row_sit < 0
    fixed_ll = variable_loglik(np.ascontiguousarray(counts[fixed]),
                               np.ascontiguousarray(prob, dtype=np.float64),
                               np.ascontiguousarray(row_stage[fixed]))
    unmoved = float(sum(ll for j, ll in enumerate(var_lls) if j != i)) + fixed_ll
    return unmoved, counts, row_sit, row_prob, var_lls


def _stages_hc_generic(model, positions, ignore, score, max_iter, trace):
    """stages_hc with any score callable: every candidate is refitted and rescored."""
    now = score(model)
    for i in positions:
        iterations = 0
        while iterations < max_iter:
            iterations += 1
            labels = model.stage_labels(i)
            order = [int(s) for s in model.stage_vector(i).first_appearance()]
            newname = new_label([labels[s] for s in order] + list(ignore))
            free = [s for s in order if labels[s] not in ignore]
            mask = np.zeros(len(labels), dtype=bool)
            mask[free] = True
            situations, stage = _movable_situations(model, i, mask)[:2]
            best, best_score, move = None, now, None
            for s1 in free:
                for situation in situations[stage == s1]:
                    for target in [labels[s] for s in free if s != s1] + [newname]:
                        candidate = model.copy()
                        _set_situation_labels(candidate, i, np.array([situation]),
                                              np.zeros(1, dtype=np.int64), [target])
                        candidate.ll = compute_loglik(candidate)
                        value = score(candidate)
                        if value > best_score:
                            best, best_score = candidate, value
                            move = (situation, labels[s1], target)
            if best is None:
                break
            if trace > 1:
                _trace_move(model.variables[i], *move)
            model = best
            now = best_score
        _trace_hc_variable_done(trace, model.variables[i], iterations)
    if trace > 0:
        print("HC done")
    return model


def stages_bhcr(object: Sevt, score: str | Callable[[Sevt], float] | None = None,
                max_iter: int = 100, trace: int = 0, seed: Seed = None,
                rng: Rng = "numpy") -> Sevt:
    """Random backward hill climbing (R: ``stages_bhcr``).

    ``max_iter`` times: draw a variable (not the root) and two of its stages
    at random, and join them (keeping the first drawn name) if the score
    does not fall.  As in R, every stage can be drawn, the unobserved ones
    included.

    Parameters
    ----------
    object : Sevt
        A fitted model.
    score : None, "bic", "aic" or callable
    max_iter : int, default 100
        The number of random pairs tried; it has no "no limit" value, as
        the search never stops on its own.
    trace : int, default 0
    seed : int or numpy.random.Generator, optional
    rng : {"numpy", "R", "R-rounding"} or a random source in use, default "numpy"
        The generator (see :mod:`pystagedtrees.rng`): "R" draws as R does
        after ``set.seed(seed)``.

    Returns
    -------
    Sevt

    Examples
    --------
    >>> import pystagedtrees as st
    >>> start = st.full(st.datasets.titanic_table(), lambda_=1)
    >>> model = st.stages_bhcr(start, seed=3)
    >>> st.BIC(model) <= st.BIC(start)
    True
    """
    model, _, _ = prepare(object, None, [])
    _, score_fn = resolve_score(score)
    # every iteration draws a pair, so there is no "until nothing improves": a count
    max_iter = check_int(max_iter, "max_iter")
    trace = check_trace(trace)
    source = resolve_source(seed, rng)
    now = score_fn(model)
    for _ in range(max_iter):
        i = 1 + int(source.sample_int(len(model.variables) - 1, 1)[0])
        order = [int(s) for s in model.stage_vector(i).first_appearance()]
        if len(order) < 2:
            continue
        a, b = (int(j) for j in source.sample_int(len(order), 2))
        candidate = model.copy()
        join_stage_ids(candidate, i, order[a], order[b])
        value = score_fn(candidate)
        if value >= now:
            if trace > 1:  # the drawn stages' names, as R prints them
                labels = model.stage_labels(i)
                print(f"{model.variables[i]}: joined stages {labels[order[a]]} and "
                      f"{labels[order[b]]}")
            model, now = candidate, value
    if trace > 0:
        print(f"backward HC random done after {max_iter} iteration")  # R's words
    model.score = {"value": now, "f": score_fn}
    return model


def stages_csbhc(object: Sevt, score: str | Callable[[Sevt], float] | None = None,
                 max_iter: int | None = None, scope: Sequence[str] | None = None,
                 ignore: Sequence[str] | None = None) -> Sevt:
    """Context-specific backward hill climbing (R: ``stages_csbhc``).

    For each variable, and each of its predecessors (nearest first), the
    stage vector is laid out as a matrix with one row per level of that
    predecessor; the stages of each distinct column (situations that differ
    only in that predecessor) are joined together as one candidate.  The
    best strictly improving candidate is kept, until none improves.

    Parameters
    ----------
    object : Sevt
        A fitted model.
    score : None, "bic", "aic" or callable, default None
        The score to maximise; None means ``-BIC`` (see :func:`stages_bhc`).
    max_iter : int, optional
        At most this many joins per variable (default: no limit).
    scope : list of str, optional
        Variables to learn (default: all but the root).
    ignore : list of str, optional
        Stages never joined (default: the unobserved stage names).

    Returns
    -------
    Sevt

    Examples
    --------
    >>> import pystagedtrees as st
    >>> start = st.full(st.datasets.titanic_table(), lambda_=1)
    >>> st.BIC(st.stages_csbhc(start)) <= st.BIC(start)
    True
    """
    model, positions, ignore = prepare(object, scope, ignore)
    kind, score_fn = resolve_score(score)
    max_iter = check_max_iter(max_iter)
    now = score_fn(model)
    for i in positions:
        iterations = 0
        while iterations < max_iter:
            iterations += 1
            best, best_score = None, now
            for group in _context_groups(model, i, ignore):
                if kind is None:
                    value = score_fn(_joined_group(model, i, group))
                else:
                    value = _joined_group_score(model, i, group, kind)
                if value > best_score:
                    best, best_score = group, value
            if best is None:
                break
            model, now = _joined_group(model, i, best), best_score
    model.score = {"value": now, "f": score_fn}
    return model


def _joined_group(model, i, group):
    """A copy of ``model`` with the stages ``group`` of variable ``i`` joined into the first."""
    candidate = model.copy(only=i)
    labels = model.stage_labels(i)
    for other in group[1:]:
        join_stage_ids(candidate, i, candidate.stage_labels(i).index(labels[group[0]]),
                       candidate.stage_labels(i).index(labels[other]))
    return candidate


def _joined_group_score(model, i, group, kind):
    """The BIC/AIC score of :func:`_joined_group`, from the same arithmetic, without the copy."""
    lam, k = model.lambda_ or 0.0, int(model.n_levels[i])
    prob, n = model.stage_probabilities(i), model.stage_sizes(i)
    p, size = prob[group[0]], n[group[0]]
    ll, df = float(model.ll), model.ll.df
    for other in group[1:]:
        p, dll, gain = join_probabilities(p, size, prob[other], n[other], lam)
        size = joined_size(size, n[other])
        ll, df = (ll - dll) + gain, df - (k - 1)
    return -(-2.0 * ll + penalty_per_parameter(kind, model.ll.nobs) * df)


def _context_groups(model, i, ignore):
    """Stage groups tried by R's stages_csbhc for variable ``i``, in R's order.

    Each group lists distinct non-ignored stage ids (first one kept).
    """
    labels = model.stage_labels(i)
    stages = model.stage_vector(i).dense(f"stage vector of {model.variables[i]!r}")
    if len([s for s in np.unique(stages) if labels[s] not in ignore]) < 2:
        return
    current = stages
    for j in range(i - 1, -1, -1):
        k_j = int(model.n_levels[j])
        mat = current.reshape(-1, k_j).T  # R's matrix(sss, nrow = k_j), column-major
        if all(np.array_equal(mat[0], row) for row in mat[1:]):
            mat = mat[:1]
        if mat.shape[0] > 1:
            _, first = np.unique(mat.T, axis=0, return_index=True)
            for column in mat.T[np.sort(first)]:
                group = [int(s) for s in dict.fromkeys(column.tolist()) if labels[s] not in ignore]
                if len(set(column.tolist())) > 1 and len(group) > 1:
                    yield group
        current = mat.ravel()  # R's c(t(mat)): this predecessor now varies slowest


def _join_positions_ids(model, i, keep, drop):
    from pystagedtrees.graphs._ceg import join_positions

    labels = model.stage_labels(i)
    return join_positions(model, model.variables[i], labels[keep], labels[drop])


def stages_simplebhc(object: Sevt, score: str | Callable[[Sevt], float] | None = None,
                     scope: Sequence[str] | None = None, max_iter: int | None = None,
                     ignore: Sequence[str] | None = None) -> Sevt:
    """Backward hill climbing over simple staged trees (R: ``stages_simplebhc``).

    As :func:`stages_bhc`, but each candidate joins two stages with
    :func:`~pystagedtrees.join_positions`, which also rebuilds the
    stages of the later variables so that the tree stays *simple* (stages
    equal positions).  Every candidate is refitted and rescored, as in R.

    Returns
    -------
    Sevt

    Examples
    --------
    >>> import pystagedtrees as st
    >>> start = st.full(st.datasets.titanic_table(), lambda_=1)
    >>> st.BIC(st.stages_simplebhc(start)) <= st.BIC(start)
    True
    """
    model, positions, ignore = prepare(object, scope, ignore)
    _, score_fn = resolve_score(score)
    model, value = _backward_join_generic(model, positions, ignore, score_fn,
                                          check_max_iter(max_iter), False, 0,
                                          join=_join_positions_ids)
    model.score = {"value": value, "f": score_fn}
    return model


MEMORY_STEPS.update({
    stages_bhc: pair_table_steps("stages_bhc", 2),  # the joins' log-likelihood changes and gains
    stages_fbhc: pair_table_steps("stages_fbhc", 2),
    stages_bj: _bj_steps,
    stages_hc: _hc_steps,
})
STAGE_BYTES.update({
    stages_bhc: pair_tables_bytes(2),
    stages_fbhc: pair_tables_bytes(2),
    stages_bj: _bj_bytes,
    stages_hc: lambda m, k: _hc_bytes(m, m, k),
})
