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


def max_col(const double[:, ::1] x, bint take_exp, int[::1] pred,
            signed char[::1] tie):
    """Row-wise argmax as R's ``max.col(ties.method="random")``.

    Rows where R would draw a random number are flagged in ``tie`` (and left
    for the caller, who owns the generator); the others get ``pred``.  With
    ``take_exp`` the scores are ``exp(x)``.  A row holding NaN is flagged.
    """
    cdef Py_ssize_t n = x.shape[0], m = x.shape[1], i, c, best
    cdef double large, a, b, tol
    cdef bint flagged
    with nogil:
        for i in range(n):
            large = 0.0
            flagged = False
            for c in range(m):
                b = exp(x[i, c]) if take_exp else x[i, c]
                if b != b:
                    flagged = True
                    break
                if isfinite(b) and fabs(b) > large:
                    large = fabs(b)
            if not flagged:
                tol = RELTOL * large
                a = exp(x[i, 0]) if take_exp else x[i, 0]
                best = 0
                for c in range(1, m):
                    b = exp(x[i, c]) if take_exp else x[i, c]
                    if b > a + tol:
                        a = b
                        best = c
                    elif b >= a - tol:
                        flagged = True
                        break
            tie[i] = flagged
            pred[i] = -1 if flagged else best
