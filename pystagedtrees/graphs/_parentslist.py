"""Directed acyclic graphs as lists of parents (R: R/parentslist.R, R/as_adj_matrix.R,
R/random_parentslist.R, R/as_bn.R, R/igraph_conversion.R).

A :class:`ParentsList` maps each variable to its parents and, when known,
its levels.  It is the bridge between Bayesian networks and staged trees:
:func:`~pystagedtrees.as_sevt` turns one into a staged tree, and
:func:`as_parentslist` recovers the minimal DAG whose model contains a
staged tree (Varando, Carli & Leonelli 2024), noting where the tree has
context-specific, partial or local independences a DAG cannot express.
"""
from __future__ import annotations

import copy
import heapq
import re
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from pystagedtrees.base._validation import (
    check_fits_in_memory,
    check_flag,
    check_int,
    check_levels,
    check_steps_fit,
)
from pystagedtrees.model._sevt import Sevt
from pystagedtrees.model._stagevec import EXPAND_MAX, ParentStageVector, dense_too_large
from pystagedtrees.rng import Rng, Seed, resolve_source

if TYPE_CHECKING:
    import networkx as nx

__all__ = [
    "ParentsEntry",
    "ParentsList",
    "parentslist",
    "as_parentslist",
    "topo_sort_parentslist",
    "all_topo_sort",
    "as_adj_matrix",
    "as_bn",
    "as_networkx",
    "random_parentslist",
]


@dataclass
class ParentsEntry:
    """One variable of a :class:`ParentsList` (R: an element of a ``parentslist``).

    Attributes
    ----------
    parents : list of str
    values : list of str or None
        The variable's levels, when known.
    context, partial, local : list of str
        Parents through which a staged tree has context-specific, partial or
        local independences (filled by :func:`as_parentslist` from a tree).
    stages : list of str or None
        From a staged tree: the stage labels over the parents'
        configurations (parents in tree order, the earliest slowest).
    """

    parents: list
    values: list = None
    context: list = field(default_factory=list)
    partial: list = field(default_factory=list)
    local: list = field(default_factory=list)
    stages: list = None


class ParentsList(Mapping):
    """A DAG as an ordered mapping ``variable -> ParentsEntry`` (R: ``parentslist``).

    Build one with :func:`parentslist` or :func:`as_parentslist`.  Entries
    read from it are copies: build a new list to change the DAG.

    Examples
    --------
    >>> from pystagedtrees import parentslist
    >>> pl = parentslist({"A": [], "B": ["A"], "C": ["A", "B"]})
    >>> pl["C"].parents
    ['A', 'B']
    >>> str(pl)
    '[A][B|A][C|A:B]'
    >>> pl.edges()
    [('A', 'B'), ('A', 'C'), ('B', 'C')]
    """

    def __init__(self, entries: Mapping[str, ParentsEntry]) -> None:
        if not isinstance(entries, Mapping) or not all(
                isinstance(e, ParentsEntry) for e in entries.values()):
            raise TypeError(
                "`entries` must map each variable name to a ParentsEntry; build parents "
                f"lists with parentslist() or as_parentslist(); got {entries!r}."
            )
        self._entries = copy.deepcopy(dict(entries))  # the caller keeps theirs

    def __getitem__(self, var: str) -> ParentsEntry:
        # a copy: editing it must not change the DAG behind the list's checks
        return copy.deepcopy(self._entries[var])

    def __iter__(self):
        return iter(self._entries)

    def __len__(self):
        return len(self._entries)

    @property
    def variables(self) -> list[str]:
        """The variables, in list order."""
        return list(self._entries)

    def edges(self) -> list[tuple[str, str]]:
        """The arcs ``(parent, child)``, children in list order."""
        return [(p, v) for v, e in self._entries.items() for p in e.parents]

    def to_string(self, only_parents: bool = False) -> str:
        """R's ``as.character.parentslist``: ``[A][B|A][C|A:B]``.

        Unless ``only_parents``, a parent is wrapped in ``( )`` for a partial,
        ``{ }`` for a context-specific and ``< >`` for a local independence.
        Names containing ``[``, ``]``, ``|`` or ``:`` make the string
        ambiguous, so :func:`as_parentslist` cannot read it back; use the
        ParentsList itself, or a dict, to pass such a structure on.
        """
        only_parents = check_flag(only_parents, "only_parents")
        parts = []
        for v, e in self._entries.items():
            names = []
            for p in e.parents:
                if only_parents:
                    names.append(p)
                    continue
                opening = "(" * (p in e.partial) + "{" * (p in e.context) + "<" * (p in e.local)
                closing = ">" * (p in e.local) + "}" * (p in e.context) + ")" * (p in e.partial)
                names.append(opening + p + closing)
            parts.append(f"[{v}|{':'.join(names)}]" if names else f"[{v}]")
        return "".join(parts)

    def __str__(self):
        return self.to_string()

    def __repr__(self):
        return f"<ParentsList {self.to_string()}>"


