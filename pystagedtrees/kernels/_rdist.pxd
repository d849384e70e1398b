# R's stats::dist between two rows, shared by r_dist and the hclust kernel's
# cut of rows (which computes its dissimilarities itself, not from a table).
from libc.math cimport fabs, sqrt

from pystagedtrees.kernels._types cimport float64_t

# distance codes (R_DIST_CODES in _rdist.pyx)
cdef enum:
    EUCLIDEAN = 0
    MAXIMUM = 1
    MANHATTAN = 2
    CANBERRA = 3
    MINKOWSKI = 4


cdef inline double pair_distance(const float64_t[:, ::1] x, Py_ssize_t i, Py_ssize_t j,
                                 int code) noexcept nogil:
    """R's dist between rows ``i`` and ``j`` (Minkowski with p = 2):
    coordinates accumulated in column order in double precision, as R's C
    code does; Canberra skips coordinates where both values are 0 and
    rescales by the number of coordinates used."""
    cdef Py_ssize_t a, k = x.shape[1], used = 0
    cdef double acc = 0.0, dev, total
    for a in range(k):
        dev = x[i, a] - x[j, a]
        if code == EUCLIDEAN or code == MINKOWSKI:
            acc += dev * dev
        elif code == MAXIMUM:
            if fabs(dev) > acc:
                acc = fabs(dev)
        elif code == MANHATTAN:
            acc += fabs(dev)
        else:
            total = fabs(x[i, a] + x[j, a])
            if total > 2.2250738585072014e-308 or fabs(dev) > 2.2250738585072014e-308:
                acc += fabs(dev) / total
                used += 1
    if code == EUCLIDEAN or code == MINKOWSKI:
        acc = sqrt(acc)
    elif code == CANBERRA and used != k:
        acc = acc / (<double>used / k)
    return acc
