"""Encoding frames as level codes: the layout asked for changes no code, and
string columns of any storage encode as object columns of the same strings."""
import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import categorical_frames

from pystagedtrees.base._data import category_strings, encode_column, encode_frame


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



@settings(deadline=None)
@given(frame=categorical_frames(), reorder=st.booleans(), data=st.data())
def test_codes_without_pandas_column_iterator_are_the_same(frame, reorder, data):
    """The columns read through pandas' private array iterator and through one
    Series each give the same codes and levels, known levels or not, in any
    column order (the iterator is absent from some pandas)."""
    columns = data.draw(st.permutations(list(frame.columns))) if reorder else None
    # the same levels, and for a column drawn here its levels in another order
    flipped = data.draw(st.sets(st.sampled_from(list(frame.columns))))
    levels = {v: list(frame[v].cat.categories)[::-1 if v in flipped else 1] for v in frame}
    fast = [encode_frame(frame, columns), encode_frame(frame, columns, levels=levels)]
    with pytest.MonkeyPatch.context() as patch:
        patch.delattr(pd.DataFrame, "_iter_column_arrays")
        slow = [encode_frame(frame, columns), encode_frame(frame, columns, levels=levels)]
    assert hasattr(pd.DataFrame, "_iter_column_arrays")  # the fast reading was tried
    for (got, got_levels), (want, want_levels) in zip(fast, slow):
        np.testing.assert_array_equal(got, want)
        assert got_levels == want_levels
    # and the codes index the levels asked for, value by value
    order = list(frame.columns) if columns is None else columns
    for got, _ in (fast[1], slow[1]):
        for j, v in enumerate(order):
            want = [-1 if pd.isna(x) else levels[v].index(x) for x in frame[v]]
            assert got[:, j].tolist() == want


def test_category_strings_are_read_once_per_index_and_handed_out_as_copies():
    categories = pd.Index(["b", "a"])
    first = category_strings(categories, "x")
    first.append("changed by the caller")
    assert category_strings(categories, "x") == ["b", "a"]
    # an equal but distinct index, and a list (mutable: never remembered)
    assert category_strings(pd.Index(["b", "a"]), "x") == ["b", "a"]
    names = ["b", "a"]
    assert category_strings(pd.Index(names), "x") == ["b", "a"]
    assert category_strings(pd.Index([1.0, 2.0]), "x") == ["1", "2"]

STRING_DTYPES = ["str", "string[python]", "string[pyarrow]",
                 pd.ArrowDtype(pa.string()), pd.ArrowDtype(pa.large_string()),
                 pd.ArrowDtype(pa.dictionary(pa.int32(), pa.string()))]


@pytest.mark.parametrize("dtype", STRING_DTYPES, ids=str)
@settings(deadline=None)  # three encodings of each frame, on a shared machine
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
    # written column by column into the column-major matrix: the same codes
    columns, _ = encode_frame(strings, levels=levels, order="F")
    assert columns.flags.f_contiguous and columns.dtype == np.int32
    np.testing.assert_array_equal(columns, expected)


@pytest.mark.parametrize("dtype", [*STRING_DTYPES, "category"], ids=str)
def test_codes_written_into_a_given_array_are_the_codes_returned(dtype):
    column = pd.Series(["b", None, "a", "b", "zz"]).astype(dtype)
    matrix = np.full((5, 2), 7, dtype=np.int32, order="F")
    got = encode_column(column.iloc[:4], ["a", "b"], "X", out=matrix[:4, 1])
    assert np.shares_memory(got, matrix)
    np.testing.assert_array_equal(matrix[:4, 1], [1, -1, 0, 1])
    np.testing.assert_array_equal(matrix[:, 0], 7)  # nothing written elsewhere
    # a value that is not a level: the general path writes the codes it gives
    with pytest.warns(UserWarning, match="'zz'"):
        got = encode_column(column, ["a", "b"], "X", unknown_as=-1, out=matrix[:, 0])
    np.testing.assert_array_equal(matrix[:, 0], [1, -1, 0, 1, -1])


@pytest.mark.parametrize("dtype", STRING_DTYPES, ids=str)
def test_a_string_that_is_not_a_level_is_refused(dtype):
    column = pd.Series(["a", None, "zz", "b"]).astype(dtype)
    codes = encode_column(column.iloc[:2], ["a", "b"], "X")
    np.testing.assert_array_equal(codes, [0, -1])
    with pytest.raises(ValueError, match="column 'X' has value 'zz' that is not a level"):
        encode_column(column, ["a", "b"], "X")


@settings(deadline=None)
@given(data=st.data(), n_chunks=st.integers(1, 4))
def test_arrow_dictionary_chunks_encode_value_by_value(data, n_chunks):
    """A chunked Arrow dictionary column (as Parquet reads a categorical column
    with ``dtype_backend="pyarrow"``) encodes as its values would: each chunk's
    own dictionary, in any order, with missing entries and missing rows, unused
    entries that are not levels, and int8 or int32 indices."""
    levels = ["a", "b", "c"]
    index_type = data.draw(st.sampled_from([pa.int8(), pa.int32()]))
    chunks, values = [], []
    for _ in range(n_chunks):
        entries = data.draw(st.lists(st.sampled_from(levels + ["zz", None]), min_size=1,
                                     max_size=5, unique=True))
        usable = [i for i, e in enumerate(entries) if e != "zz"]
        picks = data.draw(st.lists(st.sampled_from(usable + [None]) if usable else st.none(),
                                   max_size=8))
        chunks.append(pa.DictionaryArray.from_arrays(pa.array(picks, index_type),
                                                     pa.array(entries, pa.string())))
        values += [None if i is None else entries[i] for i in picks]
    column = pd.Series(pd.arrays.ArrowExtensionArray(pa.chunked_array(
        chunks, pa.dictionary(index_type, pa.string()))))
    order = data.draw(st.permutations(levels))
    codes = encode_column(column, order, "X")
    assert codes.dtype == np.int32
    assert codes.tolist() == [-1 if v is None else order.index(v) for v in values]
    out = np.full(len(values), 9, dtype=np.int32)
    assert encode_column(column, order, "X", out=out) is out
    np.testing.assert_array_equal(out, codes)


def test_an_arrow_dictionary_value_that_is_not_a_level_is_refused_as_in_any_column():
    chunks = [pa.DictionaryArray.from_arrays(pa.array(i, pa.int8()), pa.array(d))
              for i, d in (([0, 1], ["a", "b"]), ([0, None], ["b", "zz"]), ([1], ["b", "zz"]))]
    column = pd.Series(pd.arrays.ArrowExtensionArray(pa.chunked_array(chunks)))
    np.testing.assert_array_equal(encode_column(column.iloc[:4], ["a", "b"], "X"),
                                  [0, 1, 1, -1])  # "zz" is in a dictionary, no row's value
    with pytest.raises(ValueError, match="`data`: column 'X' has value 'zz' that is not a "
                                         "level of the model; known levels: \\['a', 'b'\\]"):
        encode_column(column, ["a", "b"], "X", "data")
    with pytest.warns(UserWarning, match="'zz'"):
        codes = encode_column(column, ["a", "b"], "X", unknown_as=-1,
                              unknown_means="read as missing")
    np.testing.assert_array_equal(codes, [0, 1, 1, -1, -1])
