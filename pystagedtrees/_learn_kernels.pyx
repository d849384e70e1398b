"""Kernels of the stage learners: log-likelihood sums and stage joins with R's arithmetic.

R stagedtrees decides between equally good joins by floating-point
comparisons, so results are reproduced only if every score is computed with
R's operations in R's order:

* ``sum()`` accumulates in long double, sequentially, and rounds once;
* a join reconstructs the two stages' counts from their probabilities and
  sample sizes, ``c = p (n + lambda k) - lambda``, and updates the chained
  log-likelihood as ``ll - dll + s`` (``join_stages_unsafe``);
* the score is ``-BIC = -(-2 ll + penalty * df)``.

The backward hill-climbing kernel keeps, for every pair of stages, the
change of log-likelihood of their join (``s - dll``), so a step costs a scan
of per-stage best values instead of a rescoring of every pair.  Pairs within
a small band of the best are then rescored exactly as R would, and R's tie
rule (the last best pair in R's visit order) picks among them.
"""
from libc.math cimport log, isnan, fabs, INFINITY, sqrt
from libc.stdint cimport int32_t, int64_t

ctypedef double float64_t

DEF MAX_LEVELS = 256


def max_levels():
    """Largest number of levels of a variable the kernels accept."""
    return MAX_LEVELS


cdef inline double rsum_positive_terms(const double* counts, const double* prob,
                                       Py_ssize_t k) noexcept nogil:
    """R's ``sum(c[c > 0] * log(p[c > 0]))`` (long double accumulation)."""
    cdef long double acc = 0.0
    cdef double term
    cdef Py_ssize_t a
    for a in range(k):
        if counts[a] > 0:
            term = counts[a] * log(prob[a])
            acc += term
    return <double>acc


cdef inline void join_stats(const double* p1, double n1, const double* p2, double n2,
                            double lam, Py_ssize_t k, double* new_p,
                            double* dll, double* gain) noexcept nogil:
    """One join as R's ``join_stages_unsafe`` computes it.

    Fills ``new_p`` with the joined stage's probabilities; ``dll`` is the
    removed log-likelihood of the two stages, ``gain`` that of the joined one.
    """
    cdef double c1[MAX_LEVELS]
    cdef double c2[MAX_LEVELS]
    cdef double p1z, p2z
    cdef long double total = 0.0
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


def variable_loglik(const float64_t[:, ::1] counts, const float64_t[:, ::1] prob):
    """R's per-variable log-likelihood: long-double sum, column by column.

    ``prob[r]`` is the probability row of situation ``r``'s stage.  Returns
    ``-inf`` when a positive count meets an undefined probability, as R.
    """
    cdef Py_ssize_t r, a, m = counts.shape[0], k = counts.shape[1]
    cdef long double acc = 0.0
    cdef double term
    cdef bint undefined = False
    with nogil:
        for r in range(m):
            for a in range(k):
                if isnan(prob[r, a]) and counts[r, a] > 0:
                    undefined = True
    if undefined:
        return -INFINITY
    with nogil:
        for a in range(k):
            for r in range(m):
                if prob[r, a] > 0:
                    term = log(prob[r, a]) * counts[r, a]
                    acc += term
    return <double>acc


def rsum(const float64_t[::1] values):
    """R's ``sum()`` of a double vector: sequential long-double accumulation."""
    cdef long double acc = 0.0
    cdef Py_ssize_t i
    for i in range(values.shape[0]):
        acc += values[i]
    return <double>acc


cdef inline double score_of(double ll, double df, double penalty) noexcept nogil:
    # R: score = -BIC(x) = -(-2 ll + log(nobs) df)  (penalty 2 for AIC)
    return -(-2.0 * ll + penalty * df)


cdef inline bint visits_later(Py_ssize_t a, Py_ssize_t b, Py_ssize_t c, Py_ssize_t d,
                              const int64_t[::1] first) noexcept nogil:
    """Whether pair (a, b) comes after pair (c, d) in R's loop.

    R's outer loop runs over the later stage of a pair, the inner one over
    the earlier stage (order of first appearance).
    """
    cdef int64_t late1 = max(first[a], first[b]), early1 = min(first[a], first[b])
    cdef int64_t late2 = max(first[c], first[d]), early2 = min(first[c], first[d])
    return late1 > late2 or (late1 == late2 and early1 > early2)


