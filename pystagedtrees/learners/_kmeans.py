"""k-means clustering exactly as R's ``stats::kmeans``.

Same algorithms (Hartigan-Wong AS 136, Lloyd/Forgy, MacQueen), same
arithmetic order, same choice of initial centres when ``centers`` is a
number (drawn with :class:`~pystagedtrees.rng.RRandom` for an R-exact
replay), same multi-start rule and the same errors and warnings.
"""
import numbers
import warnings
from typing import NamedTuple

import numpy as np

from pystagedtrees.base._validation import check_choice, user_stacklevel
from pystagedtrees.kernels import _kmeans as _kmeans_kernel
from pystagedtrees.learners._rows import distinct_rows
from pystagedtrees.rng import RandomSource, resolve_source

__all__ = ["KMeansResult", "kmeans", "ALGORITHMS"]

#: Algorithm names accepted by :func:`kmeans` ("Forgy" is another name for Lloyd).
ALGORITHMS = ("Hartigan-Wong", "Lloyd", "Forgy", "MacQueen")

_FAULT_EMPTY, _FAULT_NOT_CONVERGED, _FAULT_QUICK_TRANSFER = 1, 2, 4


class KMeansResult(NamedTuple):
    """The fields of R's ``kmeans`` object.

    Attributes
    ----------
    cluster : numpy.ndarray of int64, shape (m,)
        Cluster of each row, 1..k (cluster j started from initial centre j).
    centers : numpy.ndarray, shape (k, p)
    totss, tot_withinss, betweenss : float
    withinss : numpy.ndarray, shape (k,)
    size : numpy.ndarray of int64, shape (k,)
    iter : int
        Iterations used (``iter_max + 1`` when not converged).
    ifault : int
        0, or R's fault code: 2 no convergence, 4 quick-transfer limit
        (R leaves it NULL for a converged Lloyd/MacQueen run).
    """

    cluster: np.ndarray
    centers: np.ndarray
    totss: float
    withinss: np.ndarray
    tot_withinss: float
    betweenss: float
    size: np.ndarray
    iter: int
    ifault: int


def _long_double_sum(values):
    """Sum in x87 extended precision, added in order, as R's ``sum`` does."""
    return float(np.cumsum(np.asarray(values, dtype=np.longdouble).ravel())[-1])


def as_matrix(x, name):
    if hasattr(x, "to_numpy"):
        x = x.to_numpy()
    try:
        arr = np.asarray(x, dtype=np.float64)  # read only: no copy needed
    except (TypeError, ValueError) as exc:
        raise TypeError(f"`{name}` must be numeric: {exc}") from None
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2 or arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(f"`{name}` must be a non-empty 2-D matrix; got shape {arr.shape}.")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"`{name}` contains NaN or infinite values.")
    return np.ascontiguousarray(arr)


def _unique_rows(x):
    """Distinct rows in order of first occurrence (R's ``unique`` on a matrix)."""
    return x[distinct_rows(x)[1]]  # by value, as R compares them (-0.0 is 0.0)


def _has_duplicate_rows(x):
    """Whether two rows of ``x`` (finite, as ``as_matrix`` returns it) are equal."""
    if x.shape[0] <= 16:  # a few centres: Python's floats compare by value, as R's (-0.0 is 0.0)
        return len(set(map(tuple, x.tolist()))) < x.shape[0]
    return _unique_rows(x).shape[0] < x.shape[0]


def _count(value, name):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real) \
            or not float(value).is_integer():
        raise TypeError(f"`{name}` must be an integer; got {value!r}.")
    if value < 1:
        raise ValueError(f"`{name}` must be >= 1; got {value}.")
    return int(value)


