"""Kernel of ``stages_bj``: joining the closest stages while closer than a threshold.

Distances between stage probabilities are R's ``probdist.*`` (R/probdist.R),
with the same operations and R's long-double sums; joins follow R's
``join_stages_unsafe`` (``_rstage.pxd``).
"""
import numpy as np

cimport cython

from libc.math cimport INFINITY, fabs, isnan, log, sqrt
from libc.string cimport memcmp

from pystagedtrees.kernels._limits cimport MAX_LEVELS, NEAREST_LISTED
from pystagedtrees.kernels._rstage cimport join_stats
from pystagedtrees.kernels._rsum cimport racc_t
from pystagedtrees.kernels._types cimport flag_t, float64_t, index_t, stage_t

DISTANCE_CODES = {
    "manhattan": 0, "euclidean": 1, "reny": 2, "kullback": 3,
    "totvar": 4, "hellinger": 5, "bhatt": 6, "chandarw": 7,
}


cdef _filled(shape, value, dtype):
    """``numpy.full``, without its Python-level overhead (a few microseconds
    a call, and the kernel makes several a variable)."""
    out = np.empty(shape, dtype=dtype)
    out.fill(value)
    return out


cdef double probdist(int code, const double* x, const double* y, const double* tx,
                     const double* ty, Py_ssize_t k) noexcept nogil:
    """R's ``probdist.*(x, y)``: same operations, long-double sums.

    ``tx``/``ty`` hold each coordinate's log (kullback) or square root
    (hellinger), computed once per stage: the same values as computing them here.
    """
    cdef racc_t acc = 0.0, acc2 = 0.0
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
            term = x[a] * (tx[a] - ty[a])
            acc += term
            term = y[a] * (ty[a] - tx[a])
            acc2 += term
        elif code == 5:
            term = tx[a] - ty[a]
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


cdef inline void transform_stage(int code, const float64_t[:, ::1] prob, float64_t[:, ::1] tr,
                                 Py_ssize_t a) noexcept nogil:
    """The per-coordinate values ``probdist`` reads from ``tr`` for stage ``a``."""
    cdef Py_ssize_t c
    for c in range(prob.shape[1]):
        if code == 3:
            tr[a, c] = log(prob[a, c])
        elif code == 5:
            tr[a, c] = sqrt(prob[a, c])


@cython.final
cdef class _Stages:
    """The stages' probabilities and R's distance between two of them.

    Each distinct row of probabilities is stored once (``row_prob``; a
    joined stage takes an equal row if one is in use, else a new one): the
    stages of large sparse trees share a few rows, and a distance depends
    only on the two rows and which stage comes later.
    """
    cdef float64_t[:, ::1] prob  # per stage, the caller's
    cdef float64_t[:, ::1] row_prob
    cdef float64_t[:, ::1] row_tr
    cdef index_t[::1] row_of
    cdef index_t[::1] row_users
    cdef Py_ssize_t n_rows
    cdef const index_t[::1] rank
    cdef int code

    def __init__(self, float64_t[:, ::1] prob, const index_t[::1] row_of, const index_t[::1] rank,
                 int code):
        cdef Py_ssize_t a, c, r, m = prob.shape[0], k = prob.shape[1]
        self.prob = prob
        self.rank = rank
        self.code = code
        self.n_rows = 0
        for a in range(m):
            self.n_rows = max(self.n_rows, row_of[a] + 1)
        # room for every join to make a new row
        self.row_prob = np.zeros((self.n_rows + m, k))
        self.row_tr = np.zeros((self.n_rows + m, k))
        self.row_of = np.array(row_of)  # a copy: joins change it
        self.row_users = np.zeros(self.n_rows + m, dtype=np.int64)
        for a in range(m):
            r = row_of[a]
            if self.row_users[r] == 0:
                for c in range(k):
                    self.row_prob[r, c] = prob[a, c]
                transform_stage(code, self.row_prob, self.row_tr, r)
            self.row_users[r] += 1

    cdef inline double distance(self, Py_ssize_t a, Py_ssize_t b) noexcept nogil:
        """R's distance between stages ``a`` and ``b``, the later one first (R
        fills the lower triangle of its matrix)."""
        cdef Py_ssize_t ra, rb
        if self.rank[a] < self.rank[b]:
            a, b = b, a
        ra, rb = self.row_of[a], self.row_of[b]
        return probdist(self.code, &self.row_prob[ra, 0], &self.row_prob[rb, 0],
                        &self.row_tr[ra, 0], &self.row_tr[rb, 0], self.row_prob.shape[1])

    cdef void set_joined(self, Py_ssize_t keep, Py_ssize_t drop,
                         const double* new_p) noexcept nogil:
        """Stage ``keep`` takes probabilities ``new_p``; ``drop`` is gone."""
        cdef Py_ssize_t a, r, found = -1, k = self.prob.shape[1]
        for a in range(k):
            self.prob[keep, a] = new_p[a]
        self.row_users[self.row_of[keep]] -= 1
        self.row_users[self.row_of[drop]] -= 1
        for r in range(self.n_rows):
            if self.row_users[r] > 0 and memcmp(&self.row_prob[r, 0], new_p,
                                                k * sizeof(double)) == 0:
                found = r
                break
        if found < 0:
            found = self.n_rows
            self.n_rows += 1
            for a in range(k):
                self.row_prob[found, a] = new_p[a]
            transform_stage(self.code, self.row_prob, self.row_tr, found)
        self.row_of[keep] = found
        self.row_users[found] += 1


