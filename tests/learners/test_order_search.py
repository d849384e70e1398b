"""sevt_add, search_greedy and search_best (R: sevt_add.R, search_greedy.R, search_best.R)."""
import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from strategies import categorical_frames

import pystagedtrees as st
from pystagedtrees.rng import RRandom

TITANIC = st.datasets.titanic_table()


def _random_frame(n=200, p=4, seed=0, na=0.0):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({
        f"V{j}": pd.Categorical(rng.choice(["a", "b", "c"][: 2 + j % 2], n)) for j in range(p)
    })
    # a chain of dependences, so that orders score differently
    for j in range(1, p):
        copy = rng.random(n) < 0.6
        source = frame[f"V{j - 1}"].cat.codes.to_numpy() % len(frame[f"V{j}"].cat.categories)
        codes = np.where(copy, source, frame[f"V{j}"].cat.codes.to_numpy())
        frame[f"V{j}"] = pd.Categorical.from_codes(codes, frame[f"V{j}"].cat.categories)
    if na:
        frame = frame.mask(rng.random(frame.shape) < na)
    return frame


# -- sevt_add ---------------------------------------------------------------------

@pytest.mark.parametrize("lambda_", [0, 1])
@pytest.mark.parametrize("join_unobserved", [True, False])
@pytest.mark.parametrize("na", [0.0, 0.1])
def test_sevt_add_equals_the_full_model_of_the_longer_order(lambda_, join_unobserved, na):
    data = _random_frame(n=60, p=4, seed=3, na=na)
    order = ["V2", "V0", "V3"]
    model = st.full(data, order=order[:2], lambda_=lambda_, join_unobserved=join_unobserved)
    added = st.sevt_add(model, order[2], data, join_unobserved=join_unobserved)
    whole = st.full(data, order=order, lambda_=lambda_, join_unobserved=join_unobserved)
    assert added.variables == order
    assert added.stages() == whole.stages()
    assert float(added.ll) == pytest.approx(float(whole.ll), rel=1e-12)
    assert (added.ll.df, added.ll.nobs) == (whole.ll.df, whole.ll.nobs)
    assert float(added.ll) == pytest.approx(float(st.logLik(st.sevt_fit(added))), rel=1e-12)
    for stage, probs in added.stage_prob[order[2]].items():
        assert np.allclose(probs, whole.stage_prob[order[2]][stage], equal_nan=True)
    assert model.variables == order[:2]  # the input is not changed


def test_sevt_add_lists_the_unobserved_stage_last_and_keeps_data_raw():
    # recorded from R: sevt_add(full(Titanic, order = c("Age", "Class")), "Survived", Titanic)
    model = st.full(TITANIC, order=["Age", "Class"])
    added = st.sevt_add(model, "Survived", TITANIC)
    assert added.stages()["Survived"] == ["1", "2", "3", "UNOBSERVED", "5", "6", "7", "8"]
    assert list(added.stage_prob["Survived"]) == ["1", "2", "3", "5", "6", "7", "8", "UNOBSERVED"]
    assert round(float(added.ll), 8) == -4439.88269967 and added.ll.df == 15
    pd.testing.assert_series_equal(added.data_raw, model.data_raw)  # R keeps the model's
    assert added.name_unobserved == ["UNOBSERVED"]


def test_sevt_add_reads_the_new_levels_from_the_data():
    data = pd.DataFrame({"A": ["x", "y", "x"], "B": ["p", "p", "q"], "C": ["3", "1", "2"]})
    added = st.sevt_add(st.full(data[["A", "B"]], lambda_=1), "C", data)
    assert added.tree["C"] == ["1", "2", "3"]
    assert np.allclose([sum(p) for p in added.stage_prob["C"].values()], 1)


def test_sevt_add_names_the_unobserved_stage_when_the_model_has_none():
    data = _random_frame(n=15, p=3, seed=1)
    model = st.full(data, order=["V0", "V1"], join_unobserved=False, lambda_=1)
    added = st.sevt_add(model, "V2", data)
    assert added.name_unobserved == ["UNOBSERVED"]
    whole = st.full(data, lambda_=1)
    assert added.stages()["V2"] == whole.stages()["V2"]


