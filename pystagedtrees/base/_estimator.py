"""The skeleton the package's scikit-learn classifiers share.

:class:`~pystagedtrees.bnc.BNClassifier` and
:class:`~pystagedtrees.StagedTreeClassifier` differ in what they learn; both
read categorical features once, add the class as a column of their model,
match a DataFrame's columns by name at prediction and predict the most
probable class.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from pystagedtrees.base._dask import (
    check_partition_rows,
    check_same_partitions,
    dask_levels,
    dask_meta,
    is_dask,
    is_dask_frame,
    is_dask_series,
    tree_reduce,
)
from pystagedtrees.base._data import (
    HANDLE_UNKNOWN,
    _check_distinct_strings,
    categorical_tags,
    class_column_name,
    encode_column,
    feature_frame,
    fit_input,
    known_levels_frame,
)
from pystagedtrees.base._validation import check_choice

if TYPE_CHECKING:
    import dask.dataframe as dd

__all__ = ["CategoricalClassifier", "DaskTraining", "TrainingLevels", "partition_labels",
           "partition_features", "dask_training_frame", "sorted_classes", "observe_training"]


class TrainingLevels:
    """What a partition needs to read a classifier's training rows: the feature
    columns and their levels, the classes and the class column's name (small,
    shipped with each task; never the collections themselves)."""

    def __init__(self, columns, levels, classes, class_name):
        self.columns, self.levels, self.classes = columns, levels, classes
        self.class_name = class_name

    @property
    def tree(self):
        """The levels of the class (positions in ``classes``) then of each feature."""
        return {self.class_name: [str(i) for i in range(len(self.classes))], **self.levels}


class DaskTraining:
    """A classifier's training data given as Dask collections, checked on metadata.

    :meth:`map` runs a function on each partition of ``X`` with the same
    partitions of ``y`` and ``sample_weight``, paired by position (as an
    in-memory fit pairs rows), in one Dask graph, so that Dask splits them
    alike (reading fewer columns, Dask may otherwise merge files into fewer
    partitions) and reads and processes a partition in one task.
    ``spec`` (:class:`TrainingLevels`) tells the function how to read the
    rows; nothing of them is gathered.
    """

    def __init__(self, X, y, sample_weight, spec):
        self.X, self.y, self.sample_weight, self.spec = X, y, sample_weight, spec

    def map(self, function, meta):
        """``function(spec, X, y, weights)`` on each partition (``weights`` None without
        ``sample_weight``): a lazy Dask collection described by ``meta``."""
        import dask.dataframe as dd

        collections = [self.X, self.y]
        if self.sample_weight is not None:
            collections.append(self.sample_weight)
        return dd.map_partitions(function, self.spec, *collections, align_dataframes=False,
                                 meta=meta, enforce_metadata=False)


def partition_labels(X, y, weights):
    """A partition's checks: ``y`` (and ``weights``) pair with ``X`` row by row, labels
    are not missing, weights finite and >= 0.  Returns the weights as floats (or None)."""
    check_partition_rows(X, y, ("X", "y"))
    if pd.isna(y).any():
        raise ValueError("`y` has missing values: drop those rows or give them a class.")
    if weights is None:
        return None
    check_partition_rows(X, weights, ("X", "sample_weight"))
    weights = np.asarray(weights, dtype=float)
    if not np.isfinite(weights).all() or (weights < 0).any():
        raise ValueError("`sample_weight` must hold finite weights >= 0.")
    return weights


def partition_features(X):
    """A partition of ``X`` with its columns named as ``TrainingLevels.columns`` (strings)."""
    return X.set_axis([str(c) for c in X.columns], axis=1)


def _training_frame_of(spec, X, y, weights=None):
    """One partition's training frame (class first, categorical over ``spec.tree``)."""
    partition_labels(X, y, weights)
    X = partition_features(X)
    tree = spec.tree
    codes = pd.Index(spec.classes).get_indexer(np.asarray(y, dtype=object))
    columns = {spec.class_name: pd.Categorical.from_codes(codes, tree[spec.class_name])}
    for column in spec.columns:
        columns[column] = pd.Categorical.from_codes(
            encode_column(X[column], tree[column], column, "X"), tree[column])
    return pd.DataFrame(columns)


def dask_training_frame(training):
    """The training frame (class first) as a lazy Dask DataFrame, built partition by
    partition from ``X`` and ``y``; its columns are categoricals of ``training.spec.tree``."""
    meta = pd.DataFrame({c: pd.Categorical([], categories=lev)
                         for c, lev in training.spec.tree.items()})
    return training.map(_training_frame_of, meta)


