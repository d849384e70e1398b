"""The randomness protocol: each backend against its reference (numpy's own
Generator; R itself through Rscript, under R >= 3.6's sampling and under
RNGversion("3.5.0")), the resolver's rule and its errors, the deprecated
``random_state`` of the bnc functions, and no generator dispatch outside
pystagedtrees.rng."""
import ast
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from rscript import as_floats, as_ints, needs_r, r_literal, run_r

import pystagedtrees
from pystagedtrees import bnc
from pystagedtrees.rng import (
    RNG_KINDS,
    NumpySource,
    RandomSource,
    RRandom,
    RRoundingRandom,
    check_seed,
    resolve_source,
)

# ------------------------------------------------------------------ numpy backend
# each protocol draw against the Generator call it stands for, on the same seed
NUMPY_REFERENCES = [
    (lambda s: s.runif(5), lambda g: g.uniform(0.0, 1.0, 5)),
    (lambda s: s.runif(5), lambda g: g.random(5)),
    (lambda s: s.runif(4, -2, 3), lambda g: g.uniform(-2, 3, 4)),
    (lambda s: s.rexp(6), lambda g: g.exponential(size=6)),
    (lambda s: [s.unif_index(7) for _ in range(5)], lambda g: [g.integers(7) for _ in range(5)]),
    (lambda s: s.sample_int(10, 4), lambda g: g.choice(10, 4, replace=False)),
    (lambda s: s.sample_int(6), lambda g: g.choice(6, 6, replace=False)),
    (lambda s: s.sample_int(10, 30, replace=True), lambda g: g.integers(10, size=30)),
    (lambda s: s.sample_int(3, 20, replace=True, prob=[2, 1, 1]),
     lambda g: g.choice(3, 20, p=[0.5, 0.25, 0.25])),
    (lambda s: s.permutation(9), lambda g: g.permutation(9)),
    (lambda s: s.permutation(9, 3), lambda g: g.permutation(9)[:3]),
    (lambda s: s.peek_uniforms(5).copy(), lambda g: g.random(5)),
]


@pytest.mark.parametrize("seed", [0, 7, 2024])
@pytest.mark.parametrize("draw, reference", NUMPY_REFERENCES)
def test_numpy_backend_draws_what_its_generator_draws(seed, draw, reference):
    source = NumpySource(np.random.default_rng(seed))
    np.testing.assert_array_equal(draw(source), reference(np.random.default_rng(seed)))


def test_numpy_backend_continues_its_generator_and_hands_it_to_rfun():
    generator = np.random.default_rng(3)
    source = NumpySource(generator)
    assert source.generator is generator
    first = source.peek_uniforms(4).copy()
    source.advance(2)  # peeking consumed the four: numpy need not follow R's consumption
    reference = np.random.default_rng(3)
    np.testing.assert_array_equal(first, reference.random(4))
    assert source.unif_index(100) == reference.integers(100)


def test_numpy_backend_keeps_the_level_order_for_inversion():
    prob = np.array([[0.1, 0.6, 0.3], [0.5, 0.2, 0.3]])
    order = np.tile(np.arange(3), (2, 1))
    NumpySource(np.random.default_rng(0)).order_for_inversion(prob, order, np.array([0, 1]))
    np.testing.assert_array_equal(prob, [[0.1, 0.6, 0.3], [0.5, 0.2, 0.3]])
    np.testing.assert_array_equal(order, np.tile(np.arange(3), (2, 1)))


# ------------------------------------------------------------------- R backends
# R's preamble for each backend: R >= 3.6's defaults, or R 3.5's sampling
R_SETUP = {RRandom: 'RNGkind(sample.kind = "Rejection")',
           RRoundingRandom: 'suppressWarnings(RNGversion("3.5.0"))'}
R_BACKENDS = pytest.mark.parametrize("backend", [RRandom, RRoundingRandom])

# (n, size, replace): size one, partial and full shuffles, with replacement,
# populations past 2^16 and the hashed sampler of R's sample.int (n > 1e7)
SAMPLING_CASES = [(7, 1, False), (10, 10, False), (100, 37, False), (1000, 50, True),
                  (3, 8, True), (70000, 12, False), (20_000_000, 5, False)]


