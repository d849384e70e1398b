"""Storage of the stages of one variable: integer ids per situation.

Situations are numbered as in R stagedtrees (the root variable varies
slowest).  A variable with at most :data:`DENSE_MAX` situations stores one
stage id per situation, as R does.  Beyond that the vector is *sparse*: the
listed situations (those seen in data) carry their own ids and every other
situation shares one default stage (the unobserved stage), so unobserved
situations cost nothing.

A third kind, :class:`ParentStageVector`, stores the stages of a tree
built from a Bayesian network (``as_sevt``) whose variable has too many
situations for one id each: a stage id per configuration of the variable's
parents, so memory is the size of the conditional probability table.

Stage ids are ``0..S-1``, all in use, and their order is the order of the
model's stage probabilities (R's ``names(prob[[v]])``).  Labels are kept by
:class:`StageLabels`, aligned with the ids.
"""
import numpy as np

from pystagedtrees.kernels._as_sevt import stages_by_parent_codes, stages_by_parent_config
from pystagedtrees.kernels._counts import first_positions, ids_by_first_appearance, map_ids

DENSE_MAX = 1 << 20
"""Largest number of situations of a variable stored one id per situation."""

EXPAND_MAX = 1 << 24
"""Largest number of situations whose ids a compactly stored vector writes
out one per situation when asked (64 MiB of ids)."""


def first_position_by_id(ids, n_ids=0):
    """Per id ``0..max(ids)`` (at least ``n_ids`` entries), the index of its
    first occurrence in ``ids`` (int32, non-negative), or -1: one pass, no
    sort, so tables of millions of ids cost milliseconds."""
    ids = np.ascontiguousarray(ids, dtype=np.int32)
    out = np.full(max(int(ids.max()) + 1 if len(ids) else 0, n_ids), -1, dtype=np.int64)
    first_positions(ids, out)
    return out


def mapped_ids(ids, mapping):
    """``mapping[ids]`` for int32 ids and mapping, in one compiled pass."""
    out = np.empty(len(ids), dtype=np.int32)
    bad = map_ids(ids, mapping, out)
    if bad >= 0:
        raise IndexError(f"stage id {ids[bad]} is outside a mapping of {len(mapping)} ids.")
    return out


def ids_in_order_of_appearance(stage, default_at=-1, default=0):
    """The distinct ids of ``stage`` (int32) in order of first appearance, with
    ``default`` appearing just before entry ``default_at`` too (-1: nowhere):
    one pass, no sort."""
    stage = np.ascontiguousarray(stage, dtype=np.int32)
    n_ids = max(int(stage.max()) + 1 if len(stage) else 0, default + 1)
    out = np.empty(n_ids, dtype=np.int32)
    n = ids_by_first_appearance(stage, default_at, default, np.zeros(n_ids, dtype=np.uint8), out)
    return out[:n]


def first_gap(sorted_distinct):
    """Smallest non-negative integer not in ``sorted_distinct`` (sorted,
    distinct, non-negative).  Entries equal their positions exactly before
    the first gap, so it is found by bisection, not a pass."""
    lo, hi = 0, len(sorted_distinct)
    while lo < hi:
        mid = (lo + hi) // 2
        if sorted_distinct[mid] > mid:
            hi = mid
        else:
            lo = mid + 1
    return lo


