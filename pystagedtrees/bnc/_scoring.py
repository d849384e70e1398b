"""Cross-validated accuracy of candidate structures on fixed folds.

What bnclassify's ``cv_lp_partition`` computes for its greedy searches,
organised for speed: the test folds are pooled, equal rows of a fold are
scored once, the log-CPT of each family is gathered once per search, and a
candidate's log-joint is the current structure's plus and minus the
families that changed.  Random tie breaking consumes the generator exactly
as R does (fold by fold, candidate by candidate, row by row).
"""
import math

import numpy as np

from pystagedtrees.base._validation import _physical_memory, check_fits_in_memory
from pystagedtrees.bnc._model import BNCModel
from pystagedtrees.bnc._params import cpt
from pystagedtrees.bnc._predict import _model_log_joint
from pystagedtrees.kernels._bnc_counts import col_means
from pystagedtrees.kernels._bnc_infer import (
    exp_rows,
    family_index_counts,
    gather_by_fold,
    map_hits,
    max_col_ties,
    pool_delta,
    pool_sum,
)

__all__ = ["FoldScorer"]

# Bytes of family scores (slots and fold CPTs) kept between candidates; a
# family left out is recomputed (a pass over the cells) when proposed again.
# Searches ran as fast or faster within 1 GiB than holding everything (less
# memory traffic), so the budget is small.
POOL_BUDGET = min(2**30, (_physical_memory() or 2**33) // 8)


def _row_keys(fold, codes, n_levels):
    """Integer keys equal exactly for equal (fold, row) pairs, fold-major.

    Mixed-radix when it fits in int64 (missing codes shifted to 0), else the
    row position, which leaves every row its own cell.
    """
    radix = [n + 1 for n in n_levels]
    if np.sum(np.log2(radix)) + np.log2(fold.max() + 2) >= 62:
        return fold.astype(np.int64) * len(fold) + np.arange(len(fold))
    key = fold.astype(np.int64)
    for j, r in enumerate(radix):
        key = key * r + (codes[:, j] + 1)
    return key


class FoldScorer:
    """Cross-validated accuracy of structures on fixed folds (R's cv_lp_partition).

    The test folds, one after the other, make the "pool rows"; equal rows of
    one fold are scored once, as a weighted "cell".  For every family ever
    proposed, the log-CPT fitted on each training fold is read at the cells
    of the matching test fold, once, into a slot of ``pool``; a candidate's
    log-joint is then the current structure's plus and minus a few slots.
    """

    def __init__(self, enc, folds, smooth):
        self.enc, self.smooth = enc, smooth
        self.class_var = enc.class_var
        self.col = {v: j for j, v in enumerate(enc.columns)}
        self.n_class = len(enc.levels[enc.class_var])
        self.n_folds = len(folds)
        sizes = [len(f) for f in folds]
        self.fold_sizes = np.array(sizes, dtype=float)
        self.bounds = np.cumsum([0] + sizes)
        self.row_fold = np.repeat(np.arange(len(folds), dtype=np.intp), sizes)
        rows = enc.codes[np.concatenate(folds)]
        self.row_truth = rows[:, enc.class_index]
        _, first, self.row_cell, counts = np.unique(
            _row_keys(self.row_fold, rows, [len(enc.levels[c]) for c in enc.columns]),
            return_index=True, return_inverse=True, return_counts=True)
        self.weight = counts.astype(float)
        self.fold_of = np.ascontiguousarray(self.row_fold[first])
        self.cell_bounds = np.searchsorted(self.fold_of, np.arange(len(folds) + 1))
        self.codes = np.ascontiguousarray(rows[first], dtype=np.int32)
        self.truth = np.ascontiguousarray(self.codes[:, enc.class_index])
        features = [self.col[f] for f in enc.features]
        # Cells with missing feature values need inference (per fold); the
        # incremental sums are overwritten there.
        self.incomplete = np.flatnonzero((self.codes[:, features] < 0).any(axis=1))
        # The slots: pool[slot] is a family's log-CPT at every pool row; the
        # pool doubles when full (n_slots of its slots are taken).
        self.pool = np.empty((8, len(self.truth), self.n_class))
        self.n_slots = 0
        self.slots, self.fold_cpts = {}, {}
        self.infinite = set()  # slots holding -inf (log 0), unfit for subtraction
        self.base, self.current = None, None
        # least recently used slots go first once the pool outgrows POOL_BUDGET
        self.family_of, self.last_used, self.free = {}, {}, []
        self.pool_bytes, self.clock = 0, 0

    def _families(self, dag):
        # R adds the class prior first, then the features in family order.
        return [(self.class_var,)] + [(f, *dag.parents[f], self.class_var)
                                      for f in dag.features]

    def _fold_cpts(self, family):
        """Row index into the family's CPT, and the CPT of each training fold."""
        cached = self.fold_cpts.get(family)
        if cached is not None:
            return cached
        dims = [len(self.enc.levels[v]) for v in family]
        size = math.prod(dims)  # Python ints: no wrap-around
        check_fits_in_memory(  # the fold counts, their training sums and CPTs
            3 * 8 * self.n_folds * size,
            f"the tables of the candidate family of {family[0]!r} ({len(family)} variables, "
            f"{size:,} cells per fold)",
            "give the features fewer levels or the search fewer parents (k)",
        )
        index = np.empty(len(self.truth), dtype=np.intp)
        in_fold = np.zeros((self.n_folds, size))
        family_index_counts(self.codes, np.array([self.col[v] for v in family[:-1]], dtype=np.intp),
                            np.array(dims[:-1], dtype=np.intp), self.truth, self.fold_of,
                            self.weight, index, in_fold)
        in_fold = in_fold.reshape(self.n_folds, *dims)
        # A training fold is every other fold.
        tables = cpt(in_fold.sum(axis=0) - in_fold, self.smooth, axis=1)
        self.fold_cpts[family] = index, tables.reshape(self.n_folds, size)
        self.pool_bytes += index.nbytes + tables.nbytes
        return self.fold_cpts[family]

    def _slot(self, family):
        """Pool slot holding the family's log-CPT at every pool row."""
        self.clock += 1
        slot = self.slots.get(family)
        if slot is not None:
            self.last_used[slot] = self.clock
            return slot
        index, tables = self._fold_cpts(family)
        if self.free:
            slot = self.free.pop()
        else:
            slot = self.n_slots
            self.n_slots += 1
            if slot == len(self.pool):
                self.pool = np.concatenate([self.pool, np.empty_like(self.pool)])
        values = self.pool[slot]
        with np.errstate(divide="ignore"):
            gather_by_fold(index, self.fold_of, np.log(tables), values)
        if np.isinf(values).any():
            self.infinite.add(slot)
        self.slots[family], self.family_of[slot] = slot, family
        self.last_used[slot] = self.clock
        self.pool_bytes += values.nbytes
        return slot

    def _shrink_pool(self):
        """Drop the least recently used slots (and their families' fold CPTs)
        outside the current structure, down to three quarters of the budget,
        so memory stays bounded."""
        if self.pool_bytes <= POOL_BUDGET:
            return
        keep = self.current or set()
        for slot in sorted(self.last_used, key=self.last_used.get):
            if self.pool_bytes <= 3 * POOL_BUDGET // 4:
                break
            if slot in keep:
                continue
            family = self.family_of.pop(slot)
            del self.slots[family], self.last_used[slot]
            index, tables = self.fold_cpts.pop(family)
            self.pool_bytes -= self.pool[slot].nbytes + index.nbytes + tables.nbytes
            self.infinite.discard(slot)
            self.free.append(slot)

    def _log_joint(self, fams):
        out = self._log_joint_by_slots(fams)
        if len(self.incomplete):
            out[self.incomplete] = self._log_joint_by_inference(fams)
        return out

    def _log_joint_by_slots(self, fams):
        self._shrink_pool()  # between candidates: no slot of this one is held yet
        slots = [self._slot(fam) for fam in fams]
        out = np.empty((len(self.truth), self.n_class))
        ordered = np.array(slots, dtype=np.intp)
        if self.current is not None:
            now = set(slots)
            minus = [s for s in self.current if s not in now]
            plus = [s for s in slots if s not in self.current]
            if len(minus) + len(plus) < len(slots) and self.infinite.isdisjoint(minus):
                pool_delta(self.pool, self.base, np.array(minus, dtype=np.intp),
                           np.array(plus, dtype=np.intp), out)
                return out
        pool_sum(self.pool, ordered, out)
        return out

    def _log_joint_by_inference(self, fams):
        """Log-joint of the incomplete cells, missing features summed out."""
        out = np.empty((len(self.incomplete), self.n_class))
        parts = {fam[0]: (fam, self._fold_cpts(fam)[1]) for fam in fams}
        features = [fam[0] for fam in fams[1:]]
        cuts = np.searchsorted(self.incomplete, self.cell_bounds)
        for i in range(self.n_folds):
            if cuts[i] == cuts[i + 1]:
                continue
            params = {v: tables[i].reshape([len(self.enc.levels[u]) for u in fam])
                      for v, (fam, tables) in parts.items()}
            model = BNCModel(self.class_var, features, {v: fam for v, (fam, _) in parts.items()},
                             levels={v: self.enc.levels[v] for v in parts}, params=params)
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
        correct = np.zeros((k, n_cand))
        events = np.zeros((k, n_cand), dtype=np.intp)
        unsettled = []
        for j, dag in enumerate(dags):
            lj = self._log_joint(self._families(dag))
            cell_events = np.empty(len(self.truth), dtype=np.intp)
            hits = np.zeros(k)
            map_hits(lj, self.truth, self.fold_of, self.weight, hits, cell_events)
            correct[:, j] = hits
            if cell_events.any():
                # Back to the rows, in R's order, each drawing its own uniforms.
                tied = np.flatnonzero(cell_events[self.row_cell])
                row_events = cell_events[self.row_cell[tied]]
                events[:, j] = np.bincount(self.row_fold[tied], weights=row_events, minlength=k)
                p = np.empty((len(tied), self.n_class))
                exp_rows(np.ascontiguousarray(lj[self.row_cell[tied]]), p)  # map_hits' exp
                unsettled.append((j, tied, p))
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
                correct[:, j] += np.bincount(self.row_fold[tied[hits]], minlength=k)
        return col_means(correct / self.fold_sizes[:, None])

    def set_current(self, dag):
        """Make ``dag`` the base of the incremental sums."""
        slots = np.array([self._slot(fam) for fam in self._families(dag)], dtype=np.intp)
        self.base = np.empty((len(self.truth), self.n_class))
        pool_sum(self.pool, slots, self.base)
        self.current = set(slots.tolist())
