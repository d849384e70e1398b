"""Kernel of :mod:`pystagedtrees.learners._hclust`: agglomeration with nearest-neighbour lists.

The bookkeeping follows Murtagh's description (Murtagh 1985, "Multidimensional
clustering algorithms"), as used by R's ``stats::hclust``: every active
cluster i keeps its nearest neighbour among the active clusters to its right
(``nn[i]``, ``nn_dist[i]``); each step merges the globally closest pair, keeps
the merged cluster under the smaller index, refreshes dissimilarities by the
Lance-Williams formula of the method, and repairs only the neighbour lists that
may have changed.  Ties are resolved as R resolves them (strict comparisons,
so the lowest index wins).
"""
import numpy as np

from libc.math cimport sqrt

from pystagedtrees.kernels._rdist cimport pair_distance
from pystagedtrees.kernels._types cimport float64_t, index_t

# Method codes, in the order of R's METHODS vector (its iOpt argument).
cpdef enum Method:
    WARD_D = 1
    SINGLE = 2
    COMPLETE = 3
    AVERAGE = 4
    MCQUITTY = 5
    MEDIAN = 6
    CENTROID = 7
    WARD_D2 = 8

# "No neighbour yet": larger than any accepted dissimilarity.
cdef double UNSET = 1e300


cdef inline double _lance_williams(int method, double d_ik, double d_jk, double d_ij,
                                   double size_i, double size_j, double size_k) noexcept nogil:
    """Dissimilarity of k to the union of clusters i and j (operation order as R's)."""
    if method == WARD_D or method == WARD_D2:
        return ((size_i + size_k) * d_ik + (size_j + size_k) * d_jk - size_k * d_ij) / (
            size_i + size_j + size_k)
    if method == SINGLE:
        return d_ik if d_ik < d_jk else d_jk
    if method == COMPLETE:
        return d_ik if d_ik > d_jk else d_jk
    if method == AVERAGE:
        return (size_i * d_ik + size_j * d_jk) / (size_i + size_j)
    if method == MCQUITTY:
        return (d_ik + d_jk) / 2
    if method == MEDIAN:
        return ((d_ik + d_jk) - d_ij / 2) / 2
    # CENTROID
    return (size_i * d_ik + size_j * d_jk - size_i * size_j * d_ij / (size_i + size_j)) / (
        size_i + size_j)


def agglomerate(float64_t[:, ::1] diss, int method, index_t[::1] left, index_t[::1] right,
                float64_t[::1] height):
    """Run the n-1 agglomerations; ``diss`` (n x n, symmetric) is overwritten.

    Step s merges clusters ``left[s] < right[s]`` (each named by an index
    that survives as the merged cluster's name: the smaller one) at
    ``height[s]``.  Ward's "D2" squares the input and reports square roots.
    """
    cdef Py_ssize_t n = diss.shape[0]
    cdef index_t[::1] nn = np.zeros(n, dtype=np.int64)
    cdef float64_t[::1] nn_dist = np.zeros(n, dtype=np.float64)
    cdef float64_t[::1] size = np.ones(n, dtype=np.float64)
    cdef index_t[::1] alive = np.arange(n, dtype=np.int64)
    with nogil:
        _agglomerate(diss, method, left, right, height, nn, nn_dist, size, alive)


