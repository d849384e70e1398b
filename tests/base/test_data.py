"""Encoding frames as level codes: the layout asked for changes no code, and
string columns of any storage encode as object columns of the same strings."""
import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given
from strategies import categorical_frames

from pystagedtrees.base._data import encode_column, encode_frame


@given(categorical_frames())
def test_column_major_codes_are_the_row_major_codes(frame):
    rows, levels = encode_frame(frame)
    columns, same_levels = encode_frame(frame, order="F")
    assert rows.flags.c_contiguous and columns.flags.f_contiguous
    assert same_levels == levels
    np.testing.assert_array_equal(columns, rows)
    # each column's codes are the categorical's own (-1 for missing)
    for j, v in enumerate(frame.columns):
        np.testing.assert_array_equal(columns[:, j], frame[v].cat.codes.to_numpy())


STRING_DTYPES = ["str", "string[python]", "string[pyarrow]",
                 pd.ArrowDtype(pa.string()), pd.ArrowDtype(pa.large_string()),
                 pd.ArrowDtype(pa.dictionary(pa.int32(), pa.string()))]


@pytest.mark.parametrize("dtype", STRING_DTYPES, ids=str)
@given(frame=categorical_frames())
def test_string_columns_encode_as_object_columns(dtype, frame):
    objects = frame.astype(object).where(frame.notna(), None)
    strings = objects.astype(dtype)
    assert all(isinstance(strings[v].dtype, (pd.StringDtype, pd.ArrowDtype)) for v in strings)
    levels = {v: list(frame[v].cat.categories) for v in frame.columns}
    expected, _ = encode_frame(objects, levels=levels)
    got, _ = encode_frame(strings, levels=levels)
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(got, encode_frame(frame)[0])  # the categorical codes


@pytest.mark.parametrize("dtype", STRING_DTYPES, ids=str)
def test_a_string_that_is_not_a_level_is_refused(dtype):
    column = pd.Series(["a", None, "zz", "b"]).astype(dtype)
    codes = encode_column(column.iloc[:2], ["a", "b"], "X")
    np.testing.assert_array_equal(codes, [0, -1])
    with pytest.raises(ValueError, match="column 'X' has value 'zz' that is not a level"):
        encode_column(column, ["a", "b"], "X")
