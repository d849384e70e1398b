"""Encoding frames as level codes: the layout asked for changes no code."""
import numpy as np
from hypothesis import given
from strategies import categorical_frames

from pystagedtrees.base._data import encode_frame


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
