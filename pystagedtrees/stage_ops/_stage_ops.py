"""Reading and editing stages: ``stages``, ``get_stage``, ``join_stages``,
``rename_stage``, ``stndnaming``, ``summary`` (R: R/stages.R, R/join_stages.R)."""
from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from pystagedtrees.base._data import category_string, encode_column
from pystagedtrees.base._loglik import LogLik
from pystagedtrees.base._validation import (
    as_numbers,
    check_flag,
    check_ignore,
    check_label,
    check_labels,
    is_distribution,
)
from pystagedtrees.fitting._fit import sevt_fit, stage_counts
from pystagedtrees.kernels._stage_scores import join_probabilities
from pystagedtrees.model._sevt import Sevt, check_sevt
from pystagedtrees.model._stagevec import EXPAND_MAX, StageLabels, StageVector

__all__ = ["stages", "set_stages", "set_stage_prob", "get_stage", "get_path", "join_stages",
           "rename_stage", "stndnaming", "summary", "SevtSummary"]


def _non_root(model, var, name="var"):
    i = model.var_index(var, name)
    if i == 0:
        raise ValueError(
            f"`{name}` {var!r} is the root variable, which has a single stage; "
            "pick one of " f"{model.variables[1:]}."
        )
    return i


def stages(object: Sevt, var: str | Sequence[str] | None = None,
           context: Mapping[str, str] | None = None) -> dict[str, list[str]] | list[str]:
    """The stage labels of every situation (R: ``stages``, ``object$stages``).

    Parameters
    ----------
    object : Sevt
    var : str or list of str, optional
        One variable, or several (R's ``stages(object)[c("A", "B")]``);
        default all variables but the root.
    context : dict, optional
        With ``var``: only the situations where the given earlier variables
        take the given level (or one of a list of levels), as R's
        ``stages(object)[var, Class = "1st"]``.

    Returns
    -------
    dict of str to list of str, or list of str when ``var`` is one variable
        One label per situation, in R's situation order.

    Examples
    --------
    >>> import pystagedtrees as st
    >>> model = st.full(st.datasets.titanic_table())
    >>> st.stages(model, "Sex")
    ['1', '2', '3', '4']
    >>> st.stages(model, "Age", context={"Sex": "Female"})
    ['2', '4', '6', '8']
    >>> list(st.stages(model, ["Age", "Sex"]))
    ['Age', 'Sex']
    """
    check_sevt(object)
    if var is None or isinstance(var, (list, tuple, np.ndarray, pd.Index)):
        if context is not None:
            raise ValueError("`context` selects situations of one variable: give `var` too, "
                             "as one variable's name.")
        if var is not None and len(set(var)) < len(var):
            raise ValueError(f"`var` names a variable twice: {list(var)}.")
        positions = (range(1, len(object.variables)) if var is None
                     else [_non_root(object, v) for v in var])
        return {object.variables[i]: object.stage_label_vector(i) for i in positions}
    i = _non_root(object, var)
    labels = object.stage_label_vector(i)
    if context is None:
        return labels
    return [labels[s] for s in _context_situations(object, i, context)]


