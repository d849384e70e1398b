"""Counting, tree-lookup, inference and sampling kernels against NumPy twins.

Twins: ``_counts`` (all eleven), ``_as_sevt`` (both), ``_infer`` (both),
``_random`` (``draw_levels``, ``StageJoiner``).
"""
import itertools
import math

import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as hst

from pystagedtrees.kernels._as_sevt import stages_by_parent_codes, stages_by_parent_config
from pystagedtrees.kernels._counts import (
    count_dense_unit_rows,
    count_dense_variable,
    count_in_path_order,
    first_positions,
    ids_by_first_appearance,
    map_ids,
    number_occupied_cells,
    occupied_situations,
    regroup_stages,
    smooth_rows,
    split_by_level,
    sum_rows_by_stage,
)
from pystagedtrees.kernels._infer import dense_summed_out_logprob
from pystagedtrees.kernels._random import StageJoiner, draw_levels

seeds = hst.integers(0, 2**32 - 1)


@given(seeds, hst.integers(0, 40), hst.integers(1, 5), hst.integers(1, 4))
def test_rows_counted_and_split_in_path_order(seed, n, n_groups, k):
    rng = np.random.default_rng(seed)
    group = np.sort(rng.integers(0, n_groups, size=n)).astype(np.int64)  # in path order
    row = rng.permutation(n).astype(np.int64)
    codes = rng.integers(-1, k, size=n).astype(np.int32)  # by original row
    weight = rng.random(n)  # in path order, as the rows
    out = np.zeros((n_groups, k))
    code_of = np.empty(n, dtype=np.int32)
    count_in_path_order(row, group, codes, weight, out, code_of)
    want = np.zeros((n_groups, k))
    for j in range(n):
        if codes[row[j]] >= 0:
            want[group[j], codes[row[j]]] += weight[j]
    np.testing.assert_array_equal(out, want)
    np.testing.assert_array_equal(code_of, codes[row])

    cell_id = np.cumsum(rng.integers(1, 3, size=n_groups * k)).astype(np.int64)  # increasing
    next_row, next_group, next_weight = np.empty(n, np.int64), np.empty(n, np.int64), np.empty(n)
    kept = split_by_level(row, group, weight, code_of, cell_id, k, np.empty(k, np.int64),
                          next_row, next_group, next_weight)
    # the rows with a level, sorted by (situation, level), ties in their order
    stay = [j for j in range(n) if code_of[j] >= 0]
    order = sorted(stay, key=lambda j: (group[j], code_of[j]))
    assert kept == len(order)
    np.testing.assert_array_equal(next_row[:kept], row[order])
    np.testing.assert_array_equal(next_weight[:kept], weight[order])
    np.testing.assert_array_equal(next_group[:kept], cell_id[group[order] * k + code_of[order]])


@given(seeds, hst.integers(0, 40), hst.integers(1, 5), hst.integers(1, 4))
def test_rows_counted_into_every_situation_and_moved_on(seed, n, m, k):
    rng = np.random.default_rng(seed)
    situation = rng.integers(-1, m, size=n).astype(np.int64)  # -1: left the tree before
    codes = rng.integers(-1, k, size=n).astype(np.int32)
    weight = rng.random(n)
    out = np.zeros((m, k))
    before = situation.copy()
    count_dense_variable(codes, weight, situation, out)
    want, moved = np.zeros((m, k)), np.full(n, -1, dtype=np.int64)
    for r in range(n):  # in row order, as the kernel adds
        if before[r] >= 0 and codes[r] >= 0:
            want[before[r], codes[r]] += weight[r]
            moved[r] = before[r] * k + codes[r]
    np.testing.assert_array_equal(out, want)
    np.testing.assert_array_equal(situation, moved)


