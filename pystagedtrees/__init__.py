"""pystagedtrees: staged event trees and Bayesian network classifiers.

The functions mirror the R package stagedtrees: same names, same defaults,
same results on the same data.  ``lambda`` and ``class`` are spelled
``lambda_`` and ``class_``.  Every function whose first argument is a model
is also a method of :class:`Sevt`.
"""
__version__ = "0.1.0"  # the package's one version (pyproject.toml reads it)

from pystagedtrees.base import LogLik
from pystagedtrees.model import Sevt
from pystagedtrees.fitting import make_ctables
from pystagedtrees.fitting import AIC, BIC, logLik, sevt_df, sevt_nvar, sevt_varnames
from pystagedtrees.fitting import join_unobserved, sevt_fit
from pystagedtrees.fitting import copy_sevt, full, indep, sevt, sevt_add
from pystagedtrees.inference import path_probability, predict, prob
from pystagedtrees.learners import (
    stages_bhc,
    stages_bhcr,
    stages_bj,
    stages_csbhc,
    stages_fbhc,
    stages_hc,
    stages_simplebhc,
)
from pystagedtrees.learners import stages_hclust, stages_kmeans
from pystagedtrees.learners import search_best, search_greedy
from pystagedtrees.learners import sevt_fit_em, stages_em
from pystagedtrees.stage_ops import (
    SevtSummary,
    get_path,
    get_stage,
    join_stages,
    rename_stage,
    set_stage_prob,
    set_stages,
    stages,
    stndnaming,
    summary,
)
from pystagedtrees.graphs import (
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
from pystagedtrees.graphs import as_sevt
from pystagedtrees.random import (
    generate_linear_dataset,
    generate_random_dataset,
    generate_xor_dataset,
    random_sevt,
    randomize_sevt,
    sample_from,
)
from pystagedtrees.compare import (
    ci_matrices,
    cid,
    compare_stages,
    confint,
    depsubtree,
    diff_stages,
    hamming_stages,
    inclusions_stages,
    lr_test,
    potential_outcomes,
    subtree,
)
from pystagedtrees.graphs import Ceg, ceg, get_edges, get_vertices, join_positions, sevt_simplify
from pystagedtrees.plotting import barplot, make_stages_col, plot, save_figure, text, to_dot, write_tikz
from pystagedtrees.classifiers import (
    StagedTreeClassifier,
    ordering_ch,
    ordering_cmi,
    ordering_mi,
    sevt_kdb,
    sevt_naive,
    sevt_refine,
    sevt_tan_cl,
    sevt_tan_hc,
)
from pystagedtrees import bnc, datasets, multilabel

__all__ = [
    "Sevt",
    "LogLik",
    "sevt",
    "full",
    "indep",
    "sevt_add",
    "copy_sevt",
    "search_best",
    "search_greedy",
    "sevt_fit_em",
    "stages_em",
    "sevt_fit",
    "join_unobserved",
    "make_ctables",
    "logLik",
    "AIC",
    "BIC",
    "sevt_df",
    "sevt_nvar",
    "sevt_varnames",
    "set_stages",
    "set_stage_prob",
    "stages",
    "get_stage",
    "get_path",
    "join_stages",
    "rename_stage",
    "stndnaming",
    "summary",
    "SevtSummary",
    "path_probability",
    "prob",
    "predict",
    "stages_bhc",
    "stages_fbhc",
    "stages_bj",
    "stages_hc",
    "stages_hclust",
    "stages_bhcr",
    "stages_csbhc",
    "stages_simplebhc",
    "stages_kmeans",
    "ParentsList",
    "parentslist",
    "as_parentslist",
    "topo_sort_parentslist",
    "all_topo_sort",
    "as_adj_matrix",
    "as_bn",
    "as_networkx",
    "random_parentslist",
    "as_sevt",
    "random_sevt",
    "randomize_sevt",
    "sample_from",
    "generate_random_dataset",
    "generate_xor_dataset",
    "generate_linear_dataset",
    "compare_stages",
    "hamming_stages",
    "diff_stages",
    "inclusions_stages",
    "subtree",
    "depsubtree",
    "confint",
    "lr_test",
    "ci_matrices",
    "cid",
    "potential_outcomes",
    "Ceg",
    "ceg",
    "sevt_simplify",
    "join_positions",
    "get_edges",
    "get_vertices",
    "plot",
    "barplot",
    "text",
    "make_stages_col",
    "to_dot",
    "write_tikz",
    "save_figure",
    "StagedTreeClassifier",
    "sevt_refine",
    "sevt_tan_cl",
    "sevt_tan_hc",
    "sevt_kdb",
    "sevt_naive",
    "ordering_mi",
    "ordering_cmi",
    "ordering_ch",
    "datasets",
    "bnc",
    "multilabel",
]
