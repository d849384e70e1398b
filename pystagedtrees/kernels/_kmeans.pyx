"""Kernels of :mod:`pystagedtrees.learners._kmeans`: the three k-means algorithms of R.

All functions take the data ``x`` (m x p), the initial ``centers`` (k x p,
overwritten with the final centres) and fill 0-based ``cluster``, ``size``
and ``wss``.  They return ``(iterations, fault)`` with R's meanings:
``iterations`` is ``iter_max + 1`` when the algorithm did not converge, and
``fault`` is 0 (fine), 1 (empty cluster after the initial assignment,
Hartigan-Wong only), 2 (no convergence) or 4 (quick-transfer step limit).

Hartigan-Wong follows Hartigan & Wong (1979), Applied Statistics 28:100-108,
algorithm AS 136: alternate an optimal-transfer pass (move each point to the
cluster that most reduces the within-cluster sum of squares, considering only
"live" clusters when the point's own cluster is not live) with quick-transfer
passes (only swap a point between its closest and second-closest cluster)
until a whole pass over the data moves nothing.  Bookkeeping: ``ncp[l]`` is
the step at which cluster l last changed (plus m during quick transfer),
``live[l]`` the step until which it stays in the live set, ``itran[l]``
whether quick transfer changed it, and ``d[i]`` point i's weighted distance
to its own cluster.  Point steps are counted from 1 as in the paper.
"""
from libc.math cimport INFINITY
from libc.stdlib cimport calloc, free

from pystagedtrees.kernels._types cimport float64_t, index_t


# The paper's "very large number" (a single-precision 1e30 in AS 136); it
# weights singletons, which are never moved, so its exact value is inert.
cdef double BIG = <double><float>1e30

cdef enum Fault:
    OK = 0
    EMPTY_CLUSTER = 1
    NOT_CONVERGED = 2
    QUICK_TRANSFER_LIMIT = 4


cdef inline double _sqdist(const float64_t[:, ::1] x, Py_ssize_t i, float64_t[:, ::1] c,
                           Py_ssize_t l) noexcept nogil:
    cdef Py_ssize_t j
    cdef double total = 0.0, diff
    for j in range(x.shape[1]):
        diff = x[i, j] - c[l, j]
        total += diff * diff
    return total


cdef inline double _sqdist_below(const float64_t[:, ::1] x, Py_ssize_t i, float64_t[:, ::1] c,
                                 Py_ssize_t l, double bound) noexcept nogil:
    """Squared distance, abandoned (returning INFINITY) once it reaches ``bound``."""
    cdef Py_ssize_t j
    cdef double total = 0.0, diff
    for j in range(x.shape[1]):
        diff = x[i, j] - c[l, j]
        total += diff * diff
        if total >= bound:
            return INFINITY
    return total


cdef void _transfer(const float64_t[:, ::1] x, float64_t[:, ::1] c, Py_ssize_t i, Py_ssize_t l1,
                    Py_ssize_t l2, index_t[::1] ic1, index_t* ic2, index_t[::1] nc,
                    double* an1, double* an2) noexcept nogil:
    """Move point i from cluster l1 to l2, updating both centres and their weights.

    ``an1[l] = n/(n-1)`` and ``an2[l] = n/(n+1)`` turn squared distances into
    the change of within-cluster sum of squares caused by removing/adding a point.
    """
    cdef Py_ssize_t j
    cdef double n1 = nc[l1], n1_after = n1 - 1.0, n2 = nc[l2], n2_after = n2 + 1.0
    for j in range(x.shape[1]):
        c[l1, j] = (c[l1, j] * n1 - x[i, j]) / n1_after
        c[l2, j] = (c[l2, j] * n2 + x[i, j]) / n2_after
    nc[l1] -= 1
    nc[l2] += 1
    an2[l1] = n1_after / n1
    an1[l1] = n1_after / (n1_after - 1.0) if n1_after > 1.0 else BIG
    an1[l2] = n2_after / n2
    an2[l2] = n2_after / (n2_after + 1.0)
    ic1[i] = l2
    ic2[i] = l1


