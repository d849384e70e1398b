"""Counting kernels: contingency tables of situations, sums of rows by stage.

Rows reach a situation of variable ``i`` through the path of their first
``i`` values.  The kernels never enumerate all situations: each row carries
the id of its observed situation (a dense 0..m-1 numbering of the situations
that occur), and the next variable's ids are derived from the occupied cells
``(situation, level)`` of the current one.  The rows are kept in the order of
their situations (each cell's rows in their own order), so every table is
written in order and every sum adds a cell's rows as they came.
"""
from pystagedtrees.kernels._types cimport (
    code_t, flag_t, float64_t, index_t, small_code_t, stage_t)


cdef extern from *:  # the compiler's (GCC, Clang)
    void __builtin_prefetch(const void* address) noexcept nogil

cdef enum:
    # rows in path order are scattered over the column: each code is
    # fetched this many rows before it is read
    CODES_AHEAD = 16


def number_occupied_cells(const float64_t[:, ::1] table, index_t[::1] cell_id,
                          bint empty_last, flag_t[::1] reached):
    """Number the cells of ``table`` that hold weight, in row-major order.

    ``cell_id[g * k + x]`` becomes the cell's number among the occupied ones;
    an empty cell gets -1, or, with ``empty_last``, the number of occupied
    cells (one id past them all).  ``reached[g]`` says whether row ``g`` has
    an occupied cell.  Returns the number of occupied cells.  The caller sizes
    ``cell_id`` to at least ``table.size`` and ``reached`` to the rows.
    """
    cdef Py_ssize_t g, x, c = 0, m = table.shape[0], k = table.shape[1]
    cdef index_t n_cells = 0, occupied, before
    with nogil:
        for g in range(m):
            before = n_cells
            for x in range(k):
                # without a branch: half the cells empty at random would mispredict it
                occupied = table[g, x] > 0
                cell_id[c] = occupied * (n_cells + 1) - 1
                n_cells += occupied
                c += 1
            reached[g] = n_cells > before
        if empty_last:
            for c in range(m * k):
                if cell_id[c] < 0:
                    cell_id[c] = n_cells
    return n_cells


def occupied_situations(const float64_t[:, ::1] table, const index_t[::1] situation,
                        index_t[::1] out):
    """``situation[g] * k + x`` of every occupied cell ``(g, x)`` of ``table``
    (row-major order): the mixed-radix indices of the situations the rows
    reach one variable further down.  The caller sizes ``out`` to the number
    of occupied cells."""
    cdef Py_ssize_t g, x, j = 0, m = table.shape[0], k = table.shape[1]
    with nogil:
        for g in range(m):
            for x in range(k):
                if table[g, x] > 0:
                    out[j] = situation[g] * k + x
                    j += 1


def ids_by_first_appearance(const stage_t[::1] stage, Py_ssize_t default_at,
                            stage_t default, flag_t[::1] seen, stage_t[::1] out):
    """Write the distinct ids of ``stage`` to ``out`` in order of first appearance.

    The id ``default`` appears just before entry ``default_at`` as well
    (``len(stage)``: after every entry; -1: nowhere).  ``seen`` is zeros, one
    per id; the caller checks the ids against it and sizes ``out`` like it.
    Returns the number of ids written.
    """
    cdef Py_ssize_t r, n = stage.shape[0], m = 0
    with nogil:
        for r in range(n + 1):
            if r == default_at and not seen[default]:
                seen[default] = 1
                out[m] = default
                m += 1
            if r < n and not seen[stage[r]]:
                seen[stage[r]] = 1
                out[m] = stage[r]
                m += 1
    return m


