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


cdef inline void stage_cell_counts(const double* p, double n, double lam, Py_ssize_t k,
                                   double* counts) noexcept nogil:
    """A stage's counts as R reconstructs them, c = p (n + lambda k) - lambda
    (an unset probability counts as 0)."""
    cdef double scale = n + lam * k
    cdef Py_ssize_t a
    for a in range(k):
        counts[a] = (0.0 if isnan(p[a]) else p[a]) * scale - lam


cdef inline double own_term(const double* p, double n, double lam, Py_ssize_t k) noexcept nogil:
    """A stage's part of the log-likelihood a join removes (``dll`` is the
    sum of the two stages' parts): a kernel trying many joins of one stage
    computes it once."""
    cdef double counts[MAX_LEVELS]
    stage_cell_counts(p, n, lam, k, counts)
    return rsum_positive_terms(counts, p, k)


cdef inline void join_stats_with_terms(const double* p1, double n1, double t1,
                                       const double* p2, double n2, double t2,
                                       double lam, Py_ssize_t k, double* new_p,
                                       double* dll, double* gain) noexcept nogil:
    """:func:`join_stats` given each stage's :func:`own_term` (``t1``, ``t2``)."""
    cdef double c1[MAX_LEVELS]
    cdef double c2[MAX_LEVELS]
    cdef racc_t total = 0.0
    cdef Py_ssize_t a
    stage_cell_counts(p1, n1, lam, k, c1)
    stage_cell_counts(p2, n2, lam, k, c2)
    dll[0] = t2 + t1
    for a in range(k):
        new_p[a] = c2[a] + c1[a] + lam
        total += new_p[a]
    for a in range(k):
        new_p[a] = new_p[a] / <double>total
        c1[a] = c1[a] + c2[a]
    gain[0] = rsum_positive_terms(c1, new_p, k)


cdef inline void join_stats(const double* p1, double n1, const double* p2, double n2,
                            double lam, Py_ssize_t k, double* new_p,
                            double* dll, double* gain) noexcept nogil:
    """One join as R's ``join_stages_unsafe`` computes it (``k <= MAX_LEVELS``).

    Fills ``new_p`` with the joined stage's probabilities; ``dll`` is the
    removed log-likelihood of the two stages, ``gain`` that of the joined one.
    """
    join_stats_with_terms(p1, n1, own_term(p1, n1, lam, k), p2, n2, own_term(p2, n2, lam, k),
                          lam, k, new_p, dll, gain)