@needs_r
@R_BACKENDS
def test_r_backend_sampling_and_state_match_r(backend):
    script = R_SETUP[backend] + "\n" + "".join(
        f"set.seed({30 + i}); emit('s{i}', sample.int({n}, {size}, {str(rep).upper()}) - 1); "
        f"emit('u{i}', runif(2))\n"
        for i, (n, size, rep) in enumerate(SAMPLING_CASES)
    ) + ("set.seed(-7); emit('state', .Random.seed); emit('i', sample.int(5, 1) - 1); "
         "emit('perm', sample.int(20, 6) - 1); emit('full', sample(9) - 1)\n")
    r = run_r(script)
    for i, (n, size, rep) in enumerate(SAMPLING_CASES):
        source = backend(30 + i)
        np.testing.assert_array_equal(source.sample_int(n, size, replace=rep),
                                      as_ints(r[f"s{i}"]), err_msg=f"case {n, size, rep}")
        np.testing.assert_array_equal(source.runif(2), as_floats(r[f"u{i}"]))
    source = backend(-7)
    np.testing.assert_array_equal(source.get_state(), as_ints(r["state"]))
    assert source.unif_index(5) == int(r["i"][0])
    np.testing.assert_array_equal(source.permutation(20, 6), as_ints(r["perm"]))
    np.testing.assert_array_equal(source.permutation(9), as_ints(r["full"]))


@needs_r
@R_BACKENDS
def test_r_backend_variates_and_probability_sampling_match_r(backend):
    weights = [1e-3, 7, 7, 1e-3, 3.3]
    r = run_r(R_SETUP[backend] + "\n" + (
        f"set.seed(11); emit('u', runif(3, -1, 4)); emit('e', rexp(4)); emit('z', rnorm(2)); "
        f"emit('p', sample.int(5, 30, TRUE, {r_literal(weights)}) - 1); "
        f"emit('q', sample.int(5, 3, FALSE, {r_literal(weights)}) - 1); emit('v', runif(1))\n"))
    source = backend(11)
    np.testing.assert_array_equal(source.runif(3, -1, 4), as_floats(r["u"]))
    np.testing.assert_array_equal(source.rexp(4), as_floats(r["e"]))
    np.testing.assert_array_equal(source.rnorm(2), as_floats(r["z"]))
    np.testing.assert_array_equal(source.sample_int(5, 30, replace=True, prob=weights),
                                  as_ints(r["p"]))
    np.testing.assert_array_equal(source.sample_int(5, 3, prob=weights), as_ints(r["q"]))
    assert source.unif_rand() == float(r["v"][0])


@needs_r
@R_BACKENDS
def test_peeked_uniforms_are_consumed_only_as_far_as_advanced(backend):
    r = run_r(R_SETUP[backend] + "\nset.seed(5); emit('u', runif(8))\n")
    source = backend(5)
    np.testing.assert_array_equal(source.peek_uniforms(6), as_floats(r["u"][:6]))
    np.testing.assert_array_equal(source.peek_uniforms(2), as_floats(r["u"][:2]))
    source.advance(3)
    np.testing.assert_array_equal(source.runif(5), as_floats(r["u"][3:]))
    assert source.generator is source


@needs_r
@R_BACKENDS
def test_inversion_over_the_sorted_levels_is_r_probability_sampling(backend):
    # R's sample(prob=) with few levels walks the cumulative sorted probabilities
    # with one uniform per draw: with order_for_inversion, so does this
    weights = np.array([0.1, 0.3, 0.1, 0.3, 0.2])
    r = run_r(R_SETUP[backend] + f"\nset.seed(3); emit('x', sample.int(5, 40, TRUE, "
                                 f"{r_literal(weights)}) - 1)\n")
    source = backend(3)
    prob = np.vstack([np.full(5, 0.2), weights / np.cumsum(weights)[-1]])
    order = np.tile(np.arange(5, dtype=np.int64), (2, 1))
    source.order_for_inversion(prob, order, np.array([1]))
    np.testing.assert_array_equal(prob[0], np.full(5, 0.2))  # a row not listed stays
    position = np.searchsorted(np.cumsum(prob[1]), source.runif(40), side="left")
    np.testing.assert_array_equal(order[1][np.minimum(position, 4)], as_ints(r["x"]))


def test_the_rounding_backend_replays_its_own_state_kind():
    state = RRoundingRandom(9).get_state()
    assert state[0] == 403  # .Random.seed[1] under RNGversion("3.5.0")
    with pytest.raises(ValueError, match=r"`state\[0\]` must be 403"):
        RRoundingRandom(1).set_state(RRandom(9).get_state())
    again = RRoundingRandom(1)
    again.set_state(state)
    np.testing.assert_array_equal(again.sample_int(50, 10), RRoundingRandom(9).sample_int(50, 10))


