"""Contingency tables of a staged tree: counts of each level per situation.

Only situations that data reach are stored (at most one per data row and
variable), so counting costs time and memory linear in the data, whatever
the size of the full tree.  Missing values count as in R: a row counts for
the variables before its first missing value.  A Dask frame's partitions
are counted one by one and their tables summed.
"""
from __future__ import annotations

import numbers
from typing import TYPE_CHECKING, Literal

import numpy as np
import pandas as pd

from pystagedtrees.base._dask import dask_levels, is_dask_frame, refuse_dask, tree_reduce
from pystagedtrees.base._data import category_strings, check_frame, encode_frame
from pystagedtrees.base._validation import check_choice
from pystagedtrees.kernels._counts import (
    count_dense_unit_rows,
    count_dense_variable,
    count_in_path_order,
    number_occupied_cells,
    occupied_situations,
    split_by_level,
)
from pystagedtrees.model._sevt import Sevt, check_sevt, dense_ctables
from pystagedtrees.model._trie import MAX_SITUATIONS, SituationTrie, first_deep_variable

if TYPE_CHECKING:
    import dask.dataframe as dd

__all__ = ["make_ctables", "read_data", "count_situations", "count_paths", "count_dask_frame", "column_margins"]


def check_order(order, available, name="order"):
    if order is None:
        return list(available)
    if isinstance(order, (str, dict, set, pd.DataFrame)) or not hasattr(order, "__iter__"):
        raise TypeError(f"`{name}` must be a list of variable names; got {order!r}.")
    order = [str(v) if not isinstance(v, str) else v for v in order]
    if not order:
        raise ValueError(f"`{name}` is empty: it must name the variables to use.")
    unknown = [v for v in order if v not in available]
    if unknown:
        raise ValueError(
            f"`{name}` names unknown variable(s) {unknown}; the data has "
            f"{list(available)}."
        )
    if len(set(order)) != len(order):
        raise ValueError(f"`{name}` lists a variable twice: {order}.")
    return order


def read_data(data, order=None, levels=None, name="data"):
    """Encode a DataFrame or a table of counts.

    Parameters
    ----------
    data : pandas.DataFrame or pandas.Series
        Raw rows, or a table of counts: a Series of non-negative counts whose
        (Multi)Index holds the variables' levels (``index.names`` are the
        variable names; ``index.levels`` give the level order).
    order : list of str, optional
        Variables to use, in this order.
    levels : dict, optional
        Known levels (a model's tree); values outside them are an error.

    Returns
    -------
    codes : ndarray of int32, shape (n, p), Fortran order
    levels : dict of str to list of str
    weights : ndarray of float64, shape (n,)
    """
    if isinstance(data, pd.Series):
        return _read_table(data, order, levels, name)
    if not isinstance(data, pd.DataFrame):
        refuse_dask(data, name)
        raise TypeError(
            f"`{name}` must be a pandas DataFrame or a pandas Series of counts "
            f"indexed by levels; got {type(data).__name__}."
        )
    data = check_frame(data, name)
    if levels is not None:
        missing = [v for v in order if v not in data.columns]
        if missing:
            raise ValueError(
                f"`{name}` lacks variable(s) {missing} of the model; its columns are "
                f"{list(data.columns)}."
            )
    order = check_order(order, list(data.columns))
    codes, lev = encode_frame(data, columns=order, levels=levels, name=name, order="F")
    return codes, lev, np.ones(codes.shape[0])


def _read_table(table, order, levels, name):
    index = table.index
    if not isinstance(index, pd.MultiIndex):
        index = pd.MultiIndex.from_arrays([index], names=[index.name])
    names = list(index.names)
    if any(n is None for n in names) or len(set(names)) != len(names):
        raise ValueError(
            f"`{name}`: a table of counts needs a (Multi)Index with distinct "
            f"variable names; got names {names}."
        )
    numeric = (pd.api.types.is_numeric_dtype(table) and not pd.api.types.is_bool_dtype(table)
               and not pd.api.types.is_complex_dtype(table))
    if not numeric and not all(isinstance(c, numbers.Real) and not isinstance(c, (bool, np.bool_))
                               for c in table):
        raise TypeError(f"`{name}`: a table of counts must hold real numbers; got values of "
                        f"dtype {table.dtype}.")
    try:  # object columns (Fraction, int past int64) one by one
        counts = (pd.to_numeric(table, errors="coerce").to_numpy(dtype=float) if numeric
                  else np.array([float(c) for c in table], dtype=float))
    except OverflowError:
        raise ValueError(f"`{name}` must hold finite non-negative counts; one is past the "
                         "largest float.") from None
    if len(counts) == 0:
        raise ValueError(f"`{name}` is empty: the table has no cells.")
    if not np.isfinite(counts).all() or (counts < 0).any():
        raise ValueError(f"`{name}` must hold finite non-negative counts.")
    order = check_order(order, names)
    frame = pd.DataFrame(
        {
            # levels named as a data frame's column names them (1.0 -> "1", True -> "TRUE")
            v: pd.Categorical.from_codes(
                index.codes[names.index(v)], category_strings(index.levels[names.index(v)], v)
            )
            for v in order
        }
    )
    codes, lev = encode_frame(frame, levels=levels, name=name)
    return np.asfortranarray(codes), lev, counts


