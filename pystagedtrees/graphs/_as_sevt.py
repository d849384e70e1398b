"""Bayesian networks to staged trees: ``as_sevt`` (R: R/as_sevt.R).

In the staged tree of a DAG (in a topological order), two situations of a
variable share a stage exactly when they agree on the variable's parents;
so the stages of a variable are its parents' configurations, and fitting
the tree gives the network's conditional probability tables.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from pystagedtrees.base._validation import check_steps_fit
from pystagedtrees.graphs._parentslist import as_parentslist, topo_sort_parentslist
from pystagedtrees.kernels._as_sevt import stages_by_parent_config
from pystagedtrees.model._sevt import Sevt
from pystagedtrees.model._stagevec import (
    DENSE_MAX,
    ParentStageVector,
    StageLabels,
    StageVector,
)
from pystagedtrees.model._trie import MAX_SITUATIONS

__all__ = ["as_sevt"]

MAX_CONFIGURATIONS = 1 << 26
"""Largest parent table (configurations of one variable's parents) built."""


def _tree_order(pl, order):
    if order is None:
        return topo_sort_parentslist(pl)
    if isinstance(order, str) or not hasattr(order, "__iter__"):
        raise TypeError(f"`order` must be a list of variable names; got {order!r}.")
    order = [str(v) for v in order]
    if sorted(order) != sorted(pl.variables):
        raise ValueError(
            f"`order` must list every variable of the graph once ({pl.variables}); "
            f"got {order}."
        )
    placed = set()
    for v in order:
        late = [p for p in pl[v].parents if p not in placed]
        if late:
            raise ValueError(
                f"`order` is not a topological order: {v!r} comes before its "
                f"parent(s) {late}."
            )
        placed.add(v)
    return order


def _tree_levels(pl, order):
    tree = {}
    for v in order:
        levels = pl[v].values
        if levels is None:
            raise ValueError(
                f"the levels of variable {v!r} are unknown: give them with "
                "`values` (a dict of levels, or the data as a DataFrame)."
            )
        if len(levels) == 0 or len(set(levels)) != len(levels):
            raise ValueError(f"variable {v!r} must have distinct levels; got {levels}.")
        tree[v] = list(levels)
    if len(tree) < 2:
        raise ValueError(
            f"the graph has {len(tree)} variable; a staged tree needs at least two."
        )
    return tree


def parent_layout(n_levels, i, parent_positions, variable):
    """How variable ``i``'s stages follow its parents: its number of
    situations, its parents' positions (earliest first), their numbers of
    levels and situation strides, and the number of configurations;
    refusing a variable past what this library indexes or builds."""
    n_situations = int(np.prod(n_levels[:i], dtype=object))
    if n_situations > MAX_SITUATIONS:
        raise ValueError(
            f"the tree would have {n_situations} situations for one variable, more "
            f"than the {MAX_SITUATIONS} this library indexes; use fewer variables."
        )
    positions = sorted(parent_positions)
    radices = np.array([n_levels[j] for j in positions], dtype=np.int64)
    strides = np.array(
        [int(np.prod(n_levels[j + 1:i], dtype=object)) for j in positions], dtype=np.int64
    )
    n_configs = int(np.prod(radices, dtype=object))
    if n_configs > MAX_CONFIGURATIONS:
        raise ValueError(
            f"variable {variable!r} would have {n_configs} parent configurations (stages), more "
            f"than the {MAX_CONFIGURATIONS} this library builds."
        )
    return n_situations, positions, radices, strides, n_configs


def layout_bytes(layout):
    """Memory of the stages built from a layout: an id and a label per
    configuration (about 64 bytes), and an id per situation when stored densely."""
    n_situations, _, _, _, n_configs = layout
    return 64 * n_configs + (4 * n_situations if n_situations <= DENSE_MAX else 0)


def parent_stage_vector(i, layout):
    """Stage vector of variable ``i`` whose stages are its parents' configurations.

    Stage ``c`` is the configuration with mixed-radix index ``c`` (earliest
    parent slowest), which is also the order of first appearance.  A
    variable with more than ``DENSE_MAX`` situations gets the compact
    :class:`ParentStageVector`.
    """
    n_situations, positions, radices, strides, n_configs = layout
    table = np.arange(n_configs, dtype=np.int32)
    lags = np.array([i - j for j in positions], dtype=np.int64)
    if n_situations > DENSE_MAX:
        vector = ParentStageVector(n_situations, lags, strides, radices, table)
    else:
        stage = np.empty(n_situations, dtype=np.int32)
        stages_by_parent_config(np.arange(n_situations, dtype=np.int64), strides, radices, table, stage)
        vector = StageVector(n_situations, stage)
    return vector, StageLabels.numbered(np.arange(1, n_configs + 1))


def as_sevt(x: Any, order: Sequence[str] | None = None,
            values: Mapping[str, Sequence[str]] | pd.DataFrame | None = None) -> Sevt:
    """The staged tree of a Bayesian network / DAG (R: ``as_sevt``).

    Parameters
    ----------
    x : ParentsList, dict, str, networkx.DiGraph, pgmpy model or object
        Anything :func:`~pystagedtrees.as_parentslist` accepts:
        a parents list, a dict ``variable -> parents``, a model string
        ``"[A][B|A]"``, a networkx DAG (a pgmpy ``DiscreteBayesianNetwork``
        is one), or an object with an ``as_parentslist()`` method or
        bnclassify-like ``families`` (a staged tree gives its minimal DAG).
    order : list of str, optional
        Tree order; must be a topological order of the graph (checked).
        Default: R's topological sort (the first variable, in list order,
        whose parents are all placed).
    values : dict of str to list, or pandas.DataFrame, optional
        Levels of the variables, overriding those stored in ``x``; with a
        DataFrame, each column's levels (R's ``as.factor`` order).

    Returns
    -------
    Sevt
        Unfitted; the stages of a variable are its parents' configurations,
        labelled ``"1", "2", ...`` in order of first appearance (as R's
        ``stndnaming``).  Fit it with ``sevt_fit(tree, data, lambda_)`` to
        get the network's (smoothed) conditional probability tables.

    Raises
    ------
    ValueError
        A directed cycle, a parent that is not a variable, unknown levels,
        or an ``order`` that is not topological.

    Notes
    -----
    Parents are looked up **by name**.  R's ``as_sevt.parentslist`` looks
    them up by the variable's position in the list, which builds a wrong
    tree when the list is not already in topological order; both agree
    whenever R's result is right.  R's string-pasted stage labels can also
    collide ("1" + "11" = "11" + "1"); here stages are parent
    configurations, so they cannot.

    When the full tree would have more than ``DENSE_MAX`` situations for a
    variable, its stages are stored by parent configuration
    (an internal ``ParentStageVector``): memory grows
    with the conditional probability tables, not with the tree.

    Examples
    --------
    >>> from pystagedtrees import as_sevt
    >>> import pystagedtrees as st
    >>> tree = as_sevt({"X": [], "Y": ["X"], "Z": ["Y"]},
    ...                values={"X": ["a", "b"], "Y": ["0", "1"], "Z": ["u", "v"]})
    >>> st.stages(tree)
    {'Y': ['1', '2'], 'Z': ['1', '2', '1', '2']}
    """
    pl = as_parentslist(x, values=values, silent=True)
    order = _tree_order(pl, order)
    tree = _tree_levels(pl, order)
    n_levels = [len(levels) for levels in tree.values()]
    position = {v: i for i, v in enumerate(order)}
    stages = [StageVector(1, np.zeros(1, dtype=np.int32))]
    labels = [StageLabels.numbered([1])]
    # every variable checked before any is built
    layouts = [parent_layout(n_levels, i, [position[p] for p in pl[v].parents], v)
               for i, v in enumerate(order[1:], start=1)]
    check_steps_fit(((f"as_sevt builds the {layout[4]:,} stages of {v!r}", layout_bytes(layout))
                     for v, layout in zip(order[1:], layouts)),
                    "give the variable fewer parents or parents of fewer levels")
    for i, layout in enumerate(layouts, start=1):
        vector, lab = parent_stage_vector(i, layout)
        stages.append(vector)
        labels.append(lab)
    return Sevt(tree, stages, labels)
