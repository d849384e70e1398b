"""``_rows.group_equal_rows`` against a dictionary of the rows' words."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hst

from pystagedtrees.kernels._rows import group_equal_rows


def dict_groups(words, alone):
    """The obvious twin: a group per new tuple of words, in order of first appearance."""
    group_of, row_of, first = {}, [], []
    for r, row in enumerate(map(tuple, words.tolist())):
        if alone[r] or row not in group_of:
            if not alone[r]:
                group_of[row] = len(first)
            row_of.append(len(first))
            first.append(r)
        else:
            row_of.append(group_of[row])
    return row_of, first


@settings(max_examples=200, deadline=None)
@given(hst.integers(0, 300), hst.integers(0, 4), hst.integers(1, 6), hst.integers(0, 2**32 - 1))
def test_group_equal_rows_is_a_dictionary_of_rows(m, p, n_values, seed):
    rng = np.random.default_rng(seed)
    values = rng.integers(0, 2**64, size=n_values, dtype=np.uint64)  # few values: many repeats
    words = np.ascontiguousarray(values[rng.integers(0, n_values, size=(m, p))])
    alone = (rng.random(m) < 0.1).astype(np.uint8)
    row_of = np.empty(m, dtype=np.int64)
    first = np.empty(m, dtype=np.int64)
    n_groups = group_equal_rows(words, alone, row_of, first)
    want_row_of, want_first = dict_groups(words, alone)
    assert row_of.tolist() == want_row_of
    assert first[:n_groups].tolist() == want_first


def test_group_equal_rows_refuses_short_outputs():
    with pytest.raises(ValueError, match="row per row"):
        group_equal_rows(np.zeros((3, 1), dtype=np.uint64), np.zeros(3, dtype=np.uint8),
                         np.empty(2, dtype=np.int64), np.empty(3, dtype=np.int64))
