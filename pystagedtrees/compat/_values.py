"""Python <-> R conversion of values: vectors, factors, data frames, tables,
log-likelihoods, parents lists and lists of them.

:func:`value_to_r` and :func:`value_from_r` convert these; the models
(staged trees and classifiers) are converted by
:mod:`pystagedtrees.compat.stagedtrees` and
:mod:`pystagedtrees.compat.bnclassify`, and :mod:`._convert` picks the
converter of any object.

Data frames become R data.frames of factors, as stagedtrees and bnclassify
need: categorical columns keep their category order and unused categories
(categories that are not strings are cast to strings, which rpy2's own
pandas converter would instead turn into character columns), other
columns are read as :func:`pystagedtrees.full` reads them (R's
``as.factor`` order).  Missing values become ``NA``.

Examples
--------
>>> import pandas as pd
>>> from pystagedtrees.compat import to_r, from_r
>>> df = pd.DataFrame({"x": pd.Categorical(["b", None, "b"], categories=["b", "a"])})
>>> back = from_r(to_r(df))
>>> list(back["x"].cat.categories), back["x"].isna().tolist()
(['b', 'a'], [False, True, False])
"""
import numbers

import numpy as np
import pandas as pd

from pystagedtrees.base._data import category_strings, check_frame, column_levels, encode_column
from pystagedtrees.base._loglik import LogLik
from pystagedtrees.base._validation import check_call_fits
from pystagedtrees.compat._session import helpers, r_context, ri
from pystagedtrees.graphs._parentslist import ParentsEntry, ParentsList

__all__ = [
    "value_to_r",
    "value_from_r",
    "frame_to_r",
    "frame_from_r",
    "table_to_r",
    "table_from_r",
    "r_classes",
]

_NA_INTEGER = np.iinfo(np.int32).min  # R's NA_integer_
_NA_REAL_BITS = np.uint64(0x7FF00000000007A2)  # R's NA_real_: a NaN whose low word is 1954


# -- Python -> R primitives ---------------------------------------------------
def float_vector(values):
    """An R double vector from array-like values (NaN stays NaN)."""
    arr = np.ascontiguousarray(np.asarray(values, dtype=np.float64).ravel(order="F"))
    return ri.FloatSexpVector.from_memoryview(memoryview(arr))


def int_vector(values):
    """An R integer vector; ``_NA_INTEGER`` entries are NA."""
    arr = np.ascontiguousarray(np.asarray(values).ravel(order="F"), dtype=np.int32)
    return ri.IntSexpVector.from_memoryview(memoryview(arr))


def str_vector(values):
    """An R character vector; None and NaN become NA."""
    strings = [None if _is_missing(v) else str(v) for v in values]
    bad = next((x for x in strings if x is not None and "\x00" in x), None)
    if bad is not None:  # R would cut it short there
        raise ValueError(f"R strings cannot hold a NUL character; got {bad!r}.")
    return ri.StrSexpVector([ri.NA_Character if x is None else x for x in strings])


def bool_vector(values):
    return ri.BoolSexpVector([ri.NA_Logical if _is_missing(v) else bool(v) for v in values])


def named_list(items):
    """An R list from a dict of already converted R objects."""
    with r_context():
        return helpers("named_vector")(ri.ListSexpVector(list(items.values())),
                                      str_vector(list(items)))


def _is_missing(value):
    return value is None or (isinstance(value, float) and np.isnan(value)) or value is pd.NA


def _with_dim(vector, shape):
    if len(shape) > 1:
        vector.do_slot_assign("dim", ri.IntSexpVector([int(d) for d in shape]))
    return vector


def array_to_r(arr):
    """An R vector, matrix or array (column-major) from a numpy array."""
    arr = np.asarray(arr)
    if arr.dtype.kind == "b":
        vector = bool_vector(arr.ravel(order="F"))
    elif arr.dtype.kind in "iu":
        if arr.size and (arr.min() <= _NA_INTEGER or arr.max() > np.iinfo(np.int32).max):
            vector = float_vector(arr)  # beyond R's integers, as R itself would store them
        else:
            vector = int_vector(arr)
    elif arr.dtype.kind == "f":
        vector = float_vector(arr)
    elif arr.dtype.kind in "OUS":
        vector = str_vector(arr.ravel(order="F"))
    else:
        raise TypeError(f"`x`: numpy arrays of dtype {arr.dtype} are not converted to R.")
    return _with_dim(vector, arr.shape)