@cython.final
cdef class _Memo:
    """Distances from one stage (``begin``) to others, each computed once per
    row and side (which stage comes later): valid while no stage changes."""
    cdef _Stages stages
    cdef double[:, ::1] value
    cdef index_t[:, ::1] stamp
    cdef index_t call
    cdef Py_ssize_t origin

    def __init__(self, _Stages stages):
        self.stages = stages
        self.value = np.zeros((stages.row_prob.shape[0], 2))
        self.stamp = _filled((stages.row_prob.shape[0], 2), -1, np.int64)
        self.call = 0
        self.origin = -1

    cdef inline void begin(self, Py_ssize_t a) noexcept nogil:
        self.call += 1
        self.origin = a

    cdef inline double get(self, Py_ssize_t b) noexcept nogil:
        cdef Py_ssize_t side = self.stages.rank[b] > self.stages.rank[self.origin]
        cdef Py_ssize_t r = self.stages.row_of[b]
        if self.stamp[r, side] != self.call:
            self.stamp[r, side] = self.call
            self.value[r, side] = self.stages.distance(self.origin, b)
        return self.value[r, side]


# what backward_join_distance keeps per stage: a few numbers, the listed
# partners (stage id, distance, version), room for two rows and two memos;
# and per level, room for two rows of probabilities and their logs or roots
BYTES_PER_STAGE = 20 * NEAREST_LISTED + 240
BYTES_PER_STAGE_LEVEL = 32


