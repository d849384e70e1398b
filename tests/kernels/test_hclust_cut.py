"""The hclust kernel's cut (cut_groups, called by agglomerate_and_cut) against cutree
replayed on R's merge matrix (cutree itself is checked against live R)."""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as hst

from pystagedtrees.learners._hclust import METHODS, agglomerate, agglomerate_and_cut, cutree


@settings(max_examples=80, deadline=None)
@given(hst.integers(2, 30), hst.integers(1, 4), hst.sampled_from(METHODS),
       hst.integers(0, 2**32 - 1))
def test_cut_groups_equals_cutree_of_the_merge_matrix(n, n_values, method, seed):
    # integer dissimilarities 1..n_values: with few values almost every step is a tie
    rng = np.random.default_rng(seed)
    upper = np.triu(rng.integers(1, n_values + 1, size=(n, n)).astype(float), 1)
    diss = upper + upper.T
    merge = agglomerate(diss.copy(), method).merge
    for k in range(1, n + 1):
        np.testing.assert_array_equal(agglomerate_and_cut(diss.copy(), method, k),
                                      cutree(merge, k), err_msg=f"k={k}")
