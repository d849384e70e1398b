"""Probabilities and predictions from a fitted staged tree (R: R/probability.R, R/predict.R).

All computations are vectorised over rows: a row's log-probability is
accumulated variable by variable along its path.  Variables missing in a
row (before its last observed variable) are summed out by enumerating
their levels, as R does; a row with more than :data:`MAX_COMPLETIONS`
completions is refused (ValueError).
"""
from __future__ import annotations

import copy
import math
import weakref
from collections.abc import Iterable, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from pystagedtrees.base._dask import (
    check_partition_rows,
    check_same_partitions,
    dask_meta,
    is_dask_frame,
    refuse_dask,
)
from pystagedtrees.base._data import check_frame, encode_column
from pystagedtrees.base._validation import check_flag
from pystagedtrees.kernels._infer import dense_summed_out_logprob
from pystagedtrees.kernels._predict import (
    BY_PARENTS,
    DENSE,
    OWN,
    SPARSE,
    SPARSE_OWN,
    class_posteriors,
    path_log_probabilities,
    rows_of_columns,
)
from pystagedtrees.model._sevt import Sevt, check_sevt
from pystagedtrees.model._stagevec import DENSE_MAX, ParentStageVector, StageVector
from pystagedtrees.rng import Rng, Seed, continues_a_stream, resolve_source

if TYPE_CHECKING:
    import dask.dataframe as dd

__all__ = ["path_probability", "prob", "predict"]

# the code of a value that is not a level, where R computes with it (as an
# event of probability 0) instead of stopping
UNKNOWN = -2

# terms of a row's sum the kernel keeps; a row with more completions of its
# gaps computes their paths twice instead of holding them all
_COMPLETION_BUFFER = 1 << 16
# paths the sparse-tree fallback builds at once (rows x completions)
_SPARSE_PATHS = 1 << 18
# completions of one row's gaps summed at most: 2^24 paths take about 30 s
# here (R: hours); past that the work doubles with every binary gap
MAX_COMPLETIONS = 1 << 24


class _LogTables:
    """Log stage probabilities and stages of every variable, as the flat
    arrays of the compiled path kernels (see :mod:`pystagedtrees.kernels._predict`)."""

    def __init__(self, model):
        p = len(model.variables)
        with np.errstate(divide="ignore"):
            self.per_variable = [np.log(model.stage_probabilities(i)) for i in range(p)]
        trie = model.situation_trie
        self.vectors = [_by_number(model, i) for i in range(p)]
        self.n_levels = model.n_levels.astype(np.int64)
        kind = np.array([_storage(v, len(t)) for v, t in zip(self.vectors, self.per_variable)],
                        dtype=np.uint8)
        self.dense = trie is None and bool(np.isin(kind, (DENSE, OWN)).all())
        # a row of log-probabilities per mixed-radix situation everywhere
        self.full = trie is None and bool((kind == OWN).all())
        sparse = np.isin(kind, (SPARSE, SPARSE_OWN))
        stages = [_NONE if kind[i] in (OWN, SPARSE_OWN) else v.table if kind[i] == BY_PARENTS
                  else v.stage for i, v in enumerate(self.vectors)]
        # a row of log-probabilities per situation where stages are mostly
        # their own: one memory read per variable fewer
        log_prob = [np.take(t, v.stage, axis=0) if kind[i] == OWN
                    else np.take(t, np.append(v.stage, v.default), axis=0) if kind[i] == SPARSE_OWN
                    else t for i, (v, t) in enumerate(zip(self.vectors, self.per_variable))]
        listed = [v.sit if sparse[i] else _NONE for i, v in enumerate(self.vectors)]
        into = [trie.children[i - trie.first].ravel() if model.is_deep(i) else _NONE
                for i in range(p)]
        anchored = p if trie is None else trie.first
        # the rows of big trees are walked sorted by path (see _path_order)
        self.walk_sorted = bool(sparse.any())
        numbered = _listed_numbers(kind, listed, self.n_levels, self.vectors, trie)
        if numbered is not None:
            first, numbers, deep_into = numbered
            for i, table in enumerate(numbers, start=first):
                into[i], listed[i] = table, _NONE
                if kind[i] == SPARSE:  # the others' stage, by the number they share
                    stages[i] = np.append(stages[i], self.vectors[i].default)
                kind[i] = DENSE if kind[i] == SPARSE else OWN
            if deep_into is not None:
                into[anchored], anchored = deep_into, p
            sparse[:] = False
        child_start = [_NONE] * p
        for i in np.flatnonzero((kind[:-1] != BY_PARENTS) & sparse[1:]):
            parents = listed[i] if sparse[i] else np.arange(self.vectors[i].n_situations)
            first_children = np.searchsorted(listed[i + 1], parents * self.n_levels[i])
            child_start[i] = np.append(first_children, len(listed[i + 1]))
        self.log_prob_rows = [np.ascontiguousarray(x.ravel()) for x in log_prob]
        self.tree = (
            kind, self.n_levels, np.array([len(s) for s in listed], dtype=np.int64),
            np.array([v.default if sparse[i] else -1 for i, v in enumerate(self.vectors)],
                     dtype=np.int32),
            [np.ascontiguousarray(x, dtype=np.int32) for x in stages],
            listed, child_start,
            [v.lags if kind[i] == BY_PARENTS else _NONE for i, v in enumerate(self.vectors)],
            [_digit_weights(v.radices) if kind[i] == BY_PARENTS else _NONE
             for i, v in enumerate(self.vectors)],
            self.log_prob_rows,
            _NONE if trie is None else trie.anchor, into, anchored,
        )
        self._common = None
        self._adjacent = {}

    def adjacent(self, c):
        """For a full tree, the rows of log-probabilities of every variable
        with the levels of variable ``c`` adjacent (what the kernel's full
        walk reads: the levels' terms of a path share a cache line): from
        ``c`` on, the situation's digit of ``c`` moved last, the least
        significant.  Empty for other trees; built once per ``c``."""
        if not self.full:
            return ()
        if c not in self._adjacent:
            tables = self.log_prob_rows
            k, before = int(self.n_levels[c]), int(np.prod(self.n_levels[:c]))
            self._adjacent[c] = tuple(tables[:c + 1]) + tuple(
                np.ascontiguousarray(t.reshape(before, k, -1).transpose(0, 2, 1)).ravel()
                for t in tables[c + 1:])
        return self._adjacent[c]

    def common_stages(self, model):
        """Per variable, ``(stage id, exceptions)``: every situation not in the
        sorted array ``exceptions`` is in that stage (the default stage of a
        sparse vector, the commonest of a dense one); None for a vector stored
        by parent configuration.  Computed once, when rows with many
        completions ask."""
        if self._common is None:
            self._common = [_common_stage(model.stage_vector(i))
                            for i in range(len(model.variables))]
        return self._common

    def dense_arrays(self):
        """Stages, their starts, log-probabilities and their starts, variable
        after variable, of a tree stored densely (the gaps' kernel)."""
        stages = [v.stage for v in self.vectors]
        return (_flat(stages, np.int32), _starts(stages),
                _flat(self.per_variable, np.float64), _starts(self.per_variable))