@cython.final
cdef class _Nearest:
    """Each live stage's nearest later partner (in R's order) without a table
    of all distances.

    R takes the first closest pair in column-major order of its matrix: by
    distance, then the earlier stage, then the later one.  So each pair
    belongs to its earlier stage, and each stage keeps its nearest *later*
    partner by (distance, rank).  It finds it in a short sorted list of its
    closest later partners; a partner that kept a join (a new version) is
    offered again with its new distance, so a listed entry of an older
    version or of a joined-away stage is skipped.  ``bound`` is the smallest
    (distance, rank) left out of the list: only when no live listed entry
    comes before it is the list refilled by a scan of all later stages.
    """
    cdef _Stages stages
    cdef _Memo scan
    cdef const index_t[::1] rank
    cdef const index_t[::1] order  # stage ids by rank
    cdef const index_t[::1] position  # each stage's place in order
    cdef flag_t[::1] active
    cdef index_t[::1] version
    cdef double[::1] nn_dist
    cdef index_t[::1] nn_arg
    cdef stage_t[:, ::1] partners
    cdef double[:, ::1] partner_dist
    cdef index_t[:, ::1] partner_version
    cdef index_t[::1] n_listed
    cdef double[::1] bound_dist
    cdef index_t[::1] bound_rank  # -1: nothing left out

    def __init__(self, _Stages stages, const index_t[::1] rank, const index_t[::1] order,
                 const index_t[::1] position):
        cdef Py_ssize_t m = rank.shape[0], a
        # the per-stage numbers in two blocks, set by the loop below: the
        # kernel runs for every variable, and on small ones each allocation
        # costs more than a join
        cdef double[::1] reals = np.empty(2 * m)
        cdef index_t[::1] integers = np.empty(4 * m, dtype=np.int64)
        self.stages = stages
        self.scan = _Memo(stages)
        self.rank = rank
        self.order = order
        self.position = position
        self.active = np.empty(m, dtype=np.uint8)
        self.nn_dist = reals[:m]
        self.bound_dist = reals[m:]
        self.version = integers[:m]
        self.nn_arg = integers[m:2 * m]
        self.n_listed = integers[2 * m:3 * m]
        self.bound_rank = integers[3 * m:]
        for a in range(m):
            self.active[a] = 1
            self.version[a] = 0
            self.nn_dist[a] = INFINITY
            self.nn_arg[a] = -1
            self.n_listed[a] = 0
            self.bound_dist[a] = INFINITY
            self.bound_rank[a] = -1
        self.partners = np.empty((m, NEAREST_LISTED), dtype=np.int32)
        self.partner_dist = np.empty((m, NEAREST_LISTED))
        self.partner_version = np.empty((m, NEAREST_LISTED), dtype=np.int64)

    cdef inline bint is_live(self, Py_ssize_t a, Py_ssize_t j) noexcept nogil:
        """Whether the ``j``-th listed entry of ``a`` still holds."""
        cdef Py_ssize_t c = self.partners[a, j]
        return self.active[c] and self.partner_version[a, j] == self.version[c]

    cdef inline void leave_out(self, Py_ssize_t a, double d, index_t r) noexcept nogil:
        if self.bound_rank[a] < 0 or _partner_before(d, r, self.bound_dist[a],
                                                     self.bound_rank[a]):
            self.bound_dist[a] = d
            self.bound_rank[a] = r

    cdef inline void offer(self, Py_ssize_t a, Py_ssize_t c, double d) noexcept nogil:
        """List later partner ``c`` at distance ``d`` for ``a`` in (distance,
        rank) order, or leave it (or the last listed) out when the list is full."""
        cdef Py_ssize_t j, n = self.n_listed[a], last = NEAREST_LISTED - 1
        if isnan(d):  # R's which.min passes over NaN
            return
        if n == NEAREST_LISTED:
            if not _partner_before(d, self.rank[c], self.partner_dist[a, last],
                                   self.rank[self.partners[a, last]]):
                self.leave_out(a, d, self.rank[c])
                return
            if self.is_live(a, last):
                self.leave_out(a, self.partner_dist[a, last], self.rank[self.partners[a, last]])
            n = last
        j = n
        while j > 0 and _partner_before(d, self.rank[c], self.partner_dist[a, j - 1],
                                        self.rank[self.partners[a, j - 1]]):
            self.partners[a, j] = self.partners[a, j - 1]
            self.partner_dist[a, j] = self.partner_dist[a, j - 1]
            self.partner_version[a, j] = self.partner_version[a, j - 1]
            j -= 1
        self.partners[a, j] = <stage_t> c
        self.partner_dist[a, j] = d
        self.partner_version[a, j] = self.version[c]
        self.n_listed[a] = n + 1

    cdef void relist(self, Py_ssize_t a) noexcept nogil:
        """List the closest live later partners of ``a`` by a scan."""
        cdef Py_ssize_t j, c
        self.n_listed[a] = 0
        self.bound_rank[a] = -1
        self.scan.begin(a)
        for j in range(self.position[a] + 1, self.order.shape[0]):
            c = self.order[j]
            if self.active[c]:
                self.offer(a, c, self.scan.get(c))

    cdef void refresh(self, Py_ssize_t a) noexcept nogil:
        """Make the first live listed partner of ``a`` its nearest later one,
        relisting when the list cannot tell."""
        cdef Py_ssize_t j, n_dead = 0, n = self.n_listed[a]
        while n_dead < n and not self.is_live(a, n_dead):
            n_dead += 1
        if n_dead:
            for j in range(n - n_dead):
                self.partners[a, j] = self.partners[a, j + n_dead]
                self.partner_dist[a, j] = self.partner_dist[a, j + n_dead]
                self.partner_version[a, j] = self.partner_version[a, j + n_dead]
            n = n - n_dead
            self.n_listed[a] = n
        if n == 0 or not (self.bound_rank[a] < 0 or _partner_before(
                self.partner_dist[a, 0], self.rank[self.partners[a, 0]],
                self.bound_dist[a], self.bound_rank[a])):
            if n == 0 and self.bound_rank[a] < 0:  # no later partner left
                self.nn_arg[a] = -1
                self.nn_dist[a] = INFINITY
                return
            self.relist(a)
            if self.n_listed[a] == 0:
                self.nn_arg[a] = -1
                self.nn_dist[a] = INFINITY
                return
        self.nn_arg[a] = self.partners[a, 0]
        self.nn_dist[a] = self.partner_dist[a, 0]

    cdef void start(self) noexcept nogil:
        cdef Py_ssize_t a
        for a in range(self.rank.shape[0]):
            self.relist(a)
            self.refresh(a)