def _context_situations(model, i, context):
    """Situations of variable ``i`` (R's order) whose path agrees with ``context``."""
    if not isinstance(context, dict):
        raise TypeError(
            f"`context` must be a dict of earlier variables to a level or a list of levels; "
            f"got {type(context).__name__}."
        )
    earlier = model.variables[:i]
    unknown = [v for v in context if v not in earlier]
    if unknown:
        raise ValueError(
            f"`context` names {unknown}, which are not variables before "
            f"{model.variables[i]!r} ({earlier})."
        )
    allowed = []
    for v in earlier:
        levels = model.tree[v]
        wanted = levels if v not in context else check_labels(context[v], "context")
        missing = [lev for lev in wanted if lev not in levels]
        if missing:
            raise ValueError(f"`context` gives {missing} for {v!r}, whose levels are {levels}.")
        allowed.append([levels.index(lev) for lev in wanted])
    n_selected = math.prod(len(a) for a in allowed)
    if n_selected > EXPAND_MAX:
        raise ValueError(
            f"`context` selects {n_selected} situations of {model.variables[i]!r}, more than "
            f"the {EXPAND_MAX} this library lists; fix more of the earlier variables.")
    # the last variable varies fastest, as R's situations do
    grid = np.empty((n_selected, len(allowed)), dtype=np.int64)
    inner = n_selected
    for j, levels in enumerate(allowed):
        inner //= max(len(levels), 1)
        grid[:, j] = np.tile(np.repeat(levels, inner), n_selected // max(inner * len(levels), 1))
    return situation_index(model, grid)


def set_stages(object: Sevt, var: str, value: str | Sequence[str],
               context: Mapping[str, str] | None = None, fit: bool = True) -> Sevt:
    """A copy with some stages of a variable set by hand (R: ``stages(object)[var] <- value``).

    Parameters
    ----------
    object : Sevt
    var : str
        A variable other than the root.
    value : str or list of str
        One label for every selected situation, or a label per situation
        (in R's situation order, as :func:`stages` lists them).
    context : dict, optional
        Select only the situations where earlier variables take the given
        levels (see :func:`stages`); default every situation of ``var``.
    fit : bool, default True
        Refit ``var`` from the stored counts when ``object`` is fitted;
        otherwise, or with ``fit=False``, the result has no probabilities.

    Returns
    -------
    Sevt

    Examples
    --------
    >>> import pystagedtrees as st
    >>> model = st.full(st.datasets.titanic_table(), lambda_=1)
    >>> # Survived independent of Sex and Age in first class
    >>> model = st.set_stages(model, "Survived", "C1", context={"Class": "1st"})
    >>> st.stages(model, "Survived")[:5]
    ['C1', 'C1', 'C1', 'C1', '5']
    >>> round(float(model.BIC()), 2)
    10692.2
    """
    check_sevt(object)
    fit = check_flag(fit, "fit")
    i = _non_root(object, var)
    n_situations = object.n_situations(i)
    chosen = (np.arange(n_situations) if context is None
              else _context_situations(object, i, context))
    new = check_labels(value, "value")
    if not isinstance(value, str) and not (
            isinstance(value, Iterable) and all(isinstance(v, str) for v in value)):
        # R stops: a number could as well be meant as a position
        raise TypeError(f"`value` must be stage labels (str), as in R; got {value!r}.")
    if len(new) not in (1, len(chosen)):
        raise ValueError(
            f"`value` must be one label or one per selected situation ({len(chosen)}); "
            f"got {len(new)}."
        )
    labels = np.asarray(object.stage_vector(i).dense("stage vector of " + repr(var)))
    labels = object.stage_labels(i).as_array()[labels]
    labels[chosen] = new if len(new) > 1 else new[0]
    names, ids = np.unique(labels.astype(str), return_inverse=True)
    model = object.copy()
    model.replace_stages(i, StageVector(n_situations, ids.astype(np.int32)),
                         StageLabels.from_strings(names.tolist()))
    if fit and object.is_fitted and object.has_counts:
        return sevt_fit(model, scope=[var])
    model.erase_fit()
    return model


def path_codes(model, path, name):
    """Level codes (n_paths x m) of paths over the first m variables."""
    if isinstance(path, pd.DataFrame):
        names = list(path.columns)
        frame = path
    elif isinstance(path, dict):
        names = list(path)
        frame = pd.DataFrame({v: [path[v]] for v in names})
    else:
        # a string or number is one level, as R's length-one vectors
        values = [path] if isinstance(path, str) or not isinstance(path, Iterable) else list(path)
        names = model.variables[: len(values)]
        frame = pd.DataFrame({v: [x] for v, x in zip(names, values)})
    m = len(names)
    if m == 0 or m >= len(model.variables) or set(names) != set(model.variables[:m]):
        raise ValueError(
            f"`{name}` must give the levels of the first m variables "
            f"({model.variables[:-1]}), 1 <= m < {len(model.variables)}; got {names}."
        )
    codes = np.column_stack(
        [encode_column(frame[v].astype(str), model.tree[v], v, name) for v in model.variables[:m]]
    )
    if (codes < 0).any():
        raise ValueError(f"`{name}` has missing values.")
    return codes


def situation_index(model, codes):
    """R's situation indices (0-based) of paths given as level codes (their
    numbers in the model's trie past int64 indices)."""
    return model.situations_of_paths(codes.shape[1], codes)


def get_stage(object: Sevt,
              path: Mapping[str, str] | Sequence[str] | pd.DataFrame) -> str | list[str]:
    """Stage of the situation reached by a path (R: ``get_stage``).

    Parameters
    ----------
    object : Sevt
    path : dict, sequence or pandas.DataFrame
        Levels of the first m variables (a dict by name, a sequence in tree
        order, or a DataFrame with one path per row).

    Returns
    -------
    str or list of str
        The stage label of variable m+1 in that situation (a list for a
        DataFrame).

    Examples
    --------
    >>> import pystagedtrees as st
    >>> model = st.full(st.datasets.titanic_table())
    >>> st.get_stage(model, {"Class": "2nd", "Sex": "Female"})
    '4'
    """
    check_sevt(object)
    codes = path_codes(object, path, "path")
    i = codes.shape[1]
    ids = object.stage_vector(i).lookup(situation_index(object, codes))
    labels = object.stage_labels(i).as_array()[ids].tolist()
    return labels if isinstance(path, pd.DataFrame) else labels[0]


def joined_size(n1, n2):
    """Sample size of two joined stages; an unknown (NaN) size counts 1, as in R."""
    return (1.0 if np.isnan(n1) else float(n1)) + (1.0 if np.isnan(n2) else float(n2))


def join_stage_ids(model, i, keep, drop):
    """Join stage ``drop`` into ``keep`` of variable ``i``, in place.

    Probabilities and the log-likelihood are updated as R's
    ``join_stages_unsafe`` does: counts are reconstructed from the stored
    probabilities and sample sizes, so results (and ties) follow R's
    arithmetic.
    """
    mapping = np.arange(len(model.stage_labels(i)), dtype=np.int32)
    mapping[drop] = keep
    prob, n = model.stage_probabilities(i), model.stage_sizes(i)
    if prob is not None:
        new_p, dll, gain = join_probabilities(prob[keep], n[keep], prob[drop], n[drop],
                                              model.lambda_ or 0.0)
        prob, n = prob.copy(), n.copy()
        prob[keep] = new_p
        n[keep] = joined_size(n[keep], n[drop])
        ll = model.ll
        model.set_stage_probabilities(i, prob, n)
        if ll is not None:
            k = int(model.n_levels[i])
            model.ll = LogLik((float(ll) - dll) + gain, ll.df - (k - 1), ll.nobs)
    model.merge_stage_ids(i, mapping, [s for s in range(len(mapping)) if s != drop])


def get_path(object: Sevt, var: str, stage: str | Sequence[str]) -> pd.DataFrame:
    """The paths (situations) of a variable that lie in given stages (R: ``get_path``).

    Parameters
    ----------
    object : Sevt
    var : str
        A variable other than the root.
    stage : str or list of str
        Stage labels of ``var``.

    Returns
    -------
    pandas.DataFrame
        One row per situation in those stages, in situation order: the
        levels of the variables before ``var`` (categoricals, tree order),
        indexed by the 0-based situation number (R's row names minus one,
        except for the second variable, whose rows R numbers from 1).
        :func:`get_stage` of each row gives back one of ``stage``.

    Raises
    ------
    ValueError
        ``var`` is the root or not a variable, or a label in ``stage`` is
        not a stage of ``var`` (R returns no rows for it: here a misspelt
        stage is an error).

    Examples
    --------
    >>> import pystagedtrees as st
    >>> model = st.full(st.datasets.titanic_table())
    >>> paths = st.get_path(model, "Survived", "UNOBSERVED")
    >>> paths.index.tolist(), paths.astype(str).to_numpy().tolist()
    ([12, 14], [['Crew', 'Male', 'Child'], ['Crew', 'Female', 'Child']])
    """
    check_sevt(object)
    i = _non_root(object, var)
    wanted = object.stage_ids(i, check_labels(stage, "stage"))
    ids = object.stage_vector(i).dense(f"stage vector of {var!r}")
    situations = np.flatnonzero(np.isin(ids, wanted))
    codes = np.unravel_index(situations, [int(k) for k in object.n_levels[:i]])
    return pd.DataFrame(
        {
            v: pd.Categorical.from_codes(codes[j], object.tree[v])
            for j, v in enumerate(object.variables[:i])
        },
        index=pd.Index(situations, name="situation"),
    )


def join_stages(object: Sevt, var: str, s1: str, s2: str) -> Sevt:
    """Join two stages of a variable; the result keeps the name ``s1`` (R: ``join_stages``).

    Parameters
    ----------
    object : Sevt
    var : str
    s1, s2 : str
        Stage labels of ``var``.

    Returns
    -------
    Sevt
        A new model; if ``object`` is fitted, probabilities and the
        log-likelihood are updated.

    Examples
    --------
    >>> import pystagedtrees as st
    >>> model = st.full(st.datasets.titanic_table())
    >>> st.join_stages(model, "Sex", "1", "2").stages("Sex")
    ['1', '1', '3', '4']
    """
    check_sevt(object)
    i = _non_root(object, var)
    (keep,) = object.stage_ids(i, [check_label(s1, "s1")], "s1")
    (drop,) = object.stage_ids(i, [check_label(s2, "s2")], "s2")
    if keep == drop:
        raise ValueError(
            f"`s1` and `s2` must be distinct stages; both are {object.stage_labels(i)[keep]!r}."
        )
    model = object.copy()
    join_stage_ids(model, i, keep, drop)
    return model


def rename_stage(object: Sevt, var: str, stage: str, new: str) -> Sevt:
    """Rename a stage of a variable (R: ``rename_stage``).

    Examples
    --------
    >>> import pystagedtrees as st
    >>> model = st.full(st.datasets.titanic_table())
    >>> st.rename_stage(model, "Sex", "2", "NEW").stages("Sex")
    ['1', 'NEW', '3', '4']
    """
    check_sevt(object)
    i = _non_root(object, var)
    (sid,) = object.stage_ids(i, [check_label(stage, "stage")])
    new = check_label(new, "new")
    if new in object.stage_labels(i) and object.stage_labels(i).index(new) != sid:
        raise ValueError(
            f"`new` {new!r} is already a stage of {var!r}: use join_stages to merge."
        )
    model = object.copy()
    renamed = new != object.stage_labels(i)[sid]
    model.relabel_stages(i, model.stage_labels(i).replace(sid, new))
    if renamed:  # R appends the new name to `prob` and drops the old one
        others = np.flatnonzero(np.arange(len(model.stage_labels(i))) != sid)
        model.keep_stages(i, np.append(others, sid))
    return model


def set_stage_prob(object: Sevt, var: str, stage: str,
                   prob: Mapping[str, float] | pd.Series | Sequence[float]) -> Sevt:
    """A copy with one stage's probabilities set by hand (R: ``object$prob[[var]][[stage]] <- prob``).

    Parameters
    ----------
    object : Sevt
    var : str
        Any variable (the root's single stage is ``"1"``).
    stage : str
        One of the variable's stages.
    prob : dict, pandas.Series or sequence of float
        A probability per level, by level name (a dict, or a Series indexed
        by the levels, as R reads a named vector) or in level order; they must
        be finite, non-negative and sum to 1 (within 1e-6), or all NaN (R's
        ``NA``): undefined, as in a stage that no row reached in a fit
        without smoothing, for a stage no path is meant to reach (a stage
        the model's counts reach is refused).  Paths through it then have
        probability NaN, and :func:`sample_from` leaves their values from
        there on missing, as R does.

    Returns
    -------
    Sevt
        Without a stored log-likelihood or sample sizes for that stage; a
        model without probabilities gets them undefined (NaN) elsewhere,
        until each stage is set (as R's hand-built ``prob`` lists).

    Examples
    --------
    >>> import pystagedtrees as st
    >>> model = st.sevt({"A": ["a", "b"], "B": ["x", "y"]}, full=True)
    >>> model = st.set_stage_prob(model, "A", "1", {"a": 0.5, "b": 0.5})
    >>> model = st.set_stage_prob(model, "B", "1", [0.3, 0.7])
    >>> model = st.set_stage_prob(model, "B", "2", {"y": 0.9, "x": 0.1})
    >>> round(st.prob(model, {"A": "a", "B": "x"}), 6)
    0.15
    """
    check_sevt(object)
    i = object.var_index(var)
    (sid,) = object.stage_ids(i, [check_label(stage, "stage")])
    levels = object.tree[var]
    if isinstance(prob, pd.Series) and not isinstance(prob.index, pd.RangeIndex):
        # labelled: read by level name, as R reads a named vector
        if not prob.index.is_unique:
            raise ValueError(f"`prob` names a level twice: {list(prob.index)}.")
        prob = prob.to_dict()
    if isinstance(prob, dict):
        # keys named as the model names levels (True -> "TRUE", 1.0 -> "1")
        by_name = {category_string(level): value for level, value in prob.items()}
        if len(by_name) != len(prob) or sorted(by_name) != sorted(levels):
            raise ValueError(f"`prob` must give one value per level of {var!r}, {levels}; "
                             f"got {list(prob)}.")
        prob = [by_name[level] for level in levels]
    values = as_numbers(prob, "`prob`")
    if values.shape != (len(levels),):
        raise ValueError(f"`prob` must give one value per level of {var!r}, {levels}; got {prob!r}.")
    undefined = bool(np.isnan(values).all())
    if not undefined and not is_distribution(values):
        raise ValueError(f"`prob` must be probabilities summing to 1, or all NaN (R's NA); "
                         f"got {values.tolist()}.")
    if undefined and object.has_counts and (reached := stage_counts(object, i)[sid].sum()):
        # its counts would contradict the 0 that marks it undefined (learners, logLik)
        raise ValueError(f"`prob` is all NaN for stage {stage!r} of {var!r}, which "
                         f"{reached:g} observations of the model reach: NaN is for stages "
                         "no path reaches.")
    model = object.copy(only=i)
    if not model.has_probabilities:
        for j, k in enumerate(model.n_levels):
            n_stages = len(model.stage_labels(j))
            model.set_stage_probabilities(j, np.full((n_stages, k), np.nan),
                                          np.full(n_stages, np.nan))
    prob, n = model.stage_probabilities(i).copy(), model.stage_sizes(i).copy()
    prob[sid] = values
    # a count of 0 tells an undefined stage from one not set yet (both NaN)
    n[sid] = 0.0 if undefined else np.nan
    model.set_stage_probabilities(i, prob, n)
    model.ll = None
    return model


def _refuse_clash(strings, var):
    """R would give a new name to a stage while an ignored stage keeps it, merging the two
    by name with no refit; refuse instead."""
    seen = set()
    for label in strings:
        if label in seen:
            raise ValueError(
                f"stndnaming would name two stages of {var!r} {label!r}: an ignored stage "
                "already has that name; use `prefix=True` or rename the ignored stage."
            )
        seen.add(label)


def stndnaming(object: Sevt, uniq: bool = False, prefix: bool = False,
               ignore: Sequence[str] | None = None) -> Sevt:
    """Rename stages "1", "2", ... in order of first appearance (R: ``stndnaming``).

    Parameters
    ----------
    object : Sevt
    uniq : bool, default False
        Number stages across variables, so labels are unique in the tree.
    prefix : bool, default False
        Prefix every label with its variable name.
    ignore : list of str, optional
        Labels left as they are (default: the model's unobserved names).

    Returns
    -------
    Sevt

    Examples
    --------
    >>> import pystagedtrees as st
    >>> m = st.full(st.datasets.titanic_table())
    >>> m = st.join_stages(m, "Sex", "3", "1")
    >>> st.stndnaming(m).stages("Sex")
    ['1', '2', '1', '3']
    """
    check_sevt(object)
    ignore = check_ignore(ignore, object.name_unobserved)
    uniq = check_flag(uniq, "uniq")
    prefix = check_flag(prefix, "prefix")
    model = object.copy()
    start = 0
    for i in range(1, len(model.variables)):
        labels = model.stage_labels(i)
        order = model.stage_vector(i).first_appearance()
        renamed = [s for s in order if labels[s] not in ignore]
        numbers = np.arange(start + 1, start + 1 + len(renamed))
        if len(renamed) == len(labels) and not prefix:
            nums = np.empty(len(labels), dtype=np.int64)
            nums[np.asarray(renamed, dtype=np.int64)] = numbers
            model.relabel_stages(i, StageLabels.numbered(nums))
        else:
            strings = labels.tolist()
            for s, num in zip(renamed, numbers):
                strings[s] = f"{model.variables[i]}{num}" if prefix else str(num)
            _refuse_clash(strings, model.variables[i])
            model.relabel_stages(i, StageLabels.from_strings(strings))
        r_order = _renamed_prob_order(*labels.keys_with(model.stage_labels(i)), renamed)
        if not np.array_equal(r_order, np.arange(len(labels))):
            model.keep_stages(i, r_order)
        if uniq:
            start += len(renamed)
    return model


def _renamed_prob_order(old, new, renamed):
    """Stage ids in the order R's stndnaming leaves ``prob``.

    R assigns ``prob[new] <- prob[old]``, which overwrites in place the names
    already there and appends the others (in ``renamed`` order), then drops
    the old names not reused.  ``old``/``new`` are the labels by stage id, as
    comparable keys (:meth:`StageLabels.keys_with`).
    """
    renamed = np.asarray(renamed, dtype=np.int64)
    if not len(renamed):  # every stage ignored: R assigns nothing
        return np.arange(len(old))
    new_names = pd.Index(np.asarray(new)[renamed])
    holder = new_names.get_indexer(old)  # the renamed stage that takes over position p
    is_renamed = np.zeros(len(old), dtype=bool)
    is_renamed[renamed] = True
    kept = np.where(holder >= 0, renamed[np.maximum(holder, 0)],
                    np.where(is_renamed, -1, np.arange(len(old))))
    appended = renamed[~new_names.isin(old)]
    return np.concatenate([kept[kept >= 0], appended])


class SevtSummary:
    """What :func:`summary` returns: per variable, a table of its stages (R: ``summary.sevt``).

    Attributes
    ----------
    model : Sevt
        A copy of the summarised model.
    tables : dict of str to pandas.DataFrame
        Per variable, one row per stage (see :func:`summary`).

    Examples
    --------
    >>> import pystagedtrees as st
    >>> s = st.summary(st.indep(st.datasets.titanic_table()))
    >>> list(s.tables)
    ['Class', 'Sex', 'Age', 'Survived']
    """

    def __init__(self, model: Sevt, tables: dict[str, pd.DataFrame]) -> None:
        self.model = model
        self.tables = tables

    def __repr__(self):
        lambda_ = self.model.lambda_
        lines = [repr(self.model), f"lambda: {'' if lambda_ is None else f'{lambda_:g}'}", ""]
        for v, table in self.tables.items():
            lines += [f"---- {v}", table.to_string(index=False), ""]
        return "\n".join(lines)


def summary(object: Sevt) -> SevtSummary:
    """Per-variable tables: stage, number of situations, sample size, probabilities.

    Returns
    -------
    SevtSummary
        ``.tables[var]`` is a DataFrame with one row per stage in use, in
        order of the stages' first situations (as R), and columns ``stage``,
        ``npaths`` (the number of situations in the stage; 0 for the root,
        as in R), ``sample.size`` and one column per level.

    Examples
    --------
    >>> import pystagedtrees as st
    >>> s = st.summary(st.indep(st.datasets.titanic_table()))
    >>> s.tables["Sex"][["stage", "npaths", "sample.size"]].to_dict("list")
    {'stage': ['1'], 'npaths': [4], 'sample.size': [2201.0]}
    """
    check_sevt(object)
    tables = {}
    fitted = object.is_fitted  # once: it reads every stage of every variable
    for i, v in enumerate(object.variables):
        if i:  # as R: the stages in use, by their first situation
            rows = object.stage_vector(i).first_appearance()
            npaths = object.stage_vector(i).paths_per_stage(len(object.stage_labels(i)))[rows]
            table = pd.DataFrame({"stage": object.stage_labels(i).as_array()[rows], "npaths": npaths})
        else:  # R's summary gives the root's stage 0 paths
            rows = [0]
            table = pd.DataFrame({"stage": ["1"], "npaths": [0]})
        if fitted:
            table["sample.size"] = object.stage_sizes(i)[rows]
            # one frame for all the levels: a column at a time is quadratic in them
            prob = pd.DataFrame(object.stage_probabilities(i)[rows], columns=pd.Index(object.tree[v]),
                                index=table.index)
            table = pd.concat([table, prob], axis=1)
        tables[v] = table
    return SevtSummary(object.copy(), tables)  # R holds a copy of the model
