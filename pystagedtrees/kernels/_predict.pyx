"""Prediction kernels: one pass per row along its path through the tree.

The stages of every variable are read from its own arrays, whatever their
storage: one id per situation (dense), the ids of the listed situations
with a default for the others (sparse), or an id per configuration of the
variable's parents.  A sparse variable finds a situation by binary search
among the children of its parent's place, which ``child_start`` bounds to a
few entries; so a row costs a handful of memory reads per variable.

The tree is a tuple: ``kind``, ``n_levels``, ``n_listed``,
``default_stage`` (an entry per variable ``i``), then lists of an array per
variable: ``stages``, ``situations``, ``child_start``, ``parent_lag``,
``parent_weight``, ``log_prob``; then ``anchor``, a list ``into`` of an
array per variable, for the variables numbered by a trie
(:mod:`pystagedtrees.model._trie`) or by their places among listed
situations, and ``anchored``, the variable numbered from ``anchor`` (``p``:
none).

- ``kind[i]``: ``DENSE``, ``SPARSE``, ``BY_PARENTS``, ``OWN`` (dense,
  with a row of log-probabilities per situation: no stage id is read) or
  ``SPARSE_OWN`` (sparse, with a row per listed situation and a last one
  for the others);
- ``stages[i][j]``: the stage of situation ``j`` (dense), of the ``j``-th
  listed situation (sparse) or of parent configuration ``j``;
- ``situations[i][:n_listed[i]]``: the sorted listed situations (sparse);
  ``default_stage[i]`` the others' stage;
- ``child_start[i][j]`` (empty: none): for a variable followed by a sparse
  one, the first listed situation of variable ``i + 1`` that is not below
  the first child of situation ``j`` (dense) or of the ``j``-th listed
  situation (sparse), one more entry closing the list;
- ``parent_lag[i][q]``, ``parent_weight[i][q]``: how many variables before
  ``i`` parent ``q`` is and its digit's weight in the configuration number;
- ``log_prob[i][row * n_levels[i] + level]``, the row a stage (a situation
  for ``OWN``);
- ``into[i]`` (empty: none): for a variable stored as ``DENSE`` or ``OWN``
  over numbers of its situations, the number of the child at level ``x``
  of the situation numbered ``j`` at ``i - 1``: ``into[i][j * n_levels[i -
  1] + x]`` (``j`` the mixed-radix index where ``i - 1`` has no ``into``);
  at ``anchored`` ``j`` is the place in ``anchor`` (sorted mixed-radix
  situations of ``i - 1``) of the row's situation, or ``len(anchor)`` when
  it is not there, whose row leads outside the trie.

The Python caller builds these arrays consistently and checks the codes;
nothing here raises.
"""
from libc.math cimport INFINITY, NAN, exp, fabs, log
from libc.stdint cimport int8_t
from libc.stdlib cimport free, malloc

from pystagedtrees.kernels._types cimport code_t, flag_t, float64_t, index_t, stage_t

# the level codes of a frame's rows as the callers hold them: a Categorical's
# own int8 codes (up to 127 levels: no widening copy), or code_t
ctypedef fused row_code_t:
    int8_t
    code_t

cdef extern from *:  # the compiler's (GCC, Clang)
    void __builtin_prefetch(const void* address) noexcept nogil

cdef enum:
    _DENSE = 0
    _SPARSE = 1
    _BY_PARENTS = 2
    _OWN = 3
    _SPARSE_OWN = 4

DENSE, SPARSE, BY_PARENTS, OWN, SPARSE_OWN = _DENSE, _SPARSE, _BY_PARENTS, _OWN, _SPARSE_OWN


cdef struct Tree:
    Py_ssize_t p
    const flag_t* kind
    const index_t* n_levels
    const index_t* n_listed
    const stage_t* default_stage
    const stage_t** stages
    const index_t** situations
    const index_t** child_start  # NULL: none
    const index_t** parent_lag
    const index_t** parent_weight
    index_t* n_parents
    const float64_t** log_prob
    const index_t* anchor
    Py_ssize_t n_anchor
    Py_ssize_t first_deep  # the anchored variable, p: none
    const index_t** into  # NULL: not deep


