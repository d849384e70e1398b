"""Inference kernels: log-joint sums and R's ``max.col`` without the ties.

The Python layer guarantees codes within the CPT ranges and matching shapes.
"""
import numpy as np

from libc.math cimport exp, fabs, fmax, isfinite, isnan, log1p
from libc.stdlib cimport free, malloc

from pystagedtrees.kernels._types cimport code_t, flag_t, float64_t, index_t

# R's max.col treats entries within this relative distance as tied.
cdef double RELTOL = 1e-5


def log_joint(const code_t[:, ::1] codes, const index_t[::1] fam_ptr,
              const index_t[::1] fam_cols, const index_t[::1] fam_strides,
              const index_t[::1] fam_offsets, const float64_t[::1] log_cpts,
              const float64_t[::1] log_prior, float64_t[:, ::1] out):
    """``out[i, c] = ln P(c) + sum_f ln theta_f(x_i, c)``, families in order.

    Family ``f`` reads the code columns ``fam_cols[fam_ptr[f]:fam_ptr[f+1]]``
    (the child and its feature parents) with the matching C-order strides of
    its CPT, whose last axis is the class; its CPT starts at
    ``fam_offsets[f]`` in ``log_cpts``.  Rows must be complete.
    """
    cdef Py_ssize_t n = codes.shape[0], n_class = log_prior.shape[0]
    cdef Py_ssize_t n_fam = fam_offsets.shape[0], i, c, f, t, base
    with nogil:
        for i in range(n):
            for c in range(n_class):
                out[i, c] = log_prior[c]
            for f in range(n_fam):
                base = fam_offsets[f]
                for t in range(fam_ptr[f], fam_ptr[f + 1]):
                    base = base + codes[i, fam_cols[t]] * fam_strides[t]
                for c in range(n_class):
                    out[i, c] += log_cpts[base + c]


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
    if m == 2 and not isnan(x[0]) and not isnan(x[1]) and fmax(x[0], x[1]) > LOG_NORMAL:
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
# fold, a (folds, cells x classes) C-contiguous float64 array; a row reads
# the entries ``sum_t code[cols[t]] * strides[t] + class`` of its fold's
# table.  The families of one call are numbered 0..F-1: ``fam_ptr``
# delimits each one's ``fam_cols`` and ``fam_strides``, and ``tables[f]``
# is its array.  A candidate is a sequence of terms, each a family added
# (``adds[t]``) or subtracted, applied in order to the base log-joint or to 0.


cdef double** _table_pointers(list tables, Py_ssize_t n_fam, Py_ssize_t n_folds,
                              Py_ssize_t n_class, Py_ssize_t *widths) except NULL:
    """The data of each array of ``tables``, checked to be an (n_folds, w)
    C-contiguous float64 table with w a positive multiple of ``n_class``
    (stored in ``widths``); the caller frees the array."""
    cdef Py_ssize_t f
    cdef float64_t[:, ::1] table
    if len(tables) != n_fam:
        raise ValueError(f"{len(tables)} tables for {n_fam} families")
    if n_class < 1:
        raise ValueError("the scores need at least one class")
    cdef double** out = <double**> malloc(max(n_fam, 1) * sizeof(double*))
    if out == NULL:
        raise MemoryError()
    for f in range(n_fam):
        try:
            table = tables[f]
        except (TypeError, ValueError):
            free(out)
            raise
        if table.shape[0] != n_folds or table.shape[1] < n_class or table.shape[1] % n_class:
            free(out)
            raise ValueError(f"table {f} is {table.shape[0]} x {table.shape[1]}, not {n_folds} "
                             f"folds x a multiple of {n_class} classes")
        widths[f] = table.shape[1]
        out[f] = &table[0, 0] if n_folds else NULL
    return out


cdef _check_families(const index_t[::1] fam_ptr, const index_t[::1] fam_cols,
                     const index_t[::1] fam_strides, Py_ssize_t n_vars):
    cdef Py_ssize_t f, n_fam = fam_ptr.shape[0] - 1
    if n_fam < 0 or fam_ptr[0] != 0 or fam_cols.shape[0] != fam_strides.shape[0] \
            or fam_ptr[n_fam] != fam_cols.shape[0]:
        raise ValueError("fam_ptr must delimit fam_cols and fam_strides from 0 to their end")
    for f in range(n_fam):
        if fam_ptr[f + 1] < fam_ptr[f]:
            raise ValueError("fam_ptr must not decrease")
    for f in range(fam_cols.shape[0]):
        if not 0 <= fam_cols[f] < n_vars:
            raise ValueError(f"column {fam_cols[f]} is not among the {n_vars} of codes")


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


