"""RRandom against R itself: the spec's R 4.2 numbers and live Rscript runs.

The live tests run one Rscript per scenario group (skipped when R is absent);
every expected value comes from R, printed with 17 significant digits so
that equality is exact.
"""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rscript import as_floats, as_ints, needs_r, r_literal, run_r

from pystagedtrees.kernels import _rrandom as _rrandom_kernels
from pystagedtrees.rng import RRandom


# ------------------------------------------------------- spec (R 4.2) numbers
# stagedtrees-spec.md section 7: each value comes from a fresh set.seed(42).
def test_spec_runif():
    np.testing.assert_allclose(
        RRandom(42).runif(3), [0.914806043496355, 0.937075413297862, 0.286139534786344],
        rtol=0, atol=5e-16,
    )


def test_spec_sample_int():
    assert (RRandom(42).sample_int(10, 3) + 1).tolist() == [1, 5, 10]


def test_spec_sample_with_replacement():
    assert RRandom(42).sample([1, 2, 3, 4], 6, replace=True) == [1, 1, 1, 1, 2, 4]


def test_spec_rexp():
    np.testing.assert_allclose(
        RRandom(42).rexp(3), [0.198336811783888, 0.660895252134651, 0.283491037786007],
        rtol=0, atol=5e-16,
    )


def test_spec_sample_with_prob():
    got = RRandom(42).sample(["a", "b", "c"], 5, replace=True, prob=[0.2, 0.5, 0.3])
    assert got == ["a", "a", "b", "a", "c"]


# ------------------------------------------------------------- live R checks
SEEDS = [42, 1, 0, -7, 2147483647, -2147483647, 123456789]


@needs_r
def test_uniform_streams_match_r():
    # 1500 draws cross two Mersenne-Twister block boundaries.
    script = "".join(
        f"set.seed({s}); emit('u{i}', runif(1500)); emit('state{i}', .Random.seed)\n"
        for i, s in enumerate(SEEDS)
    )
    r = run_r(script)
    for i, seed in enumerate(SEEDS):
        rng = RRandom(seed)
        np.testing.assert_array_equal(rng.runif(1500), as_floats(r[f"u{i}"]))
        np.testing.assert_array_equal(rng.get_state(), as_ints(r[f"state{i}"]))


@needs_r
def test_scaled_uniform_and_single_draws_match_r():
    r = run_r("set.seed(3); emit('a', runif(5, -2, 7)); emit('b', runif(3, 4, 4)); "
              "emit('c', runif(1))")
    rng = RRandom(3)
    np.testing.assert_array_equal(rng.runif(5, -2, 7), as_floats(r["a"]))
    np.testing.assert_array_equal(rng.runif(3, 4, 4), as_floats(r["b"]))  # no draw used
    assert rng.unif_rand() == float(r["c"][0])


# (n, size, replace): small, powers of two (exact bit counts), 16+ bits, hashing
UNIFORM_SAMPLING_CASES = [
    (1, 1, False), (1, 5, True), (2, 2, False), (3, 3, False), (10, 10, False),
    (10, 50, True), (16, 16, False), (17, 9, False), (100, 37, False), (1000, 400, True),
    (65536, 20, False), (65537, 20, True), (100000, 1000, False), (2**31 - 1, 10, True),
    (20_000_000, 8, False), (5000, 5000, False),  # past every power of two below 4096
]


@needs_r
def test_uniform_sampling_matches_r():
    script = "".join(
        f"set.seed({100 + i}); emit('s{i}', sample.int({n}, {size}, {str(rep).upper()}))\n"
        for i, (n, size, rep) in enumerate(UNIFORM_SAMPLING_CASES)
    )
    r = run_r(script)
    for i, (n, size, rep) in enumerate(UNIFORM_SAMPLING_CASES):
        got = RRandom(100 + i).sample_int(n, size, replace=rep) + 1
        np.testing.assert_array_equal(got, as_ints(r[f"s{i}"]), err_msg=f"case {n, size, rep}")


