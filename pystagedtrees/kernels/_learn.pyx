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
DEF NEAREST_LISTED = 16  # stages_bj: closest unchanged partners a stage lists


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


cdef inline double _count_term(double p, double count) noexcept nogil:
    """R's term of one table cell (``log(p) * n`` where ``p > 0``); NaN with
    a count is -inf, as the whole log-likelihood then is."""
    if isnan(p):
        return -INFINITY if count > 0 else 0.0
    if p > 0:
        return log(p) * count
    return 0.0


def variable_loglik(const float64_t[:, ::1] counts, const float64_t[:, ::1] prob):
    """R's per-variable log-likelihood: long-double sum, column by column.

    ``prob[r]`` is the probability row of situation ``r``'s stage.  Returns
    ``-inf`` when a positive count meets an undefined probability, as R.
    """
    cdef Py_ssize_t r, a, m = counts.shape[0], k = counts.shape[1]
    cdef long double acc = 0.0
    with nogil:
        for a in range(k):
            for r in range(m):
                acc += _count_term(prob[r, a], counts[r, a])
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


cdef class _ClassTable:
    """Joins of stages grouped into classes of identical stages.

    Stages with bit-identical probabilities and sample sizes give the same
    join arithmetic, so the log-likelihood changes are kept per pair of
    classes (``dll``, ``gain``; the diagonal is a join inside a class of at
    least two stages).  Tie-heavy trees (many situations with the same few
    counts) then cost as many classes as distinct stages, not stages.

    Members of a class are linked in decreasing rank (R's ``unique()``
    order), so the last pair of a class pair in R's visit order is read off
    the heads.  ``row_best[c]`` bounds the best change of a join involving
    class ``c``; it is exact unless ``dirty[c]``.
    """
    cdef double[:, ::1] prob
    cdef double[::1] n
    cdef int64_t[::1] rank
    cdef int64_t[::1] cls
    cdef int64_t[::1] head
    cdef int64_t[::1] nxt
    cdef int64_t[::1] count
    cdef int64_t[::1] free
    cdef Py_ssize_t n_free
    cdef double[:, ::1] dll
    cdef double[:, ::1] gain
    cdef double[::1] row_best
    cdef int64_t[::1] row_arg
    cdef unsigned char[::1] dirty
    cdef Py_ssize_t m, k
    cdef double lam

    def __init__(self, double[:, ::1] prob, double[::1] n, int64_t[::1] rank,
                 int64_t[::1] cls, double lam):
        import numpy as np
        self.prob = prob
        self.n = n
        self.rank = rank
        self.cls = cls
        self.lam = lam
        self.m = prob.shape[0]
        self.k = prob.shape[1]
        self.head = np.full(self.m, -1, dtype=np.int64)
        self.nxt = np.full(self.m, -1, dtype=np.int64)
        self.count = np.zeros(self.m, dtype=np.int64)
        self.free = np.empty(self.m, dtype=np.int64)
        self.n_free = 0
        self.dll = np.empty((self.m, self.m), dtype=np.float64)
        self.gain = np.empty((self.m, self.m), dtype=np.float64)
        self.row_best = np.full(self.m, -np.inf)
        self.row_arg = np.full(self.m, -1, dtype=np.int64)
        self.dirty = np.zeros(self.m, dtype=np.uint8)

    cdef inline bint valid(self, Py_ssize_t c, Py_ssize_t d) noexcept nogil:
        if c == d:
            return self.count[c] >= 2
        return self.count[c] >= 1 and self.count[d] >= 1

    cdef inline double delta(self, Py_ssize_t c, Py_ssize_t d) noexcept nogil:
        return self.gain[c, d] - self.dll[c, d]

    cdef void insert(self, Py_ssize_t s, Py_ssize_t c) noexcept nogil:
        """Add stage ``s`` to class ``c``, keeping members by decreasing rank."""
        cdef Py_ssize_t cur = self.head[c], prev = -1
        while cur >= 0 and self.rank[cur] > self.rank[s]:
            prev = cur
            cur = self.nxt[cur]
        self.nxt[s] = cur
        if prev < 0:
            self.head[c] = s
        else:
            self.nxt[prev] = s
        self.cls[s] = c
        self.count[c] += 1

    cdef void remove(self, Py_ssize_t s) noexcept nogil:
        cdef Py_ssize_t c = self.cls[s], cur = self.head[c], prev = -1
        while cur != s:
            prev = cur
            cur = self.nxt[cur]
        if prev < 0:
            self.head[c] = self.nxt[s]
        else:
            self.nxt[prev] = self.nxt[s]
        self.count[c] -= 1
        if self.count[c] == 0:
            self.free[self.n_free] = c
            self.n_free += 1

    cdef void compute_pair(self, Py_ssize_t c, Py_ssize_t d) noexcept nogil:
        cdef double new_p[MAX_LEVELS]
        cdef double dll, gain
        cdef Py_ssize_t a = self.head[c], b = self.head[d]
        join_stats(&self.prob[a, 0], self.n[a], &self.prob[b, 0], self.n[b],
                   self.lam, self.k, new_p, &dll, &gain)
        self.dll[c, d] = dll
        self.dll[d, c] = dll
        self.gain[c, d] = gain
        self.gain[d, c] = gain

    cdef void refresh_row(self, Py_ssize_t c) noexcept nogil:
        cdef Py_ssize_t d
        cdef double value
        self.row_best[c] = -INFINITY
        self.row_arg[c] = -1
        self.dirty[c] = 0
        for d in range(self.m):
            if self.valid(c, d):
                value = self.delta(c, d)
                if value > self.row_best[c]:
                    self.row_best[c] = value
                    self.row_arg[c] = d

    cdef void fill(self) noexcept nogil:
        cdef Py_ssize_t s, c, d
        for s in range(self.m):
            self.insert(s, self.cls[s])
        for c in range(self.m):
            if self.count[c] == 0:
                self.free[self.n_free] = c
                self.n_free += 1
                continue
            for d in range(c + 1):
                if self.count[d] > 0:
                    self.compute_pair(c, d)
        for c in range(self.m):
            if self.count[c] > 0:
                self.refresh_row(c)

    cdef double top(self) noexcept nogil:
        """The best log-likelihood change over all joins (-inf if none)."""
        cdef Py_ssize_t c, best_row
        cdef double bound
        while True:
            best_row = -1
            bound = -INFINITY
            for c in range(self.m):
                if self.count[c] > 0 and self.row_best[c] > bound:
                    bound = self.row_best[c]
                    best_row = c
            if best_row < 0 or not self.dirty[best_row]:
                return bound
            self.refresh_row(best_row)

    cdef bint row_reaches(self, Py_ssize_t c, double level) noexcept nogil:
        if self.row_best[c] < level:
            return False
        if self.dirty[c]:
            self.refresh_row(c)
        return self.row_best[c] >= level

    cdef void representatives(self, Py_ssize_t c, Py_ssize_t d, int64_t* late,
                              int64_t* early) noexcept nogil:
        """The pair of members of classes c, d that R visits last."""
        cdef int64_t hc = self.head[c], hd = self.head[d]
        if c == d:
            late[0], early[0] = hc, self.nxt[hc]
        elif self.rank[hc] > self.rank[hd]:
            late[0], early[0] = hc, hd
        else:
            late[0], early[0] = hd, hc

    cdef Py_ssize_t identical_class(self, Py_ssize_t s) noexcept nogil:
        """An active class whose stages equal stage ``s`` bit for bit, or -1."""
        cdef Py_ssize_t c, a, r
        cdef bint same
        for c in range(self.m):
            if self.count[c] == 0:
                continue
            r = self.head[c]
            if r == s or self.n[r] != self.n[s]:
                continue
            same = True
            for a in range(self.k):
                if not (self.prob[r, a] == self.prob[s, a] or
                        (isnan(self.prob[r, a]) and isnan(self.prob[s, a]))):
                    same = False
                    break
            if same:
                return c
        return -1

    cdef void join(self, Py_ssize_t keep, Py_ssize_t drop, const double* new_p) noexcept nogil:
        """Replace stages keep/drop by the joined stage (in keep's slot)."""
        cdef Py_ssize_t old_keep = self.cls[keep], old_drop = self.cls[drop], c, d, i
        cdef double value
        self.remove(keep)
        self.remove(drop)
        for i in range(self.k):
            self.prob[keep, i] = new_p[i]
        self.n[keep] = self.n[keep] + self.n[drop]
        self.rank[keep] = self.rank[drop]
        c = self.identical_class(keep)
        if c >= 0:
            self.insert(keep, c)
            if self.count[c] == 2 and self.delta(c, c) > self.row_best[c]:
                self.row_best[c] = self.delta(c, c)
                self.row_arg[c] = c
        else:
            self.n_free -= 1
            c = self.free[self.n_free]
            self.head[c] = -1
            self.insert(keep, c)
            for d in range(self.m):
                if self.count[d] > 0:
                    self.compute_pair(c, d)
            self.refresh_row(c)
        # rows whose best partner changed (emptied, single member, or reused id)
        for d in range(self.m):
            if self.count[d] == 0:
                continue
            if self.row_arg[d] == old_keep or self.row_arg[d] == old_drop or self.row_arg[d] == c:
                self.dirty[d] = 1
            if self.valid(d, c):
                value = self.delta(d, c)
                if value > self.row_best[d]:
                    self.row_best[d] = value
                    self.row_arg[d] = c