cdef int _tree(Tree* t, tuple arrays) except -1:
    """Pointers into the tree's arrays (which ``arrays`` keeps alive); the
    typed views check their types and layout.  Free with :func:`_free_tree`."""
    cdef const flag_t[::1] kind = arrays[0]
    cdef const index_t[::1] n_levels = arrays[1]
    cdef const index_t[::1] n_listed = arrays[2]
    cdef const stage_t[::1] default_stage = arrays[3]
    cdef const stage_t[::1] stages
    cdef const index_t[::1] situations, child_start, parent_lag, parent_weight
    cdef const float64_t[::1] log_prob
    cdef const index_t[::1] anchor = arrays[10]
    cdef const index_t[::1] into
    cdef Py_ssize_t i, p = kind.shape[0]
    t.p = p
    t.kind = &kind[0]
    t.n_levels = &n_levels[0]
    t.n_listed = &n_listed[0]
    t.default_stage = &default_stage[0]
    t.stages = <const stage_t**> malloc(p * sizeof(stage_t*))
    t.situations = <const index_t**> malloc(p * sizeof(index_t*))
    t.child_start = <const index_t**> malloc(p * sizeof(index_t*))
    t.parent_lag = <const index_t**> malloc(p * sizeof(index_t*))
    t.parent_weight = <const index_t**> malloc(p * sizeof(index_t*))
    t.n_parents = <index_t*> malloc(p * sizeof(index_t))
    t.log_prob = <const float64_t**> malloc(p * sizeof(float64_t*))
    t.into = <const index_t**> malloc(p * sizeof(index_t*))
    t.anchor = &anchor[0] if anchor.shape[0] else NULL
    t.n_anchor = anchor.shape[0]
    t.first_deep = arrays[12]
    if (t.stages == NULL or t.situations == NULL or t.child_start == NULL
            or t.parent_lag == NULL or t.parent_weight == NULL or t.n_parents == NULL
            or t.log_prob == NULL or t.into == NULL):
        _free_tree(t)
        raise MemoryError()
    for i in range(p):
        stages = arrays[4][i]
        situations = arrays[5][i]
        child_start = arrays[6][i]
        parent_lag = arrays[7][i]
        parent_weight = arrays[8][i]
        log_prob = arrays[9][i]
        t.stages[i] = &stages[0] if stages.shape[0] else NULL
        t.situations[i] = &situations[0] if situations.shape[0] else NULL
        t.child_start[i] = &child_start[0] if child_start.shape[0] else NULL
        t.parent_lag[i] = &parent_lag[0] if parent_lag.shape[0] else NULL
        t.parent_weight[i] = &parent_weight[0] if parent_weight.shape[0] else NULL
        t.n_parents[i] = parent_lag.shape[0]
        t.log_prob[i] = &log_prob[0] if log_prob.shape[0] else NULL
        into = arrays[11][i]
        t.into[i] = &into[0] if into.shape[0] else NULL
    return 0


cdef void _free_tree(Tree* t) noexcept:
    free(t.stages)
    free(t.situations)
    free(t.child_start)
    free(t.parent_lag)
    free(t.parent_weight)
    free(t.n_parents)
    free(t.log_prob)
    free(t.into)


cdef enum:
    # paths walked side by side, variable by variable: the variable's arrays
    # are read once into locals, and the paths' memory reads overlap
    LANES = 1024
    # rows fetched ahead of their copy, when they are read out of order
    ROWS_AHEAD = 16


cdef struct Lanes:
    # a path per lane: a row's, or for class posteriors one per level of
    # the target, the levels of a row in adjacent lanes
    Py_ssize_t n        # lanes
    # m x pitch level codes, a variable's codes adjacent; the pitch is not a
    # power of two, so that a lane's codes do not share a cache set
    Py_ssize_t pitch
    code_t* paths
    Py_ssize_t* last    # a lane's last variable, -1: not walked
    double* totals      # log-probabilities so far
    # where each path is, at the variable last walked:
    index_t* situation  # its index among the variable's situations
    index_t* position   # sparse: the first listed situation not below it
    flag_t* listed      # sparse: whether it is listed


