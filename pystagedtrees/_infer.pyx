"""Inference kernel: log-probabilities of complete paths through dense stage vectors."""
from libc.stdint cimport int32_t, int64_t

ctypedef double float64_t


def dense_path_logprob(const int32_t[:, ::1] codes, const int32_t[::1] stages,
                       const int64_t[::1] stage_offset, const float64_t[::1] log_prob,
                       const int64_t[::1] prob_offset, const int64_t[::1] n_levels,
                       float64_t[::1] out):
    """``out[r]`` = sum over variables of log p(stage of r's situation, r's level).

    ``stages[stage_offset[i] + s]`` is the stage of situation ``s`` of
    variable ``i``; ``log_prob[prob_offset[i] + stage * k_i + level]`` its
    log-probability.  The caller checks that codes are complete and in range.
    """
    cdef Py_ssize_t r, i, n = codes.shape[0], m = codes.shape[1]
    cdef int64_t sit, code
    cdef int32_t stage
    cdef double total
    with nogil:
        for r in range(n):
            sit = 0
            total = 0.0
            for i in range(m):
                code = codes[r, i]
                stage = stages[stage_offset[i] + sit]
                total += log_prob[prob_offset[i] + stage * n_levels[i] + code]
                sit = sit * n_levels[i] + code
            out[r] = total
