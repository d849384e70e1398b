"""Stratified cross-validation folds and random arg-max, drawn as bnclassify does."""
import math

import numpy as np

from pystagedtrees.base._validation import check_int

__all__ = ["stratified_folds", "distribute_over_folds", "max_random", "check_folds"]

# R's sqrt(.Machine$double.eps): scores this close count as equal.
EQUAL_TOL = math.sqrt(np.finfo(float).eps)


def check_folds(k, n_rows):
    """Raise unless ``k`` is an integer with ``1 < k <= n_rows``."""
    k = check_int(k, "k")
    if not 1 < k <= n_rows:
        raise ValueError(
            f"`k` (number of folds) must be between 2 and the number of rows "
            f"(n_samples = {n_rows}); got {k}."
        )
    return int(k)


def distribute_over_folds(n, k, draws):
    """Fold numbers (1-based) for ``n`` rows of one class.

    The ``k`` fold ids are shuffled, recycled to length ``n`` and shuffled
    again; a single row takes R's ``sample(x, 1)`` on a scalar, which is
    uniform over ``1..x``.
    """
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    ids = np.asarray(draws.permutation(k), dtype=np.int64) + 1
    nums = np.tile(ids, -(-n // k))[:n]  # the ids recycled to length n
    if n == 1:
        return np.asarray(draws.permutation(int(nums[0]), 1), dtype=np.int64) + 1
    return nums[np.asarray(draws.permutation(n), dtype=np.int64)]


def stratified_folds(class_codes, n_levels, k, draws):
    """Row indices of each fold, classes spread evenly over the folds.

    Rows are grouped by class level (in level order, ascending within a
    level); folds are returned in fold-number order and a fold that received
    no rows is dropped.  Rows with a missing class are in no fold; if
    every row misses it there are no folds and this raises.
    """
    if not np.any(class_codes >= 0):
        raise ValueError(
            "the class of `dataset` is missing in every row: there is nothing to cross-validate."
        )
    rows = [np.flatnonzero(class_codes == level) for level in range(n_levels)]
    nums = np.concatenate([distribute_over_folds(len(members), k, draws) for members in rows])
    rows = np.concatenate(rows)
    # rows by fold number, in the order above within a fold: one stable sort
    # (a radix sort on the narrowest type), not a pass over the rows per fold
    by_fold = rows[np.argsort(nums.astype(np.min_scalar_type(k)), kind="stable")]
    bounds = np.cumsum(np.bincount(nums, minlength=k + 1)).tolist()
    return [by_fold[a:b] for a, b in zip(bounds[:-1], bounds[1:]) if b > a]


def max_random(scores, draws):
    """Index of the maximum; scores within 1.5e-8 of it tie and one is drawn."""
    scores = np.asarray(scores, dtype=float)
    best = np.flatnonzero(np.abs(scores - scores.max()) < EQUAL_TOL)
    if len(best) > 1:
        return int(best[draws.unif_index(len(best))])
    return int(best[0])
