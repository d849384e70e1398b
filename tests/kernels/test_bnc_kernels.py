"""The Bayesian network classifiers' kernels against NumPy twins and R replays.

Twins: ``_bnc_counts`` (``family_counts``, ``class_family_counts``, ``entropy_ml``, ``col_means``,
``fold_cpts``) and ``_bnc_infer`` (``log_joint``, ``max_col``, ``max_col_ties``, ``exp_rows``,
``map_hits``, ``fold_cells``, ``fold_family_counts``, ``fold_log_joint``, ``fold_hits``,
``fold_added_hits``, ``posteriors``).
"""
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as hst
from r_replay import r_sum

from pystagedtrees.bnc._params import cpt as bnc_cpt
from pystagedtrees.kernels._bnc_counts import (
    class_family_counts,
    col_means,
    entropy_ml,
    family_counts,
    fold_cpts,
)
from pystagedtrees.kernels._bnc_infer import (
    exp_rows,
    fold_added_hits,
    fold_cells,
    fold_family_counts,
    fold_hits,
    fold_log_joint,
    log_joint,
    map_hits,
    max_col,
    max_col_ties,
    posteriors,
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


@given(seeds, hst.integers(0, 40), hst.lists(hst.integers(1, 4), min_size=1, max_size=5),
       hst.booleans())
def test_class_family_counts_stack_the_class_feature_and_pair_tables(seed, n, dims, weighted):
    rng = np.random.default_rng(seed)
    codes = _codes(rng, n, dims)
    codes[:, 0] = rng.integers(0, dims[0], size=n)  # the class is never missing
    weights = rng.random(n) if weighted else None
    got = class_family_counts(codes, np.array(dims, dtype=np.int64), weights)
    # each table by rows, class last, stacked in the documented order
    p = len(dims)
    families = [(0,)] + [(a, 0) for a in range(1, p)] + [
        (a, b, 0) for a in range(1, p) for b in range(a + 1, p)]
    tables = []
    for family in families:
        table = np.zeros([dims[v] for v in family])
        for r in range(n):
            values = codes[r, list(family)]
            if (values >= 0).all():
                table[tuple(values)] += weights[r] if weighted else 1.0
        tables.append(table.reshape(-1, dims[0]))
    np.testing.assert_array_equal(got, np.vstack(tables))


def test_class_family_counts_refuses_codes_past_the_tables():
    dims = np.array([2, 3], dtype=np.int64)
    good = np.array([[0, 2], [1, -1]], dtype=np.int32)
    assert class_family_counts(good, dims).sum() == 3  # class table 2, feature table 1
    for bad in ([[0, 3]], [[2, 0]], [[-1, 0]], [[0, -2]]):
        with pytest.raises(ValueError, match="codes must lie"):
            class_family_counts(np.array(bad, dtype=np.int32), dims)
    with pytest.raises(ValueError, match="weights needs one entry per row"):
        class_family_counts(good, dims, np.ones(3))


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


@given(seeds, hst.integers(1, 4), hst.lists(hst.integers(1, 3), min_size=1, max_size=4),
       hst.sampled_from([0.0, 0.5, 1.0, 0.1, 3.7]))
def test_fold_cpts_are_the_cpts_of_the_training_folds(seed, n_folds, dims, smooth):
    # bnc.cpt of the counts of every fold but one, the child the first axis
    rng = np.random.default_rng(seed)
    counts = rng.integers(0, 4, size=(n_folds, *dims)) * rng.choice([1.0, 0.37], size=dims)
    counts[:, rng.random(dims) < 0.3] = 0.0  # columns that sum to 0 without smoothing
    flat = np.ascontiguousarray(counts.reshape(n_folds, -1))
    out, logs, has_zero = np.empty_like(flat), np.empty_like(flat), np.empty(1, dtype=np.uint8)
    fold_cpts([flat], np.array([dims[0]], dtype=np.int64), smooth, [out], [logs], has_zero)
    want = bnc_cpt(counts.sum(axis=0) - counts, smooth, axis=1)
    np.testing.assert_array_equal(out, want.reshape(n_folds, -1))
    # the C library's log, as R's
    assert logs.ravel().tolist() == [math.log(v) if v > 0 else -math.inf for v in out.ravel()]
    assert has_zero[0] == (out == 0).any()


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


@given(seeds, hst.integers(0, 600), hst.lists(hst.integers(1, 3), min_size=1, max_size=3),
       hst.integers(1, 3), hst.booleans())
def test_log_joint_adds_the_families_in_order(seed, n, dims, n_class, normalise):
    # up to 600 rows: more than a block (256) of two-class rows, summed 8 at a time
    rng = np.random.default_rng(seed)
    codes = _codes(rng, n, dims, missing=0.0)
    ptr, cols, strides, offsets, flat, cpts = _families(rng, dims, n_class)
    prior = np.log(rng.dirichlet(np.ones(n_class)))
    out = np.empty((n, n_class))
    log_joint(np.ascontiguousarray(codes.T), ptr, cols, strides, offsets, flat, prior, out,
              normalise)
    want = np.tile(prior, (n, 1))
    for f, cpt in enumerate(cpts):
        family = cols[ptr[f]:ptr[f + 1]]
        want = want + cpt.reshape(-1, n_class)[
            np.ravel_multi_index(codes[:, family].T, [dims[c] for c in family])
            if len(family) and n else np.zeros(n, dtype=int)]
    np.testing.assert_array_equal(out, _numpy_posteriors(want) if normalise else want)


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


def _fold_families(rng, n_vars, dims, n_class, n_folds, n_fam):
    """Families over random columns: ``fam_ptr``, ``fam_cols``, ``fam_strides``
    (C order, the class last) and a random (folds, cells x classes) table each."""
    ptr, cols, strides, tables = [0], [], [], []
    for _ in range(n_fam):
        chosen = rng.permutation(n_vars)[:rng.integers(0, n_vars + 1)].tolist()
        shape = [dims[c] for c in chosen] + [n_class]
        cols += chosen
        strides += [int(np.prod(shape[i + 1:])) for i in range(len(chosen))]
        ptr.append(len(cols))
        tables.append(rng.normal(scale=5, size=(n_folds, int(np.prod(shape)))))
    as_index = lambda x: np.array(x, dtype=np.int64)  # noqa: E731
    return as_index(ptr), as_index(cols), as_index(strides), tables


def _entries(codes, fold, ptr, cols, strides, tables):
    """Where each row reads each family's flattened table (class 0), -1 if it
    misses a value of the family."""
    out = []
    for f, table in enumerate(tables):
        at = np.full(len(codes), -1, dtype=np.int32)
        for r in range(len(codes)):
            values = [int(codes[r, c]) for c in cols[ptr[f]:ptr[f + 1]]]
            if all(v >= 0 for v in values):
                at[r] = fold[r] * table.shape[1] + sum(
                    v * int(s) for v, s in zip(values, strides[ptr[f]:ptr[f + 1]]))
        out.append(at)
    return out


def _slow_log_joint(base, tables, entries, terms, adds, r, n_class):
    row = [float(base[r, c]) if base is not None else 0.0 for c in range(n_class)]
    for f, add in zip(terms, adds):
        at = entries[f][r]
        if at < 0:
            continue
        for c in range(n_class):
            value = float(tables[f].ravel()[at + c])
            row[c] = row[c] + value if add else row[c] - value
    return row


_fold_args = (seeds, hst.integers(0, 15), hst.lists(hst.integers(1, 3), min_size=1, max_size=3),
              hst.integers(1, 3), hst.integers(1, 3))


@given(seeds, hst.integers(0, 40), hst.lists(hst.integers(1, 3), min_size=0, max_size=4),
       hst.integers(1, 4), hst.booleans())
def test_fold_cells_number_equal_rows_of_a_fold_by_first_appearance(seed, n, dims, n_folds, wide):
    rng = np.random.default_rng(seed)
    codes = _codes(rng, n, dims, missing=0.2) if dims else np.zeros((n, 0), dtype=np.int32)
    levels = np.array(dims, dtype=np.int64)
    if wide:  # levels too many for a row in 64 bits (with 3 columns or more)
        codes = np.where(codes >= 0, codes * 2**28, codes).astype(np.int32)
        levels *= 2**28
    pooled = rng.integers(0, n, size=rng.integers(0, 2 * n + 1)) if n else np.zeros(0, np.int64)
    fold = np.sort(rng.integers(0, n_folds, size=len(pooled)))
    cell, first = np.empty((2, len(pooled)), dtype=np.int64)
    n_cells = fold_cells(codes, levels, pooled, fold, cell, first)
    seen = {}  # (fold, codes) -> cell, numbered as first met
    want = [seen.setdefault((int(f), tuple(codes[r].tolist())), len(seen))
            for r, f in zip(pooled.tolist(), fold)]
    assert n_cells == len(seen)
    np.testing.assert_array_equal(cell, want)
    np.testing.assert_array_equal(first[:n_cells], [want.index(c) for c in range(n_cells)])


@given(*_fold_args, hst.integers(0, 3))
def test_fold_family_counts_add_each_row_to_its_fold(seed, n, dims, n_class, n_folds, n_fam):
    rng = np.random.default_rng(seed)
    codes = _codes(rng, n, dims)
    truth = rng.integers(0, n_class, size=n).astype(np.int32)
    fold = rng.integers(0, n_folds, size=n).astype(np.int64)
    weight = rng.random(n)
    ptr, cols, strides, tables = _fold_families(rng, len(dims), dims, n_class, n_folds, n_fam)
    counts = [np.zeros_like(t) for t in tables]
    entries = [np.empty(n, dtype=np.int32) for _ in tables]
    fold_family_counts(np.ascontiguousarray(codes.T), truth, fold, weight, ptr, cols, strides,
                       counts, entries)
    want_entries = _entries(codes, fold, ptr, cols, strides, tables)
    for f in range(n_fam):
        np.testing.assert_array_equal(entries[f], want_entries[f])
        want = np.zeros(tables[f].size)
        for r in range(n):
            if want_entries[f][r] >= 0:
                want[want_entries[f][r] + truth[r]] += weight[r]
        np.testing.assert_array_equal(counts[f].ravel(), want)


@given(*_fold_args, hst.integers(0, 3), hst.booleans())
def test_fold_log_joint_applies_the_terms_in_order(seed, n, dims, n_class, n_folds, n_fam,
                                                   from_base):
    rng = np.random.default_rng(seed)
    codes = _codes(rng, n, dims)
    fold = rng.integers(0, n_folds, size=n).astype(np.int64)
    ptr, cols, strides, tables = _fold_families(rng, len(dims), dims, n_class, n_folds, n_fam)
    entries = _entries(codes, fold, ptr, cols, strides, tables)
    base = rng.normal(scale=20, size=(n, n_class)) if from_base else None
    terms = rng.integers(0, n_fam, size=rng.integers(0, 5) if n_fam else 0).astype(np.int64)
    adds = rng.integers(0, 2, size=len(terms)).astype(np.uint8)
    out = np.empty((n, n_class))
    fold_log_joint(base, tables, entries, terms, adds, out)
    for r in range(n):
        assert out[r].tolist() == _slow_log_joint(base, tables, entries, terms, adds, r, n_class)


@given(*_fold_args, hst.integers(1, 3), hst.integers(0, 6))
def test_fold_hits_are_map_hits_of_each_candidate(seed, n, dims, n_class, n_folds, n_fam,
                                                  n_cand):
    rng = np.random.default_rng(seed)
    codes = _codes(rng, n, dims)
    truth = rng.integers(0, n_class, size=n).astype(np.int32)
    fold = np.sort(rng.integers(0, n_folds, size=n)) if rng.random() < 0.5 \
        else rng.integers(0, n_folds, size=n)
    weight = rng.integers(1, 5, size=n)  # rows standing for that many
    ptr, cols, strides, tables = _fold_families(rng, len(dims), dims, n_class, n_folds, n_fam)
    entries = _entries(codes, fold, ptr, cols, strides, tables)
    # exact and near ties: some tables are equal across classes, or almost
    for t in tables:
        flat = t.reshape(-1, n_class)
        tied = rng.random(len(flat)) < 0.4
        flat[tied] = flat[tied, :1] * (1 + rng.choice([0, 1e-7, 1e-4], size=(tied.sum(), 1)))
    base = np.repeat(rng.normal(scale=20, size=(n, 1)), n_class, axis=1)
    # candidates often share all but their last term (and their start)
    prefixes = [(rng.integers(0, n_fam, size=rng.integers(0, 3)).tolist(),
                 rng.integers(0, 2, size=3).tolist(), int(rng.integers(0, 2))) for _ in range(2)]
    cands = []
    for _ in range(n_cand):
        terms, adds, start = prefixes[rng.integers(0, 2)]
        k = len(terms)
        if rng.random() < 0.8:
            terms, k = terms + [int(rng.integers(0, n_fam))], k + 1
        cands.append((terms, adds[:k] + [int(rng.integers(0, 2))] * (k - len(adds)), start))
    cand_ptr = np.cumsum([0] + [len(t) for t, _, _ in cands]).astype(np.int64)
    terms = np.array([f for t, _, _ in cands for f in t], dtype=np.int64)
    adds = np.array([a for _, a, _ in cands for a in a], dtype=np.uint8)
    from_base = np.array([b for _, _, b in cands], dtype=np.uint8)
    correct, events = np.zeros((n_cand, n_folds)), np.empty(n_cand, dtype=np.int64)
    fold_hits(truth, fold.astype(np.int64), weight, base, tables, entries, cand_ptr, terms, adds,
              from_base, correct, events)
    for j in range(n_cand):
        want_correct, want_events = np.zeros(n_folds), 0
        part = slice(cand_ptr[j], cand_ptr[j + 1])
        for r in range(n):
            row = _slow_log_joint(base if from_base[j] else None, tables, entries, terms[part],
                                  adds[part], r, n_class)
            best, draws = r_max_col([math.exp(v) for v in row])
            want_events += draws
            if draws == 0 and best == truth[r]:
                want_correct[fold[r]] += weight[r]
        assert events[j] == want_events
        np.testing.assert_array_equal(correct[j], want_correct)


@given(seeds, hst.integers(0, 15), hst.lists(hst.integers(1, 3), min_size=1, max_size=4),
       hst.integers(1, 3), hst.integers(1, 3), hst.integers(0, 5),
       hst.sampled_from([0.0, 0.5, 1.0, 3.7]))
def test_fold_added_hits_score_each_family_fitted_on_the_training_folds(
        seed, n, dims, n_class, n_folds, n_cand, smooth):
    # rows in groups of one fold and equal structure variables (a random
    # subset of the columns), each group with its base log-joint; a candidate
    # adds the log of bnc.cpt of its family's counts on every fold but the
    # row's own, decided as R's max.col on the exponentials
    rng = np.random.default_rng(seed)
    codes = _codes(rng, n, dims, missing=0.0)
    truth = rng.integers(0, n_class, size=n).astype(np.int32)
    fold = rng.integers(0, n_folds, size=n)
    weight = rng.integers(1, 5, size=n)
    in_dag = rng.permutation(len(dims))[:rng.integers(0, len(dims))].tolist()
    keys = {}
    group = np.array([keys.setdefault((int(fold[r]), *codes[r, in_dag].tolist()), len(keys))
                      for r in range(n)], dtype=np.int64)
    group_fold = np.array([k[0] for k in keys], dtype=np.int64)
    group_codes = np.array([k[1:] for k in keys], dtype=np.int32).reshape(len(keys), len(in_dag))
    # equal scores across classes now and then: ties to count
    base = np.repeat(rng.normal(scale=3, size=(len(keys), 1)), n_class, axis=1) \
        if rng.random() < 0.3 else rng.normal(scale=3, size=(len(keys), n_class))
    children = rng.integers(0, len(dims), size=n_cand)
    parents = [rng.permutation(len(in_dag))[:rng.integers(0, len(in_dag) + 1)].tolist()
               for _ in range(n_cand)]
    correct, events = np.full((n_cand, n_folds), np.nan), np.full(n_cand, -1, dtype=np.int64)
    fold_added_hits(group, np.ascontiguousarray(codes.T),
                    np.array([dims[v] for v in in_dag] + dims, dtype=np.int64), truth, weight,
                    group_fold, np.ascontiguousarray(group_codes.T), base,
                    children.astype(np.int64), np.cumsum([0] + [len(p) for p in parents]),
                    np.array([p for ps in parents for p in ps], dtype=np.int64), smooth,
                    correct, events)
    for j in range(n_cand):
        fam = [int(children[j])] + [in_dag[p] for p in parents[j]]
        counts = np.zeros((n_folds, *[dims[c] for c in fam], n_class))
        for r in range(n):
            counts[(fold[r], *codes[r, fam], truth[r])] += weight[r]
        cpts = bnc_cpt(counts.sum(axis=0) - counts, smooth, axis=1)
        want_correct, want_events = np.zeros(n_folds), 0
        for r in range(n):
            probs = cpts[(fold[r], *codes[r, fam])]
            row = [float(base[group[r], c]) + (math.log(p) if p > 0 else -math.inf)
                   for c, p in enumerate(probs)]
            best, draws = r_max_col([math.exp(v) for v in row])
            want_events += draws * weight[r]  # R draws for each of the rows a row stands for
            if draws == 0 and best == truth[r]:
                want_correct[fold[r]] += weight[r]
        assert events[j] == want_events
        np.testing.assert_array_equal(correct[j], want_correct)


def test_fold_added_hits_refuse_inconsistent_layouts():
    one = np.zeros(1, np.int64)
    args = [one, np.zeros((1, 1), np.int32), np.array([2], np.int64), np.zeros(1, np.int32),
            np.ones(1, np.int64), one, np.zeros((0, 1), np.int32), np.zeros((1, 2)), one,
            np.array([0, 0], np.int64), np.zeros(0, np.int64), 1.0, np.empty((1, 1)),
            np.empty(1, np.int64)]
    fold_added_hits(*args)  # consistent
    for at, bad, message in [(8, np.array([1], np.int64), "not among the 1 columns"),
                             (9, np.array([0, 1], np.int64), "delimit parents"),
                             (0, np.array([1], np.int64), "no row in base"),
                             (5, np.array([1], np.int64), "no column in correct")]:
        with pytest.raises(ValueError, match=message):
            fold_added_hits(*args[:at], bad, *args[at + 1:])


def _numpy_posteriors(lj):
    """The normalisation in numpy: exp of the distance to the row's maximum
    over its row sum; a row with a NaN, or all -inf, uniform."""
    n_class = lj.shape[1]
    with np.errstate(invalid="ignore"):
        e = np.exp(lj - lj.max(axis=1, keepdims=True))
        p = e / e.sum(axis=1, keepdims=True)
    p[np.isnan(p).any(axis=1)] = 1.0 / n_class
    return p


@given(seeds, hst.integers(0, 12), hst.sampled_from([1, 2, 3, 7, 8, 9, 20, 130]))
def test_posteriors_are_numpys_normalisation(seed, n, m):
    rng = np.random.default_rng(seed)
    lj = rng.normal(scale=30, size=(n, m)) - 50
    lj[rng.random((n, m)) < 0.1] = -np.inf
    lj[rng.random((n, m)) < 0.05] = np.nan
    tied = rng.random(n) < 0.2  # rows of equal scores
    lj[tied] = lj[tied, :1]
    out = np.empty_like(lj)
    posteriors(lj, out)
    np.testing.assert_array_equal(out, _numpy_posteriors(lj))


def test_fold_kernels_refuse_inconsistent_layouts():
    codes = np.zeros((2, 2), dtype=np.int32)
    fold, truth, weight = np.zeros(2, np.int64), np.zeros(2, np.int32), np.ones(2)
    one = np.array([0, 1], dtype=np.int64)
    out = np.empty((2, 2))
    table, entries = np.zeros((1, 4)), np.array([0, 2], dtype=np.int32)
    args = (np.array([0], np.int64), np.array([1], np.uint8))
    with pytest.raises(ValueError, match="names row 2"):
        fold_cells(codes, one, np.array([2], np.int64), fold[:1], fold[:1].copy(),
                   fold[:1].copy())
    with pytest.raises(ValueError, match="levels needs"):
        fold_cells(codes, one[:1], one, fold, fold.copy(), fold.copy())
    with pytest.raises(ValueError, match="below 0"):
        fold_cells(codes, one, one, -1 - fold, fold.copy(), fold.copy())
    with pytest.raises(ValueError, match="column 5"):
        fold_family_counts(codes, truth, fold, weight, one, np.array([5]), one[1:], [table],
                           [entries])
    with pytest.raises(ValueError, match="fam_ptr"):
        fold_family_counts(codes, truth, fold, weight, np.array([0, 2], np.int64), one[:1],
                           one[1:], [table], [entries])
    with pytest.raises(ValueError, match="reach outside"):
        fold_log_joint(None, [table], [np.array([0, 3], dtype=np.int32)], *args, out)
    with pytest.raises(ValueError, match="entries.0. has 1 rows"):
        fold_log_joint(None, [table], [entries[:1]], *args, out)
    with pytest.raises(ValueError, match="term 3"):
        fold_log_joint(None, [table], [entries], np.array([3], np.int64), args[1], out)
    with pytest.raises(ValueError, match="one entry per candidate"):
        fold_hits(truth, fold, np.ones(2, np.int64), out, [table], [entries], np.array([0, 1], np.int64),
                  *args, np.ones(2, np.uint8), np.zeros((1, 1)), np.zeros(1, np.int64))
    with pytest.raises(ValueError, match="fold 1 has no column"):
        fold_hits(truth, np.ones(2, np.int64), np.ones(2, np.int64), out, [table], [entries],
                  np.array([0, 1], np.int64), *args, np.ones(1, np.uint8), np.zeros((1, 1)),
                  np.zeros(1, np.int64))
