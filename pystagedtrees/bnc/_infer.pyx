"""Inference kernels: log-joint sums and R's ``max.col`` without the ties.

The Python layer guarantees codes within the CPT ranges and matching shapes.
"""
cimport numpy as cnp
from libc.math cimport exp, fabs, isfinite

cnp.import_array()

# R's max.col treats entries within this relative distance as tied.
cdef double RELTOL = 1e-5


def log_joint(const int[:, ::1] codes, const Py_ssize_t[::1] fam_ptr,
              const Py_ssize_t[::1] fam_cols, const Py_ssize_t[::1] fam_strides,
              const Py_ssize_t[::1] fam_offsets, const double[::1] log_cpts,
              const double[::1] log_prior, double[:, ::1] out):
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


def pool_sum(const double[:, :, ::1] pool, const Py_ssize_t[::1] slots,
             double[:, ::1] out):
    """``out = sum_k pool[slots[k]]``, added in the order of ``slots``."""
    cdef Py_ssize_t n = out.shape[0], m = out.shape[1], i, c, k
    cdef double s
    with nogil:
        for i in range(n):
            for c in range(m):
                s = pool[slots[0], i, c]
                for k in range(1, slots.shape[0]):
                    s = s + pool[slots[k], i, c]
                out[i, c] = s


def pool_delta(const double[:, :, ::1] pool, const double[:, ::1] base,
               const Py_ssize_t[::1] minus, const Py_ssize_t[::1] plus,
               const Py_ssize_t[::1] full, double[:, ::1] out):
    """``out = base - sum pool[minus] + sum pool[plus]``.

    Where a removed term is -inf the difference is undefined, so that cell
    is summed afresh over the ``full`` slot list.
    """
    cdef Py_ssize_t n = out.shape[0], m = out.shape[1], i, c, k
    cdef double s, v
    cdef bint fresh
    with nogil:
        for i in range(n):
            for c in range(m):
                s = base[i, c]
                fresh = False
                for k in range(minus.shape[0]):
                    v = pool[minus[k], i, c]
                    if not isfinite(v):
                        fresh = True
                        break
                    s = s - v
                if fresh:
                    s = pool[full[0], i, c]
                    for k in range(1, full.shape[0]):
                        s = s + pool[full[k], i, c]
                else:
                    for k in range(plus.shape[0]):
                        s = s + pool[plus[k], i, c]
                out[i, c] = s


cdef inline Py_ssize_t _row_max(const double *row, Py_ssize_t m, bint choose,
                                const double *u, Py_ssize_t *used,
                                Py_ssize_t *events) noexcept nogil:
    """R's ``max.col`` on one row of ``m`` scores, counting its tie events.

    With ``choose`` each tie event consumes ``u[used[0]]`` (advancing
    ``used``) as R consumes ``unif_rand()``; otherwise ties are only counted.
    Returns the chosen column, or -2 for a row holding NaN (R's NA).
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
                if ntie * u[used[0]] < 1.0:
                    best = c
                used[0] += 1
    return best


def max_col(const double[:, ::1] x, int[::1] pred, Py_ssize_t[::1] events):
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
            pred[i] = _row_max(base + i * m, m, False, NULL, &used, &events[i])


def max_col_ties(const double[:, ::1] x, const Py_ssize_t[::1] rows,
                 const double[::1] u, int[::1] pred):
    """Second pass: resolve the tied ``rows``, in order, with the uniforms ``u``."""
    cdef Py_ssize_t k, m = x.shape[1], used = 0, events = 0
    if rows.shape[0] == 0:
        return
    cdef const double *base = &x[0, 0]
    cdef const double *draws = &u[0]
    with nogil:
        for k in range(rows.shape[0]):
            pred[rows[k]] = _row_max(base + rows[k] * m, m, True, draws, &used, &events)


def family_index(const int[:, ::1] codes, const Py_ssize_t[::1] cols,
                 const Py_ssize_t[::1] dims, Py_ssize_t[::1] out):
    """C-order index of each row's values of ``cols`` (-1 if one is missing)."""
    cdef Py_ssize_t n = codes.shape[0], i, j, flat, v
    with nogil:
        for i in range(n):
            flat = 0
            for j in range(cols.shape[0]):
                v = codes[i, cols[j]]
                if v < 0:
                    flat = -1
                    break
                flat = flat * dims[j] + v
            out[i] = flat


def gather_by_fold(const Py_ssize_t[::1] index, const Py_ssize_t[::1] fold,
                   const double[:, ::1] tables, double[:, ::1] out):
    """``out[i, c] = tables[fold[i], index[i] * C + c]``: each row reads the
    (log-)CPT of its own fold, class last (rows with index >= 0)."""
    cdef Py_ssize_t n = out.shape[0], m = out.shape[1], i, c, base
    with nogil:
        for i in range(n):
            base = index[i] * m
            for c in range(m):
                out[i, c] = tables[fold[i], base + c]