def count_situations(codes, n_levels, weights, trie=None):
    """Counts of each level in each observed situation, for every variable.

    Parameters
    ----------
    codes : ndarray of int32, shape (n, p)
        Level codes in tree order, -1 for missing.
    n_levels : sequence of int
    weights : ndarray of float64, shape (n,)
    trie : SituationTrie, optional
        The numbering of the deep variables' situations (a model's); needed
        when the tree has deep variables.

    Returns
    -------
    situations : list of ndarray of int64
        Per variable, the sorted indices of the situations with a positive
        count (the root always has its single situation 0); numbers in
        ``trie`` for deep variables, all situations outside it counted as
        its one outside number.
    counts : list of ndarray of float64, shape (m_i, k_i)
    """
    situations, counts, own = count_paths(codes, n_levels, weights)
    if own is None:
        return situations, counts
    if trie is None:  # (sevt_add and Dask input refuse such trees first)
        raise ValueError(f"the tree has more than {MAX_SITUATIONS} situations per variable from "
                         f"its variable {own.first + 1} on, numbered only by a model's paths; "
                         "build the model with full() or indep().")
    if trie.same_paths(own):  # the data's paths are the model's: numbered alike
        return situations, counts
    translation = trie.translation(own)
    for i in range(trie.first, len(situations)):
        ours = translation[i - trie.first][situations[i]]
        # both numberings follow the paths' order: the situations in our trie
        # keep theirs, and all the others share our last number
        outside = ours == trie.n_nodes(i)
        if outside.any():
            inside = ~outside
            situations[i] = np.append(ours[inside], trie.n_nodes(i))
            counts[i] = np.vstack([counts[i][inside], counts[i][outside].sum(axis=0)])
        else:
            situations[i] = ours
    return situations, counts


def count_paths(codes, n_levels, weights):
    """:func:`count_situations` numbering the deep variables' situations by
    the trie of the data's own paths, which it returns third (None when no
    variable is deep)."""
    p = codes.shape[1]
    n_levels = [int(k) for k in n_levels]
    if fits_dense(n_levels):  # a small tree: no rows to put in path order
        return (*count_dense(codes, n_levels, weights), None)
    first = first_deep_variable(n_levels)
    weights = np.ascontiguousarray(weights, dtype=np.float64)
    # the variables whose tables fit dense are counted so (a pass over each
    # column, no splitting of rows); the rows then start in the order of
    # their situation at the next one, where the path-order counting goes on
    start = dense_prefix(n_levels)
    situations, counts, key = _count_dense(codes[:, :start], n_levels[:start], weights)
    # the rows still in the tree, kept in the order of their situations
    # (group): the tables are then written in order, not at random
    row, group, sit = _rows_by_situation(key)
    if start == 0:  # the root's one situation, reached or not
        sit = np.zeros(1, dtype=np.int64)
    n_in = len(row)
    # each variable's split is written into the other of two sets of arrays
    # (fresh memory for every variable would cost its page faults)
    current = (row, group, weights[row])
    spare = tuple(np.empty_like(a) for a in current)
    code_buffer, level_start = np.empty(n_in, dtype=np.int32), np.empty(0, dtype=np.int64)
    anchor, children = None, []
    for i in range(start, p):
        k = n_levels[i]
        column = np.ascontiguousarray(codes[:, i])
        table = np.zeros((len(sit), k))
        row, group, weight = (a[:n_in] for a in current)
        code_of = code_buffer[:n_in]
        count_in_path_order(row, group, column, weight, table, code_of)
        next_deep = first is not None and first <= i + 1 < p
        # the cells' ids, and one more row: the trie's outside, if the next is deep
        ids = np.empty(table.size + k, dtype=np.int64)
        cell_id, reached = ids[:table.size], np.empty(len(sit), dtype=np.uint8)
        # a deep variable's rows never reach an empty cell: numbering those
        # the outside's (one past the occupied) is the trie's need only
        n_cells = number_occupied_cells(table, cell_id, next_deep, reached)
        keep = reached.view(bool)
        if i == 0 or keep.all():  # (no copies of the usual case: every one reached counts)
            situations.append(sit)
            counts.append(table)
        else:
            situations.append(sit[keep])
            counts.append(table[keep])
        if i + 1 < p:
            if len(level_start) < k:
                level_start = np.empty(k, dtype=np.int64)
            n_in = split_by_level(row, group, weight, code_of, cell_id, k, level_start,
                                  *(a[:n_in] for a in spare))
            current, spare = spare, current
            if next_deep:
                # a deep variable: its situations numbered by their place, in
                # path order; the children of this variable's say which (an
                # empty cell, or the outside's, leads outside the trie)
                if i + 1 == first:
                    anchor = sit
                ids[table.size:] = n_cells
                children.append(ids.reshape(len(sit) + 1, k))
                sit = np.arange(n_cells, dtype=np.int64)
            else:
                next_sit = np.empty(n_cells, dtype=np.int64)
                occupied_situations(table, sit, next_sit)
                sit = next_sit
    trie = None if first is None else SituationTrie(first, anchor, children)
    return situations, counts, trie


