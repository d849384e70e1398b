"""Staged tree classifiers: context-specific refinements of Bayesian network
classifiers and the naive staged tree.

- **Refinements** (Leonelli & Varando 2024): learn a Bayesian network
  classifier with :mod:`pystagedtrees.bnc`, turn its DAG into the
  equivalent staged tree with the class first (:func:`~pystagedtrees.as_sevt`), fit it with
  additive smoothing and refine it with :func:`~pystagedtrees.stages_bhc` under BIC.  The
  refinement only joins stages, so its minimal DAG stays within the
  classifier's and its BIC is never worse: :func:`~pystagedtrees.sevt_tan_cl`,
  :func:`~pystagedtrees.sevt_tan_hc`, :func:`~pystagedtrees.sevt_kdb`, or :func:`~pystagedtrees.sevt_refine` for any
  classifier structure.
- **The naive staged tree** (Carli, Leonelli & Varando 2023): the full tree
  with the class first and the features in a heuristic order
  (:func:`~pystagedtrees.ordering_mi`, :func:`~pystagedtrees.ordering_cmi`, :func:`~pystagedtrees.ordering_ch`), where
  the situations of every variable are clustered into as many stages as
  the class has levels: :func:`~pystagedtrees.sevt_naive`.
- :class:`~pystagedtrees.StagedTreeClassifier`, a scikit-learn estimator over all of them.
"""
from pystagedtrees.classifiers._classifiers import (
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

__all__ = [
    "ordering_mi", "ordering_cmi", "ordering_ch", "sevt_refine", "sevt_tan_cl", "sevt_tan_hc",
    "sevt_kdb", "sevt_naive", "StagedTreeClassifier",
]
