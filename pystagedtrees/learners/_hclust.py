"""Hierarchical clustering exactly as R's ``stats::hclust`` and ``cutree``.

:func:`hclust` takes a full symmetric dissimilarity matrix and returns R's
``merge`` matrix and ``height`` vector; :func:`cutree` cuts a ``merge``
matrix into ``k`` groups numbered as R numbers them (by first observation).
Ties are broken as in R, which scipy's ``linkage``/``fcluster`` do not do.
"""
from typing import NamedTuple

import numpy as np

from pystagedtrees.kernels import _hclust as _hclust_kernel

__all__ = ["HclustResult", "hclust", "cutree", "METHODS"]

#: Agglomeration methods of R's hclust, in R's order.
METHODS = ("ward.D", "single", "complete", "average", "mcquitty", "median", "centroid",
           "ward.D2")
METHOD_CODES = dict(zip(METHODS, (
    _hclust_kernel.Method.WARD_D, _hclust_kernel.Method.SINGLE, _hclust_kernel.Method.COMPLETE,
    _hclust_kernel.Method.AVERAGE, _hclust_kernel.Method.MCQUITTY, _hclust_kernel.Method.MEDIAN,
    _hclust_kernel.Method.CENTROID, _hclust_kernel.Method.WARD_D2,
)))


class HclustResult(NamedTuple):
    """The agglomeration history, in R's conventions.

    Attributes
    ----------
    merge : numpy.ndarray of int64, shape (n-1, 2)
        Row s (0-based) is step s+1: a negative entry -j is observation j
        (1-based), a positive entry t is the cluster formed at step t.
    height : numpy.ndarray of float64, shape (n-1,)
        Criterion value of each merge.
    """

    merge: np.ndarray
    height: np.ndarray


def _check_dissimilarities(d):
    """A float64 copy of ``d`` after checking it is a finite symmetric matrix with n >= 2."""
    if hasattr(d, "to_numpy"):
        d = d.to_numpy()
    try:
        arr = np.array(d, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"`d` must be a numeric matrix: {exc}") from None
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1]:
        raise ValueError(f"`d` must be a square dissimilarity matrix; got shape {arr.shape}.")
    if arr.shape[0] < 2:
        raise ValueError(f"`d` must describe n >= 2 objects to cluster; got n = {arr.shape[0]}.")
    if not np.all(np.isfinite(arr)):
        raise ValueError("`d` contains NaN or infinite values.")
    if not np.array_equal(arr, arr.T):
        raise ValueError("`d` must be symmetric (d[i, j] == d[j, i]).")
    return np.ascontiguousarray(arr)


def hclust(d, method="complete"):
    """Agglomerative hierarchical clustering, identical to R's ``hclust(as.dist(d), method)``.

    Parameters
    ----------
    d : array-like, shape (n, n)
        Symmetric dissimilarities (the diagonal is ignored).  For "centroid"
        and "median" R expects squared Euclidean distances; pass them squared.
    method : str
        One of "ward.D", "ward.D2", "single", "complete", "average",
        "mcquitty", "median", "centroid".

    Returns
    -------
    HclustResult
        ``merge`` and ``height`` as in R.

    Examples
    --------
    >>> from pystagedtrees.learners._hclust import hclust
    >>> import numpy as np
    >>> x = np.array([0.0, 1.0, 5.0, 6.5])
    >>> res = hclust(np.abs(x[:, None] - x[None, :]), "average")
    >>> res.merge.tolist()
    [[-1, -2], [-3, -4], [1, 2]]
    >>> res.height.tolist()
    [1.0, 1.5, 5.25]
    """
    if not isinstance(method, str) or method not in METHOD_CODES:
        raise ValueError(f"`method` must be one of {list(METHODS)}; got {method!r}.")
    return agglomerate(_check_dissimilarities(d), method)


def agglomerate(diss, method):
    """:func:`hclust` on a matrix already known to be valid.

    ``diss`` must be a C-contiguous float64, finite, symmetric matrix with
    n >= 2 (as :func:`_check_dissimilarities` returns, or R's ``dist`` of
    stage probabilities), and ``method`` one of :data:`METHODS`; it is
    overwritten.  Skipping the checks matters for thousands of stages.
    """
    left, right, height = _merges(diss, method)
    return HclustResult(_merge_matrix(left, right), height)


def agglomerate_and_cut(diss, method, k):
    """``cutree(agglomerate(diss, method).merge, k)`` without building R's ``merge``.

    ``diss`` and ``method`` as :func:`agglomerate` requires (``diss`` is
    overwritten), ``1 <= k <= n``.
    """
    left, right, _ = _merges(diss, method)
    groups = np.empty(diss.shape[0], dtype=np.int64)
    _hclust_kernel.cut_groups(left, right, diss.shape[0] - k, groups)
    return groups


