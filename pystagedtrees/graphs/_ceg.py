"""Chain event graphs and tree graphs (R: R/ceg.R, R/sevt_simplify.R,
R/join_positions.R, R/igraph_conversion.R, R/as_adj_matrix.R).

Two situations of a variable are in the same *position* when they are in
the same stage and their children, level by level, are in the same
positions: the subtrees rooted there are then indistinguishable.  Positions
are computed from the last variable back to the root.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from pystagedtrees.base._validation import check_flag, check_ignore
from pystagedtrees.fitting._fit import sevt_fit
from pystagedtrees.model._sevt import Sevt, check_sevt
from pystagedtrees.model._stagevec import EXPAND_MAX, StageLabels, StageVector, dense_too_large
from pystagedtrees.stage_ops._stage_ops import join_stages

__all__ = [
    "Ceg",
    "ceg",
    "sevt_simplify",
    "join_positions",
    "get_edges",
    "get_vertices",
    "ceg_adj_matrix",
]


class Ceg(Sevt):
    """A staged tree with its positions: a chain event graph (R: class ``ceg``).

    Build one with :func:`ceg`.  ``positions[var]`` has one label per
    situation (``"1", "2", ...`` by first appearance; the root's is ``"1"``).

    Examples
    --------
    >>> import pystagedtrees as st
    >>> graph = st.ceg(st.indep(st.datasets.titanic_table(), join_unobserved=False))
    >>> graph.positions["Sex"]
    ['1', '1', '1', '1']
    """

    @property
    def positions(self) -> dict[str, list[str]]:
        """One position label per situation of each variable (the root's is "1")."""
        return {
            v: [str(p + 1) for p in self._positions[i]] for i, v in enumerate(self.variables)
        }


def _first_appearance_ids(rows):
    """Ids ``0..m-1`` of the distinct rows, numbered by first appearance."""
    _, first, inverse = np.unique(rows, axis=0, return_index=True, return_inverse=True)
    rank = np.empty(len(first), dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(len(first))
    return rank[inverse.ravel()]


def _dense_stages(model, i):
    return model.stage_vector(i).dense(f"stage vector of {model.variables[i]!r}")


def compute_positions(model):
    """Position ids of every situation, per variable (root: a single 0)."""
    p = len(model.variables)
    positions = [None] * p
    positions[0] = np.zeros(1, dtype=np.int64)
    if p >= 2:
        positions[p - 1] = _first_appearance_ids(_dense_stages(model, p - 1)[:, None])
    for i in range(p - 2, 0, -1):
        children = positions[i + 1].reshape(-1, int(model.n_levels[i]))
        positions[i] = _first_appearance_ids(np.column_stack([_dense_stages(model, i), children]))
    return positions


def ceg(object: Sevt) -> Ceg:
    """The chain event graph of a staged tree (R: ``ceg``).

    Parameters
    ----------
    object : Sevt

    Returns
    -------
    Ceg
        The same model, with ``positions``.

    Examples
    --------
    >>> from pystagedtrees import ceg
    >>> import pystagedtrees as st
    >>> model = st.sevt({"A": ["a", "b"], "B": ["x", "y"], "C": ["0", "1"]})
    >>> ceg(model).positions
    {'A': ['1'], 'B': ['1', '1'], 'C': ['1', '1', '1', '1']}
    """
    check_sevt(object)
    out = object.copy(into=Ceg)
    out._positions = compute_positions(object)
    return out


def sevt_simplify(object: Sevt, fit: bool = True) -> Sevt:
    """Replace the stages by the positions (R: ``sevt_simplify``).

    Unobserved situations keep their unobserved stage.  A fitted model is
    refitted from its data when ``fit`` (positions refine stages, so without
    data each position simply keeps its stage's probabilities); with
    ``fit=False`` the fit is dropped.

    Returns
    -------
    Sevt

    Examples
    --------
    >>> from pystagedtrees import sevt_simplify
    >>> import pystagedtrees as st
    >>> model = st.sevt({"A": ["a", "b"], "B": ["x", "y"], "C": ["0", "1"]}, full=True)
    >>> model = st.join_stages(model, "B", "1", "2")
    >>> st.stages(sevt_simplify(model))  # B's situations lead to different subtrees
    {'B': ['1', '2'], 'C': ['1', '2', '3', '4']}
    """
    check_sevt(object)
    fit = check_flag(fit, "fit")
    positions = compute_positions(object)
    unobserved = list(object.name_unobserved or [])
    model = object.copy()
    model.erase_fit()
    stage_of_new = [np.zeros(1, dtype=np.int64)]
    for i in range(1, len(model.variables)):
        labels = object.stage_labels(i)
        stage = _dense_stages(object, i)
        # key: the position, or -(j+1) for the j-th unobserved name
        key = positions[i].copy()
        for j, name in enumerate(unobserved):
            sid = labels.index(name)
            if sid >= 0:
                key[stage == sid] = -(j + 1)
        ids = _first_appearance_ids(key[:, None])
        first = np.unique(ids, return_index=True)[1]
        names = [str(key[f] + 1) if key[f] >= 0 else unobserved[-key[f] - 1] for f in first]
        stage_of_new.append(stage[first])
        model.assign_stages(i, StageVector(len(ids), ids.astype(np.int32)), StageLabels.from_strings(names))
    if object.is_fitted and fit:
        if object.has_counts:
            return sevt_fit(model)
        for i, old in enumerate(stage_of_new):
            model.set_stage_probabilities(i, object.stage_probabilities(i)[old], np.full(len(old), np.nan))
    return model


def join_positions(object: Sevt, var: str, s1: str, s2: str) -> Sevt:
    """Join two stages and rebuild the downstream stages as positions (R: ``join_positions``).

    After joining ``s1`` and ``s2`` of ``var``, every later variable's
    situation gets the stage ``(stage of its parent situation, level)``,
    labelled as R pastes them (``"1" + "2" -> "12"``; if two pairs paste to
    the same label, the stages are numbered ``"1", "2", ...`` instead).  A
    model with data is refitted downstream.

    Returns
    -------
    Sevt

    Examples
    --------
    >>> from pystagedtrees import join_positions
    >>> import pystagedtrees as st
    >>> model = st.sevt({"A": ["a", "b"], "B": ["x", "y"], "C": ["0", "1"]}, full=True)
    >>> st.stages(join_positions(model, "B", "1", "2"))
    {'B': ['1', '1'], 'C': ['11', '12', '11', '12']}
    """
    check_sevt(object)
    i = object.var_index(var, "var")
    last = len(object.variables) - 1
    if i < last and object.n_situations(last) > EXPAND_MAX:  # before any work
        raise dense_too_large(object.n_situations(last), f"stage vector of {object.variables[last]!r}",
                              advice="join_positions gives every later situation a stage of "
                                     "its own; join_stages joins two stages alone")
    model = join_stages(object, var, s1, s2)
    for j in range(i + 1, len(model.variables)):
        k = int(model.n_levels[j - 1])
        previous = _dense_stages(model, j - 1)
        key = (previous[:, None].astype(np.int64) * k + np.arange(k)).ravel()
        ids = _first_appearance_ids(key[:, None])
        first = np.unique(ids, return_index=True)[1]
        parent_labels = model.stage_labels(j - 1).as_array()
        names = [f"{parent_labels[key[f] // k]}{key[f] % k + 1}" for f in first]
        if len(set(names)) < len(names):
            names = [str(n + 1) for n in range(len(names))]
        # refitted (or erased) below
        model.replace_stages(j, StageVector(len(ids), ids.astype(np.int32)), StageLabels.from_strings(names))
    if model.has_probabilities and model.has_counts and i + 1 < len(model.variables):
        return sevt_fit(model, scope=model.variables[i + 1:])
    if i + 1 < len(model.variables):
        model.erase_fit()
    return model


# -- graphs ---------------------------------------------------------------------

def _situation_names(model):
    """Names ``root``, ``root-a``, ``root-a-x``, ... of every situation, per variable.

    The leaves are named too: past :data:`EXPAND_MAX` of them, a ValueError
    (each name is a Python string)."""
    leaves = model.n_situations(len(model.variables) - 1) * int(model.n_levels[-1])
    if leaves > EXPAND_MAX:
        raise dense_too_large(leaves, "graph of the tree", advice=(
            "a vertex and an edge are listed for every situation and leaf; use a tree of "
            "fewer variables or levels, or get_stage() on the paths you need"))
    names = [["root"]]
    for i in range(len(model.variables) - 1):
        levels = model.tree[model.variables[i]]
        names.append([f"{n}-{lev}" for n in names[-1] for lev in levels])
    return names


def _stage_labels(model, i):
    return model.stage_labels(i).as_array()[_dense_stages(model, i)]


def _tree_edges(model, ignore):
    variables = model.variables
    names = _situation_names(model)
    rows = []
    for i, v in enumerate(variables):
        levels = model.tree[v]
        stages = [None] if i == 0 else _stage_labels(model, i)
        child_stages = _stage_labels(model, i + 1) if i + 1 < len(variables) else None
        for s, stage in enumerate(stages):
            if stage in ignore:
                continue
            for a, lev in enumerate(levels):
                if child_stages is not None and child_stages[s * len(levels) + a] in ignore:
                    continue
                rows.append((names[i][s], f"{names[i][s]}-{lev}", lev, v, stage))
    return pd.DataFrame(rows, columns=["from", "to", "label", "var", "stage"])


def _tree_vertices(model, ignore):
    variables = model.variables
    names = _situation_names(model)
    rows = [("root", None, variables[0])]
    kept = []
    for i in range(1, len(variables)):
        stages = _stage_labels(model, i)
        kept = [s for s, stage in enumerate(stages) if stage not in ignore]
        rows += [(names[i][s], stages[s], variables[i]) for s in kept]
    last_levels = model.tree[variables[-1]]
    rows += [(f"{names[-1][s]}-{lev}", None, None) for s in kept for lev in last_levels]
    return pd.DataFrame(rows, columns=["name", "stage", "var"])


def _ceg_layout(model, ignore):
    """Position names ``var_pos`` per variable, the stage labels, and the ignored positions."""
    variables = model.variables
    pos = [[f"{v}_{p + 1}" for p in model._positions[i]] for i, v in enumerate(variables)]
    stages = [["1"]] + [list(_stage_labels(model, i)) for i in range(1, len(variables))]
    ignored = {
        pos[i][s] for i in range(1, len(variables)) for s, st in enumerate(stages[i]) if st in ignore
    }
    return pos, stages, ignored


def _first_situations(positions):
    """Each distinct position with its first situation, in order of appearance."""
    first = {}
    for s, p in enumerate(positions):
        first.setdefault(p, s)
    return first.items()


def _ceg_edges(model, ignore):
    pos, stages, ignored = _ceg_layout(model, ignore)
    variables = model.variables
    rows = []
    for i in range(1, len(variables)):
        v, levels = variables[i - 1], model.tree[variables[i - 1]]
        for p1, s in _first_situations(pos[i - 1]):
            for a, lev in enumerate(levels):
                p2 = pos[i][s * len(levels) + a]
                if p2 not in ignored:
                    rows.append((p1, p2, lev, stages[i - 1][s], v))
    v = variables[-1]
    for p1, s in _first_situations(pos[-1]):
        if p1 not in ignored:
            rows += [(p1, "END", lev, stages[-1][s], v) for lev in model.tree[v]]
    return pd.DataFrame(rows, columns=["from", "to", "label", "stage", "var"])


def _ceg_vertices(model, ignore):
    pos, stages, _ = _ceg_layout(model, ignore)
    stages[0] = ["0"]  # R names the root's stage "0" here
    rows = []
    for i, v in enumerate(model.variables):
        for p1, s in _first_situations(pos[i]):
            if stages[i][s] not in ignore:
                rows.append((p1, stages[i][s], v))
    rows.append(("END", "END", None))
    return pd.DataFrame(rows, columns=["name", "stage", "var"])


def get_edges(x: Sevt, ignore: Sequence[str] | None = None) -> pd.DataFrame:
    """Edges of the tree graph of a staged tree, or of a CEG (R: ``get_edges``).

    Parameters
    ----------
    x : Sevt or Ceg
    ignore : list of str, optional
        Stages whose situations are left out (default the unobserved ones).

    Returns
    -------
    pandas.DataFrame
        A tree: columns ``from, to, label, var, stage``, vertices named
        ``root``, ``root-a``, ``root-a-x``...  A CEG: columns ``from, to,
        label, stage, var`` between positions ``var_pos`` and ``END``.

    Examples
    --------
    >>> from pystagedtrees import get_edges
    >>> import pystagedtrees as st
    >>> model = st.sevt({"A": ["a", "b"], "B": ["x", "y"]})
    >>> get_edges(model)["to"].tolist()
    ['root-a', 'root-b', 'root-a-x', 'root-a-y', 'root-b-x', 'root-b-y']
    """
    check_sevt(x, "x")
    ignore = check_ignore(ignore, x.name_unobserved)
    return _ceg_edges(x, ignore) if isinstance(x, Ceg) else _tree_edges(x, ignore)


def get_vertices(x: Sevt, ignore: Sequence[str] | None = None) -> pd.DataFrame:
    """Vertices of the tree graph of a staged tree, or of a CEG (R: ``get_vertices``).

    Returns
    -------
    pandas.DataFrame
        Columns ``name, stage, var`` (leaves, and the CEG's ``END``, have
        no variable).

    Examples
    --------
    >>> from pystagedtrees import ceg, get_vertices
    >>> import pystagedtrees as st
    >>> model = st.sevt({"A": ["a", "b"], "B": ["x", "y"]})
    >>> get_vertices(ceg(model))["name"].tolist()
    ['A_1', 'B_1', 'END']
    """
    check_sevt(x, "x")
    ignore = check_ignore(ignore, x.name_unobserved)
    return _ceg_vertices(x, ignore) if isinstance(x, Ceg) else _tree_vertices(x, ignore)


def ceg_adj_matrix(x, ignore=None, endnode=True):
    """Adjacency matrix of a CEG: number of edges between positions (R: ``as_adj_matrix.ceg``).

    Parameters
    ----------
    x : Ceg
    ignore : list of str, optional
        Stages whose positions are dropped (default the unobserved ones).
    endnode : bool, default True
        Count the edges of the last variable into ``END``.

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> from pystagedtrees import ceg
    >>> from pystagedtrees.graphs._ceg import ceg_adj_matrix
    >>> import pystagedtrees as st
    >>> m = ceg(st.sevt({"A": ["a", "b"], "B": ["x", "y"]}))
    >>> ceg_adj_matrix(m).to_numpy().tolist()
    [[0, 2, 0], [0, 0, 2], [0, 0, 0]]
    """
    if not isinstance(x, Ceg):
        raise TypeError(f"`x` must be a Ceg (see ceg()); got {type(x).__name__}.")
    pos, _, ignored = _ceg_layout(x, check_ignore(ignore, x.name_unobserved))
    names = list(dict.fromkeys(p for per_var in pos for p in per_var)) + ["END"]
    index = {p: j for j, p in enumerate(names)}
    mat = np.zeros((len(names), len(names)), dtype=np.int64)
    for i in range(1, len(x.variables)):
        k = int(x.n_levels[i - 1])
        for p1, s in _first_situations(pos[i - 1]):
            for p2 in pos[i][s * k:(s + 1) * k]:
                mat[index[p1], index[p2]] += 1
    if endnode:
        for p1, _ in _first_situations(pos[-1]):
            mat[index[p1], index["END"]] = int(x.n_levels[-1])
    keep = [j for j, p in enumerate(names) if p not in ignored]
    kept_names = [names[j] for j in keep]
    return pd.DataFrame(mat[np.ix_(keep, keep)], index=kept_names, columns=kept_names)
