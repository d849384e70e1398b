"""AWNB feature weights: minimum testing depths in unpruned decision trees.

Hall (2007), "A decision tree-based attribute weighting filter for naive
Bayes": grow an unpruned tree on each of ``trees`` bootstrap samples; a
feature first tested at depth ``d`` (the root has depth 1) scores
``1 / sqrt(d)``, an untested one 0, and its weight is the mean score.

bnclassify grows the trees with R's rpart (``split="information"``,
``minsplit=2, minbucket=1, cp=0``, no surrogates), and so does this module,
with its own implementation of that algorithm:

- a node is split if it holds at least two observations and is impure;
  every predictor is scored by the decrease of the information impurity
  (altered priors; observed class proportions, unit losses) over its non-missing
  observations; a predictor's levels are split in two (two classes: levels
  ordered by class share, cut between neighbours; more classes: all subsets);
  each child must receive an observation;
- the first predictor with the largest decrease wins; a decrease below 1e-10
  times the largest seen so far in the tree is rounding noise;
- an observation missing the chosen predictor stays in the node (no
  surrogates); children of node ``i`` are ``2i`` (left) and ``2i + 1``;
  nodes numbered above ``2**30 - 1`` (rpart's maximum depth) are not split;
- with ``cp=0`` rpart still collapses a split whose subtree does not lower
  the number of misclassified observations.

Sums and comparisons follow rpart's floating-point order (altered priors,
impurities, incremental level moves), so near-ties resolve as in R; checked
against live rpart on thousands of random and factorial problems.

Differences from R:

- every predictor is treated as nominal (rpart splits R's ordered factors as
  numbers; bnclassify's data sets have none);
- a bootstrap sample holding only the first class level, or no row with a
  class and a predictor, makes R's rpart stop with an error; here its tree
  is empty;
- bnclassify grows the trees on every column of the data and then requires
  them to be the model's features; here the model's features are used (in
  data column order), so extra columns are allowed.
"""
import math
import numbers

import numpy as np

from pystagedtrees.base._validation import check_int
from pystagedtrees.bnc._dataset import encode_dataset
from pystagedtrees.kernels._awnb import best_split
from pystagedtrees.rng import Rng, Seed, resolve_source

__all__ = ["compute_awnb_weights", "check_awnb_args", "altered_priors", "tree_splits", "min_depths"]

DEFAULT_TREES = 10
DEFAULT_BOOTSTRAP = 0.5
# rpart.control(maxdepth = 30): node numbers must fit a 32-bit integer
MAX_SPLIT_NODE = 2 ** 30 - 1


def check_awnb_args(trees, bootstrap):
    """``(trees, bootstrap)`` with bnclassify's defaults (10, 0.5), validated.

    Examples
    --------
    >>> from pystagedtrees.bnc._awnb import check_awnb_args
    >>> check_awnb_args(None, 0.8)
    (10, 0.8)
    """
    trees = DEFAULT_TREES if trees is None else trees
    bootstrap = DEFAULT_BOOTSTRAP if bootstrap is None else bootstrap
    trees = check_int(trees, "awnb_trees", minimum=1)
    # bnclassify documents (0, 1] but takes any positive size (drawn with replacement)
    if isinstance(bootstrap, bool) or not isinstance(bootstrap, numbers.Real):
        raise TypeError(f"`awnb_bootstrap` must be a positive proportion of the rows; got "
                        f"{bootstrap!r}.")
    if not (0 < bootstrap and math.isfinite(bootstrap)):
        raise ValueError(f"`awnb_bootstrap` must be a positive proportion of the rows; got "
                         f"{bootstrap!r}.")
    return int(trees), float(bootstrap)


