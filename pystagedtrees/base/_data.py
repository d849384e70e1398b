"""Turn pandas data into integer codes, the form every kernel works on.

Levels are strings at the API (as R factor levels are); each column becomes
int32 codes into its level list, with -1 for a missing value.  Level order
follows R's ``as.factor``: a categorical column keeps its category order
(unused categories included), numeric and boolean columns are sorted by
value (booleans named "FALSE", "TRUE" as R's logicals), and string columns
are sorted (Python's ordering, not R's locale collation: use a categorical
to impose another order).  Numbers in an object column read as in a
numeric column: whole floats as integers (1.0 is "1"), other floats refused.
"""
import copy
import numbers
import warnings
from collections.abc import Hashable

import numpy as np
import pandas as pd
from scipy import sparse

from pystagedtrees.base._dask_types import refuse_dask

__all__ = [
    "read_categorical_csv", "column_levels", "encode_column", "encode_frame", "check_frame", "check_observed",
    "feature_frame", "fit_input", "categorical_tags", "all_string_names",
]


def check_observed(data, columns, name):
    """Raise unless each of ``columns`` has a level.

    The learners refuse such columns too, but name their own argument.
    """
    empty = [
        c for c in columns
        if not (isinstance(data[c].dtype, pd.CategoricalDtype) and len(data[c].cat.categories))
        and data[c].isna().all()
    ]
    if empty:
        raise ValueError(f"`{name}` column(s) {empty} have no observed value.")


def check_frame(data, name="data", allow_no_rows=False):
    """``data`` with string column names; raise unless it is non-empty, names unique.

    Models name their variables with strings (``full`` converts), so a frame
    with integer column names must match them the same way.  With
    ``allow_no_rows`` a frame of columns without rows passes.
    """
    if not isinstance(data, pd.DataFrame):
        refuse_dask(data, name)
        raise TypeError(
            f"`{name}` must be a pandas DataFrame; got {type(data).__name__}."
        )
    if data.shape[0] == 0 and not allow_no_rows:
        raise ValueError(f"`{name}` is empty: it has no rows.")
    if data.shape[1] == 0:
        raise ValueError(f"`{name}` is empty: it has no columns.")
    if not data.columns.is_unique:
        dup = sorted({str(c) for c in data.columns[data.columns.duplicated()]})
        raise ValueError(f"`{name}` has duplicated column names: {dup}.")
    if all_string_names(data.columns):
        return data
    names = data.columns.map(str)
    if not names.is_unique:
        raise ValueError(
            f"`{name}` has column names that coincide as strings: {list(data.columns)}."
        )
    return data.set_axis(names, axis=1)


def all_string_names(names):
    """Whether every one of ``names`` (an Index) is a string.  The Index
    remembers its inferred type: no pass over the names of a frame seen before."""
    return (names.inferred_type == "string" and not names.hasnans) or all(
        isinstance(c, str) for c in names.tolist())


def check_column(value, name, data, data_name):
    """Raise unless ``value`` (argument ``name``) names a column of ``data``."""
    if not isinstance(value, str):
        raise TypeError(f"`{name}` must be a column name (str); got {value!r}.")
    if value not in data.columns:
        raise ValueError(
            f"`{name}` {value!r} is not a column of `{data_name}`; its columns are "
            f"{list(map(str, data.columns))}."
        )


def level_string(value):
    """A value's level name: ``str``, but booleans as R names a logical's
    levels (``"FALSE"``, ``"TRUE"``)."""
    if isinstance(value, (bool, np.bool_)):
        return "TRUE" if value else "FALSE"
    return str(value)


def _numeric_values_as_levels(values, column):
    """The values of a numeric column as integers, refusing non-integral floats
    (int64, or Python integers when a whole float is past int64, as 1e20)."""
    arr = np.asarray(values)
    if not arr.dtype.isnative:  # big-endian data: pandas' hash tables refuse it
        arr = arr.astype(arr.dtype.newbyteorder("="))
    if arr.dtype.kind in "iu":
        return arr  # exact: through float, ints beyond 2**53 would merge
    if arr.dtype.kind == "c":
        raise TypeError(
            f"column {column!r} holds complex numbers; a categorical variable needs "
            "integer, string, boolean or categorical values."
        )
    arr = arr.astype(float)
    bad = ~np.isfinite(arr) | (arr != np.round(arr))
    if np.any(bad):
        raise TypeError(
            f"column {column!r} holds non-categorical floats (e.g. "
            f"{float(arr[bad][0])!r}); discretize it first, "
            "e.g. with pandas.cut, or convert it to a categorical."
        )
    if np.any(np.abs(arr) >= 2.0**63):  # whole, but past int64: Python's exact integers
        return np.array([int(v) for v in arr], dtype=object)
    return arr.astype(np.int64)