def backward_join(float64_t[:, ::1] prob, float64_t[::1] n, int64_t[::1] first,
                  stage_classes, double lam, double ll, double df, double penalty,
                  long max_iter, bint first_improvement, int64_t[:, ::1] merges):
    """Backward hill climbing over joins of pairs of stages of one variable.

    Parameters
    ----------
    prob, n : the stages' probabilities (m x k) and sample sizes; updated in
        place (a merged stage's row holds the joined values).
    first : rank of each stage in R's ``unique()`` order; updated in place.
    stage_classes : class of each stage (equal ids for bit-identical stages).
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
    cdef Py_ssize_t a, b, c, d, i, j, n_joins = 0, best_keep = -1, best_drop = -1
    cdef double new_p[MAX_LEVELS]
    cdef double best_p[MAX_LEVELS]
    cdef double cand_ll, score, best_score = 0.0, best_ll = 0.0, now_score, dll, gain
    cdef double needed, band, level
    cdef int64_t late, early
    cdef bint found
    if m < 2:
        return 0, ll, df
    import numpy as np
    cdef _ClassTable t = None
    if not first_improvement:
        t = _ClassTable(prob, n, first, np.asarray(stage_classes, dtype=np.int64).copy(), lam)
    active_arr = np.ones(m, dtype=np.uint8)
    cdef unsigned char[::1] active = active_arr
    order_arr = np.empty(m, dtype=np.int64)
    cdef int64_t[::1] order = order_arr
    cdef Py_ssize_t n_active = m
    first_arr = np.asarray(first)
    with nogil:
        if t is not None:
            t.fill()
        now_score = score_of(ll, df, penalty)
        # a join keeps the score iff its log-likelihood change >= -penalty (k - 1) / 2
        needed = -(penalty * (k - 1)) / 2.0
        while n_joins < max_iter and n_active > 1:
            band = 1e-9 * (1.0 + fabs(ll))
            found = False
            if first_improvement:
                with gil:
                    active_ids = np.flatnonzero(active_arr)
                    order_arr[:n_active] = active_ids[np.argsort(first_arr[active_ids], kind="stable")]
                # R's order, pair by pair, until the first join that keeps the score
                for i in range(1, n_active):
                    a = order[i]
                    for j in range(i):
                        b = order[j]
                        join_stats(&prob[a, 0], n[a], &prob[b, 0], n[b], lam, k,
                                   new_p, &dll, &gain)
                        cand_ll = (ll - dll) + gain
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
                    for c in range(m):
                        if t.count[c] == 0 or not t.row_reaches(c, level):
                            continue
                        for d in range(c + 1):
                            if not t.valid(c, d) or t.delta(c, d) < level:
                                continue
                            cand_ll = (ll - t.dll[c, d]) + t.gain[c, d]
                            score = score_of(cand_ll, df - k + 1, penalty)
                            t.representatives(c, d, &late, &early)
                            # R keeps the last of equally good joins in its visit order
                            if score > best_score or (score == best_score and (
                                    not found or first[late] > first[best_keep] or (
                                        first[late] == first[best_keep]
                                        and first[early] > first[best_drop]))):
                                found = True
                                best_score = score
                                best_ll = cand_ll
                                best_keep, best_drop = late, early
            if not found:
                break
            # R keeps the name (and the slot) of the later stage
            join_stats(&prob[best_keep, 0], n[best_keep], &prob[best_drop, 0], n[best_drop],
                       lam, k, best_p, &dll, &gain)
            if t is not None:
                t.join(best_keep, best_drop, best_p)
            else:
                for i in range(k):
                    prob[best_keep, i] = best_p[i]
                n[best_keep] = n[best_keep] + n[best_drop]
                first[best_keep] = first[best_drop]
            active[best_drop] = 0
            n_active -= 1
            ll = best_ll
            df = df - k + 1
            now_score = best_score
            merges[n_joins, 0] = best_keep
            merges[n_joins, 1] = best_drop
            n_joins += 1
    return n_joins, ll, df


# -- distances between stage probabilities (R: R/probdist.R) ---------------------

DISTANCE_CODES = {
    "manhattan": 0, "euclidean": 1, "reny": 2, "kullback": 3,
    "totvar": 4, "hellinger": 5, "bhatt": 6, "chandarw": 7,
}


cdef double probdist(int code, const double* x, const double* y, Py_ssize_t k) noexcept nogil:
    """R's ``probdist.*(x, y)``: same operations, long-double sums."""
    cdef long double acc = 0.0, acc2 = 0.0
    cdef double term, ratio, lo = INFINITY, hi = -INFINITY
    cdef Py_ssize_t a
    for a in range(k):
        # reny, kullback and chandarw drop the coordinates where both are 0
        if (code == 2 or code == 3 or code == 7) and x[a] == 0 and y[a] == 0:
            continue
        if code == 0 or code == 4:
            term = fabs(x[a] - y[a])
            acc += term
        elif code == 1:
            term = fabs(x[a] - y[a])
            term = term * term
            acc += term
        elif code == 2:
            term = x[a] * x[a] / y[a]
            acc += term
            term = y[a] * y[a] / x[a]
            acc2 += term
        elif code == 3:
            term = x[a] * (log(x[a]) - log(y[a]))
            acc += term
            term = y[a] * (log(y[a]) - log(x[a]))
            acc2 += term
        elif code == 5:
            term = sqrt(x[a]) - sqrt(y[a])
            term = term * term
            acc += term
        elif code == 6:
            term = sqrt(x[a] * y[a])
            acc += term
        else:
            ratio = x[a] / y[a]
            if isnan(ratio):
                return ratio
            hi = ratio if ratio > hi else hi
            lo = ratio if ratio < lo else lo
    if code == 1:
        return sqrt(<double>acc)
    if code == 2:
        return log(<double>acc) + log(<double>acc2)
    if code == 3:
        return <double>acc + <double>acc2
    if code == 6:
        return -log(<double>acc)
    if code == 7:
        return log(hi) - log(lo)
    return <double>acc