# -- building ------------------------------------------------------------------

def _as_name_list(value, what):
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    try:
        return [str(v) for v in value]
    except TypeError:
        raise TypeError(f"{what} must be a list of names; got {value!r}.") from None


def _entry(var, spec, name):
    """A ParentsEntry from a list of parents, an R-like dict or an entry (of argument ``name``)."""
    if isinstance(spec, ParentsEntry):
        return ParentsEntry(**{k: (list(v) if isinstance(v, list) else v) for k, v in spec.__dict__.items()})
    if isinstance(spec, Mapping):
        unknown = set(spec) - {"parents", "values", "context", "partial", "local", "stages"}
        if unknown:
            raise ValueError(
                f"`{name}`: entry of {var!r} has unknown field(s) {sorted(unknown)}; expected "
                "'parents' and optionally 'values'."
            )
        values = spec.get("values")
        return ParentsEntry(
            parents=_as_name_list(spec.get("parents"), f"`{name}`: parents of {var!r}"),
            values=None if values is None else [str(x) for x in values],
            context=_as_name_list(spec.get("context"), f"`{name}`: context of {var!r}"),
            partial=_as_name_list(spec.get("partial"), f"`{name}`: partial of {var!r}"),
            local=_as_name_list(spec.get("local"), f"`{name}`: local of {var!r}"),
            stages=spec.get("stages"),
        )
    return ParentsEntry(parents=_as_name_list(spec, f"`{name}`: parents of {var!r}"))


def _set_values(entries, values):
    if values is None:
        return
    if isinstance(values, pd.DataFrame):
        from pystagedtrees.base._data import column_levels

        # the data may hold more columns than the graph's variables
        shared = [c for c in values.columns if c in entries]
        if entries and not shared:
            raise ValueError(f"`values` is a DataFrame without any of the graph's variables "
                             f"({list(entries)}); its columns are {list(values.columns)}.")
        values = {c: column_levels(values[c], c) for c in shared}
    if not isinstance(values, Mapping):
        raise TypeError(
            f"`values` must be a dict of levels or a DataFrame; got {type(values).__name__}."
        )
    unknown = [v for v in values if v not in entries]
    if unknown:
        raise ValueError(
            f"`values` gives levels of {unknown}, which are not variables of the graph "
            f"({list(entries)})."
        )
    for v, lev in values.items():
        entries[v].values = check_levels(lev, v, "values")


def _check_graph(entries):
    for v, e in entries.items():
        if len(set(e.parents)) != len(e.parents):
            raise ValueError(f"variable {v!r} lists a parent twice: {e.parents}.")
        for p in e.parents:
            if p == v:
                raise ValueError(f"variable {v!r} is its own parent: the graph has a cycle.")
            if p not in entries:
                raise ValueError(
                    f"parent {p!r} of {v!r} is not a variable of the graph "
                    f"({list(entries)})."
                )