cdef void _optimal_transfer(const float64_t[:, ::1] x, float64_t[:, ::1] c, index_t[::1] ic1,
                            index_t* ic2, index_t[::1] nc, double* an1, double* an2,
                            index_t* ncp, double* d, index_t* itran, index_t* live,
                            index_t* quiet_steps) noexcept nogil:
    """One optimal-transfer pass; stops early once m consecutive steps moved nothing."""
    cdef Py_ssize_t m = x.shape[0], k = c.shape[0], i, l, l1, l2, previous_l2
    cdef index_t step
    cdef double r2, dist
    for l in range(k):
        if itran[l] == 1:
            live[l] = m + 1
    for i in range(m):
        step = i + 1
        quiet_steps[0] += 1
        l1 = ic1[i]
        if nc[l1] != 1:
            if ncp[l1] != 0:
                d[i] = _sqdist(x, i, c, l1) * an1[l1]
            previous_l2 = ic2[i]
            l2 = previous_l2
            r2 = _sqdist(x, i, c, l2) * an2[l2]
            for l in range(k):
                # When l1 is not live only live clusters are candidates.
                if (step >= live[l1] and step >= live[l]) or l == l1 or l == previous_l2:
                    continue
                dist = _sqdist_below(x, i, c, l, r2 / an2[l])
                if dist == INFINITY:
                    continue
                r2 = dist * an2[l]
                l2 = l
            if r2 >= d[i]:
                ic2[i] = l2
            else:
                quiet_steps[0] = 0
                live[l1] = m + step
                live[l2] = m + step
                ncp[l1] = step
                ncp[l2] = step
                _transfer(x, c, i, l1, l2, ic1, ic2, nc, an1, an2)
        if quiet_steps[0] == m:
            return
    for l in range(k):
        itran[l] = 0
        live[l] -= m


cdef bint _quick_transfer(const float64_t[:, ::1] x, float64_t[:, ::1] c, index_t[::1] ic1,
                          index_t* ic2, index_t[::1] nc, double* an1, double* an2,
                          index_t* ncp, double* d, index_t* itran, index_t* quiet_steps,
                          index_t max_steps) noexcept nogil:
    """Quick-transfer passes until m steps in a row move nothing; False if ``max_steps`` hit."""
    cdef Py_ssize_t m = x.shape[0], i, l1, l2
    cdef index_t step = 0, unchanged = 0
    while True:
        for i in range(m):
            unchanged += 1
            step += 1
            if step >= max_steps:
                return False
            l1 = ic1[i]
            l2 = ic2[i]
            if nc[l1] != 1:
                if step <= ncp[l1]:
                    d[i] = _sqdist(x, i, c, l1) * an1[l1]
                # No transfer is possible unless l1 or l2 changed in the last m steps.
                if (step < ncp[l1] or step < ncp[l2]) and \
                        _sqdist_below(x, i, c, l2, d[i] / an2[l2]) != INFINITY:
                    unchanged = 0
                    quiet_steps[0] = 0
                    itran[l1] = 1
                    itran[l2] = 1
                    ncp[l1] = step + m
                    ncp[l2] = step + m
                    _transfer(x, c, i, l1, l2, ic1, ic2, nc, an1, an2)
            if unchanged == m:
                return True