def factor_to_r(codes, levels, ordered=False):
    """An R factor from 0-based codes (-1 for missing) and levels."""
    codes = np.asarray(codes, dtype=np.int64)
    r_codes = np.where(codes < 0, _NA_INTEGER, codes + 1)
    with r_context():
        return helpers("factor")(int_vector(r_codes), str_vector(levels), bool(ordered))


def frame_to_r(df, factors=True):
    """An R data.frame from a pandas DataFrame.

    Parameters
    ----------
    df : pandas.DataFrame
    factors : bool, default True
        Every column becomes a factor (levels as :func:`pystagedtrees.full`
        reads them); with False only categorical columns do, the others
        keep their numeric, logical or character type.

    Returns
    -------
    rpy2 object
        The data.frame.  A default ``RangeIndex`` gives R's automatic row
        names; any other unique index becomes character row names.

    Examples
    --------
    >>> from pystagedtrees.compat._values import frame_to_r
    >>> import pandas as pd
    >>> from pystagedtrees.compat import r_call
    >>> robj = frame_to_r(pd.DataFrame({"n": [10, 2, 10]}))
    >>> r_call("levels", r_call("base::`[[`", robj, "n", convert_result=False)).tolist()
    ['2', '10']
    """
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"`df` must be a pandas DataFrame; got {type(df).__name__}.")
    if not df.columns.is_unique:
        check_frame(df, "df")
    columns = [_column_to_r(df[c], str(c), factors) for c in df.columns]
    default_index = isinstance(df.index, pd.RangeIndex) and df.index.start == 0 and df.index.step == 1
    if default_index:
        row_names = ri.NULL
    elif df.index.is_unique:
        row_names = str_vector([str(i) for i in df.index])
    else:
        raise ValueError(
            "`df` has a duplicated index, which R cannot keep as row names: "
            "reset it first (df.reset_index(drop=True))."
        )
    with r_context():
        return helpers("data_frame")(
            ri.ListSexpVector(columns), str_vector([str(c) for c in df.columns]), row_names
        )


def _column_to_r(col, name, factors):
    if isinstance(col.dtype, pd.CategoricalDtype):
        levels = category_strings(col.cat.categories, name)  # as the models name them
        return factor_to_r(col.cat.codes.to_numpy(), levels, col.cat.ordered)
    if factors:
        levels = column_levels(col, name)
        return factor_to_r(encode_column(col, levels, name), levels)
    values = col.to_numpy()
    missing = col.isna().to_numpy()
    if pd.api.types.is_bool_dtype(col.dtype):  # nullable booleans: NA stays a logical NA
        return bool_vector(col.astype(object).to_numpy())
    if pd.api.types.is_integer_dtype(col.dtype) and not missing.any():
        return array_to_r(values.astype(np.int64))
    if pd.api.types.is_numeric_dtype(col.dtype):
        numbers = col.astype(float).to_numpy(copy=True)
        numbers.view(np.uint64)[missing] = _NA_REAL_BITS  # a missing value is R's NA, not NaN
        return float_vector(numbers)
    return str_vector(values)


def table_to_r(table):
    """An R ``table`` from a Series of counts indexed by the variables' levels.

    Cells not in the index are 0; repeated index entries add up.
    """
    index = table.index
    if not isinstance(index, pd.MultiIndex):
        index = pd.MultiIndex.from_arrays([index], names=[index.name])
    names = list(index.names)
    if any(n is None for n in names) or len(set(names)) != len(names):
        raise ValueError(
            f"`table` needs a (Multi)Index with distinct variable names; got {names}."
        )
    counts = pd.to_numeric(table, errors="coerce").to_numpy(dtype=float)
    dims = [len(lev) for lev in index.levels]
    codes = np.array(index.codes, dtype=np.int64).reshape(len(dims), -1)
    if (codes < 0).any():
        raise ValueError("`table` has a missing level in its index.")
    values = np.zeros(dims)
    np.add.at(values, tuple(codes), counts)
    dimnames = named_list({str(n): str_vector([str(x) for x in lev])
                           for n, lev in zip(names, index.levels)})
    with r_context():
        return helpers("table")(float_vector(values), int_vector(dims), dimnames)


def loglik_to_r(ll):
    with r_context():
        return helpers("loglik")(float_vector([float(ll)]), float_vector([ll.df]),
                                 float_vector([ll.nobs]))