def _object_strings(values, column):
    """Level strings of the (non-missing) values of an object column.

    A float reads as in a float column, 1.0 as "1" like the int 1: an int
    column with missing values comes back from ``to_numpy()`` as floats in
    an object array, and must meet the levels learnt from the ints.
    """
    if pd.api.types.infer_dtype(values, skipna=False) == "string":
        return np.asarray(values, dtype=object)  # already the level strings: no loop per cell
    out = np.array([level_string(v) for v in values], dtype=object)
    floats = np.array([
        isinstance(v, numbers.Real) and not isinstance(v, numbers.Integral) for v in values
    ], dtype=bool)
    if floats.any():
        out[floats] = _numeric_values_as_levels(values[floats], column).astype(str)
    return out


def _check_distinct_strings(values, strings, where):
    """Raise if two distinct values read as the same level string."""
    by_string = {}
    for value, string in zip(values, strings):
        other = by_string.setdefault(string, value)
        if other is not value:
            raise ValueError(
                f"{where} has values {other!r} and {value!r} that read as the "
                f"same level {string!r}; convert them to one type first."
            )


def category_string(value):
    """The level name of one value as read in a column of values: :func:`level_string`,
    but a whole float 1.0 as "1", as R's ``factor(c(1, 2))``."""
    if isinstance(value, (float, np.floating)) and np.isfinite(value) and float(value).is_integer():
        return str(int(value))
    return level_string(value)


# Level names of recently read categories, by the identity of their Index
# (immutable): a frame's columns keep their dtype's Index from call to call,
# and reading the strings back out of Arrow was most of encoding a few rows.
_CATEGORY_STRINGS = {}
_CATEGORY_STRINGS_KEPT = 1024


def category_strings(categories, column):
    """Level names of a categorical's categories (see :func:`category_string`)."""
    if not isinstance(categories, pd.Index):
        return _read_category_strings(categories, column)
    seen = _CATEGORY_STRINGS.get(id(categories))
    if seen is not None and seen[0] is categories:  # the object itself, not a reused id
        return list(seen[1])
    strings = _read_category_strings(categories, column)
    if len(_CATEGORY_STRINGS) >= _CATEGORY_STRINGS_KEPT:
        _CATEGORY_STRINGS.clear()
    _CATEGORY_STRINGS[id(categories)] = (categories, tuple(strings))
    return strings


def _read_category_strings(categories, column):
    if _holds_only_strings(categories.dtype) or (
            categories.dtype == object
            and pd.api.types.infer_dtype(categories, skipna=False) == "string"):
        # each category names itself, and categories are distinct: no loop per value
        return list(map(str, categories.to_numpy(dtype=object)))
    strings = [category_string(c) for c in categories]
    _check_distinct_strings(list(categories), strings, f"column {column!r} (its categories)")
    return strings


def _observed_values(col):
    """The non-missing values of a column, as a plain Series."""
    return col[col.notna()]


# R's read.csv reads a column of only these as logical (NA and blanks aside)
_R_LOGICAL = {"TRUE": "TRUE", "T": "TRUE", "FALSE": "FALSE", "F": "FALSE"}
_INTEGER_TEXT = r"[-+]?[0-9]+"


def _as_read_csv_types(text):
    """A column of CSV text typed as R's ``read.csv`` types it.

    All logical spellings: "FALSE"/"TRUE" strings; all integers, spaces
    around them allowed (" 5"): Int64 (so "10" sorts after "2" and "007"
    is "7"); blank (or all-space) cells are missing in both, and a column
    of blanks is all missing.  Other columns stay strings as written, a
    blank cell being the level "".
    """
    stripped = text.str.strip()
    blank = stripped == ""
    present = text[text.notna() & ~blank]
    if present.empty:  # R: a logical column of NA
        return text.mask(blank)
    if present.isin(list(_R_LOGICAL)).all():
        return text.mask(blank).map(_R_LOGICAL)
    if present.str.strip().str.fullmatch(_INTEGER_TEXT).all():
        return pd.to_numeric(stripped.mask(blank)).astype("Int64")
    return text


