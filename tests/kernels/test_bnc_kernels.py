"""The Bayesian network classifiers' kernels against NumPy twins and R replays.

Twins: ``_bnc_counts`` (``family_counts``, ``entropy_ml``, ``col_means``) and
``_bnc_infer`` (``log_joint``, ``pool_sum``, ``pool_delta``, ``max_col``,
``max_col_ties``, ``exp_rows``, ``family_index_counts``, ``gather_by_fold``,
``map_hits``).
"""
import math

import numpy as np
from hypothesis import given
from hypothesis import strategies as hst
from r_replay import r_sum

from pystagedtrees.kernels._bnc_counts import col_means, entropy_ml, family_counts
from pystagedtrees.kernels._bnc_infer import (
    exp_rows,
    family_index_counts,
    gather_by_fold,
    log_joint,
    map_hits,
    max_col,
    max_col_ties,
    pool_delta,
    pool_sum,
)

seeds = hst.integers(0, 2**32 - 1)
RELTOL = 1e-5  # R's max.col tolerance


def _codes(rng, n, dims, missing=0.1):
    codes = np.column_stack([rng.integers(0, d, size=n) for d in dims]).astype(np.int32)
    codes[rng.random(codes.shape) < missing] = -1
    return np.ascontiguousarray(codes.reshape(n, len(dims)))


@given(seeds, hst.integers(0, 40), hst.lists(hst.integers(1, 4), min_size=1, max_size=4),
       hst.booleans())
def test_family_counts_tabulate_the_complete_rows(seed, n, dims, weighted):
    rng = np.random.default_rng(seed)
    codes = _codes(rng, n, dims)
    cols = rng.permutation(len(dims))[:rng.integers(1, len(dims) + 1)].astype(np.int64)
    weights = rng.random(n) if weighted else None
    got = family_counts(codes, cols, np.array(dims, dtype=np.int64)[cols], weights)
    want = np.zeros([dims[c] for c in cols])
    for r in range(n):
        values = codes[r, cols]
        if (values >= 0).all():
            want[tuple(values)] += weights[r] if weighted else 1.0
    np.testing.assert_array_equal(got, want.ravel())


@given(hst.lists(hst.integers(0, 50).map(float), min_size=1, max_size=12))
def test_entropy_ml_is_r_entropy(counts):
    # entropy(y, method = "ML"): freqs = y / sum(y); freqs / sum(freqs); -sum(f log f)
    with np.errstate(invalid="ignore"):  # an all-zero table: 0 / 0, NaN as in R
        total = r_sum(counts)
        freqs = [np.float64(c) / total for c in counts]
        total2 = r_sum(freqs)
        freqs = [f / total2 for f in freqs]
    want = -r_sum([f * math.log(f) for f in freqs if f > 0])
    got = entropy_ml(np.array(counts))
    assert got == want or (math.isnan(got) and math.isnan(want))


@given(seeds, hst.integers(1, 12), hst.integers(0, 4))
def test_col_means_is_r_colmeans(seed, n, m):
    rng = np.random.default_rng(seed)
    values = rng.random((n, m)) * 10.0 ** rng.integers(-3, 4)
    want = [float(sum((np.longdouble(v) for v in values[:, j]), np.longdouble(0)) / n)
            for j in range(m)]
    np.testing.assert_array_equal(col_means(values), want)
    np.testing.assert_array_equal(col_means(np.asfortranarray(values)), want)


def _families(rng, dims, n_class):
    """Families (columns, C-order strides incl. the class) and their log-CPTs, one array."""
    fam_cols, fam_strides, fam_ptr, offsets, cpts = [], [], [0], [], []
    for _ in range(rng.integers(0, 4)):
        cols = rng.permutation(len(dims))[:rng.integers(1, len(dims) + 1)]
        shape = [dims[c] for c in cols] + [n_class]
        strides = [int(np.prod(shape[i + 1:])) for i in range(len(cols))]
        fam_cols += cols.tolist()
        fam_strides += strides
        fam_ptr.append(len(fam_cols))
        offsets.append(sum(c.size for c in cpts))
        cpts.append(np.log(rng.dirichlet(np.ones(n_class), size=int(np.prod(shape[:-1])))))
    as_index = lambda x: np.array(x, dtype=np.int64)  # noqa: E731
    flat = np.concatenate([c.ravel() for c in cpts]) if cpts else np.empty(0)
    return (as_index(fam_ptr), as_index(fam_cols), as_index(fam_strides), as_index(offsets),
            flat, cpts)


@given(seeds, hst.integers(0, 15), hst.lists(hst.integers(1, 3), min_size=1, max_size=3),
       hst.integers(1, 3))
def test_log_joint_adds_the_families_in_order(seed, n, dims, n_class):
    rng = np.random.default_rng(seed)
    codes = _codes(rng, n, dims, missing=0.0)
    ptr, cols, strides, offsets, flat, cpts = _families(rng, dims, n_class)
    prior = np.log(rng.dirichlet(np.ones(n_class)))
    out = np.empty((n, n_class))
    log_joint(codes, ptr, cols, strides, offsets, flat, prior, out)
    want = np.tile(prior, (n, 1))
    for f, cpt in enumerate(cpts):
        family = cols[ptr[f]:ptr[f + 1]]
        want = want + cpt.reshape(-1, n_class)[
            np.ravel_multi_index(codes[:, family].T, [dims[c] for c in family])
            if len(family) and n else np.zeros(n, dtype=int)]
    np.testing.assert_array_equal(out, want)


