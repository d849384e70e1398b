"""Kernel of :func:`pystagedtrees.as_sevt`: stages from parent configurations.

In the staged tree of a Bayesian network, the stage of a situation of
variable ``Xi`` is the configuration of ``Xi``'s parents along the path.
A situation index ``s`` (root slowest) holds the level of an earlier
variable ``Xj`` as the digit ``(s // stride_j) % k_j``, with ``stride_j`` the
product of the numbers of levels of the variables between ``Xj`` and ``Xi``.
The configuration index combines the parents' digits in mixed radix,
earliest parent slowest, so that configurations are numbered in order of
first appearance along the situations (the numbering ``stndnaming`` gives).
"""
from pystagedtrees.kernels._types cimport code_t, index_t, stage_t


def stages_by_parent_config(const index_t[::1] situations, const index_t[::1] strides,
                            const index_t[::1] radices, const stage_t[::1] table,
                            stage_t[::1] out):
    """``out[r] = table[config(situations[r])]``.

    The caller guarantees ``0 <= situations[r] < n_situations`` and that
    ``table`` has ``prod(radices)`` entries.
    """
    cdef Py_ssize_t r, j, n = situations.shape[0], m = strides.shape[0]
    cdef index_t s, config
    with nogil:
        for r in range(n):
            s = situations[r]
            config = 0
            for j in range(m):
                config = config * radices[j] + (s // strides[j]) % radices[j]
            out[r] = table[config]


def stages_by_parent_codes(const code_t[:, ::1] codes, const index_t[::1] columns,
                           const index_t[::1] radices, const stage_t[::1] table,
                           stage_t[::1] out):
    """``out[r] = table[config]`` from the parents' level codes of row ``r``.

    ``codes`` holds rows of level codes; ``columns`` are the
    parents' columns, earliest first.  A row with a missing (-1) parent code
    gets the stage of configuration 0: the caller does not use it.
    """
    cdef Py_ssize_t r, j, n = codes.shape[0], m = columns.shape[0]
    cdef index_t config
    cdef code_t c
    with nogil:
        for r in range(n):
            config = 0
            for j in range(m):
                c = codes[r, columns[j]]
                if c < 0:
                    config = 0
                    break
                config = config * radices[j] + c
            out[r] = table[config]