def read_categorical_csv(path, class_var=None, levels=None, class_arg="class_var"):
    """A CSV of categorical data as a DataFrame of categoricals, class first.

    Columns are typed as R's ``read.csv(stringsAsFactors = TRUE)`` types
    them: "NA" is missing; logical and integer columns (blank cells missing
    there) get R's levels, "FALSE"/"TRUE" and the numbers by value; in other
    columns a blank cell is the level "".  Levels are ``levels[column]``
    where given (R's, recorded with the data), else :func:`column_levels`
    of the typed column.  ``class_arg`` names the caller's argument in the
    error for a class column that is not in the file.
    """
    raw = pd.read_csv(path, dtype=str, keep_default_na=False, na_values=["NA"])
    if class_var is None:
        class_var = raw.columns[0]
    if class_var not in raw.columns:
        raise ValueError(
            f"`{class_arg}` {class_var!r} is not a column of {path}: {list(raw.columns)}."
        )
    order = [class_var] + [c for c in raw.columns if c != class_var]
    levels = levels or {}
    columns = {}
    for c in order:
        typed = _as_read_csv_types(raw[c])
        categories = levels.get(c) or column_levels(typed, c)
        codes = encode_column(typed, categories, c, name=str(path))  # a stray value is an error
        columns[c] = pd.Categorical.from_codes(codes, categories)
    return pd.DataFrame(columns)


def column_levels(col, column=None):
    """Levels of one column, in the order R's ``as.factor`` would give.

    Parameters
    ----------
    col : pandas.Series
    column : str, optional
        Name used in error messages (defaults to the Series name).

    Returns
    -------
    list of str
    """
    column = col.name if column is None else column
    if isinstance(col.dtype, pd.CategoricalDtype):
        return category_strings(col.dtype.categories, column)
    values = _observed_values(col)
    if pd.api.types.is_bool_dtype(col.dtype):
        return [level_string(v) for v in sorted(pd.unique(values.astype(bool)))]
    if pd.api.types.is_numeric_dtype(col.dtype):
        ints = _numeric_values_as_levels(values.to_numpy(), column)
        return [str(v) for v in np.unique(ints)]
    try:
        uniq = pd.unique(values.to_numpy())
    except TypeError:
        kind = next(type(v).__name__ for v in values if not isinstance(v, Hashable))
        raise TypeError(
            f"column {column!r} holds values of type {kind}, which cannot be levels: "
            "use strings, numbers or a categorical."
        ) from None
    if any(isinstance(v, (bool, np.bool_)) for v in uniq):
        # pd.unique merges True with 1 and False with 0 (equal, with equal hashes)
        number = next((v for v in values if isinstance(v, numbers.Number)
                       and not isinstance(v, (bool, np.bool_)) and v in (0, 1)), None)
        if number is not None:
            raise ValueError(
                f"column {column!r} mixes booleans with the number {number!r}, which pandas "
                "takes for the same value; convert them to one type first."
            )
    if all(isinstance(v, (bool, np.bool_)) for v in uniq):
        return [level_string(v) for v in sorted(uniq)]
    strings = _object_strings(uniq, column)
    _check_distinct_strings(uniq, strings, f"column {column!r}")
    # numpy's time deltas are integers to Python, but their strings are not numbers
    if all(isinstance(v, numbers.Real) and not isinstance(v, (bool, np.timedelta64))
           for v in uniq):
        return sorted(strings, key=int)  # numbers by value, as in a numeric column
    return sorted(strings)


def _holds_only_strings(dtype):
    """Whether a column of ``dtype`` holds strings and missing values only: pandas'
    string dtypes, and Arrow strings, plain or dictionary-encoded."""
    if isinstance(dtype, pd.StringDtype):
        return True
    if not isinstance(dtype, pd.ArrowDtype):
        return False
    import pyarrow as pa  # an ArrowDtype exists only with pyarrow installed

    arrow = dtype.pyarrow_dtype
    if pa.types.is_dictionary(arrow):
        arrow = arrow.value_type
    return pa.types.is_string(arrow) or pa.types.is_large_string(arrow)