# A Dask frame is counted partition by partition: a partition's tables are
# what count_situations gives for its rows (sparse: the situations it reaches),
# plus each variable's margin and its row count; the tables of partitions add
# up situation by situation, in a tree, and only they are ever gathered.

FEW_LEVELS = 8
"""A column of at most this many levels has its margin counted by a comparison
per level (some 0.2 ms per million rows each), not ``bincount`` (2.4 ms: it
widens the codes to a copy first)."""


def column_margins(codes, n_levels):
    """Counts of each level of each column of ``codes`` (missing values skipped)."""
    return [_level_counts(codes[:, i], int(k)) for i, k in enumerate(n_levels)]


def _level_counts(column, k):
    if k <= FEW_LEVELS:
        return np.array([np.count_nonzero(column == level) for level in range(k)], dtype=float)
    # shifted by one, the missing values (-1) count in a first cell, dropped
    return np.bincount(column + 1, minlength=k + 1)[1:].astype(float)


ROWS_PER_BLOCK = 1 << 20
"""A partition is counted this many rows at a time: the counting's working arrays
(codes, situation ids, weights: some 8 bytes per row and variable) stay this small
however many rows Dask reads into one partition (it joins small files)."""


def _count_partition(part, tree, name, complete_only, margins):
    """The tables of one partition: ``(situations, counts, margins, n_rows)`` (margins
    None unless asked for), or None for an empty partition."""
    return _combine([_count_block(part.iloc[start:start + ROWS_PER_BLOCK], tree, name,
                                  complete_only, margins)
                     for start in range(0, len(part), ROWS_PER_BLOCK)])


DENSE_CELLS = 1 << 20
"""Rows are counted into tables of every situation of their tree (see
:func:`count_dense`) when those have at most this many cells in all (8 MB),
else by the situations the rows reach, in path order."""


def fits_dense(n_levels):
    """Whether the tables of every situation of a tree of these numbers of
    levels have at most :data:`DENSE_CELLS` cells in all."""
    return dense_prefix(n_levels) == len(n_levels)


def dense_prefix(n_levels):
    """How many of the first variables' tables of every situation have at
    most :data:`DENSE_CELLS` cells in all."""
    cells = np.cumsum(np.cumprod(np.asarray(n_levels, dtype=float)))
    return int(np.searchsorted(cells, DENSE_CELLS, side="right"))


def count_dense(codes, n_levels, weights):
    """:func:`count_situations` of a tree that :func:`fits_dense` (``codes``
    n x p, any memory order), through a table of every situation of each
    variable: a pass over each column in row order, with no sorting of rows
    (the rows' situations in mixed radix).  Each cell adds its rows in their
    order, as the path-order counting does: the same sums."""
    return _count_dense(codes, n_levels, np.ascontiguousarray(weights, dtype=np.float64))[:2]