def _run(x, initial, method, iter_max):
    """One k-means run from ``initial`` centres; returns (result fields, fault)."""
    m, k = x.shape[0], initial.shape[0]
    centers = initial.copy()
    cluster = np.empty(m, dtype=np.int64)
    size = np.zeros(k, dtype=np.int64)
    wss = np.zeros(k)
    if method == "Hartigan-Wong":
        if k >= m:
            raise ValueError(
                f"number of cluster centres must lie between 1 and nrow(x): Hartigan-Wong "
                f"needs k < number of rows (k = {k}, rows = {m})."
            )
        iterations, fault = _kmeans_kernel.hartigan_wong(
            x, centers, cluster, size, wss, iter_max, min(2**31 - 1, 50 * m))
        if fault == _FAULT_EMPTY:
            raise ValueError("empty cluster: try a better set of initial centers.")
        if fault == _FAULT_NOT_CONVERGED:
            iterations = max(iterations, iter_max + 1)
        elif fault == _FAULT_QUICK_TRANSFER:
            warnings.warn(
                f"Quick-TRANSfer stage steps exceeded maximum (= {min(2**31 - 1, 50 * m)})",
                RuntimeWarning, stacklevel=user_stacklevel())
    else:
        kernel = _kmeans_kernel.macqueen if method == "MacQueen" else _kmeans_kernel.lloyd
        iterations, fault = kernel(x, centers, cluster, size, wss, iter_max)
    if iterations > iter_max:
        warnings.warn(f"did not converge in {iter_max} iteration{'s' if iter_max > 1 else ''}",
                      RuntimeWarning, stacklevel=user_stacklevel())
    if method != "Hartigan-Wong" and np.any(size == 0):
        warnings.warn("empty cluster: try a better set of initial centers",
                      RuntimeWarning, stacklevel=user_stacklevel())
    return cluster + 1, centers, wss, size, int(iterations), int(fault)


def kmeans(x, centers, iter_max: int = 10, nstart: int = 1, algorithm: str = "Hartigan-Wong",
           rng: RandomSource | np.random.Generator | None = None) -> KMeansResult:
    """k-means clustering, identical to R's ``kmeans(x, centers, iter.max, nstart, algorithm)``.

    Parameters
    ----------
    x : array-like or pandas.DataFrame, shape (m, p)
        Data rows (a 1-D array is one column).
    centers : int or array-like, shape (k, p)
        Either the number of clusters k, whose initial centres are then
        drawn as R draws them (``x[sample.int(m, k), ]``; if those rows are
        not distinct, or if ``nstart >= 2``, ``unique(x)[sample.int(mm, k), ]``),
        or the initial centres themselves (which must be distinct).
    iter_max : int
        Maximum number of iterations.
    nstart : int
        With an integer ``centers``, the number of random starts; the run
        with the smallest total within sum of squares is kept (the first
        one on ties).  Every start is drawn after the previous run, as in R.
    algorithm : {"Hartigan-Wong", "Lloyd", "Forgy", "MacQueen"}
        As in R, k = 1 always uses MacQueen.
    rng : None, numpy.random.Generator or a random source in use
        Source of the initial centres when ``centers`` is an int (None: a
        fresh numpy Generator).  Pass ``RRandom(seed)`` to replay
        ``set.seed(seed); kmeans(...)``.

    Returns
    -------
    KMeansResult

    Raises
    ------
    ValueError
        Bad arguments, more centres than (distinct) rows, Hartigan-Wong with
        k >= m, or an empty cluster after Hartigan-Wong's initial assignment.

    Warns
    -----
    RuntimeWarning
        No convergence within ``iter_max``, quick-transfer step limit, or an
        empty cluster with Lloyd/MacQueen (whose centre is then NaN), as R warns.

    Examples
    --------
    >>> from pystagedtrees.learners._kmeans import kmeans
    >>> import numpy as np
    >>> x = np.array([[0.0], [0.2], [4.0], [4.4], [9.0]])
    >>> res = kmeans(x, np.array([[0.0], [5.0]]))
    >>> res.cluster.tolist(), res.centers.ravel().tolist()
    ([1, 1, 2, 2, 2], [0.1, 5.8])
    >>> from pystagedtrees.rng import RRandom
    >>> kmeans(x, 2, rng=RRandom(1)).cluster.tolist()   # set.seed(1); kmeans(x, 2)$cluster
    [1, 1, 2, 2, 2]
    """
    x = as_matrix(x, "x")
    cluster, centers_out, wss, size, iterations, fault, best_total = best_run(
        x, centers, iter_max, nstart, algorithm, rng)
    column_means = (np.cumsum(x, axis=0, dtype=np.longdouble)[-1] / x.shape[0]).astype(np.float64)
    # R sums the matrix in column-major order
    totss = _long_double_sum(((x - column_means) ** 2).T)
    return KMeansResult(cluster, centers_out, totss, wss, best_total, totss - best_total,
                        size, iterations, fault)