def value_to_r(x, convert_item=None, **options):
    """Convert a Python value to R (see :func:`pystagedtrees.compat.to_r`).

    ``convert_item`` converts the items of lists and dicts (default: this
    function), so that a list of models converts them too.
    """
    convert_item = convert_item or value_to_r
    if isinstance(x, pd.DataFrame):
        return convert_with_options(frame_to_r, x, options)
    if options:
        raise TypeError(f"`options` {sorted(options)} apply to staged trees, BNC models and "
                        f"DataFrames, not to {type(x).__name__}.")
    if isinstance(x, ri.Sexp):
        return x
    if isinstance(x, pd.Series):
        if isinstance(x.dtype, pd.CategoricalDtype):
            return _column_to_r(x, str(x.name), True)
        if pd.api.types.is_numeric_dtype(x.dtype) and x.index.names[0] is not None:
            return table_to_r(x)
        return array_to_r(x.to_numpy())
    if isinstance(x, pd.Categorical):
        return _column_to_r(pd.Series(x), "x", True)
    if isinstance(x, LogLik):
        return loglik_to_r(x)
    if isinstance(x, ParentsList):
        return parentslist_to_r(x)
    if isinstance(x, np.ndarray):
        return array_to_r(x)
    if x is None:
        return ri.NULL
    if isinstance(x, (bool, np.bool_, numbers.Number, str)):
        return array_to_r(np.array([x]))
    if isinstance(x, dict):
        return named_list({str(k): convert_item(v) for k, v in x.items()})
    if isinstance(x, (list, tuple)):
        if x and all(isinstance(v, str) for v in x):
            return str_vector(x)
        if x and all(isinstance(v, (bool, np.bool_, numbers.Real)) for v in x):
            return array_to_r(np.array(x))
        return ri.ListSexpVector([convert_item(v) for v in x])
    raise TypeError(f"`x`: objects of type {type(x).__name__} are not converted to R.")


_PARENTS_FIELDS = ("context", "partial", "local", "stages")  # R's order, after parents


def parentslist_to_r(pl):
    """An R ``parentslist``: per variable its parents (NULL for none), the
    independences and stages a staged tree gave it, and its levels."""
    entries = {}
    for v, entry in pl.items():
        fields = {"parents": str_vector(entry.parents) if entry.parents else ri.NULL}
        if entry.stages is not None:  # read from a tree: R lists every field
            fields.update({f: str_vector(getattr(entry, f)) for f in _PARENTS_FIELDS})
        if entry.values is not None:
            fields["values"] = str_vector(entry.values)
        entries[v] = named_list(fields)
    with r_context():
        return helpers("set_class")(named_list(entries), str_vector(["parentslist"]))


def parentslist_from_r(x):
    """A :class:`~pystagedtrees.ParentsList` from R's ``parentslist``."""
    entries = {}
    for v, item in zip(_names(x), x):
        fields = dict(zip(_names(item) or [], item))

        def strings(name):
            value = fields.get(name, ri.NULL)
            return None if value is ri.NULL else [str(s) for s in strings_from_r(value)]

        entries[v] = ParentsEntry(parents=strings("parents") or [], values=strings("values"),
                                  **{f: strings(f) or [] for f in _PARENTS_FIELDS[:3]},
                                  stages=strings("stages"))
    return ParentsList(entries)


def convert_with_options(converter, x, options):
    check_call_fits(converter, f"`options` of to_r for a {type(x).__name__}", x, **options)
    return converter(x, **options)


# -- R -> Python ----------------------------------------------------------------
def r_classes(x):
    """R's ``class(x)`` as a list of str."""
    with r_context():
        return [str(c) for c in helpers("classes")(x)]


def _names(x):
    with r_context():
        names = ri.baseenv["names"](x)
    return None if names is ri.NULL else strings_from_r(names)


def attribute(x, name):
    """An attribute of an R object, or None."""
    with r_context():
        value = helpers("attribute")(x, name)
    return None if value is ri.NULL else value


def strings_from_r(x):
    """A list of str (None for NA) from an R character vector."""
    return [None if v is ri.NA_Character else str(v) for v in x]


def floats_from_r(x):
    """A flat float64 array (R's column-major order) from an R numeric vector (NA is NaN)."""
    values = np.array(x, dtype=np.float64).ravel(order="F")
    # R's NA is a signalling NaN: arithmetic on it warns "invalid value"
    values[np.isnan(values)] = np.nan
    return values


def _atomic_values(x):
    """The values of an atomic R vector as a numpy array."""
    kind = x.typeof
    if kind == ri.RTYPES.REALSXP:
        return floats_from_r(x)
    if kind in (ri.RTYPES.INTSXP, ri.RTYPES.LGLSXP):
        raw = np.array(x, dtype=np.int64).ravel(order="F")
        missing = raw == _NA_INTEGER
        if kind == ri.RTYPES.LGLSXP:
            if missing.any():
                out = (raw != 0).astype(object)
                out[missing] = None
                return out
            return raw != 0
        if missing.any():
            return np.where(missing, np.nan, raw.astype(float))
        return raw
    if kind == ri.RTYPES.STRSXP:
        return np.array(strings_from_r(x), dtype=object)
    if kind == ri.RTYPES.CPLXSXP:
        return np.array(list(x), dtype=complex)
    raise TypeError(f"R vectors of type {kind} are not converted.")


