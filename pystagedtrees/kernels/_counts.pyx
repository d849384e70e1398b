"""Counting kernels: contingency tables of situations, sums of rows by stage.

Rows reach a situation of variable ``i`` through the path of their first
``i`` values.  The kernels never enumerate all situations: each row carries
the id of its observed situation (a dense 0..m-1 numbering of the situations
that occur), and the next variable's ids are derived from the occupied cells
``(situation, level)`` of the current one.
"""
from pystagedtrees.kernels._types cimport code_t, flag_t, float64_t, index_t, stage_t


def situation_level_counts(const index_t[::1] group, const code_t[::1] codes,
                           const float64_t[::1] weight, float64_t[:, ::1] out):
    """Add ``weight[r]`` to ``out[group[r], codes[r]]`` for every complete row.

    A row is skipped when its group is -1 (it left the tree at an earlier
    missing value) or its code is -1 (missing here).  The caller guarantees
    ``group < out.shape[0]`` and ``codes < out.shape[1]``.
    """
    cdef Py_ssize_t r, n = group.shape[0]
    with nogil:
        for r in range(n):
            if group[r] >= 0 and codes[r] >= 0:
                out[group[r], codes[r]] += weight[r]


def next_situation_ids(const index_t[::1] group, const code_t[::1] codes,
                       const index_t[::1] cell_id, Py_ssize_t n_levels,
                       index_t[::1] out):
    """Id of each row's situation one variable further down the tree.

    ``cell_id[g * n_levels + x]`` is the new id of cell ``(g, x)`` (-1 when the
    cell holds no weight); rows that are incomplete get -1.
    """
    cdef Py_ssize_t r, n = group.shape[0]
    with nogil:
        for r in range(n):
            if group[r] >= 0 and codes[r] >= 0:
                out[r] = cell_id[group[r] * n_levels + codes[r]]
            else:
                out[r] = -1


def number_occupied_cells(const float64_t[:, ::1] table, index_t[::1] cell_id,
                          bint empty_last):
    """Number the cells of ``table`` that hold weight, in row-major order.

    ``cell_id[g * k + x]`` becomes the cell's number among the occupied ones;
    an empty cell gets -1, or, with ``empty_last``, the number of occupied
    cells (one id past them all).  Returns that number.  The caller sizes
    ``cell_id`` to at least ``table.size``.
    """
    cdef Py_ssize_t c, n = table.shape[0] * table.shape[1]
    cdef index_t n_cells = 0, occupied
    cdef const float64_t* cells
    if n == 0:
        return 0
    cells = &table[0, 0]
    with nogil:
        for c in range(n):
            # without a branch: half the cells empty at random would mispredict it
            occupied = cells[c] > 0
            cell_id[c] = occupied * (n_cells + 1) - 1
            n_cells += occupied
        if empty_last:
            for c in range(n):
                if cell_id[c] < 0:
                    cell_id[c] = n_cells
    return n_cells


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


def sum_rows_by_stage(const float64_t[:, ::1] counts, const stage_t[::1] stage,
                      float64_t[:, ::1] out):
    """``out[stage[r], :] += counts[r, :]``; the caller checks the stage ids."""
    cdef Py_ssize_t r, a, n = counts.shape[0], k = counts.shape[1]
    with nogil:
        for r in range(n):
            for a in range(k):
                out[stage[r], a] += counts[r, a]


def first_positions(const stage_t[::1] stage, index_t[::1] out):
    """``out[s]`` = first index of id ``s`` in ``stage`` (left at -1 if absent).

    The caller fills ``out`` with -1 and checks ``0 <= stage < len(out)``.
    """
    cdef Py_ssize_t r, n = stage.shape[0]
    with nogil:
        for r in range(n):
            if out[stage[r]] < 0:
                out[stage[r]] = r
