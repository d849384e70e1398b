"""Comparing staged trees and testing hypotheses on them (R's
``compare_stages``, ``hamming_stages``, ``lr_test``, ``confint``, ``cid``, ...)."""
from pystagedtrees.compare._compare import (
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

__all__ = [
    "ci_matrices", "cid", "compare_stages", "confint", "depsubtree", "diff_stages",
    "hamming_stages", "inclusions_stages", "lr_test", "potential_outcomes", "subtree",
]