def _partition_observed(spec, X, y, weights=None):
    """One partition's distinct labels, the non-missing values of each feature and its
    number of rows (see :func:`observe_training`)."""
    partition_labels(X, y, weights)
    X = partition_features(X)
    observed = np.array([int(X[c].notna().sum()) for c in spec.columns], dtype=np.int64)
    return pd.unique(np.asarray(y, dtype=object)), observed, len(X)


def _add_observed(parts):
    """The :func:`_partition_observed` of several partitions' rows together."""
    return (pd.unique(np.concatenate([p[0] for p in parts])), sum(p[1] for p in parts),
            sum(p[2] for p in parts))


def observe_training(training):
    """The classes of a :class:`DaskTraining`'s labels (sorted; only the distinct
    labels are gathered), the number of rows observing each feature and the number of
    rows, in one pass."""
    from dask import compute

    partials = training.map(_partition_observed, pd.Series([], dtype=object)).to_delayed()
    (values, observed, n_rows) = compute(tree_reduce(partials, _add_observed))[0]
    return sorted_classes(values)[0], observed, n_rows


def sorted_classes(values):
    """The classes (sorted) of the distinct labels ``values`` (an object array, from
    the partitions) and each value's position among them; the checks of an in-memory fit."""
    if len(values) == 0:
        raise ValueError("`y` is empty: it has no rows.")
    _check_distinct_strings(values, [str(v) for v in values], "`y`")
    try:
        return np.unique(values.tolist(), return_inverse=True)
    except TypeError:
        kinds = sorted({type(v).__name__ for v in values})
        raise TypeError(f"`y` mixes values of types {kinds}: give its classes one type.") from None