def _ordered(entries):
    return ParentsList({v: entries[v] for v in topo_sort_parentslist(entries)})


def parentslist(parents: Mapping[str, Sequence[str] | Mapping[str, Any]],
                values: Mapping[str, Sequence[str]] | pd.DataFrame | None = None) -> ParentsList:
    """A DAG from the parents of each variable (R: ``parentslist``).

    Parameters
    ----------
    parents : dict
        ``variable -> list of parents``; an entry may also be a dict with
        keys ``parents`` and ``values`` (R's form).
    values : dict of str to list, or pandas.DataFrame, optional
        Levels of the variables (read from the columns of a DataFrame).

    Returns
    -------
    ParentsList
        Variables in topological order (R's rule: repeatedly the first
        variable, in the given order, whose parents are all placed).

    Raises
    ------
    ValueError
        A parent that is not a variable, or a directed cycle.

    Examples
    --------
    >>> from pystagedtrees import parentslist
    >>> pl = parentslist({"C": ["A", "B"], "A": [], "B": ["A"]}, values={"A": ["0", "1"]})
    >>> pl.variables, pl["A"].values
    (['A', 'B', 'C'], ['0', '1'])
    """
    if not isinstance(parents, Mapping):
        raise TypeError(
            f"`parents` must be a dict of variable -> parents; got {type(parents).__name__}."
        )
    entries = {str(v): _entry(str(v), spec, "parents") for v, spec in parents.items()}
    if not entries:
        raise ValueError("`parents` is empty: a graph needs at least one variable.")
    _check_graph(entries)
    _set_values(entries, values)
    return _ordered(entries)


_TOKEN = re.compile(r"\s*\[([^\[\]|]+)(?:\|([^\[\]]*))?\]\s*")
_OPENINGS = "({<"
_CLOSINGS = ")}>"


def _from_string(text):
    """Parse ``[A][B|A][C|(A):{B}]`` (bnlearn's model string, R's decorations).

    Whitespace between families and around names is ignored; whitespace
    inside a name is part of it (``[Age group]``).
    """
    tokens = list(_TOKEN.finditer(text))
    if not tokens or "".join(t.group(0) for t in tokens) != text:
        raise ValueError(
            f"`x` is not a model string like '[A][B|A][C|A:B]'; got {text!r}."
        )
    entries = {}
    for token in tokens:
        var, rest = token.group(1).strip(), token.group(2)
        if not var:
            raise ValueError(f"empty variable name in {token.group(0).strip()!r}.")
        entry = ParentsEntry(parents=[])
        for raw in (rest.split(":") if rest and rest.strip() else []):
            raw = raw.strip()
            opening = raw[: len(raw) - len(raw.lstrip(_OPENINGS))]
            name = raw.lstrip(_OPENINGS).rstrip(_CLOSINGS).strip()
            if not name:
                raise ValueError(f"empty parent name in {token.group(0).strip()!r}.")
            entry.parents.append(name)
            if "(" in opening:
                entry.partial.append(name)
            if "{" in opening:
                entry.context.append(name)
            if "<" in opening:
                entry.local.append(name)
        if var in entries:
            raise ValueError(f"variable {var!r} appears twice in the model string.")
        entries[var] = entry
    return entries


def _from_networkx(graph):
    entries = {}
    cpds = {}
    if hasattr(graph, "get_cpds"):  # pgmpy models: levels live in the CPDs
        for cpd in graph.get_cpds() or []:
            cpds[str(cpd.variable)] = [str(s) for s in cpd.state_names[cpd.variable]]
    for node, attrs in graph.nodes(data=True):
        levels = attrs.get("levels", attrs.get("values", cpds.get(str(node))))
        entries[str(node)] = ParentsEntry(
            parents=[str(p) for p in graph.predecessors(node)],
            values=None if levels is None else [str(x) for x in levels],
        )
    return entries


