"""Kernel of the backward hill-climbing learners ``stages_bhc`` and ``stages_fbhc``.

The BHC kernel keeps, for every pair of stages, the change of log-likelihood
of their join (``s - dll``), so a step costs a scan of per-stage best values
instead of a rescoring of every pair.  Pairs within a small band of the best
are then rescored exactly as R would, and R's tie rule (the last best pair
in R's visit order) picks among them.  FBHC visits the pairs in R's order
and makes the first join that does not lower the score.  Joins, scores and
sums follow R's arithmetic (``_rstage.pxd``).
"""
import numpy as np

from libc.math cimport INFINITY, NAN, fabs, isnan
from libc.stdint cimport uint64_t
from libc.stdlib cimport free, realloc
from libc.string cimport memcpy, memmove

from pystagedtrees.kernels._hash cimport mix64
from pystagedtrees.kernels._limits cimport MAX_LEVELS
from pystagedtrees.kernels._rstage cimport join_stats, join_stats_with_terms, own_term, score_of
from pystagedtrees.kernels._types cimport flag_t, float64_t, index_t


cdef inline uint64_t _value_bits(double x) noexcept nogil:
    """Bits of ``x`` equal for values compared equal by ``_same_values``
    (every NaN alike, -0.0 as 0.0)."""
    cdef uint64_t out
    if isnan(x):
        return <uint64_t>0x7ff8000000000000
    if x == 0.0:
        x = 0.0
    memcpy(&out, &x, sizeof(double))
    return out


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

    Class ids are reused lowest first, so the live ones stay below ``hi``,
    about the number of distinct stages: every scan stops there, not at the
    number of stages (eeg's 3,160 stages of X14 are 190 classes).

    A ``lazy`` table (FBHC, which visits pairs in R's order and stops at the
    first acceptable join) computes a class pair when first asked for it
    (:meth:`pair`; an unknown pair has a NaN ``dll``, which a computed one
    never is: it sums counts times logs of positive probabilities) and
    keeps no row bests.  It reads a pair in the row of the class whose id
    was (re)used last (``born``), so forgetting a reused id's pairs clears
    its row alone: a contiguous write, where a column is one cache line per
    class.
    """
    cdef double[:, ::1] prob
    cdef double[::1] n
    cdef index_t[::1] rank
    cdef index_t[::1] cls
    cdef index_t[::1] head
    cdef index_t[::1] nxt
    cdef index_t[::1] prv
    # live classes by the hash of their values (``key``), so that a joined
    # stage finds an identical class without a scan of the classes: slots
    # hold a class id, -1 (never used) or -2 (freed); at most 2m classes are
    # ever born (m in ``fill``, one per join), so 4m slots never fill up
    cdef index_t[::1] slot
    cdef uint64_t[::1] key
    cdef Py_ssize_t slot_mask
    cdef index_t[::1] born  # lazy table: when each class id was last (re)used
    cdef Py_ssize_t clock
    cdef index_t[::1] count
    cdef index_t[::1] free
    cdef Py_ssize_t n_free
    cdef Py_ssize_t hi
    # pair tables (``stride`` x ``stride``, row-major), grown with ``hi``:
    # sized by the classes in use, not by the stages (m x m), whose
    # allocation alone cost more than the climb on tie-heavy variables
    cdef double* dll
    cdef double* gain
    cdef Py_ssize_t stride
    cdef bint out_of_memory
    cdef double[::1] own
    cdef double[::1] row_best
    cdef index_t[::1] row_arg
    cdef flag_t[::1] dirty
    cdef Py_ssize_t m, k
    cdef double lam
    cdef bint lazy

    def __init__(self, double[:, ::1] prob, double[::1] n, index_t[::1] rank,
                 index_t[::1] cls, double lam, bint lazy):
        self.lazy = lazy
        self.prob = prob
        self.n = n
        self.rank = rank
        self.cls = cls
        self.lam = lam
        self.m = prob.shape[0]
        self.k = prob.shape[1]
        self.head = np.full(self.m, -1, dtype=np.int64)
        self.nxt = np.full(self.m, -1, dtype=np.int64)
        self.prv = np.full(self.m, -1, dtype=np.int64)
        n_slots = 8
        while n_slots < 4 * self.m:
            n_slots *= 2
        self.slot = np.full(n_slots, -1, dtype=np.int64)
        self.slot_mask = n_slots - 1
        self.key = np.zeros(self.m, dtype=np.uint64)
        self.born = np.zeros(self.m, dtype=np.int64)
        self.clock = 0
        self.count = np.zeros(self.m, dtype=np.int64)
        self.free = np.empty(self.m, dtype=np.int64)
        self.n_free = 0
        self.hi = 0
        self.dll = NULL
        self.gain = NULL
        self.stride = 0
        self.out_of_memory = False
        self.own = np.empty(self.m, dtype=np.float64)
        self.row_best = np.full(self.m, -np.inf)
        self.row_arg = np.full(self.m, -1, dtype=np.int64)
        self.dirty = np.zeros(self.m, dtype=np.uint8)

    cdef inline bint valid(self, Py_ssize_t c, Py_ssize_t d) noexcept nogil:
        if c == d:
            return self.count[c] >= 2
        return self.count[c] >= 1 and self.count[d] >= 1

    cdef inline Py_ssize_t at(self, Py_ssize_t c, Py_ssize_t d) noexcept nogil:
        return c * self.stride + d

    cdef inline double delta(self, Py_ssize_t c, Py_ssize_t d) noexcept nogil:
        return self.gain[self.at(c, d)] - self.dll[self.at(c, d)]

    def __dealloc__(self):
        free(self.dll)
        free(self.gain)

    cdef bint raise_hi(self, Py_ssize_t hi) noexcept nogil:
        """Let class ids reach ``hi - 1``, widening the pair tables (to twice
        what is needed, at most ``m``) when they are too narrow; False, with
        ``out_of_memory`` set, when the memory for that is not there."""
        cdef Py_ssize_t r, wider
        cdef double* grown
        if hi > self.stride:
            wider = min(self.m, max(64, 2 * hi))
            grown = <double*>realloc(self.dll, wider * wider * sizeof(double))
            if grown == NULL:
                self.out_of_memory = True
                return False
            self.dll = grown
            grown = <double*>realloc(self.gain, wider * wider * sizeof(double))
            if grown == NULL:
                self.out_of_memory = True
                return False
            self.gain = grown
            # from the last row down: each row moves to higher addresses,
            # past the rows below it, which are still to move
            for r in range(self.hi - 1, -1, -1):
                memmove(&self.dll[r * wider], &self.dll[r * self.stride], self.hi * sizeof(double))
                memmove(&self.gain[r * wider], &self.gain[r * self.stride],
                        self.hi * sizeof(double))
            self.stride = wider
        if hi > self.hi:
            self.hi = hi
        return True

    cdef uint64_t key_of(self, Py_ssize_t s) noexcept nogil:
        cdef uint64_t h = mix64(_value_bits(self.n[s]))
        cdef Py_ssize_t a
        for a in range(self.k):
            h = mix64(h ^ _value_bits(self.prob[s, a]))
        return h

    cdef bint same_values(self, Py_ssize_t r, Py_ssize_t s) noexcept nogil:
        """Whether stages r and s are bit-identical (NaN probabilities alike)."""
        cdef Py_ssize_t a
        if self.n[r] != self.n[s]:
            return False
        for a in range(self.k):
            if not (self.prob[r, a] == self.prob[s, a] or
                    (isnan(self.prob[r, a]) and isnan(self.prob[s, a]))):
                return False
        return True

    cdef void insert(self, Py_ssize_t s, Py_ssize_t c) noexcept nogil:
        """Add stage ``s`` to class ``c``, keeping members by decreasing rank."""
        cdef Py_ssize_t cur = self.head[c], prev = -1, at
        if self.count[c] == 0:  # the class is born: listed by its values
            self.key[c] = self.key_of(s)
            at = self.key[c] & self.slot_mask
            while self.slot[at] >= 0:
                at = (at + 1) & self.slot_mask
            self.slot[at] = c
        while cur >= 0 and self.rank[cur] > self.rank[s]:
            prev = cur
            cur = self.nxt[cur]
        self.nxt[s] = cur
        self.prv[s] = prev
        if cur >= 0:
            self.prv[cur] = s
        if prev < 0:
            self.head[c] = s
        else:
            self.nxt[prev] = s
        self.cls[s] = c
        self.count[c] += 1

    cdef void remove(self, Py_ssize_t s) noexcept nogil:
        cdef Py_ssize_t c = self.cls[s], at
        if self.prv[s] < 0:
            self.head[c] = self.nxt[s]
        else:
            self.nxt[self.prv[s]] = self.nxt[s]
        if self.nxt[s] >= 0:
            self.prv[self.nxt[s]] = self.prv[s]
        self.count[c] -= 1
        if self.count[c] == 0:
            at = self.key[c] & self.slot_mask
            while self.slot[at] != c:
                at = (at + 1) & self.slot_mask
            self.slot[at] = -2
            self.free[self.n_free] = c
            self.n_free += 1

    cdef void compute_pair(self, Py_ssize_t c, Py_ssize_t d) noexcept nogil:
        cdef double new_p[MAX_LEVELS]
        cdef double dll, gain
        cdef Py_ssize_t a = self.head[c], b = self.head[d]
        join_stats_with_terms(&self.prob[a, 0], self.n[a], self.own[c],
                              &self.prob[b, 0], self.n[b], self.own[d],
                              self.lam, self.k, new_p, &dll, &gain)
        self.dll[self.at(c, d)] = dll
        self.dll[self.at(d, c)] = dll
        self.gain[self.at(c, d)] = gain
        self.gain[self.at(d, c)] = gain

    cdef void pair(self, Py_ssize_t c, Py_ssize_t d, double* dll, double* gain) noexcept nogil:
        """The join of classes c and d, computed if not known yet (lazy
        table), read in the row of the one (re)used last."""
        cdef Py_ssize_t at = self.at(c, d) if self.born[c] >= self.born[d] else self.at(d, c)
        if isnan(self.dll[at]):
            self.compute_pair(c, d)
        dll[0] = self.dll[at]
        gain[0] = self.gain[at]

    cdef void forget_pairs(self, Py_ssize_t c) noexcept nogil:
        """Class id ``c`` is (re)used: its pairs, all read in its row from
        now on (it is the youngest), are unknown."""
        cdef Py_ssize_t d
        self.clock += 1
        self.born[c] = self.clock
        for d in range(self.hi):
            self.dll[self.at(c, d)] = NAN

    cdef void set_own(self, Py_ssize_t c) noexcept nogil:
        cdef Py_ssize_t a = self.head[c]
        self.own[c] = own_term(&self.prob[a, 0], self.n[a], self.lam, self.k)

    cdef void refresh_row(self, Py_ssize_t c) noexcept nogil:
        cdef Py_ssize_t d
        cdef double value
        self.row_best[c] = -INFINITY
        self.row_arg[c] = -1
        self.dirty[c] = 0
        for d in range(self.hi):
            if self.valid(c, d):
                value = self.delta(c, d)
                if value > self.row_best[c]:
                    self.row_best[c] = value
                    self.row_arg[c] = d

    cdef void fill(self) noexcept nogil:
        cdef Py_ssize_t s, c, d
        for s in range(self.m):
            self.insert(s, self.cls[s])
            if self.cls[s] >= self.hi and not self.raise_hi(self.cls[s] + 1):
                return
        for c in range(self.m - 1, -1, -1):  # the lowest unused id on top
            if self.count[c] == 0:
                self.free[self.n_free] = c
                self.n_free += 1
        for c in range(self.hi):
            if self.count[c] > 0:
                self.set_own(c)
            if self.lazy:
                self.forget_pairs(c)
        if self.lazy:
            return
        for c in range(self.hi):
            for d in range(c + 1):
                if self.count[c] > 0 and self.count[d] > 0:
                    self.compute_pair(c, d)
        for c in range(self.hi):
            if self.count[c] > 0:
                self.refresh_row(c)

    cdef double top(self) noexcept nogil:
        """The best log-likelihood change over all joins (-inf if none)."""
        cdef Py_ssize_t c, best_row
        cdef double bound
        while True:
            best_row = -1
            bound = -INFINITY
            for c in range(self.hi):
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

    cdef void representatives(self, Py_ssize_t c, Py_ssize_t d, index_t* late,
                              index_t* early) noexcept nogil:
        """The pair of members of classes c, d that R visits last."""
        cdef index_t hc = self.head[c], hd = self.head[d]
        if c == d:
            late[0], early[0] = hc, self.nxt[hc]
        elif self.rank[hc] > self.rank[hd]:
            late[0], early[0] = hc, hd
        else:
            late[0], early[0] = hd, hc

    cdef Py_ssize_t identical_class(self, Py_ssize_t s) noexcept nogil:
        """An active class whose stages equal stage ``s`` bit for bit, or -1
        (at most one: a class is born only where none is identical)."""
        cdef Py_ssize_t c, at
        cdef uint64_t h
        if isnan(self.n[s]):
            return -1
        h = self.key_of(s)
        at = h & self.slot_mask
        while self.slot[at] != -1:
            c = self.slot[at]
            if c >= 0 and self.key[c] == h and self.head[c] != s and \
                    self.same_values(self.head[c], s):
                return c
            at = (at + 1) & self.slot_mask
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
            if self.lazy:
                return
            if self.count[c] == 2 and self.delta(c, c) > self.row_best[c]:
                self.row_best[c] = self.delta(c, c)
                self.row_arg[c] = c
        else:
            self.n_free -= 1
            c = self.free[self.n_free]
            if c >= self.hi and not self.raise_hi(c + 1):
                return
            self.head[c] = -1
            self.insert(keep, c)
            self.set_own(c)
            if self.lazy:
                self.forget_pairs(c)
                return
            for d in range(self.hi):
                if self.count[d] > 0:
                    self.compute_pair(c, d)
            self.refresh_row(c)
        # rows whose best partner changed (emptied, single member, or reused id)
        for d in range(self.hi):
            if self.count[d] == 0:
                continue
            if self.row_arg[d] == old_keep or self.row_arg[d] == old_drop or self.row_arg[d] == c:
                self.dirty[d] = 1
            if self.valid(d, c):
                value = self.delta(d, c)
                if value > self.row_best[d]:
                    self.row_best[d] = value
                    self.row_arg[d] = c


cdef void _sort_by_rank(index_t[::1] order, Py_ssize_t n, const index_t[::1] rank) noexcept nogil:
    """Sort ``order[:n]`` by ``rank``, stably (insertion sort: the stages
    come in order of first appearance, already sorted)."""
    cdef Py_ssize_t i, j
    cdef index_t moving
    for i in range(1, n):
        moving = order[i]
        j = i
        while j > 0 and rank[order[j - 1]] > rank[moving]:
            order[j] = order[j - 1]
            j -= 1
        order[j] = moving


cdef void _join_in_order(index_t[::1] order, Py_ssize_t n, Py_ssize_t late,
                         Py_ssize_t early) noexcept nogil:
    """``order[:n]`` after the stage at ``late`` absorbs the one at ``early``
    (``early < late``): it takes the earlier stage's rank, so its place."""
    cdef Py_ssize_t i
    order[early] = order[late]
    for i in range(late, n - 1):
        order[i] = order[i + 1]


cdef bint _first_keeping_join(_ClassTable t, const index_t[::1] order, Py_ssize_t n_active,
                              double ll, double df, double penalty, double now_score,
                              Py_ssize_t merged_at, Py_ssize_t unvisited_from, bint* near,
                              Py_ssize_t* late, Py_ssize_t* early, double* new_ll,
                              double* new_score) noexcept nogil:
    """FBHC: the first join in R's visit order that does not lower the score
    (its stages' places in ``order``).

    Pairs the previous search rejected are not tried again: those of places
    below ``merged_at`` (the place of the stage last joined; -1: none) and,
    below ``unvisited_from``, those not with that stage.  A pair's test
    depends on the model only through the rounding of the score, so a
    rejected pair stays rejected unless its score came within ``band`` of
    passing: ``near`` is set then, and the caller searches from the start.
    """
    cdef Py_ssize_t i, j, j_from, j_to, k = t.k
    cdef index_t a, b
    cdef double dll, gain, cand_ll, score
    cdef double band = 1e-9 * (1.0 + fabs(now_score))
    for i in range(max(1, merged_at), n_active):
        a = order[i]
        j_from, j_to = 0, i
        if i < unvisited_from and i != merged_at:  # only its pair with the joined stage
            j_from, j_to = merged_at, merged_at + 1
        for j in range(j_from, j_to):
            b = order[j]
            t.pair(t.cls[a], t.cls[b], &dll, &gain)
            cand_ll = (ll - dll) + gain
            score = score_of(cand_ll, df - k + 1, penalty)
            if score >= now_score:
                late[0], early[0], new_ll[0], new_score[0] = i, j, cand_ll, score
                return True
            if score >= now_score - band:
                near[0] = True
    return False


cdef bint _best_join(_ClassTable t, const index_t[::1] first, double ll, double df,
                     double penalty, double now_score, index_t* keep, index_t* drop,
                     double* new_ll, double* new_score) noexcept nogil:
    """BHC: the best join, the last of equally good ones in R's visit order."""
    cdef Py_ssize_t c, d, k = t.k
    cdef index_t late, early
    cdef double cand_ll, score, best_score = now_score
    cdef bint found = False
    # a join keeps the score iff its log-likelihood change >= -penalty (k - 1) / 2
    cdef double needed = -(penalty * (k - 1)) / 2.0
    cdef double band = 1e-9 * (1.0 + fabs(ll))
    cdef double level = t.top()
    if level < needed - band:
        return False
    level = level - band
    for c in range(t.hi):
        if t.count[c] == 0 or not t.row_reaches(c, level):
            continue
        for d in range(c + 1):
            if not t.valid(c, d) or t.delta(c, d) < level:
                continue
            cand_ll = (ll - t.dll[t.at(c, d)]) + t.gain[t.at(c, d)]
            score = score_of(cand_ll, df - k + 1, penalty)
            t.representatives(c, d, &late, &early)
            # R keeps the last of equally good joins in its visit order
            if score > best_score or (score == best_score and (
                    not found or first[late] > first[keep[0]] or (
                        first[late] == first[keep[0]] and first[early] > first[drop[0]]))):
                found = True
                best_score = score
                new_ll[0] = cand_ll
                keep[0], drop[0] = late, early
    new_score[0] = best_score
    return found


def backward_join(float64_t[:, ::1] prob, float64_t[::1] n, index_t[::1] first,
                  stage_classes, double lam, double ll, double df, double penalty,
                  long max_iter, bint first_improvement, index_t[:, ::1] merges):
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

    The caller guarantees ``k <= MAX_LEVELS`` and ``m`` rows in ``merges``.

    Returns
    -------
    (number of joins, ll, df)
    """
    cdef Py_ssize_t m = prob.shape[0], k = prob.shape[1]
    cdef Py_ssize_t n_joins = 0, n_active = m
    cdef index_t keep = -1, drop = -1
    cdef Py_ssize_t late = -1, early = -1
    cdef double best_p[MAX_LEVELS]
    cdef double now_score, new_ll = 0.0, new_score = 0.0, dll, gain
    cdef bint found
    if m < 2:
        return 0, ll, df
    cdef _ClassTable t = _ClassTable(prob, n, first,
                                     np.asarray(stage_classes, dtype=np.int64).copy(), lam,
                                     first_improvement)
    # the live stages in R's visit order (FBHC), and what its last search
    # left to try (see _first_keeping_join)
    cdef index_t[::1] order = np.arange(m, dtype=np.int64)
    cdef Py_ssize_t merged_at = -1, unvisited_from = 1
    cdef bint near = False
    with nogil:
        if first_improvement:
            _sort_by_rank(order, m, first)
        t.fill()
        now_score = score_of(ll, df, penalty)
        while n_joins < max_iter and n_active > 1 and not t.out_of_memory:
            if first_improvement:
                if near:  # a rejected pair came near passing: try every pair again
                    merged_at, unvisited_from, near = -1, 1, False
                found = _first_keeping_join(t, order, n_active, ll, df, penalty, now_score,
                                            merged_at, unvisited_from, &near, &late, &early,
                                            &new_ll, &new_score)
                keep, drop = order[late], order[early]
            else:
                found = _best_join(t, first, ll, df, penalty, now_score, &keep, &drop,
                                   &new_ll, &new_score)
            if not found:
                break
            # R keeps the name (and the slot) of the later stage
            join_stats(&prob[keep, 0], n[keep], &prob[drop, 0], n[drop], lam, k, best_p,
                       &dll, &gain)
            t.join(keep, drop, best_p)  # keep takes drop's rank (``first`` is the table's)
            if t.out_of_memory:
                break
            if first_improvement:
                _join_in_order(order, n_active, late, early)
                # the joined stage now at ``early``; places from ``late`` on
                # hold the stages the search did not reach
                merged_at, unvisited_from = early, late
            n_active -= 1
            ll = new_ll
            df = df - k + 1
            now_score = new_score
            merges[n_joins, 0] = keep
            merges[n_joins, 1] = drop
            n_joins += 1
    if t.out_of_memory:
        raise MemoryError(f"no memory for the tables of joins of {m} stages")
    return n_joins, ll, df


def settle_joins(const index_t[:, ::1] merges, index_t[::1] keeper):
    """Where every stage ends after the joins ``merges`` (rows ``(kept,
    dropped)``, in the order made): ``keeper`` holds ``0..m-1`` on entry and
    ``keeper[s]``, the stage left that absorbed ``s`` (itself if none), on
    return.  A stage is dropped once and keeps only before that, so a
    backward pass finds each keeper already settled.  The caller checks the
    ids are below ``len(keeper)``."""
    cdef Py_ssize_t j
    with nogil:
        for j in range(merges.shape[0] - 1, -1, -1):
            keeper[merges[j, 1]] = keeper[merges[j, 0]]
