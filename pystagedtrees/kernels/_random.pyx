"""Kernels of :mod:`pystagedtrees.random._random`: sampling paths and random stage joins.

Both kernels read uniforms from a buffer filled by the caller, either from
a numpy ``Generator`` or from R's stream (:class:`~pystagedtrees.rng._rrandom.RRandom`),
and consume them in the order R would: that is what makes R-exact replay
possible with compiled loops.
"""
import numpy as np

from libc.math cimport ceil, floor, log2
from pystagedtrees.kernels._types cimport code_t, flag_t, float64_t, index_t, stage_t


def draw_levels(const stage_t[::1] stage, const flag_t[::1] drawable,
                const float64_t[:, ::1] cum, const index_t[:, ::1] order,
                const float64_t[::1] u, code_t[:, ::1] codes, Py_ssize_t column,
                index_t[::1] situation):
    """Draw one level per row from the distribution of its stage; return the uniforms used.

    A row whose situation is -1 (it stopped earlier) or whose stage is not
    ``drawable`` (unobserved, undefined probabilities) gets -1 and stops.
    Any other row takes the next uniform ``x`` and the level ``order[s, j]``
    for the first ``j`` with ``x <= cum[s, j]`` (the last one if none): R's
    inversion over probabilities sorted by ``order``.  Its situation
    becomes ``situation[r] * k + level``; its code goes to ``codes[r, column]``.  The caller guarantees valid
    stage ids for live rows and at least one uniform per row.
    """
    cdef Py_ssize_t r, j, c, n = stage.shape[0], k = cum.shape[1], next_u = 0
    cdef stage_t s
    cdef double x
    with nogil:
        for r in range(n):
            s = stage[r]
            if situation[r] < 0 or not drawable[s]:
                codes[r, column] = -1
                situation[r] = -1
                continue
            x = u[next_u]
            next_u += 1
            # the first j with x <= cum[s, j] is the number of (nondecreasing)
            # cumulative sums below x: counted without branches
            j = 0
            for c in range(k - 1):
                j += x > cum[s, c]
            codes[r, column] = <code_t>order[s, j]
            situation[r] = situation[r] * k + codes[r, column]
    return next_u


cdef index_t _index_from_uniforms(double n, const float64_t[::1] u, Py_ssize_t* pos) noexcept nogil:
    """R's ``R_unif_index(n)`` (rejection on 16-bit chunks) on buffered uniforms.

    Returns -1 when the buffer runs out before an index is accepted.
    """
    cdef int bits = <int>ceil(log2(n))
    cdef int chunk
    cdef index_t v
    while True:
        v = 0
        chunk = 0
        while chunk <= bits:
            if pos[0] >= u.shape[0]:
                return -1
            v = 65536 * v + <index_t>floor(u[pos[0]] * 65536)
            pos[0] += 1
            chunk += 16
        v &= ((<index_t>1) << bits) - 1
        if v < n:
            return v


cdef class StageJoiner:
    """R's ``random_sevt`` joins over the stages ``0..m-1`` of one variable.

    Stages are visited in order (they are numbered by first appearance);
    each one, with probability ``q``, is renamed to a stage drawn uniformly
    among those still present, listed by first appearance.  A join keeps
    the earlier first appearance, so the live stages are tracked by the
    slot of their first appearance in a Fenwick tree, which finds the
    ``i``-th live stage in logarithmic time.
    """

    cdef public Py_ssize_t next_stage
    cdef Py_ssize_t m, n_live
    cdef index_t[::1] fenwick
    cdef stage_t[::1] label_of_slot, slot_of_label, merged_into

    def __init__(self, Py_ssize_t m):
        cdef Py_ssize_t i, parent
        self.m = m
        self.n_live = m
        self.next_stage = 0
        self.fenwick = np.zeros(m + 1, dtype="int64")
        self.label_of_slot = np.arange(m, dtype="int32")
        self.slot_of_label = np.arange(m, dtype="int32")
        self.merged_into = np.full(m, -1, dtype="int32")
        for i in range(1, m + 1):
            self.fenwick[i] += 1
            parent = i + (i & -i)
            if parent <= m:
                self.fenwick[parent] += self.fenwick[i]

    cdef void _remove(self, Py_ssize_t slot) noexcept nogil:
        cdef Py_ssize_t i = slot + 1
        while i <= self.m:
            self.fenwick[i] -= 1
            i += i & -i

    cdef Py_ssize_t _kth(self, index_t k) noexcept nogil:
        """Slot of the k-th (0-based) live stage."""
        cdef Py_ssize_t pos = 0, step = 1
        while step * 2 <= self.m:
            step *= 2
        while step > 0:
            if pos + step <= self.m and self.fenwick[pos + step] <= k:
                pos += step
                k -= self.fenwick[pos]
            step //= 2
        return pos

    def run(self, double q, const float64_t[::1] u):
        """Process stages until done or out of uniforms; return the uniforms used.

        Only whole stages count: a stage whose draws do not fit in ``u`` is
        left for the next call, which must start from the same stream
        position.
        """
        cdef Py_ssize_t pos = 0, used = 0, slot_s, slot_t, keep, drop
        cdef index_t pick
        cdef stage_t s, t
        with nogil:
            while self.next_stage < self.m:
                if pos >= u.shape[0]:
                    break
                s = <stage_t>self.next_stage
                if u[pos] < q:
                    pos += 1
                    pick = _index_from_uniforms(<double>self.n_live, u, &pos)
                    if pick < 0:
                        break
                    t = self.label_of_slot[self._kth(pick)]
                    if self.merged_into[s] < 0 and t != s:
                        slot_s = self.slot_of_label[s]
                        slot_t = self.slot_of_label[t]
                        keep = slot_s if slot_s < slot_t else slot_t
                        drop = slot_t if slot_s < slot_t else slot_s
                        self._remove(drop)
                        self.label_of_slot[keep] = t
                        self.slot_of_label[t] = <stage_t>keep
                        self.merged_into[s] = t
                        self.n_live -= 1
                else:
                    pos += 1
                used = pos
                self.next_stage += 1
        return used

    def mapping(self):
        """Final stage of each original stage (following chains of joins)."""
        cdef Py_ssize_t i
        cdef stage_t x
        out = np.empty(self.m, dtype=np.int32)
        cdef stage_t[::1] view = out
        for i in range(self.m):
            x = <stage_t>i
            while self.merged_into[x] >= 0:
                x = self.merged_into[x]
            view[i] = x
        return out
