"""Split search of an rpart-style classification tree on categorical predictors.

The information index ``-p log p`` with rpart's altered priors, evaluated
over the binary partitions of each predictor's levels: for two classes the
levels are ordered by the share of the first class and cut once between each
neighbour pair; otherwise every subset is visited in Gray-code order.  Sums,
products and comparisons are done in the order rpart does them, so that
near-ties (equal partitions, symmetric levels) resolve as in R.

Inputs are checked by the Python layer (codes within their level counts,
classes below ``n_classes``, row indices in range); the loops only read.
"""
from libc.math cimport log
from libc.stdlib cimport free, malloc

from pystagedtrees.kernels._types cimport code_t, float64_t, index_t

import numpy as np

cdef enum:
    TO_LEFT = -1
    TO_RIGHT = 1


cdef inline double _info(double p) noexcept nogil:
    # the information impurity of one class share (0 log 0 = 0)
    if p == 0.0:
        return 0.0
    return -p * log(p)


cdef struct Workspace:
    int n_levels
    int n_classes
    double *level_weight    # prior-weighted size of each level
    long *level_count       # observations of each level
    double *level_class     # [class * n_levels + level] counts
    double *left_class
    double *right_class
    double *rank_key
    int *order
    signed char *side       # TO_LEFT, TO_RIGHT, or 0 for a level absent here
    double left_weight
    double right_weight
    long left_count
    long right_count


cdef inline void _move(Workspace *w, int level, signed char to) noexcept nogil:
    cdef int j
    cdef double moved = w.level_weight[level]
    w.side[level] = to
    if to == TO_LEFT:
        w.right_weight -= moved
        w.left_weight += moved
        w.right_count -= w.level_count[level]
        w.left_count += w.level_count[level]
        for j in range(w.n_classes):
            w.right_class[j] -= w.level_class[j * w.n_levels + level]
            w.left_class[j] += w.level_class[j * w.n_levels + level]
    else:
        w.right_weight += moved
        w.left_weight -= moved
        w.right_count += w.level_count[level]
        w.left_count -= w.level_count[level]
        for j in range(w.n_classes):
            w.right_class[j] += w.level_class[j * w.n_levels + level]
            w.left_class[j] -= w.level_class[j * w.n_levels + level]


cdef inline double _children_impurity(Workspace *w, const double *aprior,
                                      bint *left_is_lower) noexcept nogil:
    # p(L) I(L) + p(R) I(R), class by class, left then right; also whether the
    # left child has the smaller mean class index (it then keeps the left side)
    cdef int j
    cdef double total = 0.0, left_mean = 0.0, right_mean = 0.0, p
    for j in range(w.n_classes):
        p = aprior[j] * w.left_class[j] / w.left_weight
        total += w.left_weight * _info(p)
        left_mean += p * j
        p = aprior[j] * w.right_class[j] / w.right_weight
        total += w.right_weight * _info(p)
        right_mean += p * j
    left_is_lower[0] = left_mean < right_mean
    return total


cdef inline void _consider(Workspace *w, const double *aprior, double *best,
                           signed char *best_side) noexcept nogil:
    cdef bint left_is_lower
    cdef double impurity
    cdef int k
    if w.left_count < 1 or w.right_count < 1:   # minbucket = 1
        return
    impurity = _children_impurity(w, aprior, &left_is_lower)
    if impurity < best[0]:
        best[0] = impurity
        for k in range(w.n_levels):
            best_side[k] = w.side[k] if left_is_lower else -w.side[k]


cdef double _variable_gain(Workspace *w, const code_t[::1] x, const code_t[::1] y,
                           const index_t[::1] rows, const double *aprior,
                           signed char *best_side) noexcept nogil:
    """Impurity decrease of the best partition of one predictor's levels (0 if none)."""
    cdef Py_ssize_t i, r
    cdef int j, k, v, c, n_active, position
    cdef double parent, best, p
    cdef unsigned long long step, last
    w.left_weight = 0.0
    w.right_weight = 0.0
    w.left_count = 0
    w.right_count = 0
    for j in range(w.n_classes):
        w.left_class[j] = 0.0
        w.right_class[j] = 0.0
    for k in range(w.n_levels):
        w.level_weight[k] = 0.0
        w.level_count[k] = 0
        best_side[k] = 0
    for j in range(w.n_classes * w.n_levels):
        w.level_class[j] = 0.0
    # every observation starts on the right; accumulated in row order
    for i in range(rows.shape[0]):
        r = rows[i]
        v = x[r]
        if v < 0:
            continue
        c = y[r]
        w.right_weight += aprior[c]
        w.right_class[c] += 1.0
        w.right_count += 1
        w.level_weight[v] += aprior[c]
        w.level_count[v] += 1
        w.level_class[c * w.n_levels + v] += 1.0
    if w.right_count == 0:
        return 0.0
    parent = 0.0
    for j in range(w.n_classes):
        p = aprior[j] * w.right_class[j] / w.right_weight
        parent += w.right_weight * _info(p)
    best = parent
    for k in range(w.n_levels):
        w.side[k] = 0 if w.level_weight[k] == 0.0 else TO_RIGHT

    if w.n_classes == 2:
        # levels sorted (stably) by their share of the first class, cut in turn
        n_active = 0
        for k in range(w.n_levels):
            if w.level_count[k] == 0:
                continue
            w.rank_key[k] = w.level_class[k] / w.level_weight[k]
            position = n_active
            while position > 0 and w.rank_key[w.order[position - 1]] > w.rank_key[k]:
                w.order[position] = w.order[position - 1]
                position -= 1
            w.order[position] = k
            n_active += 1
        for i in range(n_active):
            _move(w, w.order[i], TO_LEFT)
            _consider(w, aprior, &best, best_side)
    else:
        # every subset of the present levels but the last level (which stays
        # right), each differing from the previous one by one level
        n_active = 0
        for k in range(w.n_levels - 1):
            if w.level_count[k] > 0:
                w.order[n_active] = k
                n_active += 1
        last = (<unsigned long long> 1) << n_active
        for step in range(1, last):
            position = 0
            while not (step >> position) & 1:
                position += 1
            k = w.order[position]
            _move(w, k, TO_RIGHT if w.side[k] == TO_LEFT else TO_LEFT)
            _consider(w, aprior, &best, best_side)
    return parent - best