_NONE = np.zeros(0, dtype=np.int64)

# per model, the parts its tables were built from and the tables; a model
# replaces its stage vectors and probabilities when they change (never edits
# them in place), so the same objects mean the same tables
_TABLES_OF = weakref.WeakKeyDictionary()


def log_tables_of(model):
    """The :class:`_LogTables` of ``model``, built once while its stages and
    probabilities stay the same (not on every call: they cost as much as
    the model holds)."""
    p = len(model.variables)
    parts = ([model.stage_vector(i) for i in range(p)]
             + [model.stage_probabilities(i) for i in range(p)] + [model.situation_trie])
    kept = _TABLES_OF.get(model)
    if kept is not None and len(kept[0]) == len(parts) and all(
            a is b for a, b in zip(kept[0], parts)):
        return kept[1]
    tables = _LogTables(model)
    _TABLES_OF[model] = (parts, tables)
    return tables


def _by_number(model, i):
    """Variable ``i``'s stage vector; a deep variable's written out over its
    trie numbers, the situations outside the trie last (what the kernels read)."""
    vector = model.stage_vector(i)
    if not model.is_deep(i):
        return vector
    stage = np.full(model.situation_trie.n_nodes(i) + 1, vector.default, dtype=np.int32)
    stage[vector.sit] = vector.stage  # (a deep vector lists trie numbers, with a default)
    return StageVector(len(stage), stage)


def _listed_numbers(kind, listed, n_levels, vectors, trie):
    """Number the situations of the sparse variables by their places among
    the listed ones, as a trie numbers deep ones, where that is exact: when
    every variable from the first sparse one on is sparse (or deep) and the
    parent of every listed situation is listed (as in trees fitted to data:
    the observed situations).  The unlisted situations then share one
    number, the count of listed ones, and so do their children; a row's
    number follows by one read per variable, not a search.

    Returns None, or the first sparse variable, the numbers of the children
    of each (``into`` tables, see :mod:`pystagedtrees.kernels._predict`,
    the first over the mixed-radix situations of the dense variable before
    it) and, with deep variables, the first deep one's table over those
    numbers instead of its anchor's places (None without).
    """
    sparse = np.isin(kind, (SPARSE, SPARSE_OWN))
    stop = len(kind) if trie is None else trie.first
    first = int(np.argmax(sparse))
    if not sparse[first] or first == 0 or not sparse[first:stop].all():
        return None
    numbers = []
    for i in range(first, stop):
        k, count = int(n_levels[i - 1]), len(listed[i])
        if i == first:
            table = np.full(vectors[i - 1].n_situations * k, count, dtype=np.int64)
            table[listed[i]] = np.arange(count)
        else:
            parent, level = np.divmod(listed[i], k)
            new = np.empty(len(parent), dtype=bool)
            new[:1] = True
            np.not_equal(parent[1:], parent[:-1], out=new[1:])
            distinct = parent[new]
            if len(distinct) == len(listed[i - 1]) and (distinct == listed[i - 1]).all():
                place = np.cumsum(new) - 1  # every listed situation has listed children
            else:
                place = np.searchsorted(listed[i - 1], parent)
                if len(parent) and (len(listed[i - 1]) == 0 or (
                        listed[i - 1][np.minimum(place, len(listed[i - 1]) - 1)] != parent).any()):
                    return None  # a listed situation under an unlisted one
            table = np.full((len(listed[i - 1]) + 1) * k, count, dtype=np.int64)
            table[place * k + level] = np.arange(count)
        numbers.append(table)
    deep_into = None
    if trie is not None:
        places = trie.anchor_places(listed[stop - 1])
        if np.count_nonzero(places < len(trie.anchor)) < len(trie.anchor):
            return None  # a path of the trie through an unlisted situation
        deep_into = trie.children[0][np.append(places, len(trie.anchor))].ravel()
    return first, numbers, deep_into


def _storage(vector, n_stages):
    if isinstance(vector, ParentStageVector):
        return BY_PARENTS
    own = 2 * n_stages >= len(vector.stage)
    if not vector.is_dense:
        return SPARSE_OWN if own and vector.default >= 0 else SPARSE
    return OWN if own else DENSE


def _digit_weights(radices):
    """Weight of each digit of a mixed-radix number, the first digit slowest."""
    return np.array([np.prod(radices[j + 1:]) for j in range(len(radices))], dtype=np.int64)


def _flat(arrays, dtype):
    """The arrays end to end (one element at least: the kernels take its address)."""
    return np.concatenate([np.ravel(a) for a in arrays] + [np.zeros(1, dtype=dtype)], dtype=dtype)


def _starts(arrays):
    return np.cumsum([0] + [np.size(a) for a in arrays[:-1]]).astype(np.int64)


