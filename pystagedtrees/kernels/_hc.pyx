"""Kernel of ``stages_hc``: hill climbing that moves one situation at a time.

Each iteration tries, stage by stage (R's ``unique()`` order) and situation
by situation, every other stage and then a new one, and makes the best
strictly improving move.  A move changes only its two stages, so their
refitted log-likelihood terms are cached by stage version.  Situations of
equal counts in one stage score every move alike, so an iteration scores
each such row of situations once (a table row per (stage, counts) pair)
and replays R's visit order over the table only where the moves that tie
up to rounding need it.  Moves whose
scores differ only by rounding are rescored as R scores a model (refit from
the table rows, per-variable long-double sums, then their sum) and the
first strictly best in R's visit order is made.
"""
import numpy as np

cimport cython
from libc.math cimport NAN, fabs, log

from pystagedtrees.kernels._limits cimport HC_RIVALS, MAX_LEVELS
from pystagedtrees.kernels._rstage cimport count_term, score_of, stage_term
from pystagedtrees.kernels._rsum cimport racc_t
from pystagedtrees.kernels._types cimport float64_t, index_t

# Scores within this relative distance are ties in stages_hc: above the
# rounding of R's recomputed scores (~1e-15 of the score), below the gains
# of real moves (R makes a move gaining 1e-12 of a score of 6e7)
cdef double TIE_RTOL = 1e-13
# memory for the cache of refitted target terms (bytes, about)
cdef Py_ssize_t TARGET_CACHE_BYTES = 1 << 25
# most move scores an iteration keeps by rows (32 MiB); more rows than fit
# are scored situation by situation
ROW_TABLE_ENTRIES = 1 << 22


