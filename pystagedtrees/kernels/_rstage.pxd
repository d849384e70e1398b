# R stagedtrees' arithmetic on stages, shared by the stage learners' kernels.
#
# Results are reproduced only if every score is computed with R's operations
# in R's order: a join reconstructs the two stages' counts from their
# probabilities and sample sizes, c = p (n + lambda k) - lambda, and updates
# the chained log-likelihood as ll - dll + s (R's join_stages_unsafe); the
# score is -BIC = -(-2 ll + penalty * df).
from libc.math cimport INFINITY, isnan, log

from pystagedtrees.kernels._limits cimport MAX_LEVELS
from pystagedtrees.kernels._rsum cimport racc_t, rsum_positive_terms


cdef inline double score_of(double ll, double df, double penalty) noexcept nogil:
    # R: score = -BIC(x) = -(-2 ll + log(nobs) df)  (penalty 2 for AIC)
    return -(-2.0 * ll + penalty * df)


cdef inline double count_term(double p, double count) noexcept nogil:
    """R's term of one table cell (``log(p) * n`` where ``p > 0``); NaN with
    a count is -inf, as the whole log-likelihood then is."""
    if isnan(p):
        return -INFINITY if count > 0 else 0.0
    if p > 0 and count != 0:  # (an empty cell adds a zero: no log needed)
        return log(p) * count
    return 0.0


cdef inline racc_t stage_term(const double* counts, double total, double lam,
                              Py_ssize_t k) noexcept nogil:
    """Log-likelihood of one stage refitted from its counts (R's smoothing),
    left in R's accumulator."""
    cdef racc_t acc = 0.0
    cdef double denom = total + lam * k, term
    cdef Py_ssize_t a
    if total <= 0:
        return 0.0
    for a in range(k):
        if counts[a] > 0:
            term = counts[a] * log((counts[a] + lam) / denom)
            acc += term
    return acc


cdef inline void join_stats(const double* p1, double n1, const double* p2, double n2,
                            double lam, Py_ssize_t k, double* new_p,
                            double* dll, double* gain) noexcept nogil:
    """One join as R's ``join_stages_unsafe`` computes it (``k <= MAX_LEVELS``).

    Fills ``new_p`` with the joined stage's probabilities; ``dll`` is the
    removed log-likelihood of the two stages, ``gain`` that of the joined one.
    """
    cdef double c1[MAX_LEVELS]
    cdef double c2[MAX_LEVELS]
    cdef double p1z, p2z
    cdef racc_t total = 0.0
    cdef double scale1 = n1 + lam * k
    cdef double scale2 = n2 + lam * k
    cdef Py_ssize_t a
    for a in range(k):
        p1z = 0.0 if isnan(p1[a]) else p1[a]
        p2z = 0.0 if isnan(p2[a]) else p2[a]
        c1[a] = p1z * scale1 - lam
        c2[a] = p2z * scale2 - lam
    dll[0] = rsum_positive_terms(c2, p2, k) + rsum_positive_terms(c1, p1, k)
    for a in range(k):
        new_p[a] = c2[a] + c1[a] + lam
        total += new_p[a]
    for a in range(k):
        new_p[a] = new_p[a] / <double>total
        c1[a] = c1[a] + c2[a]
    gain[0] = rsum_positive_terms(c1, new_p, k)
