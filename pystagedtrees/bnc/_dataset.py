"""Validation and encoding of the data given to the learners."""
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pystagedtrees.base._data import all_string_names, check_column, check_frame, encode_frame

__all__ = ["Encoded", "encode_dataset", "check_class", "encode_for_model"]


@dataclass
class Encoded:
    """A dataset as level codes: ``codes[:, j]`` is ``columns[j]``, -1 is NA.

    ``weights``, when given, holds a non-negative weight per row: a row
    counts as that many rows in every table.  ``tables``, when given, holds
    the counts of the families instead of rows (``codes`` then has none):
    the class, each feature with the class, each pair of features with it.
    """

    columns: list
    codes: np.ndarray
    levels: dict
    class_var: str
    weights: np.ndarray = None
    tables: dict = None

    def table(self, family):
        """The stored table of ``family`` (of a dataset kept as tables, not rows):
        stored as given, or with its first two variables the other way round."""
        family = tuple(family)
        if family in self.tables:
            return self.tables[family]
        return self.tables[(family[1], family[0], *family[2:])].swapaxes(0, 1)

    @property
    def class_index(self):
        return self.columns.index(self.class_var)

    @property
    def features(self):
        return [c for c in self.columns if c != self.class_var]

    def index(self, names):
        return [self.columns.index(v) for v in names]

    def dims(self, names):
        return [len(self.levels[v]) for v in names]

    def as_frame(self):
        """The data as categorical columns with all the levels (as R factors)."""
        return pd.DataFrame({
            c: pd.Categorical.from_codes(self.codes[:, j], categories=self.levels[c])
            for j, c in enumerate(self.columns)
        })


def check_class(class_, dataset, name="dataset"):
    """Raise unless ``class_`` names one column of ``dataset``."""
    check_column(class_, "class_", dataset, name)


def encode_dataset(class_, dataset, name="dataset", columns=None):
    """Encode every column (R requires all of them to be factors).

    Categorical, string, integer and boolean columns are accepted; a float
    column with non-integral values raises TypeError (discretize first).
    ``columns`` restricts the encoding to those columns (class included).
    """
    check_frame(dataset, name)
    check_class(class_, dataset, name)
    if not all_string_names(dataset.columns):
        non_str = [c for c in dataset.columns if not isinstance(c, str)]
        raise TypeError(
            f"`{name}` column names must be strings; got {non_str[:3]}."
        )
    if columns is not None:
        missing = [c for c in columns if c not in dataset.columns]
        if missing:
            raise ValueError(
                f"`{name}` lacks the model variable(s) {missing}."
            )
    codes, levels = encode_frame(dataset, columns=columns, name=name)
    cols = list(levels)
    empty = [c for c in cols if len(levels[c]) == 0]
    if empty:
        raise ValueError(f"`{name}` column(s) {empty} have no observed value.")
    return Encoded(cols, codes, levels, class_)


def encode_for_model(model, newdata, name="newdata", allow_no_rows=False, order="C"):
    """Codes of the model's features in ``newdata`` against the model's levels.

    Returns an (n, p) int32 array with the features in model order, in
    memory ``order`` (see :func:`~pystagedtrees.base._data.encode_frame`).
    """
    if not model.features and isinstance(newdata, pd.DataFrame) and newdata.shape[0]:
        # a class-only model needs no column: every row gets the prior (as R)
        return np.empty((newdata.shape[0], 0), dtype=np.int32)
    check_frame(newdata, name, allow_no_rows=allow_no_rows)
    missing = [f for f in model.features if f not in newdata.columns]
    if missing:
        raise ValueError(
            f"Some features missing from `{name}`: {missing}."
        )
    if not model.features or newdata.shape[0] == 0:
        return np.empty((newdata.shape[0], len(model.features)), dtype=np.int32)
    levels = {f: model.levels[f] for f in model.features}
    codes, _ = encode_frame(newdata, columns=list(model.features), levels=levels,
                            name=name, order=order)
    return codes