def stage_distance(str distance, const float64_t[::1] x, const float64_t[::1] y):
    """R's distance between two probability vectors (see ``DISTANCE_CODES``)."""
    return probdist(DISTANCE_CODES[distance], &x[0], &y[0], x.shape[0])


cdef inline bint pair_before(int64_t a, int64_t b, int64_t c, int64_t d) noexcept nogil:
    """Whether pair {a, b} precedes {c, d} in column-major order of R's matrix."""
    cdef int64_t lo1 = min(a, b), hi1 = max(a, b), lo2 = min(c, d), hi2 = max(c, d)
    return lo1 < lo2 or (lo1 == lo2 and hi1 < hi2)


def backward_join_distance(float64_t[:, ::1] prob, float64_t[::1] n, const int64_t[::1] rank,
                           double lam, double ll, double df, str distance, double thr,
                           int64_t[:, ::1] merges):
    """Backward joining of the two closest stages while closer than ``thr`` (R: ``stages_bj``).

    ``rank`` orders the stages as R's ``unique()``; the closest pair is the
    first minimum of R's distance matrix in column-major order, and the
    join keeps the earlier stage.  Probabilities, sample sizes and the
    chained log-likelihood follow R's ``join_stages_unsafe``.

    Each stage keeps its nearest partner.  Only stages that kept a join
    ("changed") get new distances, so when a stage must search again its
    nearest partner is the first live unchanged one among its closest
    unchanged partners, listed in (distance, rank) order -- R's tie order
    among a stage's partners is their rank -- or one of the changed stages.
    The list is refilled by a scan of all stages only when it runs out, so
    stages with many identical partners (small data, smoothing) need no
    scan per join.

    Returns
    -------
    (number of joins, ll, df)
    """
    cdef Py_ssize_t m = prob.shape[0], k = prob.shape[1]
    cdef int code = DISTANCE_CODES[distance]
    cdef Py_ssize_t a, b, keep, drop, best_row, n_joins = 0, n_changed = 0
    cdef double value, best, dll, gain
    cdef double new_p[MAX_LEVELS]
    if m < 2:
        return 0, ll, df
    import numpy as np
    dist_arr = np.full((m, m), np.nan)
    row_min_arr = np.full(m, np.inf)
    row_arg_arr = np.full(m, -1, dtype=np.int64)
    active_arr = np.ones(m, dtype=np.uint8)
    cdef double[:, ::1] dist = dist_arr
    cdef double[::1] row_min = row_min_arr
    cdef int64_t[::1] row_arg = row_arg_arr
    cdef unsigned char[::1] active = active_arr
    with nogil:
        for a in range(m):
            for b in range(a):
                # R computes the lower triangle: the later stage first
                if rank[a] > rank[b]:
                    value = probdist(code, &prob[a, 0], &prob[b, 0], k)
                else:
                    value = probdist(code, &prob[b, 0], &prob[a, 0], k)
                dist[a, b] = value
                dist[b, a] = value
    partners_arr = np.empty((m, NEAREST_LISTED), dtype=np.int32)
    # a full list used up: the first search fills it
    next_arr = np.full(m, NEAREST_LISTED, dtype=np.int64)
    listed_arr = np.full(m, NEAREST_LISTED, dtype=np.int64)
    changed_arr = np.zeros(m, dtype=np.uint8)
    changed_list_arr = np.empty(m, dtype=np.int64)
    cdef int32_t[:, ::1] partners = partners_arr
    cdef int64_t[::1] next_partner = next_arr
    cdef int64_t[::1] n_listed = listed_arr
    cdef unsigned char[::1] changed = changed_arr
    cdef int64_t[::1] changed_list = changed_list_arr
    with nogil:
        for a in range(m):
            _scan_nearest(dist, active, rank, a, row_min, row_arg)
        while True:
            best_row = -1
            best = INFINITY
            for a in range(m):
                if not active[a] or row_arg[a] < 0:
                    continue
                if best_row < 0 or row_min[a] < best or (row_min[a] == best and pair_before(
                        rank[a], rank[row_arg[a]], rank[best_row], rank[row_arg[best_row]])):
                    best_row = a
                    best = row_min[a]
            if best_row < 0 or not fabs(best) < thr:
                break
            a, b = best_row, row_arg[best_row]
            keep, drop = (a, b) if rank[a] < rank[b] else (b, a)
            join_stats(&prob[keep, 0], n[keep], &prob[drop, 0], n[drop], lam, k,
                       new_p, &dll, &gain)
            for a in range(k):
                prob[keep, a] = new_p[a]
            n[keep] = n[keep] + n[drop]
            ll = (ll - dll) + gain
            df = df - k + 1
            active[drop] = 0
            merges[n_joins, 0] = keep
            merges[n_joins, 1] = drop
            n_joins += 1
            if not changed[keep]:
                changed[keep] = 1
                changed_list[n_changed] = keep
                n_changed += 1
            for b in range(m):
                if b == keep or not active[b]:
                    continue
                if rank[keep] > rank[b]:
                    value = probdist(code, &prob[keep, 0], &prob[b, 0], k)
                else:
                    value = probdist(code, &prob[b, 0], &prob[keep, 0], k)
                dist[keep, b] = value
                dist[b, keep] = value
            for b in range(m):
                if not active[b]:
                    continue
                value = dist[b, keep]
                # Every other partner of b is at least row_min[b] away, so
                # only a nearest partner that moved away or left needs a search.
                if b == keep or (row_arg[b] == keep and not value <= row_min[b]):
                    _nearest(dist, active, rank, partners, next_partner, n_listed, changed,
                             changed_list, n_changed, b, row_min, row_arg)
                elif row_arg[b] == keep:
                    row_min[b] = value  # keep already came first among equals
                elif row_arg[b] == drop:
                    if value < row_min[b]:
                        row_min[b] = value
                        row_arg[b] = keep
                    else:  # a tie with another partner needs R's order
                        _nearest(dist, active, rank, partners, next_partner, n_listed,
                                 changed, changed_list, n_changed, b, row_min, row_arg)
                elif _better(value, rank[keep], row_min[b], rank[row_arg[b]]):
                    row_min[b] = value
                    row_arg[b] = keep
    return n_joins, ll, df


