"""The skeleton the package's scikit-learn classifiers share.

:class:`~pystagedtrees.bnc.BNClassifier` and
:class:`~pystagedtrees.StagedTreeClassifier` differ in what they learn; both
read categorical features once, add the class as a column of their model,
match a DataFrame's columns by name at prediction and predict the most
probable class.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from pystagedtrees.base._data import (
    HANDLE_UNKNOWN,
    categorical_tags,
    class_column_name,
    feature_frame,
    fit_input,
    known_levels_frame,
)
from pystagedtrees.base._validation import check_choice

__all__ = ["CategoricalClassifier"]


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
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    def predict(self, X: ArrayLike | pd.DataFrame) -> np.ndarray:
        """The most probable class of each row; on ties the first in ``classes_``."""
        post = self.predict_proba(X)
        return self.classes_[np.argmax(post, axis=1)]