def hartigan_wong(const float64_t[:, ::1] x, float64_t[:, ::1] centers, index_t[::1] cluster,
                  index_t[::1] size, float64_t[::1] wss, int iter_max, index_t max_quick_steps):
    """Hartigan-Wong (AS 136); requires 2 <= k < m (checked by the caller)."""
    cdef Py_ssize_t m = x.shape[0], k = centers.shape[0]
    # the scratch, in two zeroed blocks of C memory (the kernel runs for every
    # variable a learner clusters, and on small ones numpy's allocations and
    # views of them cost more than the run)
    cdef index_t* integers = <index_t*> calloc(m + 3 * k, sizeof(index_t))
    cdef double* reals = <double*> calloc(m + 2 * k, sizeof(double))
    try:
        if integers == NULL or reals == NULL:
            raise MemoryError()
        return _hartigan_wong(x, centers, cluster, size, wss, iter_max, max_quick_steps,
                              integers, integers + m, integers + m + k, integers + m + 2 * k,
                              reals, reals + m, reals + m + k)
    finally:
        free(integers)
        free(reals)


cdef _hartigan_wong(const float64_t[:, ::1] x, float64_t[:, ::1] centers, index_t[::1] cluster,
                    index_t[::1] size, float64_t[::1] wss, int iter_max,
                    index_t max_quick_steps, index_t* ic2, index_t* ncp, index_t* itran,
                    index_t* live, double* d, double* an1, double* an2):
    """:func:`hartigan_wong` on zeroed scratch: ``ic2``, ``d`` one per point,
    the others one per cluster."""
    cdef Py_ssize_t m = x.shape[0], p = x.shape[1], k = centers.shape[0], i, j, l
    cdef index_t quiet_steps = 0, iteration
    cdef double first, second, dist, count
    cdef int fault = NOT_CONVERGED
    with nogil:
        # Closest and second-closest initial centre of every point.
        for i in range(m):
            first = _sqdist(x, i, centers, 0)
            second = _sqdist(x, i, centers, 1)
            cluster[i], ic2[i] = 0, 1
            if first > second:
                cluster[i], ic2[i] = 1, 0
                first, second = second, first
            for l in range(2, k):
                dist = _sqdist_below(x, i, centers, l, second)
                if dist == INFINITY:
                    continue
                if dist >= first:
                    second = dist
                    ic2[i] = l
                else:
                    second = first
                    ic2[i] = cluster[i]
                    first = dist
                    cluster[i] = l
        _centroids(x, centers, cluster, size)
    for l in range(k):
        if size[l] == 0:
            return 0, EMPTY_CLUSTER
    with nogil:
        for l in range(k):
            count = size[l]
            for j in range(p):
                centers[l, j] = centers[l, j] / count
            an2[l] = count / (count + 1.0)
            an1[l] = count / (count - 1.0) if count > 1.0 else BIG
            itran[l] = 1
            ncp[l] = -1
        iteration = 1
        while iteration <= iter_max:
            _optimal_transfer(x, centers, cluster, ic2, size, an1, an2, ncp, d, itran, live,
                              &quiet_steps)
            if quiet_steps == m:
                fault = OK
                break
            if not _quick_transfer(x, centers, cluster, ic2, size, an1, an2, ncp, d, itran,
                                   &quiet_steps, max_quick_steps):
                fault = QUICK_TRANSFER_LIMIT
                break
            # With two clusters the optimal-transfer pass has nothing left to find.
            if k == 2:
                fault = OK
                break
            for l in range(k):
                ncp[l] = 0
            iteration += 1
        # Final centres and within sums of squares, accumulated column by column.
        _centroids(x, centers, cluster, size)
        for l in range(k):
            wss[l] = 0.0
        for j in range(p):
            for l in range(k):
                centers[l, j] = centers[l, j] / <double>size[l]
            for i in range(m):
                dist = x[i, j] - centers[cluster[i], j]
                wss[cluster[i]] += dist * dist
    return iteration, fault


cdef void _centroids(const float64_t[:, ::1] x, float64_t[:, ::1] c, index_t[::1] cluster,
                     index_t[::1] size) noexcept nogil:
    """Column sums of each cluster's points (in point order) and cluster sizes; no division."""
    cdef Py_ssize_t i, j, l
    for l in range(c.shape[0]):
        size[l] = 0
        for j in range(c.shape[1]):
            c[l, j] = 0.0
    for i in range(x.shape[0]):
        l = cluster[i]
        size[l] += 1
        for j in range(x.shape[1]):
            c[l, j] += x[i, j]


