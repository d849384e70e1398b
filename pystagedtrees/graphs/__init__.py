"""Graphs and conversions: parents lists and DAGs, staged trees from Bayesian
networks (``as_sevt``), and chain event graphs."""
from pystagedtrees.graphs._as_sevt import as_sevt
from pystagedtrees.graphs._ceg import (
    Ceg,
    ceg,
    get_edges,
    get_vertices,
    join_positions,
    sevt_simplify,
)
from pystagedtrees.graphs._parentslist import (
    ParentsList,
    all_topo_sort,
    as_adj_matrix,
    as_bn,
    as_networkx,
    as_parentslist,
    parentslist,
    random_parentslist,
    topo_sort_parentslist,
)

__all__ = [
    "Ceg", "ParentsList", "all_topo_sort", "as_adj_matrix", "as_bn", "as_networkx",
    "as_parentslist", "as_sevt", "ceg", "get_edges", "get_vertices", "join_positions",
    "parentslist", "random_parentslist", "sevt_simplify", "topo_sort_parentslist",
]
