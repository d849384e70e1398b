"""Kernel of R's ``stats::dist`` between rows (the clustering learners' distances)."""
from pystagedtrees.kernels._rdist cimport (
    CANBERRA,
    EUCLIDEAN,
    MANHATTAN,
    MAXIMUM,
    MINKOWSKI,
    pair_distance,
)
from pystagedtrees.kernels._types cimport float64_t

R_DIST_CODES = {"euclidean": EUCLIDEAN, "maximum": MAXIMUM, "manhattan": MANHATTAN,
                "canberra": CANBERRA, "minkowski": MINKOWSKI}


def r_dist(const float64_t[:, ::1] x, str method, float64_t[:, ::1] out):
    """R's ``as.matrix(dist(x, method))`` (Minkowski with p = 2), into ``out``
    (see ``pair_distance`` in ``_rdist.pxd``)."""
    cdef int code = R_DIST_CODES[method]
    cdef Py_ssize_t i, j, m = x.shape[0]
    cdef double acc
    with nogil:
        for i in range(m):
            out[i, i] = 0.0
            for j in range(i):
                acc = pair_distance(x, i, j, code)
                out[i, j] = acc
                out[j, i] = acc