def regroup_stages(const stage_t[::1] stage, Py_ssize_t default_at, stage_t default,
                   const index_t[::1] keys, stage_t[::1] new_of_group, stage_t[::1] mapping,
                   stage_t[::1] first_old, stage_t[::1] new_stage,
                   const float64_t[:, ::1] counts, const stage_t[::1] row_stage,
                   stage_t[::1] new_row_stage, float64_t[:, ::1] by_stage):
    """Renumber a variable's stages after a clustering, in one pass over its ids.

    ``stage`` holds the old ids as a stage vector stores them, with the id
    ``default`` appearing just before entry ``default_at`` too (-1: nowhere),
    as for :func:`ids_by_first_appearance`.  Old ids whose key is a group
    ``1..len(new_of_group) - 1`` share that group's new id, and every other
    old id (keys are distinct outside the groups) gets one of its own; new
    ids are 0, 1, ... in order of first appearance.  Writes ``mapping[old]``
    (the new id of each old id in use; the caller fills it with -1, which
    the ids not in use keep), ``first_old[new]`` (the first old id numbered
    ``new``), ``new_stage`` (``stage`` renumbered), and, for the counts' rows
    (old ids ``row_stage``, all in use), ``new_row_stage`` and their sums by
    new id added to ``by_stage`` (as :func:`sum_rows_by_stage`).
    ``new_of_group`` is scratch filled with -1.  The caller checks the ids
    and sizes: ``keys`` and ``mapping`` one per old id, ``first_old`` and
    ``by_stage`` at least one per new id.  Returns the number of new ids.
    """
    cdef Py_ssize_t r, n = stage.shape[0], n_groups = new_of_group.shape[0] - 1
    cdef stage_t old, n_new = 0
    with nogil:
        for r in range(n + 1):
            if r == default_at and mapping[default] < 0:
                n_new = _number_stage(default, keys, new_of_group, n_groups, mapping, first_old,
                                      n_new)
            if r < n and mapping[stage[r]] < 0:
                n_new = _number_stage(stage[r], keys, new_of_group, n_groups, mapping, first_old,
                                      n_new)
        for r in range(n):
            new_stage[r] = mapping[stage[r]]
        for r in range(row_stage.shape[0]):
            new_row_stage[r] = mapping[row_stage[r]]
        _sum_rows_by_stage(counts, new_row_stage, by_stage)
    return n_new


cdef inline stage_t _number_stage(stage_t old, const index_t[::1] keys, stage_t[::1] new_of_group,
                                  Py_ssize_t n_groups, stage_t[::1] mapping,
                                  stage_t[::1] first_old, stage_t n_new) noexcept nogil:
    """Give ``old`` (met for the first time) its new id; returns the number of new ids."""
    cdef index_t key = keys[old]
    if 1 <= key <= n_groups and new_of_group[key] >= 0:
        mapping[old] = new_of_group[key]
        return n_new
    if 1 <= key <= n_groups:
        new_of_group[key] = n_new
    mapping[old] = n_new
    first_old[n_new] = old
    return n_new + 1


def sum_rows_by_stage(const float64_t[:, ::1] counts, const stage_t[::1] stage,
                      float64_t[:, ::1] out):
    """``out[stage[r], :] += counts[r, :]``; the caller checks the stage ids."""
    with nogil:
        _sum_rows_by_stage(counts, stage, out)


cdef void _sum_rows_by_stage(const float64_t[:, ::1] counts, const stage_t[::1] stage,
                             float64_t[:, ::1] out) noexcept nogil:
    cdef Py_ssize_t r, a, n = counts.shape[0], k = counts.shape[1]
    for r in range(n):
        for a in range(k):
            out[stage[r], a] += counts[r, a]


def smooth_rows(float64_t[:, ::1] table, double lam, float64_t[::1] sizes):
    """Stage counts into probabilities, in place: ``sizes[r]`` the row's sum,
    then ``(table[r] + lam) / sum(table[r] + lam)``.

    Each row is summed left to right, which is numpy's ``sum(axis=1)`` for
    rows of fewer than eight numbers (the caller's condition), so the
    probabilities are those of the numpy expressions bit for bit.
    """
    cdef Py_ssize_t r, a, m = table.shape[0], k = table.shape[1]
    cdef double total
    with nogil:
        for r in range(m):
            total = table[r, 0]
            for a in range(1, k):
                total += table[r, a]
            sizes[r] = total
            table[r, 0] += lam
            total = table[r, 0]
            for a in range(1, k):
                table[r, a] += lam
                total += table[r, a]
            for a in range(k):
                table[r, a] /= total