cdef int _allocate(Lanes* s, Py_ssize_t m, Py_ssize_t n) except -1:
    s.n = n
    s.pitch = n + 16
    s.paths = <code_t*> malloc(s.pitch * max(m, 1) * sizeof(code_t))
    s.last = <Py_ssize_t*> malloc(n * sizeof(Py_ssize_t))
    s.totals = <double*> malloc(n * sizeof(double))
    s.situation = <index_t*> malloc(n * sizeof(index_t))
    s.position = <index_t*> malloc(n * sizeof(index_t))
    s.listed = <flag_t*> malloc(n * sizeof(flag_t))
    if (s.paths == NULL or s.last == NULL or s.totals == NULL or s.situation == NULL
            or s.position == NULL or s.listed == NULL):
        _release(s)
        raise MemoryError()
    return 0


cdef void _release(Lanes* s) noexcept:
    free(s.paths)
    free(s.last)
    free(s.totals)
    free(s.situation)
    free(s.position)
    free(s.listed)


cdef inline void _start(Lanes* s, Py_ssize_t size) noexcept nogil:
    """Every lane at the root, with log-probability 0."""
    cdef Py_ssize_t b
    for b in range(size):
        s.totals[b] = 0.0
        s.situation[b] = 0
        s.position[b] = 0
        s.listed[b] = True


cdef inline void _spread(Lanes* s, Py_ssize_t size, Py_ssize_t k) noexcept nogil:
    """Copy the place of lane ``b * k`` to lanes ``b * k + 1 .. b * k + k - 1``."""
    cdef Py_ssize_t b, a, j
    for b in range(size):
        for a in range(1, k):
            j = b * k + a
            s.totals[j] = s.totals[b * k]
            s.situation[j] = s.situation[b * k]
            s.position[j] = s.position[b * k]
            s.listed[j] = s.listed[b * k]


cdef inline index_t _child_bounds(const Tree* t, Py_ssize_t i, const Lanes* s, Py_ssize_t b,
                                  index_t* hi) noexcept nogil:
    """Bounds ``[lo, hi]`` of the first listed situation of sparse variable
    ``i`` not below lane ``b``'s situation there, from its place at ``i - 1``
    (without branching on it: whether a lane's path is listed is random)."""
    cdef index_t at, before
    cdef index_t sparse, inside
    cdef flag_t above = t.kind[i - 1] if i > 0 else _BY_PARENTS
    cdef const index_t* start
    if above == _BY_PARENTS or t.child_start[i - 1] == NULL:
        hi[0] = t.n_listed[i]
        return 0
    start = t.child_start[i - 1]
    sparse = above == _SPARSE or above == _SPARSE_OWN
    at = s.position[b] if sparse else s.situation[b]
    inside = (not sparse) | s.listed[b]  # (a number, not a branch: it is random)
    # inside: its children's; else between the listed situations around it
    hi[0] = start[at + inside]
    before = at + inside - 1
    return start[before if before > 0 else 0] if before >= 0 else 0


cdef inline index_t _anchor_place(const Tree* t, index_t situation) noexcept nogil:
    """Place of a situation among the sorted ``anchor``, ``n_anchor`` if absent."""
    cdef index_t lo = 0, hi = t.n_anchor, mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if t.anchor[mid] < situation:
            lo = mid + 1
        else:
            hi = mid
    return lo if lo < t.n_anchor and t.anchor[lo] == situation else t.n_anchor


cdef inline bint _lean(const Tree* t, Py_ssize_t i) noexcept nogil:
    """Whether variable ``i`` reads one table row per situation number (no search)."""
    return (t.kind[i] == _OWN or t.kind[i] == _DENSE) and i > 0 and i != t.first_deep


cdef inline size_t _first_read(const Tree* t, Py_ssize_t i, size_t* scale) noexcept nogil:
    """Address and bytes per step of the array a lean variable ``i`` reads
    first, by its situation's index from the parent's (``into``, stages or
    rows of log-probabilities)."""
    if t.into[i] != NULL:
        scale[0] = sizeof(index_t)
        return <size_t> t.into[i]
    if t.kind[i] == _DENSE:
        scale[0] = sizeof(stage_t)
        return <size_t> t.stages[i]
    scale[0] = t.n_levels[i] * sizeof(float64_t)
    return <size_t> t.log_prob[i]