def best_run(x, centers, iter_max=10, nstart=1, algorithm="Hartigan-Wong", rng=None):
    """:func:`kmeans` without the total sum of squares, which clustering alone
    does not need: ``(cluster, centers, withinss, size, iter, ifault,
    tot_withinss)`` of the kept run; ``x`` as ``as_matrix`` returns it."""
    options = run_options(iter_max, nstart, algorithm)
    if isinstance(centers, numbers.Real) and not isinstance(centers, (bool, np.bool_)):
        run = best_of_starts(x, _count(centers, "centers"), options, rng)
        return (*run, _long_double_sum(run[2]))
    m = x.shape[0]
    initial = as_matrix(centers, "centers")
    if _has_duplicate_rows(initial):
        raise ValueError("initial centers are not distinct: `centers` has duplicated rows.")
    k = initial.shape[0]
    if m < k:
        raise ValueError(f"more cluster centers (k = {k}) than data points ({m}).")
    if initial.shape[1] != x.shape[1]:
        raise ValueError(
            f"`x` and `centers` must have the same number of columns; got "
            f"{x.shape[1]} and {initial.shape[1]}."
        )
    run = _run(x, initial, "MacQueen" if k == 1 else options[0], options[1])
    return (*run, _long_double_sum(run[2]))


def run_options(iter_max, nstart, algorithm):
    """The checked ``(method, iter_max, nstart)`` of :func:`best_of_starts`."""
    check_choice(algorithm, "algorithm", ALGORITHMS)
    return ("Lloyd" if algorithm == "Forgy" else algorithm, _count(iter_max, "iter_max"),
            _count(nstart, "nstart"))


def best_of_starts(x, k, options, rng):
    """The kept run ``(cluster, centers, withinss, size, iter, ifault)`` of
    ``k`` clusters from initial centres drawn as R draws them (``rng`` as
    :func:`kmeans` takes it); ``x`` as ``as_matrix`` returns it, ``options``
    :func:`run_options`'."""
    method, iter_max, nstart = options
    m = x.shape[0]
    if k > m:
        raise ValueError(f"more cluster centers (k = {k}) than data points ({m}).")
    source = resolve_source(None, rng, kinds=())
    candidates = None
    if nstart == 1:
        initial = x.take(source.sample_int(m, k), axis=0)  # (rows: take is faster)
    if nstart >= 2 or _has_duplicate_rows(initial):
        candidates = _unique_rows(x)
        if candidates.shape[0] < k:
            raise ValueError(
                f"more cluster centers (k = {k}) than distinct data points "
                f"({candidates.shape[0]})."
            )
        initial = candidates[source.sample_int(candidates.shape[0], k)]
    if k == 1:
        method = "MacQueen"
    best = _run(x, initial, method, iter_max)
    if candidates is not None and nstart >= 2:
        best_total = _long_double_sum(best[2])
        for _ in range(1, nstart):
            initial = candidates[source.sample_int(candidates.shape[0], k)]
            run = _run(x, initial, method, iter_max)
            total = _long_double_sum(run[2])
            if total < best_total:
                best, best_total = run, total
    return best