def _distinct_value_strings(col, column):
    """The level strings of a column's distinct values, and each row's index into
    them (-1 for missing): strings are made once per distinct value."""
    if isinstance(col.dtype, pd.CategoricalDtype):
        return category_strings(col.cat.categories, column), col.cat.codes.to_numpy()
    if _holds_only_strings(col.dtype):
        # each distinct string is its own level: hashed in the column's own
        # storage (Arrow's for Parquet), no Python object made per row
        index, distinct = pd.factorize(col)
        return _object_strings(np.asarray(distinct, dtype=object), column), index
    mask = col.notna().to_numpy()
    values = col.to_numpy()[mask]
    index = np.full(len(col), -1, dtype=np.intp)
    if pd.api.types.is_bool_dtype(col.dtype):
        index[mask] = values.astype(bool)
        return ["FALSE", "TRUE"], index
    if pd.api.types.is_numeric_dtype(col.dtype):
        index[mask], distinct = pd.factorize(_numeric_values_as_levels(values, column))
        return distinct.astype(str), index
    # objects one by one: True and 1 are distinct values here, though equal to pandas
    index[mask] = np.arange(mask.sum())
    return _object_strings(values, column), index


def _is_string_dictionary(dtype):
    """Whether ``dtype`` is Arrow's dictionary of strings (Parquet's categorical
    columns read with ``dtype_backend="pyarrow"``)."""
    if not isinstance(dtype, pd.ArrowDtype):
        return False
    import pyarrow as pa  # an ArrowDtype exists only with pyarrow installed

    return pa.types.is_dictionary(dtype.pyarrow_dtype) and _holds_only_strings(dtype)


def _dictionary_codes(values, levels, codes=None):
    """int32 codes into ``levels`` of an Arrow dictionary-of-strings array (written
    into ``codes``, of its integer type, when given), or None when a row holds a value that is not a
    level (the caller's general path then says which, as for any column).

    Each chunk's indices are its rows' positions in its own small dictionary:
    the dictionary is matched to the levels once, and the rows take their codes
    from it, with no string made or hashed per row.  A missing row (a null
    index, or an index to a null entry) gets -1, as in any column.
    """
    chunks = values.__arrow_array__().chunks
    # a dict, not a pandas Index: a few entries each, matched once per chunk
    position = {level: code for code, level in enumerate(levels)}
    if codes is None:
        codes = np.empty(len(values), dtype=np.int32)
    at, dictionary, entry_codes, same, stray = 0, None, None, False, False
    for chunk in chunks:
        if dictionary is None or not chunk.dictionary.equals(dictionary):
            dictionary = chunk.dictionary
            # -1 for a missing entry, -2 for a value that is not a level
            entry_codes = np.array([-1 if entry is None else position.get(entry, -2)
                                    for entry in dictionary.to_pylist()], dtype=codes.dtype)
            # the dictionary is the levels in order (a file written from a
            # categorical of them): the indices are the codes, only widened
            same = np.array_equal(entry_codes, np.arange(len(entry_codes)))
        indices = chunk.indices
        out = codes[at:at + len(chunk)]
        raw = indices.fill_null(0).to_numpy() if indices.null_count else indices.to_numpy()
        if same:
            out[:] = raw
        else:  # indices are in range in a valid array: "wrap" skips numpy's checked copy
            np.take(entry_codes, raw, out=out, mode="wrap")
        if indices.null_count:
            out[~indices.is_valid().to_numpy(zero_copy_only=False)] = -1
        # a pass over the rows only when the dictionary holds a value that is not a level
        stray = stray or (not same and (entry_codes == -2).any() and (out == -2).any())
        at += len(chunk)
    return None if stray else codes