@given(seeds, hst.integers(0, 6), hst.integers(1, 3), hst.integers(1, 6))
def test_pool_sums_and_deltas_add_slots_in_order(seed, n, n_class, n_slots):
    rng = np.random.default_rng(seed)
    pool = rng.normal(size=(n_slots, n, n_class))
    slots = rng.integers(0, n_slots, size=rng.integers(1, 5)).astype(np.int64)
    out = np.empty((n, n_class))
    pool_sum(pool, slots, out)
    want = pool[slots[0]].copy()
    for s in slots[1:]:
        want = want + pool[s]
    np.testing.assert_array_equal(out, want)

    minus = rng.integers(0, n_slots, size=rng.integers(0, 3)).astype(np.int64)
    plus = rng.integers(0, n_slots, size=rng.integers(0, 3)).astype(np.int64)
    pool_delta(pool, want, minus, plus, out)
    for s in minus:
        want = want - pool[s]
    for s in plus:
        want = want + pool[s]
    np.testing.assert_array_equal(out, want)


def r_max_col(row, uniforms=None):
    """R's ``max.col(ties.method = "random")`` on one row (its C loop): the
    column, the uniforms it draws; -2 for a row with NaN."""
    if any(math.isnan(v) for v in row):
        return -2, 0
    large = max([abs(v) for v in row if math.isfinite(v)], default=0.0)
    tol = RELTOL * large
    best, top, ties, draws = 0, row[0], 1, 0
    for c in range(1, len(row)):
        if row[c] > top + tol:
            best, top, ties = c, row[c], 1
        elif row[c] >= top - tol:
            ties += 1
            if uniforms is not None and draws < len(uniforms) and ties * uniforms[draws] < 1.0:
                best = c
            draws += 1
    return best, draws


def _scores(rng, n, m):
    """Rows of scores with exact and near ties."""
    x = rng.random((n, m))
    tied = rng.random((n, m)) < 0.3
    x[tied] = x[:, :1].repeat(m, axis=1)[tied] * (1 + rng.choice([0, 1e-7, 1e-4], size=tied.sum()))
    x[rng.random(n) < 0.05, 0] = np.nan
    return x


@given(seeds, hst.integers(0, 12), hst.integers(1, 4))
def test_max_col_and_its_ties_are_r_max_col(seed, n, m):
    rng = np.random.default_rng(seed)
    x = _scores(rng, n, m)
    pred, events = np.empty(n, dtype=np.int32), np.empty(n, dtype=np.int64)
    max_col(x, pred, events)
    want = [r_max_col(row) for row in x]
    assert events.tolist() == [d for _, d in want]
    settled = events == 0
    assert pred[settled].tolist() == [b for b, d in want if d == 0]

    rows = np.flatnonzero(~settled).astype(np.int64)
    u = rng.random(int(events.sum()))
    max_col_ties(x, rows, u, pred)
    used = 0
    for r in rows:
        assert pred[r] == r_max_col(x[r], u[used:used + events[r]])[0]
        used += events[r]


@given(seeds, hst.integers(0, 6), hst.integers(0, 4))
def test_exp_rows_is_the_c_exp(seed, n, m):
    x = np.random.default_rng(seed).normal(scale=50, size=(n, m))
    out = np.empty_like(x)
    exp_rows(x, out)
    assert out.tolist() == [[math.exp(v) for v in row] for row in x]


@given(seeds, hst.integers(0, 20), hst.lists(hst.integers(1, 3), min_size=1, max_size=3),
       hst.integers(1, 3), hst.integers(1, 3))
def test_family_index_counts_and_gather_by_fold(seed, n, dims, n_class, n_folds):
    rng = np.random.default_rng(seed)
    codes = _codes(rng, n, dims)
    cols = rng.permutation(len(dims))[:rng.integers(1, len(dims) + 1)].astype(np.int64)
    truth = rng.integers(0, n_class, size=n).astype(np.int32)
    fold = rng.integers(0, n_folds, size=n).astype(np.int64)
    weight = rng.random(n)
    size = int(np.prod([dims[c] for c in cols])) * n_class
    index, counts = np.empty(n, dtype=np.int64), np.zeros((n_folds, size))
    family_index_counts(codes, cols, np.array(dims, dtype=np.int64)[cols], truth, fold, weight,
                        index, counts)
    want_counts = np.zeros((n_folds, size))
    for r in range(n):
        values = codes[r, cols]
        flat = -1 if (values < 0).any() else int(
            np.ravel_multi_index(values, [dims[c] for c in cols]))
        assert index[r] == flat
        if flat >= 0:
            want_counts[fold[r], flat * n_class + truth[r]] += weight[r]
    np.testing.assert_array_equal(counts, want_counts)

    tables = rng.normal(size=(n_folds, size))
    out = np.empty((n, n_class))
    gather_by_fold(index, fold, tables, out)
    for r in range(n):
        want = tables[fold[r], index[r] * n_class:(index[r] + 1) * n_class] if index[r] >= 0 \
            else np.zeros(n_class)
        np.testing.assert_array_equal(out[r], want)


@given(seeds, hst.integers(0, 12), hst.integers(1, 4), hst.integers(1, 3))
def test_map_hits_is_r_max_col_on_the_exponentials(seed, n, m, n_folds):
    rng = np.random.default_rng(seed)
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.log(_scores(rng, n, m))
    truth = rng.integers(0, m, size=n).astype(np.int32)
    fold = rng.integers(0, n_folds, size=n).astype(np.int64)
    weight = rng.random(n)
    correct, events = np.zeros(n_folds), np.empty(n, dtype=np.int64)
    map_hits(logs, truth, fold, weight, correct, events)
    want_correct = np.zeros(n_folds)
    for r in range(n):
        best, draws = r_max_col([math.exp(v) for v in logs[r]])
        assert events[r] == draws
        if draws == 0 and best == truth[r]:
            want_correct[fold[r]] += weight[r]
    np.testing.assert_array_equal(correct, want_correct)