def test_sevt_add_checks_its_arguments():
    data = _random_frame(n=30, p=3)
    model = st.full(data, order=["V0", "V1"])
    with pytest.raises(ValueError, match="already a variable"):
        st.sevt_add(model, "V1", data)
    with pytest.raises(ValueError, match="`var` 'W' is not a variable of `data`"):
        st.sevt_add(model, "W", data)
    with pytest.raises(ValueError, match="`data` lacks variable"):  # a model variable missing
        st.sevt_add(model, "V2", data.drop(columns="V1"))
    with pytest.raises(TypeError, match="`var`"):
        st.sevt_add(model, 2, data)
    with pytest.raises(TypeError, match="join_unobserved"):
        st.sevt_add(model, "V2", data, join_unobserved="yes")
    with pytest.raises(ValueError, match="fit it"):
        st.sevt_add(st.sevt(data[["V0", "V1"]]), "V2", data)
    with pytest.raises(TypeError, match="Sevt"):
        st.sevt_add(data, "V2", data)
    bad = data.assign(V0=data["V0"].cat.rename_categories({"a": "z"}))
    with pytest.raises(ValueError, match="V0"):
        st.sevt_add(model, "V2", bad)


def test_sevt_add_refuses_a_variable_without_levels():
    # full() refuses it too; unchecked, sevt_add built a zero-level variable
    d = pd.DataFrame({"C": list("aabb"), "x": list("uvuv"), "y": [np.nan] * 4})
    with pytest.raises(ValueError, match="`data`: variable 'y' has no levels"):
        st.sevt_add(st.full(d[["C", "x"]], lambda_=1), "y", d)
    with pytest.raises(ValueError, match="`data`: variable 'y' has no levels"):
        st.full(d)


# -- search_greedy / search_best: R's results -------------------------------------

# Recorded from R stagedtrees 2.3.0.9999: search_*(Titanic, alg = ...)
R_TITANIC = {
    ("search_greedy", "stages_bhc"): (["Age", "Sex", "Survived", "Class"], 10487.55142536),
    ("search_best", "stages_bhc"): (["Class", "Survived", "Sex", "Age"], 10431.85208824),
    ("search_greedy", "stages_fbhc"): (["Age", "Sex", "Survived", "Class"], 10487.73720427),
    ("search_best", "stages_fbhc"): (["Class", "Survived", "Sex", "Age"], 10434.03343468),
    ("search_greedy", "stages_hclust"): (["Age", "Sex", "Survived", "Class"], 10493.71607468),
    ("search_best", "stages_hclust"): (["Class", "Sex", "Survived", "Age"], 10435.39059275),
}


@pytest.mark.parametrize("search, alg", sorted(R_TITANIC))
def test_searches_find_r_order_on_titanic(search, alg):
    model = getattr(st, search)(TITANIC, alg=getattr(st, alg))
    order, bic = R_TITANIC[(search, alg)]
    assert model.variables == order
    assert round(st.BIC(model), 8) == bic


def test_search_best_with_one_r_generator_replays_r_kmeans():
    # R: set.seed(1); search_best(Titanic, alg = stages_kmeans), and the same for greedy
    best = st.search_best(TITANIC, alg=st.stages_kmeans, rng=RRandom(1))
    assert best.variables == ["Class", "Sex", "Survived", "Age"]
    assert round(st.BIC(best), 8) == 10439.24901696
    greedy = st.search_greedy(TITANIC, alg=st.stages_kmeans, rng=RRandom(1))
    assert greedy.variables == ["Age", "Sex", "Survived", "Class"]
    assert round(st.BIC(greedy), 8) == 10876.10850272


# -- properties ---------------------------------------------------------------------

def _best_over_all_orders(data, alg, criterion):
    return min(
        criterion(alg(st.full(data, order=list(order))))
        for order in itertools.permutations(data.columns)
    )


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("criterion", [st.BIC, st.AIC])
def test_search_best_attains_the_best_order(seed, criterion):
    data = _random_frame(n=120, p=4, seed=seed, na=0.05 * (seed % 2))
    alg = st.stages_bhc
    score = "bic" if criterion is st.BIC else "aic"
    best = st.search_best(data, alg=alg, search_criterion=criterion, score=score)
    expected = _best_over_all_orders(data, lambda m: alg(m, score=score), criterion)
    assert criterion(best) == pytest.approx(expected, rel=1e-12)
    greedy = st.search_greedy(data, alg=alg, search_criterion=criterion, score=score)
    assert criterion(best) <= criterion(greedy) * (1 + 1e-12)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(categorical_frames(min_vars=2, max_vars=3, max_rows=25))