def _merges(diss, method):
    """The kernel's (surviving index, absorbed index, height) of each step."""
    n = diss.shape[0]
    left = np.empty(n - 1, dtype=np.int64)
    right = np.empty(n - 1, dtype=np.int64)
    height = np.empty(n - 1, dtype=np.float64)
    _hclust_kernel.agglomerate(diss, METHOD_CODES[method], left, right, height)
    return left, right, height


def _merge_matrix(left, right):
    """R's ``merge`` from the kernel's (surviving index, absorbed index) pairs.

    A cluster is referred to by the last step that produced it, an untouched
    observation by its negated 1-based index; a singleton is listed before a
    cluster and two clusters in increasing step order.
    """
    merge = np.empty((left.shape[0], 2), dtype=np.int64)
    produced_by = {}
    for step, (a, b) in enumerate(zip(left.tolist(), right.tolist())):
        first = produced_by.get(a, -(a + 1))
        second = produced_by.get(b, -(b + 1))
        if (first > 0 > second) or (first > 0 and second > 0 and first > second):
            first, second = second, first
        merge[step] = first, second
        produced_by[a] = step + 1
    return merge


def _check_merge(merge):
    try:
        arr = np.asarray(merge)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"`merge` must be an integer matrix: {exc}") from None
    if arr.ndim != 2 or arr.shape[1] != 2 or arr.shape[0] < 1:
        raise ValueError(f"`merge` must have shape (n-1, 2) with n >= 2; got {arr.shape}.")
    if not np.issubdtype(arr.dtype, np.integer):
        if not (np.issubdtype(arr.dtype, np.floating) and np.all(arr == np.round(arr))):
            raise TypeError(f"`merge` must hold integers; got dtype {arr.dtype}.")
    arr = arr.astype(np.int64)
    n = arr.shape[0] + 1
    seen = np.zeros(n, dtype=bool)
    for step, row in enumerate(arr.tolist(), start=1):
        for entry in row:
            if entry == 0 or entry < -n or entry >= step:
                raise ValueError(
                    f"`merge` row {step} refers to {entry}: entries must be -1..-{n} "
                    f"(observations) or 1..{step - 1} (earlier steps)."
                )
            if entry < 0:
                if seen[-entry - 1]:
                    raise ValueError(f"`merge` uses observation {-entry} twice.")
                seen[-entry - 1] = True
    return arr


def cutree(merge, k):
    """Cut a dendrogram into ``k`` groups, as R's ``cutree(tree, k)``.

    Parameters
    ----------
    merge : array-like of int, shape (n-1, 2)
        ``merge`` from :func:`hclust` (or from R).
    k : int
        Number of groups, 1 <= k <= n.

    Returns
    -------
    numpy.ndarray of int64, shape (n,)
        Group labels 1..k, numbered in order of first observation
        (observation 1 is in group 1, the next observation not in group 1
        starts group 2, ...).

    Examples
    --------
    >>> from pystagedtrees.learners._hclust import cutree
    >>> cutree([[-1, -2], [-3, -4], [1, 2]], 2).tolist()
    [1, 1, 2, 2]
    >>> cutree([[-2, -3], [-1, 1]], 2).tolist()
    [1, 2, 2]
    """
    merge = _check_merge(merge)
    n = merge.shape[0] + 1
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)):
        raise TypeError(f"`k` must be an integer; got {type(k).__name__}.")
    if not 1 <= k <= n:
        raise ValueError(f"`k` must be between 1 and n = {n}; got {k}.")
    # Replay the first n-k merges with a union-find over the observations;
    # each step is represented by one of its observations.
    parent = list(range(n))

    def root(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]  # path halving
            i = parent[i]
        return i

    representative = [0] * n
    for step, (a, b) in enumerate(merge[: n - k].tolist(), start=1):
        first = -a - 1 if a < 0 else representative[a]
        second = -b - 1 if b < 0 else representative[b]
        parent[root(second)] = root(first)
        representative[step] = first
    group_of = np.array([root(i) for i in range(n)], dtype=np.int64)
    _, first_seen, inverse = np.unique(group_of, return_index=True, return_inverse=True)
    rank = np.empty(first_seen.shape[0], dtype=np.int64)
    rank[np.argsort(first_seen, kind="stable")] = np.arange(1, first_seen.shape[0] + 1)
    return rank[inverse]
