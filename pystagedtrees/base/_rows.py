"""Reductions along the rows of narrow tables (a few columns, millions of rows).

numpy reduces each short row on its own (some 50 ns a row for two columns);
adding the columns as whole arrays costs a few ns a row.  The sums are those
of ``table.sum(axis=1)`` bit for bit: numpy adds fewer than eight numbers one
after the other, as the columns are added here; wider tables go to numpy.
"""
import numpy as np

__all__ = ["SEQUENTIAL_BELOW", "row_sums", "rows_all_nan"]

SEQUENTIAL_BELOW = 8
"""numpy adds a row of fewer numbers sequentially (pairwise from eight on)."""


def row_sums(table):
    """``table.sum(axis=1)`` of a 2-d float array, the same numbers."""
    k = table.shape[1]
    if k >= SEQUENTIAL_BELOW or k == 0:
        return table.sum(axis=1)
    total = table[:, 0].copy()
    for j in range(1, k):
        total += table[:, j]
    return total


def rows_all_nan(table):
    """``np.isnan(table).all(axis=1)``."""
    out = np.ones(table.shape[0], dtype=bool)
    for j in range(table.shape[1]):
        out &= np.isnan(table[:, j])
    return out