def test_every_backend_is_a_random_source():
    for source in (NumpySource(np.random.default_rng()), RRandom(1), RRoundingRandom(1)):
        assert isinstance(source, RandomSource)
    assert bnc.RoundingDraws is RRoundingRandom  # its public name in pystagedtrees.bnc


# ---------------------------------------------------------------------- resolver
def _same_stream(a, b):
    np.testing.assert_array_equal(a.runif(5), b.runif(5))
    np.testing.assert_array_equal(a.sample_int(30, 7), b.sample_int(30, 7))


@pytest.mark.parametrize("rng", ["numpy", None])
def test_numpy_seeds(rng):
    _same_stream(resolve_source(4, rng), NumpySource(np.random.default_rng(4)))
    generator = np.random.default_rng(4)
    assert resolve_source(generator, rng).generator is generator  # a Generator continues
    assert isinstance(resolve_source(None, rng), NumpySource)
    # scikit-learn's legacy RandomState gives the seed
    seed = np.random.RandomState(3).randint(np.iinfo(np.int32).max)
    _same_stream(resolve_source(np.random.RandomState(3), rng),
                 NumpySource(np.random.default_rng(seed)))


@pytest.mark.parametrize("kind, backend", [("R", RRandom), ("R-rounding", RRoundingRandom)])
def test_r_seeds(kind, backend):
    for seed in (1, -5, 2**31 - 1):
        source = resolve_source(seed, kind)
        assert type(source) is backend
        _same_stream(source, backend(seed))
    seed = np.random.RandomState(8).randint(np.iinfo(np.int32).max)
    _same_stream(resolve_source(np.random.RandomState(8), kind), backend(seed))


def test_sources_in_use_continue_their_stream():
    for source in (RRandom(2), RRoundingRandom(2), NumpySource(np.random.default_rng(2))):
        assert resolve_source(rng=source) is source
    generator = np.random.default_rng(2)
    assert resolve_source(rng=generator).generator is generator
    # nested calls share one stream, as successive calls in one R session
    shared = RRandom(6)
    drawn = [resolve_source(rng=shared).runif(3) for _ in range(2)]
    np.testing.assert_array_equal(np.concatenate(drawn), RRandom(6).runif(6))


def test_options_of_the_resolver():
    assert resolve_source(None, None, optional=True) is None  # rng=None: nothing drawn
    assert isinstance(resolve_source(3, "numpy", optional=True), NumpySource)
    assert resolve_source(None, "R", seed_needed=False) is None
    assert isinstance(resolve_source(None, None, kinds=()), NumpySource)
    assert resolve_source(rng=RRandom(1), kinds=()).runif(1) == RRandom(1).runif(1)
    assert RNG_KINDS == ("numpy", "R", "R-rounding")


@pytest.mark.parametrize("kwargs, error, match", [
    (dict(rng="mt"), ValueError, "`rng` must be one of"),
    (dict(rng=42), ValueError, "`rng` must be one of"),
    (dict(rng=pd.NA), ValueError, "`rng` must be one of"),
    (dict(rng=np.random.RandomState(1)), ValueError, "`rng` must be one of"),
    (dict(rng="R", kinds=()), TypeError, "`rng` must be None, a numpy Generator"),
    (dict(rng=42, kinds=()), TypeError, "`rng` must be None, a numpy Generator"),
    (dict(seed=1.5), TypeError, "`seed` must be an integer >= 0"),
    (dict(seed="1"), TypeError, "`seed` must be an integer"),
    (dict(seed=True), TypeError, "`seed`"),
    (dict(seed=-1), ValueError, "`seed` must be an integer >= 0.*negative seeds are R's"),
    (dict(seed=RRandom(1)), TypeError, "`seed` must be"),
    (dict(seed="1", rng="R"), TypeError, "`seed` must be an integer with rng='R'"),
    (dict(seed=np.random.default_rng(1), rng="R"), TypeError, "`seed` must be an integer"),
    (dict(seed=2**31, rng="R-rounding"), ValueError, "`seed` must be a 32-bit"),
    (dict(rng="R"), TypeError, "`seed` is needed with rng='R'"),
    (dict(seed=1, rng=RRandom(1)), ValueError, "either `seed` or a random source in use"),
    (dict(seed=1, rng=np.random.default_rng(1)), ValueError, "`seed`.*not both"),
    (dict(seed=1, rng=None, optional=True), ValueError, "`seed` needs `rng`"),
    (dict(seed=-1, seed_name="random_state"), ValueError,
     "`random_state` must be None, an integer seed >= 0"),
    (dict(rng="R", seed_name="random_state"), TypeError, "`random_state` is needed"),
])
def test_errors_name_the_argument(kwargs, error, match):
    with pytest.raises(error, match=match):
        resolve_source(**kwargs)


