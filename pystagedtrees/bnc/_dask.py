"""The sufficient statistics of a Bayesian network classifier from Dask partitions.

"nb", "tan_cl" and "aode" need only the counts of the class, of each feature
with the class and of each pair of features with the class (each table over
the rows that observe its variables, as in memory).  Each partition's tables
are counted by the family-counting kernel on its worker and summed in a
tree; the result is a dataset of tables (:class:`Encoded` with ``tables``).
"""
from itertools import combinations

import numpy as np

from pystagedtrees.base._dask import tree_reduce
from pystagedtrees.base._estimator import training_partition
from pystagedtrees.bnc._dataset import Encoded
from pystagedtrees.bnc._params import family_table

__all__ = ["count_families"]


def _families(class_var, features):
    return ([(class_var,)] + [(f, class_var) for f in features]
            + [(a, b, class_var) for a, b in combinations(features, 2)])


def _partition_tables(part, spec):
    """The family tables of one partition's rows, or None for an empty partition."""
    frame, weights = training_partition(part, spec)
    if len(frame) == 0:
        return None
    columns = list(frame.columns)
    codes = np.column_stack([frame[c].cat.codes.to_numpy() for c in columns]).astype(np.int32)
    enc = Encoded(columns, codes, spec.tree, spec.class_name, weights)
    return {family: family_table(enc, family)
            for family in _families(spec.class_name, spec.columns)}


def _add_tables(parts):
    """The tables of several partitions as the tables of their rows together."""
    parts = [p for p in parts if p is not None]
    if not parts:
        return None
    return {family: np.sum([p[family] for p in parts], axis=0) for family in parts[0]}


def count_families(training):
    """The tables of a :class:`DaskTraining`'s rows, as an :class:`Encoded` of tables."""
    from dask import compute, delayed

    count = delayed(_partition_tables, pure=True)
    spec = training.spec
    partials = [count(part, spec) for part in training.partitions()]
    (tables,) = compute(tree_reduce(partials, _add_tables))
    if tables is None:
        raise ValueError("`X` is empty: it has no rows.")
    if training.sample_weight is not None and tables[(spec.class_name,)].sum() == 0:
        raise ValueError("`sample_weight` must have a non-zero weight; all weights are zero.")
    columns = [spec.class_name, *spec.columns]
    return Encoded(columns, np.empty((0, len(columns)), dtype=np.int32), spec.tree,
                   spec.class_name, tables=tables)
