"""The staged event tree object, :class:`Sevt` (R's ``sevt``).

A staged event tree over ordered categorical variables ``X1, ..., Xp``:
every situation (a path of values of the variables before ``Xi``) belongs to
a stage, and situations in the same stage share the conditional distribution
of ``Xi``.

Internally each variable (the root included, as a variable with a single
situation) has a :class:`~pystagedtrees.model._stagevec.StageVector` of integer
stage ids and :class:`~pystagedtrees.model._stagevec.StageLabels`; counts and
probabilities are numpy arrays indexed by those ids.  R-style string labels
appear only at the API surface.

Functions of this package whose first argument is a model are also methods
of :class:`Sevt` (declared in :mod:`._methods`, which delegates to them), so
``stages_bhc(model)`` and ``model.stages_bhc()`` are one implementation.  The
section "internal API" of the class is what the other parts use to read and
change a model.
"""
from __future__ import annotations

import weakref
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from pystagedtrees.base._data import own_copy
from pystagedtrees.base._loglik import LogLik
from pystagedtrees.base._rows import rows_all_nan
from pystagedtrees.base._validation import check_int, check_label, check_labels, check_smoothing
from pystagedtrees.model._methods import SevtMethods
from pystagedtrees.model._stagevec import (
    DENSE_MAX,
    ParentStageVector,
    StageLabels,
    StageVector,
    dense_too_large,
)
from pystagedtrees.model._trie import SituationTrie, first_deep_variable, n_situations_of

__all__ = ["Sevt", "check_sevt", "check_learned"]

# per model, per variable: (weak references to) its probabilities and sizes
# and the ids of its stages without probabilities (Sevt._unset_stages)
_UNSET_OF = weakref.WeakKeyDictionary()


OPTIONAL_FIELDS = ("lambda_", "name_unobserved", "data_raw", "ctables", "prob", "ll", "score",
                   "em", "fit_em")
"""What a model holds besides its tree and stages (R's field names, ``lambda`` spelled
``lambda_``); ``score``, ``em`` and ``fit_em`` only where the functions that make them set them."""
_SET_BY_THEIR_FUNCTIONS = ("score", "em", "fit_em")


def _check_parts(tree, stages, labels, trie):
    """The constructor's arguments, as the library's own builders make them."""
    build = "build models with full(), indep(), sevt() or as_sevt()"
    if not isinstance(tree, Mapping) or any(
            isinstance(lev, str) or not isinstance(lev, Iterable) for lev in tree.values()):
        raise TypeError(f"`tree` must map each variable to its levels; {build}.")
    n_levels = [len(list(lev)) for lev in tree.values()]
    n_situations = [n_situations_of(n_levels, i) for i in range(len(n_levels))]
    for name, parts, kinds, what in (
            ("stages", stages, (StageVector, ParentStageVector), "stage vector"),
            ("labels", labels, StageLabels, "list of stage labels")):
        if not isinstance(parts, (list, tuple)) or len(parts) != len(tree) or not all(
                isinstance(p, kinds) for p in parts):
            raise TypeError(f"`{name}` must hold one {what} per variable of `tree`; {build}.")
    if any(v.n_situations != n for v, n in zip(stages, n_situations)):
        raise ValueError(f"`stages` must have one stage per situation of `tree`; {build}.")
    first = first_deep_variable(n_levels)
    if trie is not None and (not isinstance(trie, SituationTrie) or trie.first != first):
        raise TypeError(f"`trie` must number the deep situations of `tree`; {build}.")
    for i in range(len(n_levels)) if first is not None else ():
        if i >= first and (isinstance(stages[i], ParentStageVector) or len(stages[i].sit) and (
                trie is None or stages[i].sit[-1] >= trie.n_nodes(i))):
            raise ValueError(f"`stages` of the deep variable at {i} must list situations of "
                             f"`trie` only; {build}.")