def altered_priors(class_counts):
    """rpart's altered priors for observed-proportion priors and unit losses.

    ``pi_i L_i / sum_j pi_j L_j / freq_i`` with ``L_i = C - 1``: one in exact
    arithmetic, but computed (and summed) in rpart's order, since the
    rounding decides near-ties.  Absent classes get 0; a single class gets 1
    (its tree is a leaf anyway).

    Examples
    --------
    >>> from pystagedtrees.bnc._awnb import altered_priors
    >>> altered_priors([2, 0, 1]).tolist()  # 1 + 2**-52: the rounding rpart gets
    [1.0000000000000002, 0.0, 1.0000000000000002]
    """
    if len(class_counts) == 1:
        return np.ones(1)
    total = float(sum(class_counts))
    share = [c / total for c in class_counts]
    n_classes = len(share)
    norm = 0.0
    weighted = [0.0] * n_classes
    for i in range(n_classes):
        for _ in range(n_classes - 1):
            norm += share[i]
            weighted[i] += share[i]
    return np.array([weighted[i] / (norm * share[i]) if share[i] > 0 else 0.0
                     for i in range(n_classes)])


def tree_splits(x, y, n_levels):
    """The split nodes of rpart's unpruned information tree.

    Parameters
    ----------
    x : numpy.ndarray of int, shape (n_predictors, n_rows)
        Level codes, -1 for missing.
    y : numpy.ndarray of int, shape (n_rows,)
        Class codes (no missing values); the classes are ``0 .. max(y)``.
    n_levels : sequence of int
        The number of levels of each predictor (codes are below it).

    Returns
    -------
    dict of int to int
        Node number (root 1, children ``2i`` and ``2i + 1``) to the index of
        the predictor split there, in growing order.

    Examples
    --------
    >>> import numpy as np
    >>> from pystagedtrees.bnc._awnb import tree_splits
    >>> x = np.array([[0, 0, 1, 1], [0, 1, 0, 1]])  # the class is the first predictor
    >>> tree_splits(x, np.array([0, 0, 1, 1]), [2, 2])
    {1: 0}
    """
    x = np.ascontiguousarray(x, dtype=np.int32)
    y = np.ascontiguousarray(y, dtype=np.int32)
    n_levels = np.ascontiguousarray(n_levels, dtype=np.int32)
    if x.ndim != 2 or y.ndim != 1 or x.shape[1] != y.shape[0] or len(n_levels) != x.shape[0]:
        raise ValueError(
            "`x` must be (n_predictors, n_rows), `y` (n_rows,), `n_levels` (n_predictors,)."
        )
    if y.size == 0:
        raise ValueError("a tree needs at least one observation.")
    if y.min() < 0:
        raise ValueError("`y` must not have missing (negative) codes.")
    if x.size and (np.any(x < -1) or np.any(x >= n_levels[:, None])):
        raise ValueError("`x` codes must be -1 (missing) or below their `n_levels`.")
    n_classes = int(y.max()) + 1
    grower = _TreeGrower(x, y, n_levels, n_classes)
    grower.grow(np.arange(y.size, dtype=np.intp), 1)
    return dict(grower.splits)


class _TreeGrower:
    """Depth-first growth (left child first, as the noise scale depends on order)."""

    def __init__(self, x, y, n_levels, n_classes):
        self.x, self.y, self.n_levels, self.n_classes = x, y, n_levels, n_classes
        self.aprior = altered_priors(np.bincount(y, minlength=n_classes))
        self.scale = np.zeros(1)
        self.sides = np.zeros(max(int(n_levels.max(initial=0)), 1), dtype=np.int8)
        self.splits = []

    def grow(self, rows, node):
        """Split ``node`` if worthwhile; return the misclassified count of its leaves."""
        counts = np.bincount(self.y[rows], minlength=self.n_classes)
        risk = int(rows.size - counts.max())
        if rows.size < 2 or risk == 0 or node > MAX_SPLIT_NODE:
            return risk
        var, _ = best_split(self.x, self.y, rows, self.n_levels, self.n_classes, self.aprior,
                            self.scale, self.sides)
        if var < 0:
            return risk
        codes = self.x[var, rows]
        side = np.where(codes >= 0, self.sides[np.maximum(codes, 0)], 0)
        mark = len(self.splits)
        self.splits.append((node, var))
        below = (self.grow(rows[side == -1], 2 * node)
                 + self.grow(rows[side == 1], 2 * node + 1))
        if below >= risk:
            # cp = 0 still prunes a subtree that misclassifies no fewer
            del self.splits[mark:]
            return risk
        return below