def best_split(const code_t[:, ::1] x, const code_t[::1] y, const index_t[::1] rows,
               const int[::1] n_levels, int n_classes, const float64_t[::1] aprior,
               float64_t[::1] scale, signed char[::1] sides):
    """The predictor splitting ``rows`` best, as rpart's ``bsplit`` chooses it.

    Parameters
    ----------
    x : int32 array (n_predictors, n_rows)
        Level codes, -1 for missing.
    y : int32 array (n_rows,)
        Class codes in ``0 .. n_classes - 1``.
    rows : intp array
        The node's observations, in increasing order.
    n_levels : int32 array (n_predictors,)
    n_classes : int
    aprior : float64 array (n_classes,)
        Altered priors.
    scale : float64 array (1,)
        The largest improvement seen so far in this tree (updated): an
        improvement below 1e-10 times it counts as rounding noise.
    sides : int8 array (max(n_levels),)
        Filled with the side of each level of the chosen predictor: -1 left,
        1 right, 0 for levels absent from the node.

    Returns
    -------
    (int, float)
        The chosen predictor (-1 if none) and its improvement.

    Examples
    --------
    >>> import numpy as np
    >>> from pystagedtrees.kernels._awnb import best_split
    >>> x = np.array([[0, 1, 0, 1], [0, 0, 1, 1]], dtype=np.int32)
    >>> y = np.array([0, 0, 1, 1], dtype=np.int32)
    >>> sides = np.zeros(2, dtype=np.int8)
    >>> var, gain = best_split(x, y, np.arange(4), np.array([2, 2], dtype=np.int32), 2,
    ...                        np.ones(2), np.zeros(1), sides)
    >>> var, round(gain, 6), sides.tolist()  # gain = 4 log 2
    (1, 2.772589, [-1, 1])
    """
    cdef int n_pred = x.shape[0], max_levels = sides.shape[0], var, best_var = -1, k
    cdef double gain, best_gain = 0.0
    cdef Workspace w
    cdef signed char *candidate = <signed char *> malloc(max_levels * sizeof(signed char))
    w.n_classes = n_classes
    w.level_weight = <double *> malloc(max_levels * sizeof(double))
    w.level_count = <long *> malloc(max_levels * sizeof(long))
    w.level_class = <double *> malloc(max_levels * n_classes * sizeof(double))
    w.left_class = <double *> malloc(n_classes * sizeof(double))
    w.right_class = <double *> malloc(n_classes * sizeof(double))
    w.rank_key = <double *> malloc(max_levels * sizeof(double))
    w.order = <int *> malloc(max_levels * sizeof(int))
    w.side = <signed char *> malloc(max_levels * sizeof(signed char))
    try:
        if (candidate == NULL or w.level_weight == NULL or w.level_count == NULL
                or w.level_class == NULL or w.left_class == NULL or w.right_class == NULL
                or w.rank_key == NULL or w.order == NULL or w.side == NULL):
            raise MemoryError()
        with nogil:
            for var in range(n_pred):
                w.n_levels = n_levels[var]
                gain = _variable_gain(&w, x[var], y, rows, &aprior[0], candidate)
                if gain > scale[0]:
                    scale[0] = gain
                # the first admissible predictor is kept unless beaten strictly
                if gain > scale[0] * 1e-10 and (best_var < 0 or gain > best_gain):
                    best_var = var
                    best_gain = gain
                    for k in range(max_levels):
                        sides[k] = candidate[k] if k < w.n_levels else 0
    finally:
        free(candidate)
        free(w.level_weight)
        free(w.level_count)
        free(w.level_class)
        free(w.left_class)
        free(w.right_class)
        free(w.rank_key)
        free(w.order)
        free(w.side)
    return best_var, best_gain