def _distinct_along(arr, axis):
    """Number of distinct values along ``axis`` for every other index."""
    ordered = np.sort(arr, axis=axis)
    return 1 + (np.diff(ordered, axis=axis) != 0).sum(axis=axis)


def _minimal_parents(model, i):
    """R's reduction of variable ``i``'s stages to its minimal parent set.

    The stage ids are laid out as an array with one axis per earlier
    variable (a compact tree only has its parents' axes: the others cannot
    matter).  From the nearest variable back to the root, an axis along
    which no stage ever changes is dropped; any other axis is a parent, and
    how the stages change along it tells the kind of independence.
    """
    vector = model.stage_vector(i)
    entry = ParentsEntry(parents=[], values=model.tree[model.variables[i]])
    single = vector.ids_in_use()
    if len(single) == 1:  # no axis can matter: nothing to lay out
        entry.stages = [model.stage_labels(i).as_array()[single[0]]]
        return entry
    if isinstance(vector, ParentStageVector):
        axes_vars = [i - int(lag) for lag in vector.lags]
        arr = vector.table.reshape(tuple(int(r) for r in vector.radices))
    else:
        axes_vars = list(range(i))
        arr = vector.dense(f"stage vector of {model.variables[i]!r}").reshape(
            tuple(int(k) for k in model.n_levels[:i])
        )
    for axis in reversed(range(len(axes_vars))):
        name = model.variables[axes_vars[axis]]
        k = arr.shape[axis]
        counts = _distinct_along(arr, axis)
        if np.all(counts == 1):
            arr = arr.take(0, axis=axis)
            continue
        if np.all(counts == k):
            per_level = sum(len(np.unique(arr.take(a, axis=axis))) for a in range(k))
            if per_level != len(np.unique(arr)):
                entry.local.append(name)
        else:
            if np.any(counts == 1):
                entry.context.append(name)
            if np.any((counts > 1) & (counts < k)):
                entry.partial.append(name)
        entry.parents.append(name)
    entry.stages = model.stage_labels(i).as_array()[arr.ravel()].tolist()
    return entry


def _stage_array_size(model, i):
    """Entries of the array of stage ids :func:`_minimal_parents` lays out for
    variable ``i``: none for a variable of one stage."""
    vector = model.stage_vector(i)
    if len(vector.ids_in_use()) == 1:
        return 0
    return len(vector.table) if isinstance(vector, ParentStageVector) else vector.n_situations


def _check_stage_arrays(model):
    """Refuse, before reducing any variable, a tree whose stage ids some
    variable cannot lay out: past what the library expands, or (about 16
    bytes an entry: the ids, a sorted copy, their differences) the memory."""
    sizes = [(var, _stage_array_size(model, i)) for i, var in enumerate(model.variables)]
    for var, size in sizes:
        if size > EXPAND_MAX:
            raise dense_too_large(size, f"array of stage ids of {var!r}", EXPAND_MAX, advice=(
                "as_parentslist compares the stages of every situation; a tree this "
                "large converts only when its variables have a stage each (as indep) or "
                "come from a Bayesian network (as_sevt)"))
    check_steps_fit(((f"as_parentslist lays out the {size:,} stage ids of {var!r}", 16 * size)
                     for var, size in sizes), "convert a tree of fewer situations")


def _from_sevt(model, silent):
    _check_stage_arrays(model)
    variables = model.variables
    entries = {variables[0]: ParentsEntry(parents=[], values=model.tree[variables[0]])}
    asymmetric = False
    for i in range(1, len(variables)):
        entry = _minimal_parents(model, i)
        asymmetric |= bool(entry.context or entry.partial or entry.local)
        entries[variables[i]] = entry
    if asymmetric and not silent:
        warnings.warn(
            "context-specific and/or local partial independences detected: the "
            "staged tree is not equivalent to a BN, a minimal super-model is "
            "returned (silence this with silent=True).",
            stacklevel=3,
        )
    return ParentsList(entries)