def encode_column(col, levels, column=None, name=None, unknown_as=None, unknown_means="",
                  advice="", native=False, out=None):
    """Codes of a column against a given list of levels.

    Parameters
    ----------
    col : pandas.Series
    levels : sequence of str
        The known levels; a value not among them is an error, unless
        ``unknown_as`` is given.
    column : str, optional
        Name used in error messages.
    name : str, optional
        The argument ``col`` comes from, also named in error messages.
    unknown_as : int, optional
        The code of values that are not levels, with a warning that says
        what they mean (``unknown_means``; None: no warning).
    advice : str, optional
        Appended to the error about a value that is not a level.
    native : bool, default False
        Give a Categorical's own codes (int8 up to 127 levels) as they are,
        without a widened copy.
    out : numpy.ndarray of int32 (or int8, for at most 127 levels), optional
        Where to write the codes (a column of a code matrix), returned.

    Returns
    -------
    numpy.ndarray of int32 (or a Categorical's own integer dtype with ``native``)
        The 0-based level codes, -1 where the value is missing (``out`` when given).
    """
    column = col.name if column is None else column
    levels = [str(lev) for lev in levels]
    try:
        if isinstance(col.dtype, pd.CategoricalDtype) and category_strings(
                col.dtype.categories, column) == levels:
            # the Categorical's own codes: no Series built (predict on few rows)
            return _written(col.array.codes, out, native)
        if _is_string_dictionary(col.dtype):
            # written straight into ``out``: no column of codes copied in after
            codes = _dictionary_codes(col.array, levels, out)
            if codes is not None:
                return codes
        strings, index = _distinct_value_strings(col, column)
    except (TypeError, ValueError) as exc:  # a column that cannot be levels: name the argument
        if not name:
            raise
        raise type(exc)(f"`{name}`: {exc}") from None
    known = np.append(pd.Index(levels).get_indexer(strings), -1).astype(np.int32)
    codes = known[index]  # index -1 picks the trailing -1: missing
    unknown = (codes < 0) & (index >= 0)
    if unknown.any():
        bad = str(strings[index[np.flatnonzero(unknown)[0]]])  # a plain repr, not np.str_(...)
        where = f"`{name}`: column {column!r}" if name else f"column {column!r}"
        message = f"{where} has value {bad!r} that is not a level of the model; known levels: {levels}"
        if unknown_as is None:
            raise ValueError(f"{message}{'; ' + advice if advice else ''}.")
        if unknown_means is not None:
            warnings.warn(f"{message}; {unknown_means}", stacklevel=4)
        codes[unknown] = unknown_as
    return _written(codes, out, keep=True)


def _written(codes, out, keep=False):
    """``codes`` copied into ``out`` (int32, or int8 of few levels) when given, else ``codes`` themselves
    with ``keep``, else an int32 copy (never a Categorical's own array to edit)."""
    if out is not None:
        out[:] = codes
        return out
    return codes if keep else codes.astype(np.int32)


def _column_arrays(data, columns):
    """The values of each of ``columns`` (a Categorical for a categorical column),
    read-only.  Through pandas' own iterator over its column arrays where it
    has one: a Series per column costs about 20 microseconds, most of
    encoding a few rows."""
    every = getattr(data, "_iter_column_arrays", None)
    if every is None:  # a pandas without it: the public way
        return [data[c].array for c in columns]
    by_name = dict(zip(data.columns.tolist(), every()))
    return [by_name[c] for c in columns]