def first_positions(const stage_t[::1] stage, index_t[::1] out):
    """``out[s]`` = first index of id ``s`` in ``stage`` (left at -1 if absent).

    The caller fills ``out`` with -1 and checks ``0 <= stage < len(out)``.
    """
    cdef Py_ssize_t r, n = stage.shape[0]
    with nogil:
        for r in range(n):
            if out[stage[r]] < 0:
                out[stage[r]] = r


def map_ids(const stage_t[::1] ids, const stage_t[::1] mapping, stage_t[::1] out):
    """``out[r] = mapping[ids[r]]``: a stage vector's ids renumbered in one
    pass (numpy's ``take`` first widens int32 ids to int64, a copy twice the
    size).  The caller sizes ``out`` like ``ids``.

    Returns -1, or the first entry whose id is outside ``mapping`` (``out``
    is then written only before it).
    """
    cdef Py_ssize_t r, n = ids.shape[0], n_map = mapping.shape[0], bad = -1
    cdef stage_t s
    with nogil:
        for r in range(n):
            s = ids[r]
            if s < 0 or s >= n_map:
                bad = r
                break
            out[r] = mapping[s]
    return bad


def count_in_path_order(const index_t[::1] row, const index_t[::1] group,
                        const code_t[::1] codes, const float64_t[::1] weight,
                        float64_t[:, ::1] out, code_t[::1] code_of):
    """Add ``weight[j]`` to ``out[group[j], codes[row[j]]]`` for each ``j``
    whose code is not missing, and copy that code to ``code_of[j]``.

    ``row`` lists the rows still in the tree ordered by their situation
    ``group`` (non-decreasing), with their weights, so the table is written
    in order; rows of one cell come in their original order, so its sum is
    that of the rows in order.
    The caller guarantees ``group < out.shape[0]`` and ``codes < out.shape[1]``.
    """
    cdef Py_ssize_t j, n = row.shape[0]
    cdef code_t c
    with nogil:
        for j in range(n):
            if j + CODES_AHEAD < n:
                __builtin_prefetch(&codes[row[j + CODES_AHEAD]])
            c = codes[row[j]]
            code_of[j] = c
            if c >= 0:
                out[group[j], c] += weight[j]


def split_by_level(const index_t[::1] row, const index_t[::1] group,
                   const float64_t[::1] weight, const code_t[::1] code_of,
                   const index_t[::1] cell_id, Py_ssize_t n_levels,
                   index_t[::1] level_start, index_t[::1] next_row,
                   index_t[::1] next_group, float64_t[::1] next_weight):
    """The rows one variable further down, still ordered by their situation.

    Within each run of rows of one situation ``g`` (``group``), the rows are
    split by their level ``code_of`` (stably: each cell's rows keep their
    order) into ``next_row`` and ``next_weight``, with ``next_group`` the cell's id
    ``cell_id[g * n_levels + code]`` (increasing with the code); rows with a
    missing level leave.  ``level_start`` is scratch of ``n_levels`` entries.
    Returns the number of rows written.
    """
    cdef Py_ssize_t start = 0, end, j, n = row.shape[0], written = 0, at, first
    cdef index_t g, total, key, r
    cdef float64_t w
    cdef code_t c
    cdef Py_ssize_t a
    with nogil:
        while start < n:
            g = group[start]
            end = start + 1
            while end < n and group[end] == g:
                end += 1
            if (end - start) * (end - start) <= (end - start) + n_levels:
                # a short run (most are single rows deep in a tree): insertion
                # by cell id, stable, costs less than a pass over the levels
                first = written
                for j in range(start, end):
                    c = code_of[j]
                    if c < 0:
                        continue
                    key, r, w, at = cell_id[g * n_levels + c], row[j], weight[j], written
                    while at > first and next_group[at - 1] > key:
                        next_group[at] = next_group[at - 1]
                        next_row[at] = next_row[at - 1]
                        next_weight[at] = next_weight[at - 1]
                        at -= 1
                    next_group[at] = key
                    next_row[at] = r
                    next_weight[at] = w
                    written += 1
                start = end
                continue
            for a in range(n_levels):
                level_start[a] = 0
            for j in range(start, end):
                if code_of[j] >= 0:
                    level_start[code_of[j]] += 1
            total = written
            for a in range(n_levels):  # counts -> first places
                level_start[a], total = total, total + level_start[a]
            for j in range(start, end):
                c = code_of[j]
                if c >= 0:
                    next_row[level_start[c]] = row[j]
                    next_weight[level_start[c]] = weight[j]
                    next_group[level_start[c]] = cell_id[g * n_levels + c]
                    level_start[c] += 1
            written = total
            start = end
    return written