def as_parentslist(x: Any, values: Mapping[str, Sequence[str]] | pd.DataFrame | None = None,
                   silent: bool = False) -> ParentsList:
    """The DAG of ``x`` as a :class:`ParentsList` (R: ``as_parentslist``).

    Parameters
    ----------
    x : Sevt, ParentsList, dict, str, networkx.DiGraph or model
        - a staged tree: the minimal DAG whose model contains the tree's.
          Parents are listed nearest first, and ``context``, ``partial``
          and ``local`` name the parents through which the tree has
          asymmetric independences (R's algorithm);
        - a dict ``variable -> parents`` (see :func:`parentslist`);
        - a model string ``"[A][B|A][C|A:B]"`` (R's decorations ``( )``,
          ``{ }``, ``< >`` are read back);
        - a networkx ``DiGraph`` (levels from the node attribute
          ``levels`` or ``values``), including a pgmpy Bayesian network
          (levels from its CPDs);
        - any object with an ``as_parentslist()`` method or a ``families``
          mapping ``variable -> (variable, parents...)`` (bnclassify-like
          models, whose ``levels`` are used when present; an AODE
          ensemble, which has no single DAG, is refused).
    values : dict or pandas.DataFrame, optional
        Levels overriding those found in ``x``.
    silent : bool, default False
        For a staged tree, do not warn about asymmetric independences.

    Returns
    -------
    ParentsList
        In topological order (a tree's own order for a staged tree).

    Examples
    --------
    >>> from pystagedtrees import as_parentslist
    >>> import pystagedtrees as st
    >>> pl = as_parentslist(st.full(st.datasets.titanic_table(), join_unobserved=False))
    >>> pl.to_string(only_parents=True)
    '[Class][Sex|Class][Age|Sex:Class][Survived|Age:Sex:Class]'
    >>> as_parentslist("[A][B|A][C|{A}:B]")["C"].context
    ['A']
    """
    silent = check_flag(silent, "silent")
    if isinstance(x, Sevt):
        pl = _from_sevt(x, silent)
        if values is not None:
            entries = {v: _entry(v, e, "x") for v, e in pl.items()}
            _set_values(entries, values)
            pl = ParentsList(entries)
        return pl
    if isinstance(x, ParentsList):
        entries = {v: _entry(v, e, "x") for v, e in x.items()}
    elif isinstance(x, str):
        entries = _from_string(x)
    elif _is_networkx_graph(x):
        entries = _from_networkx(x)
    elif isinstance(x, Mapping):
        entries = {str(v): _entry(str(v), spec, "x") for v, spec in x.items()}
    elif callable(getattr(x, "as_parentslist", None)):
        return as_parentslist(x.as_parentslist(), values=values, silent=silent)
    elif getattr(x, "is_aode", False):  # its families are only the naive Bayes skeleton
        raise TypeError(
            "`x` is an AODE ensemble, an average of one-dependence networks with no single "
            "DAG (R has no as_parentslist or as_sevt for it); convert one of `x.models`."
        )
    elif isinstance(getattr(x, "families", None), Mapping):
        entries = {str(v): ParentsEntry(parents=_family_parents(fam)) for v, fam in x.families.items()}
        levels = getattr(x, "levels", None)
        _set_values(entries, levels if isinstance(levels, Mapping) else None)
    else:
        raise TypeError(
            "`x` must be a staged tree, a ParentsList, a dict of parents, a model "
            "string, a networkx DiGraph or a model with as_parentslist(); got "
            f"{type(x).__name__}."
        )
    if not entries:
        raise ValueError("`x` has no variables.")
    _check_graph(entries)
    _set_values(entries, values)
    return _ordered(entries)


def _family_parents(family):
    """Parents from a bnclassify family ``(variable, parents...)`` (or a lone name)."""
    return [] if isinstance(family, str) else [str(p) for p in list(family)[1:]]