def min_depths(splits):
    """Minimum depth at which each predictor is tested: ``{predictor: depth}``.

    The depth of node ``i`` is ``floor(log2(i)) + 1`` (the root has depth 1).

    Examples
    --------
    >>> from pystagedtrees.bnc._awnb import min_depths
    >>> min_depths({1: 0, 2: 1, 3: 0, 5: 2, 12: 1})
    {0: 1, 1: 2, 2: 3}
    """
    depths = {}
    for node, var in splits.items():
        depth = int(node).bit_length()
        depths[var] = min(depths.get(var, depth), depth)
    return depths


def _bootstrap_rows(draws, n, size):
    """``sample(n, size, replace=TRUE) - 1``: one bootstrap sample's rows."""
    return draws.sample_int(n, size, replace=True)


def compute_awnb_weights(class_, dataset, trees=None, bootstrap=None, features=None,
                         seed: Seed = None, rng: Rng = "numpy") -> dict[str, float]:
    """AWNB weights of the features: mean of ``1/sqrt(d)`` over bootstrap trees.

    Parameters
    ----------
    class_ : str
        The class column.
    dataset : pandas.DataFrame
        Categorical data.
    trees : int, optional
        Number of bootstrap samples and trees (default 10).
    bootstrap : float, optional
        Sample size as a proportion of the rows, any positive number (default 0.5):
        ``trunc(n_rows * bootstrap)`` rows drawn with replacement.
    features : sequence of str, optional
        The predictors, in the order ties between them are broken (default:
        every other column, in data order, as bnclassify's ``class ~ .``).
    seed, rng
        The bootstrap samples' generator (see :mod:`pystagedtrees.rng`):
        ``rng="R", seed=`` draws the samples R draws after
        ``set.seed(seed)``; the source of an enclosing call goes in ``rng``.

    Returns
    -------
    dict of str to float
        Weight in [0, 1] of each feature (0 when no tree tests it).

    Raises
    ------
    ValueError
        When no tree has a split (bnclassify: "Only empty trees").

    Examples
    --------
    >>> import pandas as pd
    >>> from pystagedtrees.bnc._awnb import compute_awnb_weights
    >>> d = pd.DataFrame({"c": list("aabbaabb"), "x": list("uuvvuuvv"), "y": list("pqpqpqpq")})
    >>> compute_awnb_weights("c", d, trees=3, bootstrap=1, seed=0)
    {'x': 1.0, 'y': 0.0}
    """
    trees, bootstrap = check_awnb_args(trees, bootstrap)
    if features is None:
        features = [c for c in dataset.columns if c != class_]
        if not features:
            raise ValueError("`dataset` has no feature besides the class: AWNB needs one.")
    features = list(features)
    if not features:
        raise ValueError("the structure has no features: AWNB needs one.")
    enc = encode_dataset(class_, dataset, columns=[*features, class_])
    n_rows = enc.codes.shape[0]
    size = int(n_rows * bootstrap)
    if size < 1:
        raise ValueError(
            f"`awnb_bootstrap` = {bootstrap} of {n_rows} rows gives empty bootstrap samples."
        )
    draws = resolve_source(seed, rng)
    # bnclassify draws every sample before growing any tree
    samples = [_bootstrap_rows(draws, n_rows, size) for _ in range(trees)]
    x_all = enc.codes[:, :-1]
    y_all = enc.codes[:, -1]
    n_levels = enc.dims(features)
    scores = {f: [] for f in features}
    for rows in samples:
        x, y = x_all[rows], y_all[rows]
        # rpart's na.rpart: drop rows without a class or without any predictor
        keep = (y >= 0) & np.any(x >= 0, axis=1)
        if not keep.any():
            continue
        splits = tree_splits(x[keep].T, y[keep], n_levels)
        for var, depth in min_depths(splits).items():
            scores[features[var]].append(depth ** -0.5)
    if not any(scores.values()):
        raise ValueError(
            "AWNB learned only empty trees (as R stops too): no bootstrap sample of "
            "`awnb_bootstrap` could be split (too few rows, or a single class)."
        )
    return {f: math.fsum(s) / trees for f, s in scores.items()}
