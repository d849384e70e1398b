"""The learners' kernels against literal replays of R stagedtrees' loops.

Twins: ``_stage_scores`` (``rsum``, ``variable_loglik``, ``join_probabilities``,
``max_levels``), ``_bhc.backward_join`` (R's ``stages_bhc`` / ``stages_fbhc``),
``_bj.backward_join_distance`` (R's ``stages_bj``), ``_rdist.r_dist`` (R's
``dist``).
"""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hst
from r_replay import r_join, r_probdist, r_score, r_sum, r_variable_loglik

from pystagedtrees.kernels._bhc import backward_join, settle_joins
from pystagedtrees.kernels._bj import DISTANCE_CODES, backward_join_distance
from pystagedtrees.kernels._rdist import R_DIST_CODES, r_dist
from pystagedtrees.kernels._stage_scores import (
    join_probabilities,
    max_levels,
    rsum,
    variable_loglik,
)

seeds = hst.integers(0, 2**32 - 1)


def _fitted_stages(rng, m, k, lam, ties):
    """Probabilities and sample sizes of ``m`` stages fitted from random counts
    (with ``ties``, stages repeat: R's tie rules decide)."""
    pool = rng.integers(0, 6, size=(max(1, m // 2) if ties else m, k)).astype(float)
    counts = pool[rng.integers(0, len(pool), size=m)] if ties else pool
    n = counts.sum(axis=1)
    with np.errstate(invalid="ignore"):
        prob = (counts + lam) / (n + lam * k)[:, None]
    return np.ascontiguousarray(prob), n.astype(float)


@given(hst.lists(hst.floats(-1e6, 1e6), max_size=30))
def test_rsum_is_r_sum(values):
    assert rsum(np.array(values, dtype=float)) == r_sum(values)


@given(seeds, hst.integers(1, 40), hst.integers(1, 4), hst.booleans())
def test_variable_loglik_sums_the_cells_column_by_column(seed, m, k, few_stages):
    rng = np.random.default_rng(seed)
    counts = rng.integers(0, 4, size=(m, k)).astype(float)
    # few stages (a learned model's: a log per stage cell) or about a row's each
    n_stages = int(rng.integers(1, 4)) if few_stages else m
    prob = rng.dirichlet(np.ones(k), size=n_stages)
    prob[rng.random((n_stages, k)) < 0.1] = 0.0
    prob[rng.random(n_stages) < 0.1] = np.nan
    stage = rng.integers(0, n_stages, size=m).astype(np.int32)  # situations sharing stages
    got = variable_loglik(counts, np.ascontiguousarray(prob), stage)
    want = r_variable_loglik(counts, prob[stage])
    assert got == want or (math.isnan(got) and math.isnan(want))
    stage[0] = n_stages  # no such stage: refused, not read past the table
    with pytest.raises(ValueError, match="stage ids"):
        variable_loglik(counts, np.ascontiguousarray(prob), stage)


@given(seeds, hst.integers(1, 6), hst.sampled_from([0.0, 0.5, 1.0]))
def test_join_probabilities_is_r_join_stages_unsafe(seed, k, lam):
    rng = np.random.default_rng(seed)
    prob, n = _fitted_stages(rng, 2, k, lam, ties=False)
    if rng.random() < 0.2:
        prob[1] = np.nan
        n[1] = np.nan
    new_p, dll, gain = join_probabilities(prob[0], n[0], prob[1], n[1], lam)
    want_p, want_dll, want_gain = r_join(prob[0], n[0], prob[1], n[1], lam)
    np.testing.assert_array_equal(new_p, want_p)
    assert (dll, gain) == (want_dll, want_gain)


def test_join_probabilities_refuses_too_many_levels():
    k = max_levels() + 1
    with pytest.raises(ValueError, match="levels"):
        join_probabilities(np.full(k, 1 / k), 1.0, np.full(k, 1 / k), 1.0, 0.0)


def r_backward_hill_climbing(prob, n, rank, lam, ll, df, penalty, max_iter, first_improvement):
    """R's ``stages_bhc`` (or ``stages_fbhc``) over one variable, join by join."""
    prob, n, rank = [row.copy() for row in prob], list(n), list(rank)
    live = list(range(len(prob)))
    k = len(prob[0])
    now_score = r_score(ll, df, penalty)
    merges, it = [], 0
    while it < max_iter:
        it += 1
        stages = sorted(live, key=lambda s: rank[s])  # R's unique() order
        chosen = None
        temp_score = now_score
        for i in range(1, len(stages)):
            for j in range(i):
                s1, s2 = stages[i], stages[j]
                new_p, dll, gain = r_join(prob[s1], n[s1], prob[s2], n[s2], lam)
                try_ll = (ll - dll) + gain
                try_score = r_score(try_ll, df - k + 1, penalty)
                if try_score >= temp_score:
                    chosen, temp_score = (s1, s2, new_p, try_ll), try_score
                    if first_improvement:
                        break
            if first_improvement and chosen is not None:
                break
        if chosen is None:
            break
        s1, s2, new_p, ll = chosen
        prob[s1], n[s1], rank[s1] = new_p, n[s1] + n[s2], rank[s2]
        live.remove(s2)
        df = df - k + 1
        now_score = temp_score
        merges.append((s1, s2))
    return merges, ll, df, rank


@settings(max_examples=60, deadline=None)
@given(seeds, hst.integers(1, 24), hst.integers(2, 4), hst.sampled_from([0.0, 1.0]),
       hst.booleans(), hst.booleans(), hst.integers(1, 30))
def test_backward_join_is_r_stages_bhc_and_fbhc(seed, m, k, lam, ties, first_improvement,
                                                max_iter):
    rng = np.random.default_rng(seed)
    prob, n = _fitted_stages(rng, m, k, lam, ties)
    rank = rng.permutation(m).astype(np.int64)  # R's unique() order of the stages
    ll = variable_ll = r_sum([r_sum([c * math.log(p) for c, p in zip(prob[s] * (n[s] + lam * k)
                                                                      - lam, prob[s]) if c > 0])
                              for s in range(m)])
    df, penalty = float(m * (k - 1)), math.log(50.0)
    _, classes = np.unique(np.column_stack([prob, n]), axis=0, return_inverse=True)
    want = r_backward_hill_climbing(prob, n, rank, lam, ll, df, penalty, max_iter,
                                    first_improvement)
    merges = np.empty((m, 2), dtype=np.int64)
    n_joins, got_ll, got_df = backward_join(prob, n, rank, classes.ravel(), lam, variable_ll, df,
                                            penalty, max_iter, first_improvement, merges)
    assert [tuple(row) for row in merges[:n_joins].tolist()] == want[0]
    assert (got_ll, got_df) == (want[1], want[2])


@settings(max_examples=3, deadline=None)
@given(seeds, hst.integers(66, 80), hst.booleans())
def test_backward_join_widens_its_tables_past_64_classes(seed, m, first_improvement):
    # the pair tables start at 64 classes and grow as classes appear
    test_backward_join_is_r_stages_bhc_and_fbhc.hypothesis.inner_test(
        seed, m, 3, 1.0, False, first_improvement, 10**6)


def r_backward_join_distance(prob, n, rank, lam, ll, df, distance, thr):
    """R's ``stages_bj`` over one variable: join the closest pair while closer than ``thr``."""
    prob, n = [row.copy() for row in prob], list(n)
    live = sorted(range(len(prob)), key=lambda s: rank[s])
    k = len(prob[0])
    merges = []
    while len(live) > 1:
        d = len(live)
        M = np.full((d, d), np.inf)
        for i in range(d):
            for j in range(i):  # R fills the lower triangle, the later stage first
                M[i, j] = M[j, i] = r_probdist(distance, prob[live[i]], prob[live[j]])
        flat = M.ravel(order="F")  # which.min: the first minimum, column-major, NaN skipped
        finite = [v for v in flat if not math.isnan(v)]
        if not finite:
            break
        idx = next(x for x, v in enumerate(flat) if v == min(finite))
        col, row = divmod(idx, d)
        if not abs(M[row, col]) < thr:
            break
        s1, s2 = live[col], live[row]
        new_p, dll, gain = r_join(prob[s1], n[s1], prob[s2], n[s2], lam)
        prob[s1], n[s1] = new_p, n[s1] + n[s2]
        ll = (ll - dll) + gain
        df = df - k + 1
        live.remove(s2)
        merges.append((s1, s2))
    return merges, ll, df


def _byte_classes(prob):
    """A number per row of ``prob``, equal for rows equal bit for bit (numpy's
    sorted numbering of the rows as bytes; the kernel takes any)."""
    as_bytes = np.ascontiguousarray(prob).view(np.dtype((np.void, 8 * prob.shape[1]))).ravel()
    return np.unique(as_bytes, return_inverse=True)[1].reshape(-1).astype(np.int64)


@settings(max_examples=80, deadline=None)
@given(seeds, hst.integers(1, 9), hst.integers(2, 4), hst.sampled_from([0.0, 1.0]),
       hst.booleans(), hst.sampled_from(sorted(DISTANCE_CODES)), hst.sampled_from([0.05, 0.3, 2.0]))
def test_backward_join_distance_is_r_stages_bj(seed, m, k, lam, ties, distance, thr):
    rng = np.random.default_rng(seed)
    prob, n = _fitted_stages(rng, m, k, lam, ties)
    rank = rng.permutation(m).astype(np.int64)
    want = r_backward_join_distance(prob, n, rank, lam, -10.0, float(m * (k - 1)), distance, thr)
    merges = np.empty((m, 2), dtype=np.int64)
    with np.errstate(all="ignore"):
        n_joins, ll, df = backward_join_distance(prob, n, _byte_classes(prob), rank, lam, -10.0,
                                                 float(m * (k - 1)), distance, thr, merges)
    assert [tuple(row) for row in merges[:n_joins].tolist()] == want[0]
    assert (ll, df) == (want[1], want[2])


@settings(max_examples=15, deadline=None)
@given(seeds, hst.integers(17, 48), hst.integers(2, 3), hst.integers(1, 4),
       hst.sampled_from(sorted(DISTANCE_CODES)), hst.sampled_from([0.05, 0.3, 2.0]))
def test_backward_join_distance_on_many_repeated_stages_is_r_stages_bj(seed, m, k, n_distinct,
                                                                      distance, thr):
    # more equal partners than a stage lists (16): the lists run out and are refilled
    rng = np.random.default_rng(seed)
    pool = rng.integers(0, 3, size=(n_distinct, k)).astype(float)
    counts = pool[rng.integers(0, n_distinct, size=m)]
    n = counts.sum(axis=1)
    prob = np.ascontiguousarray((counts + 1.0) / (n + k)[:, None])
    rank = rng.permutation(m).astype(np.int64)
    want = r_backward_join_distance(prob, n, rank, 1.0, -10.0, float(m * (k - 1)), distance, thr)
    merges = np.empty((m, 2), dtype=np.int64)
    with np.errstate(all="ignore"):
        n_joins, ll, df = backward_join_distance(prob, n, _byte_classes(prob), rank, 1.0, -10.0,
                                                 float(m * (k - 1)), distance, thr, merges)
    assert [tuple(row) for row in merges[:n_joins].tolist()] == want[0]
    assert (ll, df) == (want[1], want[2])


def r_stats_dist(x, method):
    """R's ``as.matrix(dist(x, method))`` (its C loop: column order, double sums)."""
    m, k = x.shape
    out = np.zeros((m, m))
    for i in range(m):
        for j in range(i):
            acc, used = 0.0, 0
            for a in range(k):
                dev = x[i, a] - x[j, a]
                if method in ("euclidean", "minkowski"):
                    acc += dev * dev
                elif method == "maximum":
                    acc = max(acc, abs(dev))
                elif method == "manhattan":
                    acc += abs(dev)
                else:  # canberra: coordinates where both are 0 are left out
                    total = abs(x[i, a] + x[j, a])
                    if total > 2.2250738585072014e-308 or abs(dev) > 2.2250738585072014e-308:
                        acc += abs(dev) / total
                        used += 1
            if method in ("euclidean", "minkowski"):
                acc = math.sqrt(acc)
            elif method == "canberra" and used == 0:
                acc = math.nan  # R: NA
            elif method == "canberra" and used != k:
                acc = acc / (used / k)
            out[i, j] = out[j, i] = acc
    return out


@given(seeds, hst.integers(1, 7), hst.integers(1, 4), hst.sampled_from(sorted(R_DIST_CODES)))
def test_r_dist_is_r_stats_dist(seed, m, k, method):
    rng = np.random.default_rng(seed)
    x = rng.dirichlet(np.ones(k), size=m)
    x[rng.random((m, k)) < 0.2] = 0.0
    out = np.empty((m, m))
    r_dist(x, method, out)
    np.testing.assert_array_equal(out, r_stats_dist(x, method))


@np.errstate(all="ignore")
def r_refit_score(row_counts, stage, lam, var_lls, var_pos, df, penalty):
    """R's score after ``sevt_fit``: each stage refitted from its rows (in
    order), the variable's log-likelihood summed level by level over the
    rows, then every variable's in order."""
    m, k = row_counts.shape
    prob = {}
    for r in range(m):
        acc = prob.setdefault(stage[r], [0.0] * k)
        for a in range(k):
            acc[a] += row_counts[r, a]
    for s, acc in prob.items():
        smoothed = [c + lam for c in acc]
        total = 0.0
        for c in smoothed:
            total += c
        prob[s] = [c / total for c in smoothed]
    ll = r_sum([math.log(prob[stage[r]][a]) * row_counts[r, a]
                for a in range(k) for r in range(m) if prob[stage[r]][a] > 0])
    lls = [ll if j == var_pos else v for j, v in enumerate(var_lls)]
    return r_score(r_sum(lls), df, penalty)


def r_stages_hc(row_counts, stage, lam, var_lls, var_pos, other_df, penalty, max_iter):
    """R's ``stages_hc`` over one variable whose situations are the table's rows."""
    stage, k = list(stage), row_counts.shape[1]

    def score(assignment):
        return r_refit_score(row_counts, assignment, lam, var_lls, var_pos,
                             other_df + len(set(assignment)) * (k - 1), penalty)

    now_score, moves, it = score(stage), [], 0
    new_stage = max(stage) + 1
    while it < max_iter:
        it += 1
        ustages = list(dict.fromkeys(stage))  # unique(), in order
        best, temp_score = None, now_score
        for s1 in ustages:
            for i in [i for i, s in enumerate(stage) if s == s1]:
                for s2 in [s for s in ustages if s != s1] + [new_stage]:
                    tried = stage.copy()
                    tried[i] = s2
                    try_score = score(tried)
                    if try_score > temp_score:
                        best, temp_score = (i, s2), try_score
        if best is None:
            break
        stage[best[0]] = best[1]
        now_score = temp_score
        moves.append((best[0], best[1], it))
        new_stage = min(set(range(len(stage) + 1)) - set(stage))  # the kernel's new id
    return moves, stage


@settings(max_examples=60, deadline=None)
@given(seeds, hst.integers(1, 8), hst.integers(2, 3), hst.sampled_from([0.0, 1.0]),
       hst.integers(1, 8), hst.booleans())
def test_move_situations_is_r_stages_hc(seed, n_sit, k, lam, max_iter, repeated):
    from pystagedtrees.kernels._hc import move_situations
    rng = np.random.default_rng(seed)
    counts = rng.integers(0, 5, size=(n_sit, k)).astype(float)
    if repeated:  # few distinct rows of counts (they share cached terms)
        counts = counts[rng.integers(0, min(2, n_sit), size=n_sit)]
    counts[rng.random(n_sit) < 0.2] = 0.0
    raw = rng.integers(0, n_sit, size=n_sit)
    stage = np.unique(raw, return_inverse=True)[1]  # ids by first appearance
    _, first = np.unique(raw, return_index=True)
    relabel = np.argsort(np.argsort(first))
    stage = relabel[stage].astype(np.int64)
    n_stages = int(stage.max()) + 1
    var_lls = np.array([-12.5, -1.0, -3.25])  # the middle one is replaced by the refit
    other_df, penalty = 4.0, math.log(30.0)
    df = other_df + n_stages * (k - 1)
    start = r_refit_score(counts, stage, lam, var_lls, 1, df, penalty)
    other_ll = r_sum([var_lls[0], var_lls[2]])
    want_moves, want_stage = r_stages_hc(counts, stage, lam, var_lls, 1, other_df, penalty,
                                         max_iter)
    sit_stage = stage.copy()
    moves = np.empty((max_iter, 3), dtype=np.int64)
    # any numbering of the distinct rows of counts: here numpy's sorted one
    sit_class = np.unique(counts, axis=0, return_inverse=True)[1].reshape(-1).astype(np.int64)
    n_moves, got_df = move_situations(
        counts, sit_class, sit_stage, np.arange(n_stages, dtype=np.int64), n_stages, lam,
        other_ll, start,
        df, penalty, max_iter, moves, counts, np.arange(n_sit, dtype=np.int64),
        np.zeros_like(counts), var_lls, 1)
    assert [tuple(row) for row in moves[:n_moves].tolist()] == want_moves
    assert sit_stage.tolist() == want_stage
    assert got_df == other_df + len(set(want_stage)) * (k - 1)


def _climb(counts, sit_class, stage, lam, max_iter, row_table_entries, shuffled_rows):
    """move_situations over situations whose table rows are given in a
    shuffled order (or not); its moves and final stages."""
    from pystagedtrees.kernels._hc import move_situations
    n_sit, k = counts.shape
    rng = np.random.default_rng(n_sit)
    row_sit = rng.permutation(n_sit) if shuffled_rows else np.arange(n_sit)
    row_counts = np.ascontiguousarray(counts[row_sit])
    n_stages = int(stage.max()) + 1
    var_lls = np.array([-120.5, -1.0, -30.25])
    penalty = math.log(5.0 * n_sit)
    df = 4.0 + n_stages * (k - 1)
    start = r_refit_score(row_counts, stage[row_sit], lam, var_lls, 1, df, penalty)
    sit_stage = stage.copy()
    moves = np.empty((max_iter, 3), dtype=np.int64)
    n_moves, got_df = move_situations(
        counts, sit_class, sit_stage, np.arange(n_stages, dtype=np.int64), n_stages, lam,
        r_sum([var_lls[0], var_lls[2]]), start, df, penalty, max_iter, moves, row_counts,
        row_sit.astype(np.int64), np.zeros_like(row_counts), var_lls, 1, row_table_entries)
    return moves[:n_moves].tolist(), sit_stage.tolist(), got_df


@settings(max_examples=40, deadline=None)
@given(seeds, hst.integers(2, 120), hst.integers(2, 3), hst.sampled_from([0.0, 0.5, 1.0]),
       hst.integers(1, 6), hst.booleans(), hst.booleans(), hst.booleans())
def test_move_situations_by_rows_is_by_situations(seed, n_sit, k, lam, n_distinct, fractional,
                                                   shuffled_rows, small_table):
    """Scoring each row of situations of equal counts once (and sharing R's
    refits among them) moves as scoring situation by situation: many
    situations of few distinct counts tie, in R's arithmetic too."""
    rng = np.random.default_rng(seed)
    distinct = rng.integers(0, 6, size=(n_distinct, k)).astype(float)
    if fractional:  # sums of counts no longer exact: no shared refits
        distinct = distinct * 0.1
    counts = distinct[rng.integers(0, n_distinct, size=n_sit)]
    counts[rng.random(n_sit) < 0.1] = 0.0
    sit_class = np.unique(counts, axis=0, return_inverse=True)[1].reshape(-1).astype(np.int64)
    stage = np.zeros(n_sit, dtype=np.int64)
    if rng.random() < 0.5:  # a few stages to start from, ids by first appearance
        raw = rng.integers(0, 3, size=n_sit)
        _, first, stage = np.unique(raw, return_index=True, return_inverse=True)
        stage = np.argsort(np.argsort(first))[stage].astype(np.int64)
    max_iter = 10 * n_sit + 10
    # a small table: rows past it are scored situation by situation
    by_rows = _climb(counts, sit_class, stage, lam, max_iter, 3 * n_sit if small_table else 1 << 22,
                     shuffled_rows)
    by_situations = _climb(counts, sit_class, stage, lam, max_iter, 0, shuffled_rows)
    assert by_rows == by_situations


@settings(max_examples=200, deadline=None)
@given(hst.integers(2, 40), hst.data())
def test_settle_joins_follows_every_join_to_the_stage_left(m, data):
    """settle_joins against replaying the joins one by one."""
    alive = list(range(m))
    merges = []
    for _ in range(data.draw(hst.integers(0, m - 1))):
        keep, drop = data.draw(hst.lists(hst.sampled_from(alive), min_size=2, max_size=2,
                                         unique=True))
        merges.append((keep, drop))
        alive.remove(drop)
    where = list(range(m))  # the stage each stage's rows are in now
    for keep, drop in merges:
        where = [keep if w == drop else w for w in where]
    keeper = np.arange(m)
    settle_joins(np.array(merges, dtype=np.int64).reshape(-1, 2), keeper)
    assert keeper.tolist() == where
    assert set(keeper.tolist()) == set(alive)