class StageVector:
    """Stage id of every situation of one variable (dense or sparse).

    Parameters
    ----------
    n_situations : int
    stage : ndarray of int32
        Ids of the listed situations (all of them when dense).
    sit : ndarray of int64 or None
        Sorted indices of the listed situations; None when dense.
    default : int
        Id of the situations not listed (sparse only; -1 when all listed).
    """

    __slots__ = ("n_situations", "stage", "sit", "default")

    def __init__(self, n_situations, stage, sit=None, default=-1):
        self.n_situations = int(n_situations)
        self.stage = np.ascontiguousarray(stage, dtype=np.int32)
        self.sit = None if sit is None else np.ascontiguousarray(sit, dtype=np.int64)
        self.default = int(default) if sit is not None else -1

    @classmethod
    def build(cls, n_situations, sit, stage, default):
        """Vector with ``stage`` on situations ``sit`` and ``default`` elsewhere.

        Chooses the dense form when the variable is small enough.
        """
        sit = np.asarray(sit, dtype=np.int64)
        stage = np.asarray(stage, dtype=np.int32)
        if n_situations <= DENSE_MAX:
            dense = np.full(n_situations, default, dtype=np.int32)
            dense[sit] = stage
            return cls(n_situations, dense)
        if len(sit) == n_situations:
            default = -1
        return cls(n_situations, stage, sit, default)

    @property
    def is_dense(self):
        return self.sit is None

    def copy(self):
        return StageVector(
            self.n_situations,
            self.stage.copy(),
            None if self.sit is None else self.sit.copy(),
            self.default,
        )

    def lookup(self, situations, copy=True):
        """Stage ids of the given situation indices.  ``copy=False``: the
        listed situations' ids may come as the vector holds them (read-only),
        for a caller that only reads them."""
        situations = np.asarray(situations, dtype=np.int64)
        if self.sit is None:
            return self.stage[situations]
        if situations is self.sit or (  # the listed ones (a model's own counts): no search
                situations.shape == self.sit.shape and np.array_equal(situations, self.sit)):
            if copy:
                return self.stage.copy()
            held = self.stage.view()
            held.flags.writeable = False
            return held
        pos = np.searchsorted(self.sit, situations)
        pos_clipped = np.minimum(pos, len(self.sit) - 1) if len(self.sit) else pos
        if len(self.sit) == 0:
            return np.full(situations.shape, self.default, dtype=np.int32)
        hit = self.sit[pos_clipped] == situations
        return np.where(hit, self.stage[pos_clipped], self.default).astype(np.int32)

    def dense(self, what="stage vector"):
        """One id per situation; refuses past :data:`EXPAND_MAX` situations."""
        if self.sit is None:
            return self.stage
        if self.n_situations > EXPAND_MAX:
            raise dense_too_large(self.n_situations, what)
        out = np.full(self.n_situations, self.default, dtype=np.int32)
        out[self.sit] = self.stage
        return out

    def first_situation_of_default(self):
        """Smallest situation index that is not listed (sparse), or None."""
        if len(self.sit) == self.n_situations:
            return None
        return first_gap(self.sit)

    def _first_positions(self):
        """Per id, the index (into ``stage``) of its first listed situation, or -1."""
        return first_position_by_id(
            self.stage, self.default + 1 if self.sit is not None and self.default >= 0 else 0
        )

    def first_appearance(self):
        """Stage ids in order of first appearance along the situations."""
        return ids_in_order_of_appearance(*self.stored_ids())

    def stored_ids(self):
        """``(ids, default_at, default)``: the ids stored, in the order of their
        situations, and the default id, which appears just before entry
        ``default_at`` too (-1: nowhere) (see :meth:`with_stored_ids`)."""
        gap = None
        if self.sit is not None and self.default >= 0:
            gap = self.first_situation_of_default()
        if gap is None:
            return self.stage, -1, 0
        # the listed situations before the first unlisted one are 0..gap-1
        return self.stage, gap, self.default

    def with_stored_ids(self, ids, mapping):
        """New vector storing ``ids`` in place of :meth:`stored_ids`' (the same
        situations), its default id sent to ``mapping[default]``."""
        if self.sit is None:
            return StageVector(self.n_situations, ids)
        default = int(mapping[self.default]) if self.default >= 0 else -1
        return StageVector(self.n_situations, ids, self.sit, default)  # sit: never edited

    def ids_in_use(self):
        """Sorted distinct ids used by some situation."""
        first = self._first_positions()
        used = first >= 0
        if self.sit is not None and self.default >= 0 and len(self.sit) < self.n_situations:
            used[self.default] = True
        return np.flatnonzero(used).astype(np.int32)

    def remap(self, mapping):
        """New vector with every id ``s`` replaced by ``mapping[s]``."""
        mapping = np.ascontiguousarray(mapping, dtype=np.int32)
        default = mapping[self.default] if self.sit is not None and self.default >= 0 else -1
        return StageVector(self.n_situations, mapped_ids(self.stage, mapping), self.sit,
                           default)  # sit: never edited in place, shared

    def assign(self, situations, stage_id):
        """New vector where the given situations carry ``stage_id`` (one id,
        or one per situation when they are ascending)."""
        situations = np.asarray(situations, dtype=np.int64)
        if self.sit is None:
            dense = self.stage.copy()
            dense[situations] = stage_id
            return StageVector(self.n_situations, dense)
        sit = np.union1d(self.sit, situations)
        stage = self.lookup(sit)
        stage[np.isin(sit, situations)] = stage_id
        return StageVector(self.n_situations, stage, sit, self.default)

    def with_default_outside(self, situations, stage_id):
        """New vector keeping ``situations``' ids and ``stage_id`` everywhere else."""
        situations = np.asarray(situations, dtype=np.int64)
        kept = self.lookup(situations)
        if self.sit is None:
            dense = np.full(self.n_situations, stage_id, dtype=np.int32)
            dense[situations] = kept
            return StageVector(self.n_situations, dense)
        return StageVector(self.n_situations, kept, situations.copy(), stage_id)

    def paths_per_stage(self, n_stages):
        """Number of situations in each stage ``0..n_stages-1`` (int64; Python
        ints past it, in an object array, on the deep variables of a tree)."""
        counts = np.bincount(self.stage, minlength=n_stages).astype(np.int64)
        if self.sit is not None and self.default >= 0:
            unlisted = self.n_situations - len(self.sit)
            if unlisted > _INT64_MAX - len(self.sit):
                counts = counts.astype(object)
            counts[self.default] += unlisted
        return counts

    def block(self, start, length):
        """The vector of the situations ``start .. start+length-1``, renumbered from 0.

        These are the situations of one subtree: ``length`` is the product of
        the numbers of levels of the variables between the subtree's root and
        this variable, and ``start`` a multiple of it.
        """
        if self.sit is None:
            return StageVector(length, self.stage[start:start + length].copy())
        lo, hi = np.searchsorted(self.sit, [start, start + length])
        return StageVector.build(length, self.sit[lo:hi] - start, self.stage[lo:hi], self.default)