cdef inline bint _partner_before(double d1, int64_t r1, double d2, int64_t r2) noexcept nogil:
    """Whether a partner (distance, rank) comes before another for one stage."""
    return d1 < d2 or (d1 == d2 and r1 < r2)


cdef inline bint _better(double value, int64_t r_new, double current,
                         int64_t r_current) noexcept nogil:
    """Whether a partner (value, rank) beats the current one (smaller, then first in order).

    For one stage, R's column-major order among its partners is their rank.
    """
    return not isnan(value) and _partner_before(value, r_new, current, r_current)


cdef void _scan_nearest(double[:, ::1] dist, const unsigned char[::1] active,
                        const int64_t[::1] rank, Py_ssize_t a, double[::1] row_min,
                        int64_t[::1] row_arg) noexcept nogil:
    """Nearest live partner of stage ``a`` by a scan of all stages (R's tie order)."""
    cdef Py_ssize_t b
    row_min[a] = INFINITY
    row_arg[a] = -1
    for b in range(dist.shape[0]):
        if b == a or not active[b] or isnan(dist[a, b]):
            continue
        if row_arg[a] < 0 or _better(dist[a, b], rank[b], row_min[a], rank[row_arg[a]]):
            row_min[a] = dist[a, b]
            row_arg[a] = b