def factor_from_r(x):
    """A pandas Categorical from an R factor (levels in order, NA as missing)."""
    codes = np.array(x, dtype=np.int64).ravel(order="F")
    codes = np.where(codes == _NA_INTEGER, -1, codes - 1)
    levels = strings_from_r(attribute(x, "levels"))
    return pd.Categorical.from_codes(codes, levels, ordered="ordered" in r_classes(x))


def _column_from_r(col):
    if "factor" in r_classes(col):
        return factor_from_r(col)
    values = _atomic_values(col)
    kind = col.typeof
    if kind == ri.RTYPES.INTSXP and values.dtype == float:
        return pd.array(np.where(np.isnan(values), None, values), dtype="Int64")
    if kind == ri.RTYPES.LGLSXP and values.dtype == object:
        return pd.array(values, dtype="boolean")
    return values


def frame_from_r(x):
    """A pandas DataFrame from an R data.frame (factors become categoricals)."""
    names = _names(x) or []
    columns = {name: _column_from_r(x[j]) for j, name in enumerate(names)}
    with r_context():
        automatic = bool(helpers("is_automatic_row_names")(x)[0])
        row_names = _atomic_values(helpers("row_names")(x))
    index = pd.RangeIndex(len(row_names)) if automatic else pd.Index(row_names)
    return pd.DataFrame(columns, index=index)


def table_from_r(x):
    """A Series of counts with a MultiIndex of levels from an R ``table``.

    Cells are listed in R's order (the first variable varies fastest), as
    :func:`pystagedtrees.datasets.titanic_table`.
    """
    dims = [int(d) for d in np.array(attribute(x, "dim"))]
    with r_context():
        dimnames = helpers("dimnames_of")(x)
    names = _names(dimnames)
    levels = [strings_from_r(d) for d in dimnames]
    codes = np.unravel_index(np.arange(int(np.prod(dims))), dims, order="F")
    index = pd.MultiIndex(levels=levels, codes=codes, names=names)
    return pd.Series(floats_from_r(x), index=index, name="Freq")


def _matrix_from_r(x, dims):
    values = _atomic_values(x).reshape(dims, order="F")
    if len(dims) != 2:
        return values
    with r_context():
        dimnames = helpers("dimnames_of")(x)
    if dimnames is ri.NULL:
        return values
    rows, cols = dimnames[0], dimnames[1]
    return pd.DataFrame(
        values,
        index=None if rows is ri.NULL else strings_from_r(rows),
        columns=None if cols is ri.NULL else strings_from_r(cols),
    )


def value_from_r(x, convert_item=None):
    """Convert an R value to Python (see :func:`pystagedtrees.compat.from_r`).

    ``convert_item`` converts the items of R lists (default: this
    function), so that a list of models converts them too.
    """
    convert_item = convert_item or value_from_r
    if x is ri.NULL:
        return None
    if not isinstance(x, ri.Sexp):
        raise TypeError(f"`x` must be an R object (from rpy2); got {type(x).__name__}.")
    classes = r_classes(x)
    if "parentslist" in classes:
        return parentslist_from_r(x)
    if "data.frame" in classes:
        return frame_from_r(x)
    if "factor" in classes:
        return factor_from_r(x)
    if "table" in classes and attribute(x, "dimnames") is not None:
        return table_from_r(x)
    if "logLik" in classes:
        return LogLik(floats_from_r(x)[0], floats_from_r(attribute(x, "df"))[0],
                      floats_from_r(attribute(x, "nobs"))[0])
    if x.typeof == ri.RTYPES.VECSXP:
        names = _names(x)
        items = [convert_item(v) for v in x]
        if names is not None and all(names) and len(set(names)) == len(names):
            return dict(zip(names, items))
        return items
    if x.typeof not in (ri.RTYPES.REALSXP, ri.RTYPES.INTSXP, ri.RTYPES.LGLSXP,
                        ri.RTYPES.STRSXP, ri.RTYPES.CPLXSXP):
        return x
    dim = attribute(x, "dim")
    if dim is not None:
        return _matrix_from_r(x, [int(d) for d in np.array(dim)])
    values = _atomic_values(x)
    names = _names(x)
    if names is not None:
        return pd.Series(values, index=names)
    if len(values) == 1:
        return values[0].item() if isinstance(values[0], np.generic) else values[0]
    return values
