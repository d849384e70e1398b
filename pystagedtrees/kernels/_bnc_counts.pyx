"""Counting kernels: contingency tables of families and R-faithful entropies.

Inputs are validated by the Python layer (codes in range, columns valid);
these loops only read and add.
"""
import numpy as np

from libc.math cimport log

from pystagedtrees.kernels._bnc_cpt cimport fold_cpt_logs
from pystagedtrees.kernels._rsum cimport racc_t, rsum
from pystagedtrees.kernels._types cimport code_t, flag_t, float64_t, index_t


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


def class_family_counts(const code_t[:, ::1] codes, const index_t[::1] dims,
                        const float64_t[::1] weights=None):
    """The class's table, each feature's with the class and each pair's with
    the class, all counted in one pass over the rows.

    Column 0 of ``codes`` is the class (never missing: the caller's
    guarantee), columns 1.. the features; ``dims`` their numbers of levels.
    Returns one (K, dims[0]) array, the class the last axis of every table:
    row 0 the class's counts, then the rows of each feature's table (levels
    x class, feature 1 first), then of each pair ``a < b``'s (levels of ``a``
    x levels of ``b`` x class), pairs in the order (1, 2), (1, 3), ...  A
    table skips the rows missing (-1) one of its features, as
    :func:`family_counts`; ``weights`` as there.
    """
    cdef Py_ssize_t n = codes.shape[0], p = codes.shape[1], m, i, a, b, at
    cdef code_t c, va, vb
    cdef float64_t w = 1.0
    cdef bint weighted = weights is not None, bad = False
    if dims.shape[0] != p or p < 1:
        raise ValueError("dims needs one entry per column of codes (the class first)")
    if weighted and weights.shape[0] != n:
        raise ValueError(f"weights needs one entry per row of codes ({n}); got {weights.shape[0]}")
    with nogil:  # codes out of range would be written past the tables
        for i in range(n):
            if codes[i, 0] < 0:
                bad = True
            for a in range(p):
                if codes[i, a] >= dims[a] or codes[i, a] < -1:
                    bad = True
    if bad:
        raise ValueError("codes must lie in -1..dims-1 per column, the class (column 0) never -1")
    m = dims[0]
    # row offsets of each table in the output: features', then pairs' (a, b) at a * p + b
    offsets = np.zeros(p * p, dtype=np.int64)
    cdef index_t[::1] off = offsets
    at = 1
    for a in range(1, p):
        off[a] = at
        at += dims[a]
    for a in range(1, p):
        for b in range(a + 1, p):
            off[a * p + b] = at
            at += dims[a] * dims[b]
    out = np.zeros((at, m), dtype=np.float64)
    cdef float64_t[:, ::1] counts = out
    with nogil:
        for i in range(n):
            c = codes[i, 0]
            if weighted:
                w = weights[i]
            counts[0, c] += w
            for a in range(1, p):
                va = codes[i, a]
                if va < 0:
                    continue
                counts[off[a] + va, c] += w
                for b in range(a + 1, p):
                    vb = codes[i, b]
                    if vb >= 0:
                        counts[off[a * p + b] + va * dims[b] + vb, c] += w
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


def fold_cpts(list counts, const index_t[::1] child_levels, double smooth, list out,
              list log_out, flag_t[::1] has_zero):
    """Each family's CPT fitted on every fold but one, as :func:`bnc.cpt` on
    the training counts ``total - counts[k]``, and its natural log.

    ``counts[f]`` is family ``f``'s (folds, levels x rest) table of counts
    per fold, its child (``child_levels[f]`` levels) the first axis of a
    fold's row; ``out[f]``, shaped alike, receives in row ``k``
    ``((total - counts[k]) + smooth) / column sum``, the sum over the
    child's levels in order, and ``1 / levels`` where that sum is 0;
    ``log_out[f]`` its logarithm (the C library's ``log``, as R's), and
    ``has_zero[f]`` whether an entry is 0 (its log -inf).
    """
    cdef Py_ssize_t n_fam = len(counts), f, n_folds, width, levels
    cdef float64_t[:, ::1] table
    cdef float64_t[:, ::1] result
    cdef float64_t[:, ::1] logs
    cdef float64_t[::1] scratch
    if child_levels.shape[0] != n_fam or len(out) != n_fam or len(log_out) != n_fam \
            or has_zero.shape[0] != n_fam:
        raise ValueError("counts, child_levels, out, log_out and has_zero need one entry per "
                         "family")
    for f in range(n_fam):
        table, result, logs = counts[f], out[f], log_out[f]
        n_folds, width, levels = table.shape[0], table.shape[1], child_levels[f]
        if result.shape[0] != n_folds or result.shape[1] != width \
                or logs.shape[0] != n_folds or logs.shape[1] != width:
            raise ValueError(f"out[{f}] and log_out[{f}] must be shaped as counts[{f}]")
        if levels < 1 or width % levels:
            raise ValueError(f"counts[{f}] has {width} columns, not a multiple of {levels} levels")
        has_zero[f] = False
        if n_folds == 0 or width == 0:
            continue
        scratch = np.empty(2 * width + width // levels)
        with nogil:
            has_zero[f] = fold_cpt_logs(&table[0, 0], n_folds, width, levels, smooth,
                                        &result[0, 0], &logs[0, 0], &scratch[0])
