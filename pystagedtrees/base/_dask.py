"""Dask DataFrames as input: levels read from metadata, partitions paired, tables
reduced in a tree (detection: ``_dask_types``).

Dask stays optional: nothing here imports it at module level.  Every check
reads metadata only (dtypes, categories, partition counts), so bad input is
refused before any partition is computed.
"""
import pandas as pd

from pystagedtrees.base._dask_types import (
    is_dask,
    is_dask_frame,
    is_dask_series,
    refuse_dask,
)
from pystagedtrees.base._data import category_strings, check_frame

__all__ = [
    "is_dask_frame", "is_dask_series", "is_dask", "dask_levels", "check_same_partitions",
    "check_partition_rows", "tree_reduce", "refuse_dask", "dask_meta",
]


def dask_meta(data, name):
    """The empty pandas frame describing a Dask frame's columns, names as strings."""
    return check_frame(data._meta, name, allow_no_rows=True)


def dask_levels(data, columns, levels, name, levels_argument=True):
    """The levels of ``columns`` of the Dask frame ``data``, read from metadata.

    ``levels`` (a dict, or None) gives levels per column; the other columns
    must be categoricals with known categories, whose order they keep (as a
    pandas categorical's).  Nothing is computed.  ``levels_argument``: the
    caller takes ``levels=`` (the error suggests it).
    """
    meta = dask_meta(data, name)
    missing = [c for c in columns if c not in meta.columns]
    if missing:
        raise ValueError(f"`{name}` has no column(s) {missing}; its columns are "
                         f"{list(meta.columns)}.")
    given = {} if levels is None else levels
    out, unknown = {}, []
    for column in columns:
        if column in given:
            out[column] = [str(lev) for lev in given[column]]
            continue
        dtype = meta[column].dtype
        categories = dtype.categories if isinstance(dtype, pd.CategoricalDtype) else None
        from dask.dataframe.utils import has_known_categories
        if categories is None or not has_known_categories(data[column]):
            unknown.append(column)
            continue
        out[column] = category_strings(categories, column)
    if unknown:
        raise ValueError(
            f"`{name}`: the levels of column(s) {unknown} are not known before computing "
            "the data (a Dask frame's columns need known categories): call "
            f"`{name}.categorize()` (or `.astype()` with a CategoricalDtype that lists them)"
            + (", or pass `levels=` (a dict of column to levels)." if levels_argument else ".")
        )
    return out


def check_same_partitions(first, first_name, second, second_name):
    """Raise unless two Dask collections split their rows alike, as far as
    metadata tells (partition counts; divisions when both are known)."""
    if not is_dask(second):
        raise TypeError(f"`{second_name}` must be a Dask collection when `{first_name}` is "
                        f"one; got {type(second).__name__}.")
    if first.npartitions != second.npartitions:
        raise ValueError(
            f"`{first_name}` and `{second_name}` have different partitions: "
            f"{first.npartitions} and {second.npartitions}; build them from one frame "
            f"(e.g. `{second_name} = ddf[column]`)."
        )
    if first.known_divisions and second.known_divisions and \
            tuple(first.divisions) != tuple(second.divisions):
        raise ValueError(f"`{first_name}` and `{second_name}` have different divisions: "
                         "their rows are not split alike.")


def check_partition_rows(first, second, names):
    """Raise if two partitions that should pair row by row differ in length
    (divisions unknown: only computing tells)."""
    if len(first) != len(second):
        raise ValueError(f"`{names[0]}` and `{names[1]}` have partitions of different "
                         f"lengths ({len(first)} and {len(second)} rows): their rows do "
                         "not pair up.")


def tree_reduce(partials, combine, split_every=8):
    """One Dask ``Delayed`` combining ``partials`` (Delayed) in a tree.

    Groups of ``split_every`` partials are combined, then groups of those,
    so no task receives more than ``split_every`` results and none the rows.
    """
    from dask import delayed

    level = list(partials)
    while len(level) > 1:
        level = [delayed(combine)(level[i:i + split_every])
                 for i in range(0, len(level), split_every)]
    return level[0]

