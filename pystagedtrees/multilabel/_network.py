"""The Bayesian network over the labels that orders a BNCC chain.

Implements the structure search of Wang, Ye, Li & Kwong (2021): a
cycle-broken complete graph of dependence degrees gives an initial label
order, a greedy per-label parent search scores parent sets, and the merged
parent sets, with their cycles broken again, give the chain order.
"""
from __future__ import annotations

import numbers
from typing import Literal

import networkx as nx
import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy.special import xlogy

from pystagedtrees.base._validation import check_int
from pystagedtrees.multilabel._dependence import (
    _binary_label_matrix,
    _conditional_entropy_bits,
    label_dependence,
    label_names,
)

__all__ = ["break_cycles", "label_network"]


def _as_weighted_digraph(weights):
    """A fresh weighted DiGraph from a matrix, a square DataFrame or a DiGraph."""
    if isinstance(weights, nx.Graph):
        if not isinstance(weights, nx.DiGraph) or weights.is_multigraph():
            raise TypeError(
                "`weights` must be a networkx DiGraph (directed, no parallel "
                f"arcs); got {type(weights).__name__}."
            )
        for u, v, w in weights.edges(data="weight"):
            if not isinstance(w, numbers.Real) or not np.isfinite(w):
                raise ValueError(
                    f"`weights`: arc {u!r} -> {v!r} needs a finite numeric "
                    f"'weight' attribute; got {w!r}."
                )
        return weights.copy()
    if isinstance(weights, pd.DataFrame):
        if list(weights.index) != list(weights.columns):
            raise ValueError(
                "`weights` as a DataFrame must have the same labels, in the same "
                "order, on its index and its columns."
            )
        nodes = label_names(weights, "weights")  # repeated labels would merge nodes
        matrix = weights.to_numpy()
    else:
        matrix = np.asarray(weights)
        nodes = list(range(matrix.shape[0])) if matrix.ndim == 2 else []
    try:
        matrix = matrix.astype(float)
    except (TypeError, ValueError):
        raise TypeError("`weights` must hold numbers (NaN for no arc).") from None
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
        raise ValueError(
            f"`weights` must be a square matrix; got shape {matrix.shape}."
        )
    if np.isinf(matrix).any():
        raise ValueError("`weights` must be finite; use NaN to mean 'no arc'.")
    graph = nx.DiGraph()
    graph.add_nodes_from(nodes)
    for i, j in zip(*np.nonzero(~np.isnan(matrix))):
        if i != j:
            graph.add_edge(nodes[i], nodes[j], weight=float(matrix[i, j]))
    return graph


def break_cycles(weights: ArrayLike | pd.DataFrame | nx.DiGraph) -> nx.DiGraph:
    """Remove the lowest-weight arc of a cycle until the graph is acyclic.

    Parameters
    ----------
    weights : array-like, pandas.DataFrame or networkx.DiGraph
        The weighted directed graph.  As a square matrix, entry ``[i, j]`` is
        the weight of the arc ``i -> j`` and NaN means no arc; the diagonal is
        ignored (as in :func:`label_dependence`).  A DataFrame must carry the
        same distinct node labels on its index and columns.  A DiGraph must
        have a finite ``"weight"`` on every arc (self-loops count as cycles).

    Returns
    -------
    networkx.DiGraph
        A new acyclic graph with the kept arcs and their weights.  Its
        ``graph["removed_arcs"]`` lists the removed arcs ``(u, v)`` in
        removal order.

    Notes
    -----
    The arcs are visited from the lightest to the heaviest, and an arc is
    removed when it still lies on a cycle (there is a path back from its head
    to its tail).  Each removed arc is therefore the lightest arc currently
    lying on any cycle, hence the lowest-weight arc of every cycle it breaks,
    and the result does not depend on the order in which cycles would be
    enumerated.  Arcs that lie on no cycle are never touched.

    Ties between equal weights are broken by node position (matrix index or
    the DiGraph's node order): the arc with the larger ``(tail, head)``
    positions is removed first.  So between two equally weighted opposite
    arcs the one from the earlier node to the later node survives, and with
    no information the node order is kept.

    Examples
    --------
    >>> from pystagedtrees.multilabel import break_cycles
    >>> import numpy as np
    >>> w = np.array([[np.nan, 0.9, np.nan],
    ...               [np.nan, np.nan, 0.5],
    ...               [0.2, np.nan, np.nan]])
    >>> dag = break_cycles(w)
    >>> sorted(dag.edges), dag.graph["removed_arcs"]
    ([(0, 1), (1, 2)], [(2, 0)])
    """
    graph = _as_weighted_digraph(weights)
    position = {node: i for i, node in enumerate(graph.nodes)}
    component = {}
    for k, nodes in enumerate(nx.strongly_connected_components(graph)):
        component.update(dict.fromkeys(nodes, k))
    on_cycles = [
        (w, -position[u], -position[v], u, v)
        for u, v, w in graph.edges(data="weight")
        if component[u] == component[v]
    ]
    on_cycles.sort(key=lambda arc: arc[:3])
    removed = []
    for *_, u, v in on_cycles:
        if nx.has_path(graph, v, u):
            graph.remove_edge(u, v)
            removed.append((u, v))
    graph.graph["removed_arcs"] = removed
    return graph


