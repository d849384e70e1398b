"""distinct_rows against numpy.unique(axis=0) on matrices with many equal rows."""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as hst

from pystagedtrees.learners._rows import distinct_rows


@settings(max_examples=100, deadline=None)
@given(hst.integers(1, 60), hst.integers(1, 4), hst.integers(1, 5), hst.integers(0, 2**32 - 1))
def test_distinct_rows_numbers_rows_as_numpy_unique(m, p, n_values, seed):
    rng = np.random.default_rng(seed)
    values = np.array([0.0, -0.0, 0.25, 1.0, np.pi])[:n_values]
    points = rng.choice(values, size=(m, p))
    row_of, first = distinct_rows(points)
    _, numpy_first, numpy_inverse = np.unique(points + 0.0, axis=0, return_index=True,
                                              return_inverse=True)
    np.testing.assert_array_equal(first, np.sort(numpy_first))
    # same partition, numbered by first appearance
    rank = np.empty(len(numpy_first), dtype=np.int64)
    rank[np.argsort(numpy_first)] = np.arange(len(numpy_first))
    np.testing.assert_array_equal(row_of, rank[numpy_inverse.reshape(-1)])


def test_distinct_rows_nan_rows_equal_nothing_unless_bitwise():
    points = np.array([[np.nan, 1.0], [np.nan, 1.0], [0.0, 1.0], [-0.0, 1.0]])
    row_of, first = distinct_rows(points)
    assert row_of.tolist() == [0, 1, 2, 2] and first.tolist() == [0, 1, 2]
    row_of, first = distinct_rows(points, bitwise=True)
    assert row_of.tolist() == [0, 0, 1, 2] and first.tolist() == [0, 2, 3]