cdef void _walk(const Tree* t, Py_ssize_t first, Py_ssize_t stop, Py_ssize_t size,
                Py_ssize_t stride, Lanes* s) noexcept nogil:
    """Add to ``s.totals[b]`` the terms of variables ``first .. stop - 1``, up
    to ``s.last[b]``, of the path of lane ``b`` (``b = 0, stride, 2 * stride``,
    ``size`` lanes), moving its place along."""
    cdef Py_ssize_t i, j, b, n = s.pitch
    cdef index_t k, above, situation, lo, hi, mid, config, q
    cdef stage_t stage
    cdef code_t code
    cdef flag_t kind
    cdef index_t less, found
    cdef const code_t* codes
    cdef const code_t* codes_above
    cdef const float64_t* log_prob
    cdef const stage_t* stages
    cdef const index_t* listed
    cdef const index_t* into
    cdef size_t ahead, scale
    cdef index_t row
    cdef Py_ssize_t* last
    cdef double* totals
    cdef index_t* places
    for i in range(first, stop):
        kind = t.kind[i]
        k = t.n_levels[i]
        above = t.n_levels[i - 1] if i > 0 else 0
        codes = &s.paths[i * n]
        codes_above = &s.paths[(i - 1) * n] if i > 0 else codes
        log_prob = t.log_prob[i]
        stages = t.stages[i]
        listed = t.situations[i]
        into = t.into[i]
        if _lean(t, i):
            # the commonest storages, without the others' branches; the
            # first read of each lane's next variable is prefetched: it is
            # known now, and is in cache when that variable's turn comes
            # (the lanes' reads overlap instead of waiting one after another)
            ahead = scale = 0
            if i + 1 < stop and _lean(t, i + 1):
                ahead = _first_read(t, i + 1, &scale)
            # (the lanes' arrays as locals: the compiler need not reload them
            # after every store)
            last, totals, places = s.last, s.totals, s.situation
            if into == NULL and kind == _OWN:
                # the commonest of all (full and fitted trees' shallow
                # variables): a row of log-probabilities per situation,
                # numbered in mixed radix, whose row is the next variable's
                # situation
                for j in range(size):
                    b = j * stride
                    if i > last[b]:
                        continue
                    situation = places[b] * above + codes_above[b]
                    row = situation * k + codes[b]
                    totals[b] += log_prob[row]
                    places[b] = situation
                    if ahead:
                        __builtin_prefetch(<const char*> ahead + row * scale)
                continue
            for j in range(size):
                b = j * stride
                if i > last[b]:
                    continue
                situation = places[b] * above + codes_above[b]
                if into != NULL:
                    situation = into[situation]
                totals[b] += log_prob[(situation if kind == _OWN else stages[situation]) * k
                                      + codes[b]]
                places[b] = situation
                if ahead:
                    __builtin_prefetch(<const char*> ahead + (situation * k + codes[b]) * scale)
            continue
        for j in range(size):
            b = j * stride
            if i > s.last[b]:
                continue
            code = codes[b]
            if into != NULL:  # a deep variable: the trie numbers its situations
                situation = s.situation[b]
                if i == t.first_deep:
                    situation = _anchor_place(t, situation)
                situation = into[situation * above + codes_above[b]]
            elif i > 0:
                situation = s.situation[b] * above + codes_above[b]
            else:
                situation = 0
            if kind == _OWN:
                s.totals[b] += log_prob[situation * k + code]
            elif kind == _DENSE:
                s.totals[b] += log_prob[stages[situation] * k + code]
            elif kind == _BY_PARENTS:
                config = 0
                for q in range(t.n_parents[i]):
                    config += s.paths[(i - t.parent_lag[i][q]) * n + b] * t.parent_weight[i][q]
                s.totals[b] += log_prob[stages[config] * k + code]
            else:
                lo = _child_bounds(t, i, s, b, &hi)
                # selections by arithmetic, not branches: whether a path is
                # listed, and the search's comparisons, are random
                while lo < hi:
                    mid = (lo + hi) >> 1
                    less = listed[mid] < situation
                    lo += (mid + 1 - lo) * less
                    hi = mid + (hi - mid) * less
                s.position[b] = lo
                found = listed[lo] == situation if lo < t.n_listed[i] else False
                s.listed[b] = found
                if kind == _SPARSE_OWN:
                    stage = <stage_t> (t.n_listed[i] + (lo - t.n_listed[i]) * found)
                else:
                    stage = t.default_stage[i] + (stages[lo if found else 0] - t.default_stage[i]) * found
                s.totals[b] += log_prob[stage * k + code]
            s.situation[b] = situation