@cython.final  # direct (inlinable) method calls, no vtable
cdef class _RScorer:
    """The score R gives the model after a move, from the variable's table rows.

    ``row_sit`` maps each table row to its movable situation (or -1: a fixed
    row, whose terms are computed once); ``var_lls`` holds every variable's
    log-likelihood, this one's at ``var_pos``.  ``refit`` fits the stages as
    they are; a move then changes only its two stages, so ``prepare_move``
    refits those two and reuses the other rows' terms (the same numbers,
    added in R's order by ``score``).
    """
    cdef const float64_t[:, ::1] row_counts
    cdef const index_t[::1] row_sit
    cdef const float64_t[::1] var_lls
    cdef Py_ssize_t var_pos
    cdef double lam, penalty
    # by level then row: the term of each row as the stages are (fixed rows'
    # once and for all)
    cdef float64_t[:, ::1] row_terms
    # scratch by stage id: refitted probabilities, their logs, and which
    # refit (2 refit: counts summed, 2 refit + 1: normalised) filled them
    cdef float64_t[:, ::1] prob
    cdef float64_t[:, ::1] logp
    cdef index_t[::1] stamp
    cdef index_t n_refits
    # each table row's stage (-1: fixed), and the movable rows by stage in
    # row order (stage s's from stage_rows_start[s])
    cdef index_t[::1] row_stage
    cdef index_t[::1] stage_rows_start
    cdef index_t[::1] stage_rows
    # the two stages a move changes, refitted (source then target), and by
    # level then row the terms with them, the moved situation's rows as if
    # it stayed in the refitted source
    cdef float64_t[:, ::1] moved_logp
    cdef float64_t[:, ::1] moved_prob
    cdef float64_t[:, ::1] moved_terms
    # by level, the rows of a nonzero count (level a's from cell_start[a]),
    # in order: only they add to a sum, a zero count's term (+-0.0) leaves
    # it as it is
    cdef index_t[::1] cell_start
    cdef index_t[::1] cell_rows
    # whether every sum of counts is exact (integers below 2**53), so that
    # situations of equal counts moved between the same stages refit them
    # alike, whatever their rows' order
    cdef bint exact_sums

    def __init__(self, const float64_t[:, ::1] row_counts, const index_t[::1] row_sit,
                 const float64_t[:, ::1] row_prob, const float64_t[::1] var_lls,
                 Py_ssize_t var_pos, Py_ssize_t max_stages, double lam, double penalty):
        cdef Py_ssize_t r, a, m = row_counts.shape[0], k = row_counts.shape[1]
        self.row_counts = row_counts
        self.row_sit = row_sit
        self.var_lls = var_lls
        self.var_pos = var_pos
        self.lam = lam
        self.penalty = penalty
        self.row_terms = np.zeros((k, m))
        self.prob = np.zeros((max_stages, k))
        self.logp = np.zeros((max_stages, k))
        self.stamp = np.full(max_stages, -1, dtype=np.int64)
        self.n_refits = 0
        self.row_stage = np.full(m, -1, dtype=np.int64)
        self.stage_rows_start = np.zeros(max_stages + 1, dtype=np.int64)
        self.stage_rows = np.zeros(max(m, 1), dtype=np.int64)
        self.moved_logp = np.zeros((2, k))
        self.moved_prob = np.zeros((2, k))
        self.moved_terms = np.zeros((k, m))
        whole = np.asarray(row_counts)
        level, row = np.nonzero(whole.T)  # level-major: rows in order per level
        cell_rows = np.zeros(max(len(row), 1), dtype=np.int64)
        cell_rows[:len(row)] = row
        self.cell_rows = cell_rows
        self.cell_start = np.searchsorted(level, np.arange(k + 1)).astype(np.int64)
        self.exact_sums = bool(np.all(whole == np.floor(whole))
                               and np.abs(whole).sum() < 2.0 ** 53)
        with nogil:
            for r in range(m):
                if row_sit[r] < 0:
                    for a in range(k):
                        self.row_terms[a, r] = count_term(row_prob[r, a], row_counts[r, a])

    cdef void refit(self, const index_t[::1] sit_stage) noexcept nogil:
        """Refit the movable stages from the table rows in order (as R's
        ``sevt_fit``), keep each movable row's term and list the rows by stage."""
        cdef const float64_t[:, ::1] counts = self.row_counts
        cdef float64_t[:, ::1] prob = self.prob
        cdef index_t[::1] stamp = self.stamp
        cdef Py_ssize_t m = counts.shape[0], k = counts.shape[1], r, a, s
        cdef index_t summed, normalised
        self.n_refits += 1
        summed, normalised = 2 * self.n_refits, 2 * self.n_refits + 1
        for r in range(m):
            s = sit_stage[self.row_sit[r]] if self.row_sit[r] >= 0 else -1
            self.row_stage[r] = s
            if s < 0:
                continue
            if stamp[s] != summed:
                stamp[s] = summed
                for a in range(k):
                    prob[s, a] = 0.0
            for a in range(k):
                prob[s, a] += counts[r, a]
        for r in range(m):
            s = self.row_stage[r]
            if s >= 0 and stamp[s] == summed:
                stamp[s] = normalised
                self.normalise(&prob[s, 0], &self.logp[s, 0])
        for a in range(k):
            for r in range(m):
                s = self.row_stage[r]
                if s >= 0:
                    self.row_terms[a, r] = (self.logp[s, a] * counts[r, a]
                                            if prob[s, a] > 0 else 0.0)
        # the rows by stage: a stable counting sort
        for s in range(self.stage_rows_start.shape[0]):
            self.stage_rows_start[s] = 0
        for r in range(m):
            if self.row_stage[r] >= 0:
                self.stage_rows_start[self.row_stage[r] + 1] += 1
        for s in range(1, self.stage_rows_start.shape[0]):
            self.stage_rows_start[s] += self.stage_rows_start[s - 1]
        for r in range(m):
            s = self.row_stage[r]
            if s >= 0:
                self.stage_rows[self.stage_rows_start[s]] = r
                self.stage_rows_start[s] += 1
        for s in range(self.stage_rows_start.shape[0] - 1, 0, -1):
            self.stage_rows_start[s] = self.stage_rows_start[s - 1]
        self.stage_rows_start[0] = 0

    cdef inline void normalise(self, float64_t* prob, float64_t* logp) noexcept nogil:
        """Summed counts to R's smoothed probabilities, and their logs."""
        cdef Py_ssize_t a, k = self.row_counts.shape[1]
        cdef double denom = 0.0
        for a in range(k):
            prob[a] = prob[a] + self.lam
            denom = denom + prob[a]
        for a in range(k):
            prob[a] = prob[a] / denom
            logp[a] = log(prob[a]) if prob[a] > 0 else 0.0

    cdef void refit_moved(self, Py_ssize_t moved, Py_ssize_t source,
                          Py_ssize_t target) noexcept nogil:
        """``moved_prob``/``moved_logp``: the source stage without situation
        ``moved`` and the target with it, summed in row order."""
        cdef const float64_t[:, ::1] counts = self.row_counts
        cdef Py_ssize_t k = counts.shape[1], a, g, h, r, from_source
        cdef Py_ssize_t source_end = self.stage_rows_start[source + 1]
        cdef Py_ssize_t target_end = self.stage_rows_start[target + 1]
        for a in range(k):
            self.moved_prob[0, a] = 0.0
            self.moved_prob[1, a] = 0.0
        for g in range(self.stage_rows_start[source], source_end):
            r = self.stage_rows[g]
            if self.row_sit[r] != moved:
                for a in range(k):
                    self.moved_prob[0, a] += counts[r, a]
        # the target's rows merged with the moved situation's, in row order
        g, h = self.stage_rows_start[source], self.stage_rows_start[target]
        while True:
            while g < source_end and self.row_sit[self.stage_rows[g]] != moved:
                g += 1
            if g == source_end and h == target_end:
                break
            from_source = h == target_end or (
                g < source_end and self.stage_rows[g] < self.stage_rows[h])
            if from_source:
                r = self.stage_rows[g]
                g += 1
            else:
                r = self.stage_rows[h]
                h += 1
            for a in range(k):
                self.moved_prob[1, a] += counts[r, a]
        self.normalise(&self.moved_prob[0, 0], &self.moved_logp[0, 0])
        self.normalise(&self.moved_prob[1, 0], &self.moved_logp[1, 0])

    cdef void prepare_move(self, Py_ssize_t moved, Py_ssize_t source,
                           Py_ssize_t target) noexcept nogil:
        """Refit the stages ``source`` and ``target`` for moving situation
        ``moved`` between them, and list the rows' terms with them."""
        cdef const float64_t[:, ::1] counts = self.row_counts
        cdef Py_ssize_t m = counts.shape[0], k = counts.shape[1], r, a, s, side
        self.refit_moved(moved, source, target)
        for a in range(k):
            for r in range(m):
                s = self.row_stage[r]
                if s != source and s != target:
                    self.moved_terms[a, r] = self.row_terms[a, r]
                else:
                    side = 1 if s == target else 0
                    self.moved_terms[a, r] = (self.moved_logp[side, a] * counts[r, a]
                                              if self.moved_prob[side, a] > 0 else 0.0)

    cdef double score(self, Py_ssize_t moved, double df) noexcept nogil:
        """The score with situation ``moved`` moved as last prepared (-1:
        the stages as at the last ``refit``): the variable's log-likelihood
        summed level by level over the rows, then the variables' in order
        (as ``variable_loglik`` and ``rsum``).  Only the cells of nonzero
        counts are added: the others' terms are +-0.0, which leave the sum
        (never -0.0) as it is, as does a cell of a zero probability's 0.0."""
        cdef const float64_t[:, ::1] counts = self.row_counts
        cdef const index_t[::1] row_sit = self.row_sit
        cdef const index_t[::1] cell_rows = self.cell_rows
        cdef const float64_t[:, ::1] terms = self.row_terms if moved < 0 else self.moved_terms
        cdef Py_ssize_t k = counts.shape[1], g, r, a, i
        cdef racc_t acc = 0.0, total = 0.0
        cdef double term
        for a in range(k):
            for g in range(self.cell_start[a], self.cell_start[a + 1]):
                r = cell_rows[g]
                term = terms[a, r]
                if row_sit[r] == moved and moved >= 0:
                    term = (self.moved_logp[1, a] * counts[r, a]
                            if self.moved_prob[1, a] > 0 else 0.0)
                acc += term
        for i in range(self.var_lls.shape[0]):
            total += <double>acc if i == self.var_pos else self.var_lls[i]
        return score_of(<double>total, df, self.penalty)