cdef void _apply_terms(const code_t[:, ::1] codes, const index_t[::1] fold, Py_ssize_t m,
                       const double *start, Py_ssize_t t0, Py_ssize_t t1,
                       const index_t[::1] terms, const flag_t[::1] adds,
                       const index_t[::1] fam_ptr, const index_t[::1] fam_cols,
                       const index_t[::1] fam_strides, double **tables,
                       const Py_ssize_t *widths, double *out) noexcept nogil:
    """Every row's log-joint: ``start`` (or 0) plus and minus the entries of
    the terms ``t0:t1``, term after term; a family with a missing value in
    a row contributes 0 to it."""
    cdef Py_ssize_t n = codes.shape[0], i, c, t, f, v, at, code, width, first, last
    cdef bint missing
    cdef const double *table
    cdef double *row
    for i in range(n * m):
        out[i] = start[i] if start != NULL else 0.0
    for t in range(t0, t1):
        f = terms[t]
        table, width = tables[f], widths[f]
        first, last = fam_ptr[f], fam_ptr[f + 1]
        for i in range(n):
            at = fold[i] * width
            missing = False
            for v in range(first, last):
                code = codes[i, fam_cols[v]]
                missing = missing or code < 0
                at += code * fam_strides[v]
            if missing:
                continue
            row = out + i * m
            if adds[t]:
                for c in range(m):
                    row[c] = row[c] + table[at + c]
            else:
                for c in range(m):
                    row[c] = row[c] - table[at + c]


def fold_family_counts(const code_t[:, ::1] codes, const code_t[::1] truth,
                       const index_t[::1] fold, const float64_t[::1] weight,
                       const index_t[::1] fam_ptr, const index_t[::1] fam_cols,
                       const index_t[::1] fam_strides, list counts):
    """Add each row's ``weight`` to every family's table of its ``fold``, at
    the entry of its values and class ``truth`` (rows missing a value of
    the family add nothing to it).

    ``counts[f]`` is family ``f``'s (folds, cells x classes) table, filled in
    place; codes, truth and folds within range are the caller's guarantee.
    """
    cdef Py_ssize_t n = codes.shape[0], n_fam = fam_ptr.shape[0] - 1, n_folds, f, i, v, at, code
    if truth.shape[0] != n or fold.shape[0] != n or weight.shape[0] != n:
        raise ValueError("truth, fold and weight need one entry per row of codes")
    _check_families(fam_ptr, fam_cols, fam_strides, codes.shape[1])
    if n_fam == 0:
        return
    n_folds = counts[0].shape[0] if len(counts) else 0
    cdef Py_ssize_t *widths = <Py_ssize_t*> malloc(max(n_fam, 1) * sizeof(Py_ssize_t))
    if widths == NULL:
        raise MemoryError()
    cdef double **tables
    try:
        tables = _table_pointers(counts, n_fam, n_folds, 1, widths)
    except (MemoryError, ValueError, TypeError):
        free(widths)
        raise
    with nogil:
        for f in range(n_fam):
            for i in range(n):
                at = fold[i] * widths[f] + truth[i]
                for v in range(fam_ptr[f], fam_ptr[f + 1]):
                    code = codes[i, fam_cols[v]]
                    if code < 0:
                        at = -1
                        break
                    at += code * fam_strides[v]
                if at >= 0:
                    tables[f][at] += weight[i]
    free(tables)
    free(widths)


cdef _prepare(const code_t[:, ::1] codes, const index_t[::1] fold, Py_ssize_t n_class,
              const index_t[::1] fam_ptr, const index_t[::1] fam_cols,
              const index_t[::1] fam_strides, list tables, Py_ssize_t n_folds,
              const index_t[::1] cand_ptr, const index_t[::1] terms, const flag_t[::1] adds,
              Py_ssize_t **widths, double ***pointers):
    """Check the arguments shared by the scoring kernels; gather the tables."""
    cdef Py_ssize_t n_fam = fam_ptr.shape[0] - 1
    if fold.shape[0] != codes.shape[0]:
        raise ValueError("fold needs one entry per row of codes")
    _check_families(fam_ptr, fam_cols, fam_strides, codes.shape[1])
    _check_terms(cand_ptr, terms, adds, n_fam)
    widths[0] = <Py_ssize_t*> malloc(max(n_fam, 1) * sizeof(Py_ssize_t))
    if widths[0] == NULL:
        raise MemoryError()
    try:
        pointers[0] = _table_pointers(tables, n_fam, n_folds, n_class, widths[0])
    except (MemoryError, ValueError, TypeError):
        free(widths[0])
        raise


