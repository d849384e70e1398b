"""Kernel of ``stages_bj``: joining the closest stages while closer than a threshold.

Distances between stage probabilities are R's ``probdist.*`` (R/probdist.R),
with the same operations and R's long-double sums; joins follow R's
``join_stages_unsafe`` (``_rstage.pxd``).
"""
import numpy as np

from libc.math cimport INFINITY, fabs, isnan, log, sqrt

from pystagedtrees.kernels._limits cimport MAX_LEVELS, NEAREST_LISTED
from pystagedtrees.kernels._rstage cimport join_stats
from pystagedtrees.kernels._rsum cimport racc_t
from pystagedtrees.kernels._types cimport flag_t, float64_t, index_t, stage_t

DISTANCE_CODES = {
    "manhattan": 0, "euclidean": 1, "reny": 2, "kullback": 3,
    "totvar": 4, "hellinger": 5, "bhatt": 6, "chandarw": 7,
}


cdef double probdist(int code, const double* x, const double* y, Py_ssize_t k) noexcept nogil:
    """R's ``probdist.*(x, y)``: same operations, long-double sums."""
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


cdef inline void _set_distance(double[:, ::1] dist, int code, const float64_t[:, ::1] prob,
                               const index_t[::1] rank, Py_ssize_t a, Py_ssize_t b) noexcept nogil:
    """R's distance between stages ``a`` and ``b``, the later one first (R
    fills the lower triangle of its matrix), into both halves of ``dist``."""
    cdef double value
    if rank[a] > rank[b]:
        value = probdist(code, &prob[a, 0], &prob[b, 0], prob.shape[1])
    else:
        value = probdist(code, &prob[b, 0], &prob[a, 0], prob.shape[1])
    dist[a, b] = value
    dist[b, a] = value


cdef inline bint pair_before(index_t a, index_t b, index_t c, index_t d) noexcept nogil:
    """Whether pair {a, b} precedes {c, d} in column-major order of R's matrix."""
    cdef index_t lo1 = min(a, b), hi1 = max(a, b), lo2 = min(c, d), hi2 = max(c, d)
    return lo1 < lo2 or (lo1 == lo2 and hi1 < hi2)


def backward_join_distance(float64_t[:, ::1] prob, float64_t[::1] n, const index_t[::1] rank,
                           double lam, double ll, double df, str distance, double thr,
                           index_t[:, ::1] merges):
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
    dist_arr = np.full((m, m), np.nan)
    row_min_arr = np.full(m, np.inf)
    row_arg_arr = np.full(m, -1, dtype=np.int64)
    active_arr = np.ones(m, dtype=np.uint8)
    cdef double[:, ::1] dist = dist_arr
    cdef double[::1] row_min = row_min_arr
    cdef index_t[::1] row_arg = row_arg_arr
    cdef flag_t[::1] active = active_arr
    with nogil:
        for a in range(m):
            for b in range(a):
                _set_distance(dist, code, prob, rank, a, b)
    partners_arr = np.empty((m, NEAREST_LISTED), dtype=np.int32)
    # a full list used up: the first search fills it
    next_arr = np.full(m, NEAREST_LISTED, dtype=np.int64)
    listed_arr = np.full(m, NEAREST_LISTED, dtype=np.int64)
    changed_arr = np.zeros(m, dtype=np.uint8)
    changed_list_arr = np.empty(m, dtype=np.int64)
    cdef stage_t[:, ::1] partners = partners_arr
    cdef index_t[::1] next_partner = next_arr
    cdef index_t[::1] n_listed = listed_arr
    cdef flag_t[::1] changed = changed_arr
    cdef index_t[::1] changed_list = changed_list_arr
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
                _set_distance(dist, code, prob, rank, keep, b)
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


cdef inline bint _partner_before(double d1, index_t r1, double d2, index_t r2) noexcept nogil:
    """Whether a partner (distance, rank) comes before another for one stage."""
    return d1 < d2 or (d1 == d2 and r1 < r2)


cdef inline bint _better(double value, index_t r_new, double current,
                         index_t r_current) noexcept nogil:
    """Whether a partner (value, rank) beats the current one (smaller, then first in order).

    For one stage, R's column-major order among its partners is their rank.
    """
    return not isnan(value) and _partner_before(value, r_new, current, r_current)


cdef void _scan_nearest(double[:, ::1] dist, const flag_t[::1] active,
                        const index_t[::1] rank, Py_ssize_t a, double[::1] row_min,
                        index_t[::1] row_arg) noexcept nogil:
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


cdef void _list_partners(double[:, ::1] dist, const flag_t[::1] active,
                         const index_t[::1] rank, const flag_t[::1] changed,
                         Py_ssize_t a, stage_t[:, ::1] partners, index_t[::1] n_listed) noexcept nogil:
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
        partners[a, j] = <stage_t> c
        if n < NEAREST_LISTED:
            n += 1
    n_listed[a] = n


cdef void _nearest(double[:, ::1] dist, const flag_t[::1] active,
                   const index_t[::1] rank, stage_t[:, ::1] partners,
                   index_t[::1] next_partner, index_t[::1] n_listed,
                   const flag_t[::1] changed, const index_t[::1] changed_list,
                   Py_ssize_t n_changed, Py_ssize_t a, double[::1] row_min,
                   index_t[::1] row_arg) noexcept nogil:
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