def _count_dense(codes, n_levels, weights):
    """:func:`count_dense` of the first ``len(n_levels)`` columns of ``codes``,
    and each row's situation one variable further down (mixed radix; -1 for
    a row that left the tree: a missing value, or no weight)."""
    situation = np.zeros(codes.shape[0], dtype=np.int64)
    situation[weights <= 0] = -1  # rows of no weight are not in the tree
    tables, m = [], 1
    for i, k in enumerate(n_levels):
        table = np.zeros((m, int(k)))
        count_dense_variable(np.ascontiguousarray(codes[:, i]), weights, situation, table)
        tables.append(table)
        m *= int(k)
    return (*_reached_situations(tables), situation)


def _reached_situations(tables):
    """Per variable, the situations of its table of every situation that hold a
    count (the root's one always), and their rows of the table."""
    situations, counts = [], []
    for i, table in enumerate(tables):
        if i == 0:  # the root's one situation, counted or not
            situations.append(np.zeros(1, dtype=np.int64))
            counts.append(table)
        else:
            reached = np.flatnonzero(table.any(axis=1))
            situations.append(reached)
            counts.append(table[reached])
    return situations, counts


SMALL_CODE_LEVELS = 127
"""The most levels a variable's codes take as one byte (``numpy.int8``)."""


def counts_unit_dense(n_levels):
    """Whether rows of weight one over variables of these numbers of levels are
    counted by :func:`count_dense_unit`: a tree that :func:`fits_dense`, its
    codes one byte each."""
    return fits_dense(n_levels) and max(n_levels, default=0) <= SMALL_CODE_LEVELS


def count_dense_unit(codes, n_levels):
    """:func:`count_dense` of rows all of weight one, ``codes`` int8 in column
    order ("F"; a tree that :func:`counts_unit_dense`): one pass over the rows
    that counts each into the table of the last variable it reaches
    (``count_dense_unit_rows``), with no weights or situations per row; each
    table's rows then add to the table above.  The same tables: sums of ones."""
    n_levels = [int(k) for k in n_levels]
    if codes.dtype != np.int8 or not codes.flags.f_contiguous or codes.ndim != 2 \
            or codes.shape[1] != len(n_levels) or not counts_unit_dense(n_levels):
        raise ValueError("count_dense_unit takes int8 codes in column order, a column per "
                         "variable, of a tree that counts_unit_dense.")
    sizes = np.cumprod(n_levels, dtype=np.int64)  # variable i's cells: its situations x levels
    start = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    tables = np.zeros(int(sizes.sum()))
    count_dense_unit_rows(codes, np.asarray(n_levels, dtype=np.int64), start, tables)
    full = [tables[a:a + size].reshape(-1, k) for a, size, k in zip(start, sizes, n_levels)]
    for i in range(len(full) - 1, 0, -1):  # a situation's rows went on from its cell above
        full[i - 1].ravel()[:] += full[i].sum(axis=1)
    return _reached_situations(full)


def _rows_by_situation(situation):
    """The rows still in the tree (``situation >= 0``) in the order of their
    situation, each situation's in their own order; each row's group (the
    situation's place among those reached) and the situations reached."""
    inside = np.flatnonzero(situation >= 0)
    bits = max(1, int(len(situation)).bit_length())
    # a row's situation above its position: sorting the keys (far faster
    # than a stable arg-sort) orders the rows by situation, then position
    key = situation[inside] << bits
    key |= inside
    key.sort()
    row = key & ((1 << bits) - 1)
    key >>= bits
    new = np.empty(len(key), dtype=bool)
    new[:1] = True
    np.not_equal(key[1:], key[:-1], out=new[1:])
    group = np.cumsum(new) - 1
    return row, group, key[new]


def _count_block(part, tree, name, complete_only, margins):
    """The tables of some rows of a partition (at least one), as ``_count_partition``'s."""
    n_levels = [len(lev) for lev in tree.values()]
    # every row weighs one: a small tree's rows are counted in one pass, as bytes
    unit_dense = counts_unit_dense(n_levels)
    codes, _ = encode_frame(part, columns=list(tree), levels=tree, name=name, order="F",
                            dtype=np.int8 if unit_dense else np.int32)
    if complete_only:
        codes = np.asfortranarray(codes[(codes >= 0).all(axis=1)])
    if unit_dense:
        situations, counts = count_dense_unit(codes, n_levels)
    else:
        situations, counts = count_situations(codes, n_levels, np.ones(codes.shape[0]))
    return (situations, counts, column_margins(codes, n_levels) if margins else None,
            codes.shape[0])


