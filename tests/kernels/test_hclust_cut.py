"""The hclust kernel's cut (cut_groups, called by agglomerate_and_cut) against cutree
replayed on R's merge matrix (cutree itself is checked against live R), and its cut
of rows (cut_rows: distances, agglomeration and cut in one call) against R's dist
(r_dist), scaled, then agglomerate and cutree."""
import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as hst

from pystagedtrees.kernels._hclust import cut_rows
from pystagedtrees.kernels._rdist import R_DIST_CODES, r_dist
from pystagedtrees.learners._hclust import (
    METHOD_CODES,
    METHODS,
    agglomerate,
    agglomerate_and_cut,
    cutree,
)


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


@settings(max_examples=150, deadline=None)
@given(hst.integers(2, 25), hst.integers(1, 3), hst.sampled_from(METHODS),
       hst.sampled_from(sorted(R_DIST_CODES)), hst.sampled_from([1.0, 2.0, float(np.sqrt(2.0))]),
       hst.integers(0, 2**32 - 1))
def test_cut_rows_is_cutree_of_hclust_of_dist(n, p, method, distance, divisor, seed):
    # coordinates from a few values: tied distances and, sometimes, equal rows
    rng = np.random.default_rng(seed)
    x = np.ascontiguousarray(rng.integers(0, 3, size=(n, p)) / 4.0)
    diss = np.empty((n, n))
    r_dist(x, distance, diss)
    diss = diss / divisor
    assume(not np.isnan(diss).any())  # Canberra between two rows of zeros: R's NaN
    zero_pair = bool((diss[~np.eye(n, dtype=bool)] == 0).any())
    merge = None if zero_pair else agglomerate(diss.copy(), method).merge
    for k in range(1, n + 1):
        groups = np.full(n, -7, dtype=np.int64)
        cut = cut_rows(x, R_DIST_CODES[distance], divisor, METHOD_CODES[method], k, groups)
        assert cut == (not zero_pair)
        if cut:
            np.testing.assert_array_equal(groups, cutree(merge, k), err_msg=f"k={k}")
        else:
            assert (groups == -7).all()