class CategoricalClassifier(ClassifierMixin, BaseEstimator):
    """Base of the categorical classifiers (not for direct use).

    Subclasses implement ``fit`` (with :meth:`_training_frame`),
    ``predict_proba`` (with :meth:`_prediction_frame`), ``_randomised`` and
    ``_feature_levels``.
    """

    def _randomised(self):
        """Whether the fitted model depends on ``random_state``."""
        raise NotImplementedError

    def _feature_levels(self):
        """The levels the fitted model knows of each feature it reads."""
        raise NotImplementedError

    def __sklearn_tags__(self):
        return categorical_tags(super().__sklearn_tags__(),
                                self._randomised() and self.random_state is None)

    def _training_frame(self, X, y):
        """The features of ``X`` with the class as a first column ``class_name_``.

        Sets ``classes_``, ``class_name_``, ``n_features_in_`` and, for string
        column names, ``feature_names_in_``; the class column's levels are
        ``"0", "1", ...``, the positions in ``classes_``.
        """
        frame, self.classes_, y_codes = fit_input(self, X, y)
        self._names = list(frame.columns)
        # a DataFrame's columns are matched by name at prediction, whatever their type
        self._columns = list(X.columns) if isinstance(X, pd.DataFrame) else None
        self.class_name_ = class_column_name(self._names)
        levels = [str(i) for i in range(len(self.classes_))]
        target = pd.DataFrame({self.class_name_: pd.Categorical.from_codes(y_codes, levels)})
        return pd.concat([target, frame], axis=1)

    def _dask_training(self, X, y, sample_weight=None):
        """Checked Dask ``fit`` input (:class:`DaskTraining`): ``X`` a Dask frame of
        known categoricals, ``y`` (and ``sample_weight``) Dask series split as ``X``.

        Everything is checked on metadata; nothing is computed.  Sets the
        attributes :meth:`_training_frame` sets but ``classes_``, which the
        caller finds in a pass over the data (the spec's ``classes`` is None
        until then).
        """
        if not is_dask_frame(X):
            raise TypeError(f"`X` must be a Dask DataFrame when `y` is a Dask collection; "
                            f"got {type(X).__name__}.")
        if is_dask_frame(y) and len(y.columns) == 1:
            y = y[y.columns[0]]
        if not is_dask_series(y):
            raise TypeError(f"`y` must be a Dask Series when `X` is a Dask DataFrame; got "
                            f"{type(y).__name__}.")
        check_same_partitions(X, "X", y, "y")
        if sample_weight is not None:
            if not is_dask_series(sample_weight):
                raise TypeError("`sample_weight` must be a Dask Series when `X` is a Dask "
                                f"DataFrame; got {type(sample_weight).__name__}.")
            check_same_partitions(X, "X", sample_weight, "sample_weight")
            if sample_weight.dtype.kind not in "iuf":
                raise TypeError("`sample_weight` must hold real numbers; got values of dtype "
                                f"{sample_weight.dtype}.")
        meta = dask_meta(X, "X")
        if meta.shape[1] == 0:
            raise ValueError("`X` has 0 feature(s) while a minimum of 1 is required.")
        validate_data(self, X._meta, reset=True, skip_check_array=True)
        columns = list(meta.columns)
        levels = dask_levels(X, columns, None, "X", levels_argument=False)
        empty = [c for c in columns if not levels[c]]
        if empty:
            raise ValueError(f"`X` column(s) {empty} have no observed value.")
        self._names = columns
        self._columns = list(X.columns)
        self.class_name_ = class_column_name(columns)
        return DaskTraining(X, y, sample_weight,
                            TrainingLevels(columns, levels, None, self.class_name_))

    def _lazy_predictions(self, X, proba):
        """``predict`` (``proba`` False) or ``predict_proba`` of a Dask frame, lazily:
        a Dask Series of labels or a Dask DataFrame with a column per class."""
        check_is_fitted(self)
        meta = dask_meta(X, "X")
        if self._columns is not None:
            self._columns_by_name(meta)  # the columns, by name, before computing
        elif meta.shape[1] != len(self._names):
            raise ValueError(f"X has {meta.shape[1]} features, but {type(self).__name__} is "
                             f"expecting {len(self._names)} features as input.")
        if proba:
            out = pd.DataFrame(np.empty((0, len(self.classes_))), columns=list(self.classes_))
        else:
            out = pd.Series(self.classes_[:0])
        return X.map_partitions(_partition_predictions, self, proba, out, meta=out)

    def _prediction_frame(self, X):
        """The features of ``X`` in training order, as categoricals over the
        levels the model knows."""
        check_is_fitted(self)
        check_choice(self.handle_unknown, "handle_unknown", HANDLE_UNKNOWN)  # set after fit?
        name = type(self).__name__
        if isinstance(X, pd.DataFrame) and self._columns is not None:
            X = self._columns_by_name(X)
        frame = feature_frame(X, name).reset_index(drop=True)
        validate_data(self, X, reset=False, skip_check_array=True)
        if frame.shape[1] != len(self._names):
            raise ValueError(f"X has {frame.shape[1]} features, but {name} is expecting "
                             f"{len(self._names)} features as input.")
        frame.columns = self._names
        return known_levels_frame(frame, self._feature_levels(), self.handle_unknown)

    def _columns_by_name(self, X):
        """``X``'s columns in the order of training, found by name."""
        columns = list(X.columns)
        if columns == self._columns:
            return X
        if len(set(columns)) != len(columns):
            return X  # refused as duplicated by feature_frame
        missing = [c for c in self._columns if c not in columns]
        extra = [c for c in columns if c not in self._columns]
        if missing or extra:
            raise ValueError(
                f"`X` must have the feature names (columns) {type(self).__name__} was fitted "
                f"on, {self._columns}; it lacks {missing} and has {extra} besides."
            )
        return X[self._columns]

    def predict_log_proba(self, X: ArrayLike | pd.DataFrame) -> np.ndarray:
        """Logarithm of :meth:`predict_proba`."""
        if is_dask(X):
            return self.predict_proba(X).map_partitions(_log_of_partition)
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    def predict(self, X: ArrayLike | pd.DataFrame | dd.DataFrame) -> np.ndarray | dd.Series:
        """The most probable class of each row; on ties the first in ``classes_``.

        A Dask DataFrame gets a lazy Dask Series, predicted partition by partition.
        """
        if is_dask(X):
            return self._lazy_predictions(X, proba=False)
        post = self.predict_proba(X)
        return self.classes_[np.argmax(post, axis=1)]


def _partition_predictions(part, estimator, proba, meta):
    """An estimator's predictions of one partition, indexed as its rows."""
    if len(part) == 0:
        return meta
    if proba:
        return pd.DataFrame(estimator.predict_proba(part), index=part.index,
                            columns=meta.columns)
    return pd.Series(estimator.predict(part), index=part.index)


def _log_of_partition(part):
    with np.errstate(divide="ignore"):
        return np.log(part)