cdef class _PairTable:
    """Every join of two active stages: its removed and gained log-likelihood.

    ``row_best[a]`` is an upper bound of the best log-likelihood change of a
    join with stage ``a``; it is exact unless ``dirty[a]`` (a join removed or
    changed its best partner), and is refreshed lazily, when it matters.
    """
    cdef double[:, ::1] prob
    cdef double[::1] n
    cdef double[:, ::1] dll
    cdef double[:, ::1] gain
    cdef double[::1] row_best
    cdef int64_t[::1] row_arg
    cdef unsigned char[::1] dirty
    cdef unsigned char[::1] active
    cdef Py_ssize_t m, k
    cdef double lam

    def __init__(self, double[:, ::1] prob, double[::1] n, double lam):
        import numpy as np
        self.prob = prob
        self.n = n
        self.lam = lam
        self.m = prob.shape[0]
        self.k = prob.shape[1]
        self.dll = np.empty((self.m, self.m), dtype=np.float64)
        self.gain = np.empty((self.m, self.m), dtype=np.float64)
        self.row_best = np.empty(self.m, dtype=np.float64)
        self.row_arg = np.empty(self.m, dtype=np.int64)
        self.dirty = np.zeros(self.m, dtype=np.uint8)
        self.active = np.ones(self.m, dtype=np.uint8)

    cdef inline double delta(self, Py_ssize_t a, Py_ssize_t b) noexcept nogil:
        return self.gain[a, b] - self.dll[a, b]

    cdef void compute_pair(self, Py_ssize_t a, Py_ssize_t b) noexcept nogil:
        cdef double new_p[MAX_LEVELS]
        cdef double dll, gain
        join_stats(&self.prob[a, 0], self.n[a], &self.prob[b, 0], self.n[b],
                   self.lam, self.k, new_p, &dll, &gain)
        self.dll[a, b] = dll
        self.dll[b, a] = dll
        self.gain[a, b] = gain
        self.gain[b, a] = gain

    cdef void refresh_row(self, Py_ssize_t a) noexcept nogil:
        cdef Py_ssize_t b
        cdef double value
        self.row_best[a] = -INFINITY
        self.row_arg[a] = -1
        self.dirty[a] = 0
        for b in range(self.m):
            if b != a and self.active[b]:
                value = self.delta(a, b)
                if value > self.row_best[a]:
                    self.row_best[a] = value
                    self.row_arg[a] = b

    cdef void fill(self) noexcept nogil:
        cdef Py_ssize_t a, b
        for a in range(self.m):
            for b in range(a):
                self.compute_pair(a, b)
        for a in range(self.m):
            self.refresh_row(a)

    cdef double top(self) noexcept nogil:
        """The best log-likelihood change over all active pairs (-inf if none)."""
        cdef Py_ssize_t a, best_row
        cdef double bound
        while True:
            best_row = -1
            bound = -INFINITY
            for a in range(self.m):
                if self.active[a] and self.row_best[a] > bound:
                    bound = self.row_best[a]
                    best_row = a
            if best_row < 0 or not self.dirty[best_row]:
                return bound
            self.refresh_row(best_row)

    cdef bint row_reaches(self, Py_ssize_t a, double level) noexcept nogil:
        """Whether some join with stage ``a`` changes the log-likelihood by >= level."""
        if self.row_best[a] < level:
            return False
        if self.dirty[a]:
            self.refresh_row(a)
        return self.row_best[a] >= level

    cdef void join(self, Py_ssize_t keep, Py_ssize_t drop, const double* new_p) noexcept nogil:
        cdef Py_ssize_t b, i
        cdef double value
        for i in range(self.k):
            self.prob[keep, i] = new_p[i]
        self.n[keep] = self.n[keep] + self.n[drop]
        self.active[drop] = 0
        for b in range(self.m):
            if b == keep or not self.active[b]:
                continue
            self.compute_pair(keep, b)
            value = self.delta(b, keep)
            if self.row_arg[b] == keep or self.row_arg[b] == drop:
                self.dirty[b] = 1
                if value > self.row_best[b]:
                    self.row_best[b] = value
            elif value > self.row_best[b]:
                self.row_best[b] = value
                self.row_arg[b] = keep
        self.refresh_row(keep)


