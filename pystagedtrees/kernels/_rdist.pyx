"""Kernel of R's ``stats::dist`` between rows (the clustering learners' distances)."""
from libc.math cimport fabs, sqrt

from pystagedtrees.kernels._types cimport float64_t

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