def _check_count(value, name, allowed=()):
    """A non-negative int, None, or one of the ``allowed`` special values."""
    if value is None or (isinstance(value, str) and value in allowed):
        return value
    if allowed and isinstance(value, str):
        choices = ", ".join([*map(repr, allowed), "None", "an integer >= 0"])
        raise ValueError(f"`{name}` must be one of {choices}; got {value!r}.")
    return check_int(value, name)


def _check_network_params(max_children, max_parents, penalty):
    """Validate the structure-search parameters shared with the chain."""
    _check_count(max_children, "max_children")
    _check_count(max_parents, "max_parents", allowed=("log",))
    if isinstance(penalty, str):
        if penalty != "bic":
            raise ValueError(f"`penalty` must be 'bic' or a number >= 0; got {penalty!r}.")
    elif isinstance(penalty, (bool, np.bool_)) or not isinstance(penalty, numbers.Real):
        raise TypeError(f"`penalty` must be 'bic' or a number >= 0; got {penalty!r}.")
    elif not (np.isfinite(penalty) and penalty >= 0):
        raise ValueError(f"`penalty` must be 'bic' or a finite number >= 0; got {penalty!r}.")


def _family_score(codes, child, parents, per_config_penalty):
    """Local score of ``child`` with parent set ``parents`` (column indices).

    The dependence degree on each parent configuration, weighted by that
    configuration's count, minus a penalty per configuration:
    ``N (1 - H(child | parents)) - penalty * 2 ** len(parents)``.
    """
    n_samples = codes.shape[0]
    entropy = _conditional_entropy_bits(codes[:, child], codes[:, parents])
    return n_samples * (1.0 - entropy) - per_config_penalty * 2.0 ** len(parents)


def _family_scores_with_each(codes, child, parents, per_config_penalty):
    """:func:`_family_score` of ``parents + [j]`` for every label ``j``, in one pass.

    Rows are grouped by (parent configuration, child value); one grouped sum
    gives every label's count of 1s per group, from which each candidate's
    joint table, and so its conditional entropy, follows.
    """
    n_samples, _ = codes.shape
    config = codes[:, parents] @ (1 << np.arange(len(parents), dtype=np.int64))
    key = 2 * config + codes[:, child]
    order = np.argsort(key, kind="stable")
    sorted_key = key[order]
    starts = np.flatnonzero(np.r_[True, sorted_key[1:] != sorted_key[:-1]])
    ones = np.add.reduceat(codes[order], starts, axis=0).astype(np.float64)  # groups x labels
    sizes = np.diff(np.r_[starts, n_samples]).astype(np.float64)
    cells = (ones, sizes[:, None] - ones)  # candidate = 1, candidate = 0
    # the new configurations: (parent configuration, candidate value), over both child values
    same_config = np.flatnonzero(np.r_[True, np.diff(sorted_key[starts] >> 1) != 0])
    xlogx_cells = sum(xlogy(c, c).sum(axis=0) for c in cells)
    xlogx_configs = sum(xlogy(s, s).sum(axis=0)
                        for s in (np.add.reduceat(c, same_config, axis=0) for c in cells))
    bits = np.maximum((xlogx_configs - xlogx_cells) / n_samples / np.log(2), 0.0)
    return n_samples * (1.0 - bits) - per_config_penalty * 2.0 ** (len(parents) + 1)


def _search_parents(codes, order, max_children, max_parents, per_config_penalty):
    """Greedy parent sets, one label at a time along ``order``.

    Returns the list of parent lists (by label index) and the local scores.
    """
    n_labels = codes.shape[1]
    children = np.zeros(n_labels, dtype=int)
    parent_sets = [[] for _ in range(n_labels)]
    scores = np.empty(n_labels)
    for child in order:
        parents = parent_sets[child]
        score = _family_score(codes, child, parents, per_config_penalty)
        while len(parents) < max_parents:
            allowed = np.ones(n_labels, dtype=bool)
            allowed[[child, *parents]] = False
            if max_children is not None:
                allowed &= children < max_children
            if not allowed.any():
                break
            trials = np.where(allowed, _family_scores_with_each(
                codes, child, parents, per_config_penalty), -np.inf)
            best = int(np.argmax(trials))  # lowest index wins ties
            if not trials[best] > score:
                break
            parents.append(best)
            children[best] += 1
            score = trials[best]
        scores[child] = score
    return parent_sets, scores


def _topological_order(dag):
    """Topological order, ties broken by node position (label index)."""
    position = {node: i for i, node in enumerate(dag.nodes)}
    return list(nx.lexicographical_topological_sort(dag, key=position.__getitem__))


