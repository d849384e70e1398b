"""Multi-label classifier chains ordered by a Bayesian network over the labels.

BNCC (Wang, Ye, Li & Kwong, Information Sciences 554, 2021): the labels'
dependence degrees (from conditional entropies) drive a Bayesian network
structure search over the labels, and a topological order of that network
is the order of a classifier chain.

Functions
---------
label_dependence
    The matrix of pairwise dependence degrees ``1 - H(l_j | l_k)``.
break_cycles
    Make a weighted directed graph acyclic by removing lightest cycle arcs.
label_network
    The label Bayesian network and the chain order it gives.

Classes
-------
BNClassifierChain
    scikit-learn classifier chain ordered by the label network (or by a
    random or given order).

Submodules
----------
metrics
    The multi-label scores of the comparison study in one call.
"""
from pystagedtrees.multilabel._chain import BNClassifierChain
from pystagedtrees.multilabel._dependence import label_dependence
from pystagedtrees.multilabel._network import break_cycles, label_network

__all__ = ["BNClassifierChain", "break_cycles", "label_dependence", "label_network"]
