"""Telling Dask collections apart without importing Dask.

A value is a Dask collection only if ``dask.dataframe`` is already loaded
(whoever built one loaded it), so Dask stays optional.
"""
import sys

__all__ = ["is_dask_frame", "is_dask_series", "is_dask", "refuse_dask", "TAKE_DASK"]


def _dask_types():
    module = sys.modules.get("dask.dataframe")
    return None if module is None else (module.DataFrame, module.Series)


def is_dask_frame(value):
    """True for a ``dask.dataframe.DataFrame``."""
    types = _dask_types()
    return types is not None and isinstance(value, types[0])


def is_dask_series(value):
    """True for a ``dask.dataframe.Series``."""
    types = _dask_types()
    return types is not None and isinstance(value, types[1])


def is_dask(value):
    """True for a Dask DataFrame or Series."""
    return is_dask_frame(value) or is_dask_series(value)


TAKE_DASK = ("full", "indep", "sevt_fit", "make_ctables", "predict", "prob",
             "path_probability", "BNClassifier", "StagedTreeClassifier")
"""The functions and estimators that take Dask input (the error for the others lists them)."""


def refuse_dask(value, name, what="this function", methods=TAKE_DASK):
    """Raise a TypeError if ``value`` (argument ``name``) is a Dask collection:
    ``what`` cannot take one; ``methods`` lists those that can."""
    if is_dask(value):
        raise TypeError(f"`{name}` is a Dask collection, which {what} does not take (it "
                        f"needs the rows in memory); these take Dask input: {list(methods)}. "
                        "Compute it to pandas first if it fits in memory.")
