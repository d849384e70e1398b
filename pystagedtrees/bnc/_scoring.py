"""Cross-validated accuracy of candidate structures on fixed folds.

What bnclassify's ``cv_lp_partition`` computes for its greedy searches,
organised for speed: the test folds are pooled, equal rows of a fold are
scored once, the tables of each family are fitted once per search (the
training counts of a fold are the total minus the fold's own), and the
candidates of a step are scored in one compiled pass each, a candidate's
log-joint being the current structure's plus and minus the families that
changed.  A forward step whose candidates each add one family (fssj) is
fitted and scored in one kernel call without keeping their tables.  Random
tie breaking consumes the generator exactly as R does (fold by fold,
candidate by candidate, row by row).
"""
import math

import numpy as np

from pystagedtrees.base._validation import _physical_memory, check_fits_in_memory
from pystagedtrees.bnc._model import BNCModel
from pystagedtrees.bnc._predict import _model_log_joint
from pystagedtrees.kernels._bnc_counts import col_means, fold_cpts
from pystagedtrees.kernels._bnc_infer import (
    exp_rows,
    fold_added_hits,
    fold_cells,
    fold_family_counts,
    fold_hits,
    fold_log_joint,
    map_hits,
    max_col_ties,
)

__all__ = ["FoldScorer"]

