"""kmeans against live R (given centres, set.seed + integer k, nstart) and properties."""
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

# The R runner lives with the RNG tests (tests/ is on sys.path under pytest).
from rscript import as_floats, as_ints, needs_r, r_literal, run_r

from pystagedtrees.learners._kmeans import kmeans
from pystagedtrees.rng import RRandom

ALGORITHMS = ("Hartigan-Wong", "Lloyd", "Forgy", "MacQueen")


def _data(kind, m, p, rng):
    if kind == "blobs":
        centres = rng.normal(scale=4, size=(4, p))
        return centres[rng.integers(0, 4, m)] + rng.normal(size=(m, p))
    if kind == "uniform":
        return rng.uniform(size=(m, p))
    if kind == "stages":   # sqrt of stage probability vectors, as stages_kmeans uses
        return np.sqrt(rng.dirichlet(np.full(p, 0.7), size=m))
    # "ties": few distinct integer rows, many duplicates and equal distances
    return rng.integers(0, 3, size=(m, p)).astype(float)


def _given_centre_cases():
    """(x, initial centres, iter_max): centres are distinct rows picked by numpy."""
    rng = np.random.default_rng(2024)
    cases = []
    for kind in ("blobs", "uniform", "stages", "ties"):
        for m, p, k in ((6, 1, 2), (12, 2, 3), (40, 3, 4), (150, 2, 6), (300, 4, 8), (25, 3, 24)):
            x = _data(kind, m, p, rng)
            distinct = np.unique(x, axis=0)
            if distinct.shape[0] < k:
                continue
            centres = distinct[rng.choice(distinct.shape[0], k, replace=False)]
            rng.shuffle(centres)
            for iter_max in (1, 10):
                cases.append((x, centres, iter_max))
    # far-away centres: empty cluster (R: error for Hartigan-Wong, NaN centre otherwise)
    x = _data("blobs", 30, 2, rng)
    cases.append((x, np.vstack([x[:2], [[100.0, 100.0]]]), 10))
    return cases


GIVEN = _given_centre_cases()


def _r_matrix(a):
    return f"matrix({r_literal(a)}, ncol = {a.shape[1]}, byrow = TRUE)"


_R_EMIT_RESULT = """
emit_result <- function(tag, res) {
  if (is.null(res)) { emit(paste0('error', tag), 1L); return(invisible()) }
  emit(paste0('cluster', tag), res$cluster); emit(paste0('centers', tag), t(res$centers))
  emit(paste0('wss', tag), res$withinss); emit(paste0('size', tag), res$size)
  emit(paste0('iter', tag), res$iter); emit(paste0('ifault', tag), res$ifault)
  emit(paste0('tot', tag), c(res$totss, res$tot.withinss, res$betweenss))
}
run <- function(expr) tryCatch(suppressWarnings(expr), error = function(e) NULL)
"""


def _compare(res, r, tag, where):
    if f"error{tag}" in r:
        return "error"
    np.testing.assert_array_equal(res.cluster, as_ints(r[f"cluster{tag}"]), err_msg=where)
    np.testing.assert_array_equal(res.centers.ravel(), as_floats(r[f"centers{tag}"]),
                                  err_msg=where)
    np.testing.assert_array_equal(res.withinss, as_floats(r[f"wss{tag}"]), err_msg=where)
    np.testing.assert_array_equal(res.size, as_ints(r[f"size{tag}"]), err_msg=where)
    assert res.iter == int(r[f"iter{tag}"][0]), where
    r_fault = r[f"ifault{tag}"]  # NULL (empty) for a converged Lloyd/MacQueen run
    assert res.ifault == (int(r_fault[0]) if r_fault else 0), where
    np.testing.assert_array_equal([res.totss, res.tot_withinss, res.betweenss],
                                  as_floats(r[f"tot{tag}"]), err_msg=where)
    return "ok"


@pytest.fixture(scope="module")
def r_given():
    lines = [_R_EMIT_RESULT]
    for i, (x, centres, iter_max) in enumerate(GIVEN):
        lines.append(f"x <- {_r_matrix(x)}; C <- {_r_matrix(centres)}")
        for a, algorithm in enumerate(ALGORITHMS):
            lines.append(f"emit_result('{i}_{a}', run(kmeans(x, C, iter.max = {iter_max}, "
                         f"algorithm = '{algorithm}')))")
    return run_r("\n".join(lines))