def test_searches_return_fitted_trees_on_all_variables(data):
    for search in (st.search_greedy, st.search_best):
        model = search(data, alg=st.stages_fbhc, lambda_=1)
        assert sorted(model.variables) == sorted(data.columns)
        refit = st.logLik(st.sevt_fit(model))
        assert float(model.ll) == pytest.approx(float(refit), rel=1e-9, abs=1e-9)
        for per_stage in model.stage_prob.values():
            for probs in per_stage.values():
                assert math.isclose(probs.sum(), 1.0, rel_tol=1e-12)


def test_search_passes_extra_arguments_to_alg():
    data = _random_frame(n=80, p=4, seed=2)

    def one_join(model, scope=None):
        return st.stages_bhc(model, scope=scope, max_iter=1)

    for search in (st.search_greedy, st.search_best):
        passed = search(data, alg=st.stages_bhc, max_iter=1)
        wrapped = search(data, alg=one_join)
        unlimited = search(data, alg=st.stages_bhc)
        assert passed.variables == wrapped.variables
        assert passed.stages() == wrapped.stages()
        assert st.BIC(unlimited) < st.BIC(passed)


def test_search_checks_its_arguments():
    data = _random_frame(n=30, p=3)
    with pytest.raises(TypeError, match="`alg`"):
        st.search_best(data, alg="bhc")
    with pytest.raises(TypeError, match="`search_criterion`"):
        st.search_greedy(data, search_criterion=3)
    with pytest.raises(TypeError, match="`scope`"):
        st.search_greedy(data, scope=["V1"])
    for search in (st.search_greedy, st.search_best):
        with pytest.raises(TypeError, match=r"`alg_args` must be options of `alg` \('stages_bhc'\)"
                                            ".*bogus"):
            search(data, bogus=1)
        with pytest.raises(TypeError, match="`alg_args` must be options of `alg`"):
            search(data, alg=lambda model: model)  # it must take the scope the search sets
    with pytest.raises(TypeError, match="must return a number"):
        st.search_greedy(data, search_criterion=lambda m: "low")
    with pytest.raises(ValueError, match="`search_criterion` returned NaN"):
        st.search_best(data, search_criterion=lambda m: float("nan"))
    with pytest.raises(ValueError, match="lambda_"):
        st.search_best(data, lambda_=-1)
    with pytest.raises(TypeError, match="join_unobserved"):
        st.search_best(data, join_unobserved=1.5)
    with pytest.raises(ValueError, match="at least two variables"):
        st.search_greedy(data[["V0"]])
    with pytest.raises(TypeError, match="DataFrame"):
        st.search_best(data.to_numpy())
    wide = _random_frame(n=30, p=21)
    with pytest.raises(ValueError, match="21 variables: search_best would make 22,020,096 "
                                         "learner calls.*at most 20 variables"):
        st.search_best(wide)


@pytest.mark.parametrize("search", ["search_greedy", "search_best"])
def test_search_names_alg_when_it_returns_no_model(search):
    with pytest.raises(TypeError, match="`alg` must return a staged event tree"):
        getattr(st, search)(_random_frame(n=30, p=3), alg=lambda m, scope=None: 5)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(categorical_frames(min_vars=3, max_vars=4, max_rows=30))
def test_sevt_add_matches_full_on_random_frames(data):
    order = list(data.columns)[::-1]
    model = st.full(data, order=order[:-1], lambda_=1)
    added = st.sevt_add(model, order[-1], data)
    whole = st.full(data, order=order, lambda_=1)
    assert added.stages() == whole.stages()
    assert float(added.ll) == pytest.approx(float(whole.ll), rel=1e-12, abs=1e-12)
    assert (added.ll.df, added.ll.nobs) == (whole.ll.df, whole.ll.nobs)