def encode_frame(data, columns=None, levels=None, name="data", order="C", dtype=np.int32):
    """Encode the columns of a DataFrame as an int32 code matrix.

    Parameters
    ----------
    data : pandas.DataFrame
    columns : sequence of str, optional
        The columns to encode, in this order (default: all, in data order).
    levels : dict of str to list of str, optional
        Known levels per column; when given, values outside them are an error
        and the codes refer to them.  Otherwise the levels are read from the
        data (see :func:`column_levels`).
    name : str
        Argument name used in error messages.
    order : {"C", "F"}
        Memory layout of the codes; "F" (a column after another) is what the
        counting kernels read, written without a strided copy.
    dtype : numpy integer dtype, default int32
        The codes' type with ``order="F"``; ``numpy.int8`` when every column
        has at most 127 levels (the caller's check) takes a quarter of the memory.

    Returns
    -------
    codes : numpy.ndarray of int32 (or ``dtype``), shape (n_rows, n_columns), in ``order``
        Level codes, -1 for missing values.
    levels : dict of str to list of str
        The levels of each encoded column, in column order.
    """
    data = check_frame(data, name)
    if columns is None:
        columns = data.columns.tolist()  # (list() reads Arrow-backed names one by one)
    else:
        columns = list(columns)
        unknown = [c for c in columns if c not in data.columns]
        if unknown:
            raise ValueError(
                f"`{name}` has no column(s) {unknown}; its columns are "
                f"{list(data.columns)}."
            )
    # "F": each column's codes written straight into its column of the matrix
    matrix = (np.empty((data.shape[0], len(columns)), dtype=dtype, order="F")
              if order == "F" else None)
    out_levels, coded = {}, []
    for j, (column, values) in enumerate(zip(columns, _column_arrays(data, columns))):
        out = None if matrix is None else matrix[:, j]
        if isinstance(values, pd.Categorical):
            # its own codes when its categories are the levels: no Series built
            try:
                own = category_strings(values.categories, column)
            except (TypeError, ValueError) as exc:  # the column's fault: say whose column
                raise type(exc)(f"`{name}`: {exc}") from None
            if levels is None or column not in levels or own == list(map(str, levels[column])):
                out_levels[column] = own
                coded.append(_written(values.codes, out, keep=True))
                continue
        col = data[column]
        if levels is None or column not in levels:
            try:
                col_levels = column_levels(col, column)
            except (TypeError, ValueError) as exc:  # the column's fault: say whose column
                raise type(exc)(f"`{name}`: {exc}") from None
            out_levels[column] = col_levels
            if isinstance(col.dtype, pd.CategoricalDtype):  # levels of its own categories
                coded.append(_written(col.array.codes, out, keep=True))
                continue
        else:
            col_levels = [str(lev) for lev in levels[column]]
        out_levels[column] = col_levels
        coded.append(encode_column(col, col_levels, column, name, out=out))
    if matrix is not None:
        return matrix, out_levels
    if coded:  # the columns side by side in one pass, not one strided copy each
        return np.stack(coded, axis=1).astype(np.int32, copy=False), out_levels
    return np.empty((data.shape[0], 0), dtype=np.int32), out_levels


def feature_frame(X, estimator):
    """An estimator's features as a DataFrame with string column names.

    A DataFrame keeps its columns; a 2-D array gets columns ``x0, x1, ...``.
    Sparse and complex input are refused (the features are categorical).
    """
    refuse_dask(X, "X", estimator)
    if sparse.issparse(X):
        raise TypeError(
            f"{estimator} does not accept sparse input: pass a dense array or a "
            "DataFrame of categorical columns."
        )
    if isinstance(X, pd.DataFrame):
        frame = X.copy()
        frame.columns = [str(c) for c in X.columns]
    else:
        arr = np.asarray(X)
        if arr.ndim != 2:
            raise ValueError(
                f"Expected a 2D array of features, got an array of shape {arr.shape}. "
                "Reshape your data with X.reshape(-1, 1) for a single feature or "
                "X.reshape(1, -1) for a single sample."
            )
        if np.iscomplexobj(arr):
            raise ValueError("Complex data not supported.")
        frame = pd.DataFrame({f"x{j}": arr[:, j] for j in range(arr.shape[1])})
    if frame.shape[1] and not frame.columns.is_unique:
        raise ValueError("`X` has duplicated column names.")
    return frame


def fit_input(estimator, X, y):
    """Checked ``fit`` input of a classifier: ``(features, classes, class codes)``.

    Records ``n_features_in_``/``feature_names_in_`` on ``estimator`` as
    scikit-learn does; the class codes index the sorted ``classes``.  The
    features come back as categorical columns, read once here, so that every
    error about their values names `X`.
    """
    from sklearn.utils.multiclass import check_classification_targets
    from sklearn.utils.validation import column_or_1d, validate_data

    frame = feature_frame(X, type(estimator).__name__).reset_index(drop=True)
    validate_data(estimator, X, reset=True, skip_check_array=True)
    if frame.shape[1] == 0:
        raise ValueError(
            f"`X` has 0 feature(s) (shape=({frame.shape[0]}, 0)) while a minimum of 1 "
            "is required."
        )
    if frame.shape[0] == 0:
        raise ValueError(
            f"`X` has 0 sample(s) (shape=(0, {frame.shape[1]})) while a minimum of 1 "
            "is required."
        )
    raw = y
    shape = getattr(y, "shape", ())  # read, not computed: array-likes may refuse numpy calls
    if len(shape) == 2 and 0 in shape:  # numpy's own error would not say which array
        raise ValueError(f"`y` must be one column of class labels; got shape {shape}.")
    y = column_or_1d(y, warn=True)
    if len(y) != frame.shape[0]:
        raise ValueError(
            f"`X` and `y` have inconsistent numbers of samples: {frame.shape[0]} and {len(y)}."
        )
    if pd.isna(y).any():
        raise ValueError("`y` has missing values: drop those rows or give them a class.")
    # column_or_1d turns [1, "1"] into two strings "1": refuse it, as in a column of X
    uniq = pd.unique(np.asarray(raw, dtype=object).ravel())
    _check_distinct_strings(uniq, [str(v) for v in uniq], "`y`")
    try:  # the classes must sort; a mix of strings and numbers does not
        check_classification_targets(y)
        classes, codes = np.unique(y, return_inverse=True)
    except TypeError:
        kinds = sorted({type(v).__name__ for v in uniq})
        raise TypeError(f"`y` mixes values of types {kinds}: give its classes one type.") from None
    check_observed(frame, frame.columns, "X")
    features, levels = encode_frame(frame, name="X")
    frame = pd.DataFrame({c: pd.Categorical.from_codes(features[:, j], levels[c])
                          for j, c in enumerate(frame.columns)})
    return frame, classes, codes