@needs_r
@pytest.mark.parametrize("a, algorithm", list(enumerate(ALGORITHMS)))
def test_given_centres_match_r(a, algorithm, r_given):
    outcomes = []
    for i, (x, centres, iter_max) in enumerate(GIVEN):
        tag, where = f"{i}_{a}", f"case {i} ({x.shape}, k={centres.shape[0]}, iter_max={iter_max})"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            try:
                res = kmeans(x, centres, iter_max=iter_max, algorithm=algorithm)
            except ValueError:
                assert f"error{tag}" in r_given, f"R did not fail on {where}"
                outcomes.append("error")
                continue
        outcomes.append(_compare(res, r_given, tag, where))
    assert outcomes.count("ok") >= len(GIVEN) - 3  # the comparison really ran
    if algorithm == "Hartigan-Wong":
        assert "error" in outcomes  # the far-away-centre case errors in both


RANDOM_K_CASES = [  # (data kind, m, p, k, nstart, seed)
    ("blobs", 60, 2, 3, 1, 1), ("blobs", 60, 2, 4, 3, 2), ("uniform", 100, 3, 5, 1, 3),
    ("uniform", 100, 3, 5, 3, 4), ("stages", 80, 3, 3, 1, 5), ("stages", 80, 3, 4, 3, 6),
    ("ties", 40, 2, 3, 1, 7), ("ties", 40, 2, 3, 1, 8), ("ties", 40, 2, 4, 3, 9),
    ("ties", 12, 1, 3, 1, 10), ("blobs", 20, 2, 1, 1, 11), ("blobs", 20, 2, 1, 3, 12),
    ("stages", 200, 4, 6, 5, 13),
]


def _random_k_data(index):
    kind, m, p, *_ = RANDOM_K_CASES[index]
    return _data(kind, m, p, np.random.default_rng(500 + index))


@pytest.fixture(scope="module")
def r_random_k():
    lines = [_R_EMIT_RESULT]
    for i, (_, _, _, k, nstart, seed) in enumerate(RANDOM_K_CASES):
        lines.append(f"x <- {_r_matrix(_random_k_data(i))}")
        for a, algorithm in enumerate(ALGORITHMS):
            tag = f"{i}_{a}"
            lines.append(f"set.seed({seed}); emit_result('{tag}', run(kmeans(x, {k}, "
                         f"nstart = {nstart}, algorithm = '{algorithm}'))); "
                         f"emit('after{tag}', runif(1))")
    return run_r("\n".join(lines))