def _common_stage(vector):
    if not isinstance(vector, StageVector):
        return None
    if not vector.is_dense and vector.default >= 0:
        return vector.default, vector.sit
    # every situation has its own id: dense, or sparse with all listed
    common = int(np.argmax(np.bincount(vector.stage)))
    exceptions = np.flatnonzero(vector.stage != common)
    return common, exceptions if vector.is_dense else vector.sit[exceptions]


def path_logprob(model, codes, log_tables=None):
    """Log-probability of complete paths over the first ``codes.shape[1]`` variables.

    ``codes`` holds no missing value.  Undefined probabilities (empty stages
    without smoothing) give NaN, as in R.
    """
    tables = log_tables_of(model) if log_tables is None else log_tables
    out = np.empty(codes.shape[0])
    path_log_probabilities(tables.tree, np.ascontiguousarray(codes, dtype=np.int32), out)
    return out


def _undefined_as_zero(log_prob):
    """NaN log-probabilities (paths through empty stages) as -inf."""
    return np.where(np.isnan(log_prob), -np.inf, log_prob)


def _log_sum_exp_in_order(values):
    """Per row, R's ``matrixStats::logSumExp(na.rm = TRUE)``: the first largest
    term plus ``log1p`` of the others' ``exp(x - top)`` added in order (as
    the compiled kernel sums); NaN counts as -inf."""
    values = _undefined_as_zero(values)
    rows = np.arange(len(values))
    top_index = values.argmax(axis=1)
    top = values[rows, top_index]
    defined = np.isfinite(top)
    terms = np.exp(values - np.where(defined, top, 0.0)[:, None])
    terms[rows, top_index] = 0.0
    total = np.cumsum(terms, axis=1)[:, -1]  # cumsum adds in order
    return np.where(defined, top + np.log1p(total), top)


def _logsumexp_rows(values):
    """log(sum(exp(values))) per row, NaN counted as -inf; all -inf gives -inf."""
    values = _undefined_as_zero(values)
    top = values.max(axis=1)
    safe = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        return safe + np.log(np.exp(values - safe[:, None]).sum(axis=1))


def _log_total(values):
    """log(sum(exp(values))) of one array, NaN counted as -inf."""
    return float(_logsumexp_rows(values[None, :])[0])


def marginal_logprob(model, codes, log_tables=None):
    """Log-probability of partially observed rows (missing codes are -1).

    Only variables up to a row's last observed one matter; missing ones
    before it are summed out.  A row with nothing observed has log-probability 0.
    A path through a stage without probabilities (no data, no smoothing)
    counts as probability 0, as in R's sum (``logSumExp(na.rm = TRUE)``),
    a single path included.
    """
    log_tables = log_tables_of(model) if log_tables is None else log_tables
    if (codes >= 0).all():
        return _undefined_as_zero(path_logprob(model, codes, log_tables))
    impossible = (codes == UNKNOWN).any(axis=1)
    if impossible.any():
        out = np.full(len(codes), -np.inf)
        out[~impossible] = marginal_logprob(model, codes[~impossible], log_tables)
        return out
    _check_completions(model, codes, log_tables)
    # each distinct row once: rows with missing values expand into every
    # completion of their gaps
    first, inverse = _distinct_rows(codes + 1, model.n_levels[: codes.shape[1]] + 1)
    distinct = np.ascontiguousarray(codes[first], dtype=np.int32)
    if log_tables.dense:
        out = np.empty(len(distinct))
        dense_summed_out_logprob(distinct, *log_tables.dense_arrays(), log_tables.n_levels,
                                 np.empty(_COMPLETION_BUFFER),
                                 np.empty(distinct.shape[1], dtype=np.int32), out)
        return out[inverse]
    return _undefined_as_zero(_summed_out_logprob(model, distinct, log_tables))[inverse]


def _check_completions(model, codes, log_tables):
    """Refuse rows whose gaps before their last observed value have too many
    completions, unless the tree distinguishes few of them and the rows are
    summed by :func:`_distinguished_logprob`."""
    present = codes >= 0
    observed_later = np.logical_or.accumulate(present[:, ::-1], axis=1)[:, ::-1]
    gaps = ~present & observed_later
    log2_completions = gaps @ np.log2(model.n_levels[: codes.shape[1]].astype(float))
    too_many = np.flatnonzero(log2_completions > math.log2(MAX_COMPLETIONS))
    if len(too_many) == 0:
        return
    masks, _ = _distinct_rows(present[too_many], np.full(codes.shape[1], 2))
    for row in too_many[masks]:  # one row per pattern of gaps
        missing = np.flatnonzero(gaps[row])
        upto = int(np.flatnonzero(present[row])[-1]) + 1
        if not log_tables.dense and (  # the dense kernel sums every completion
                _distinguished_paths(model, log_tables, missing, upto) <= MAX_COMPLETIONS):
            continue
        names = [model.variables[j] for j in missing]
        shown = ", ".join(map(repr, names[:6])) + (", ..." if len(names) > 6 else "")
        completions = math.prod(int(model.n_levels[j]) for j in missing)
        raise ValueError(
            f"a row misses {len(names)} values ({shown}) before its last observed one: "
            f"summing them out takes {completions} paths, more than the "
            f"{MAX_COMPLETIONS} this library sums (R sums them too, far more slowly); "
            "fill those values or leave out the later ones.")


def _distinguished_paths(model, log_tables, missing, upto):
    """Most partial paths :func:`_distinguished_logprob` holds at once for a
    row with gaps ``missing`` before ``upto``: entering variable ``i``, no
    more than the completions of the gaps so far, nor than the ancestors of
    the exceptions of variables ``i..upto-1`` (when each has a common stage);
    a gap at ``i`` multiplies them by its levels."""
    trie = model.situation_trie
    if trie is not None and upto > trie.first:  # situations numbered in mixed radix only
        return math.inf
    common = log_tables.common_stages(model)
    below = [0] * (upto + 1)  # exceptions of the variables i..upto-1
    for i in range(upto - 1, -1, -1):
        below[i] = math.inf if common[i] is None else below[i + 1] + len(common[i][1])
    gaps = set(int(j) for j in missing)
    worst, completions = 1, 1
    for i in range(upto):
        k = int(model.n_levels[i]) if i in gaps else 1
        worst = max(worst, min(completions, below[i] + 1) * k)
        completions *= k
    return worst


