"""Kernels of the scores of staged trees, with R's arithmetic.

R stagedtrees decides between equally good models by floating-point
comparisons, so its results are reproduced only if every score is computed
with R's operations in R's order (see ``_rsum.pxd`` and ``_rstage.pxd``).
"""
import numpy as np

from libc.math cimport NAN, isnan, log

from pystagedtrees.kernels._limits cimport MAX_LEVELS
from pystagedtrees.kernels._rstage cimport count_term, join_stats
from pystagedtrees.kernels._rsum cimport racc_t
from pystagedtrees.kernels._rsum cimport rsum as rsum_of
from pystagedtrees.kernels._types cimport float64_t, stage_t


def max_levels():
    """Largest number of levels of a variable the learners' kernels accept."""
    return MAX_LEVELS


def variable_loglik(const float64_t[:, ::1] counts, const float64_t[:, ::1] prob,
                    const stage_t[::1] stage):
    """R's per-variable log-likelihood: long-double sum, column by column.

    ``prob[stage[r]]`` is the probability row of situation ``r``'s stage.
    Returns ``-inf`` when a positive count meets an undefined probability, as R.
    """
    cdef Py_ssize_t r, a, m = counts.shape[0], k = counts.shape[1]
    cdef Py_ssize_t n_stages = prob.shape[0]
    cdef racc_t acc = 0.0
    cdef bint bad = False
    if stage.shape[0] != m or (m > 0 and prob.shape[1] != k):
        raise ValueError("counts, prob and stage must agree: "
                         f"{m}x{k} counts, {prob.shape[0]}x{prob.shape[1]} prob, {stage.shape[0]} stages")
    with nogil:
        for r in range(m):
            if stage[r] < 0 or stage[r] >= n_stages:
                bad = True
    if bad:
        raise ValueError(f"stage ids must be in 0..{n_stages - 1}")
    cdef double p, c, last_p = NAN, last_log = 0.0
    cdef Py_ssize_t s
    # far fewer stages than rows (a learned model): a log per stage cell,
    # looked up, instead of one per change of probability along the rows
    cdef bint by_stage = 4 * n_stages <= m
    cdef float64_t[:, ::1] logs = np.empty((n_stages if by_stage else 0, k))
    with nogil:
        if by_stage:
            for s in range(n_stages):
                for a in range(k):
                    logs[s, a] = log(prob[s, a]) if prob[s, a] > 0 else 0.0
        for a in range(k):
            for r in range(m):
                p, c = prob[stage[r], a], counts[r, a]
                if c != 0 and p > 0:
                    if by_stage:
                        acc += logs[stage[r], a] * c
                        continue
                    # neighbouring situations often share a probability (a full
                    # tree's single-row situations all do): one log for a run
                    if p != last_p:
                        last_p, last_log = p, log(p)
                    acc += last_log * c
                else:
                    acc += count_term(p, c)
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