class Sevt(SevtMethods):
    """A staged event tree (R: ``sevt``).

    Build one with :func:`~pystagedtrees.full`, :func:`~pystagedtrees.indep`
    or :func:`~pystagedtrees.sevt`; the constructor is internal.

    Attributes
    ----------
    tree : dict of str to list of str
        The variables in tree order, with their levels.
    ctables : dict of str to pandas.DataFrame or None
        Contingency tables: one row per situation, one column per level.
    stage_prob : dict of str to StageProbabilities or None
        Stage probabilities (R's ``prob``): per variable, a read-only
        mapping from stage label to a Series (built when read), each
        carrying its unsmoothed sample size in ``attrs["n"]``.
    lambda_ : float or None
        Additive smoothing used in the last fit.
    name_unobserved : list of str or None
        Labels of the stages that gather unobserved situations.
    ll : LogLik or None
        The stored log-likelihood.
    data_raw : pandas.DataFrame or None
        The data last used to fit (a copy: assign to replace it).

    Examples
    --------
    >>> import pandas as pd
    >>> import pystagedtrees as st
    >>> df = pd.DataFrame({"A": ["a", "b", "a"], "B": ["x", "x", "y"]})
    >>> model = st.full(df, lambda_=1)
    >>> model.tree
    {'A': ['a', 'b'], 'B': ['x', 'y']}
    >>> model.stages()
    {'B': ['1', '2']}
    """

    def __init__(self, tree: Mapping[str, Sequence[str]],
                 stages: Sequence[StageVector | ParentStageVector],
                 labels: Sequence[StageLabels], trie: SituationTrie | None = None) -> None:
        _check_parts(tree, stages, labels, trie)
        self._tree = {str(v): [str(x) for x in lev] for v, lev in tree.items()}
        self._vars = list(self._tree)
        self._k = np.array([len(lev) for lev in self._tree.values()], dtype=np.int64)
        self._k.flags.writeable = False
        first = first_deep_variable(self._k)
        # the numbers of the deep variables' situations (none listed: every one outside)
        self._trie = trie if trie is not None or first is None else SituationTrie.empty(
            self._k, first)
        self._prob = None
        self._stages = list(stages)
        self._labels = list(labels)
        for i in range(len(self._stages)):
            self.assign_stages(i, self._stages[i], self._labels[i])
        # fit state: per-variable arrays aligned with stage ids
        self._ctab_sit = None  # list of int64 arrays of observed situations
        self._ctab = None  # list of (m_i, k_i) float64 counts
        self._prob = None  # list of (S_i, k_i) float64 probabilities
        self._n = None  # list of (S_i,) float64 unsmoothed sample sizes
        self.lambda_ = None
        self.name_unobserved = None
        self.ll = None
        self._data_raw = None  # shared by derived models: never edited in place

    @property
    def lambda_(self) -> float | None:
        return self._lambda

    @lambda_.setter
    def lambda_(self, value: float | None) -> None:
        # refits read it: checked as the `lambda_` argument is
        self._lambda = check_smoothing(value, "lambda_", allow_none=True)

    def __setstate__(self, state):
        for field in ("data_raw", "name_unobserved", "ll"):  # pickled before their checks
            if field in state:
                state["_" + field] = state.pop(field)
        state.setdefault("_trie", None)  # pickled before trees of any depth
        self.__dict__.update(state)

    @property
    def name_unobserved(self) -> list[str] | None:
        return self._name_unobserved

    @name_unobserved.setter
    def name_unobserved(self, value: str | Sequence[str | None] | None) -> None:
        # the learners leave these stages alone: a str must not become its letters
        if value is None:
            self._name_unobserved = None
        elif isinstance(value, (list, tuple)) and any(name is None for name in value):
            # R's NA (from_r of name_unobserved = NA_character_): it matches no stage
            self._name_unobserved = [None if name is None else check_label(name, "name_unobserved")
                                     for name in value]
        else:
            self._name_unobserved = check_labels(value, "name_unobserved")

    @property
    def ll(self) -> LogLik | None:
        return self._ll

    @ll.setter
    def ll(self, value: LogLik | None) -> None:
        if value is not None and not isinstance(value, LogLik):
            raise TypeError("`ll` must be a LogLik (with df and nobs) or None; got "
                            f"{type(value).__name__}.")
        self._ll = value

    @property
    def data_raw(self) -> pd.DataFrame | pd.Series | None:
        return own_copy(self._data_raw)

    @data_raw.setter
    def data_raw(self, value: pd.DataFrame | pd.Series | None) -> None:
        if value is not None and not isinstance(value, (pd.DataFrame, pd.Series)):
            raise TypeError("`data_raw` must be a pandas DataFrame (rows), a Series "
                            f"(a table of counts) or None; got {type(value).__name__}.")
        self._data_raw = own_copy(value)

    # -- structure ----------------------------------------------------------
    @property
    def tree(self) -> dict[str, list[str]]:
        """The variables in tree order with their levels (a copy)."""
        return {v: list(lev) for v, lev in self._tree.items()}

    @property
    def variables(self) -> list[str]:
        """The variable names in tree order."""
        return list(self._vars)

    def n_situations(self, i: int) -> int:
        """Number of situations of the variable at position ``i``."""
        return n_situations_of(self._k, i)

    def var_index(self, var: str, name: str = "var") -> int:
        """Position of a variable in the tree, with a clear error."""
        # the type first: ``list.index`` compares with ``==``, which pd.NA cannot answer
        if not isinstance(var, str):
            raise TypeError(f"`{name}` must be a variable name (str); got {var!r}.")
        if var not in self._tree:
            raise ValueError(
                f"`{name}` must be a variable of the model; got {var!r}, model "
                f"variables are {self._vars}."
            )
        return self._vars.index(var)

    def stage_ids(self, i: int, labels: Iterable[str], name: str = "stage") -> list[int]:
        """Ids of the given stage labels of variable ``i``, with a clear error."""
        ids = []
        for lab in labels:
            sid = self._labels[i].index(lab)
            if sid < 0:
                raise ValueError(
                    f"`{name}` {lab!r} is not a stage of variable "
                    f"{self._vars[i]!r}; its stages are {self._labels[i].tolist()}."
                )
            ids.append(sid)
        return ids

    @property
    def is_fitted(self) -> bool:
        """Whether every stage has probabilities."""
        return self._prob is not None and not self._stages_without_prob()

    def _stages_without_prob(self):
        """``(variable, stage)`` of the stages with no probabilities: neither
        fitted nor set by hand (all of them when the model was never fitted).
        The stage is None when a whole variable has none."""
        if self._prob is None:
            return [(v, None) for v in self._vars]
        out = []
        kept = _UNSET_OF.setdefault(self, {})  # once: a weak mapping's lookup is slow
        for i, v in enumerate(self._vars):
            if self._prob[i] is None:
                out.append((v, None))
                continue
            unset = self._unset_stages(i, kept)
            if len(unset):
                out += [(v, "1" if i == 0 else self._labels[i][s]) for s in unset]
        return out

    def _unset_stages(self, i, kept):
        """Ids of variable ``i``'s stages with no probabilities, kept while its
        probabilities and sizes are the same arrays (they are replaced, never
        edited, when they change): predict asks on each call, and reading
        every stage's size costs as much as the model holds.  ``kept``: this
        model's entry of ``_UNSET_OF``."""
        prob, n = self._prob[i], self._n[i]
        if i in kept and kept[i][0]() is prob and kept[i][1]() is n:
            return kept[i][2]
        # fitted stages have a count (0 for unobserved ones, which may have NaN
        # probabilities): only the others' probabilities are read
        uncounted = np.flatnonzero(np.isnan(n))
        unset = uncounted[rows_all_nan(prob[uncounted])] if len(uncounted) else uncounted
        # (weak references: arrays a model has replaced are not kept alive)
        kept[i] = (weakref.ref(prob), weakref.ref(n), unset)
        return unset

    def copy(self, only: int | None = None, into: type[Sevt] | None = None) -> Sevt:
        """A deep copy (arrays are copied; the raw data, never edited in place, is shared).

        With ``only``, a variable's position, only that variable's arrays
        are copied and the others shared: enough for changing its stages.
        ``into``, a subclass of :class:`Sevt`, makes the copy one of its
        instances (default: a Sevt, whatever this model is).
        """
        only = check_int(only, "only", allow_none=True)
        if only is not None and only >= len(self._vars):
            raise ValueError(f"`only` must be a variable's position, below {len(self._vars)}; "
                             f"got {only}.")
        return self._copy(only, into)

    def shared_copy(self) -> Sevt:
        """A copy sharing every array with this model (its own lists of them).

        For a caller that changes the copy only through the methods below,
        which replace a variable's arrays and never edit them in place, so
        that neither model sees the other's changes: a learner then copies
        nothing it does not change (a deep tree's stage vectors cost more to
        copy than its small variables cost to learn).
        """
        return self._copy(share=True)

    def _copy(self, only=None, into=None, dropped=(), share=False):
        """:meth:`copy`, with the private array fields in ``dropped`` None (not
        copied); ``share``: every array shared (:meth:`shared_copy`)."""

        def copied(arrays):
            """A new list of one field's per-variable arrays, copied as asked."""
            if share:
                return list(arrays)
            return [a if (only is not None and j != only) or a is None else a.copy()
                    for j, a in enumerate(arrays)]

        out = object.__new__(into or Sevt)
        out.__dict__.update(self.__dict__)
        for field, value in self.__dict__.items():
            if isinstance(value, dict):  # score, em, fit_em: their own in each model
                out.__dict__[field] = dict(value)
        out._stages = copied(self._stages)
        out._labels = list(self._labels)  # StageLabels are never mutated
        for field in ("_ctab_sit", "_ctab", "_prob", "_n"):
            value = None if field in dropped else getattr(self, field)
            # None entries: variables awaiting their fit
            setattr(out, field, None if value is None else copied(value))
        out.name_unobserved = None if self.name_unobserved is None else list(self.name_unobserved)
        return out

    def copy_without(self, fields: Iterable[str]) -> Sevt:
        """A copy with the given optional fields (``OPTIONAL_FIELDS``) dropped (R's ``copy_sevt``)."""
        fields = list(fields)
        arrays = {"ctables": ("_ctab_sit", "_ctab"), "prob": ("_prob", "_n")}
        out = self._copy(dropped=[a for f in fields for a in arrays.get(f, ())])
        for field in fields:
            if field == "ctables":
                out._ctab_sit = out._ctab = None
            elif field == "prob":
                out._prob = out._n = None
            elif field in _SET_BY_THEIR_FUNCTIONS:
                out.__dict__.pop(field, None)
            else:
                setattr(out, field, None)
        return out

    def restructured(self, tree: Mapping[str, Sequence[str]],
                     stages: Sequence[StageVector | ParentStageVector],
                     labels: Sequence[StageLabels]) -> Sevt:
        """A model over ``tree`` with the given stages, keeping this one's settings
        (``lambda_``, ``name_unobserved``, raw data and the fields its functions set),
        without tables or fit."""
        out = Sevt(tree, stages, labels)
        for field, value in self.__dict__.items():
            if field not in out.__dict__:  # score, em, fit_em
                out.__dict__[field] = dict(value) if isinstance(value, dict) else value
        out.lambda_ = self.lambda_
        out.name_unobserved = None if self.name_unobserved is None else list(self.name_unobserved)
        out._data_raw = self._data_raw
        return out

    # -- internal API ---------------------------------------------------------
    # What the other parts of the package read and change.  Variables are
    # given by position ``i`` in the tree (0 is the root); stage ids of
    # variable ``i`` are ``0 .. len(stage_labels(i)) - 1``, and its arrays of
    # probabilities and sample sizes are indexed by them.  Users go through
    # the functions (and the methods below) instead.

    @property
    def n_levels(self) -> np.ndarray:
        """Number of levels of each variable, in tree order (read-only int64 array)."""
        return self._k

    def levels_of(self, i: int) -> list[str]:
        """The level names of the variable at position ``i`` (a copy)."""
        return list(self._tree[self._vars[i]])

    @property
    def situation_trie(self) -> SituationTrie | None:
        """How the situations of the deep variables (those past int64 mixed-radix
        indices) are numbered, or None when there are none (never edited)."""
        return self._trie

    def is_deep(self, i: int) -> bool:
        """Whether variable ``i`` numbers its situations by the trie."""
        return self._trie is not None and i >= self._trie.first

    def situations_of_paths(self, i: int, codes: np.ndarray) -> np.ndarray:
        """Situation numbers at variable ``i`` of the paths ``codes`` (rows of
        level codes of the variables before ``i``, none missing)."""
        codes = np.asarray(codes, dtype=np.int64)
        shallow = min(i, self._trie.first - 1) if self.is_deep(i) else i
        index = np.zeros(codes.shape[0], dtype=np.int64)
        for j in range(shallow):
            index = index * self._k[j] + codes[:, j]
        return self._trie.numbers(codes, i, index) if self.is_deep(i) else index

    def stage_vector(self, i: int) -> StageVector | ParentStageVector:
        """The stage id of each situation of variable ``i`` (never edited in place)."""
        return self._stages[i]

    def stage_labels(self, i: int) -> StageLabels:
        """The labels of variable ``i``'s stages, aligned with the ids (immutable)."""
        return self._labels[i]

    @property
    def has_counts(self) -> bool:
        """Whether the model holds contingency tables."""
        return self._ctab is not None

    def observed_situations(self, i: int) -> np.ndarray:
        """Sorted indices of the situations of variable ``i`` that hold counts."""
        return self._ctab_sit[i]

    def situation_counts(self, i: int) -> np.ndarray:
        """Counts of variable ``i``'s levels in each observed situation (rows as
        :meth:`observed_situations`)."""
        return self._ctab[i]

    def total_count(self) -> float:
        """The number of rows (or total weight) the tables count."""
        return float(self._ctab[0].sum())

    def set_counts(self, situations: Sequence[np.ndarray], counts: Sequence[np.ndarray],
                   data_raw: pd.DataFrame | pd.Series | None) -> None:
        """Replace the tables (per variable: observed situations and their counts)
        and the data they were counted from (kept, not copied)."""
        self._ctab_sit, self._ctab = list(situations), list(counts)
        self._data_raw = data_raw

    @property
    def shared_data_raw(self) -> pd.DataFrame | pd.Series | None:
        """The raw data, not copied: callers never edit it."""
        return self._data_raw

    @property
    def has_probabilities(self) -> bool:
        """Whether probabilities were fitted or set (some variables may still lack them)."""
        return self._prob is not None

    def stage_probabilities(self, i: int) -> np.ndarray | None:
        """Variable ``i``'s probabilities, a row per stage id, or None."""
        return None if self._prob is None else self._prob[i]

    def stage_sizes(self, i: int) -> np.ndarray | None:
        """Variable ``i``'s unsmoothed sample size per stage id (NaN where set by hand), or None."""
        return None if self._n is None else self._n[i]

    def start_fit(self) -> None:
        """Drop every probability, ready for :meth:`set_stage_probabilities` per variable."""
        self._prob = [None] * len(self._vars)
        self._n = [None] * len(self._vars)
        self.ll = None

    def set_stage_probabilities(self, i: int, prob: np.ndarray | None,
                                n: np.ndarray | None) -> None:
        """Variable ``i``'s probabilities and sample sizes, a row per stage id."""
        if self._prob is None:
            self.start_fit()
        self._prob[i] = prob
        self._n[i] = n

    def erase_fit(self) -> None:
        """Drop probabilities and log-likelihood (the structure changed)."""
        self._prob = None
        self._n = None
        self.ll = None

    def keep_stages(self, i: int, ids: Sequence[int] | np.ndarray,
                    through: np.ndarray | None = None) -> None:
        """Keep the stages ``ids`` of variable ``i``, renumbered ``0..len-1`` in that order.

        Stages not listed must be unused; probabilities follow their stage.
        ``through``: every situation's id ``s`` is first sent to
        ``through[s]``, in the same pass over the situations.
        """
        ids = np.asarray(ids)  # (a million int32 ids widened only if they move)
        n_ids = len(self._labels[i])
        if through is None and len(ids) == n_ids and (
                n_ids == 0 or (ids[0] == 0 and ids[-1] == n_ids - 1
                               and np.all(ids[1:] > ids[:-1]))):
            return  # every stage, in its order (a refit of a full tree): nothing moves
        ids = ids.astype(np.int64, copy=False)
        mapping = np.full(n_ids, -1, dtype=np.int32)
        mapping[ids] = np.arange(len(ids), dtype=np.int32)
        self._stages[i] = self._stages[i].remap(mapping if through is None else mapping[through])
        self._labels[i] = self._labels[i].take(ids)
        if self._prob is not None and self._prob[i] is not None:
            self._prob[i] = self._prob[i].take(ids, axis=0)  # (rows by ``take``: 10x faster)
            self._n[i] = self._n[i][ids]

    def assign_stages(self, i: int, vector: StageVector | ParentStageVector,
                      labels: StageLabels, all_used: bool = False) -> None:
        """Give variable ``i`` a new stage vector whose ids keep their meaning
        (their probabilities stay); unused ids are dropped.  ``all_used``:
        the caller knows every id is used, which spares a pass over the
        situations."""
        self._stages[i] = vector
        self._labels[i] = labels
        if all_used:
            return
        used = vector.ids_in_use()
        if len(used) < len(labels):
            self.keep_stages(i, used)

    def replace_stages(self, i: int, vector: StageVector | ParentStageVector,
                       labels: StageLabels, all_used: bool = False) -> None:
        """Give variable ``i`` stages whose ids do not follow the old ones.

        Its probabilities belong to the old ids, so they are dropped: the
        caller refits the variable (or erases the fit).  ``all_used`` as in
        :meth:`assign_stages`.
        """
        if self._prob is not None:
            self._prob[i] = self._n[i] = None
        self.assign_stages(i, vector, labels, all_used)

    def merge_stage_ids(self, i: int, mapping: np.ndarray,
                        kept: Sequence[int] | np.ndarray) -> None:
        """Send every stage id ``s`` of variable ``i`` to ``mapping[s]``, then keep
        the ids ``kept`` (renumbered in that order); the caller refits."""
        self.keep_stages(i, kept, through=mapping)

    def relabel_stages(self, i: int, labels: StageLabels) -> None:
        """Rename variable ``i``'s stages: ``labels`` aligned with the ids."""
        if len(labels) != len(self._labels[i]):
            raise ValueError(f"{len(labels)} labels for the {len(self._labels[i])} stages of "
                             f"{self._vars[i]!r}.")
        self._labels[i] = labels

    def append_variable(self, var: str, levels: Sequence[str],
                        vector: StageVector | ParentStageVector, labels: StageLabels,
                        situations: Sequence[int] | np.ndarray, counts: np.ndarray) -> None:
        """Add ``var`` as the last variable, with its stages and counts.

        The other variables keep their fit; the new one has no probabilities
        until it is fitted, and the stored log-likelihood is dropped.
        """
        # new containers throughout: copies made by ``copy`` share some of them
        self._tree = {**self._tree, var: [str(x) for x in levels]}
        self._vars = self._vars + [var]
        self._k = np.append(self._k, len(levels))
        self._k.flags.writeable = False
        self._stages = self._stages + [vector]
        self._labels = self._labels + [labels]
        self._ctab_sit = self._ctab_sit + [np.asarray(situations, dtype=np.int64)]
        self._ctab = self._ctab + [np.asarray(counts, dtype=float)]
        if self._prob is not None:
            self._prob = self._prob + [None]
            self._n = self._n + [None]
        self.ll = None

    def stage_label_vector(self, i: int) -> list[str]:
        """R's ``stages[[v]]`` of variable ``i``: the label of every situation."""
        sv = self._stages[i]
        labels = self._labels[i].as_array()
        return labels[sv.dense(f"stage vector of {self._vars[i]!r}")].tolist()

    @property
    def ctables(self) -> dict[str, pd.DataFrame] | None:
        """Contingency tables per variable: one row per situation, one column per level."""
        if self._ctab is None:
            return None
        return dense_ctables(self, self._ctab_sit, self._ctab)

    @property
    def stage_prob(self) -> dict[str, StageProbabilities] | None:
        """Stage probabilities per variable and stage (R's ``prob``), or None.

        Each variable's is a read-only mapping from stage label to Series,
        which builds a Series when it is read: reading the attribute costs
        nothing per stage.
        """
        if self._prob is None:
            return None
        return {v: self.stage_prob_of(i) for i, v in enumerate(self._vars)}

    def stage_prob_of(self, i: int) -> StageProbabilities:
        """:attr:`stage_prob` of the variable at position ``i`` only."""
        labels = StageLabels.from_strings(["1"]) if i == 0 else self._labels[i]
        return StageProbabilities(labels, self._tree[self._vars[i]], self._prob[i], self._n[i])

    def __repr__(self):
        return _tree_string(self, max_vars=5)