@needs_r
@pytest.mark.parametrize("a, algorithm", list(enumerate(ALGORITHMS)))
def test_set_seed_and_integer_k_match_r(a, algorithm, r_random_k):
    for i, (kind, m, _p, k, nstart, seed) in enumerate(RANDOM_K_CASES):
        tag, where = f"{i}_{a}", f"{kind} m={m} k={k} nstart={nstart} seed={seed}"
        rng = RRandom(seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            res = kmeans(_random_k_data(i), k, nstart=nstart, algorithm=algorithm, rng=rng)
        assert _compare(res, r_random_k, tag, where) == "ok"
        # the RNG consumed exactly what R consumed
        assert rng.unif_rand() == float(r_random_k[f"after{tag}"][0]), where


@needs_r
def test_duplicated_draw_switches_to_unique_rows_like_r():
    # 3 distinct rows repeated: sample.int(m, 3) almost surely hits a duplicate,
    # so R redraws from unique(x); the RNG stream must follow.
    x = np.repeat(np.array([[0.0, 0.0], [5.0, 5.0], [10.0, 0.0]]), 8, axis=0)
    r = run_r(_R_EMIT_RESULT + f"x <- {_r_matrix(x)}; set.seed(3); "
              "emit_result('d', run(kmeans(x, 3))); emit('after', runif(1))")
    rng = RRandom(3)
    res = kmeans(x, 3, rng=rng)
    assert _compare(res, r, "d", "duplicates") == "ok"
    assert rng.unif_rand() == float(r["after"][0])


# ----------------------------------------------------------------- properties
data_sets = st.tuples(st.integers(6, 60), st.integers(1, 3), st.integers(2, 5),
                      st.integers(0, 10**6))


@settings(max_examples=40, deadline=None)
@given(data_sets)
def test_hartigan_wong_result_is_a_single_move_local_optimum(params):
    # Hartigan's criterion: moving any point of a non-singleton cluster to another
    # cluster cannot decrease the total within sum of squares.
    m, p, k, seed = params
    x = np.random.default_rng(seed).normal(size=(m, p))
    res = kmeans(x, k, rng=np.random.default_rng(seed), iter_max=50)
    if res.ifault != 0:
        return
    centers, n = res.centers, res.size.astype(float)
    for i in range(m):
        own = res.cluster[i] - 1
        if n[own] == 1:
            continue
        cost_out = n[own] / (n[own] - 1) * ((x[i] - centers[own]) ** 2).sum()
        for other in range(k):
            if other != own:
                cost_in = n[other] / (n[other] + 1) * ((x[i] - centers[other]) ** 2).sum()
                assert cost_in >= cost_out - 1e-9


@settings(max_examples=40, deadline=None)
@given(data_sets, st.sampled_from(["Lloyd", "MacQueen", "Hartigan-Wong"]))
def test_converged_partition_is_consistent(params, algorithm):
    m, p, k, seed = params
    x = np.random.default_rng(seed).normal(size=(m, p))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        res = kmeans(x, k, rng=np.random.default_rng(seed + 1), iter_max=100,
                     algorithm=algorithm)
    if res.ifault != 0 or np.any(res.size == 0):
        return
    assert np.bincount(res.cluster, minlength=k + 1)[1:].tolist() == res.size.tolist()
    means = np.array([x[res.cluster == j + 1].mean(0) for j in range(k)])
    np.testing.assert_allclose(res.centers, means, atol=1e-10)
    wss = [((x[res.cluster == j + 1] - means[j]) ** 2).sum() for j in range(k)]
    np.testing.assert_allclose(res.withinss, wss, atol=1e-10)
    np.testing.assert_allclose(res.totss, ((x - x.mean(0)) ** 2).sum())
    if algorithm == "Lloyd":  # every point sits at its nearest centre
        dist = ((x[:, None, :] - res.centers[None]) ** 2).sum(-1)
        assert np.all(dist[np.arange(m), res.cluster - 1] <= dist.min(1) + 1e-12)


def test_two_obvious_groups_by_hand():
    # {0, 0.2} and {4, 4.4, 9} from centres 0 and 5: means 0.1 and 17.4/3 = 5.8
    x = np.array([[0.0], [0.2], [4.0], [4.4], [9.0]])
    for algorithm in ALGORITHMS:
        res = kmeans(x, [[0.0], [5.0]], algorithm=algorithm)
        assert res.cluster.tolist() == [1, 1, 2, 2, 2]
        np.testing.assert_allclose(res.centers.ravel(), [0.1, 5.8])


def test_warnings_as_r():
    x = np.random.default_rng(0).normal(size=(200, 2))
    with pytest.warns(RuntimeWarning, match="did not converge in 1 iteration"):
        kmeans(x, x[:6], iter_max=1, algorithm="Lloyd")
    with pytest.warns(RuntimeWarning, match="empty cluster"):
        kmeans(x, np.vstack([x[:2], [[50.0, 50.0]]]), algorithm="Lloyd")


# --------------------------------------------------------------------- errors
X = np.arange(12.0).reshape(6, 2)


@pytest.mark.parametrize(
    "call, exc, match",
    [
        (lambda: kmeans(X, 2, algorithm="hartigan"), ValueError, "`algorithm` must be one of"),
        (lambda: kmeans(X, 7), ValueError, "more cluster centers"),
        (lambda: kmeans(np.repeat(X[:2], 3, axis=0), 3), ValueError, "distinct data points"),
        (lambda: kmeans(X, X), ValueError, "between 1 and nrow"),
        (lambda: kmeans(X, X[[0, 0]]), ValueError, "not distinct"),
        (lambda: kmeans(X, X[:2, :1]), ValueError, "same number of columns"),
        (lambda: kmeans(X, np.vstack([X[:2], [[99.0, 99.0]]])), ValueError, "empty cluster"),
        (lambda: kmeans(X, 0), ValueError, "`centers` must be >= 1"),
        (lambda: kmeans(X, 2, iter_max=0), ValueError, "`iter_max` must be >= 1"),
        (lambda: kmeans(X, 2, nstart=1.5), TypeError, "`nstart` must be an integer"),
        (lambda: kmeans(X, 2, rng=42), TypeError, "`rng` must be"),
        (lambda: kmeans([[1.0, np.nan]], 1), ValueError, "NaN"),
        (lambda: kmeans([["a"]], 1), TypeError, "numeric"),
    ],
)
def test_errors_name_the_argument(call, exc, match):
    with pytest.raises(exc, match=match):
        call()