def _is_networkx_graph(x):
    try:
        import networkx as nx
    except ImportError:  # pragma: no cover - networkx is a dependency
        return False
    if isinstance(x, nx.Graph) and not x.is_directed():
        raise TypeError("`x` must be a directed graph; got an undirected networkx graph.")
    return isinstance(x, nx.DiGraph)


# -- orders ----------------------------------------------------------------------

def _parent_sets(x):
    """``variable -> parents within the graph`` from a ParentsList or a dict."""
    if isinstance(x, ParentsList):
        entries = dict(x.items())
    elif isinstance(x, Mapping):
        entries = {str(v): e if isinstance(e, ParentsEntry) else _entry(str(v), e, "x") for v, e in x.items()}
    else:
        raise TypeError(
            f"`x` must be a ParentsList or a dict of parents; got {type(x).__name__}."
        )
    # R's find_roots ignores parents that are not in the list
    return {v: [p for p in e.parents if p in entries] for v, e in entries.items()}


def _cycle_error(remaining):
    return ValueError(
        f"the graph has a directed cycle among {sorted(remaining)}: it is not a DAG."
    )


def _all_orders(parents, remaining):
    if len(remaining) == 1:
        yield list(remaining)
        return
    roots = [v for v in remaining if not any(p in remaining for p in parents[v])]
    if not roots:
        raise _cycle_error(remaining)
    for v in roots:
        rest = [w for w in remaining if w != v]
        for tail in _all_orders(parents, rest):
            yield [v] + tail


