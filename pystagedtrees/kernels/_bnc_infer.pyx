"""Inference kernels: log-joint sums and R's ``max.col`` without the ties.

The Python layer guarantees codes within the CPT ranges and matching shapes.
"""
import numpy as np

from libc.math cimport exp, fabs, fmax, isfinite, isnan, log1p

from pystagedtrees.kernels._types cimport code_t, float64_t, index_t

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


def pool_sum(const float64_t[:, :, ::1] pool, const index_t[::1] slots,
             float64_t[:, ::1] out):
    """``out = sum_k pool[slots[k]]``, added in the order of ``slots``.

    Each slot of ``pool`` is an (n, C) table shaped as ``out``; the caller
    checks the shapes and that ``slots`` holds at least one valid slot.
    """
    cdef Py_ssize_t size = out.shape[0] * out.shape[1], i, k
    if size == 0:
        return
    cdef float64_t *res = &out[0, 0]
    cdef const float64_t *term
    with nogil:
        term = &pool[slots[0], 0, 0]
        for i in range(size):
            res[i] = term[i]
        for k in range(1, slots.shape[0]):
            term = &pool[slots[k], 0, 0]
            for i in range(size):
                res[i] = res[i] + term[i]


def pool_delta(const float64_t[:, :, ::1] pool, const float64_t[:, ::1] base,
               const index_t[::1] minus, const index_t[::1] plus, float64_t[:, ::1] out):
    """``out = base - sum pool[minus] + sum pool[plus]`` (see :func:`pool_sum`).

    The removed slots must be finite (-inf - -inf is undefined).
    """
    cdef Py_ssize_t size = out.shape[0] * out.shape[1], i, k
    if size == 0:
        return
    cdef float64_t *res = &out[0, 0]
    cdef const float64_t *start = &base[0, 0]
    cdef const float64_t *term
    with nogil:
        for i in range(size):
            res[i] = start[i]
        for k in range(minus.shape[0]):
            term = &pool[minus[k], 0, 0]
            for i in range(size):
                res[i] = res[i] - term[i]
        for k in range(plus.shape[0]):
            term = &pool[plus[k], 0, 0]
            for i in range(size):
                res[i] = res[i] + term[i]


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


def family_index_counts(const code_t[:, ::1] codes, const index_t[::1] cols,
                        const index_t[::1] dims, const code_t[::1] truth,
                        const index_t[::1] fold, const float64_t[::1] weight,
                        index_t[::1] index, float64_t[:, ::1] counts):
    """Per row, the C-order index of its values of ``cols`` (-1 if one is
    missing); per fold, the weighted counts of (those values, class)."""
    cdef Py_ssize_t n = codes.shape[0], m = counts.shape[1], i, j, flat, v, n_class
    n_class = m
    for j in range(cols.shape[0]):
        n_class = n_class // dims[j]
    with nogil:
        for i in range(n):
            flat = 0
            for j in range(cols.shape[0]):
                v = codes[i, cols[j]]
                if v < 0:
                    flat = -1
                    break
                flat = flat * dims[j] + v
            index[i] = flat
            if flat >= 0:
                counts[fold[i], flat * n_class + truth[i]] += weight[i]


def gather_by_fold(const index_t[::1] index, const index_t[::1] fold,
                   const float64_t[:, ::1] tables, float64_t[:, ::1] out):
    """``out[i, c] = tables[fold[i], index[i] * C + c]``: each row reads the
    (log-)CPT of its own fold, class last; a row with index -1 gets 0."""
    cdef Py_ssize_t n = out.shape[0], m = out.shape[1], i, c, base
    with nogil:
        for i in range(n):
            base = index[i] * m
            for c in range(m):
                out[i, c] = tables[fold[i], base + c] if base >= 0 else 0.0


# Two scores tie in max.col when they differ by at most RELTOL of the larger,
# i.e. when their logs differ by at most -log1p(-RELTOL).
cdef double LOG_TIE = -log1p(-RELTOL)
# Above this log-score exp() is a normal double, so the log test is exact.
cdef double LOG_NORMAL = -700.0


def map_hits(const float64_t[:, ::1] log_scores, const code_t[::1] truth,
             const index_t[::1] fold, const float64_t[::1] weight, float64_t[::1] correct,
             index_t[::1] events):
    """R's ``max.col`` on ``exp(log_scores)``, adding the ``weight`` of each
    correct row to its fold's count.

    Rows where R would draw uniforms are not counted; ``events[i]`` is their
    number of draws (see :func:`max_col_ties`).  Two-class rows are decided
    on the logs, without exponentials.
    """
    cdef Py_ssize_t n = log_scores.shape[0], m = log_scores.shape[1], i, c, best
    cdef Py_ssize_t used = 0
    cdef double d, top
    if n == 0 or m == 0:
        return
    buffer = np.empty(m)
    cdef float64_t[::1] row = buffer
    cdef const double *x = &log_scores[0, 0]
    with nogil:
        for i in range(n):
            # a NaN score (R's NA: no prediction) goes the general way
            if m == 2 and not isnan(x[2 * i]) and not isnan(x[2 * i + 1]) \
                    and fmax(x[2 * i], x[2 * i + 1]) > LOG_NORMAL:
                d = x[2 * i + 1] - x[2 * i]
                if fabs(d) <= LOG_TIE:
                    events[i] = 1
                    continue
                events[i] = 0
                best = 1 if d > 0 else 0
            else:
                for c in range(m):
                    row[c] = exp(x[i * m + c])
                best = _row_max(&row[0], m, False, NULL, 0, &used, &events[i])
                if events[i] > 0:
                    continue
            if best == truth[i]:
                correct[fold[i]] += weight[i]
