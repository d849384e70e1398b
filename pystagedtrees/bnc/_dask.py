"""The sufficient statistics of a Bayesian network classifier from Dask partitions.

"nb", "tan_cl" and "aode" need only the counts of the class, of each feature
with the class and of each pair of features with the class (each table over
the rows that observe its variables, as in memory).  One task per partition
reads it, pairs it with its labels (and weights) and counts all its tables in
one compiled pass (``class_family_counts``), the class axis over the labels
the partition holds; the partitions' tables are summed in a tree, class axes
aligned on the union of the labels, so the labels are found in the same pass.
The result is a dataset of tables (:class:`Encoded` with ``tables``).
"""
from itertools import combinations

import numpy as np
import pandas as pd

from pystagedtrees.base._dask import tree_reduce
from pystagedtrees.base._data import encode_column
from pystagedtrees.base._estimator import (
    TrainingLevels,
    partition_features,
    partition_labels,
    sorted_classes,
)
from pystagedtrees.bnc._dataset import Encoded
from pystagedtrees.kernels._bnc_counts import class_family_counts

__all__ = ["count_families"]


def _partition_counts(spec, X, y, weights=None):
    """One partition's distinct labels and its stacked tables (class axis over those
    labels, see ``class_family_counts``), or None for an empty partition."""
    weights = partition_labels(X, y, weights)
    if len(X) == 0:
        return None
    X = partition_features(X)
    label_codes, labels = pd.factorize(y)
    codes = np.empty((len(X), 1 + len(spec.columns)), dtype=np.int32)
    codes[:, 0] = label_codes
    for j, column in enumerate(spec.columns, start=1):
        codes[:, j] = encode_column(X[column], spec.levels[column], column, "X")
    dims = np.array([len(labels)] + [len(spec.levels[c]) for c in spec.columns], dtype=np.int64)
    return np.asarray(labels, dtype=object), class_family_counts(codes, dims, weights)


def _add_counts(parts):
    """The counts of several partitions as the counts of their rows together: the
    class axes over the union of their labels."""
    parts = [p for p in parts if p is not None]
    if not parts:
        return None
    labels = pd.unique(np.concatenate([p[0] for p in parts]))
    index = pd.Index(labels)
    total = np.zeros((parts[0][1].shape[0], len(labels)))
    for part_labels, counts in parts:
        total[:, index.get_indexer(part_labels)] += counts
    return labels, total


def _tables(stacked, spec):
    """The tables of the families (class, each feature with it, each pair with it), split
    from the rows of ``class_family_counts``'s stacked layout."""
    class_name, m = spec.class_name, stacked.shape[1]
    tables, at = {(class_name,): stacked[0]}, 1
    for f in spec.columns:
        d = len(spec.levels[f])
        tables[(f, class_name)] = stacked[at:at + d]
        at += d
    for a, b in combinations(spec.columns, 2):
        da, db = len(spec.levels[a]), len(spec.levels[b])
        tables[(a, b, class_name)] = stacked[at:at + da * db].reshape(da, db, m)
        at += da * db
    return tables


def count_families(training):
    """The classes of a :class:`DaskTraining`'s labels (sorted) and the tables of its
    rows, as an :class:`Encoded` of tables (the class column's levels the positions
    in the classes)."""
    from dask import compute

    spec = training.spec
    partials = training.map(_partition_counts, pd.Series([], dtype=object)).to_delayed()
    (result,) = compute(tree_reduce(partials, _add_counts))
    if result is None:
        raise ValueError("`y` is empty: it has no rows.")
    labels, counts = result
    classes, position = sorted_classes(labels)
    stacked = np.empty_like(counts)
    stacked[:, position] = counts
    tables = _tables(stacked, spec)
    if training.sample_weight is not None and tables[(spec.class_name,)].sum() == 0:
        raise ValueError("`sample_weight` must have a non-zero weight; all weights are zero.")
    columns = [spec.class_name, *spec.columns]
    tree = TrainingLevels(spec.columns, spec.levels, classes, spec.class_name).tree
    return classes, Encoded(columns, np.empty((0, len(columns)), dtype=np.int32), tree,
                            spec.class_name, tables=tables)
