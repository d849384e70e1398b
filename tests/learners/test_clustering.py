"""Distances of stages_hclust: R's dist, bit for bit (live R when available)."""
import shutil
import subprocess

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hst
from strategies import categorical_frames

import pystagedtrees as st
from pystagedtrees.learners import _clustering as clustering
from pystagedtrees.learners._clustering import R_DIST_METHODS, stage_distances

needs_r = pytest.mark.skipif(shutil.which("Rscript") is None, reason="Rscript (R) is not installed")


def _probability_rows(seed, m=6, k=3):
    rng = np.random.default_rng(seed)
    rows = rng.dirichlet(np.ones(k), size=m)
    # zeros exercise Canberra's skipped coordinates; each row keeps its
    # largest entry, so it stays a probability vector (two all-zero rows
    # would be NA in R's Canberra distance, as in ours)
    zero = rng.random((m, k)) < 0.2
    zero[np.arange(m), rows.argmax(axis=1)] = False
    rows[zero] = 0.0
    rows /= rows.sum(axis=1, keepdims=True)
    rows[1] = rows[0]  # a tie
    return rows


@needs_r
@pytest.mark.parametrize("method", R_DIST_METHODS)
def test_distances_equal_r_dist(method):
    x = _probability_rows(11)
    literal = ",".join(float(v).hex() for v in x.ravel())
    script = (f"x <- matrix(c({literal}), nrow = {x.shape[0]}, byrow = TRUE); "
              f"cat(sprintf('%a', as.matrix(dist(x, method = '{method}'))))")
    result = subprocess.run(["Rscript", "-e", script], capture_output=True, text=True, check=True)
    expected = np.array([float.fromhex(v) for v in result.stdout.split()]).reshape(x.shape[0], -1, order="F")
    np.testing.assert_array_equal(stage_distances(x, method), expected)


@settings(max_examples=30, deadline=None)
@given(hst.integers(0, 10**6), hst.sampled_from(R_DIST_METHODS + ("totvar", "hellinger")))
def test_distances_are_symmetric_and_zero_on_the_diagonal(seed, method):
    d = stage_distances(_probability_rows(seed), method)
    np.testing.assert_array_equal(d, d.T)
    np.testing.assert_array_equal(np.diag(d), 0.0)
    assert (d >= 0).all()
    assert d[0, 1] == 0.0  # identical rows


@settings(max_examples=40, deadline=None)
@given(categorical_frames(min_vars=3, max_vars=5, max_levels=3, max_rows=80, with_na=False),
       hst.sampled_from(["complete", "single", "mcquitty", "median"]),
       hst.sampled_from(["totvar", "hellinger", "euclidean", "maximum", "canberra"]),
       hst.integers(1, 6), hst.sampled_from([0.5, 1]))
def test_hclust_on_distinct_probabilities_equals_hclust_on_every_stage(
        data, method, distance, k, lambda_):
    # Few rows and lambda > 0 give many stages with equal probabilities, which
    # the fast path clusters once; the plain path clusters every stage as R does.
    start = st.full(data, lambda_=lambda_)
    fast = st.stages_hclust(start, k=k, method=method, distance=distance)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(clustering, "_DUPLICATE_BLIND_METHODS", ())
        plain = st.stages_hclust(start, k=k, method=method, distance=distance)
    assert fast.stages() == plain.stages()
    assert float(fast.ll) == float(plain.ll)


@pytest.mark.parametrize("nstart, exc", [(0, ValueError), (1.5, TypeError), (True, TypeError)])
def test_kmeans_refuses_a_bad_nstart_before_learning_any_variable(monkeypatch, nstart, exc):
    runs = []
    kept = clustering.best_of_starts
    monkeypatch.setattr(clustering, "best_of_starts",
                        lambda *args: runs.append(1) or kept(*args))
    model = st.full(st.datasets.titanic(), lambda_=1)
    with pytest.raises(exc, match="`nstart`"):
        st.stages_kmeans(model, k=2, nstart=nstart, seed=1)
    assert runs == []
    st.stages_kmeans(model, k=2, nstart=2, seed=1)
    assert runs  # the counter sees the variables learned