def check_sample_weight(sample_weight, n_samples):
    """``fit``'s ``sample_weight`` as float64 weights, one per row of ``X``, or None.

    A number gives every row that weight.  Weights must be finite, at least 0
    and not all 0.
    """
    if sample_weight is None:
        return None
    if sparse.issparse(sample_weight):
        raise TypeError("`sample_weight` must be a dense array of numbers, not a sparse matrix.")
    weights = np.asarray(sample_weight)
    if weights.ndim == 0:
        weights = np.full(n_samples, weights.item())
    if weights.dtype.kind not in "iuf":
        raise TypeError(
            f"`sample_weight` must hold real numbers; got values of dtype {weights.dtype}."
        )
    if weights.shape != (n_samples,):
        raise ValueError(
            f"`sample_weight` must have one weight per row of `X`, shape ({n_samples},); "
            f"got shape {weights.shape}."
        )
    weights = np.ascontiguousarray(weights, dtype=np.float64)
    if not np.isfinite(weights).all() or (weights < 0).any():
        raise ValueError("`sample_weight` must hold finite weights >= 0.")
    with np.errstate(over="ignore"):  # an overflowing sum is refused below
        total = weights.sum()
    if total == 0:
        raise ValueError("`sample_weight` must have a non-zero weight; all weights are zero.")
    if not np.isfinite(total):
        raise ValueError("`sample_weight` is too large: the weights sum past the largest float.")
    return weights


HANDLE_UNKNOWN = ("error", "missing")


def known_levels_frame(frame, levels, handle_unknown):
    """An estimator's features, those in ``levels`` as categoricals over them.

    ``levels`` maps the columns the model reads to the levels it was trained
    on.  A value that is not one of them is an error that names the
    ``handle_unknown`` option, or with ``handle_unknown="missing"`` a missing
    value (summed out at prediction, as scikit-learn's histogram gradient
    boosting treats unknown categories).
    """
    frame = frame.copy()
    for column, known in levels.items():
        codes = encode_column(
            frame[column], known, column, "X",
            unknown_as=-1 if handle_unknown == "missing" else None, unknown_means=None,
            advice="pass handle_unknown='missing' to treat such values as missing",
        )
        frame[column] = pd.Categorical.from_codes(codes, [str(lev) for lev in known])
    return frame


def own_copy(data):
    """A copy of the data a model keeps (``data_raw``), so that later edits of
    the caller's object do not reach the model (R's copy semantics)."""
    if isinstance(data, (pd.DataFrame, pd.Series, np.ndarray)):
        return data.copy()
    return copy.deepcopy(data)


def class_column_name(features):
    """The name an estimator gives its class inside the model: ``"__class__"``,
    with more leading underscores while a feature has that name."""
    name = "__class__"
    while name in features:
        name = "_" + name
    return name


def categorical_tags(tags, non_deterministic):
    """scikit-learn tags of the categorical classifiers (strings, categories and NaN accepted)."""
    tags.input_tags.categorical = True
    tags.input_tags.string = True
    tags.input_tags.allow_nan = True
    tags.non_deterministic = non_deterministic
    return tags