def fold_log_joint(const code_t[:, ::1] codes, const index_t[::1] fold, Py_ssize_t n_folds,
                   const float64_t[:, ::1] base, const index_t[::1] fam_ptr,
                   const index_t[::1] fam_cols, const index_t[::1] fam_strides, list tables,
                   const index_t[::1] terms, const flag_t[::1] adds, float64_t[:, ::1] out):
    """One candidate's log-joint at every row: ``base`` (None: 0) plus and
    minus the ``terms``, in order, each row reading its fold's tables."""
    cdef Py_ssize_t n = codes.shape[0], m = out.shape[1], i
    cdef Py_ssize_t *widths
    cdef double **pointers
    cdef bint has_base = base is not None
    if out.shape[0] != n or (has_base and (base.shape[0] != n or base.shape[1] != m)):
        raise ValueError("out (and base) need one row per row of codes, of the same width")
    cand_ptr = np.array([0, terms.shape[0]], dtype=np.int64)
    _prepare(codes, fold, m, fam_ptr, fam_cols, fam_strides, tables, n_folds, cand_ptr, terms,
             adds, &widths, &pointers)
    if n == 0 or m == 0:
        free(pointers)
        free(widths)
        return
    with nogil:
        _apply_terms(codes, fold, m, &base[0, 0] if has_base else NULL, 0, terms.shape[0], terms,
                     adds, fam_ptr, fam_cols, fam_strides, pointers, widths, &out[0, 0])
    free(pointers)
    free(widths)


def fold_hits(const code_t[:, ::1] codes, const code_t[::1] truth, const index_t[::1] fold,
              const float64_t[::1] weight, const float64_t[:, ::1] base,
              const index_t[::1] fam_ptr, const index_t[::1] fam_cols,
              const index_t[::1] fam_strides, list tables, const index_t[::1] cand_ptr,
              const index_t[::1] terms, const flag_t[::1] adds, const flag_t[::1] from_base,
              float64_t[:, ::1] correct, index_t[::1] events):
    """:func:`map_hits` of many candidates without their log-joints.

    Candidate ``j`` is the terms ``cand_ptr[j]:cand_ptr[j+1]`` applied to
    ``base`` if ``from_base[j]``, else to 0 (see :func:`fold_log_joint`).
    ``correct[j, k]`` adds the weight of the settled rows of fold ``k`` it
    predicts right; ``events[j]`` is its number of R tie draws (rows with
    draws are left out of ``correct``).
    """
    cdef Py_ssize_t n = codes.shape[0], m = base.shape[1], n_cand = cand_ptr.shape[0] - 1
    cdef Py_ssize_t n_folds = correct.shape[1], i, j
    cdef Py_ssize_t *widths
    cdef double **pointers
    cdef index_t draws
    if base.shape[0] != n or truth.shape[0] != n or weight.shape[0] != n:
        raise ValueError("base, truth and weight need one entry per row of codes")
    if from_base.shape[0] != n_cand or correct.shape[0] != n_cand or events.shape[0] != n_cand:
        raise ValueError("from_base, correct and events need one entry per candidate")
    _prepare(codes, fold, m, fam_ptr, fam_cols, fam_strides, tables, n_folds, cand_ptr, terms,
             adds, &widths, &pointers)
    events[:] = 0
    if n == 0 or m == 0 or n_cand == 0:
        free(pointers)
        free(widths)
        return
    buffer = np.empty((n + 1) * m)
    cdef float64_t[::1] scratch = buffer
    cdef double *lj = &scratch[0]
    cdef double *spare = &scratch[n * m]
    cdef double *x
    cdef double d
    cdef index_t tie
    with nogil:
        for j in range(n_cand):
            _apply_terms(codes, fold, m, &base[0, 0] if from_base[j] else NULL, cand_ptr[j],
                         cand_ptr[j + 1], terms, adds, fam_ptr, fam_cols, fam_strides, pointers,
                         widths, lj)
            for i in range(n):
                x = lj + i * m
                if m == 2 and not isnan(x[0]) and not isnan(x[1]) and fmax(x[0], x[1]) > LOG_NORMAL:
                    # _map_class's two-class test, without branches on the data
                    d = x[1] - x[0]
                    tie = fabs(d) <= LOG_TIE
                    events[j] += tie
                    correct[j, fold[i]] += weight[i] * ((1 - tie) & ((d > 0) == truth[i]))
                elif _map_class(x, m, spare, &draws) == truth[i]:
                    correct[j, fold[i]] += weight[i]
                else:
                    events[j] += draws
    free(pointers)
    free(widths)