# Bytes of family tables kept between steps; a family left out is refitted
# (a pass over the cells) when proposed again, and the candidates of a step
# are scored in chunks whose new tables fit in half of it.
POOL_BUDGET = min(2**30, (_physical_memory() or 2**33) // 8)


class _Family:
    """A family's place in the codes and its tables on the training folds.

    ``tables[k]`` is the CPT fitted without fold ``k`` (the class last),
    ``log_tables`` its logarithm; cell ``i`` reads the flattened tables at
    ``entries[i]`` (-1: a missing value) plus its class.
    """

    __slots__ = ("cols", "strides", "dims", "entries", "tables", "log_tables", "finite",
                 "nbytes", "last_used")

    def __init__(self, cols, dims):
        self.cols, self.dims = cols, dims
        # C-order strides of the table's axes but the class (the last)
        self.strides, stride = [0] * len(cols), dims[-1]
        for t in range(len(cols) - 1, -1, -1):
            self.strides[t] = stride
            stride *= dims[t]


class FoldScorer:
    """Cross-validated accuracy of structures on fixed folds (R's cv_lp_partition).

    The test folds, one after the other, make the "pool rows"; equal rows of
    one fold are scored once, as a weighted "cell".  Every family ever
    proposed keeps the CPT fitted on each training fold (within
    ``POOL_BUDGET``, least recently used out); a candidate's log-joint at a
    cell is the current structure's plus and minus the log-CPT entries of
    the families that differ, read at the cell's own fold.
    """

    def __init__(self, enc, folds, smooth):
        self.enc, self.smooth = enc, smooth
        self.class_var = enc.class_var
        self.col = {v: j for j, v in enumerate(enc.columns)}
        self.n_levels = {v: len(enc.levels[v]) for v in enc.columns}
        self.levels = np.array([self.n_levels[v] for v in enc.columns], dtype=np.int64)
        self.max_levels = max(self.n_levels.values())
        self.n_class = len(enc.levels[enc.class_var])
        self.n_folds = len(folds)
        sizes = [len(f) for f in folds]
        self.fold_sizes = np.array(sizes, dtype=float)
        self.bounds = np.cumsum([0] + sizes)
        self.row_fold = np.repeat(np.arange(len(folds), dtype=np.intp), sizes)
        pooled = np.concatenate(folds)  # the data's row of each pool row
        self.row_truth = enc.codes[pooled, enc.class_index]
        # equal rows of a fold make one cell: its cells follow those of the
        # folds before (the pool is fold-major), and their order within a fold
        # changes no score (hits and counts are sums of whole numbers)
        self.row_cell, first = np.empty((2, len(pooled)), dtype=np.int64)
        first = first[:fold_cells(np.ascontiguousarray(enc.codes, dtype=np.int32), self.levels,
                                  pooled, self.row_fold, self.row_cell, first)]
        self.multiplicity = np.bincount(self.row_cell, minlength=len(first))
        self.weight = self.multiplicity.astype(float)
        self.fold_of = np.ascontiguousarray(self.row_fold[first])
        self.cell_bounds = np.searchsorted(self.fold_of, np.arange(len(folds) + 1))
        self.codes = np.ascontiguousarray(enc.codes[pooled[first]], dtype=np.int32)
        self.truth = np.ascontiguousarray(self.codes[:, enc.class_index])
        self.by_column = np.ascontiguousarray(self.codes.T)  # what the counting reads
        features = [self.col[f] for f in enc.features]
        # Cells with missing feature values need inference (per fold): every
        # candidate's log-joint is then built and overwritten there.
        self.incomplete = (np.flatnonzero((self.codes[:, features] < 0).any(axis=1))
                           if self.codes.min() < 0 else np.zeros(0, dtype=np.intp))
        self.fitted = {}  # family -> _Family
        self.pool_bytes, self.clock = 0, 0
        self.current, self.base, self.groups = None, None, None

    def _families(self, dag):
        # R adds the class prior first, then the features in family order.
        return [(self.class_var,)] + [(f, *dag.parents[f], self.class_var)
                                      for f in dag.features]

    def _fit(self, families):
        """Fit the families not fitted yet: one counting pass for all of them."""
        new = [fam for fam in dict.fromkeys(families) if fam not in self.fitted]
        if not new:
            return
        made = [_Family([self.col[v] for v in family[:-1]], [self.n_levels[v] for v in family])
                for family in new]
        sizes = [math.prod(fam.dims) for fam in made]  # Python ints: no wrap-around
        # (each family fits if the largest does)
        self._check_fits(new[max(range(len(new)), key=sizes.__getitem__)])
        counts = [np.zeros((self.n_folds, size)) for size in sizes]
        for fam in made:
            fam.entries = np.empty(len(self.truth), dtype=np.int32)
        fold_family_counts(self.by_column, self.truth, self.fold_of, self.weight, *_layout(made),
                           counts, [fam.entries for fam in made])
        self._keep(new, made, counts)

    def _keep(self, new, made, counts):
        """Fit the CPTs of the families ``new`` (made as ``made``, with their
        ``counts`` per test fold) on the training folds and keep them."""
        # A training fold is every other fold.
        for fam, size in zip(made, (c.shape[1] for c in counts)):
            fam.tables, fam.log_tables = np.empty((self.n_folds, size)), np.empty((self.n_folds, size))
        has_zero = np.empty(len(made), dtype=np.uint8)
        fold_cpts(counts, np.array([fam.dims[0] for fam in made], dtype=np.int64), self.smooth,
                  [fam.tables for fam in made], [fam.log_tables for fam in made], has_zero)
        for family, fam, zero in zip(new, made, has_zero.tolist()):
            fam.finite = not zero
            fam.nbytes = 2 * fam.tables.nbytes + fam.entries.nbytes
            fam.last_used = self.clock
            self.fitted[family] = fam
        self.pool_bytes += sum(fam.nbytes for fam in made)

    def _check_fits(self, family):
        """Raise unless the tables of ``family`` fit in memory."""
        check_fits_in_memory(
            self._table_bytes(family),
            f"the tables of the candidate family of {family[0]!r} ({len(family)} "
            f"variables, {math.prod(self.n_levels[v] for v in family):,} cells per fold)",
            "give the features fewer levels or the search fewer parents (k)",
        )

    def _table_bytes(self, family, levels=None):
        """Bytes of the fold counts, CPTs and logs of ``family``, and its
        entries (with ``levels`` levels per variable if given)."""
        cells = (levels ** len(family) if levels is not None
                 else math.prod(self.n_levels[v] for v in family))
        return 3 * 8 * self.n_folds * cells + 4 * len(self.truth)

    def _shrink_pool(self, keep):
        """Drop the least recently used families outside ``keep`` (and the
        current structure) down to three quarters of the budget."""
        if self.pool_bytes <= POOL_BUDGET:
            return
        keep = set(keep) | set(self._families(self.current) if self.current else ())
        for family in sorted(self.fitted, key=lambda f: self.fitted[f].last_used):
            if self.pool_bytes <= 3 * POOL_BUDGET // 4:
                break
            if family not in keep:
                self.pool_bytes -= self.fitted.pop(family).nbytes

    def _terms(self, dag):
        """The families that make ``dag``'s log-joint, signed, and whether
        they apply to the current structure's (else to 0).

        Relative to the current structure when fewer families change than
        it has in all, and none removed holds a log 0 (-inf - -inf is NaN).
        """
        cur, cls = self.current, self.class_var
        if cur is not None and dag.origin is cur and len(dag.features) > 1:
            # one family changed or added (most candidates): a current one was fitted
            child = dag.child
            family = self.current_families.get(child)
            parents = dag.parents[child]
            if family is None:
                return [(child, *parents, cls)], _ONE_ADDED, True
            if parents != cur.parents[child] and self.fitted[family].finite:
                return [family, (child, *parents, cls)], _ONE_CHANGE, True
        if cur is not None:
            changed = dag.changed_since(cur)  # the common case: some parents or features added
            if changed is not None:
                minus = [(f, *cur.parents[f], cls) for f in changed if f in cur.parents]
                plus = [(f, *dag.parents[f], cls) for f in changed]
            else:
                minus = [(f, *ps, cls) for f, ps in cur.parents.items()
                         if dag.parents.get(f) != ps]
                plus = [(f, *ps, cls) for f, ps in dag.parents.items()
                        if cur.parents.get(f) != ps]
            if len(minus) + len(plus) < len(dag.features) + 1 \
                    and all(self.fitted[m].finite for m in minus):
                return minus + plus, [0] * len(minus) + [1] * len(plus), True
        fams = self._families(dag)
        return fams, [1] * len(fams), False

    def _sum_terms(self, terms, adds, from_base):
        """The log-joint at every cell of the signed ``terms`` (on the base)."""
        local = dict.fromkeys(terms)
        fams = [self.fitted[f] for f in local]
        out = np.empty((len(self.truth), self.n_class))
        fold_log_joint(self.base if from_base else None, [f.log_tables for f in fams],
                       [f.entries for f in fams], _term_ids(terms, local),
                       np.array(adds, dtype=np.uint8), out)
        return out

    def _log_joint(self, dag, terms, adds, from_base):
        """``dag``'s log-joint at every cell (missing values summed out), from
        its :meth:`_terms`."""
        out = self._sum_terms(terms, adds, from_base)
        if len(self.incomplete):
            out[self.incomplete] = self._log_joint_by_inference(self._families(dag))
        return out

    def _log_joint_by_inference(self, fams):
        """Log-joint of the incomplete cells, missing features summed out."""
        out = np.empty((len(self.incomplete), self.n_class))
        features = [fam[0] for fam in fams[1:]]
        cuts = np.searchsorted(self.incomplete, self.cell_bounds)
        for i in range(self.n_folds):
            if cuts[i] == cuts[i + 1]:
                continue
            params = {fam[0]: self.fitted[fam].tables[i].reshape(self.fitted[fam].dims)
                      for fam in fams}
            model = BNCModel(self.class_var, features, {fam[0]: fam for fam in fams},
                             levels={fam[0]: self.enc.levels[fam[0]] for fam in fams},
                             params=params)
            part = slice(cuts[i], cuts[i + 1])
            out[part] = _model_log_joint(model, self.codes[self.incomplete[part]],
                                         self.enc.columns)
        return out

    def scores(self, dags, draws):
        """Mean accuracy over folds of each structure (unnormalised MAP, R ties).

        R predicts fold by fold, candidate by candidate, drawing a uniform at
        each near-tie; the draws are made here in that order, after the
        deterministic rows of every candidate are settled.
        """
        n_cand, k = len(dags), self.n_folds
        if n_cand == 1 and not dags[0].features:  # the class alone (fssj's start)
            hits = self._class_only_hits()
            if hits is not None:
                return col_means(hits[:, None] / self.fold_sizes[:, None])
        correct = np.zeros((n_cand, k))
        events = np.zeros((k, n_cand), dtype=np.intp)
        unsettled = []
        self.clock += 1
        fitted = self.fitted
        cands = [(j, dag, *self._terms(dag)) for j, dag in enumerate(dags)]
        new = dict.fromkeys(f for cand in cands for f in cand[2] if f not in fitted)
        if sum(map(self._table_bytes, new)) <= POOL_BUDGET // 2:  # the common case
            self._score_chunk(cands, new, correct, events, unsettled)
        else:
            self._score_in_chunks(cands, correct, events, unsettled)
        if unsettled:
            uniforms = np.ascontiguousarray(draws.runif(int(events.sum())), dtype=np.float64)
            start = np.concatenate([[0], np.cumsum(events.ravel())])
            for j, tied, p in unsettled:
                pred = np.empty(len(tied), dtype=np.int32)
                cuts = np.searchsorted(tied, self.bounds)
                for i in range(k):
                    local = np.arange(cuts[i], cuts[i + 1], dtype=np.intp)
                    if len(local):
                        first = start[i * n_cand + j]
                        max_col_ties(p, local, uniforms[first:first + events[i, j]], pred)
                hits = pred == self.row_truth[tied]
                correct[j] += np.bincount(self.row_fold[tied[hits]], minlength=k)
        return col_means(correct.T / self.fold_sizes[:, None])

    def _class_only_hits(self):
        """Each fold's correct test rows under the class prior alone, from
        the class counts (every row of a fold shares the prior fitted
        without it); None where R would draw ties."""
        family, k, m = (self.class_var,), self.n_folds, self.n_class
        # the class counts of each test fold: one row per fold and true class
        pair = self.fold_of * m + self.truth
        weight = np.bincount(pair, weights=self.weight, minlength=k * m)
        if family not in self.fitted:
            made = _Family([], [m])
            made.entries = (self.fold_of * m).astype(np.int32)  # a fold's prior, class 0
            self._keep([family], [made], [weight.reshape(k, m)])
        hits, events = np.zeros(k), np.empty(k * m, dtype=np.intp)
        map_hits(np.repeat(self.fitted[family].log_tables, m, axis=0),
                 np.tile(np.arange(m, dtype=np.int32), k),
                 np.repeat(np.arange(k, dtype=np.intp), m), weight, hits, events)
        return None if events.any() else hits

    def added_scores(self, families, dags, draws):
        """:meth:`scores` of the current structure with one feature's family
        added each: ``families[j]`` is ``(feature, parents)``, ``dags()``
        the candidates as structures.

        Where the data are complete, every candidate's tables are fitted
        and its folds scored in one compiled pass, without keeping the
        tables; where a candidate would draw ties (R's uniforms are drawn
        across all of them in order) or values are missing, :meth:`scores`
        of ``dags()`` decides instead.
        """
        if len(self.incomplete) or self.current is None or not families:
            return self.scores(dags(), draws)
        # each family fits if the largest does, and that if a family of the
        # most variables at the most levels would (the common case: no search)
        widest = max(len(parents) for _, parents in families) + 2
        try:
            check_fits_in_memory(self._table_bytes(widest * (self.class_var,), self.max_levels),
                                 "", "")
        except ValueError:
            self._check_fits(max(((child, *ps, self.class_var) for child, ps in families),
                                 key=lambda fam: math.prod(self.n_levels[v] for v in fam)))
        group, group_fold, group_codes, group_base, group_levels = self._groups()
        col = self.col
        at = {f: i for i, f in enumerate(self.current.features)}
        # the candidates of one child side by side: the kernel counts its rows once
        children = np.array([col[child] for child, _ in families], dtype=np.int64)
        order = np.argsort(children, kind="stable")
        parents = [families[j][1] for j in order]
        hits = np.empty((len(families), self.n_folds))
        events = np.empty(len(families), dtype=np.intp)
        fold_added_hits(group, self.by_column, group_levels, self.truth, self.multiplicity,
                        group_fold, group_codes, group_base, children[order],
                        np.cumsum([0] + [len(ps) for ps in parents], dtype=np.int64),
                        np.array([at[p] for ps in parents for p in ps], dtype=np.int64),
                        self.smooth, hits, events)
        correct = np.empty_like(hits)
        correct[order] = hits
        if events.any():
            return self.scores(dags(), draws)
        return col_means(correct.T / self.fold_sizes[:, None])

    def _groups(self):
        """The cells of a fold with equal values of the current structure's
        features, which share its log-joint (added_scores decides each such
        group once per child value): each cell's group, and each group's
        fold, values (a feature after another), log-joint; the levels of the
        features, then of every column."""
        if self.groups is None:
            cols = [self.col[f] for f in self.current.features]
            values = np.ascontiguousarray(self.codes[:, cols])
            group, first = np.empty((2, len(self.truth)), dtype=np.int64)
            first = first[:fold_cells(values, self.levels[cols], np.arange(len(self.truth)),
                                      self.fold_of, group, first)]
            self.groups = (group, np.ascontiguousarray(self.fold_of[first]),
                           np.ascontiguousarray(values[first].T),
                           np.ascontiguousarray(self.base[first]),
                           np.concatenate([self.levels[cols], self.levels]))
        return self.groups

    def _score_in_chunks(self, cands, correct, events, unsettled):
        """:meth:`_score_chunk` of chunks of ``cands`` whose new tables fit in
        half the budget (each fitted when its chunk is scored)."""
        chunk, chunk_new, chunk_bytes = [], {}, 0
        fitted = self.fitted
        for cand in cands:
            terms = cand[2]
            new = [f for f in terms if f not in fitted and f not in chunk_new]
            size = sum(map(self._table_bytes, new)) if new else 0
            if chunk and chunk_bytes + size > POOL_BUDGET // 2:
                self._score_chunk(chunk, chunk_new, correct, events, unsettled)
                chunk, chunk_new, chunk_bytes = [], {}, 0
                new = [f for f in terms if f not in fitted]
                size = sum(map(self._table_bytes, new))
            chunk_new.update(dict.fromkeys(new))
            chunk_bytes += size
            chunk.append(cand)
        if chunk:
            self._score_chunk(chunk, chunk_new, correct, events, unsettled)

    def _score_chunk(self, chunk, new, correct, events, unsettled):
        """Settle the candidates of ``chunk`` (``new``: the families they
        propose that are not fitted yet): one compiled pass for all where the
        data are complete; the log-joint of those with tie draws (or of every
        one where cells miss values) is then built for R's draws."""
        self._shrink_pool(f for _, _, terms, _, _ in chunk for f in terms)
        self._fit(new)
        # candidates sharing all but their last term side by side: the kernel
        # sums those once (the scores do not depend on the order)
        runs = {}
        for cand in chunk:
            _, _, terms, adds, from_base = cand
            runs.setdefault((from_base, *terms[:-1], *adds[:-1]), []).append(cand)
        chunk = [cand for run in runs.values() for cand in run]
        ids, term_ids, term_adds, cand_ptr = {}, [], [], [0]
        for _, _, terms, adds, _ in chunk:  # each family once, in order of use
            term_ids += [ids.setdefault(f, len(ids)) for f in terms]
            term_adds += adds
            cand_ptr.append(len(term_ids))
        fams = [self.fitted[f] for f in ids]
        for fam in fams:
            fam.last_used = self.clock
        if len(self.incomplete):
            settle = chunk
        else:
            hits = np.zeros((len(chunk), self.n_folds))
            tie_draws = np.zeros(len(chunk), dtype=np.intp)
            fold_hits(self.truth, self.fold_of, self.multiplicity,
                      self.base if self.base is not None else np.zeros((len(self.truth),
                                                                        self.n_class)),
                      [f.log_tables for f in fams], [f.entries for f in fams],
                      np.array(cand_ptr, dtype=np.int64), np.array(term_ids, dtype=np.int64),
                      np.array(term_adds, dtype=np.uint8),
                      np.array([b for *_, b in chunk], dtype=np.uint8), hits, tie_draws)
            correct[[j for j, *_ in chunk]] = hits
            settle = [cand for cand, tied in zip(chunk, tie_draws) if tied]
        for j, dag, terms, adds, from_base in settle:
            self._settle(j, self._log_joint(dag, terms, adds, from_base), correct, events,
                         unsettled)

    def _settle(self, j, lj, correct, events, unsettled):
        """Candidate ``j``'s settled hits from its log-joint, and its tied rows
        (back in R's order, each drawing its own uniforms) for later."""
        cell_events = np.empty(len(self.truth), dtype=np.intp)
        hits = np.zeros(self.n_folds)
        map_hits(lj, self.truth, self.fold_of, self.weight, hits, cell_events)
        correct[j] = hits
        if cell_events.any():
            tied = np.flatnonzero(cell_events[self.row_cell])
            row_events = cell_events[self.row_cell[tied]]
            events[:, j] = np.bincount(self.row_fold[tied], weights=row_events,
                                       minlength=self.n_folds)
            p = np.empty((len(tied), self.n_class))
            exp_rows(np.ascontiguousarray(lj[self.row_cell[tied]]), p)  # map_hits' exp
            unsettled.append((j, tied, p))

    def set_current(self, dag):
        """Make ``dag`` the base of the incremental sums."""
        fams = self._families(dag)
        self._fit(fams)
        if self.current is not None and dag.origin is self.current \
                and dag.child not in self.current.parents and dag.child == dag.features[-1]:
            # a feature added last (fssj): its family is the last term of the sum
            self.base = self._sum_terms(fams[-1:], [1], True)
        else:
            self.base = self._sum_terms(fams, [1] * len(fams), False)
        self.current = dag
        self.groups = None  # see _groups
        self.current_families = {fam[0]: fam for fam in fams[1:]}


# the signs of a candidate's terms when one family changed: out, then in;
# when one was added: in
_ONE_CHANGE, _ONE_ADDED = (0, 1), (1,)


def _layout(fams):
    """``fam_ptr``, ``fam_cols`` and ``fam_strides`` of the kernels for ``fams``."""
    ptr = np.cumsum([0] + [len(f.cols) for f in fams], dtype=np.int64)
    cols = np.array([c for f in fams for c in f.cols], dtype=np.int64)
    strides = np.array([s for f in fams for s in f.strides], dtype=np.int64)
    return ptr, cols, strides


def _term_ids(terms, local):
    """The position in ``local`` (a dict in kernel order) of each term."""
    ids = {f: i for i, f in enumerate(local)}
    return np.array([ids[f] for f in terms], dtype=np.int64)