def count_dense_unit_rows(const small_code_t[::1, :] codes, const index_t[::1] n_levels,
                          const index_t[::1] table_start, float64_t[::1] tables):
    """Count each row of weight one into the table of the last variable it reaches.

    Variable ``i``'s table (all its situations in mixed radix, row-major, its
    ``n_levels[i]`` levels a row) starts at ``tables[table_start[i]]``.  A row
    adds one to its cell of the variable before its first missing code (of
    the last variable, if none is missing; nowhere, if the first is): one
    increment a row, into a table of many cells, where adding to every
    variable's table would add to the root's few cells row after row, each
    addition waiting for the one before.  The caller adds each table's rows
    to the table above it (the counts of the rows that went on), which gives
    ``count_dense_variable``'s tables with unit weights: sums of ones are
    exact in any order.  ``codes`` is a column after another
    (``encode_frame``'s ``order="F"``), one byte a code.  The caller
    guarantees ``codes < n_levels`` and tables of ``prod(n_levels[:i + 1])``
    cells.
    """
    cdef Py_ssize_t r, i, n = codes.shape[0], p = codes.shape[1]
    cdef index_t cell
    cdef small_code_t c
    with nogil:
        for r in range(n):
            cell = 0
            for i in range(p):
                c = codes[r, i]
                if c < 0:
                    break
                # the cell's place in the table is the row's situation one variable on
                cell = cell * n_levels[i] + c
            else:
                i = p  # every code present: the last variable's cell
            if i > 0:
                tables[table_start[i - 1] + cell] += 1


def count_dense_variable(const code_t[::1] codes, const float64_t[::1] weight,
                         index_t[::1] situation, float64_t[:, ::1] out):
    """Count one variable's rows into a table of all its situations, and move them on.

    For each row ``r`` still in the tree (``situation[r] >= 0``, its mixed-radix
    situation among all of this variable's), add ``weight[r]`` to
    ``out[situation[r], codes[r]]`` and set ``situation[r]`` to the row's
    situation one variable further down, ``situation[r] * k + codes[r]``
    (``k = out.shape[1]``); a row with a missing code leaves (-1).  The rows
    are read in order, so each cell adds its rows in their order: the sums
    of the path-order counting, bit for bit.
    The caller guarantees ``situation < out.shape[0]`` and ``codes < k``.
    """
    cdef Py_ssize_t r, n = codes.shape[0], k = out.shape[1]
    cdef index_t s
    cdef code_t c
    with nogil:
        for r in range(n):
            s = situation[r]
            if s < 0:
                continue
            c = codes[r]
            if c < 0:
                situation[r] = -1
                continue
            out[s, c] += weight[r]
            situation[r] = s * k + c
