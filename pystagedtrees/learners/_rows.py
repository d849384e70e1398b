"""Distinct rows of a numeric matrix, compared by value (-0.0 equals 0.0) or
bit for bit.

The rows' 64-bit words are grouped by a hash table in one pass (the
``_rows`` kernel): several times faster than a stable sort on the columns
(``numpy.lexsort``), itself several times faster than
``numpy.unique(axis=0)``, which sorts the rows as opaque records.
"""
import numpy as np

from pystagedtrees.kernels._rows import group_equal_rows

__all__ = ["distinct_rows"]


def distinct_rows(points, bitwise=False):
    """Number each row of ``points`` (m x p, m >= 1) among the distinct rows.

    Returns ``(row_of, first)``: ``row_of[r]`` is the number (0, 1, ... in
    order of first appearance) of row r's value, and ``first[g]`` the index
    of the first row with value number g, increasing.  Rows are equal when
    their numbers are (a row holding a NaN equals no other), or, with
    ``bitwise``, when their 64-bit numbers are bit for bit.
    """
    if bitwise:
        words = np.ascontiguousarray(points).view(np.uint64)
        alone = np.zeros(words.shape[0], dtype=np.uint8)
    else:
        values = np.ascontiguousarray(points, dtype=np.float64) + 0.0  # a copy: -0.0 is 0.0
        words = values.view(np.uint64)
        alone = np.zeros(values.shape[0], dtype=np.uint8)  # a row with a NaN equals nothing
        for j in range(values.shape[1]):  # column by column: any(axis=1) costs a call per row
            alone |= np.isnan(values[:, j])
    row_of = np.empty(words.shape[0], dtype=np.int64)
    first = np.empty(words.shape[0], dtype=np.int64)
    n_groups = group_equal_rows(words, alone, row_of, first)
    return row_of, first[:n_groups]