cdef void _list_partners(double[:, ::1] dist, const unsigned char[::1] active,
                         const int64_t[::1] rank, const unsigned char[::1] changed,
                         Py_ssize_t a, int32_t[:, ::1] partners, int64_t[::1] n_listed) noexcept nogil:
    """List the closest live unchanged partners of ``a``, in (distance, rank) order."""
    cdef Py_ssize_t c, j, n = 0
    cdef double d
    for c in range(dist.shape[0]):
        d = dist[a, c]
        if c == a or not active[c] or changed[c] or isnan(d):
            continue
        if n == NEAREST_LISTED and not _partner_before(
                d, rank[c], dist[a, partners[a, n - 1]], rank[partners[a, n - 1]]):
            continue
        j = n if n < NEAREST_LISTED else n - 1
        while j > 0 and _partner_before(d, rank[c], dist[a, partners[a, j - 1]],
                                        rank[partners[a, j - 1]]):
            partners[a, j] = partners[a, j - 1]
            j -= 1
        partners[a, j] = <int32_t> c
        if n < NEAREST_LISTED:
            n += 1
    n_listed[a] = n


cdef void _nearest(double[:, ::1] dist, const unsigned char[::1] active,
                   const int64_t[::1] rank, int32_t[:, ::1] partners,
                   int64_t[::1] next_partner, int64_t[::1] n_listed,
                   const unsigned char[::1] changed, const int64_t[::1] changed_list,
                   Py_ssize_t n_changed, Py_ssize_t a, double[::1] row_min,
                   int64_t[::1] row_arg) noexcept nogil:
    """Nearest live partner of stage ``a`` (R's tie order), into row_min/row_arg.

    Unchanged partners keep their distances to an unchanged ``a``, so the
    first live unchanged listed partner beats every unlisted one; a listed
    partner that died or changed stays skipped.
    """
    cdef Py_ssize_t j, c
    if changed[a]:  # all its distances were recomputed: its list is stale
        _scan_nearest(dist, active, rank, a, row_min, row_arg)
        return
    while next_partner[a] < n_listed[a]:
        c = partners[a, next_partner[a]]
        if active[c] and not changed[c]:
            break
        next_partner[a] += 1
    if next_partner[a] == NEAREST_LISTED:
        # A full list used up: unlisted partners may remain.  (A short list
        # held every live unchanged partner, and none can join them later.)
        _list_partners(dist, active, rank, changed, a, partners, n_listed)
        next_partner[a] = 0
    row_min[a] = INFINITY
    row_arg[a] = -1
    if next_partner[a] < n_listed[a]:
        row_arg[a] = partners[a, next_partner[a]]
        row_min[a] = dist[a, row_arg[a]]
    for j in range(n_changed):
        c = changed_list[j]
        if c == a or not active[c] or isnan(dist[a, c]):
            continue
        if row_arg[a] < 0 or _better(dist[a, c], rank[c], row_min[a], rank[row_arg[a]]):
            row_min[a] = dist[a, c]
            row_arg[a] = c


# -- hill climbing over single situations (R: stages_hc) -------------------------

cdef inline long double stage_term(const double* counts, double total, double lam,
                                   Py_ssize_t k) noexcept nogil:
    """Log-likelihood of one stage refitted from its counts (R's smoothing)."""
    cdef long double acc = 0.0
    cdef double denom = total + lam * k, term
    cdef Py_ssize_t a
    if total <= 0:
        return 0.0
    for a in range(k):
        if counts[a] > 0:
            term = counts[a] * log((counts[a] + lam) / denom)
            acc += term
    return acc


# room for the moves of one stages_hc iteration that tie up to rounding;
# beyond it the first of them is made
DEF HC_RIVALS = 64


cdef double _r_move_score(const float64_t[:, ::1] row_counts, const int64_t[::1] row_sit,
                          const double[:, ::1] fixed_terms, const float64_t[::1] var_lls,
                          Py_ssize_t var_pos, const int64_t[::1] sit_stage, Py_ssize_t moved,
                          Py_ssize_t target, double lam, double df, double penalty,
                          double[:, ::1] prob, double[:, ::1] logp, int64_t[::1] stamp,
                          int64_t call) noexcept nogil:
    """The score R gives the model with situation ``moved`` in stage ``target``
    (-1: as it is): the movable stages refitted from the table rows in order,
    the variable's log-likelihood summed level by level over the rows, then
    the variables' in order (as :func:`variable_loglik` and :func:`rsum`)."""
    cdef Py_ssize_t m = row_counts.shape[0], k = row_counts.shape[1], r, a, i, s
    cdef long double acc = 0.0
    cdef double denom, term
    for r in range(m):
        i = row_sit[r]
        if i < 0:
            continue
        s = target if i == moved else sit_stage[i]
        if stamp[s] != 2 * call:
            stamp[s] = 2 * call
            for a in range(k):
                prob[s, a] = 0.0
        for a in range(k):
            prob[s, a] += row_counts[r, a]
    for r in range(m):
        i = row_sit[r]
        if i < 0:
            continue
        s = target if i == moved else sit_stage[i]
        if stamp[s] == 2 * call:
            stamp[s] = 2 * call + 1
            denom = 0.0
            for a in range(k):
                prob[s, a] = prob[s, a] + lam
                denom = denom + prob[s, a]
            for a in range(k):
                prob[s, a] = prob[s, a] / denom
                logp[s, a] = log(prob[s, a]) if prob[s, a] > 0 else 0.0
    for a in range(k):
        for r in range(m):
            i = row_sit[r]
            if i < 0:
                acc += fixed_terms[r, a]
            else:
                s = target if i == moved else sit_stage[i]
                if prob[s, a] > 0:
                    term = logp[s, a] * row_counts[r, a]
                    acc += term
    cdef long double total = 0.0
    for i in range(var_lls.shape[0]):
        total += <double>acc if i == var_pos else var_lls[i]
    return score_of(<double>total, df, penalty)


