"""Inference kernels: log-probabilities of paths with gaps summed out,
through dense stage vectors (complete paths: :mod:`._predict`)."""
from libc.math cimport INFINITY, exp, log1p
from pystagedtrees.kernels._types cimport code_t, float64_t, index_t, stage_t


cdef inline double _path_value(const code_t[::1] path, Py_ssize_t length,
                               const stage_t[::1] stages, const index_t[::1] stage_offset,
                               const float64_t[::1] log_prob, const index_t[::1] prob_offset,
                               const index_t[::1] n_levels) noexcept nogil:
    """Log-probability of the path ``path[:length]``; -inf where a stage is undefined (NaN)."""
    cdef Py_ssize_t i
    cdef index_t sit = 0
    cdef double total = 0.0
    for i in range(length):
        total += log_prob[prob_offset[i] + stages[stage_offset[i] + sit] * n_levels[i] + path[i]]
        sit = sit * n_levels[i] + path[i]
    if total != total:
        return -INFINITY
    return total


cdef inline bint _next_completion(const code_t[:, ::1] codes, Py_ssize_t r, code_t[::1] path,
                                  Py_ssize_t length, const index_t[::1] n_levels) noexcept nogil:
    """Step ``path`` to the next completion of row ``r``'s gaps, the first gap
    fastest (R's ``expand.grid`` order); False after the last one."""
    cdef Py_ssize_t i
    for i in range(length):
        if codes[r, i] < 0:
            path[i] += 1
            if path[i] < n_levels[i]:
                return True
            path[i] = 0
    return False


def dense_summed_out_logprob(const code_t[:, ::1] codes, const stage_t[::1] stages,
                             const index_t[::1] stage_offset, const float64_t[::1] log_prob,
                             const index_t[::1] prob_offset, const index_t[::1] n_levels,
                             float64_t[::1] buffer, code_t[::1] path, float64_t[::1] out):
    """``out[r]`` = log of the summed probabilities of every completion of row
    ``r``'s gaps (codes < 0) up to its last observed variable; 0 for a row
    with nothing observed.

    Undefined paths count as probability 0.  The sum is R's
    ``matrixStats::logSumExp``: the first largest term ``t`` plus
    ``log1p`` of the others' ``exp(x - t)`` added in order.  Rows with more
    completions than ``buffer`` holds compute their paths twice.  ``path``
    has one slot per column; the caller checks codes are in range.
    """
    cdef Py_ssize_t r, i, j, last, count, top_index
    cdef Py_ssize_t n = codes.shape[0], m = codes.shape[1], capacity = buffer.shape[0]
    cdef double value, top, total
    cdef bint overflow
    with nogil:
        for r in range(n):
            last = -1
            for i in range(m):
                path[i] = codes[r, i] if codes[r, i] >= 0 else 0
                if codes[r, i] >= 0:
                    last = i
            if last < 0:
                out[r] = 0.0
                continue
            # first pass: the largest term (and every term, while they fit)
            count = 0
            top = -INFINITY
            top_index = 0
            while True:
                value = _path_value(path, last + 1, stages, stage_offset, log_prob,
                                    prob_offset, n_levels)
                if count < capacity:
                    buffer[count] = value
                if value > top:
                    top = value
                    top_index = count
                count += 1
                if not _next_completion(codes, r, path, last + 1, n_levels):
                    break
            if top == -INFINITY or count == 1:
                out[r] = top
                continue
            # second pass: the other terms, in the same order (``path`` is
            # back at the first completion)
            overflow = count > capacity
            total = 0.0
            for j in range(count):
                if j < capacity:
                    value = buffer[j]
                else:
                    value = _path_value(path, last + 1, stages, stage_offset, log_prob,
                                        prob_offset, n_levels)
                if j != top_index:
                    total += exp(value - top)
                if overflow:
                    _next_completion(codes, r, path, last + 1, n_levels)
            out[r] = top + log1p(total)