@given(seeds, hst.integers(0, 40), hst.lists(hst.integers(1, 4), min_size=1, max_size=4))
def test_unit_rows_counted_into_every_situation_of_every_variable(seed, n, n_levels):
    rng = np.random.default_rng(seed)
    codes = np.asfortranarray(np.column_stack(
        [rng.integers(-1, k, size=n) for k in n_levels]).astype(np.int8))
    sizes = np.cumprod(n_levels)
    start = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    tables = np.zeros(int(sizes.sum()))
    count_dense_unit_rows(codes, np.array(n_levels, dtype=np.int64), start, tables)
    want = [np.zeros((size // k, k)) for size, k in zip(sizes, n_levels)]
    for r in range(n):  # each row down its path until its first missing code
        situation, last = 0, None
        for i, k in enumerate(n_levels):
            if codes[r, i] < 0:
                break
            last = (i, situation, codes[r, i])
            situation = situation * k + codes[r, i]
        if last is not None:  # counted in the last variable's table it reached
            want[last[0]][last[1:]] += 1
    np.testing.assert_array_equal(tables, np.concatenate([w.ravel() for w in want]))


@given(seeds, hst.integers(0, 30), hst.integers(1, 6), hst.integers(1, 4))
def test_rows_summed_by_stage_and_first_positions(seed, n, m, k):
    rng = np.random.default_rng(seed)
    counts = rng.random((n, k))
    stage = rng.integers(0, m, size=n).astype(np.int32)
    out = np.zeros((m, k))
    sum_rows_by_stage(counts, stage, out)
    want = np.zeros((m, k))
    for r in range(n):  # in row order, as the kernel adds
        want[stage[r]] += counts[r]
    np.testing.assert_array_equal(out, want)

    first = np.full(m, -1, dtype=np.int64)
    first_positions(stage, first)
    np.testing.assert_array_equal(
        first, [stage.tolist().index(s) if s in stage else -1 for s in range(m)])


@given(seeds, hst.integers(0, 30), hst.integers(1, 6), hst.booleans())
def test_map_ids_is_numpy_indexing(seed, n, m, outside):
    rng = np.random.default_rng(seed)
    ids = rng.integers(0, m, size=n).astype(np.int32)
    mapping = rng.integers(-1, 2 * m, size=m).astype(np.int32)
    bad = -1
    if outside and n:  # an id past the mapping (or negative) is reported, not read
        bad = int(rng.integers(0, n))
        ids[bad] = rng.choice([-1, m])
    out = np.full(n, 7, dtype=np.int32)
    assert map_ids(ids, mapping, out) == bad
    upto = n if bad < 0 else bad
    np.testing.assert_array_equal(out[:upto], [mapping[s] for s in ids[:upto]])


@given(seeds, hst.integers(0, 8), hst.integers(1, 4), hst.booleans())
def test_occupied_cells_numbered_in_row_major_order(seed, m, k, empty_last):
    rng = np.random.default_rng(seed)
    table = rng.random((m, k)) * (rng.random((m, k)) < 0.6)
    cell_id = np.full(m * k + 2, 99, dtype=np.int64)  # room past the table stays untouched
    reached = np.full(m, 7, dtype=np.uint8)
    n_cells = number_occupied_cells(table, cell_id, empty_last, reached)
    np.testing.assert_array_equal(reached, [int(any(table[g] > 0)) for g in range(m)])
    situation = rng.integers(0, 1000, size=m).astype(np.int64)
    next_situation = np.empty(n_cells, dtype=np.int64)
    occupied_situations(table, situation, next_situation)
    assert next_situation.tolist() == [situation[g] * k + x for g in range(m) for x in range(k)
                                       if table[g, x] > 0]
    want, number = [], 0
    for g in range(m):
        for x in range(k):
            if table[g, x] > 0:
                want.append(number)
                number += 1
            else:
                want.append(None)
    want = [(number if empty_last else -1) if w is None else w for w in want]
    assert n_cells == number
    np.testing.assert_array_equal(cell_id[:m * k], want)
    np.testing.assert_array_equal(cell_id[m * k:], [99, 99])


@given(seeds, hst.integers(0, 30), hst.integers(1, 6), hst.integers(-1, 31))
def test_ids_listed_in_order_of_first_appearance(seed, n, m, default_at):
    rng = np.random.default_rng(seed)
    stage = rng.integers(0, m, size=n).astype(np.int32)
    default = int(rng.integers(0, m + 1))
    assume(default_at <= n)
    sequence = stage.tolist()
    if default_at >= 0:
        sequence.insert(default_at, default)
    want = list(dict.fromkeys(sequence))  # dicts keep the order of insertion
    out = np.empty(m + 1, dtype=np.int32)
    got = ids_by_first_appearance(stage, default_at, default, np.zeros(m + 1, dtype=np.uint8), out)
    assert out[:got].tolist() == want


@given(seeds, hst.integers(0, 30), hst.integers(1, 5), hst.integers(1, 3), hst.booleans())
def test_stages_regrouped_as_a_dict_numbers_them(seed, n, n_groups, k, with_default):
    rng = np.random.default_rng(seed)
    n_old = 8
    stage = rng.integers(0, n_old - 1, size=n).astype(np.int32)  # id 7: only the default's
    default_at = int(rng.integers(0, n + 1)) if with_default else -1
    # group numbers, and distinct other keys: names (negative), 0 and numbers past the groups
    others = np.concatenate([np.arange(-n_old, 1), np.arange(n_groups + 1, n_groups + 9)])
    keys = np.where(rng.random(n_old) < 0.6, rng.integers(1, n_groups + 1, n_old),
                    rng.choice(others, n_old, replace=False)).astype(np.int64)
    sequence = stage.tolist()
    if default_at >= 0:
        sequence.insert(default_at, n_old - 1)
    row_stage = rng.choice(stage, size=n) if n else stage[:0].copy()  # ids in use
    counts = rng.integers(0, 5, size=(n, k)).astype(float)
    mapping = np.full(n_old, -1, dtype=np.int32)
    first_old = np.full(n_old, -9, dtype=np.int32)
    new_stage = np.empty(n, dtype=np.int32)
    new_row_stage = np.empty(n, dtype=np.int32)
    by_stage = np.zeros((n_old, k))
    n_new = regroup_stages(stage, default_at, n_old - 1, keys,
                           np.full(n_groups + 1, -1, dtype=np.int32), mapping, first_old,
                           new_stage, counts, row_stage, new_row_stage, by_stage)
    new_of = {}  # a group's number, or the old id itself for a stage of its own
    want_first = []
    for old in sequence:
        key = ("group", keys[old]) if 1 <= keys[old] <= n_groups else ("own", old)
        if key not in new_of:
            new_of[key] = len(new_of)
            want_first.append(old)
        assert mapping[old] == new_of[key]
    assert n_new == len(new_of)
    assert first_old[:n_new].tolist() == want_first
    assert (mapping[np.setdiff1d(np.arange(n_old), sequence)] == -1).all()
    np.testing.assert_array_equal(new_stage, mapping[stage])
    np.testing.assert_array_equal(new_row_stage, mapping[row_stage])
    want = np.zeros((n_old, k))
    for r in range(n):
        want[mapping[row_stage[r]]] += counts[r]
    np.testing.assert_array_equal(by_stage, want)


@given(seeds, hst.integers(0, 12), hst.integers(1, 7), hst.sampled_from([0.0, 0.5, 1.0, 1e-9]))
def test_rows_smoothed_as_numpy_smooths_them(seed, m, k, lam):
    rng = np.random.default_rng(seed)
    counts = rng.integers(0, 5, size=(m, k)) * rng.random((m, k)) * 1e3
    counts[rng.random(m) < 0.2] = 0.0  # empty stages: 0/0 with lambda 0
    table, sizes = counts.copy(), np.empty(m)
    smooth_rows(table, lam, sizes)
    np.testing.assert_array_equal(sizes, counts.sum(axis=1))  # fewer than 8: one after the other
    with np.errstate(invalid="ignore", divide="ignore"):
        want = (counts + lam) / (counts + lam).sum(axis=1)[:, None]
    np.testing.assert_array_equal(table, want)


def _parents(rng, n_vars):
    """Level counts of the variables before ``Xi`` and which of them are parents."""
    k = rng.integers(1, 4, size=n_vars)
    parents = np.flatnonzero(rng.random(n_vars) < 0.6)
    return k, parents


@given(seeds, hst.integers(1, 4), hst.integers(0, 25))
def test_stages_by_parent_configuration(seed, n_vars, n_rows):
    rng = np.random.default_rng(seed)
    k, parents = _parents(rng, n_vars)
    radices = k[parents].astype(np.int64)
    n_configs = int(np.prod(radices))
    table = rng.permutation(n_configs).astype(np.int32)
    # situation digits: variable j's level is (s // stride_j) % k_j, the root slowest
    strides = np.array([np.prod(k[j + 1:]) for j in range(n_vars)], dtype=np.int64)
    levels = np.column_stack([rng.integers(0, kj, size=n_rows) for kj in k]).astype(np.int32) \
        if n_rows else np.empty((0, n_vars), dtype=np.int32)
    situations = (levels.astype(np.int64) * strides).sum(axis=1).astype(np.int64)
    # the configuration: the parents' levels in mixed radix, earliest slowest
    config = np.zeros(n_rows, dtype=np.int64)
    for j in parents:
        config = config * k[j] + levels[:, j]
    out = np.empty(n_rows, dtype=np.int32)
    stages_by_parent_config(situations, strides[parents].copy(), radices, table, out)
    np.testing.assert_array_equal(out, table[config])

    codes = np.column_stack([levels, np.zeros(n_rows, dtype=np.int32)])  # Xi's own column
    missing = rng.random(codes.shape) < 0.1
    codes[missing] = -1
    codes = np.ascontiguousarray(codes)
    out = np.empty(n_rows, dtype=np.int32)
    stages_by_parent_codes(codes, parents.astype(np.int64), radices, table, out)
    incomplete = (codes[:, parents] < 0).any(axis=1)
    np.testing.assert_array_equal(out, np.where(incomplete, table[0], table[config]))


def _dense_tree(rng, n_vars):
    """A staged tree as the inference kernels read it: stage vectors and log-probabilities."""
    k = rng.integers(1, 4, size=n_vars).astype(np.int64)
    n_sit = [int(np.prod(k[:i])) for i in range(n_vars)]
    n_stages = [int(rng.integers(1, s + 1)) for s in n_sit]
    stages = [rng.integers(0, m, size=s).astype(np.int32) for m, s in zip(n_stages, n_sit)]
    prob = [rng.dirichlet(np.ones(ki), size=m) for ki, m in zip(k, n_stages)]
    for p in prob:
        p[rng.random(len(p)) < 0.15] = np.nan  # undefined stages
        p[rng.random(p.shape) < 0.1] = 0.0
    with np.errstate(divide="ignore"):
        logp = [np.log(p) for p in prob]
    stage_offset = np.cumsum([0] + n_sit[:-1]).astype(np.int64)
    prob_offset = np.cumsum([0] + [p.size for p in logp[:-1]]).astype(np.int64)
    return (k, stages, logp, np.concatenate(stages), stage_offset,
            np.concatenate([p.ravel() for p in logp]), prob_offset)


def _path_logprob(k, stages, logp, path):
    total, sit = 0.0, 0
    for i, level in enumerate(path):
        total += logp[i][stages[i][sit], level]
        sit = sit * k[i] + level
    return total


def r_log_sum_exp(values):
    """matrixStats::logSumExp: the first largest plus log1p of the others' exp(x - top)."""
    top_index = int(np.argmax(values))
    top = values[top_index]
    if top == -math.inf or len(values) == 1:
        return top
    rest = 0.0
    for j, v in enumerate(values):
        if j != top_index:
            rest += math.exp(v - top)
    return top + math.log1p(rest)


@settings(deadline=None)
@given(seeds, hst.integers(1, 4), hst.integers(0, 12), hst.integers(1, 12))
def test_dense_summed_out_logprob_sums_every_completion(seed, n_vars, n_rows, capacity):
    rng = np.random.default_rng(seed)
    k, stages, logp, flat_stages, s_off, flat_logp, p_off = _dense_tree(rng, n_vars)
    codes = np.column_stack([rng.integers(0, ki, size=n_rows) for ki in k]).astype(np.int32)
    codes[rng.random(codes.shape) < 0.4] = -1
    codes = np.ascontiguousarray(codes)
    out = np.empty(n_rows)
    dense_summed_out_logprob(codes, flat_stages, s_off, flat_logp, p_off, k,
                             np.empty(capacity), np.empty(n_vars, dtype=np.int32), out)
    for r, row in enumerate(codes):
        observed = np.flatnonzero(row >= 0)
        if len(observed) == 0:
            assert out[r] == 0.0
            continue
        last = observed[-1]
        # R's expand.grid order: the first gap fastest
        choices = [[row[i]] if row[i] >= 0 else list(range(k[i])) for i in range(last + 1)]
        paths = [tuple(reversed(p)) for p in itertools.product(*reversed(choices))]
        values = [_path_logprob(k, stages, logp, p) for p in paths]
        values = [-math.inf if math.isnan(v) else v for v in values]
        assert out[r] == r_log_sum_exp(values)


@given(seeds, hst.integers(0, 20), hst.integers(1, 4), hst.integers(1, 4))
def test_draw_levels_inverts_the_cumulative_probabilities(seed, n, m, k):
    rng = np.random.default_rng(seed)
    stage = rng.integers(0, m, size=n).astype(np.int32)
    drawable = (rng.random(m) < 0.8).astype(np.uint8)
    prob = rng.dirichlet(np.ones(k), size=m)
    order = np.array([rng.permutation(k) for _ in range(m)], dtype=np.int64)
    cum = np.ascontiguousarray(np.cumsum(np.take_along_axis(prob, order, axis=1), axis=1))
    u = rng.random(n)
    situation = rng.integers(-1, 3, size=n).astype(np.int64)
    codes = np.full((n, 3), 7, dtype=np.int32)
    want_codes, want_sit, used = codes.copy(), situation.copy(), 0
    for r in range(n):
        s = stage[r]
        if want_sit[r] < 0 or not drawable[s]:
            want_codes[r, 1], want_sit[r] = -1, -1
            continue
        x = u[used]
        used += 1
        j = next((c for c in range(k) if x <= cum[s, c]), k - 1)
        want_codes[r, 1] = order[s, j]
        want_sit[r] = want_sit[r] * k + order[s, j]
    assert draw_levels(stage, drawable, cum, order, u, codes, 1, situation) == used
    np.testing.assert_array_equal(codes, want_codes)
    np.testing.assert_array_equal(situation, want_sit)


def r_unif_index(n, u, pos):
    """R's ``R_unif_index(n)``: 16-bit chunks of uniforms, rejection above ``n``."""
    bits = math.ceil(math.log2(n))
    while True:
        v = 0
        for _ in range(0, bits + 1, 16):
            v = 65536 * v + math.floor(u[pos] * 65536)
            pos += 1
        v &= (1 << bits) - 1
        if v < n:
            return v, pos


@given(seeds, hst.integers(1, 30), hst.floats(0, 1))
def test_stage_joiner_replays_r_random_sevt_joins(seed, m, q):
    rng = np.random.default_rng(seed)
    u = rng.random(64 * m + 64)  # rejections draw more: room to spare
    live = list(range(m))  # stage labels by first appearance
    merged_into = [-1] * m
    pos = 0
    for s in range(m):
        pos += 1
        if u[pos - 1] < q:
            pick, pos = r_unif_index(len(live), u, pos)
            t = live[pick]
            if merged_into[s] < 0 and t != s:
                keep, drop = sorted((live.index(s), live.index(t)))
                live[keep] = t
                del live[drop]
                merged_into[s] = t
    want = []
    for s in range(m):
        while merged_into[s] >= 0:
            s = merged_into[s]
        want.append(s)
    joiner = StageJoiner(m)
    assert joiner.run(q, u) == pos
    np.testing.assert_array_equal(joiner.mapping(), want)