class StageProbabilities(Mapping):
    """The probabilities of one variable's stages, a Series per stage label
    (in stage order), each carrying its sample size in ``attrs["n"]``.

    A Series is built the first time it is read, from the arrays the model
    had when this mapping was made: a model with millions of stages gives
    its mappings at once.
    """

    def __init__(self, labels, levels, prob, n):
        self._labels = labels
        self._levels = pd.Index(levels)  # shared: an Index per Series is slow
        self._prob = prob
        self._n = n
        self._built = {}  # stage id -> its Series
        self._id_of = None  # label -> stage id, made on the first read by label

    def __len__(self):
        return len(self._labels)

    def __iter__(self):
        return (self._labels[s] for s in range(len(self._labels)))

    def __getitem__(self, label):
        if self._id_of is None:
            self._id_of = {lab: s for s, lab in enumerate(self._labels.tolist())}
        if not isinstance(label, str) or label not in self._id_of:
            raise KeyError(label)
        return self._series(self._id_of[label])

    def _series(self, s):
        if s not in self._built:
            series = pd.Series(self._prob[s], index=self._levels, name=self._labels[s], copy=True)
            series.attrs["n"] = float(self._n[s])
            self._built[s] = series
        return self._built[s]

    def __repr__(self):
        shown = ", ".join(f"{label!r}: {list(map(float, self._prob[s]))}"
                          for s, label in zip(range(3), self))
        more = ", ..." if len(self) > 3 else ""
        return f"StageProbabilities({{{shown}{more}}}, {len(self)} stages)"