def _add_situation_counts(situation_lists, count_lists):
    """One variable's tables added up: the union of their situations, sorted."""
    situations = np.concatenate(situation_lists)
    union, where = np.unique(situations, return_inverse=True)
    total = np.zeros((len(union), count_lists[0].shape[1]))
    np.add.at(total, where, np.concatenate(count_lists))
    return union, total


def _combine(partials):
    """The tables of several partitions as the tables of their rows together."""
    partials = [p for p in partials if p is not None]
    if not partials:
        return None
    if len(partials) == 1:
        return partials[0]
    situations, counts = [], []
    for i in range(len(partials[0][0])):
        union, total = _add_situation_counts([p[0][i] for p in partials],
                                             [p[1][i] for p in partials])
        situations.append(union)
        counts.append(total)
    margins = None
    if partials[0][2] is not None:
        margins = [np.sum(m, axis=0) for m in zip(*(p[2] for p in partials))]
    return situations, counts, margins, sum(p[3] for p in partials)


def count_dask_frame(data, tree, name="data", complete_only=False, margins=False):
    """The tables of the Dask frame ``data`` over the variables of ``tree`` (in order).

    Returns ``(situations, counts, margins, n_rows)`` as :func:`count_situations`
    (plus, with ``margins``, the per-variable margins, else None, and the
    number of rows counted); ``complete_only`` counts only rows without
    missing values.  Raises if
    the frame has no rows (known only once counted).
    """
    from dask import compute

    if first_deep_variable([len(lev) for lev in tree.values()]) is not None:
        raise ValueError(
            f"`{name}`: a Dask frame is counted only into trees of at most {MAX_SITUATIONS} "
            "situations per variable; read it into pandas (compute()) for deeper trees.")

    # counted in the task that reads the partition (Dask fuses the two): no
    # partition is kept, sent or scheduled apart from its count
    partials = data[list(tree)].map_partitions(
        _count_partition, tree, name, complete_only, margins,
        meta=(None, object), enforce_metadata=False, align_dataframes=False,
    ).to_delayed()
    (result,) = compute(tree_reduce(partials, _combine))
    if result is None:
        raise ValueError(f"`{name}` is empty: it has no rows.")
    return result


USE_NA = ("ifany", "no", "always")
"""R's ``useNA`` choices of ``make_ctables`` and ``sevt_add``."""


def make_ctables(object: Sevt, data: pd.DataFrame | pd.Series | dd.DataFrame,
                 useNA: Literal["ifany", "no", "always"] = "ifany") -> dict[str, pd.DataFrame]:
    """Contingency tables of ``data`` over the situations of ``object``.

    Parameters
    ----------
    object : Sevt
    data : pandas.DataFrame, pandas.Series or dask.dataframe.DataFrame
        Must hold every variable of the model, with known levels.  A Dask
        frame is counted partition by partition, its tables summed.
    useNA : {"ifany", "no", "always"}, default "ifany"
        As R's: with ``"ifany"`` (or ``"always"``) a row counts in the
        tables of the variables up to its first missing value; with
        ``"no"`` only rows without missing values count.

    Returns
    -------
    dict of str to pandas.DataFrame
        One table per variable: a row per situation (R's order), a column
        per level.

    Examples
    --------
    >>> import pandas as pd
    >>> import pystagedtrees as st
    >>> df = pd.DataFrame({"A": ["a", "b", "a"], "B": ["x", "x", "y"]})
    >>> st.make_ctables(st.sevt(df), df)["B"].to_numpy().tolist()
    [[1.0, 1.0], [1.0, 0.0]]
    """
    check_sevt(object)
    check_choice(useNA, "useNA", USE_NA)
    if is_dask_frame(data):
        dask_levels(data, object.variables, object.tree, "data")  # the columns are there
        situations, counts, _, _ = count_dask_frame(data, object.tree,
                                                    complete_only=useNA == "no")
        return dense_ctables(object, situations, counts)
    codes, _, weights = read_data(data, object.variables, object.tree)
    if useNA == "no":
        complete = (codes >= 0).all(axis=1)
        codes = codes[complete]
        weights = None if weights is None else weights[complete]
    situations, counts = count_situations(codes, object.n_levels, weights, object.situation_trie)
    return dense_ctables(object, situations, counts)