def backward_join_distance(float64_t[:, ::1] prob, float64_t[::1] n, const index_t[::1] row_of,
                           const index_t[::1] rank, double lam, double ll, double df,
                           str distance, double thr, index_t[:, ::1] merges):
    """Backward joining of the two closest stages while closer than ``thr`` (R: ``stages_bj``).

    ``row_of`` numbers the stages' rows of probabilities (``0..n_rows-1``),
    equal for rows equal bit for bit (the same distances to everything), and
    ``rank`` orders the stages as R's ``unique()``; the closest pair is the
    first minimum of R's distance matrix in column-major order, and the
    join keeps the earlier stage.  Probabilities, sample sizes and the
    chained log-likelihood follow R's ``join_stages_unsafe``.

    Memory is linear in the number of stages (``BYTES_PER_STAGE`` each, and
    ``BYTES_PER_STAGE_LEVEL`` per level): each keeps its nearest later
    partner and a short list of its closest ones (see ``_Nearest``), and
    distances are computed when needed, once per distinct row of
    probabilities (see ``_Stages``).

    Returns
    -------
    (number of joins, ll, df)
    """
    cdef Py_ssize_t m = prob.shape[0], k = prob.shape[1]
    cdef Py_ssize_t a, b, j, keep, drop, best_row, n_joins = 0
    cdef double value, best, dll, gain
    cdef double new_p[MAX_LEVELS]
    if m < 2:
        return 0, ll, df
    cdef _Stages stages = _Stages(prob, row_of, rank, DISTANCE_CODES[distance])
    cdef const index_t[::1] order = np.argsort(np.asarray(rank), kind="stable")
    cdef index_t[::1] position = np.empty(m, dtype=np.int64)
    for j in range(m):
        position[order[j]] = j
    cdef _Nearest near = _Nearest(stages, rank, order, position)
    cdef _Memo to_keep = _Memo(stages)
    cdef flag_t[::1] active = near.active
    cdef double[::1] nn_dist = near.nn_dist
    cdef index_t[::1] nn_arg = near.nn_arg
    with nogil:
        near.start()
        while True:
            best_row = -1
            best = INFINITY
            # the first closest pair: by distance, then its earlier stage's rank
            # (each stage holds its pairs with later ones); the partner comes
            # first among equals in the stage's own order
            for j in range(m):
                a = order[j]
                if not active[a] or nn_arg[a] < 0:
                    continue
                if best_row < 0 or nn_dist[a] < best:
                    best_row = a
                    best = nn_dist[a]
            if best_row < 0 or not fabs(best) < thr:
                break
            keep, drop = best_row, nn_arg[best_row]
            join_stats(&prob[keep, 0], n[keep], &prob[drop, 0], n[drop], lam, k,
                       new_p, &dll, &gain)
            stages.set_joined(keep, drop, new_p)
            n[keep] = n[keep] + n[drop]
            ll = (ll - dll) + gain
            df = df - k + 1
            active[drop] = 0
            near.version[keep] += 1
            merges[n_joins, 0] = keep
            merges[n_joins, 1] = drop
            n_joins += 1
            near.n_listed[keep] = 0
            near.bound_rank[keep] = -1
            to_keep.begin(keep)
            for j in range(m):
                b = order[j]
                if b == keep or not active[b]:
                    continue
                value = to_keep.get(b)
                if j > position[keep]:
                    near.offer(keep, b, value)
                    if nn_arg[b] == drop:
                        near.refresh(b)
                    continue
                near.offer(b, keep, value)
                if nn_arg[b] < 0 or nn_arg[b] == keep or nn_arg[b] == drop:
                    near.refresh(b)
                elif _better(value, rank[keep], nn_dist[b], rank[nn_arg[b]]):
                    nn_dist[b] = value
                    nn_arg[b] = keep
            near.refresh(keep)
    return n_joins, ll, df


cdef inline bint _partner_before(double d1, index_t r1, double d2, index_t r2) noexcept nogil:
    """Whether a partner (distance, rank) comes before another for one stage."""
    return d1 < d2 or (d1 == d2 and r1 < r2)


cdef inline bint _better(double value, index_t r_new, double current,
                         index_t r_current) noexcept nogil:
    """Whether a partner (value, rank) beats the current one (smaller, then first in order).

    For one stage, R's column-major order among its partners is their rank.
    """
    return not isnan(value) and _partner_before(value, r_new, current, r_current)