# Scores within this relative distance are ties in stages_hc: above the
# rounding of R's recomputed scores (~1e-15 of the score), below the gains
# of real moves (R makes a move gaining 1e-12 of a score of 6e7)
cdef double TIE_RTOL = 1e-13


def move_situations(const float64_t[:, ::1] sit_counts, int64_t[::1] sit_stage,
                    const int64_t[::1] stage_order, Py_ssize_t n_stages,
                    double lam, double other_ll, double start_score, double df, double penalty,
                    long max_iter, int64_t[:, ::1] moves, const float64_t[:, ::1] row_counts,
                    const int64_t[::1] row_sit, const float64_t[:, ::1] row_prob,
                    const float64_t[::1] var_lls, Py_ssize_t var_pos):
    """Hill climbing moving one situation at a time to another stage (R: ``stages_hc``).

    Parameters
    ----------
    sit_counts : counts of the movable situations (ascending situation order).
    sit_stage : their stage ids (0..n_stages-1); updated in place.  A move to
        a new stage uses the lowest id that holds no situation.
    stage_order : the stage ids in R's ``unique()`` order.
    other_ll : log-likelihood of what no move changes (the other variables
        and the situations not movable); df : the model's df.
    start_score : the score of the model as stored, which the first move
        must beat.  As in R, every move refits the stages from the counts
        and recomputes the log-likelihood from the tree's tables, so when
        the stored fit is not that one (``indep`` with missing values) even
        a move that changes no count can win the first iteration.
    penalty : per-parameter penalty of the moved models' scores.
    moves : output rows (situation, target stage id, iteration).
    row_counts, row_sit, row_prob, var_lls, var_pos : R's arithmetic, for
        ties: the variable's table rows in order, each row's movable
        situation (or -1, and then its probabilities in ``row_prob``), and
        every variable's log-likelihood (this one's at ``var_pos``).

    Each iteration tries, stage by stage and situation by situation, every
    other stage and then a new one, and makes the best strictly improving
    move.  When the best moves (or the best and staying) differ only by
    rounding, R's choice rests on its own rounding: they are rescored as R
    scores a move (refit, per-variable sums in table order, then their
    sum) and the first strictly best in R's visit order is made.

    Returns
    -------
    (number of moves, df)
    """
    cdef Py_ssize_t n_sit = sit_counts.shape[0], k = sit_counts.shape[1]
    # every live stage holds a situation, and emptied ids are reused
    cdef Py_ssize_t max_stages = n_stages + n_sit + 1
    cdef Py_ssize_t i, a, g, s1, s2, j, jj, n_moves = 0, best_i, best_s2, new_stage, n_order
    cdef long iteration = 0
    cdef long double ll_v, cand_v
    cdef double score, best_score, now_score, cand_df, tol, row_total, top, exact, best_exact
    cdef bint skip_empty, overflow
    cdef Py_ssize_t n_near, n_kept, capacity = HC_RIVALS
    cdef int64_t call = 0
    import numpy as np
    counts_arr = np.zeros((max_stages, k))
    totals_arr = np.zeros(max_stages)
    sizes_arr = np.zeros(max_stages, dtype=np.int64)
    terms_arr = np.zeros(max_stages, dtype=np.longdouble)
    order_arr = np.empty(max_stages, dtype=np.int64)
    cdef double[:, ::1] counts = counts_arr
    cdef double[::1] totals = totals_arr
    cdef int64_t[::1] sizes = sizes_arr
    cdef int64_t[::1] order = order_arr
    cdef double new1[MAX_LEVELS]
    cdef double new2[MAX_LEVELS]
    cdef long double t1, t2
    cdef long double[::1] terms = terms_arr
    # Refitted stage terms are cached: a move changes only its two stages, so
    # most (situation, stage) terms stay valid.  An entry is valid while the
    # stage's version (bumped whenever its counts change) is the one it was
    # computed with.  Only stage ids below `cached` get cache columns.
    cdef Py_ssize_t cached = min(max_stages, max(1, (1 << 25) // (32 * max(n_sit, 1))))
    version_arr = np.zeros(max_stages, dtype=np.int64)
    source_arr = np.empty(n_sit, dtype=np.longdouble)
    source_key_arr = np.full((n_sit, 2), -1, dtype=np.int64)
    target_arr = np.empty((n_sit, cached), dtype=np.longdouble)
    target_version_arr = np.full((n_sit, cached), -1, dtype=np.int64)
    cdef int64_t[::1] version = version_arr
    cdef long double[::1] source_term = source_arr
    cdef int64_t[:, ::1] source_key = source_key_arr
    cdef long double[:, ::1] target_term = target_arr
    cdef int64_t[:, ::1] target_version = target_version_arr
    position_arr = np.zeros(max_stages, dtype=np.int64)
    group_start_arr = np.zeros(max_stages + 1, dtype=np.int64)
    group_fill_arr = np.zeros(max_stages, dtype=np.int64)
    grouped_arr = np.zeros(max(n_sit, 1), dtype=np.int64)
    cdef int64_t[::1] position = position_arr
    cdef int64_t[::1] group_start = group_start_arr
    cdef int64_t[::1] group_fill = group_fill_arr
    cdef int64_t[::1] grouped = grouped_arr
    near_arr = np.empty((capacity, 2), dtype=np.int64)
    near_score_arr = np.empty(capacity)
    cdef int64_t[:, ::1] near = near_arr
    cdef double[::1] near_score = near_score_arr
    # R's scoring of tied moves: fixed rows' terms, and scratch by stage id
    fixed_arr = np.zeros((row_counts.shape[0], k))
    cdef double[:, ::1] fixed_terms = fixed_arr
    exact_prob_arr = np.zeros((max_stages, k))
    exact_log_arr = np.zeros((max_stages, k))
    stamp_arr = np.full(max_stages, -1, dtype=np.int64)
    cdef double[:, ::1] exact_prob = exact_prob_arr
    cdef double[:, ::1] exact_log = exact_log_arr
    cdef int64_t[::1] stamp = stamp_arr
    for i in range(row_counts.shape[0]):
        if row_sit[i] < 0:
            for a in range(k):
                fixed_terms[i, a] = _count_term(row_prob[i, a], row_counts[i, a])
    n_order = stage_order.shape[0]
    for j in range(n_order):
        order[j] = stage_order[j]
    with nogil:
        for i in range(n_sit):
            s1 = sit_stage[i]
            sizes[s1] += 1
            for a in range(k):
                counts[s1, a] += sit_counts[i, a]
                totals[s1] += sit_counts[i, a]
        ll_v = 0.0
        for j in range(n_order):
            s1 = order[j]
            terms[s1] = stage_term(&counts[s1, 0], totals[s1], lam, k)
            ll_v += terms[s1]
        new_stage = n_stages
        now_score = start_score
        # moving a situation without counts changes no estimate, hence beats
        # nothing once the score is that of the refitted stages
        skip_empty = fabs(score_of(other_ll + <double>ll_v, df, penalty) - now_score) \
            <= TIE_RTOL * (1.0 + fabs(now_score))
        while iteration < max_iter:
            iteration += 1
            best_score = now_score
            tol = TIE_RTOL * (1.0 + fabs(now_score))
            best_i = -1
            best_s2 = -1
            top = now_score  # the best score met, staying included
            n_near = 0
            overflow = False
            # the situations grouped by stage in R's visit order (a stable
            # counting sort), instead of one scan of all situations per stage
            for j in range(n_order):
                position[order[j]] = j
                group_start[j + 1] = 0
            for i in range(n_sit):
                group_start[position[sit_stage[i]] + 1] += 1
            group_start[0] = 0
            for j in range(n_order):
                group_start[j + 1] += group_start[j]
                group_fill[j] = group_start[j]
            for i in range(n_sit):
                j = position[sit_stage[i]]
                grouped[group_fill[j]] = i
                group_fill[j] += 1
            for j in range(n_order):
                s1 = order[j]
                for g in range(group_start[j], group_start[j + 1]):
                    i = grouped[g]
                    row_total = _row_total(sit_counts, i, k)
                    if row_total == 0 and sizes[s1] > 1 and skip_empty:
                        # it changes the df only when it empties its stage:
                        # never strictly better, so never R's choice
                        continue
                    # what the source stage keeps does not depend on the target
                    if source_key[i, 0] == s1 and source_key[i, 1] == version[s1]:
                        t1 = source_term[i]
                    else:
                        for a in range(k):
                            new1[a] = counts[s1, a] - sit_counts[i, a]
                        t1 = stage_term(new1, totals[s1] - row_total, lam, k)
                        source_term[i] = t1
                        source_key[i, 0] = s1
                        source_key[i, 1] = version[s1]
                    for jj in range(n_order + 1):
                        s2 = order[jj] if jj < n_order else new_stage
                        if s2 == s1:
                            continue
                        if s2 < cached and target_version[i, s2] == version[s2]:
                            t2 = target_term[i, s2]
                        else:
                            for a in range(k):
                                new2[a] = counts[s2, a] + sit_counts[i, a]
                            t2 = stage_term(new2, totals[s2] + row_total, lam, k)
                            if s2 < cached:
                                target_term[i, s2] = t2
                                target_version[i, s2] = version[s2]
                        cand_v = ll_v - terms[s1] - terms[s2] + t1 + t2
                        cand_df = df
                        if sizes[s1] == 1:
                            cand_df = cand_df - (k - 1)
                        if sizes[s2] == 0:
                            cand_df = cand_df + (k - 1)
                        score = score_of(other_ll + <double>cand_v, cand_df, penalty)
                        if score >= top - tol:  # a contender, so far
                            if n_near < capacity:
                                near[n_near, 0] = i
                                near[n_near, 1] = s2
                                near_score[n_near] = score
                                n_near += 1
                            else:
                                overflow = True
                            if score > top:
                                top = score
                        if score > best_score + tol:
                            best_score = score
                            best_i = i
                            best_s2 = s2
            n_kept = 0
            if not overflow:
                for g in range(n_near):
                    if near_score[g] >= top - tol:
                        near[n_kept, 0] = near[g, 0]
                        near[n_kept, 1] = near[g, 1]
                        n_kept += 1
            if n_kept + (1 if now_score >= top - tol else 0) >= 2:
                # R's own scores decide, first strictly best in its visit order
                if n_moves == 0:
                    best_exact = start_score
                else:
                    call += 1
                    best_exact = _r_move_score(row_counts, row_sit, fixed_terms, var_lls, var_pos,
                                               sit_stage, -1, -1, lam, df, penalty,
                                               exact_prob, exact_log, stamp, call)
                best_i = -1
                for g in range(n_kept):
                    i = near[g, 0]
                    s2 = near[g, 1]
                    cand_df = df
                    if sizes[sit_stage[i]] == 1:
                        cand_df = cand_df - (k - 1)
                    if sizes[s2] == 0:
                        cand_df = cand_df + (k - 1)
                    call += 1
                    exact = _r_move_score(row_counts, row_sit, fixed_terms, var_lls, var_pos,
                                          sit_stage, i, s2, lam, cand_df, penalty,
                                          exact_prob, exact_log, stamp, call)
                    if exact > best_exact:
                        best_exact = exact
                        best_i = i
                        best_s2 = s2
                best_score = best_exact
            if best_i < 0:
                break
            s1 = sit_stage[best_i]
            s2 = best_s2
            if sizes[s2] == 0:
                order[n_order] = s2
                n_order += 1
                df = df + (k - 1)
            for a in range(k):
                counts[s1, a] -= sit_counts[best_i, a]
                counts[s2, a] += sit_counts[best_i, a]
                totals[s1] -= sit_counts[best_i, a]
                totals[s2] += sit_counts[best_i, a]
            sizes[s1] -= 1
            sizes[s2] += 1
            version[s1] += 1
            version[s2] += 1
            sit_stage[best_i] = s2
            if sizes[s1] == 0:
                df = df - (k - 1)
                for j in range(n_order):
                    if order[j] == s1:
                        for jj in range(j, n_order - 1):
                            order[jj] = order[jj + 1]
                        n_order -= 1
                        break
            ll_v = ll_v - terms[s1] - terms[s2]
            terms[s1] = stage_term(&counts[s1, 0], totals[s1], lam, k)
            terms[s2] = stage_term(&counts[s2, 0], totals[s2], lam, k)
            ll_v = ll_v + terms[s1] + terms[s2]
            now_score = best_score
            skip_empty = True
            new_stage = 0
            while sizes[new_stage] > 0:
                new_stage += 1
            moves[n_moves, 0] = best_i
            moves[n_moves, 1] = s2
            moves[n_moves, 2] = iteration
            n_moves += 1
            # R's unique() order: the stages by first situation
            _sort_by_first_situation(order, n_order, sit_stage, n_sit)
    return n_moves, df


cdef inline double _row_total(const float64_t[:, ::1] counts, Py_ssize_t i, Py_ssize_t k) noexcept nogil:
    cdef double total = 0.0
    cdef Py_ssize_t a
    for a in range(k):
        total += counts[i, a]
    return total


cdef void _sort_by_first_situation(int64_t[::1] order, Py_ssize_t n_order,
                                   const int64_t[::1] sit_stage, Py_ssize_t n_sit) noexcept nogil:
    """Reorder the active stage ids by the first situation that carries them."""
    cdef Py_ssize_t i, j, filled = 0
    cdef bint seen
    for i in range(n_sit):
        seen = False
        for j in range(filled):
            if order[j] == sit_stage[i]:
                seen = True
                break
        if not seen:
            order[filled] = sit_stage[i]
            filled += 1
            if filled == n_order:
                break


def join_probabilities(const float64_t[::1] p1, double n1, const float64_t[::1] p2,
                       double n2, double lam):
    """R's ``join_stages_unsafe`` for one pair: ``(new_p, dll, gain)``.

    ``n1``/``n2`` are the stored sample sizes (NaN counts as 1, as in R).
    """
    import numpy as np
    cdef Py_ssize_t k = p1.shape[0]
    if k > MAX_LEVELS:
        raise ValueError(f"at most {MAX_LEVELS} levels are supported; got {k}")
    out = np.empty(k)
    cdef double[::1] new_p = out
    cdef double dll, gain
    join_stats(&p1[0], 1.0 if isnan(n1) else n1, &p2[0], 1.0 if isnan(n2) else n2,
               lam, k, &new_p[0], &dll, &gain)
    return out, dll, gain


# -- R's stats::dist between rows --------------------------------------------------

R_DIST_CODES = {"euclidean": 0, "maximum": 1, "manhattan": 2, "canberra": 3, "minkowski": 4}


def r_dist(const float64_t[:, ::1] x, str method, float64_t[:, ::1] out):
    """R's ``as.matrix(dist(x, method))`` (Minkowski with p = 2), into ``out``.

    Coordinates are accumulated in column order in double precision, as
    R's C code does; Canberra skips coordinates where both values are 0 and
    rescales by the number of coordinates used.
    """
    cdef int code = R_DIST_CODES[method]
    cdef Py_ssize_t i, j, a, m = x.shape[0], k = x.shape[1], used
    cdef double acc, dev, total
    with nogil:
        for i in range(m):
            out[i, i] = 0.0
            for j in range(i):
                acc = 0.0
                used = 0
                for a in range(k):
                    dev = x[i, a] - x[j, a]
                    if code == 0 or code == 4:
                        acc += dev * dev
                    elif code == 1:
                        if fabs(dev) > acc:
                            acc = fabs(dev)
                    elif code == 2:
                        acc += fabs(dev)
                    else:
                        total = fabs(x[i, a] + x[j, a])
                        if total > 2.2250738585072014e-308 or fabs(dev) > 2.2250738585072014e-308:
                            acc += fabs(dev) / total
                            used += 1
                if code == 0 or code == 4:
                    acc = sqrt(acc)
                elif code == 3 and used != k:
                    acc = acc / (<double>used / k)
                out[i, j] = acc
                out[j, i] = acc