def _tree_string(model, max_vars):
    """R's tree summary line: ``A[2] -> B[3] -> ... [2 omitted]``."""
    parts = [f"{v}[{len(lev)}]" for v, lev in list(model._tree.items())[:max_vars]]
    text = " -> ".join(parts)
    omitted = len(model._vars) - max_vars
    if omitted > 0:
        text += f" -> ... [{omitted} omitted]"
    head = "Staged event tree (fitted)" if model.is_fitted else "Staged event tree"
    lines = [head, text]
    if model.ll is not None:
        lines.append(f"'log Lik.' {float(model.ll):.10g} (df={model.ll.df})")
    return "\n".join(lines)


def dense_ctables(model, situations, counts):
    """R-style tables (a row per situation) from the observed rows' counts."""
    out = {}
    for i, v in enumerate(model.variables):
        n_sit = model.n_situations(i)
        if n_sit > DENSE_MAX:
            raise dense_too_large(n_sit, f"contingency table of {v!r}", DENSE_MAX,
                                  "a table with a row per situation is written out only up "
                                  "to that (the model keeps the observed situations' counts)")
        table = np.zeros((n_sit, model._k[i]))
        table[situations[i]] = counts[i]
        out[v] = pd.DataFrame(table, columns=pd.Index(model._tree[v], name=v))
    return out


def check_learned(result, name):
    """``result`` if a stage learner passed as ``name`` returned a staged tree.

    A user's learner can return anything; unchecked, the error would come
    later and name another argument.
    """
    if not isinstance(result, Sevt):
        raise TypeError(
            f"`{name}` must return a staged event tree (Sevt), as stages_bhc does; "
            f"it returned {type(result).__name__}."
        )
    return result


def check_sevt(obj, name="object", fitted=False):
    """Raise unless ``obj`` is a :class:`Sevt` (fitted, if asked)."""
    if not isinstance(obj, Sevt):
        raise TypeError(
            f"`{name}` must be a staged event tree (Sevt); got {type(obj).__name__}."
        )
    if fitted and obj._prob is None:
        raise ValueError(
            f"`{name}` has no stage probabilities: fit it first with sevt_fit()."
        )
    if fitted and (unset := obj._stages_without_prob()):
        shown = ", ".join(f"{v!r}" if s is None else f"{v!r} stage {s!r}" for v, s in unset[:3])
        raise ValueError(
            f"`{name}` has {len(unset)} stage(s) without probabilities ({shown}"
            f"{', ...' if len(unset) > 3 else ''}): give them with set_stage_prob() or fit "
            "the model with sevt_fit()."
        )
    return obj