def _prob_cases():
    """(weights, size, replace): ties, zeros, unnormalised weights, Walker's regime."""
    walker = np.random.default_rng(5).uniform(0.5, 1.5, 300)   # 300 categories, n*p > 0.1
    near_walker = np.r_[np.full(201, 1.0), np.full(99, 1e-6)]  # 201 qualify: Walker
    not_walker = np.r_[np.full(200, 1.0), np.full(100, 1e-6)]  # 200 qualify: inversion
    return [
        ([0.5, 0.5], 6, True), ([1, 1], 2, False), ([1, 1, 1, 1], 4, False),
        ([2, 1, 2, 1, 3, 3], 20, True), ([2, 1, 2, 1, 3, 3], 6, False),
        ([0.1, 0, 0.4, 0, 0.5], 3, False), ([0.2, 0.5, 0.3], 1, False),
        ([1e-3, 7, 7, 1e-3, 3.3], 50, True),
        (walker, 500, True), (walker, 1, False), (walker, 120, False),
        (near_walker, 300, True), (not_walker, 300, True),
    ]


@needs_r
def test_probability_sampling_matches_r():
    cases = _prob_cases()
    script = "".join(
        f"set.seed({7 + i}); emit('p{i}', sample.int({len(w)}, {size}, "
        f"{'TRUE' if rep else 'FALSE'}, {r_literal(w)})); emit('u{i}', runif(2))\n"
        for i, (w, size, rep) in enumerate(cases)
    )
    r = run_r(script)
    for i, (w, size, rep) in enumerate(cases):
        rng = RRandom(7 + i)
        got = rng.sample_int(len(w), size, replace=rep, prob=w) + 1
        np.testing.assert_array_equal(got, as_ints(r[f"p{i}"]), err_msg=f"case {i}")
        # the stream continues where R's does
        np.testing.assert_array_equal(rng.runif(2), as_floats(r[f"u{i}"]))


@needs_r
def test_revsort_tie_order_matches_r():
    # R's sample with equal weights: the draw order reveals revsort's permutation
    # (for n = 2 equal weights the 2nd element comes first).
    r = run_r("for (n in 2:9) { set.seed(1); emit(paste0('n', n), "
              "sample.int(n, n, FALSE, rep(1, n))) }")
    for n in range(2, 10):
        got = RRandom(1).sample_int(n, n, prob=np.ones(n)) + 1
        np.testing.assert_array_equal(got, as_ints(r[f"n{n}"]))


@needs_r
def test_exponential_and_normal_match_r():
    r = run_r("set.seed(11); emit('e', rexp(2000)); emit('e3', rexp(7, 3)); "
              "emit('z', rnorm(2000)); emit('z2', rnorm(5, 2, 3)); emit('z0', rnorm(4, 1, 0)); "
              "emit('u', runif(1)); emit('q', qnorm(c(1e-300, 1e-20, 1e-12, 1e-9, 0.01, 0.07, "
              "0.075, 0.3, 0.5, 0.8, 0.93, 0.925, 0.99, 1 - 1e-12)))")
    rng = RRandom(11)
    np.testing.assert_array_equal(rng.rexp(2000), as_floats(r["e"]))
    np.testing.assert_array_equal(rng.rexp(7, 3), as_floats(r["e3"]))
    np.testing.assert_array_equal(rng.rnorm(2000), as_floats(r["z"]))
    np.testing.assert_array_equal(rng.rnorm(5, 2, 3), as_floats(r["z2"]))
    np.testing.assert_array_equal(rng.rnorm(4, 1, 0), as_floats(r["z0"]))  # no draw used
    assert rng.unif_rand() == float(r["u"][0])
    ps = [1e-300, 1e-20, 1e-12, 1e-9, 0.01, 0.07, 0.075, 0.3, 0.5, 0.8, 0.93, 0.925, 0.99,
          1 - 1e-12]
    np.testing.assert_array_equal([_rrandom_kernels.qnorm(p) for p in ps], as_floats(r["q"]))


