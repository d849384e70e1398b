"""hclust/cutree against live R (all methods, ties included) and independent properties."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

# The R runner lives with the RNG tests (tests/ is on sys.path under pytest).
from rscript import as_floats, as_ints, needs_r, r_literal, run_r
from scipy.cluster.hierarchy import linkage
from scipy.sparse.csgraph import minimum_spanning_tree
from scipy.spatial.distance import squareform

from pystagedtrees.learners._hclust import METHODS, cutree, hclust

SIZES = (2, 3, 5, 8, 13, 25, 40, 70)


def _dissimilarities(kind, n, rng):
    if kind == "euclid":
        x = rng.normal(size=(n, 3))
        return np.sqrt(((x[:, None, :] - x[None, :, :]) ** 2).sum(-1))
    if kind == "integer":   # values 1..3: many exact ties
        upper = np.triu(rng.integers(1, 4, size=(n, n)).astype(float), 1)
        return upper + upper.T
    if kind == "constant":  # every pair tied
        return np.ones((n, n)) - np.eye(n)
    if kind == "grid":      # points on a small grid: repeated distances, duplicated points
        x = rng.integers(0, 3, size=(n, 2)).astype(float)
        return np.sqrt(((x[:, None, :] - x[None, :, :]) ** 2).sum(-1))
    # "totvar": stage-like probability vectors, as stages_hclust clusters them
    p = rng.dirichlet(np.ones(3), size=n)
    return 0.5 * np.abs(p[:, None, :] - p[None, :, :]).sum(-1)


KINDS = ("euclid", "integer", "constant", "grid", "totvar")
CASES = [(kind, n) for kind in KINDS for n in SIZES]


def _case_matrix(index):
    kind, n = CASES[index]
    return _dissimilarities(kind, n, np.random.default_rng(1000 + index))


def _ks(n):
    return sorted({1, 2, min(3, n), max(1, n // 2), n})


@pytest.fixture(scope="module")
def r_results():
    lines = []
    for i in range(len(CASES)):
        d = _case_matrix(i)
        n = d.shape[0]
        lower = d[np.triu_indices(n, 1)]  # R's dist: lower triangle by columns
        lines.append(f"d <- {r_literal(lower)}; attr(d, 'Size') <- {n}L; class(d) <- 'dist'")
        for method in METHODS:
            tag = f"{i}_{method}"
            lines.append(f"h <- hclust(d, '{method}'); emit('merge{tag}', t(h$merge)); "
                         f"emit('height{tag}', h$height)")
            for k in _ks(n):
                lines.append(f"emit('cut{tag}_{k}', cutree(h, {k}))")
    return run_r("\n".join(lines))


@needs_r
@pytest.mark.parametrize("method", METHODS)
def test_hclust_and_cutree_match_r(method, r_results):
    for i, (kind, n) in enumerate(CASES):
        tag = f"{i}_{method}"
        res = hclust(_case_matrix(i), method)
        where = f"{kind} n={n}"
        np.testing.assert_array_equal(res.merge.ravel(), as_ints(r_results[f"merge{tag}"]),
                                      err_msg=where)
        np.testing.assert_array_equal(res.height, as_floats(r_results[f"height{tag}"]),
                                      err_msg=where)
        for k in _ks(n):
            np.testing.assert_array_equal(cutree(res.merge, k),
                                          as_ints(r_results[f"cut{tag}_{k}"]),
                                          err_msg=f"{where} k={k}")


@needs_r
def test_cutree_accepts_r_merge_matrices():
    # a merge matrix produced by R itself (not by our hclust)
    x = np.random.default_rng(7).normal(size=(12, 2))
    r = run_r(f"x <- matrix({r_literal(x.T)}, ncol = 2, byrow = TRUE); "
              "h <- hclust(dist(x), 'average'); emit('merge', t(h$merge)); "
              "for (k in 1:12) emit(paste0('k', k), cutree(h, k))")
    merge = as_ints(r["merge"]).reshape(-1, 2)
    for k in range(1, 13):
        np.testing.assert_array_equal(cutree(merge, k), as_ints(r[f"k{k}"]))


# ---------------------------------------------------------------- properties
distance_matrices = st.integers(2, 25).flatmap(
    lambda n: st.lists(st.integers(0, 6), min_size=n * (n - 1) // 2,
                       max_size=n * (n - 1) // 2).map(lambda v: squareform(np.array(v, float)))
)


@settings(max_examples=60, deadline=None)
@given(distance_matrices)
def test_single_linkage_heights_are_minimum_spanning_tree_weights(d):
    # independent source: single-linkage heights are the MST edge weights
    n = d.shape[0]
    shifted = d + 1.0  # csgraph treats 0 as "no edge"
    mst = minimum_spanning_tree(shifted).toarray()
    expected = np.sort(mst[mst > 0] - 1.0)
    assert expected.shape[0] == n - 1
    np.testing.assert_allclose(np.sort(hclust(d, "single").height), expected)


@settings(max_examples=60, deadline=None)
@given(distance_matrices, st.sampled_from(["complete", "average", "single", "mcquitty",
                                           "ward.D", "ward.D2"]))
def test_monotone_methods_and_tree_shape(d, method):
    res = hclust(d, method)
    n = d.shape[0]
    assert np.all(np.diff(res.height) >= -1e-12 * max(1.0, res.height.max()))
    # every observation appears once, every step is referenced once (except the root)
    entries = res.merge.ravel()
    assert sorted(-entries[entries < 0]) == list(range(1, n + 1))
    assert sorted(entries[entries > 0]) == list(range(1, n - 1))


@settings(max_examples=40, deadline=None)
@given(st.integers(3, 30), st.integers(0, 10**6))
def test_heights_agree_with_scipy_without_ties(n, seed):
    # scipy breaks ties differently, but with distinct distances the heights agree
    x = np.random.default_rng(seed).normal(size=(n, 2))
    d = np.sqrt(((x[:, None, :] - x[None, :, :]) ** 2).sum(-1))
    condensed = squareform(d, checks=False)
    for ours, theirs in [("single", "single"), ("complete", "complete"),
                         ("average", "average"), ("mcquitty", "weighted"), ("ward.D2", "ward")]:
        np.testing.assert_allclose(np.sort(hclust(d, ours).height),
                                   np.sort(linkage(condensed, theirs)[:, 2]), rtol=1e-10)


@settings(max_examples=60, deadline=None)
@given(distance_matrices, st.data())
def test_cutree_numbers_groups_by_first_observation(d, data):
    res = hclust(d, "complete")
    n = d.shape[0]
    k = data.draw(st.integers(1, n))
    labels = cutree(res.merge, k)
    assert sorted(set(labels.tolist())) == list(range(1, k + 1))
    _, first_rows = np.unique(labels, return_index=True)
    assert labels[np.sort(first_rows)].tolist() == list(range(1, k + 1))


def test_small_example_by_hand():
    # points 0, 1, 5, 6.5 on a line; complete linkage: {1,2} at 1, {3,4} at 1.5,
    # then max distance between the pairs = 6.5 - 0.
    x = np.array([0.0, 1.0, 5.0, 6.5])
    res = hclust(np.abs(x[:, None] - x[None, :]), "complete")
    assert res.merge.tolist() == [[-1, -2], [-3, -4], [1, 2]]
    assert res.height.tolist() == [1.0, 1.5, 6.5]


# -------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    "call, exc, match",
    [
        (lambda: hclust(np.zeros((2, 2)), "ward"), ValueError, "`method` must be one of"),
        (lambda: hclust(np.zeros((2, 3))), ValueError, "square"),
        (lambda: hclust(np.zeros((1, 1))), ValueError, "n >= 2"),
        (lambda: hclust([[0, 1], [2, 0]]), ValueError, "symmetric"),
        (lambda: hclust([[0, np.nan], [np.nan, 0]]), ValueError, "NaN"),
        (lambda: hclust([["a", "b"], ["b", "a"]]), TypeError, "numeric"),
        (lambda: cutree([[-1, -2]], 3), ValueError, "between 1 and n = 2"),
        (lambda: cutree([[-1, -2]], 1.5), TypeError, "`k` must be an integer"),
        (lambda: cutree([[-1, -2], [-1, 1]], 1), ValueError, "twice"),
        (lambda: cutree([[-1, 2], [-3, 1]], 1), ValueError, "earlier steps"),
        (lambda: cutree([1, 2], 1), ValueError, "shape"),
    ],
)
def test_errors_name_the_argument(call, exc, match):
    with pytest.raises(exc, match=match):
        call()