cdef void _agglomerate(float64_t[:, ::1] diss, int method, index_t[::1] left,
                       index_t[::1] right, float64_t[::1] height, index_t[::1] nn,
                       float64_t[::1] nn_dist, float64_t[::1] size,
                       index_t[::1] alive) noexcept nogil:
    """:func:`agglomerate`, with its scratch: ``nn``, ``nn_dist`` (any),
    ``size`` (ones) and ``alive`` (0..n-1), one entry per observation.

    The active clusters are kept in increasing order in ``alive``, so every
    scan visits exactly the clusters, in the order, that a scan over all
    indices skipping the merged ones would.
    """
    cdef Py_ssize_t n = diss.shape[0], i, j, k, step, a, b, n_alive = n
    cdef Py_ssize_t keep, gone, best_i = 0, best_j = 0, candidate = 0
    cdef double best, d_new, d_keep_gone
    if method == WARD_D2:
        for i in range(n):
            for j in range(n):
                diss[i, j] = diss[i, j] * diss[i, j]
    # ``candidate`` deliberately survives from row to row (and step to
    # step): a cluster with no neighbour to its right inherits a stale
    # name, as in R, which is harmless because its distance stays UNSET.
    for i in range(n - 1):
        best = UNSET
        for j in range(i + 1, n):
            if diss[i, j] < best:
                best = diss[i, j]
                candidate = j
        nn[i] = candidate
        nn_dist[i] = best
    for step in range(n - 1):
        # the last index never has a neighbour to its right
        best = UNSET
        for a in range(n_alive):
            i = alive[a]
            if i < n - 1 and nn_dist[i] < best:
                best = nn_dist[i]
                best_i = i
                best_j = nn[i]
        keep = best_i if best_i < best_j else best_j
        gone = best_j if best_i < best_j else best_i
        left[step] = keep
        right[step] = gone
        height[step] = sqrt(best) if method == WARD_D2 else best
        for a in range(n_alive):
            if alive[a] == gone:
                break
        for b in range(a, n_alive - 1):
            alive[b] = alive[b + 1]
        n_alive -= 1
        # New dissimilarities to the merged cluster; its own neighbour is
        # searched to the right, while clusters to its left only learn
        # that it became closer.
        d_keep_gone = diss[keep, gone]
        best = UNSET
        for a in range(n_alive):
            k = alive[a]
            if k == keep:
                continue
            d_new = _lance_williams(method, diss[keep, k], diss[gone, k], d_keep_gone,
                                    size[keep], size[gone], size[k])
            diss[keep, k] = d_new
            diss[k, keep] = d_new
            if keep < k:
                if d_new < best:
                    best = d_new
                    candidate = k
            elif d_new < nn_dist[k]:
                nn_dist[k] = d_new
                nn[k] = keep
        size[keep] += size[gone]
        nn_dist[keep] = best
        nn[keep] = candidate
        # Clusters whose neighbour was one of the merged pair look again.
        for a in range(n_alive):
            i = alive[a]
            if i < n - 1 and (nn[i] == keep or nn[i] == gone):
                best = UNSET
                for b in range(a + 1, n_alive):
                    j = alive[b]
                    if diss[i, j] < best:
                        best = diss[i, j]
                        candidate = j
                nn[i] = candidate
                nn_dist[i] = best


def cut_groups(const index_t[::1] left, const index_t[::1] right, Py_ssize_t n_merges,
               index_t[::1] groups):
    """R's ``cutree`` after the first ``n_merges`` steps of :func:`agglomerate`.

    A cluster is named by its smallest observation (the index that survives a
    merge), so the groups, numbered 1, 2, ... in order of first observation,
    are the clusters in order of their names.  ``groups`` has one entry per
    observation; requires ``n_merges <= left.shape[0]`` and the indices that
    :func:`agglomerate` writes.
    """
    with nogil:
        _cut(left, right, n_merges, groups)


cdef void _cut(const index_t[::1] left, const index_t[::1] right, Py_ssize_t n_merges,
               index_t[::1] groups) noexcept nogil:
    cdef Py_ssize_t n = groups.shape[0], i, step
    cdef index_t top, next_group = 0
    # groups[] holds the parent links (each absorbed name points to its
    # survivor, a smaller index) until it is overwritten with numbers
    for i in range(n):
        groups[i] = i
    for step in range(n_merges):
        groups[right[step]] = left[step]
    for i in range(n):
        top = groups[i]
        if top == i:
            next_group += 1
            groups[i] = next_group
        else:  # the survivor is smaller, so already numbered
            groups[i] = groups[top]


def cut_rows(const float64_t[:, ::1] x, int distance, double divisor, int method,
             Py_ssize_t k, index_t[::1] groups):
    """``cut_groups`` of ``agglomerate`` of the dissimilarities between the rows
    of ``x``: R's ``dist(x, distance)`` (a code of ``_rdist.R_DIST_CODES``)
    divided by ``divisor``, in one call with no table made by the caller.

    Writes the group (1..k) of each row to ``groups`` and returns True; or
    returns False, ``groups`` unset, when two rows are at dissimilarity 0
    (which is what the caller's cut of distinct rows must exclude).
    Requires ``1 <= k <= n`` rows, ``n >= 2``.
    """
    cdef Py_ssize_t n = x.shape[0], i, j
    cdef double d
    cdef bint zero = False
    cdef float64_t[:, ::1] diss = np.empty((n, n), dtype=np.float64)
    cdef index_t[::1] left = np.empty(n - 1, dtype=np.int64)
    cdef index_t[::1] right = np.empty(n - 1, dtype=np.int64)
    cdef float64_t[::1] height = np.empty(n - 1, dtype=np.float64)
    cdef index_t[::1] nn = np.zeros(n, dtype=np.int64)
    cdef float64_t[::1] nn_dist = np.zeros(n, dtype=np.float64)
    cdef float64_t[::1] size = np.ones(n, dtype=np.float64)
    cdef index_t[::1] alive = np.arange(n, dtype=np.int64)
    with nogil:
        for i in range(n):
            diss[i, i] = 0.0
            for j in range(i):
                d = pair_distance(x, i, j, distance) / divisor
                zero = zero or d == 0.0
                diss[i, j] = d
                diss[j, i] = d
        if not zero:
            _agglomerate(diss, method, left, right, height, nn, nn_dist, size, alive)
            _cut(left, right, n - k, groups)
    return not zero