@needs_r
def test_mixed_stream_and_state_round_trip_match_r():
    script = """
    set.seed(2024)
    emit('a', sample(5, 1)); emit('b', sample(c(10, 20, 30), 4, TRUE)); emit('c', rexp(3))
    emit('d', sample(1, 1)); emit('e', rnorm(3)); emit('f', sample.int(40))
    emit('state', .Random.seed)
    emit('g', runif(700))
    """
    r = run_r(script)
    rng = RRandom(2024)
    assert rng.sample(5, 1).tolist() == as_ints(r["a"]).tolist()
    assert rng.sample(np.array([10.0, 20.0, 30.0]), 4, replace=True).tolist() == \
        as_floats(r["b"]).tolist()
    np.testing.assert_array_equal(rng.rexp(3), as_floats(r["c"]))
    assert rng.sample(1, 1).tolist() == as_ints(r["d"]).tolist()  # n = 1 still draws
    np.testing.assert_array_equal(rng.rnorm(3), as_floats(r["e"]))
    np.testing.assert_array_equal(rng.sample_int(40) + 1, as_ints(r["f"]))
    np.testing.assert_array_equal(rng.get_state(), as_ints(r["state"]))
    restored = RRandom(0)
    restored.set_state(as_ints(r["state"]))
    np.testing.assert_array_equal(restored.runif(700), as_floats(r["g"]))


@needs_r
def test_unif_index_matches_r_sample_of_size_one():
    ns = [1, 2, 3, 7, 255, 256, 257, 65535, 65536, 65537, 10**6, 2**31 - 1]
    r = run_r("set.seed(9); " + "; ".join(f"emit('i{n}', sample.int({n}, 1))" for n in ns))
    rng = RRandom(9)
    for n in ns:
        assert rng.unif_index(n) + 1 == int(r[f"i{n}"][0]), n


# ----------------------------------------------------------------- properties
@settings(max_examples=60, deadline=None)
@given(seed=st.integers(-(2**31) + 1, 2**31 - 1), n=st.integers(1, 300), data=st.data())
def test_sampling_without_replacement_is_a_partial_permutation(seed, n, data):
    size = data.draw(st.integers(0, n))
    got = RRandom(seed).sample_int(n, size)
    assert len(set(got.tolist())) == size
    assert got.min(initial=0) >= 0 and got.max(initial=0) < n


def _replay_unif_index(rng, n):
    """R's R_unif_index written out from its C: ceil(log2(n)) bits, 16 at a time
    from floor(65536 u), redrawn until below n."""
    bits = int(np.ceil(np.log2(n)))
    while True:
        v = 0
        for _ in range(0, bits + 1, 16):
            v = 65536 * v + int(np.floor(rng.unif_rand() * 65536))
        v &= (1 << bits) - 1
        if v < n:
            return v


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(-(2**31) + 1, 2**31 - 1), n=st.integers(1, 5000), data=st.data())
def test_uniform_sampling_replays_r_loop(seed, n, data):
    size = data.draw(st.integers(0, n))
    replace = data.draw(st.booleans())
    twin, pool, want = RRandom(seed), list(range(n)), []
    for remaining in range(n, n - size, -1):  # R's partial shuffle, or plain draws
        if replace:
            want.append(_replay_unif_index(twin, n))
            continue
        v = _replay_unif_index(twin, remaining)
        want.append(pool[v])
        pool[v] = pool[remaining - 1]
    assert RRandom(seed).sample_int(n, size, replace=replace).tolist() == want


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 5), min_size=1, max_size=40))
def test_revsort_sorts_decreasingly_and_carries_labels(values):
    a = np.array(values, dtype=float)
    perm = np.arange(len(a), dtype=np.int64)
    original = a.copy()
    _rrandom_kernels.revsort(a, perm)
    assert np.all(np.diff(a) <= 0)
    np.testing.assert_array_equal(original[perm], a)
    assert sorted(perm.tolist()) == list(range(len(a)))


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 50))
def test_state_round_trip_continues_the_stream(seed, n):
    rng = RRandom(seed)
    rng.runif(n)
    copy = RRandom(1)
    copy.set_state(rng.get_state())
    np.testing.assert_array_equal(copy.runif(700), rng.runif(700))