def _distinguished_logprob(model, row, upto, log_tables):
    """Log-probability of one row summed over the completions of its gaps
    before ``upto`` (its last observed variable, plus one), costed by the
    situations the tree distinguishes rather than by the completions.

    Partial paths advance variable by variable.  A partial path at a
    situation of variable ``i`` none of whose situations at or below it,
    down to ``upto``, is an exception (:meth:`_LogTables.common_stages`)
    meets only the common stages from there on: all such paths have the
    same future and are summed into one weight, ``free``.  What is left
    are ancestors of exceptions (see :func:`_distinguished_paths`).  Equal,
    up to rounding, to summing every completion's path.
    """
    n_levels = [int(k) for k in model.n_levels[:upto]]
    vectors = [model.stage_vector(j) for j in range(upto)]
    common = log_tables.common_stages(model)[:upto]
    mergeable_from = upto  # variables from here on all have a common stage
    while mergeable_from > 0 and common[mergeable_from - 1] is not None:
        mergeable_from -= 1
    sit, weight, free = np.zeros(1, dtype=np.int64), np.zeros(1), -np.inf
    for i in range(upto):
        if i >= mergeable_from and len(sit):
            alone = np.ones(len(sit), dtype=bool)
            span = 1  # situations of variable j below one of variable i
            for j in range(i, upto):
                exceptions = common[j][1]
                alone &= (np.searchsorted(exceptions, sit * span)
                          == np.searchsorted(exceptions, (sit + 1) * span))
                span *= n_levels[j]
            free = _log_total(np.append(weight[alone], free))
            sit, weight = sit[~alone], weight[~alone]
        log_p = _undefined_as_zero(log_tables.per_variable[i])
        level = int(row[i])
        if level >= 0:
            weight = weight + log_p[vectors[i].lookup(sit), level]
            sit = sit * n_levels[i] + level
            free_term = log_p[common[i][0], level] if i >= mergeable_from else 0.0
        else:
            weight = (weight[:, None] + log_p[vectors[i].lookup(sit)]).ravel()
            sit = (sit[:, None] * n_levels[i] + np.arange(n_levels[i])).ravel()
            free_term = _log_total(log_p[common[i][0]]) if i >= mergeable_from else 0.0
        free = free + free_term
    return _log_total(np.append(weight, free))


def _distinct_rows(values, radix):
    """A row index for each distinct row of ``values`` (column j in ``[0, radix[j])``),
    and the distinct row each row is."""
    radix = np.asarray(radix, dtype=np.int64)
    if np.log2(radix).sum() < 62:  # one integer key per row
        strides = np.cumprod(np.concatenate([radix[1:], [1]])[::-1])[::-1]
        _, first, inverse = np.unique(values.astype(np.int64) @ strides, return_index=True,
                                      return_inverse=True)
        return first, inverse
    _, first, inverse = np.unique(values, axis=0, return_index=True, return_inverse=True)
    return first, inverse.ravel()