def topo_sort_parentslist(x: ParentsList | Mapping[str, Sequence[str]],
                          all: bool = False) -> list[str] | list[list[str]]:
    """A topological order of a DAG (R: ``topo_sort_parentslist``).

    Repeatedly takes the first variable, in list order, whose parents are
    all placed (parents outside the list are ignored, as in R).

    Parameters
    ----------
    x : ParentsList or dict of parents
    all : bool, default False
        Return every topological order (R: ``all_topo_sort``), in R's order.

    Returns
    -------
    list of str, or list of list of str with ``all``

    Raises
    ------
    ValueError
        If the graph has a directed cycle (R silently returns a partial order).

    Examples
    --------
    >>> from pystagedtrees import topo_sort_parentslist
    >>> topo_sort_parentslist({"C": ["A", "B"], "A": [], "B": []})
    ['A', 'B', 'C']
    >>> topo_sort_parentslist({"A": [], "B": [], "C": ["A"]}, all=True)
    [['A', 'B', 'C'], ['A', 'C', 'B'], ['B', 'A', 'C']]
    """
    all = check_flag(all, "all")
    parents = _parent_sets(x)
    names = list(parents)
    if all:
        return list(_all_orders(parents, names)) if names else []
    position = {v: j for j, v in enumerate(names)}
    children = {v: [] for v in names}
    missing = {}
    for v in names:
        missing[v] = len(parents[v])
        for p in parents[v]:
            children[p].append(v)
    ready = [position[v] for v in names if missing[v] == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        v = names[heapq.heappop(ready)]
        order.append(v)
        for c in children[v]:
            missing[c] -= 1
            if missing[c] == 0:
                heapq.heappush(ready, position[c])
    if len(order) < len(names):
        raise _cycle_error(set(names) - set(order))
    return order


def all_topo_sort(x: ParentsList | Mapping[str, Sequence[str]]) -> list[list[str]]:
    """Every topological order of a DAG, in R's order (R: ``all_topo_sort``).

    The same as ``topo_sort_parentslist(x, all=True)``: R's rows become
    lists.

    Examples
    --------
    >>> from pystagedtrees import all_topo_sort
    >>> all_topo_sort({"A": [], "B": [], "C": ["A"]})
    [['A', 'B', 'C'], ['A', 'C', 'B'], ['B', 'A', 'C']]
    """
    return topo_sort_parentslist(x, all=True)


# -- other representations ---------------------------------------------------------

def as_adj_matrix(x: Any, **kwargs: Any) -> pd.DataFrame:
    """Adjacency matrix of a DAG or of a chain event graph (R: ``as_adj_matrix``).

    Parameters
    ----------
    x : ParentsList (or anything :func:`as_parentslist` accepts) or Ceg
    **kwargs
        For a :class:`~pystagedtrees.Ceg`: ``ignore``, the stages whose
        positions are dropped (default the unobserved ones), and ``endnode``
        (default True), whether the edges of the last variable into ``END``
        count.

    Returns
    -------
    pandas.DataFrame
        ``[parent, child]`` is 1 for an arc (for a CEG: the number of edges
        between two positions).

    Examples
    --------
    >>> from pystagedtrees import as_adj_matrix
    >>> as_adj_matrix("[A][B|A]").to_numpy().tolist()
    [[0, 1], [0, 0]]
    """
    from pystagedtrees.graphs._ceg import Ceg, ceg_adj_matrix

    if isinstance(x, Ceg):
        return ceg_adj_matrix(x, **kwargs)
    if kwargs:
        raise TypeError(f"unexpected argument(s) {sorted(kwargs)} for a DAG.")
    pl = as_parentslist(x, silent=True)
    names = pl.variables
    adj = pd.DataFrame(0, index=pd.Index(names), columns=pd.Index(names))
    for p, v in pl.edges():
        adj.loc[p, v] = 1
    return adj


def as_bn(x: Any) -> nx.DiGraph:
    """The DAG of ``x`` as a networkx ``DiGraph`` (R: ``as_bn``, which needs bnlearn).

    Parameters
    ----------
    x : Sevt, ParentsList or anything :func:`as_parentslist` accepts
        A staged tree gives its minimal super-model DAG (silently).

    Returns
    -------
    networkx.DiGraph
        Nodes in topological order, each with attribute ``levels`` (None
        when unknown).

    Examples
    --------
    >>> from pystagedtrees import as_bn
    >>> g = as_bn("[A][B|A]")
    >>> list(g.edges()), g.nodes["A"]["levels"]
    ([('A', 'B')], None)
    """
    import networkx as nx

    pl = as_parentslist(x, silent=True)
    graph = nx.DiGraph()
    for v, e in pl.items():
        graph.add_node(v, levels=None if e.values is None else list(e.values))
    graph.add_edges_from(pl.edges())
    return graph


def _edge_label(e, p):
    context, partial, local = p in e.context, p in e.partial, p in e.local
    if context and partial:
        return "context-partial"
    if context:
        return "context"
    if partial:
        return "partial"
    return "local" if local else "total"


def as_networkx(x: Any, ignore: Sequence[str] | None = None) -> nx.DiGraph | nx.MultiDiGraph:
    """A networkx graph of a DAG, a staged tree or a CEG (R: ``as_igraph``).

    Parameters
    ----------
    x : ParentsList, Sevt or Ceg (or anything :func:`as_parentslist` accepts)
    ignore : list of str, optional
        Stages left out (staged trees and CEGs; default the unobserved ones).

    Returns
    -------
    networkx.DiGraph or networkx.MultiDiGraph
        - a DAG: edges carry ``context``, ``partial``, ``local`` and
          ``label`` (``"total"``, ``"context"``, ...);
        - a staged tree or CEG: vertices and edges of
          :func:`pystagedtrees.get_vertices` and
          :func:`pystagedtrees.get_edges`, with their columns as
          attributes (a CEG is a ``MultiDiGraph``: several levels may lead
          to the same position).

    Examples
    --------
    >>> from pystagedtrees import as_networkx
    >>> g = as_networkx("[A][B|{A}]")
    >>> g.edges["A", "B"]["label"]
    'context'
    """
    import networkx as nx

    if isinstance(x, Sevt):
        from pystagedtrees.graphs._ceg import Ceg, get_edges, get_vertices

        # a CEG has parallel edges (several levels into one position)
        graph = nx.MultiDiGraph() if isinstance(x, Ceg) else nx.DiGraph()
        vertices = get_vertices(x, ignore=ignore)
        repeated = vertices["name"][vertices["name"].duplicated()]
        if len(repeated):
            # R's names join the levels of a path with "-": they collide when levels hold "-"
            raise ValueError(
                f"`x` has levels containing '-', so two vertices share the name "
                f"{repeated.iloc[0]!r} and the graph would merge them; rename those levels."
            )
        for row in vertices.to_dict("records"):
            graph.add_node(row.pop("name"), **row)
        for row in get_edges(x, ignore=ignore).to_dict("records"):
            graph.add_edge(row.pop("from"), row.pop("to"), **row)
        return graph
    if ignore is not None:
        raise TypeError("`ignore` applies to staged trees and CEGs only.")
    pl = as_parentslist(x)
    graph = nx.DiGraph()
    graph.add_nodes_from(pl.variables)
    for v, e in pl.items():
        for p in e.parents:
            graph.add_edge(
                p, v, context=p in e.context, partial=p in e.partial,
                local=p in e.local, label=_edge_label(e, p),
            )
    return graph


def random_parentslist(n: int, k: int = 2, maxp: int | None = None, seed: Seed = None,
                       rng: Rng = None) -> ParentsList:
    """A random DAG over ``X1..Xn`` with random levels (R: ``random_parentslist``).

    Each variable gets levels ``"1".."m"`` with ``m`` uniform in ``2..k``;
    variable ``Xi`` (``i >= 2``) draws a number of parents uniform in
    ``1..min(maxp, i-1)`` and then that many of ``X1..X(i-1)`` without
    replacement (listed in drawing order).

    Parameters
    ----------
    n : int
        Number of variables (>= 1).
    k : int, default 2
        Maximum number of levels (>= 2).
    maxp : int, optional
        Maximum number of parents (default ``n``; 0 gives no arcs).
    seed : int or numpy.random.Generator, optional
    rng : {"numpy", "R", "R-rounding"} or a random source in use, optional
        The generator (see :mod:`pystagedtrees.rng`): ``"R"`` replays R
        after ``set.seed(seed)`` draw for draw; an
        :class:`~pystagedtrees.rng.RRandom` continues its stream.

    Returns
    -------
    ParentsList

    Examples
    --------
    >>> from pystagedtrees import random_parentslist
    >>> pl = random_parentslist(4, k=3, maxp=2, seed=1)
    >>> pl.variables
    ['X1', 'X2', 'X3', 'X4']
    >>> all(1 <= len(pl[v].parents) <= 2 for v in ["X2", "X3", "X4"])
    True
    """
    n = check_int(n, "n", minimum=1)
    k = check_int(k, "k", minimum=2)
    maxp = n if maxp is None else check_int(maxp, "maxp", minimum=0)
    # each variable gets up to k named levels and up to n parents
    check_fits_in_memory(n * (64 * (k + n) + 512), f"`n` = {n} variables of up to `k` = {k} levels",
                         "ask for fewer variables or levels")
    source = resolve_source(seed, rng)
    n_levels = [1 + 1 + source.unif_index(k - 1) for _ in range(n)]
    entries = {}
    for i in range(n):
        parents = []
        if i > 0:
            bound = min(maxp, i)
            if bound >= 1:
                size = 1 + source.unif_index(bound)
            else:
                source.unif_index(1)  # R's sample(0, 1) still draws, and gives 0 parents
                size = 0
            parents = [f"X{j + 1}" for j in source.sample_int(i, size)]
        entries[f"X{i + 1}"] = ParentsEntry(
            parents=parents, values=[str(a + 1) for a in range(n_levels[i])]
        )
    return ParentsList(entries)
