"""Inference kernels: log-joint sums and R's ``max.col`` without the ties.

The Python layer guarantees codes within the CPT ranges and matching shapes.
"""
import numpy as np

from libc.math cimport exp, fabs, isfinite, isnan, log, log1p
from libc.stdlib cimport free, malloc

from libc.stdint cimport int32_t, uint32_t, uint64_t

from pystagedtrees.kernels._bnc_cpt cimport fold_cpt_logs
from pystagedtrees.kernels._hash cimport mix64
from pystagedtrees.kernels._types cimport code_t, flag_t, float64_t, index_t

# R's max.col treats entries within this relative distance as tied.
cdef double RELTOL = 1e-5
# Rows whose log-joints are summed before they are normalised (in cache).
cdef enum:
    BLOCK = 256
    # two-class rows whose log-joints are summed side by side
    LANES = 8


def log_joint(const code_t[:, ::1] by_column, const index_t[::1] fam_ptr,
              const index_t[::1] fam_cols, const index_t[::1] fam_strides,
              const index_t[::1] fam_offsets, const float64_t[::1] log_cpts,
              const float64_t[::1] log_prior, float64_t[:, ::1] out, bint normalise=False):
    """``out[i, c] = ln P(c) + sum_f ln theta_f(x_i, c)``, families in order.

    ``by_column`` holds the codes a column after another, shape (columns,
    rows): the transposed code matrix, which pandas' columns fill without a
    strided copy, and from which a run of rows reads contiguously.  Family
    ``f`` reads the columns ``fam_cols[fam_ptr[f]:fam_ptr[f+1]]`` (the child
    and its feature parents) with the matching C-order strides of its CPT,
    whose last axis is the class; its CPT starts at ``fam_offsets[f]`` in
    ``log_cpts``.  Rows must be complete.  With ``normalise`` the rows become
    their class posteriors (:func:`posteriors`, to the bit) a block at a
    time, while still in cache.
    """
    cdef Py_ssize_t n = by_column.shape[1], n_class = log_prior.shape[0]
    cdef Py_ssize_t n_fam = fam_offsets.shape[0], i, c, f, t, r, base, b, block, stop
    cdef Py_ssize_t at[LANES]
    cdef double acc[2 * LANES]
    cdef const code_t *column
    cdef double *sums
    if out.shape[0] != n or out.shape[1] != n_class:
        raise ValueError("out must have a row per column of by_column and a column per class")
    with nogil:
        for b in range((n + BLOCK - 1) // BLOCK):
            block, stop = b * BLOCK, min(b * BLOCK + BLOCK, n)
            i = block
            while n_class == 2 and i + LANES <= stop:
                # LANES rows at once: each row's sums added in the same order
                # (as below), LANES independent chains of adds in flight
                for r in range(LANES):
                    acc[2 * r], acc[2 * r + 1] = log_prior[0], log_prior[1]
                for f in range(n_fam):
                    for r in range(LANES):
                        at[r] = fam_offsets[f]
                    for t in range(fam_ptr[f], fam_ptr[f + 1]):
                        column = &by_column[fam_cols[t], i]
                        for r in range(LANES):
                            at[r] = at[r] + column[r] * fam_strides[t]
                    for r in range(LANES):
                        acc[2 * r] = acc[2 * r] + log_cpts[at[r]]
                        acc[2 * r + 1] = acc[2 * r + 1] + log_cpts[at[r] + 1]
                sums = &out[i, 0]  # the LANES rows are contiguous
                for r in range(2 * LANES):
                    sums[r] = acc[r]
                i += LANES
            for i in range(i, stop):
                for c in range(n_class):
                    out[i, c] = log_prior[c]
                for f in range(n_fam):
                    base = fam_offsets[f]
                    for t in range(fam_ptr[f], fam_ptr[f + 1]):
                        base = base + by_column[fam_cols[t], i] * fam_strides[t]
                    for c in range(n_class):
                        out[i, c] += log_cpts[base + c]
            if normalise and n_class:
                # a loop of its own: exp's latency does not hold up the sums
                _normalise_rows(&out[block, 0], &out[block, 0], stop - block, n_class)


cdef double _pairwise_sum(const double *a, Py_ssize_t n) noexcept nogil:
    """numpy's pairwise summation of ``n`` doubles (what ``sum`` over a row
    adds), to its last bit: plain below 8 terms, 8 running sums up to 128,
    halves (a multiple of 8 first) beyond."""
    cdef Py_ssize_t i, j, half
    cdef double res = 0.0
    cdef double r[8]
    if n < 8:
        for i in range(n):
            res += a[i]
        return res
    if n <= 128:
        for j in range(8):
            r[j] = a[j]
        i = 8
        while i < n - n % 8:
            for j in range(8):
                r[j] += a[i + j]
            i += 8
        res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
        while i < n:
            res += a[i]
            i += 1
        return res
    half = n // 2
    half -= half % 8
    return _pairwise_sum(a, half) + _pairwise_sum(a + half, n - half)


cdef inline void _normalise(const double *x, double *p, Py_ssize_t m) noexcept nogil:
    """One row of :func:`posteriors` (``p`` may be ``x``)."""
    cdef Py_ssize_t c
    cdef double top = x[0], total
    for c in range(1, m):
        if x[c] > top:  # a NaN is never taken, but makes its own e NaN
            top = x[c]
    for c in range(m):
        p[c] = exp(x[c] - top)  # top -inf or NaN: NaN everywhere
    total = _pairwise_sum(p, m)
    if isnan(total):
        for c in range(m):
            p[c] = 1.0 / m
    else:
        for c in range(m):
            p[c] = p[c] / total


cdef inline void _normalise_two(double a0, double a1, double *p) noexcept nogil:
    """:func:`_normalise` of two classes to the bit, with one exp (the
    larger one's is exp(0) = 1) and no branch on which is larger."""
    cdef double d = a1 - a0, e, total, high, low
    cdef bint second = d > 0
    if isnan(d):  # a NaN, or both -inf
        p[0] = p[1] = 0.5
        return
    e = exp(-fabs(d))  # exp(smaller - larger): negation is exact
    total = 1.0 + e
    high, low = 1.0 / total, e / total
    p[0] = low if second else high
    p[1] = high if second else low


def posteriors(const float64_t[:, ::1] lj, float64_t[:, ::1] out):
    """Class posteriors from log-joints: per row ``e = exp(lj - max)`` and
    ``e / sum(e)``, the sum as numpy adds a row; a row that cannot be
    normalised (a NaN, or every entry ``-inf``) becomes uniform.

    One exp per class and no logarithm: R's ``lj - logsumexp(lj)`` gives the
    same posteriors to a few units in the last place (the reference tests
    compare with R to 1e-9), at about a third of the cost.
    """
    cdef Py_ssize_t n = lj.shape[0], m = lj.shape[1], i
    if out.shape[0] != n or out.shape[1] != m:
        raise ValueError("out must be shaped as lj")
    if n == 0 or m == 0:
        return
    with nogil:
        _normalise_rows(&lj[0, 0], &out[0, 0], n, m)


cdef void _normalise_rows(const double *x, double *p, Py_ssize_t n, Py_ssize_t m) noexcept nogil:
    """:func:`posteriors` of ``n`` rows of ``m`` classes (``p`` may be ``x``)."""
    cdef Py_ssize_t i
    for i in range(n):
        if m == 2:
            _normalise_two(x[2 * i], x[2 * i + 1], p + 2 * i)
        else:
            _normalise(x + i * m, p + i * m, m)


cdef inline Py_ssize_t _row_max(const double *row, Py_ssize_t m, bint choose,
                                const double *u, Py_ssize_t n_u, Py_ssize_t *used,
                                index_t *events) noexcept nogil:
    """R's ``max.col`` on one row of ``m`` scores, counting its tie events.

    With ``choose`` each tie event consumes ``u[used[0]]`` (advancing
    ``used``) as R consumes ``unif_rand()``; otherwise ties are only counted.
    Past the ``n_u`` uniforms given, a tie keeps the earlier column (never
    read beyond the buffer).  Returns the chosen column, or -2 for a row
    holding NaN (R's NA).
    """
    cdef Py_ssize_t c, best = 0, ntie = 1
    cdef double large = 0.0, a, b, tol
    events[0] = 0
    for c in range(m):
        b = row[c]
        if b != b:
            return -2
        if isfinite(b) and fabs(b) > large:
            large = fabs(b)
    tol = RELTOL * large
    a = row[0]
    for c in range(1, m):
        b = row[c]
        if b > a + tol:
            a = b
            best = c
            ntie = 1
        elif b >= a - tol:
            ntie += 1
            events[0] += 1
            if choose:
                if used[0] < n_u and ntie * u[used[0]] < 1.0:
                    best = c
                used[0] += 1
    return best


def max_col(const float64_t[:, ::1] x, code_t[::1] pred, index_t[::1] events):
    """Row-wise argmax as R's ``max.col(ties.method="random")``, first pass.

    ``events[i]`` is the number of uniforms R draws on row ``i``; rows with
    none get their final ``pred`` (-2 for a NaN row), the others need
    :func:`max_col_ties`.
    """
    cdef Py_ssize_t n = x.shape[0], m = x.shape[1], i, used = 0
    if n == 0 or m == 0:
        return
    cdef const double *base = &x[0, 0]
    with nogil:
        for i in range(n):
            pred[i] = _row_max(base + i * m, m, False, NULL, 0, &used, &events[i])


def max_col_ties(const float64_t[:, ::1] x, const index_t[::1] rows,
                 const float64_t[::1] u, code_t[::1] pred):
    """Second pass: resolve the tied ``rows``, in order, with the uniforms ``u``."""
    cdef Py_ssize_t k, m = x.shape[1], used = 0, n_u = u.shape[0]
    cdef index_t events = 0
    if rows.shape[0] == 0:
        return
    cdef const double *base = &x[0, 0]
    cdef const double *draws = &u[0] if n_u else NULL
    with nogil:
        for k in range(rows.shape[0]):
            pred[rows[k]] = _row_max(base + rows[k] * m, m, True, draws, n_u, &used, &events)


def exp_rows(const float64_t[:, ::1] x, float64_t[:, ::1] out):
    """``exp`` of every entry with the C library's exp, as :func:`map_hits`
    and R take it (numpy's vectorised exp may differ in the last bit, which
    moves ties at the border)."""
    cdef Py_ssize_t i, j
    with nogil:
        for i in range(x.shape[0]):
            for j in range(x.shape[1]):
                out[i, j] = exp(x[i, j])


# Two scores tie in max.col when they differ by at most RELTOL of the larger,
# i.e. when their logs differ by at most -log1p(-RELTOL).
cdef double LOG_TIE = -log1p(-RELTOL)
# Above this log-score exp() is a normal double, so the log test is exact.
cdef double LOG_NORMAL = -700.0


cdef inline Py_ssize_t _map_class(const double *x, Py_ssize_t m, double *scratch,
                                  index_t *events) noexcept nogil:
    """R's ``max.col`` on ``exp(x)`` for one row of ``m`` log-scores: the
    column, or -1 where R would draw (``events[0]`` uniforms); -2 for NaN.

    Two-class rows are decided on the logs, without exponentials; ``scratch``
    holds ``m`` doubles for the others.
    """
    cdef Py_ssize_t c, best, used = 0
    cdef double d
    # a NaN score (R's NA: no prediction) goes the general way
    if m == 2 and not isnan(x[0]) and not isnan(x[1]) \
            and (x[0] > LOG_NORMAL or x[1] > LOG_NORMAL):
        d = x[1] - x[0]
        if fabs(d) <= LOG_TIE:
            events[0] = 1
            return -1
        events[0] = 0
        return 1 if d > 0 else 0
    for c in range(m):
        scratch[c] = exp(x[c])
    best = _row_max(scratch, m, False, NULL, 0, &used, events)
    return -1 if events[0] > 0 else best


def map_hits(const float64_t[:, ::1] log_scores, const code_t[::1] truth,
             const index_t[::1] fold, const float64_t[::1] weight, float64_t[::1] correct,
             index_t[::1] events):
    """R's ``max.col`` on ``exp(log_scores)``, adding the ``weight`` of each
    correct row to its fold's count.

    Rows where R would draw uniforms are not counted; ``events[i]`` is their
    number of draws (see :func:`max_col_ties`).  Two-class rows are decided
    on the logs, without exponentials.
    """
    cdef Py_ssize_t n = log_scores.shape[0], m = log_scores.shape[1], i
    if n == 0 or m == 0:
        return
    buffer = np.empty(m)
    cdef float64_t[::1] row = buffer
    cdef const double *x = &log_scores[0, 0]
    with nogil:
        for i in range(n):
            if _map_class(x + i * m, m, &row[0], &events[i]) == truth[i]:
                correct[fold[i]] += weight[i]


# -- Cross-validated scoring of candidate structures (bnc._scoring) ------------
#
# A family (a feature, its feature parents, the class) has one table per
# fold: a (folds, width) C-contiguous float64 array, its classes last.  A row
# reads it at one place, its "entry": the position ``fold * width +
# sum_t code[cols[t]] * strides[t]`` of its class-0 value in the flattened
# table, or -1 where it misses a value of the family (which then adds
# nothing).  fold_family_counts finds the entries (int32, one per row); the
# scoring kernels take a family as ``tables[f]`` and ``entries[f]``.  A
# candidate is a sequence of terms, each a family added (``adds[t]``) or
# subtracted, applied in order to the base log-joint or to 0.


cdef _gather(list tables, list entries, Py_ssize_t n_rows, Py_ssize_t n_class,
             double ***tabs, int32_t ***ents):
    """Pointers to the data of ``tables`` and ``entries``, checked: a float64
    table and ``n_rows`` entries each, every entry -1 or the start of
    ``n_class`` values within its table.  The caller frees both arrays."""
    cdef Py_ssize_t n_fam = len(tables), f, i, size
    cdef float64_t[:, ::1] table
    cdef const int32_t[::1] entry
    cdef int32_t low, high
    if len(entries) != n_fam:
        raise ValueError(f"{len(entries)} entry arrays for {n_fam} tables")
    if n_class < 1:
        raise ValueError("the scores need at least one class")
    tabs[0] = <double**> malloc(max(n_fam, 1) * sizeof(double*))
    ents[0] = <int32_t**> malloc(max(n_fam, 1) * sizeof(int32_t*))
    if tabs[0] == NULL or ents[0] == NULL:
        free(tabs[0])
        free(ents[0])
        raise MemoryError()
    try:
        for f in range(n_fam):
            table, entry = tables[f], entries[f]
            size = table.shape[0] * table.shape[1]
            if entry.shape[0] != n_rows:
                raise ValueError(f"entries[{f}] has {entry.shape[0]} rows, not {n_rows}")
            low, high = -1, -1
            with nogil:
                for i in range(n_rows):
                    low = min(low, entry[i])
                    high = max(high, entry[i])
            if low < -1 or high + n_class > size:
                raise ValueError(f"entries[{f}] reach outside its {table.shape[0]} x "
                                 f"{table.shape[1]} table")
            tabs[0][f] = &table[0, 0] if size else NULL
            ents[0][f] = <int32_t*> &entry[0] if n_rows else NULL
    except (TypeError, ValueError):
        free(tabs[0])
        free(ents[0])
        raise


cdef _check_terms(const index_t[::1] cand_ptr, const index_t[::1] terms,
                  const flag_t[::1] adds, Py_ssize_t n_fam):
    cdef Py_ssize_t t, j
    if cand_ptr.shape[0] < 1 or cand_ptr[0] != 0 or adds.shape[0] != terms.shape[0] \
            or cand_ptr[cand_ptr.shape[0] - 1] != terms.shape[0]:
        raise ValueError("cand_ptr must delimit terms and adds from 0 to their end")
    for j in range(cand_ptr.shape[0] - 1):
        if cand_ptr[j + 1] < cand_ptr[j]:
            raise ValueError("cand_ptr must not decrease")
    for t in range(terms.shape[0]):
        if not 0 <= terms[t] < n_fam:
            raise ValueError(f"term {terms[t]} names no family (there are {n_fam})")


def fold_cells(const code_t[:, ::1] codes, const index_t[::1] levels,
               const index_t[::1] pooled, const index_t[::1] fold, index_t[::1] cell,
               index_t[::1] first):
    """Number the pool rows by cell: equal codes in the same fold.

    Pool row ``i`` is row ``pooled[i]`` of ``codes`` (column ``j``'s codes
    in -1 .. ``levels[j]`` - 1), in fold ``fold[i]`` (>= 0); ``cell[i]``
    gets its cell (0, 1, ... in order of first appearance) and ``first[c]``
    the first pool row of cell ``c``.  Returns the number of cells.  Rows
    are found by a hash table of the cells' first rows (one pass, no sort):
    where a row's codes and its fold make one 64-bit number (mixed radix)
    the cells compare those, else code for code.
    """
    cdef Py_ssize_t n = pooled.shape[0], p = codes.shape[1], i, j, size = 16
    cdef index_t n_folds = 1
    cdef uint64_t span = 1
    if fold.shape[0] != n or cell.shape[0] != n or first.shape[0] < n:
        raise ValueError("fold, cell and first need one entry per pool row")
    if levels.shape[0] != p:
        raise ValueError(f"levels needs one entry per column of codes ({p})")
    for i in range(n):
        if not 0 <= pooled[i] < codes.shape[0]:
            raise ValueError(f"pool row {i} names row {pooled[i]}, not among the "
                             f"{codes.shape[0]} of codes")
        if fold[i] < 0:
            raise ValueError(f"pool row {i} is in fold {fold[i]}, below 0")
        n_folds = max(n_folds, fold[i] + 1)
    while size < 2 * n:
        size *= 2
    table = np.full(size, -1, dtype=np.int64)  # each slot: a cell, or -1
    # the numbers of a row's values (each code plus one: -1 is 0), then of its fold
    place = np.empty(max(p, 1), dtype=np.uint64)
    for j in range(p - 1, -1, -1):
        if levels[j] < 0 or span > <uint64_t>0xffffffffffffffff // <uint64_t>(levels[j] + 1):
            return _cells_by_codes(codes, pooled, fold, cell, first, table)
        place[j] = span
        span *= <uint64_t>(levels[j] + 1)
    if span > <uint64_t>0xffffffffffffffff // <uint64_t>n_folds:
        return _cells_by_codes(codes, pooled, fold, cell, first, table)
    return _cells_by_key(_row_keys(codes, place), span, pooled, fold, cell, first, table)


cdef _row_keys(const code_t[:, ::1] codes, const uint64_t[::1] place):
    """Each row's codes as one number: the sum of (code + 1) times its place."""
    cdef Py_ssize_t n = codes.shape[0], p = codes.shape[1], r, j
    cdef uint64_t key
    keys_array = np.empty(n, dtype=np.uint64)
    cdef uint64_t[::1] keys = keys_array
    with nogil:
        for r in range(n):
            key = 0
            for j in range(p):  # products independent of each other: no chain
                key += <uint64_t>(codes[r, j] + 1) * place[j]
            keys[r] = key
    return keys_array


cdef Py_ssize_t _cells_by_key(const uint64_t[::1] row_key, uint64_t span,
                              const index_t[::1] pooled, const index_t[::1] fold,
                              index_t[::1] cell, index_t[::1] first, table_array):
    """:func:`fold_cells` of rows numbered ``row_key`` (below ``span``): a
    pool row's key is its row's plus its fold times ``span``."""
    cdef Py_ssize_t n = pooled.shape[0], size = table_array.shape[0], i, slot, n_cells = 0
    cdef index_t at
    cdef uint64_t key
    cdef index_t[::1] table = table_array
    cell_key_array = np.empty(max(n, 1), dtype=np.uint64)
    cdef uint64_t[::1] cell_key = cell_key_array
    with nogil:
        for i in range(n):
            key = row_key[pooled[i]] + <uint64_t>fold[i] * span
            slot = <Py_ssize_t>(mix64(key) & <uint64_t>(size - 1))
            while True:
                at = table[slot]
                if at < 0:
                    table[slot] = n_cells
                    cell_key[n_cells] = key
                    cell[i] = n_cells
                    first[n_cells] = i
                    n_cells += 1
                    break
                if cell_key[at] == key:
                    cell[i] = at
                    break
                slot = (slot + 1) & (size - 1)
    return n_cells


cdef Py_ssize_t _cells_by_codes(const code_t[:, ::1] codes, const index_t[::1] pooled,
                                const index_t[::1] fold, index_t[::1] cell,
                                index_t[::1] first, table_array):
    """:func:`fold_cells` comparing rows code for code (too wide for a key)."""
    cdef Py_ssize_t n = pooled.shape[0], p = codes.shape[1], size = table_array.shape[0]
    cdef Py_ssize_t i, j, slot, row, other, at, n_cells = 0
    cdef uint64_t h
    cdef bint same
    cdef index_t[::1] table = table_array
    # each column's multiplier: odd, its bits spread (splitmix64's sequence)
    weights_array = np.empty(max(p, 1), dtype=np.uint64)
    cdef uint64_t[::1] weights = weights_array
    h = 0
    for j in range(p):
        h += <uint64_t>0x9e3779b97f4a7c15
        weights[j] = ((h ^ (h >> 30)) * <uint64_t>0xbf58476d1ce4e5b9) | 1
    with nogil:
        for i in range(n):
            row = pooled[i]
            # a sum of products by a distinct odd number per column: products
            # independent of each other (no chain of multiplications), mixed once
            h = <uint64_t>fold[i] * <uint64_t>0x9e3779b97f4a7c15
            for j in range(p):
                h += <uint64_t><uint32_t>codes[row, j] * weights[j]
            slot = <Py_ssize_t>(mix64(h) & <uint64_t>(size - 1))
            while True:
                at = table[slot]
                if at < 0:
                    table[slot] = n_cells
                    cell[i] = n_cells
                    first[n_cells] = i
                    n_cells += 1
                    break
                other = pooled[first[at]]
                same = fold[first[at]] == fold[i]
                j = 0
                while same and j < p:
                    same = codes[other, j] == codes[row, j]
                    j += 1
                if same:
                    cell[i] = at
                    break
                slot = (slot + 1) & (size - 1)
    return n_cells


def fold_family_counts(const code_t[:, ::1] by_column, const code_t[::1] truth,
                       const index_t[::1] fold, const float64_t[::1] weight,
                       const index_t[::1] fam_ptr, const index_t[::1] fam_cols,
                       const index_t[::1] fam_strides, list counts, list entries):
    """Each family's entry at every row, and its counts per fold.

    ``by_column`` holds the codes a column after another, shape (columns,
    rows).  Family ``f`` reads the columns
    ``fam_cols[fam_ptr[f]:fam_ptr[f+1]]`` with the matching ``fam_strides``
    (C order of its table, the class last).  ``entries[f]`` (int32, one per
    row) receives the row's entry (see above), and ``counts[f]``, a (folds,
    width) table, the row's ``weight`` at its entry plus its class
    ``truth``.  Codes, classes and folds within range are the caller's
    guarantee.
    """
    cdef Py_ssize_t n = by_column.shape[1], n_fam = fam_ptr.shape[0] - 1, f, i, v
    cdef int32_t stride, at, width
    cdef const code_t *column
    cdef float64_t *cells
    cdef float64_t[:, ::1] table
    cdef int32_t[::1] entry
    if truth.shape[0] != n or fold.shape[0] != n or weight.shape[0] != n:
        raise ValueError("truth, fold and weight need one entry per row of codes")
    if n_fam < 0 or fam_ptr[0] != 0 or fam_cols.shape[0] != fam_strides.shape[0] \
            or fam_ptr[n_fam] != fam_cols.shape[0]:
        raise ValueError("fam_ptr must delimit fam_cols and fam_strides from 0 to their end")
    if len(counts) != n_fam or len(entries) != n_fam:
        raise ValueError("counts and entries need one array per family")
    for f in range(n_fam):
        if fam_ptr[f + 1] < fam_ptr[f]:
            raise ValueError("fam_ptr must not decrease")
    for v in range(fam_cols.shape[0]):
        if not 0 <= fam_cols[v] < by_column.shape[0]:
            raise ValueError(f"column {fam_cols[v]} is not among the {by_column.shape[0]} of codes")
    for f in range(n_fam):
        table, entry = counts[f], entries[f]
        if entry.shape[0] != n:
            raise ValueError(f"entries[{f}] needs one entry per row of codes")
        if table.shape[0] * table.shape[1] > 2**31 - 1:
            raise ValueError(f"counts[{f}] is too large for int32 entries")
        if n == 0:
            continue
        width, cells = table.shape[1], &table[0, 0]
        with nogil:
            # a column at a time, each a sequential pass (the compiler's
            # vector loops); a missing code makes the entry -1 for good
            for i in range(n):
                entry[i] = fold[i] * width
            for v in range(fam_ptr[f], fam_ptr[f + 1]):
                column, stride = &by_column[fam_cols[v], 0], fam_strides[v]
                for i in range(n):
                    at = entry[i]
                    # either negative: their bitwise or is
                    entry[i] = -1 if (at | column[i]) < 0 else at + column[i] * stride
            for i in range(n):
                if entry[i] >= 0:
                    cells[entry[i] + truth[i]] += weight[i]


cdef void _apply_terms(Py_ssize_t n, Py_ssize_t m, const double *start, Py_ssize_t t0,
                       Py_ssize_t t1, const index_t[::1] terms, const flag_t[::1] adds,
                       double **tables, int32_t **entries, double *out) noexcept nogil:
    """Every row's log-joint: ``start`` (or 0) plus and minus the entries of
    the terms ``t0:t1``, term after term."""
    cdef Py_ssize_t i, c, t, at
    cdef const double *table
    cdef const int32_t *entry
    cdef double *row
    cdef bint add
    for i in range(n * m):
        out[i] = start[i] if start != NULL else 0.0
    for t in range(t0, t1):
        table, entry, add = tables[terms[t]], entries[terms[t]], adds[t]
        if m == 2:  # the common case, without a loop over the classes
            for i in range(n):
                at = entry[i]
                if at >= 0:
                    if add:
                        out[2 * i] = out[2 * i] + table[at]
                        out[2 * i + 1] = out[2 * i + 1] + table[at + 1]
                    else:
                        out[2 * i] = out[2 * i] - table[at]
                        out[2 * i + 1] = out[2 * i + 1] - table[at + 1]
            continue
        for i in range(n):
            at = entry[i]
            if at < 0:
                continue
            row = out + i * m
            if add:
                for c in range(m):
                    row[c] = row[c] + table[at + c]
            else:
                for c in range(m):
                    row[c] = row[c] - table[at + c]


def fold_log_joint(const float64_t[:, ::1] base, list tables, list entries,
                   const index_t[::1] terms, const flag_t[::1] adds, float64_t[:, ::1] out):
    """One candidate's log-joint at every row: ``base`` (None: 0) plus and
    minus the ``terms``, in order."""
    cdef Py_ssize_t n = out.shape[0], m = out.shape[1]
    cdef double **tabs
    cdef int32_t **ents
    cdef bint has_base = base is not None
    if has_base and (base.shape[0] != n or base.shape[1] != m):
        raise ValueError("base must be shaped as out")
    _check_terms(np.array([0, terms.shape[0]], dtype=np.int64), terms, adds, len(tables))
    _gather(tables, entries, n, m, &tabs, &ents)
    if n and m:
        with nogil:
            _apply_terms(n, m, &base[0, 0] if has_base else NULL, 0, terms.shape[0], terms, adds,
                         tabs, ents, &out[0, 0])
    free(tabs)
    free(ents)


cdef bint _same_prefix(Py_ssize_t a0, Py_ssize_t a1, Py_ssize_t b0, Py_ssize_t b1,
                      const index_t[::1] terms, const flag_t[::1] adds) noexcept nogil:
    """Whether the terms ``a0:a1`` are the terms ``b0:b1``, signs included."""
    cdef Py_ssize_t t
    if a1 - a0 != b1 - b0:
        return False
    for t in range(a1 - a0):
        if terms[a0 + t] != terms[b0 + t] or adds[a0 + t] != adds[b0 + t]:
            return False
    return True


cdef index_t _decide(Py_ssize_t n, Py_ssize_t m, const index_t *fold, const code_t *truth,
                     const index_t *weight, const double *prefix, const double *table,
                     const int32_t *entry, bint add, double *lj, double *spare,
                     double *correct) noexcept nogil:
    """:func:`map_hits` of ``prefix`` plus (or minus) one more family's
    values (``table`` NULL: none) without writing the sums; the (whole)
    weights of the rows of a fold are added to ``correct[fold]``.  Returns
    the number of tie draws."""
    cdef Py_ssize_t i, c, at, k = -1
    cdef index_t events = 0, draws, tie, acc = 0
    cdef const double *row
    cdef const double *value
    # locals, not the module's globals: the stores to correct[] could alias those
    cdef double x0, x1, d, log_tie = LOG_TIE, log_normal = LOG_NORMAL
    # x - v is x + (-1.0 * v) bit for bit, and x + 0.0 decides as x: one
    # branch-free sum whatever the sign or (two classes) a missing value
    cdef double sign = 1.0 if add else -1.0
    cdef double nothing[2]
    nothing[0] = nothing[1] = 0.0
    if m != 2:
        for i in range(n):
            row = prefix + i * m
            at = entry[i] if table != NULL else -1
            for c in range(m):
                lj[c] = row[c] + sign * table[at + c] if at >= 0 else row[c]
            if _map_class(lj, m, spare, &draws) == truth[i]:
                correct[fold[i]] += weight[i]  # whole numbers: exact in any order
            else:
                events += draws
        return events
    for i in range(n):
        if fold[i] != k:  # a run of one fold's rows: its count kept in a register
            if k >= 0:
                correct[k] += acc
            k = fold[i]
            acc = 0
        value = table + entry[i] if table != NULL and entry[i] >= 0 else nothing
        x0 = prefix[2 * i] + sign * value[0]
        x1 = prefix[2 * i + 1] + sign * value[1]
        if not isnan(x0) and not isnan(x1) and (x0 > log_normal or x1 > log_normal):
            # _map_class's two-class test, without branches on the data
            d = x1 - x0
            tie = fabs(d) <= log_tie
            events += tie
            acc += weight[i] * ((1 - tie) & ((d > 0) == truth[i]))
        else:
            lj[0], lj[1] = x0, x1
            # (a row with draws is never counted right: its class is -1)
            acc += weight[i] * (_map_class(lj, 2, spare, &draws) == truth[i])
            events += draws
    if k >= 0:
        correct[k] += acc
    return events


def fold_hits(const code_t[::1] truth, const index_t[::1] fold, const index_t[::1] weight,
              const float64_t[:, ::1] base, list tables, list entries,
              const index_t[::1] cand_ptr, const index_t[::1] terms, const flag_t[::1] adds,
              const flag_t[::1] from_base, float64_t[:, ::1] correct, index_t[::1] events):
    """:func:`map_hits` of many candidates without their log-joints.

    Candidate ``j`` is the terms ``cand_ptr[j]:cand_ptr[j+1]`` applied to
    ``base`` if ``from_base[j]``, else to 0 (see :func:`fold_log_joint`).
    ``correct[j, k]`` adds the weight (a whole number: a row stands for that
    many equal rows, below 2**53 in all) of the settled rows of fold ``k`` it
    predicts right; ``events[j]`` is its number of R tie draws (rows with
    draws are left out of ``correct``).  All but the last term of a
    candidate are summed once for a run of candidates that share them (put
    those next to each other); the last is added while deciding.
    """
    cdef Py_ssize_t n = base.shape[0], m = base.shape[1], n_cand = cand_ptr.shape[0] - 1
    cdef Py_ssize_t i, j, t0, t1, f
    cdef Py_ssize_t prefix_of = -1  # the candidate whose prefix the buffer holds
    cdef double **tabs
    cdef int32_t **ents
    if truth.shape[0] != n or fold.shape[0] != n or weight.shape[0] != n:
        raise ValueError("truth, fold and weight need one entry per row of base")
    if from_base.shape[0] != n_cand or correct.shape[0] != n_cand or events.shape[0] != n_cand:
        raise ValueError("from_base, correct and events need one entry per candidate")
    for i in range(n):
        if not 0 <= fold[i] < correct.shape[1]:
            raise ValueError(f"fold {fold[i]} has no column in correct")
    _check_terms(cand_ptr, terms, adds, len(tables))
    _gather(tables, entries, n, m, &tabs, &ents)
    events[:] = 0
    if n == 0 or n_cand == 0:
        free(tabs)
        free(ents)
        return
    buffer = np.empty((n + 2) * m)
    cdef float64_t[::1] scratch = buffer
    cdef double *prefix = &scratch[0]
    with nogil:
        for j in range(n_cand):
            t0, t1 = cand_ptr[j], cand_ptr[j + 1]
            if t1 > t0:
                t1 -= 1  # the last term is added below
            if prefix_of < 0 or from_base[j] != from_base[prefix_of] or not _same_prefix(
                    t0, t1, cand_ptr[prefix_of], cand_ptr[prefix_of + 1] - 1, terms, adds):
                _apply_terms(n, m, &base[0, 0] if from_base[j] else NULL, t0, t1, terms, adds,
                             tabs, ents, prefix)
                prefix_of = j if cand_ptr[j + 1] > cand_ptr[j] else -1
            f = terms[t1] if t1 < cand_ptr[j + 1] else -1
            events[j] = _decide(n, m, &fold[0], &truth[0], &weight[0], prefix,
                                tabs[f] if f >= 0 else NULL, ents[f] if f >= 0 else NULL,
                                f >= 0 and adds[t1], prefix + n * m, prefix + (n + 1) * m,
                                &correct[j, 0])
    free(tabs)
    free(ents)


def fold_added_hits(const index_t[::1] group, const code_t[:, ::1] by_column,
                    const index_t[::1] levels, const code_t[::1] truth,
                    const index_t[::1] weight, const index_t[::1] group_fold,
                    const code_t[:, ::1] group_codes, const float64_t[:, ::1] base,
                    const index_t[::1] children, const index_t[::1] par_ptr,
                    const index_t[::1] parents, double smooth, float64_t[:, ::1] correct,
                    index_t[::1] events):
    """:func:`fold_hits` of candidates that each add one family to a
    structure, the family fitted here (and not kept).

    Row ``i`` (standing for ``weight[i]`` equal rows, of class
    ``truth[i]``) is in group ``group[i]``: the rows of one fold
    ``group_fold[g]`` with the same values ``group_codes[:, g]`` of the
    structure's variables (``levels[v]`` levels in variable ``v``), where the
    structure's log-joint is ``base[g]``.  Candidate ``j`` adds the family of
    child ``children[j]`` (a column of ``by_column``, codes a column after
    another, ``levels[len(group_codes) + c]`` levels in column ``c``) with
    the parents ``parents[par_ptr[j]:par_ptr[j+1]]`` (variables of the
    structure) and the class: its counts per fold are
    :func:`fold_family_counts`', its log-CPTs :func:`fold_cpts`' with
    ``smooth``, and a row's log-joint is its group's ``base`` plus its
    log-CPT entry of its own fold.  The rows of a group with one child value
    share their log-joint: each such pair is decided once (and counted once
    for a run of candidates of one child).  ``correct`` as
    in :func:`fold_hits`; ``events[j]`` is the number of R's tie draws (a
    draw per row, and per near-tied class beyond two, of the pairs that
    tie).  Codes within ``levels`` (none missing) are the caller's guarantee.
    """
    cdef Py_ssize_t n = group.shape[0], m = base.shape[1], n_groups = base.shape[0]
    cdef Py_ssize_t n_vars = group_codes.shape[0], n_cand = children.shape[0]
    cdef Py_ssize_t n_folds = correct.shape[1], i, j, g, x, c, t, width, largest = 1, pairs = 1
    cdef Py_ssize_t stride, child_stride, child_levels, at, off, size, lanes
    cdef index_t draws, pred, total
    cdef const code_t *child
    cdef double *row
    if truth.shape[0] != n or weight.shape[0] != n or by_column.shape[1] != n:
        raise ValueError("by_column, truth and weight need one entry per row of group")
    if group_fold.shape[0] != n_groups or group_codes.shape[1] != n_groups:
        raise ValueError("group_fold and group_codes need one entry per row of base")
    if levels.shape[0] != n_vars + by_column.shape[0]:
        raise ValueError("levels needs one entry per variable and column")
    if correct.shape[0] != n_cand or events.shape[0] != n_cand \
            or par_ptr.shape[0] != n_cand + 1:
        raise ValueError("correct, events and par_ptr need one entry per candidate")
    if par_ptr[0] != 0 or par_ptr[n_cand] != parents.shape[0]:
        raise ValueError("par_ptr must delimit parents from 0 to its end")
    for i in range(n):
        if not 0 <= group[i] < n_groups:
            raise ValueError(f"group {group[i]} has no row in base")
    for g in range(n_groups):
        if not 0 <= group_fold[g] < n_folds:
            raise ValueError(f"fold {group_fold[g]} has no column in correct")
    for j in range(n_cand):
        if not 0 <= children[j] < by_column.shape[0]:
            raise ValueError(f"child {children[j]} is not among the {by_column.shape[0]} columns")
        if par_ptr[j + 1] < par_ptr[j]:
            raise ValueError("par_ptr must not decrease")
        width = m * levels[n_vars + children[j]]
        for t in range(par_ptr[j], par_ptr[j + 1]):
            if not 0 <= parents[t] < n_vars:
                raise ValueError(f"parent {parents[t]} is not among the {n_vars} variables")
            width *= levels[parents[t]]
        if levels[n_vars + children[j]] < 1 or n_folds * width > 2**31 - 1:
            raise ValueError(f"family {j} has no level or too many cells")
        largest = max(largest, width)
        pairs = max(pairs, n_groups * levels[n_vars + children[j]])
    events[:] = 0
    correct[:, :] = 0
    if n == 0 or n_cand == 0 or m == 0:
        return
    counts_array = np.empty(n_folds * largest)
    probs_array = np.empty(n_folds * largest)
    logs_array = np.empty(n_folds * largest)
    pair_array = np.empty(pairs * m)
    lanes_array = np.empty(LANES * pairs * m, dtype=np.int64)
    scratch_array = np.empty(3 * largest + 2 * m)
    offsets_array = np.empty(n_groups, dtype=np.int64)
    cdef float64_t[::1] counts = counts_array
    cdef float64_t[::1] probs = probs_array
    cdef float64_t[::1] logs = logs_array
    cdef float64_t[::1] pair = pair_array
    cdef index_t[::1] lane_counts = lanes_array
    cdef float64_t[::1] scratch = scratch_array
    cdef index_t[::1] offset = offsets_array
    cdef double *lj = &scratch[3 * largest]
    with nogil:
        for j in range(n_cand):
            child_levels = levels[n_vars + children[j]]
            if j == 0 or children[j] != children[j - 1]:
                # the rows' weights by group, child value and class (the same
                # for the next candidates of this child)
                child = &by_column[children[j], 0]
                size = n_groups * child_levels * m
                # rows in turn to LANES (a power of 2) copies when the rows
                # outnumber their cells: a run of rows of one cell then waits
                # for no sum before
                lanes = LANES if n >= LANES * size else 1
                for i in range(lanes * size):
                    lane_counts[i] = 0
                for i in range(n):
                    lane_counts[(i & (lanes - 1)) * size
                                + (group[i] * child_levels + child[i]) * m + truth[i]] += weight[i]
                for i in range(size):
                    total = lane_counts[i]
                    for t in range(1, lanes):
                        total += lane_counts[t * size + i]
                    pair[i] = <double>total
            # the family's counts per fold (C order: child, parents, class)
            width = m
            for t in range(par_ptr[j], par_ptr[j + 1]):
                width *= levels[parents[t]]
            child_stride = width
            width *= child_levels
            for i in range(n_folds * width):
                counts[i] = 0.0
            for g in range(n_groups):
                off, stride = group_fold[g] * width, child_stride
                for t in range(par_ptr[j], par_ptr[j + 1]):
                    stride = stride // levels[parents[t]]
                    off += group_codes[parents[t], g] * stride
                offset[g] = off
                for x in range(child_levels):
                    row = &pair[(g * child_levels + x) * m]
                    for c in range(m):
                        counts[off + x * child_stride + c] += row[c]
            fold_cpt_logs(&counts[0], n_folds, width, child_levels, smooth, &probs[0], NULL,
                          &scratch[0])
            # the logs of the entries read, each taken once (a log is above 0 never)
            for i in range(n_folds * width):
                logs[i] = 1.0
            for g in range(n_groups):
                for x in range(child_levels):
                    row = &pair[(g * child_levels + x) * m]
                    total = 0
                    for c in range(m):
                        total += <index_t>row[c]
                    if total == 0:
                        continue
                    at = offset[g] + x * child_stride
                    for c in range(m):
                        if logs[at + c] > 0:
                            logs[at + c] = log(probs[at + c])
                        lj[c] = base[g, c] + logs[at + c]
                    pred = _map_class(lj, m, lj + m, &draws)
                    if draws:
                        events[j] += draws * total
                    elif pred >= 0:
                        correct[j, group_fold[g]] += row[pred]