def _summed_out_logprob(model, codes, log_tables):
    """Log-probabilities of rows with missing values, grouped by where they miss."""
    n, p = codes.shape
    present = codes >= 0
    out = np.zeros(n)
    first, group = _distinct_rows(present, np.full(p, 2))
    by_group = np.argsort(group, kind="stable")
    ends = np.cumsum(np.bincount(group, minlength=len(first)))
    for g, mask in enumerate(present[first]):
        rows = by_group[(ends[g - 1] if g else 0):ends[g]]
        if not mask.any():
            continue
        upto = int(np.flatnonzero(mask)[-1]) + 1
        prefix = codes[rows, :upto]
        missing = np.flatnonzero(~mask[:upto])
        if len(missing) == 0:
            out[rows] = path_logprob(model, prefix, log_tables)
            continue
        sizes = [int(model.n_levels[j]) for j in missing]
        n_completions = math.prod(sizes)
        # past the completions summed at most, _check_completions let only such rows in
        if n_completions > _COMPLETION_BUFFER and (n_completions > MAX_COMPLETIONS or (
                _distinguished_paths(model, log_tables, missing, upto) < n_completions // 4)):
            out[rows] = [_distinguished_logprob(model, codes[r], upto, log_tables) for r in rows]
            continue
        step = max(1, _SPARSE_PATHS // n_completions)
        for start in range(0, len(rows), step):
            part = slice(start, start + step)
            out[rows[part]] = _completed_logsumexp(model, prefix[part], missing, sizes, log_tables)
    return out


def _completion_logprob(model, prefix, missing, sizes, first, last, log_tables):
    """Log-probabilities (rows x completions) of completions ``first..last-1`` of
    the gaps ``missing``; the first gap varies fastest, as in R's expand.grid."""
    completions = np.array(np.unravel_index(np.arange(first, last), sizes, order="F")).T
    expanded = np.repeat(prefix, len(completions), axis=0)
    expanded[:, missing] = np.tile(completions, (len(prefix), 1))
    return path_logprob(model, expanded, log_tables).reshape(len(prefix), len(completions))


def _completed_logsumexp(model, prefix, missing, sizes, log_tables):
    """:func:`_log_sum_exp_in_order` over every completion of each row's gaps,
    building at most ``_SPARSE_PATHS`` paths at once: past that, a first pass
    finds each row's first largest term and a second adds the others in order."""
    n_completions = math.prod(sizes)
    if n_completions * len(prefix) <= _SPARSE_PATHS:
        return _log_sum_exp_in_order(
            _completion_logprob(model, prefix, missing, sizes, 0, n_completions, log_tables))
    chunks = [(a, min(a + _SPARSE_PATHS, n_completions))
              for a in range(0, n_completions, _SPARSE_PATHS)]
    rows = np.arange(len(prefix))
    top = np.full(len(prefix), -np.inf)
    top_at = np.zeros(len(prefix), dtype=np.int64)
    for a, b in chunks:
        values = _undefined_as_zero(_completion_logprob(model, prefix, missing, sizes, a, b,
                                                        log_tables))
        better = values.max(axis=1) > top  # strictly: the first largest stays
        top_at[better] = a + values.argmax(axis=1)[better]
        top[better] = values.max(axis=1)[better]
    defined = np.isfinite(top)
    total = np.zeros(len(prefix))
    for a, b in chunks:
        values = _undefined_as_zero(_completion_logprob(model, prefix, missing, sizes, a, b,
                                                        log_tables))
        terms = np.exp(values - np.where(defined, top, 0.0)[:, None])
        mine = (top_at >= a) & (top_at < b)
        terms[rows[mine], top_at[mine] - a] = 0.0
        # cumsum from the running total: the terms are added one by one, in order
        total = np.cumsum(np.column_stack([total, terms]), axis=1)[:, -1]
    return np.where(defined, top + np.log1p(total), top)


def _check_variables(model, columns, name, required=False):
    """Raise unless ``columns`` are variables of the model (``required``: all of them)."""
    unknown = [c for c in columns if c not in model.variables]
    if unknown:
        raise ValueError(
            f"`{name}` has variable(s) {unknown} that are not in the model "
            f"{model.variables}."
        )
    if required and len(set(columns)) < len(model.variables):
        raise ValueError(f"`{name}` must give a level for every variable of the model; it "
                         f"lacks {[v for v in model.variables if v not in columns]}.")


def _rows_of_partition(part, function, meta):
    """``function`` of one partition's rows, indexed as them; ``meta`` if it has none."""
    if len(part) == 0:
        return meta
    values = function(part)
    if isinstance(values, pd.DataFrame):
        return values
    return pd.Series(values, index=part.index, name=meta.name)


def _lazy_rows(frame, name, model, function, meta, required=False):
    """``function`` over the rows of the Dask frame ``frame``, lazily, partition by
    partition; its columns are checked against the model first (no data computed)."""
    _check_variables(model, dask_meta(frame, name).columns, name, required)
    return frame.map_partitions(_rows_of_partition, function, meta, meta=meta)


def encode_rows(model, frame, name, unknown_means=None, unread=()):
    """Codes (n x p) of a frame over the model's variables; absent columns are missing.

    A value that is not a level is an error, or with ``unknown_means`` (what
    it means, for the warning) the code ``UNKNOWN``: an impossible event.
    Columns named in ``unread`` are left missing without being read.
    """
    return encode_columns(model, frame, name, unknown_means, unread).rows()


class EncodedColumns:
    """The codes of a frame's rows, a column per variable of the model
    (None where the frame does not give it: missing); a Categorical's own
    codes as they are (int8 up to 127 levels), int32 otherwise."""

    def __init__(self, codes, n_rows):
        self.codes = codes
        self.n_rows = n_rows

    def rows(self, narrow=False):
        """The codes, a row per row of the frame and a column per variable:
        int32, or with ``narrow`` int8 when every column is (Categoricals'
        own codes: a quarter of the bytes to write and read)."""
        narrow = narrow and all(c.dtype == np.int8 for c in self.codes if c is not None)
        dtype = np.int8 if narrow else np.int32
        out = np.empty((self.n_rows, len(self.codes)), dtype=dtype)
        rows_of_columns(tuple(None if c is None else np.ascontiguousarray(c, dtype=dtype)
                              for c in self.codes), out)
        return out


def encode_columns(model, frame, name, unknown_means=None, unread=()):
    """The :class:`EncodedColumns` of a frame (see :func:`encode_rows`)."""
    frame = check_frame(frame, name)
    _check_variables(model, frame.columns, name)
    tree = model.tree  # (a copy per call)
    codes = [
        encode_column(frame[v], tree[v], v, name,
                      unknown_as=None if unknown_means is None else UNKNOWN,
                      unknown_means=unknown_means, native=True)
        if v in frame.columns and v not in unread else None
        for v in model.variables
    ]
    return EncodedColumns(codes, frame.shape[0])


def _as_frame(x, name):
    if isinstance(x, pd.DataFrame):
        return x
    if isinstance(x, (dict, pd.Series)):
        for variable, value in dict(x).items():
            if not isinstance(value, str) and (
                    isinstance(value, (Iterable, Mapping)) or np.ndim(value) > 0):
                raise TypeError(
                    f"`{name}` must map each variable to one level (a DataFrame gives one "
                    f"event per row); got {value!r} for {variable!r}."
                )
        return pd.DataFrame({str(k): [v] for k, v in dict(x).items()})
    raise TypeError(
        f"`{name}` must be a dict (variable -> level) or a DataFrame; got "
        f"{type(x).__name__}."
    )


def path_probability(object: Sevt,
                     x: Mapping[str, str] | Sequence[str] | pd.DataFrame | dd.DataFrame,
                     log: bool = False) -> float | np.ndarray | dd.Series:
    """Probability of complete paths (R's internal ``path_probability``).

    Parameters
    ----------
    object : Sevt
        A fitted model.
    x : dict, sequence, pandas.DataFrame or dask.dataframe.DataFrame
        A value for every variable (by name, or a sequence in tree order).
    log : bool, default False

    Returns
    -------
    float, numpy.ndarray or dask.dataframe.Series
        A Dask frame gets a lazy Dask Series, computed partition by partition.

    Examples
    --------
    >>> import pystagedtrees as st
    >>> model = st.full(st.datasets.titanic_table())
    >>> round(st.path_probability(model, ["Crew", "Male", "Adult", "No"]), 6)
    0.304407
    """
    check_sevt(object, fitted=True)
    log = check_flag(log, "log")
    if is_dask_frame(x):
        return _lazy_rows(x, "x", object, partial(path_probability, object, log=log),
                          pd.Series([], dtype=float), required=True)
    single = not isinstance(x, pd.DataFrame)
    if single and not isinstance(x, (dict, pd.Series)):
        # a string or number is one level, as R's length-one vectors
        values = [x] if isinstance(x, str) or not isinstance(x, Iterable) else list(x)
        if len(values) != len(object.variables):
            raise ValueError(
                f"`x` must give one level per variable ({len(object.variables)}); "
                f"got {len(values)}."
            )
        x = dict(zip(object.variables, values))
    codes = encode_rows(object, _as_frame(x, "x"), "x")
    if (codes < 0).any():
        raise ValueError("`x` must give a level for every variable of the model.")
    result = path_logprob(object, codes)
    result = result if log else np.exp(result)
    return float(result[0]) if single else result


def prob(object: Sevt, x: Mapping[str, str] | pd.DataFrame | dd.DataFrame,
         conditional_on: Mapping[str, str] | pd.DataFrame | None = None, log: bool = False,
         na0: bool = True) -> float | np.ndarray | dd.Series:
    """Probability of events, marginal or conditional (R: ``prob``).

    Parameters
    ----------
    object : Sevt
        A fitted model.
    x : dict, pandas.DataFrame or dask.dataframe.DataFrame
        Values of some variables (a dict for one event, a DataFrame for one
        event per row); the others are summed out (ValueError past 2^24
        completions of the gaps before an event's last given variable).  A
        Dask frame gets a lazy Dask Series.
    conditional_on : dict, pandas.DataFrame or dask.dataframe.DataFrame, optional
        The conditioning event: one row, or as many rows as ``x`` (or
        ``x`` has one row, used with each), as R's ``cbind`` recycles.  Its
        variables must differ from those of ``x``.  With a Dask ``x``: one
        event (a dict), or a Dask frame split into the partitions of ``x``
        (e.g. other columns of the same frame), paired row by row.
    log : bool, default False
        Return log-probabilities.
    na0 : bool, default True
        Return 0 where the probability is undefined (conditioning on an
        event of probability 0); otherwise NaN.  R's code returns 1 there
        (README, differences from R).  A path through a stage without
        probabilities (no data, no smoothing) counts 0 either way, as in R.

    Returns
    -------
    float, numpy.ndarray or dask.dataframe.Series

    Examples
    --------
    >>> import pystagedtrees as st
    >>> model = st.full(st.datasets.titanic_table(), lambda_=0)
    >>> round(st.prob(model, {"Survived": "Yes"}, conditional_on={"Class": "1st"}), 6)
    0.624615
    """
    check_sevt(object, fitted=True)
    log, na0 = check_flag(log, "log"), check_flag(na0, "na0")
    if is_dask_frame(x):
        return _lazy_prob(object, x, conditional_on, log, na0)
    refuse_dask(conditional_on, "conditional_on", "prob with an in-memory `x`",
                ["prob with a Dask `x` and one event (a dict) or a Dask frame split as `x` "
                 "as `conditional_on`"])
    single = not isinstance(x, pd.DataFrame)
    frame = _as_frame(x, "x").reset_index(drop=True)
    log_tables = log_tables_of(object)
    cond_lp = 0.0
    if conditional_on is not None:
        cond = _as_frame(conditional_on, "conditional_on").reset_index(drop=True)
        _check_disjoint(frame.columns, cond.columns)
        # as R's cbind, a single row is recycled along the other side's rows
        if len(cond) == 1 and len(frame) > 1:
            cond = cond.loc[np.zeros(len(frame), dtype=int)].reset_index(drop=True)
        elif len(frame) == 1 and len(cond) > 1:
            frame = frame.loc[np.zeros(len(cond), dtype=int)].reset_index(drop=True)
            single = False
        if len(cond) != len(frame):
            raise ValueError(
                f"`x` and `conditional_on` must have as many rows, or one of them one "
                f"row; got {len(frame)} and {len(cond)}."
            )
        cond_codes = encode_rows(object, cond, "conditional_on", _UNKNOWN_IN_PROB)
        cond_lp = marginal_logprob(object, cond_codes, log_tables)
    codes = encode_rows(object, frame, "x", _UNKNOWN_IN_PROB)
    if conditional_on is not None:  # the joint event: their columns are disjoint
        codes = np.where(codes == -1, cond_codes, codes)
    joint = marginal_logprob(object, codes, log_tables)
    with np.errstate(invalid="ignore"):
        result = joint - cond_lp
    result = np.where(np.isnan(result), -np.inf if na0 else np.nan, result)
    result = result if log else np.exp(result)
    return float(result[0]) if single else result


def _lazy_prob(model, x, conditional_on, log, na0):
    """:func:`prob` of the rows of the Dask frame ``x``, lazily: conditional on one event
    (a dict or Series), or row by row on a Dask frame split into the same partitions."""
    function = partial(prob, model, log=log, na0=na0)
    meta = pd.Series([], dtype=float)
    if conditional_on is None or isinstance(conditional_on, (dict, pd.Series)):
        if conditional_on is not None:
            names = [str(k) for k in dict(conditional_on)]
            _check_variables(model, names, "conditional_on")
            _check_disjoint(dask_meta(x, "x").columns, names)
        return _lazy_rows(x, "x", model, partial(function, conditional_on=conditional_on), meta)
    if not is_dask_frame(conditional_on):
        raise TypeError("`conditional_on` must be one event (a dict) or a Dask DataFrame split "
                        "into the partitions of `x` when `x` is a Dask DataFrame; got "
                        f"{type(conditional_on).__name__}.")
    check_same_partitions(x, "x", conditional_on, "conditional_on")
    columns = dask_meta(x, "x").columns
    _check_variables(model, columns, "x")
    condition = dask_meta(conditional_on, "conditional_on").columns
    _check_variables(model, condition, "conditional_on")
    _check_disjoint(columns, condition)
    import dask.dataframe as dd

    return dd.map_partitions(_conditional_partition, function, x, conditional_on,
                             align_dataframes=False, meta=meta)


def _check_disjoint(x_columns, condition_columns):
    overlap = sorted(set(x_columns) & set(condition_columns))
    if overlap:
        raise ValueError(f"`x` and `conditional_on` must name different variables; both have "
                         f"{overlap}.")


def _conditional_partition(function, x, condition):
    """``function`` of one partition of ``x`` conditional on the same rows of
    ``condition``, as a Series indexed as ``x``."""
    check_partition_rows(x, condition, ("x", "conditional_on"))
    if len(x) == 0:
        return pd.Series([], index=x.index, dtype=float)
    return pd.Series(function(x, conditional_on=condition), index=x.index)


_UNKNOWN_IN_PROB = ("an event with it has probability 0 (as in R when it is the last value "
                    "given; before that R stops).")


def _all_combinations(model):
    sizes = [int(k) for k in model.n_levels]
    total = int(np.prod(sizes, dtype=object))
    if total > DENSE_MAX:
        raise ValueError(
            f"`newdata` is needed: the model has {total} level combinations, "
            "too many to predict them all."
        )
    codes = np.array(np.unravel_index(np.arange(total), sizes, order="F")).T
    return pd.DataFrame(
        {v: pd.Categorical.from_codes(codes[:, i], model.tree[v]) for i, v in enumerate(model.variables)}
    )


def predict(object: Sevt, newdata: pd.DataFrame | dd.DataFrame | None = None,
            class_: str | None = None, prob: bool = False, log: bool = False, seed: Seed = None,
            rng: Rng = None) -> pd.Categorical | pd.DataFrame | dd.Series | dd.DataFrame:
    """Predict a variable from the others (R: ``predict.sevt``).

    Parameters
    ----------
    object : Sevt
        A fitted model.
    newdata : pandas.DataFrame or dask.dataframe.DataFrame, optional
        Rows to predict; variables absent or missing in a row are summed
        out (ValueError past 2^24 completions of a row's gaps).  Default:
        every combination of levels.  A Dask frame is predicted lazily,
        partition by partition; with ``rng``, its ties draw what the same
        rows in memory draw (the partitions in order, each taking the
        generator where the previous one left it), which needs a
        generator of the call's own (a name and a seed), not one in use.
    class_ : str, optional
        The variable to predict (default: the root).
    prob : bool, default False
        Return the conditional class probabilities instead of labels.
    log : bool, default False
        With ``prob``, return log-probabilities.
    seed : int or numpy.random.Generator, optional
        Seed of ``rng``; giving it without ``rng`` is an error (it would be
        unused).
    rng : None, "numpy", "R", "R-rounding" or a random source in use, default None
        How ties between equally probable classes are broken.  None: the
        first class wins.  Otherwise a class is drawn among the tied ones,
        as R does (see :mod:`pystagedtrees.rng`); ``rng="R"`` draws what R
        draws after ``set.seed(seed)``.

    Returns
    -------
    pandas.Categorical or pandas.DataFrame
        The most probable class per row (NaN where every class has
        probability 0), or a DataFrame of probabilities with one column per
        class level; for a Dask ``newdata``, a Dask Series (categorical) or
        DataFrame.

    Examples
    --------
    >>> import pystagedtrees as st
    >>> model = st.full(st.datasets.titanic_table(), order=["Survived", "Class", "Sex", "Age"], lambda_=1)
    >>> import pandas as pd
    >>> rows = pd.DataFrame({"Class": ["1st", "Crew"], "Sex": ["Female", "Male"], "Age": ["Adult", "Adult"]})
    >>> list(st.predict(model, rows))
    ['Yes', 'No']
    """
    check_sevt(object, fitted=True)
    prob, log = check_flag(prob, "prob"), check_flag(log, "log")
    class_ = object.variables[0] if class_ is None else class_
    c = object.var_index(class_, "class_")
    source = resolve_source(seed, rng, optional=True)
    if is_dask_frame(newdata):
        levels = pd.Index(object.tree[class_], name=class_)
        meta = (pd.DataFrame(np.empty((0, len(levels))), columns=levels) if prob else
                pd.Series(pd.Categorical([], categories=levels), name=class_))
        if source is not None and not prob:
            if continues_a_stream(seed, rng):
                raise ValueError(
                    "`rng`: a random source (or numpy Generator) in use cannot break the ties "
                    "of a Dask `newdata`: its draws would happen when the result is computed, "
                    "not in turn with its other draws; give `rng` a name ('numpy', 'R', "
                    "'R-rounding') and an integer `seed`.")
            return _lazy_draws(newdata, object, class_, c, source, meta)
        return _lazy_rows(newdata, "newdata", object,
                          partial(predict, object, class_=class_, prob=prob, log=log), meta)
    frame = _all_combinations(object) if newdata is None else newdata
    values, best = _class_posterior_of(object, frame, c, as_prob=prob and not log,
                                       keep_values=prob or source is not None)
    levels = object.tree[class_]
    if prob:  # (the values are this call's own: the frame holds them, no copy)
        return pd.DataFrame(values, index=frame.index, columns=pd.Index(levels, name=class_),
                            copy=False)
    if source is not None:
        best = most_probable(values, source)
    return pd.Categorical.from_codes(best, levels)


def _class_posterior_of(model, frame, c, as_prob, keep_values):
    """:func:`class_posterior` of the rows of ``frame`` (the class column unread)."""
    # the class column's own values are not read, as R sets it to NA
    columns = encode_columns(model, frame, "newdata",
                             "the rows with it have no prediction, NaN (as in R when it is the "
                             "row's last value; before that R stops).",
                             unread=(model.variables[c],))
    return class_posterior(model, columns, c, as_prob=as_prob, keep_values=keep_values)


def _partition_ties(part, model, c):
    """One partition's index and :func:`tied_rows` (no draws: the partitions compute
    these side by side)."""
    if len(part) == 0:
        k = int(model.n_levels[c])
        return part.index, *tied_rows(np.empty((0, k)))
    values, _ = _class_posterior_of(model, part, c, as_prob=False, keep_values=True)
    return part.index, *tied_rows(values)


def _draw_partition(ties, source, levels, name):
    """A partition's labels, its ties drawn from ``source`` (copied: the task's input
    stays as it was, so computing again draws the same), and the source after them."""
    index, best, rows, tied, undefined = ties
    source = copy.deepcopy(source)
    best = draw_ties(best.copy(), rows, tied, undefined, source)
    return pd.Series(pd.Categorical.from_codes(best, levels), index=index, name=name), source


def _lazy_draws(frame, model, class_, c, source, meta):
    """The labels of a Dask frame with ties drawn from ``source`` as the rows of all its
    partitions in turn would draw them in memory: the posteriors of the partitions side
    by side, then their draws in a chain, each task taking the source as the previous
    one left it."""
    import dask.dataframe as dd
    from dask import delayed

    _check_variables(model, dask_meta(frame, "newdata").columns, "newdata", False)
    ties = frame.map_partitions(_partition_ties, model, c, meta=pd.Series([], dtype=object),
                                enforce_metadata=False).to_delayed()
    draw = delayed(_draw_partition, nout=2)
    labels = []
    for part in ties:
        part_labels, source = draw(part, source, meta.cat.categories, class_)
        labels.append(part_labels)
    return dd.from_delayed(labels, meta=meta, divisions=frame.divisions, verify_meta=False)


def class_posterior(model, columns, c, as_prob=False, keep_values=True):
    """Posterior of the levels of variable ``c`` given the rest of each row.

    ``columns`` are :class:`EncodedColumns`; the values of ``c`` are not
    read.  Returns the log-posteriors (rows x levels; probabilities with
    ``as_prob``; None without ``keep_values``) and the first most probable
    level of each row (-1 where undefined).  As in R, the normaliser is not
    max-shifted: rows where every level has probability 0 are all NaN.
    Rows with gaps before their last given value sum them out.
    """
    tables = log_tables_of(model)
    n, k = columns.n_rows, int(model.n_levels[c])
    values = np.empty((n if keep_values else 0, k))  # (no rows: the kernel writes none)
    best = np.empty(n, dtype=np.int64)
    done = np.empty(n, dtype=np.uint8)
    codes = columns.rows(narrow=True)
    order = _path_order(model, columns, c, tables)
    class_posteriors(tables.tree, codes, _NONE if order is None else order, c, as_prob, values,
                     best, done, tables.adjacent(c))
    gaps = np.flatnonzero(done == 0)
    if len(gaps):
        log_post = _summed_out_log_posterior(model, codes[gaps].astype(np.int32), c, tables)
        best[gaps] = most_probable(log_post)
        if keep_values:
            values[gaps] = np.exp(log_post) if as_prob else log_post
    return (values if keep_values else None), best


def _path_order(model, columns, c, tables):
    """An order of many rows of a tree with sparse variables that walks their
    paths in order (rows sharing a prefix one after the other, so the
    tree's memory is read in order), or None.  The key is the situation
    index over the given variables (missing values as an extra level), up
    to the variables it fits in 62 bits less those of a row's position,
    which the key's low bits hold: sorting the keys (far faster than
    arg-sorting them) gives the order.  Past a few dozen variables rows
    rarely share a path, so the variables left out hardly matter."""
    if columns.n_rows < 4096 or not tables.walk_sorted:
        return None
    position_bits = int(columns.n_rows - 1).bit_length()
    key = np.zeros(columns.n_rows, dtype=np.int64)
    bits = 0.0
    for i, column in enumerate(columns.codes):
        radix = int(model.n_levels[i]) + 1
        bits += math.log2(radix)
        if bits > 62 - position_bits:
            break
        key *= radix
        if column is not None and i != c:
            key += column + 1
    key <<= position_bits
    key |= np.arange(columns.n_rows)
    # any sort: a row's result does not depend on the order (the default, SIMD, is fastest)
    key.sort()
    return key & ((1 << position_bits) - 1)


def class_log_posterior(model, codes, c):
    """Log-probabilities (rows x levels) of the levels of variable ``c`` given
    the rest of each row of ``codes`` (n x p, -1 for missing); see
    :func:`class_posterior`."""
    columns = EncodedColumns(list(codes.T), codes.shape[0])
    return class_posterior(model, columns, c)[0]


def _summed_out_log_posterior(model, codes, c, log_tables):
    """:func:`class_log_posterior` of rows with gaps, a level of ``c`` at a
    time (``codes`` is overwritten in column ``c``)."""
    scores = np.empty((codes.shape[0], int(model.n_levels[c])))
    for a in range(scores.shape[1]):
        codes[:, c] = a
        scores[:, a] = marginal_logprob(model, codes, log_tables)
    norm = _logsumexp_rows(scores)
    with np.errstate(invalid="ignore"):
        log_post = scores - norm[:, None]
    log_post[~np.isfinite(norm)] = np.nan
    return log_post


def most_probable(log_post, source=None):
    """Code of the most probable level per row, -1 on NaN rows.

    Ties go to the first level, or with a random ``source`` (a
    :class:`~pystagedtrees.rng.RandomSource`) to a level drawn among the
    tied ones, row by row, as R's ``which_class`` draws: ``sample(tied,
    1)``, where a NaN row counts as a tie of every level (R consumes a draw
    there too).
    """
    best, rows, tied, undefined = tied_rows(log_post)
    return best if source is None else draw_ties(best, rows, tied, undefined, source)


def tied_rows(log_post):
    """What :func:`most_probable` draws from: the first most probable level per row
    (-1 on NaN rows), the rows with ties, their tied levels (flags) and whether each
    is a NaN row."""
    undefined = np.isnan(log_post).all(axis=1)
    safe = np.where(undefined[:, None], 0.0, log_post)
    best = np.where(undefined, -1, np.argmax(safe, axis=1))
    tied = safe == safe.max(axis=1, keepdims=True)
    rows = np.flatnonzero(tied.sum(axis=1) > 1)
    return best, rows, tied[rows], undefined[rows]


def draw_ties(best, rows, tied, undefined, source):
    """``best`` with a level drawn among the tied ones of each of ``rows`` in turn
    (:func:`tied_rows`); a NaN row draws too, and stays -1."""
    for row, flags, nan_row in zip(rows, tied, undefined):
        levels = np.flatnonzero(flags)
        choice = levels[source.sample_int(len(levels), 1)[0]]
        best[row] = -1 if nan_row else choice
    return best