def path_log_probabilities(tuple tree, const code_t[:, ::1] codes, float64_t[::1] out):
    """``out[r]``: the log-probability of the path ``codes[r]`` over the first
    ``codes.shape[1]`` variables (NaN through a stage without probabilities).

    ``tree`` holds the arrays described in the module's docstring, in that
    order; the caller checks the codes are levels.
    """
    cdef Tree t
    cdef Py_ssize_t b, i, block, start, size, n = codes.shape[0], m = codes.shape[1]
    cdef Lanes s
    _tree(&t, tree)
    try:
        _allocate(&s, m, LANES)
    except MemoryError:
        _free_tree(&t)
        raise
    try:
        with nogil:
            for block in range((n + LANES - 1) // LANES):
                start = block * LANES
                size = min(LANES, n - start)
                for b in range(size):
                    for i in range(m):
                        s.paths[i * s.pitch + b] = codes[start + b, i]
                    s.last[b] = m - 1
                _start(&s, size)
                _walk(&t, 0, m, size, 1, &s)
                for b in range(size):
                    out[start + b] = s.totals[b]
    finally:
        _release(&s)
        _free_tree(&t)


cdef inline void _add_lanes(double* totals, const double* terms, Py_ssize_t lanes) noexcept nogil:
    """``totals[a] += terms[a]`` for the ``lanes`` levels of a row."""
    cdef Py_ssize_t a
    if lanes == 2:  # (a binary target, the commonest: no loop)
        totals[0] += terms[0]
        totals[1] += terms[1]
    else:
        for a in range(lanes):
            totals[a] += terms[a]


cdef inline Py_ssize_t _last_walked(const row_code_t* row, Py_ssize_t m,
                                     Py_ssize_t target) noexcept nogil:
    """The last variable a row's paths walk: its last given one, or
    ``target`` if later; -1 for a row left to the caller (a missing value
    before that, or an unknown value anywhere)."""
    cdef Py_ssize_t i, last = target, gap = m
    cdef code_t code, signs = 0
    cdef bint complete = True
    # every value given (the commonest; the target's may be missing): no
    # branch per value
    for i in range(target):
        signs |= row[i]
    for i in range(target + 1, m):
        signs |= row[i]
    if signs >= 0 and row[target] >= -1:
        return m - 1
    for i in range(m):
        code = row[i]
        if code >= 0:
            if i > last:
                last = i
        elif code < -1:
            complete = False
        elif i != target and i < gap:
            gap = i
    return last if complete and gap > last else -1


cdef void _walk_adjacent(const Tree* t, const float64_t** log_prob, const row_code_t* codes,
                         Py_ssize_t size, Py_ssize_t deepest, Py_ssize_t target, Py_ssize_t k,
                         Lanes* s) noexcept nogil:
    """:func:`_walk` of a block of rows of a full tree, every level of
    ``target`` at once, from the rows' own codes (not copied into lanes;
    ``s.position[b]``: where row ``b`` starts in ``codes``).  Each variable
    ``i`` reads ``log_prob[i]``, its rows of log-probabilities by the
    mixed-radix number of the path's codes up to ``i``, the target's digit
    last (the least significant) from ``target`` on: the levels' terms are
    adjacent, a cache line for all.  ``s.situation[b]``: that number
    without the target's digit.  The sums are those of :func:`_walk`, in
    its order."""
    cdef Py_ssize_t i, b, a, lanes, ahead_lanes = 0
    # a path's place at variable i: its place at i - 1 times ``scale`` plus
    # its code times ``coded`` (at the target: the same place, no code)
    cdef index_t place, scale, coded, ahead_scale = 0, ahead_coded = 0
    cdef const row_code_t* row
    cdef const float64_t* entries
    cdef const float64_t* ahead
    cdef Py_ssize_t* last = s.last
    cdef index_t* places = s.situation
    for b in range(size):
        places[b] = 0
        s.totals[b * k] = 0.0
    for i in range(deepest + 1):
        entries = log_prob[i]
        lanes = 1 if i < target else k  # one path per row up to the target
        scale = 1 if i == target else t.n_levels[i]
        coded = i != target
        if i == target:
            for b in range(size):
                for a in range(1, k):
                    s.totals[b * k + a] = s.totals[b * k]
        # the next variable's read of each row, prefetched: its place is
        # known now, and it is in cache when that variable's turn comes
        ahead = log_prob[i + 1] if i < deepest else NULL
        if ahead != NULL:
            ahead_lanes = 1 if i + 1 < target else k
            ahead_scale = 1 if i + 1 == target else t.n_levels[i + 1]
            ahead_coded = i + 1 != target
        for b in range(size):
            if i > last[b]:
                continue
            row = codes + s.position[b]
            place = places[b] * scale + row[i] * coded
            places[b] = place
            _add_lanes(&s.totals[b * k], &entries[place * lanes], lanes)
            if ahead != NULL:
                __builtin_prefetch(ahead + (place * ahead_scale + row[i + 1] * ahead_coded)
                                   * ahead_lanes)


def class_posteriors(tuple tree, const row_code_t[:, ::1] codes, const index_t[::1] order,
                     Py_ssize_t target, bint as_prob, float64_t[:, ::1] out, index_t[::1] best,
                     flag_t[::1] done, tuple adjacent=()):
    """Posterior of every level of variable ``target`` given the rest of each row.

    The rows are walked in ``order`` (their positions; empty: ``0, 1, ...``),
    which may put rows sharing the start of their paths side by side.  A row counts the variables up to its last given one (or ``target``, if
    later); ``codes[r, target]`` is not read.  Rows with a missing value
    (-1) before that or an unknown value (< -1) anywhere are left to the
    caller: ``done[r]`` is 0 for them, 1 for the others.  ``out[r, a]`` is
    the log-posterior of level ``a`` (its probability with ``as_prob``; a
    column per level of the target; ``out`` with no rows: not written),
    all NaN where every level has probability 0 (paths through stages
    without probabilities count 0), and ``best[r]`` the first most probable
    level (-1 on NaN rows).  The normaliser is the largest score plus the
    log of the summed ``exp(score - largest)``, in level order.

    A block of rows is walked once up to the target (a lane per row), then
    a lane per row and level of the target, every level at once.  A full
    tree (every variable ``OWN`` over mixed-radix numbers) may come with
    ``adjacent``, its rows of log-probabilities with the target's levels
    adjacent (see :func:`_walk_adjacent`), an array per variable: its rows
    are then walked from their codes as they are.
    """
    cdef Tree t
    cdef Py_ssize_t r, b, i, a, j, block, start, size, deepest, last
    cdef Py_ssize_t n = order.shape[0] if order.shape[0] else codes.shape[0], m = codes.shape[1]
    cdef Py_ssize_t k = out.shape[1]  # the target's levels
    cdef Py_ssize_t rows = max(1, LANES // max(k, 1))  # rows per block
    cdef Py_ssize_t lanes = rows * max(k, 1)
    cdef const row_code_t* row
    cdef const char* ahead
    cdef bint full = len(adjacent) > 0
    cdef const float64_t[::1] table
    cdef Lanes s
    cdef const float64_t** by_level = <const float64_t**> malloc(
        max(m, len(adjacent), 1) * sizeof(float64_t*))
    if by_level == NULL:
        raise MemoryError()
    try:
        for i in range(len(adjacent)):
            table = adjacent[i]
            by_level[i] = &table[0]
        _tree(&t, tree)
        try:
            _allocate(&s, 0 if full else m, lanes)  # (a full tree's walk reads no lanes' paths)
            try:
                with nogil:
                    for block in range((n + rows - 1) // rows):
                        start = block * rows
                        size = min(rows, n - start)
                        deepest = target
                        for b in range(size):
                            r = order[start + b] if order.shape[0] else start + b
                            if order.shape[0] and start + b + ROWS_AHEAD < n:
                                # the rows in path order are scattered: each is
                                # fetched while the ones before it are copied
                                ahead = <const char*> &codes[order[start + b + ROWS_AHEAD], 0]
                                for i in range(0, m * <Py_ssize_t> sizeof(row_code_t), 64):
                                    __builtin_prefetch(ahead + i)
                            row = &codes[r, 0]
                            last = _last_walked(row, m, target)
                            done[r] = last >= 0
                            deepest = max(deepest, last)
                            if full:
                                s.last[b] = last
                                s.position[b] = r * m
                                continue
                            for a in range(k):
                                j = b * k + a
                                s.last[j] = last
                                for i in range(last + 1):
                                    s.paths[i * s.pitch + j] = row[i]
                                if last >= 0:
                                    s.paths[target * s.pitch + j] = <code_t> a
                        if full:
                            _walk_adjacent(&t, by_level, &codes[0, 0], size, deepest, target, k,
                                           &s)
                        else:
                            _start(&s, size * k)
                            _walk(&t, 0, target, size, k, &s)
                            _spread(&s, size, k)
                            _walk(&t, target, deepest + 1, size * k, 1, &s)
                        for b in range(size):
                            if s.last[b if full else b * k] < 0:
                                continue
                            for a in range(k):
                                # a path through a stage without probabilities counts 0
                                j = b * k + a
                                if s.totals[j] != s.totals[j]:
                                    s.totals[j] = -INFINITY
                            r = order[start + b] if order.shape[0] else start + b
                            _normalise(&s.totals[b * k], k, as_prob,
                                       &out[r, 0] if out.shape[0] else NULL, &best[r])
            finally:
                _release(&s)
        finally:
            _free_tree(&t)
    finally:
        free(by_level)


cdef inline void _normalise(const double* scores, Py_ssize_t k, bint as_prob, float64_t* out,
                            index_t* best) noexcept nogil:
    """Log-posteriors (or probabilities) of one row's scores, and its first
    best level; ``out`` NULL: only that level."""
    cdef Py_ssize_t a, first = 0
    cdef double top = -INFINITY, total = 0.0, norm, value, best_value = -INFINITY
    for a in range(k):
        if scores[a] > top:
            top = scores[a]
            first = a
    if top == -INFINITY:
        best[0] = -1
        if out != NULL:
            for a in range(k):
                out[a] = NAN
        return
    if out == NULL and _clear_winner(scores, first, top, k):
        best[0] = first
        return
    for a in range(k):
        # (exp(0) is 1 exactly: the top's term needs no call)
        total += 1.0 if scores[a] == top else exp(scores[a] - top)
    norm = top + log(total)
    for a in range(k):
        value = scores[a] - norm
        if a == 0 or value > best_value:
            best[0] = a
            best_value = value
        if out != NULL:
            out[a] = exp(value) if as_prob else value


cdef inline bint _clear_winner(const double* scores, Py_ssize_t first, double top,
                               Py_ssize_t k) noexcept nogil:
    """Whether ``first``, the first level of the largest score ``top``,
    is the first most probable level whatever the normaliser: no earlier
    score comes within rounding of it.  (Subtracting the normaliser ``n``
    keeps the order of the scores but may round two of them to one value;
    ``top - n`` is within ``log(k) + 1`` plus ``top``'s rounding of 0, and
    two values rounding alike differ by at most 2^-52 times their size.)"""
    cdef Py_ssize_t a
    cdef double margin = 1e-13 * (k + 1 + fabs(top))
    for a in range(first):
        if top - scores[a] <= margin:
            return False
    return True


def rows_of_columns(tuple columns, row_code_t[:, ::1] out):
    """``out[r, i] = columns[i][r]``, or -1 where ``columns[i]`` is None: the
    rows of codes of a frame's columns (of ``out``'s dtype), written a block
    of rows at a time (the block's rows stay in cache while every column is
    copied)."""
    cdef Py_ssize_t i, r, start, stop, n = out.shape[0], p = out.shape[1]
    cdef const row_code_t[::1] column
    cdef const row_code_t** source = <const row_code_t**> malloc(max(p, 1) * sizeof(row_code_t*))
    if source == NULL:
        raise MemoryError()
    try:
        for i in range(p):
            source[i] = NULL
            if columns[i] is not None:
                column = columns[i]
                source[i] = &column[0] if column.shape[0] else NULL
        with nogil:
            for start in range(0, n, 256):
                stop = min(start + 256, n)
                for i in range(p):
                    if source[i] == NULL:
                        for r in range(start, stop):
                            out[r, i] = -1
                    else:
                        for r in range(start, stop):
                            out[r, i] = source[i][r]
    finally:
        free(source)