def backward_join(float64_t[:, ::1] prob, float64_t[::1] n, int64_t[::1] first,
                  double lam, double ll, double df, double penalty,
                  long max_iter, bint first_improvement, int64_t[:, ::1] merges):
    """Backward hill climbing over joins of pairs of stages of one variable.

    Parameters
    ----------
    prob, n : the stages' probabilities (m x k) and sample sizes; updated in
        place (a merged stage's row holds the joined values).
    first : rank of each stage in R's ``unique()`` order; updated in place.
    lam : the model's smoothing; ll, df : the chained log-likelihood and df.
    penalty : score penalty per free parameter (log(nobs) for BIC).
    max_iter : at most this many joins.
    first_improvement : FBHC (the first join, in R's order, that does not
        lower the score) instead of BHC (the last best join in R's order).
    merges : output, one row (kept stage, dropped stage) per join.

    Returns
    -------
    (number of joins, ll, df)
    """
    cdef Py_ssize_t m = prob.shape[0], k = prob.shape[1]
    cdef Py_ssize_t a, b, i, j, n_joins = 0, best_keep = -1, best_drop = -1
    cdef double new_p[MAX_LEVELS]
    cdef double best_p[MAX_LEVELS]
    cdef double cand_ll, score, best_score = 0.0, best_ll = 0.0, now_score
    cdef double needed, band, level
    cdef bint found
    if m < 2:
        return 0, ll, df
    import numpy as np
    cdef _PairTable t = _PairTable(prob, n, lam)
    order_arr = np.empty(m, dtype=np.int64)
    cdef int64_t[::1] order = order_arr
    cdef Py_ssize_t n_active = m
    first_arr = np.asarray(first)
    with nogil:
        t.fill()
        now_score = score_of(ll, df, penalty)
        # a join keeps the score iff its log-likelihood change >= -penalty (k - 1) / 2
        needed = -(penalty * (k - 1)) / 2.0
        while n_joins < max_iter and n_active > 1:
            band = 1e-9 * (1.0 + fabs(ll))
            found = False
            if first_improvement:
                with gil:
                    active_ids = np.flatnonzero(np.asarray(t.active))
                    order_arr[:n_active] = active_ids[np.argsort(first_arr[active_ids], kind="stable")]
                for i in range(1, n_active):
                    a = order[i]
                    if not t.row_reaches(a, needed - band):
                        continue
                    for j in range(i):
                        b = order[j]
                        if t.delta(a, b) < needed - band:
                            continue
                        cand_ll = (ll - t.dll[a, b]) + t.gain[a, b]
                        score = score_of(cand_ll, df - k + 1, penalty)
                        if score >= now_score:
                            found = True
                            best_keep, best_drop, best_ll, best_score = a, b, cand_ll, score
                            break
                    if found:
                        break
            else:
                level = t.top()
                if level >= needed - band:
                    level = level - band
                    best_score = now_score
                    for a in range(m):
                        if not t.active[a] or not t.row_reaches(a, level):
                            continue
                        for b in range(a):
                            if not t.active[b] or t.delta(a, b) < level:
                                continue
                            cand_ll = (ll - t.dll[a, b]) + t.gain[a, b]
                            score = score_of(cand_ll, df - k + 1, penalty)
                            # R keeps the last of equally good joins in its visit order
                            if score > best_score or (score == best_score and (
                                    not found or visits_later(a, b, best_keep, best_drop, first))):
                                found = True
                                best_score = score
                                best_ll = cand_ll
                                best_keep, best_drop = a, b
            if not found:
                break
            # R keeps the name (and the slot) of the later stage
            if first[best_keep] < first[best_drop]:
                best_keep, best_drop = best_drop, best_keep
            join_stats(&prob[best_keep, 0], n[best_keep], &prob[best_drop, 0], n[best_drop],
                       lam, k, best_p, &cand_ll, &score)
            t.join(best_keep, best_drop, best_p)
            first[best_keep] = first[best_drop]
            n_active -= 1
            ll = best_ll
            df = df - k + 1
            now_score = best_score
            merges[n_joins, 0] = best_keep
            merges[n_joins, 1] = best_drop
            n_joins += 1
    return n_joins, ll, df
