"""Counting kernels: contingency tables of families and R-faithful entropies.

Inputs are validated by the Python layer (codes in range, columns valid);
these loops only read and add.
"""
import numpy as np

from libc.math cimport log

from pystagedtrees.kernels._rsum cimport racc_t, rsum
from pystagedtrees.kernels._types cimport code_t, float64_t, index_t


def family_counts(const code_t[:, ::1] codes, const index_t[::1] cols,
                  const index_t[::1] dims, const float64_t[::1] weights=None):
    """Counts of every joint value of ``cols`` (C order over ``dims``).

    Rows with a missing code (-1) in any of the columns are skipped, so each
    table uses the rows complete on its own variables (as R's table_cpp).
    With ``weights`` (one per row, length checked by the caller) a row adds
    its weight instead of 1.
    """
    cdef Py_ssize_t n = codes.shape[0], k = cols.shape[0]
    cdef Py_ssize_t size = 1, i, j, flat, v
    cdef bint weighted = weights is not None
    for j in range(k):
        size *= dims[j]
    out = np.zeros(size, dtype=np.float64)
    cdef float64_t[::1] counts = out
    with nogil:
        for i in range(n):
            flat = 0
            for j in range(k):
                v = codes[i, cols[j]]
                if v < 0:
                    flat = -1
                    break
                flat = flat * dims[j] + v
            if flat >= 0:
                counts[flat] += weights[i] if weighted else 1.0
    return out


def entropy_ml(const float64_t[::1] counts):
    """Plug-in entropy (natural log) of a table given in R's column-major order.

    Reproduces R's ``entropy(y, method="ML")`` bit for bit: R's ``sum`` adds
    in long double, sequentially, and both normalisations happen in double.
    """
    cdef Py_ssize_t n = counts.shape[0], i
    cdef racc_t acc = 0.0
    cdef double total, total2, q
    if n == 0:
        return -0.0  # as the sums below give
    with nogil:
        total = rsum(&counts[0], n)
        for i in range(n):
            acc += counts[i] / total
        total2 = <double>acc
        acc = 0.0
        for i in range(n):
            q = (counts[i] / total) / total2
            if q > 0:
                acc += q * log(q)
    return -(<double>acc)


def col_means(const float64_t[:, :] values):
    """Column means as R's ``colMeans``: long-double sequential sums divided in
    long double, so equal columns give bit-equal means."""
    cdef Py_ssize_t n = values.shape[0], m = values.shape[1], i, j
    cdef racc_t acc
    out = np.empty(m, dtype=np.float64)
    cdef float64_t[::1] res = out
    with nogil:
        for j in range(m):
            acc = 0.0
            for i in range(n):
                acc += values[i, j]
            res[j] = <double>(acc / n)
    return out
