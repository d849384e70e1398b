"""Staged tree classifiers: context-specific refinements of Bayesian network
classifiers and the naive staged tree.

- **Refinements** (Leonelli & Varando 2024): learn a Bayesian network
  classifier with :mod:`pystagedtrees.bnc`, turn its DAG into the
  equivalent staged tree with the class first (:func:`as_sevt`), fit it with
  additive smoothing and refine it with :func:`stages_bhc` under BIC.  The
  refinement only joins stages, so its minimal DAG stays within the
  classifier's and its BIC is never worse: :func:`sevt_tan_cl`,
  :func:`sevt_tan_hc`, :func:`sevt_kdb`, or :func:`sevt_refine` for any
  classifier structure.
- **The naive staged tree** (Carli, Leonelli & Varando 2023): the full tree
  with the class first and the features in a heuristic order
  (:func:`ordering_mi`, :func:`ordering_cmi`, :func:`ordering_ch`), where
  the situations of every variable are clustered into as many stages as
  the class has levels: :func:`sevt_naive`.
- :class:`StagedTreeClassifier`, a scikit-learn estimator over all of them.
"""
from pystagedtrees.classifiers._classifiers import (
    StagedTreeClassifier, ordering_ch, ordering_cmi, ordering_mi, sevt_kdb, sevt_naive,
    sevt_refine, sevt_tan_cl, sevt_tan_hc,
)

__all__ = [
    "ordering_mi", "ordering_cmi", "ordering_ch", "sevt_refine", "sevt_tan_cl", "sevt_tan_hc",
    "sevt_kdb", "sevt_naive", "StagedTreeClassifier",
]
