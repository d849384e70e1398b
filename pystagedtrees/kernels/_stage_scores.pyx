"""Kernels of the scores of staged trees, with R's arithmetic.

R stagedtrees decides between equally good models by floating-point
comparisons, so its results are reproduced only if every score is computed
with R's operations in R's order (see ``_rsum.pxd`` and ``_rstage.pxd``).
"""
import numpy as np

from libc.math cimport INFINITY, isnan, log

from pystagedtrees.kernels._limits cimport MAX_LEVELS
from pystagedtrees.kernels._rstage cimport count_term, join_stats
from pystagedtrees.kernels._rsum cimport racc_t
from pystagedtrees.kernels._rsum cimport rsum as rsum_of
from pystagedtrees.kernels._types cimport float64_t, stage_t


def max_levels():
    """Largest number of levels of a variable the learners' kernels accept."""
    return MAX_LEVELS


def variable_loglik(const float64_t[:, ::1] counts, const float64_t[:, ::1] prob):
    """R's per-variable log-likelihood: long-double sum, column by column.

    ``prob[r]`` is the probability row of situation ``r``'s stage.  Returns
    ``-inf`` when a positive count meets an undefined probability, as R.
    """
    cdef Py_ssize_t r, a, m = counts.shape[0], k = counts.shape[1]
    cdef racc_t acc = 0.0
    with nogil:
        for a in range(k):
            for r in range(m):
                acc += count_term(prob[r, a], counts[r, a])
    return <double>acc


def staged_variable_loglik(const float64_t[:, ::1] counts, const stage_t[::1] stage_of_row,
                           const float64_t[:, ::1] prob):
    """``variable_loglik(counts, prob[stage_of_row])``, the same number, with
    each stage's logarithms taken once instead of once per situation (a
    learned variable has thousands of situations and a few stages).

    ``stage_of_row[r]`` is the stage (a row of ``prob``) of situation ``r``.
    """
    cdef Py_ssize_t r, a, s, m = counts.shape[0], k = counts.shape[1]
    cdef racc_t acc = 0.0
    cdef double p, c
    if stage_of_row.shape[0] != m or prob.shape[1] != k:
        raise ValueError(f"`stage_of_row` must have {m} rows and `prob` {k} columns; got "
                         f"{stage_of_row.shape[0]} and {prob.shape[1]}.")
    logs_array = np.zeros((prob.shape[0], k))
    cdef float64_t[:, ::1] logs = logs_array
    with nogil:
        for s in range(prob.shape[0]):
            for a in range(k):
                if prob[s, a] > 0:
                    logs[s, a] = log(prob[s, a])
        for a in range(k):
            for r in range(m):
                s = stage_of_row[r]
                p, c = prob[s, a], counts[r, a]
                if isnan(p):  # as count_term: a count meeting no probability is -inf
                    acc += -INFINITY if c > 0 else 0.0
                elif p > 0:
                    acc += logs[s, a] * c
    return <double>acc


def rsum(const float64_t[::1] values):
    """R's ``sum()`` of a double vector: sequential long-double accumulation."""
    cdef double total
    if values.shape[0] == 0:
        return 0.0
    with nogil:
        total = rsum_of(&values[0], values.shape[0])
    return total


def join_probabilities(const float64_t[::1] p1, double n1, const float64_t[::1] p2,
                       double n2, double lam):
    """R's ``join_stages_unsafe`` for one pair: ``(new_p, dll, gain)``.

    ``n1``/``n2`` are the stored sample sizes (NaN counts as 1, as in R).
    """
    cdef Py_ssize_t k = p1.shape[0]
    if k > MAX_LEVELS:
        raise ValueError(f"at most {MAX_LEVELS} levels are supported; got {k}")
    if p2.shape[0] != k:
        raise ValueError(f"p1 and p2 must have the same length; got {k} and {p2.shape[0]}")
    out = np.empty(k)
    cdef float64_t[::1] new_p = out
    cdef double dll, gain
    if k == 0:
        return out, 0.0, 0.0
    join_stats(&p1[0], 1.0 if isnan(n1) else n1, &p2[0], 1.0 if isnan(n2) else n2,
               lam, k, &new_p[0], &dll, &gain)
    return out, dll, gain