cdef Py_ssize_t _nearest(const float64_t[:, ::1] x, Py_ssize_t i, float64_t[:, ::1] c,
                         Py_ssize_t fallback) noexcept nogil:
    """Index of the closest centre (first on ties); ``fallback`` if none compares below +inf."""
    cdef Py_ssize_t l, best_l = fallback
    cdef double best = INFINITY, dist
    for l in range(c.shape[0]):
        dist = _sqdist(x, i, c, l)
        if dist < best:
            best = dist
            best_l = l
    return best_l


cdef void _point_order_wss(const float64_t[:, ::1] x, float64_t[:, ::1] c, index_t[::1] cluster,
                           float64_t[::1] wss) noexcept nogil:
    cdef Py_ssize_t i, j
    cdef double diff
    for j in range(c.shape[0]):
        wss[j] = 0.0
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            diff = x[i, j] - c[cluster[i], j]
            wss[cluster[i]] += diff * diff


def lloyd(const float64_t[:, ::1] x, float64_t[:, ::1] centers, index_t[::1] cluster,
          index_t[::1] size, float64_t[::1] wss, int iter_max):
    """Lloyd/Forgy: assign every point to its nearest centre, then recompute all means."""
    cdef Py_ssize_t m = x.shape[0], p = x.shape[1], k = centers.shape[0], i, j, l
    cdef Py_ssize_t nearest = 0
    cdef int iteration = 0
    cdef bint changed
    with nogil:
        for i in range(m):
            cluster[i] = -1
        while iteration < iter_max:
            changed = False
            for i in range(m):
                # ``nearest`` carries over between points when no distance is finite.
                nearest = _nearest(x, i, centers, nearest)
                if cluster[i] != nearest:
                    changed = True
                    cluster[i] = nearest
            if not changed:
                break
            _centroids(x, centers, cluster, size)
            for l in range(k):
                for j in range(p):
                    centers[l, j] = centers[l, j] / <double>size[l]  # empty: 0/0 = NaN, as R
            iteration += 1
        _point_order_wss(x, centers, cluster, wss)
    return iteration + 1, NOT_CONVERGED if iteration == iter_max else OK


def macqueen(const float64_t[:, ::1] x, float64_t[:, ::1] centers, index_t[::1] cluster,
             index_t[::1] size, float64_t[::1] wss, int iter_max):
    """MacQueen: one assignment and centroid pass, then online updates point by point."""
    cdef Py_ssize_t m = x.shape[0], p = x.shape[1], k = centers.shape[0], i, j, l
    cdef Py_ssize_t nearest = 0, old
    cdef int iteration = 0
    cdef bint changed
    with nogil:
        for i in range(m):
            nearest = _nearest(x, i, centers, nearest)
            cluster[i] = nearest
        _centroids(x, centers, cluster, size)
        for l in range(k):
            for j in range(p):
                centers[l, j] = centers[l, j] / <double>size[l]  # empty: 0/0 = NaN, as R
        while iteration < iter_max:
            changed = False
            for i in range(m):
                nearest = _nearest(x, i, centers, nearest)
                old = cluster[i]
                if old != nearest:
                    changed = True
                    cluster[i] = nearest
                    size[old] -= 1
                    size[nearest] += 1
                    for j in range(p):
                        centers[old, j] += (centers[old, j] - x[i, j]) / <double>size[old]
                        centers[nearest, j] += (x[i, j] - centers[nearest, j]) / <double>size[nearest]
            if not changed:
                break
            iteration += 1
        _point_order_wss(x, centers, cluster, wss)
    return iteration + 1, NOT_CONVERGED if iteration == iter_max else OK
