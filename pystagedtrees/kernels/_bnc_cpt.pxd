# The CPTs of a family fitted on every training fold (all folds but one),
# shared by fold_cpts (bnc._scoring's pool of tables) and fold_added_hits
# (a forward step's candidates scored without a table kept).
from libc.math cimport log


cdef inline void sum_rows(const double *rows, Py_ssize_t n_rows, Py_ssize_t width,
                          double *out) noexcept nogil:
    """``out``: the sum of ``n_rows`` rows of ``width`` values, row after row."""
    cdef Py_ssize_t k, j
    for j in range(width):
        out[j] = rows[j]
    for k in range(1, n_rows):
        for j in range(width):
            out[j] = out[j] + rows[k * width + j]


cdef inline bint fold_cpt_logs(const double *table, Py_ssize_t n_folds, Py_ssize_t width,
                               Py_ssize_t levels, double smooth, double *result, double *logs,
                               double *scratch) noexcept nogil:
    """Row ``k`` of ``result`` (unless NULL): ``((total - table[k]) + smooth)
    / column sum``, and of ``logs`` (unless NULL) its log (the C library's,
    as R's); the
    sum over the child's ``levels`` (the first axis of a row of ``width``) in
    order, ``1 / levels`` where that sum is 0.  ``table`` holds the counts of
    each fold, ``(n_folds, width)`` C-contiguous; ``scratch`` ``2 * width +
    width / levels`` doubles.  Returns whether an entry is 0 (its log -inf)."""
    cdef Py_ssize_t k, j, r, rest = width // levels
    cdef double *total = scratch
    cdef double *train = scratch + width
    cdef double *sums = scratch + 2 * width
    cdef double value
    cdef bint has_zero = False
    # the sum over folds, in fold order (numpy's reduction over axis 0)
    sum_rows(table, n_folds, width, total)
    for k in range(n_folds):
        for j in range(width):
            train[j] = (total[j] - table[k * width + j]) + smooth
        sum_rows(train, levels, rest, sums)
        for j in range(levels):
            for r in range(rest):
                value = 1.0 / levels if sums[r] == 0 else train[j * rest + r] / sums[r]
                if result != NULL:
                    result[k * width + j * rest + r] = value
                if logs != NULL:
                    logs[k * width + j * rest + r] = log(value)
                if value == 0:
                    has_zero = True
    return has_zero
