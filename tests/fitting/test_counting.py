"""The two ways of counting rows into situation tables give the same tables,
bit for bit: tables of every situation (small trees, ``count_dense``; rows
of weight one in one pass, ``count_dense_unit``) and the situations the rows
reach, in path order (past ``DENSE_CELLS``, after dense tables of the first
variables that fit)."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hst

from pystagedtrees.fitting import _counting


def counted_by_hand(codes, n_levels, weights):
    """Each variable's table, summed row after row in a dict keyed by the path."""
    situations, counts = [], []
    for i, k in enumerate(n_levels):
        cells = {}
        for r in range(codes.shape[0]):
            path = codes[r, :i + 1]
            if weights[r] <= 0 or (path < 0).any():
                continue
            row = cells.setdefault(tuple(path[:-1]), np.zeros(k))
            row[path[-1]] += weights[r]
        radix = [int(np.prod(n_levels[j + 1:i])) for j in range(i)]  # mixed radix, first slowest
        index = {sum(int(c) * w for c, w in zip(path, radix)): row for path, row in cells.items()}
        if i == 0:  # the root's one situation, reached or not
            index.setdefault(0, np.zeros(k))
        keys = sorted(index)
        situations.append(np.array(keys, dtype=np.int64))
        counts.append(np.array([index[s] for s in keys]).reshape(len(keys), k))
    return situations, counts


def random_codes(rng, n_rows, n_levels):
    """Codes of ``n_rows`` rows in column order, some missing (-1)."""
    return np.asfortranarray(
        np.column_stack([rng.integers(-1, k, size=n_rows) for k in n_levels]).astype(np.int32)
        .reshape(n_rows, len(n_levels)))


small_trees = given(seed=hst.integers(0, 2**32 - 1), n_rows=hst.integers(0, 60),
                    n_levels=hst.lists(hst.integers(1, 4), min_size=1, max_size=6))


@settings(max_examples=60, deadline=None)
@small_trees
def test_dense_and_path_order_counting_give_the_same_tables(seed, n_rows, n_levels):
    rng = np.random.default_rng(seed)
    codes = random_codes(rng, n_rows, n_levels)
    weights = rng.random(n_rows) * rng.integers(0, 3, size=n_rows)  # fractional, some zero
    want_situations, want_counts = counted_by_hand(codes, n_levels, weights)
    assert _counting.fits_dense(n_levels)
    results = [_counting.count_paths(codes, n_levels, weights)]
    saved = _counting.DENSE_CELLS
    try:
        # the path-order counting from the root, and after dense tables of
        # the first variables (as many as fit)
        for cells in (0, 3, 12, 40):
            _counting.DENSE_CELLS = cells
            results.append(_counting.count_paths(codes, n_levels, weights))
    finally:
        _counting.DENSE_CELLS = saved
    for situations, counts, trie in results:
        assert trie is None
        for i in range(len(n_levels)):
            np.testing.assert_array_equal(situations[i], want_situations[i])
            np.testing.assert_array_equal(counts[i], want_counts[i])


@settings(max_examples=60, deadline=None)
@small_trees
def test_rows_of_weight_one_counted_in_one_pass_give_the_same_tables(seed, n_rows, n_levels):
    codes = random_codes(np.random.default_rng(seed), n_rows, n_levels)
    assert _counting.counts_unit_dense(n_levels)
    situations, counts = _counting.count_dense_unit(codes.astype(np.int8, order="F"), n_levels)
    want_situations, want_counts = counted_by_hand(codes, n_levels, np.ones(n_rows))
    for i in range(len(n_levels)):
        np.testing.assert_array_equal(situations[i], want_situations[i])
        np.testing.assert_array_equal(counts[i], want_counts[i])


@pytest.mark.parametrize("n_levels", [[2] * 20, [128, 2]])
def test_one_pass_counting_only_for_small_trees_of_byte_codes(n_levels):
    assert not _counting.counts_unit_dense(n_levels)
    with pytest.raises(ValueError, match="counts_unit_dense"):
        _counting.count_dense_unit(np.zeros((3, len(n_levels)), dtype=np.int8, order="F"),
                                   n_levels)


@pytest.mark.parametrize("n_levels, dense", [([2] * 19, True), ([2] * 20, False), ([1024, 1024], False)])
def test_dense_counting_only_for_tables_within_dense_cells(n_levels, dense):
    assert _counting.fits_dense(n_levels) == dense


@pytest.mark.parametrize("n_levels, prefix", [([2] * 25, 19), ([3] * 20, 12), ([1024, 1024], 1),
                                              ([2**21, 2], 0), ([2] * 5, 5)])
def test_dense_prefix_counts_the_variables_within_dense_cells(n_levels, prefix):
    # cells of the first j binary ones: 2 + 4 + ... + 2^j = 2^(j+1) - 2 <= 2^20 up to j = 19;
    # ternary: (3^(j+1) - 3) / 2 up to j = 12
    assert _counting.dense_prefix(n_levels) == prefix


@given(n_levels=hst.lists(hst.integers(1, 2 * _counting.FEW_LEVELS), min_size=1, max_size=4),
       n=hst.integers(0, 40), data=hst.data())
def test_column_margins_count_each_level_and_skip_missing_values(n_levels, n, data):
    """Few levels (a comparison per level) or more (bincount): each column's
    level counts, the missing values (-1) left out."""
    codes = np.asfortranarray(np.array(
        [[data.draw(hst.integers(-1, k - 1)) for k in n_levels] for _ in range(n)],
        dtype=np.int32).reshape(n, len(n_levels)))
    margins = _counting.column_margins(codes, n_levels)
    for j, k in enumerate(n_levels):
        assert margins[j].dtype == np.float64
        assert margins[j].tolist() == [float(sum(codes[:, j] == level)) for level in range(k)]