def test_walker_and_inversion_give_frequencies_close_to_prob():
    # property: with 1e5 draws each frequency is within 5 sd of its probability
    for n_cat in (5, 300):
        p = np.random.default_rng(n_cat).uniform(0.5, 2, n_cat)
        p /= p.sum()
        draws = RRandom(1).sample_int(n_cat, 100_000, replace=True, prob=p)
        freq = np.bincount(draws, minlength=n_cat) / 100_000
        assert np.all(np.abs(freq - p) < 5 * np.sqrt(p * (1 - p) / 100_000) + 1e-12)


# --------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    "call, exc, match",
    [
        (lambda r: r.sample_int(3, 4), ValueError, "larger than the population"),
        (lambda r: r.sample_int(3, 2, prob=[1, 1]), ValueError, "n = 3 entries"),
        (lambda r: r.sample_int(3, 2, prob=[1, -1, 1]), ValueError, "negative"),
        (lambda r: r.sample_int(3, 2, prob=[1, np.nan, 1]), ValueError, "NaN"),
        (lambda r: r.sample_int(3, 3, prob=[1, 0, 1]), ValueError, "too few positive"),
        (lambda r: r.sample_int(2.5, 1), TypeError, "whole number"),
        (lambda r: r.sample_int(-1, 0), ValueError, ">= 0"),
        (lambda r: r.sample_int(0, 1, replace=True), ValueError, "positive"),
        (lambda r: r.unif_index(0), ValueError, ">= 1"),
        (lambda r: r.runif(2, 3, 1), ValueError, "`b` must be >= `a`"),
        (lambda r: r.rexp(2, 0), ValueError, "rate"),
        (lambda r: r.rnorm(2, 0, -1), ValueError, "sd"),
        (lambda r: r.sample("abc", 1), TypeError, "string"),
        (lambda r: r.set_state(np.zeros(5, dtype=int)), ValueError, "626"),
        (lambda r: RRandom(2**31), ValueError, "32-bit"),
        (lambda r: RRandom(1.5), TypeError, "integer"),
    ],
)
def test_errors_name_the_argument(call, exc, match):
    with pytest.raises(exc, match=match):
        call(RRandom(1))


def test_a_generator_shared_by_threads_hands_out_its_stream_once():
    import copy
    import pickle
    import sys
    from concurrent.futures import ThreadPoolExecutor

    shared, n_threads, calls, size = RRandom(1), 8, 200, 2000
    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # provoke interleavings
    try:
        with ThreadPoolExecutor(n_threads) as pool:
            drawn = list(pool.map(lambda _: [shared.runif(size) for _ in range(calls)],
                                  range(n_threads)))
    finally:
        sys.setswitchinterval(switch)
    every = np.sort(np.concatenate([np.concatenate(d) for d in drawn]))
    np.testing.assert_array_equal(every, np.sort(RRandom(1).runif(size * calls * n_threads)))
    # the lock stays out of copies and pickles, which draw on
    later = RRandom(7)
    later.runif(3)
    for twin in (copy.deepcopy(later), pickle.loads(pickle.dumps(later)), copy.copy(later)):
        np.testing.assert_array_equal(twin.runif(4), RRandom(7).runif(7)[3:])
    np.testing.assert_array_equal(later.runif(4), RRandom(7).runif(7)[3:])  # not moved by them
