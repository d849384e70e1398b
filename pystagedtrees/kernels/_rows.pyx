"""Kernel of ``learners._rows.distinct_rows``: equal rows grouped by hashing.

Rows are compared as 64-bit words (the caller hands over the bits of its
numbers, already made equal where the numbers are); a hash table of the
first row of each group finds a row's group in one pass, where a sort of
the rows (``numpy.lexsort``) costs several passes and a log factor.
"""
import numpy as np

from libc.stdint cimport uint64_t

from pystagedtrees.kernels._hash cimport mix64
from pystagedtrees.kernels._types cimport flag_t, index_t


cdef inline bint _same_row(const uint64_t[:, ::1] words, Py_ssize_t a,
                           Py_ssize_t b) noexcept nogil:
    cdef Py_ssize_t j
    for j in range(words.shape[1]):
        if words[a, j] != words[b, j]:
            return False
    return True


def group_equal_rows(const uint64_t[:, ::1] words, const flag_t[::1] alone,
                     index_t[::1] row_of, index_t[::1] first):
    """Number the rows of ``words`` by group of equal rows.

    ``row_of[r]`` gets the number (0, 1, ... in order of first appearance)
    of row ``r``'s group and ``first[g]`` the first row of group ``g``; a
    row with ``alone[r]`` set is a group of its own (a NaN equals nothing).
    Returns the number of groups.
    """
    cdef Py_ssize_t m = words.shape[0], p = words.shape[1], r, j, slot
    cdef Py_ssize_t n_groups = 0, size = 16
    cdef uint64_t h
    if alone.shape[0] != m or row_of.shape[0] != m or first.shape[0] < m:
        raise ValueError("`alone`, `row_of` and `first` must have a row per row of `words`.")
    while size < 2 * m:
        size *= 2
    table_array = np.full(size, -1, dtype=np.int64)  # each slot: a group's first row, or -1
    cdef index_t[::1] table = table_array
    with nogil:
        for r in range(m):
            if alone[r]:
                row_of[r] = n_groups
                first[n_groups] = r
                n_groups += 1
                continue
            h = <uint64_t>p
            for j in range(p):
                h = mix64(h ^ words[r, j])
            slot = <Py_ssize_t>(h & <uint64_t>(size - 1))
            while table[slot] >= 0 and not _same_row(words, table[slot], r):
                slot = (slot + 1) & (size - 1)
            if table[slot] < 0:
                table[slot] = r
                row_of[r] = n_groups
                first[n_groups] = r
                n_groups += 1
            else:
                row_of[r] = row_of[table[slot]]
    return n_groups
