# R's summation, shared by every kernel that must add as R does.
#
# R's sum() (and colMeans, rowSums) accumulates in long double, sequentially,
# and rounds to double once at the end; results match R bit for bit only if
# the terms are added in R's order with that accumulator.
from libc.math cimport log

# R's accumulator (LDOUBLE in R's C sources)
ctypedef long double racc_t


cdef inline double rsum(const double* values, Py_ssize_t n) noexcept nogil:
    """R's ``sum(values)``."""
    cdef racc_t acc = 0.0
    cdef Py_ssize_t i
    for i in range(n):
        acc += values[i]
    return <double>acc


cdef inline double rsum_positive_terms(const double* counts, const double* prob,
                                       Py_ssize_t k) noexcept nogil:
    """R's ``sum(c[c > 0] * log(p[c > 0]))``: each product rounded to double."""
    cdef racc_t acc = 0.0
    cdef double term
    cdef Py_ssize_t a
    for a in range(k):
        if counts[a] > 0:
            term = counts[a] * log(prob[a])
            acc += term
    return <double>acc