class ParentStageVector:
    """Stage ids of a variable given by the configuration of its parents.

    The stage of situation ``s`` is ``table[c]``, where ``c`` numbers the
    levels of the parents along the path in mixed radix (earliest parent
    slowest).  Nothing is stored per situation, so variables with
    astronomically many situations cost the size of their parents' table.

    Parameters
    ----------
    n_situations : int
    lags : ndarray of int64
        For each parent, how many variables before this one it is (1 for
        the immediate predecessor), earliest parent first.
    strides : ndarray of int64
        Situation stride of each parent: the product of the numbers of
        levels of the variables after it and before this variable.
    radices : ndarray of int64
        Number of levels of each parent.
    table : ndarray of int32
        Stage id of each configuration, ``prod(radices)`` entries.
    """

    __slots__ = ("n_situations", "lags", "strides", "radices", "table")

    def __init__(self, n_situations, lags, strides, radices, table):
        self.n_situations = int(n_situations)
        self.lags = np.ascontiguousarray(lags, dtype=np.int64)
        self.strides = np.ascontiguousarray(strides, dtype=np.int64)
        self.radices = np.ascontiguousarray(radices, dtype=np.int64)
        self.table = np.ascontiguousarray(table, dtype=np.int32)

    is_dense = False

    def copy(self):
        return ParentStageVector(
            self.n_situations, self.lags.copy(), self.strides.copy(),
            self.radices.copy(), self.table.copy(),
        )

    def lookup(self, situations, copy=True):
        """Stage ids of the given situation indices (computed afresh: ``copy``
        as :meth:`StageVector.lookup` takes it changes nothing)."""
        situations = np.ascontiguousarray(situations, dtype=np.int64)
        flat = situations.ravel()
        out = np.empty(flat.shape[0], dtype=np.int32)
        stages_by_parent_config(flat, self.strides, self.radices, self.table, out)
        return out.reshape(situations.shape)

    def lookup_codes(self, codes, position):
        """Stage ids of rows of level codes (a row per path, a column per variable).

        ``position`` is this variable's column; the parents are read off the
        earlier columns, with no situation index (which may not even fit in
        64 bits).  Rows with a missing parent code get an arbitrary stage.
        """
        codes = np.ascontiguousarray(codes, dtype=np.int32)
        out = np.empty(codes.shape[0], dtype=np.int32)
        stages_by_parent_codes(codes, position - self.lags, self.radices, self.table, out)
        return out

    def dense(self, what="stage vector"):
        """One id per situation; refuses past :data:`EXPAND_MAX` situations."""
        if self.n_situations > EXPAND_MAX:
            raise dense_too_large(self.n_situations, what)
        return self.lookup(np.arange(self.n_situations, dtype=np.int64))

    def first_appearance(self):
        """Stage ids in order of first appearance along the situations.

        The first situation of configuration ``c`` grows with ``c`` (the
        earliest parent is the slowest digit of both), so the order of the
        table is the order of the situations.
        """
        return ids_in_order_of_appearance(*self.stored_ids())

    def stored_ids(self):
        """``(table, -1, 0)``: the ids stored, in the order of their first
        situations (see :meth:`first_appearance`), and no default id."""
        return self.table, -1, 0

    def with_stored_ids(self, ids, mapping):
        """New vector with ``ids`` as its table (``mapping`` is not needed)."""
        return ParentStageVector(self.n_situations, self.lags, self.strides, self.radices, ids)

    def ids_in_use(self):
        """Sorted distinct ids of the table."""
        return np.flatnonzero(first_position_by_id(self.table) >= 0).astype(np.int32)

    def remap(self, mapping):
        mapping = np.asarray(mapping, dtype=np.int32)
        return ParentStageVector(
            self.n_situations, self.lags, self.strides, self.radices,
            mapped_ids(self.table, mapping)
        )

    def assign(self, situations, stage_id):
        """New vector where the given situations carry ``stage_id``.

        Moving single situations breaks the parent structure: possible only
        when the variable is small enough to store densely.
        """
        return StageVector(self.n_situations, self.dense("stage vector to edit")).assign(
            situations, stage_id
        )

    def with_default_outside(self, situations, stage_id):
        """New (sparse) vector keeping ``situations``' ids and ``stage_id`` everywhere else."""
        situations = np.asarray(situations, dtype=np.int64)
        return StageVector.build(self.n_situations, situations, self.lookup(situations), stage_id)

    def paths_per_stage(self, n_stages):
        """Number of situations in each stage ``0..n_stages-1`` (int64)."""
        per_config = self.n_situations // len(self.table)
        return np.bincount(self.table, minlength=n_stages).astype(np.int64) * per_config

    def block(self, start, length):
        """The vector of the situations of one subtree (see :meth:`StageVector.block`).

        Parents before the subtree's root have a fixed level there, which
        selects a slice of the table; the other parents keep their strides.
        """
        fixed = self.strides >= length
        digits = tuple(int(d) for d in (start // self.strides[fixed]) % self.radices[fixed])
        table = self.table.reshape(tuple(self.radices))[digits].ravel()
        keep = ~fixed
        vector = ParentStageVector(
            length, self.lags[keep], self.strides[keep], self.radices[keep], table
        )
        if length <= DENSE_MAX:
            return StageVector(length, vector.dense())
        return vector


def dense_too_large(n_situations, what, limit=None, advice=None):
    """The error raised when a dense vector of ``n_situations`` (more than
    ``limit``, default :data:`EXPAND_MAX`) is asked for."""
    limit = EXPAND_MAX if limit is None else limit
    advice = advice or ("the tree is stored compactly (unobserved situations share one "
                        "stage): use get_stage() on the paths you need instead")
    return ValueError(
        f"the {what} would have {n_situations} entries (one per situation), "
        f"more than the {limit} this library expands; {advice}."
    )


_INT64_MAX = int(np.iinfo(np.int64).max)

#: Up to this many labels, :meth:`StageLabels.take` finds the names it keeps in Python.
_FEW_LABELS = 64


def _numeric_label(label):
    """The integer a label spells canonically ("12" -> 12), else -1.

    Numbers past int64 stay names (as :meth:`StageLabels.numbered` stores
    every int64, up to 19 digits, as a number).
    """
    if (label.isdigit() and label.isascii() and len(label) <= 19
            and (label == "0" or label[0] != "0") and int(label) <= _INT64_MAX):
        return int(label)
    return -1


class StageLabels:
    """Labels of the stages of one variable, aligned with the stage ids.

    Labels that are canonical non-negative integers ("1", "27") are stored as
    numbers, so a variable with a hundred thousand stages costs one int64
    array; any other label ("UNOBSERVED", "Sex3") is kept as a string.
    """

    __slots__ = ("_num", "_names")

    def __init__(self, numbers, names=()):
        # _num[i] >= 0 is the label str(_num[i]); -(j + 1) is _names[j]
        self._num = np.ascontiguousarray(numbers, dtype=np.int64)
        self._names = list(names)

    @classmethod
    def from_strings(cls, labels):
        nums = np.empty(len(labels), dtype=np.int64)
        code_of = {}  # name -> its negative code, in order of first appearance
        for i, label in enumerate(labels):
            label = str(label)
            value = _numeric_label(label)
            if value < 0:
                value = code_of.setdefault(label, -(len(code_of) + 1))
            nums[i] = value
        return cls(nums, list(code_of))

    @classmethod
    def numbered(cls, numbers):
        return cls(np.asarray(numbers, dtype=np.int64))

    def __len__(self):
        return len(self._num)

    def __getitem__(self, i):
        value = self._num[i]
        return str(value) if value >= 0 else self._names[-value - 1]

    def tolist(self):
        return [self[i] for i in range(len(self))]

    def as_array(self):
        """Labels as a numpy object array (for vectorised expansion)."""
        out = np.empty(len(self._num), dtype=object)
        numeric = self._num >= 0
        out[numeric] = self._num[numeric].astype(str)
        for i in np.flatnonzero(~numeric):
            out[i] = self._names[-self._num[i] - 1]
        return out

    def index(self, label):
        """Id of ``label``, or -1 when no stage has it."""
        label = str(label)
        value = _numeric_label(label)
        if value < 0:
            if label not in self._names:
                return -1
            value = -(self._names.index(label) + 1)
        hits = np.flatnonzero(self._num == value)
        return int(hits[0]) if len(hits) else -1

    def __contains__(self, label):
        return self.index(label) >= 0

    def numeric_mask(self):
        """Whether each stage's label is a number ("1", "27"), as a boolean array."""
        return self._num >= 0

    def _codes_among(self, labels):
        """The codes (see ``_num``) a stage labelled by one of ``labels`` would
        have: every number, and the names some stage has."""
        codes = []
        for label in labels:
            if not isinstance(label, str):  # R's NA (None) labels no stage
                continue
            value = _numeric_label(label)
            if value >= 0:
                codes.append(value)
            elif label in self._names:
                codes.append(-(self._names.index(label) + 1))
        return codes

    def mask_without(self, labels):
        """Whether each stage's label is none of ``labels``, as a boolean array."""
        return self._mask_without_codes(self._codes_among(labels))

    def _mask_without_codes(self, codes):
        if len(codes) == 1:  # (the common case: one pass, no array to update)
            return self._num != codes[0]
        keep = np.ones(len(self._num), dtype=bool)
        for code in codes:
            keep &= self._num != code
        return keep

    def id_array_without(self, labels):
        """Ids (an int64 array, in order) of the stages whose label is none of
        ``labels``; no pass over the stages when no stage can have one (a
        learner asks for every variable of a tree on each call)."""
        codes = self._codes_among(labels)
        if not codes:
            return np.arange(len(self._num))
        return np.flatnonzero(self._mask_without_codes(codes))

    def ids_without(self, labels):
        """Ids (a list, in order) of the stages whose label is none of ``labels``."""
        return self.id_array_without(labels).tolist()

    def keys(self):
        """Integer key of each label (a copy): the label's number, or a
        negative code for a name; equal exactly where the labels are."""
        return self._num.copy()

    def keyed(self, keys, ids):
        """The labels of stages ``ids``, where stage ``s`` is labelled by
        ``keys[s]``: a key of :meth:`keys`, or another non-negative number."""
        return StageLabels(keys, self._names).take(ids)

    def keys_with(self, other):
        """Integer keys of these labels and of ``other``'s, equal exactly
        where the labels are (numbers as themselves, names negative)."""
        code_of = {name: -(j + 1) for j, name in enumerate(self._names)}
        for name in other._names:
            code_of.setdefault(name, -(len(code_of) + 1))
        ours = self._num.copy()  # our names keep their codes
        theirs = other._num.copy()
        named = theirs < 0
        if named.any():
            recode = np.array([code_of[name] for name in other._names], dtype=np.int64)
            theirs[named] = recode[-theirs[named] - 1]
        return ours, theirs

    def take(self, ids):
        """Labels of the given ids, in that order."""
        nums = self._num.take(ids)  # (``take``: no conversion of int32 ids)
        if not self._names:
            return StageLabels(nums)
        if len(nums) <= _FEW_LABELS:  # (a clustering's groups) a set beats numpy's passes
            names_kept = len({value for value in nums.tolist() if value < 0})
            if names_kept in (0, len(self._names)):
                return StageLabels(nums, self._names if names_kept else ())
        named = nums < 0
        codes = nums[named]
        if not len(codes):
            return StageLabels(nums)
        present = np.zeros(len(self._names), dtype=bool)  # a mask: cheaper than np.unique
        present[-codes - 1] = True
        if present.all():  # every name kept (a tree's one unobserved stage): codes as they are
            return StageLabels(nums, self._names)
        used = np.flatnonzero(present)
        new_code = np.zeros(len(self._names), dtype=np.int64)
        new_code[used] = -(np.arange(len(used)) + 1)
        nums[named] = new_code[-nums[named] - 1]
        return StageLabels(nums, [self._names[j] for j in used])

    def _code_of(self, label):
        """The number standing for ``label``, and the names with it."""
        label = str(label)
        value = _numeric_label(label)
        if value >= 0:
            return value, self._names
        names = self._names if label in self._names else self._names + [label]
        return -(names.index(label) + 1), names

    def replace(self, i, label):
        """Copy with the label of id ``i`` changed."""
        value, names = self._code_of(label)
        nums = self._num.copy()
        nums[i] = value
        return StageLabels(nums, names)

    def append(self, label):
        """Copy with one more stage, labelled ``label`` (one copy of the numbers)."""
        return self.insert(len(self), label)

    def insert(self, i, label):
        """Copy with one more stage, labelled ``label``, at id ``i`` (the ids from
        ``i`` on move up by one; one copy of the numbers)."""
        value, names = self._code_of(label)
        return StageLabels(np.insert(self._num, i, value), names)


def new_label(labels):
    """R's ``new_label``: the first ``str(k)``, ``k >= 1 + len(labels)``, not in ``labels``.

    ``labels`` is counted with its repetitions, as R counts ``length(labels)``.
    """
    labels = [str(lab) for lab in labels]
    taken = set(labels)
    k = 1 + len(labels)
    while str(k) in taken:
        k += 1
    return str(k)