def test_check_seed_draws_nothing():
    legacy = np.random.RandomState(0)
    check_seed(legacy)
    assert legacy.randint(100) == np.random.RandomState(0).randint(100)
    check_seed(-3, "R")
    check_seed(None, "R")  # whether R's seed may be missing is the caller's to say
    with pytest.raises(TypeError, match="`random_state`"):
        check_seed("x", name="random_state")


# ---------------------------------------------- the deprecated bnc random_state
@pytest.fixture(scope="module")
def titanic():
    return pystagedtrees.datasets.titanic()


def test_random_state_in_bnc_warns_and_is_seed(titanic):
    with pytest.warns(FutureWarning, match="`random_state` is deprecated") as caught:
        old = bnc.tan_hc("Survived", titanic, k=3, random_state=4)
    assert caught[0].filename == __file__  # the warning points at the caller
    assert bnc.families(old) == bnc.families(bnc.tan_hc("Survived", titanic, k=3, seed=4))
    fitted = bnc.lp(old, titanic, smooth=1)
    with pytest.warns(FutureWarning):
        labels = bnc.predict(fitted, titanic, random_state=np.random.default_rng(2))
    assert labels.equals(bnc.predict(fitted, titanic, seed=np.random.default_rng(2)))
    with pytest.warns(FutureWarning):
        accuracy = bnc.cv(fitted, titanic, k=3, dag=False, random_state=5)
    assert accuracy == bnc.cv(fitted, titanic, k=3, dag=False, seed=5)


def test_random_state_in_bnc_takes_a_source_in_use_as_rng(titanic):
    with pytest.warns(FutureWarning):
        old = bnc.fssj("Survived", titanic, k=5, epsilon=0, random_state=bnc.RoundingDraws(0))
    new = bnc.fssj("Survived", titanic, k=5, epsilon=0, rng=bnc.RoundingDraws(0))
    assert bnc.families(old) == bnc.families(new)
    by_name = bnc.fssj("Survived", titanic, k=5, epsilon=0, rng="R-rounding", seed=0)
    assert bnc.families(by_name) == bnc.families(new)
    with pytest.warns(FutureWarning), pytest.raises(ValueError, match="give `seed` only"):
        bnc.tan_hc("Survived", titanic, k=3, seed=1, random_state=1)
    with pytest.warns(FutureWarning), pytest.raises(TypeError, match="`random_state`"):
        bnc.kdb("Survived", titanic, k=3, random_state="abc")


# -------------------------------------------- no generator dispatch outside rng
GENERATOR_TYPES = {"Generator", "RandomState", "SeedSequence", "BitGenerator", "RandomSource",
                   "NumpySource", "RRandom", "RRoundingRandom", "RoundingDraws"}


def _dispatches_on_generators(node):
    """Whether ``node`` is an isinstance/issubclass test naming a generator type."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id in ("isinstance", "issubclass") and len(node.args) == 2):
        return False
    names = {n.attr if isinstance(n, ast.Attribute) else getattr(n, "id", None)
             for n in ast.walk(node.args[1])}
    return bool(names & GENERATOR_TYPES)


def test_only_the_rng_package_tells_generators_apart():
    package = Path(pystagedtrees.__file__).parent
    offenders = [
        f"{path.relative_to(package)}:{node.lineno}"
        for path in sorted(package.rglob("*.py")) if "rng" not in path.relative_to(package).parts
        for node in ast.walk(ast.parse(path.read_text())) if _dispatches_on_generators(node)
    ]
    assert offenders == []


def test_the_dispatch_check_sees_a_dispatch():
    found = [_dispatches_on_generators(node) for node in ast.walk(ast.parse(
        "isinstance(x, np.random.Generator)\nisinstance(x, (RRandom, int))\nisinstance(x, int)"))]
    assert sum(found) == 2