@cython.final
cdef class _Climb:
    """The stages of the movable situations during the climb, and the moves
    of one iteration that tie with the best up to rounding."""
    cdef const float64_t[:, ::1] sit_counts
    cdef float64_t[::1] sit_total
    cdef index_t[::1] sit_stage
    cdef Py_ssize_t n_sit, k
    cdef double lam
    # per stage id: summed counts, their total, situations held, refitted
    # log-likelihood term and version (bumped whenever its counts change)
    cdef float64_t[:, ::1] counts
    cdef float64_t[::1] totals
    cdef index_t[::1] sizes
    cdef racc_t[::1] terms
    cdef index_t[::1] version
    cdef racc_t ll  # the movable stages' log-likelihood
    # the live stage ids in R's unique() order, and the id a new stage takes
    cdef index_t[::1] order
    cdef Py_ssize_t n_order, new_stage
    # cached terms: what situation i's stage keeps without it (valid while
    # source_key[i] is (stage, version)), and what stage s would hold with a
    # situation of counts c (valid while target_version[c, s] is the
    # version; ids < cached).  Situations of equal counts share the latter:
    # ``sit_class`` numbers their distinct rows of counts
    cdef const index_t[::1] sit_class
    cdef racc_t[::1] source_term
    cdef index_t[:, ::1] source_key
    cdef racc_t[:, ::1] target_term
    cdef index_t[:, ::1] target_version
    cdef Py_ssize_t cached
    # the situations grouped by stage in R's visit order
    cdef index_t[::1] position
    cdef index_t[::1] group_start
    cdef index_t[::1] group_fill
    cdef index_t[::1] grouped
    # the contenders of one iteration: (situation, target) and score
    cdef index_t[:, ::1] near
    cdef float64_t[::1] near_score
    cdef Py_ssize_t n_near
    cdef bint overflow
    cdef double top
    # one iteration's rows: the situations of one class in one stage, in R's
    # visit order of their first situation: stage position, class, first
    # situation, how many; each situation's row (-1: skipped); and the
    # scores of every row's moves, row by row (target positions as in
    # ``order``, then the new stage; NaN: its own stage)
    cdef index_t[::1] row_pos
    cdef index_t[::1] row_class
    cdef index_t[::1] row_first
    cdef index_t[::1] row_size
    cdef index_t[::1] sit_row
    cdef index_t[::1] class_row  # a class's row in the stage being listed
    cdef float64_t[::1] row_scores
    cdef Py_ssize_t n_rows

    def __init__(self, const float64_t[:, ::1] sit_counts, const index_t[::1] sit_class,
                 index_t[::1] sit_stage, const index_t[::1] stage_order, Py_ssize_t max_stages,
                 double lam, Py_ssize_t table_capacity):
        cdef Py_ssize_t a, j, n_sit = sit_counts.shape[0], k = sit_counts.shape[1]
        cdef Py_ssize_t n_classes = 1
        self.sit_counts = sit_counts
        self.sit_total = np.zeros(n_sit)
        for j in range(n_sit):
            for a in range(k):
                self.sit_total[j] += sit_counts[j, a]
        self.sit_class = sit_class
        for j in range(n_sit):
            n_classes = max(n_classes, sit_class[j] + 1)
        self.sit_stage = sit_stage
        self.n_sit = n_sit
        self.k = k
        self.lam = lam
        self.counts = np.zeros((max_stages, k))
        self.totals = np.zeros(max_stages)
        self.sizes = np.zeros(max_stages, dtype=np.int64)
        self.terms = np.zeros(max_stages, dtype=np.longdouble)
        self.version = np.zeros(max_stages, dtype=np.int64)
        self.order = np.empty(max_stages, dtype=np.int64)
        self.n_order = stage_order.shape[0]
        for j in range(self.n_order):
            self.order[j] = stage_order[j]
        self.cached = min(max_stages, max(1, TARGET_CACHE_BYTES // (32 * n_classes)))
        self.source_term = np.empty(n_sit, dtype=np.longdouble)
        self.source_key = np.full((n_sit, 2), -1, dtype=np.int64)
        self.target_term = np.empty((n_classes, self.cached), dtype=np.longdouble)
        self.target_version = np.full((n_classes, self.cached), -1, dtype=np.int64)
        self.position = np.zeros(max_stages, dtype=np.int64)
        self.group_start = np.zeros(max_stages + 1, dtype=np.int64)
        self.group_fill = np.zeros(max_stages, dtype=np.int64)
        self.grouped = np.zeros(max(n_sit, 1), dtype=np.int64)
        self.near = np.empty((HC_RIVALS, 2), dtype=np.int64)
        self.near_score = np.empty(HC_RIVALS)
        self.row_pos = np.empty(max(n_sit, 1), dtype=np.int64)
        self.row_class = np.empty(max(n_sit, 1), dtype=np.int64)
        self.row_first = np.empty(max(n_sit, 1), dtype=np.int64)
        self.row_size = np.empty(max(n_sit, 1), dtype=np.int64)
        self.sit_row = np.empty(max(n_sit, 1), dtype=np.int64)
        self.class_row = np.full(n_classes, -1, dtype=np.int64)
        self.row_scores = np.empty(max(1, min(table_capacity, n_sit * (max_stages + 1))))

    cdef void start(self, Py_ssize_t n_stages) noexcept nogil:
        """Sum the situations' counts by stage and refit every stage."""
        cdef Py_ssize_t i, a, j, s
        for i in range(self.n_sit):
            s = self.sit_stage[i]
            self.sizes[s] += 1
            for a in range(self.k):
                self.counts[s, a] += self.sit_counts[i, a]
                self.totals[s] += self.sit_counts[i, a]
        self.ll = 0.0
        for j in range(self.n_order):
            s = self.order[j]
            self.terms[s] = stage_term(&self.counts[s, 0], self.totals[s], self.lam, self.k)
            self.ll += self.terms[s]
        self.new_stage = n_stages

    cdef void group_situations(self) noexcept nogil:
        """``grouped``: the situations by stage in R's visit order, each
        stage's from ``group_start[j]`` (a stable counting sort)."""
        cdef Py_ssize_t i, j
        for j in range(self.n_order):
            self.position[self.order[j]] = j
            self.group_start[j + 1] = 0
        for i in range(self.n_sit):
            self.group_start[self.position[self.sit_stage[i]] + 1] += 1
        self.group_start[0] = 0
        for j in range(self.n_order):
            self.group_start[j + 1] += self.group_start[j]
            self.group_fill[j] = self.group_start[j]
        for i in range(self.n_sit):
            j = self.position[self.sit_stage[i]]
            self.grouped[self.group_fill[j]] = i
            self.group_fill[j] += 1

    cdef inline racc_t source_term_of(self, Py_ssize_t i, Py_ssize_t s1,
                                      double row_total) noexcept nogil:
        """The term of stage ``s1`` without situation ``i``."""
        cdef double left[MAX_LEVELS]
        cdef Py_ssize_t a
        cdef racc_t term
        if self.source_key[i, 0] == s1 and self.source_key[i, 1] == self.version[s1]:
            return self.source_term[i]
        for a in range(self.k):
            left[a] = self.counts[s1, a] - self.sit_counts[i, a]
        term = stage_term(left, self.totals[s1] - row_total, self.lam, self.k)
        self.source_term[i] = term
        self.source_key[i, 0] = s1
        self.source_key[i, 1] = self.version[s1]
        return term

    cdef racc_t refit_target(self, Py_ssize_t i, Py_ssize_t s2, double row_total) noexcept nogil:
        """The term of stage ``s2`` with situation ``i``, refitted (and cached
        for its counts)."""
        cdef double joined[MAX_LEVELS]
        cdef Py_ssize_t a
        cdef racc_t term
        for a in range(self.k):
            joined[a] = self.counts[s2, a] + self.sit_counts[i, a]
        term = stage_term(joined, self.totals[s2] + row_total, self.lam, self.k)
        if s2 < self.cached:
            self.target_term[self.sit_class[i], s2] = term
            self.target_version[self.sit_class[i], s2] = self.version[s2]
        return term

    cdef inline double move_score(self, Py_ssize_t i, Py_ssize_t c, Py_ssize_t s1, Py_ssize_t s2,
                                  racc_t t1, racc_t without_source, double other_ll, double df,
                                  double penalty) noexcept nogil:
        """The score of moving situation ``i`` (of counts class ``c``) from
        stage ``s1`` to ``s2``, given what ``s1`` keeps (``t1``) and the
        log-likelihood without ``s1``'s term (``without_source``): R's sum,
        term by term in its order."""
        cdef racc_t t2
        cdef double cand_df = df
        if s2 < self.cached and self.target_version[c, s2] == self.version[s2]:
            t2 = self.target_term[c, s2]
        else:
            t2 = self.refit_target(i, s2, self.sit_total[i])
        if self.sizes[s1] == 1:
            cand_df = cand_df - (self.k - 1)
        if self.sizes[s2] == 0:
            cand_df = cand_df + (self.k - 1)
        return score_of(other_ll + <double>(without_source - self.terms[s2] + t1 + t2),
                        cand_df, penalty)

    cdef inline void note_contender(self, Py_ssize_t i, Py_ssize_t s2, double score) noexcept nogil:
        if self.n_near < HC_RIVALS:
            self.near[self.n_near, 0] = i
            self.near[self.n_near, 1] = s2
            self.near_score[self.n_near] = score
            self.n_near += 1
        else:
            self.overflow = True

    cdef double scan(self, double now_score, double tol, bint skip_empty, double other_ll,
                     double df, double penalty, Py_ssize_t* best_i,
                     Py_ssize_t* best_s2) noexcept nogil:
        """Score every move in R's visit order; return the best score (the
        staying one unless a move beats it by more than ``tol``), with the
        move in ``best_i``/``best_s2`` (-1: none).  ``top`` becomes the best
        score met, staying included, and ``near`` the moves within ``tol``
        of it when R's own scores must decide (two or more of them, or one
        and staying), else it may be left empty.  By rows of situations
        when their scores fit the table, else situation by situation."""
        self.n_near = 0
        self.overflow = False
        self.group_situations()
        if self.list_rows(skip_empty):
            return self.scan_rows(now_score, tol, other_ll, df, penalty, best_i, best_s2)
        return self.scan_situations(now_score, tol, skip_empty, other_ll, df, penalty,
                                    best_i, best_s2)

    cdef bint list_rows(self, bint skip_empty) noexcept nogil:
        """List the rows of situations (skipping those ``scan_situations``
        skips); whether their scores fit the table."""
        cdef Py_ssize_t j, g, i, c, r, s1
        self.n_rows = 0
        for j in range(self.n_order):
            s1 = self.order[j]
            for g in range(self.group_start[j], self.group_start[j + 1]):
                i = self.grouped[g]
                if skip_empty and self.sit_total[i] == 0 and self.sizes[s1] > 1:
                    self.sit_row[i] = -1
                    continue
                c = self.sit_class[i]
                r = self.class_row[c]
                if r < 0 or r >= self.n_rows or self.row_pos[r] != j or self.row_class[r] != c:
                    r = self.n_rows
                    self.n_rows += 1
                    self.class_row[c] = r
                    self.row_pos[r] = j
                    self.row_class[r] = c
                    self.row_first[r] = i
                    self.row_size[r] = 0
                self.row_size[r] += 1
                self.sit_row[i] = r
        return self.n_rows * (self.n_order + 1) <= self.row_scores.shape[0]

    cdef double scan_rows(self, double now_score, double tol, double other_ll, double df,
                          double penalty, Py_ssize_t* best_i, Py_ssize_t* best_s2) noexcept nogil:
        """``scan`` by rows.  The situations after the first of a row score
        as it did, so they never beat the best met by more than ``tol``:
        the best move is found over the rows, and the visit order replayed
        only to list the contenders or to see whether they overflow."""
        cdef Py_ssize_t r, jj, i, c, s1, s2
        cdef Py_ssize_t width = self.n_order + 1, n_within = 0, n_contenders
        cdef double best_score = now_score, top = now_score, score
        cdef racc_t t1, without_source
        cdef const index_t[::1] order = self.order
        cdef const racc_t[::1] terms = self.terms
        cdef float64_t[::1] scores = self.row_scores
        cdef Py_ssize_t n_order = self.n_order, new_stage = self.new_stage
        cdef racc_t ll = self.ll
        best_i[0] = -1
        best_s2[0] = -1
        for r in range(self.n_rows):
            s1 = order[self.row_pos[r]]
            i = self.row_first[r]
            c = self.sit_class[i]
            t1 = self.source_term_of(i, s1, self.sit_total[i])
            without_source = ll - terms[s1]  # the first operation of every move's sum
            for jj in range(width):
                s2 = order[jj] if jj < n_order else new_stage
                if s2 == s1:
                    scores[r * width + jj] = NAN  # compares as a move never tried
                    continue
                score = self.move_score(i, c, s1, s2, t1, without_source, other_ll, df, penalty)
                scores[r * width + jj] = score
                if score >= now_score - tol:
                    n_within += self.row_size[r]
                if score > top:
                    top = score
                if score > best_score + tol:
                    best_score = score
                    best_i[0] = i
                    best_s2[0] = s2
        self.top = top
        # R's visit notes every move within tol of the best met so far: at
        # most the moves within tol of staying
        n_contenders = self.count_at_least(top - tol)
        if n_within > HC_RIVALS:
            self.overflow = n_contenders > HC_RIVALS or self.count_notes(now_score, tol) > HC_RIVALS
        if not self.overflow and n_contenders + self.stays_contender(now_score, tol) >= 2:
            self.list_contenders(top - tol)
        return best_score

    cdef Py_ssize_t count_at_least(self, double level) noexcept nogil:
        """How many moves score at least ``level`` (counting stops past HC_RIVALS)."""
        cdef Py_ssize_t r, jj, width = self.n_order + 1, n = 0
        for r in range(self.n_rows):
            for jj in range(width):
                if self.row_scores[r * width + jj] >= level:
                    n += self.row_size[r]
                    if n > HC_RIVALS:
                        return n
        return n

    cdef Py_ssize_t count_notes(self, double now_score, double tol) noexcept nogil:
        """How many moves R's visit notes as within ``tol`` of the best met
        so far (counting stops past HC_RIVALS)."""
        cdef Py_ssize_t g, r, jj, width = self.n_order + 1, n = 0
        cdef double top = now_score, score
        for g in range(self.group_start[self.n_order]):
            r = self.sit_row[self.grouped[g]]
            if r < 0:
                continue
            for jj in range(width):
                score = self.row_scores[r * width + jj]
                if score >= top - tol:
                    n += 1
                    if n > HC_RIVALS:
                        return n
                    if score > top:
                        top = score
        return n

    cdef void list_contenders(self, double level) noexcept nogil:
        """``near``: the moves scoring at least ``level``, in R's visit order
        (at most HC_RIVALS of them)."""
        cdef Py_ssize_t g, i, r, jj, width = self.n_order + 1
        for g in range(self.group_start[self.n_order]):
            i = self.grouped[g]
            r = self.sit_row[i]
            if r < 0:
                continue
            for jj in range(width):
                if self.row_scores[r * width + jj] >= level:
                    self.near[self.n_near, 0] = i
                    self.near[self.n_near, 1] = self.order[jj] if jj < self.n_order else self.new_stage
                    self.n_near += 1

    cdef double scan_situations(self, double now_score, double tol, bint skip_empty,
                                double other_ll, double df, double penalty, Py_ssize_t* best_i,
                                Py_ssize_t* best_s2) noexcept nogil:
        """``scan`` situation by situation."""
        cdef Py_ssize_t j, jj, g, i, c, s1, s2
        cdef double best_score = now_score, top = now_score, score, row_total
        cdef racc_t t1, without_source
        cdef const index_t[::1] order = self.order
        cdef const index_t[::1] sizes = self.sizes
        cdef Py_ssize_t n_order = self.n_order, new_stage = self.new_stage
        best_i[0] = -1
        best_s2[0] = -1
        for j in range(n_order):
            s1 = order[j]
            for g in range(self.group_start[j], self.group_start[j + 1]):
                i = self.grouped[g]
                row_total = self.sit_total[i]
                if row_total == 0 and sizes[s1] > 1 and skip_empty:
                    # it changes the df only when it empties its stage:
                    # never strictly better, so never R's choice
                    continue
                # what the source stage keeps does not depend on the target
                t1 = self.source_term_of(i, s1, row_total)
                without_source = self.ll - self.terms[s1]  # the first operation of every move's sum
                c = self.sit_class[i]
                for jj in range(n_order + 1):
                    s2 = order[jj] if jj < n_order else new_stage
                    if s2 == s1:
                        continue
                    score = self.move_score(i, c, s1, s2, t1, without_source, other_ll, df, penalty)
                    if score >= top - tol:  # a contender, so far
                        self.note_contender(i, s2, score)
                        if score > top:
                            top = score
                    if score > best_score + tol:
                        best_score = score
                        best_i[0] = i
                        best_s2[0] = s2
        self.top = top
        self.keep_contenders(top - tol)
        return best_score

    cdef void keep_contenders(self, double level) noexcept nogil:
        """Keep the contenders scoring at least ``level`` (none after an overflow)."""
        cdef Py_ssize_t g, n_kept = 0
        if not self.overflow:
            for g in range(self.n_near):
                if self.near_score[g] >= level:
                    self.near[n_kept, 0] = self.near[g, 0]
                    self.near[n_kept, 1] = self.near[g, 1]
                    n_kept += 1
        self.n_near = n_kept

    cdef inline bint stays_contender(self, double now_score, double tol) noexcept nogil:
        """Whether staying ties with the best move up to rounding."""
        return now_score >= self.top - tol

    cdef double moved_df(self, Py_ssize_t i, Py_ssize_t s2, double df) noexcept nogil:
        """The df after moving situation ``i`` to stage ``s2``."""
        if self.sizes[self.sit_stage[i]] == 1:
            df = df - (self.k - 1)
        if self.sizes[s2] == 0:
            df = df + (self.k - 1)
        return df

    cdef double move(self, Py_ssize_t i, Py_ssize_t s2, double df) noexcept nogil:
        """Move situation ``i`` to stage ``s2``; return the new df."""
        cdef Py_ssize_t a, j, jj, s1 = self.sit_stage[i], k = self.k
        if self.sizes[s2] == 0:
            self.order[self.n_order] = s2
            self.n_order += 1
            df = df + (k - 1)
        for a in range(k):
            self.counts[s1, a] -= self.sit_counts[i, a]
            self.counts[s2, a] += self.sit_counts[i, a]
            self.totals[s1] -= self.sit_counts[i, a]
            self.totals[s2] += self.sit_counts[i, a]
        self.sizes[s1] -= 1
        self.sizes[s2] += 1
        self.version[s1] += 1
        self.version[s2] += 1
        self.sit_stage[i] = s2
        if self.sizes[s1] == 0:
            df = df - (k - 1)
            for j in range(self.n_order):
                if self.order[j] == s1:
                    for jj in range(j, self.n_order - 1):
                        self.order[jj] = self.order[jj + 1]
                    self.n_order -= 1
                    break
        self.ll = self.ll - self.terms[s1] - self.terms[s2]
        self.terms[s1] = stage_term(&self.counts[s1, 0], self.totals[s1], self.lam, k)
        self.terms[s2] = stage_term(&self.counts[s2, 0], self.totals[s2], self.lam, k)
        self.ll = self.ll + self.terms[s1] + self.terms[s2]
        self.new_stage = 0
        while self.sizes[self.new_stage] > 0:
            self.new_stage += 1
        self.sort_by_first_situation()
        return df

    cdef void sort_by_first_situation(self) noexcept nogil:
        """Reorder the live stage ids by the first situation that holds them
        (R's ``unique()`` order)."""
        cdef Py_ssize_t i, j, filled = 0
        cdef bint seen
        for i in range(self.n_sit):
            seen = False
            for j in range(filled):
                if self.order[j] == self.sit_stage[i]:
                    seen = True
                    break
            if not seen:
                self.order[filled] = self.sit_stage[i]
                filled += 1
                if filled == self.n_order:
                    break


cdef double _settle_as_r(_Climb climb, _RScorer scorer, double staying, double df,
                         Py_ssize_t* best_i, Py_ssize_t* best_s2) noexcept nogil:
    """Among the contenders (and staying, scored ``staying``), the first
    strictly best by R's own scores, in R's visit order; its score
    (``scorer`` refitted to the stages as they are).  Contenders of equal
    counts moved between the same stages share one refit when the sums of
    counts are exact."""
    cdef double exact[HC_RIVALS]
    cdef bint scored[HC_RIVALS]
    cdef Py_ssize_t g, h, i, s1, s2
    cdef double best_exact = staying
    for g in range(climb.n_near):
        scored[g] = False
    for g in range(climb.n_near):
        if scored[g]:
            continue
        i, s2 = climb.near[g, 0], climb.near[g, 1]
        s1 = climb.sit_stage[i]
        scorer.prepare_move(i, s1, s2)
        for h in range(g, climb.n_near):
            if h == g or (scorer.exact_sums and not scored[h]
                          and climb.near[h, 1] == s2
                          and climb.sit_stage[climb.near[h, 0]] == s1
                          and climb.sit_class[climb.near[h, 0]] == climb.sit_class[i]):
                exact[h] = scorer.score(climb.near[h, 0],
                                        climb.moved_df(climb.near[h, 0], s2, df))
                scored[h] = True
    best_i[0] = -1
    for g in range(climb.n_near):
        if exact[g] > best_exact:
            best_exact = exact[g]
            best_i[0] = climb.near[g, 0]
            best_s2[0] = climb.near[g, 1]
    return best_exact


def move_situations(const float64_t[:, ::1] sit_counts, const index_t[::1] sit_class,
                    index_t[::1] sit_stage,
                    const index_t[::1] stage_order, Py_ssize_t n_stages,
                    double lam, double other_ll, double start_score, double df, double penalty,
                    long max_iter, index_t[:, ::1] moves, const float64_t[:, ::1] row_counts,
                    const index_t[::1] row_sit, const float64_t[:, ::1] row_prob,
                    const float64_t[::1] var_lls, Py_ssize_t var_pos,
                    Py_ssize_t row_table_entries=ROW_TABLE_ENTRIES):
    """Hill climbing moving one situation at a time to another stage (R: ``stages_hc``).

    Parameters
    ----------
    sit_counts : counts of the movable situations (ascending situation order).
    sit_class : per situation, a number in ``0..n_classes-1`` equal for
        situations of equal counts (any numbering of distinct rows: they
        share cached terms).
    sit_stage : their stage ids (0..n_stages-1); updated in place.  A move to
        a new stage uses the lowest id that holds no situation.
    stage_order : the stage ids in R's ``unique()`` order.
    other_ll : log-likelihood of what no move changes (the other variables
        and the situations not movable); df : the model's df.
    start_score : the score of the model as stored, which the first move
        must beat.  As in R, every move refits the stages from the counts
        and recomputes the log-likelihood from the tree's tables, so when
        the stored fit is not that one (``indep`` with missing values) even
        a move that changes no count can win the first iteration.
    penalty : per-parameter penalty of the moved models' scores.
    moves : output rows (situation, target stage id, iteration); the caller
        gives at least ``max_iter`` rows, and ``k <= MAX_LEVELS``.
    row_counts, row_sit, row_prob, var_lls, var_pos : R's arithmetic, for
        ties: the variable's table rows in order, each row's movable
        situation (or -1, and then its probabilities in ``row_prob``), and
        every variable's log-likelihood (this one's at ``var_pos``).
    row_table_entries : room for the move scores of an iteration's rows of
        situations of equal counts in one stage (0: always score situation
        by situation; the moves made are the same).

    When the best moves (or the best and staying) differ only by rounding,
    R's choice rests on its own rounding: they are rescored as R scores a
    move and the first strictly best in R's visit order is made.

    Returns
    -------
    (number of moves, df)
    """
    # every live stage holds a situation, and emptied ids are reused
    cdef Py_ssize_t max_stages = n_stages + sit_counts.shape[0] + 1
    cdef _Climb climb = _Climb(sit_counts, sit_class, sit_stage, stage_order, max_stages,
                               lam, row_table_entries)
    cdef _RScorer scorer = _RScorer(row_counts, row_sit, row_prob, var_lls, var_pos,
                                    max_stages, lam, penalty)
    cdef Py_ssize_t n_moves = 0, best_i, best_s2
    cdef long iteration = 0
    cdef double now_score = start_score, best_score, tol, staying
    cdef bint skip_empty
    with nogil:
        climb.start(n_stages)
        # moving a situation without counts changes no estimate, hence beats
        # nothing once the score is that of the refitted stages
        skip_empty = fabs(score_of(other_ll + <double>climb.ll, df, penalty) - now_score) \
            <= TIE_RTOL * (1.0 + fabs(now_score))
        while iteration < max_iter:
            iteration += 1
            tol = TIE_RTOL * (1.0 + fabs(now_score))
            best_score = climb.scan(now_score, tol, skip_empty, other_ll, df, penalty,
                                    &best_i, &best_s2)
            if climb.n_near + climb.stays_contender(now_score, tol) >= 2:
                # R's own scores decide
                scorer.refit(sit_stage)
                staying = start_score if n_moves == 0 else scorer.score(-1, df)
                best_score = _settle_as_r(climb, scorer, staying, df, &best_i, &best_s2)
            if best_i < 0:
                break
            df = climb.move(best_i, best_s2, df)
            now_score = best_score
            skip_empty = True
            moves[n_moves, 0] = best_i
            moves[n_moves, 1] = best_s2
            moves[n_moves, 2] = iteration
            n_moves += 1
    return n_moves, df