def _learn_label_network(codes, names, max_children, max_parents, penalty):
    """:func:`label_network` on validated 0/1 codes."""
    n_samples, n_labels = codes.shape
    if max_parents == "log":
        max_parents = int(np.floor(np.log2(n_samples)))
    elif max_parents is None:
        max_parents = n_labels - 1
    per_config_penalty = np.log2(n_samples) / 2.0 if penalty == "bic" else float(penalty)
    degree = label_dependence(codes)

    # Step 2: the complete graph of dependence degrees, cycles broken.
    initial_order = _topological_order(break_cycles(degree))

    # Step 3: greedy parent sets along the initial order.
    parent_sets, scores = _search_parents(
        codes, initial_order, max_children, max_parents, per_config_penalty
    )

    # Step 4: merge, break cycles again, sort.
    merged = np.full((n_labels, n_labels), np.nan)
    for child, parents in enumerate(parent_sets):
        merged[parents, child] = degree[parents, child]
    dag = break_cycles(merged)
    order = _topological_order(dag)

    nodes = names if names is not None else list(range(n_labels))
    result = nx.relabel_nodes(dag, dict(enumerate(nodes)))
    for index, node in enumerate(nodes):
        result.nodes[node]["index"] = index
        result.nodes[node]["score"] = float(scores[index])
    result.graph.update(
        order=[nodes[i] for i in order],
        initial_order=[nodes[i] for i in initial_order],
        removed_arcs=[(nodes[u], nodes[v]) for u, v in dag.graph["removed_arcs"]],
    )
    return result


def label_network(Y: ArrayLike | pd.DataFrame, max_children: int | None = None,
                  max_parents: Literal["log"] | int | None = "log",
                  penalty: Literal["bic"] | float = "bic") -> nx.DiGraph:
    """Learn the label Bayesian network of BNCC and the chain order it gives.

    Parameters
    ----------
    Y : array-like or pandas.DataFrame of shape (n_samples, n_labels)
        Binary labels coded 0/1 (or booleans).
    max_children : int or None, default=None
        Most children a label may have.  A label that already has this many
        children is no longer a candidate parent.  None means no limit.
    max_parents : "log", int or None, default="log"
        Most parents a label may have.  ``"log"`` means
        ``floor(log2(n_samples))``, so that the ``2 ** k`` parent
        configurations never outnumber the rows; None means no limit.
    penalty : "bic" or float, default="bic"
        Cost of each parent configuration in the local score.  ``"bic"`` is
        ``log2(n_samples) / 2``.

    Returns
    -------
    networkx.DiGraph
        The label network: one node per label (named by the DataFrame columns,
        else by the label index), an arc ``k -> j`` for each parent ``k`` of
        ``j`` with ``weight`` the dependence degree ``I(l_k -> l_j)``.  Node
        attributes: ``index`` (column of ``Y``) and ``score`` (local score of
        the parent set found).  Graph attributes: ``order`` (the chain order,
        a topological order of the network), ``initial_order`` (the order of
        step 2) and ``removed_arcs`` (parent arcs removed to break cycles).

    Notes
    -----
    The search follows Wang, Ye, Li & Kwong (2021):

    1. dependence degrees ``I(l_k -> l_j) = 1 - H(l_j | l_k)`` in bits
       (:func:`label_dependence`);
    2. the complete directed graph weighted by them has its cycles broken by
       :func:`break_cycles`; its topological order is the initial order;
    3. along that order, each label starts with no parents and greedily adds
       the candidate (any other label) that most increases its local score,
       until no candidate increases it or it has ``max_parents`` parents;
    4. the parent sets are merged into one graph, weighted as in step 2, its
       cycles are broken again, and its topological order is the chain order.

    Choices where the paper leaves details open:

    * Local score of label ``j`` with parent set ``S``:
      ``N (1 - H(l_j | S)) - penalty * 2 ** |S|``, i.e. the dependence degree
      on each parent configuration weighted by the configuration's count,
      minus a penalty per configuration (empty configurations included).
      With entropies in bits, the default penalty ``log2(N) / 2`` makes this
      exactly the BIC of the family divided by ``ln 2`` (plus the constant
      ``N``), so adding a first parent ``k`` pays when
      ``N * MI(l_j; l_k) > log2(N) / 2`` bits.
    * A candidate is added only if it strictly increases the score; among
      equally good candidates the lowest label index wins.
    * ``max_children`` excludes a saturated candidate instead of ending the
      label's search.  Children are counted as the labels are visited, so
      the initial order matters only through this limit.
    * Topological sorts break ties by the lowest label index, and
      :func:`break_cycles` breaks weight ties by label index as documented
      there.

    Examples
    --------
    >>> from pystagedtrees.multilabel import label_network
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> a = rng.random(500) < 0.5
    >>> b = a & (rng.random(500) < 0.8)        # b follows a
    >>> c = rng.random(500) < 0.3              # c is independent
    >>> net = label_network(np.column_stack([c, b, a]).astype(int))
    >>> sorted(net.edges), net.graph["order"]
    ([(2, 1)], [0, 2, 1])
    """
    codes, names = _binary_label_matrix(Y)
    _check_network_params(max_children, max_parents, penalty)
    return _learn_label_network(codes, names, max_children, max_parents, penalty)
