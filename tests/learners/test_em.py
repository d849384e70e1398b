"""sevt_fit_em and stages_em (R: sevt_fit_em.R, stages_em.R), get_path and copy_sevt."""
import numpy as np
import pandas as pd
import pytest

import pystagedtrees as st
from pystagedtrees.learners._em import impute


def _masked_titanic(seed, rate):
    data = st.datasets.titanic()
    return data.mask(np.random.default_rng(seed).random(data.shape) < rate)


# Recorded from R stagedtrees 2.3.0.9999 on _masked_titanic(seed, rate) written to CSV:
#   m0 <- full(d, lambda = lambda); logLik(sevt_fit_em(m0, chain_impute = chain));
#   e <- stages_em(m0, chain_impute = chain); logLik(e); e$em$iter; e$stages
# (the first imputation of these data has no tied levels, where R draws at random)
R_EM = {
    (1, 0.1, 1.0, False): (-4966.32378174731, -4975.55392607935, 3),
    (1, 0.1, 1.0, True): (-4969.32221205458, -4970.75232803197, 3),
    (3, 0.05, 0.5, False): (-5018.07232475435, -5024.52081542871, 3),
}
R_EM_STAGES = {
    (1, 0.1, 1.0, False): {
        "Sex": ["1", "2", "3", "4"],
        "Age": ["2", "2", "6", "6", "6", "6", "8", "8"],
        "Survived": ["4", "10", "4", "4", "4", "6", "4", "16", "10", "10", "12", "12",
                     "UNOBSERVED", "10", "UNOBSERVED", "16"],
    },
    (3, 0.05, 0.5, False): {
        "Sex": ["2", "2", "3", "4"],
        "Age": ["3", "8", "3", "5", "5", "5", "8", "8"],
        "Survived": ["4", "12", "UNOBSERVED", "4", "4", "6", "4", "16", "10", "10", "12", "12",
                     "UNOBSERVED", "10", "UNOBSERVED", "16"],
    },
}


@pytest.mark.parametrize("case", sorted(R_EM))
def test_em_equals_r(case):
    seed, rate, lambda_, chain = case
    fit_ll, em_ll, em_iter = R_EM[case]
    start = st.full(_masked_titanic(seed, rate), lambda_=lambda_)
    fitted = st.sevt_fit_em(start, chain_impute=chain)
    assert float(st.logLik(fitted)) == pytest.approx(fit_ll, rel=1e-12)
    learned = st.stages_em(start, chain_impute=chain)
    assert float(st.logLik(learned)) == pytest.approx(em_ll, rel=1e-12)
    assert learned.em == {"iter": em_iter}
    if case in R_EM_STAGES:
        assert learned.stages() == R_EM_STAGES[case]


# Recorded from R on _masked_titanic(2, 0.2), whose imputations tie (R draws):
#   set.seed(seed); logLik(sevt_fit_em(m0, chain_impute = chain)); the same seed for
#   stages_em(m0, ...) and stages_em(indep(d, lambda), incremental = TRUE, stages_alg = stages_fbhc)
R_EM_TIES = {
    (1.0, True, 1): (-4622.84109887163, -4621.99031116474, 3, -5192.85824557706),
    (1.0, False, 2): (-4624.40779336107, -4621.99031116474, 4, -5193.72484622894),
    (0.5, True, 3): (-4619.76724457635, -4621.17196457876, 3, -5191.49872138213),
}


@pytest.mark.parametrize("case", sorted(R_EM_TIES))
def test_em_replays_r_tie_draws(case):
    lambda_, chain, seed = case
    fit_ll, em_ll, em_iter, incremental_ll = R_EM_TIES[case]
    data = _masked_titanic(2, 0.2)
    start = st.full(data, lambda_=lambda_)
    fitted = st.sevt_fit_em(start, chain_impute=chain, rng="R", seed=seed)
    assert float(st.logLik(fitted)) == pytest.approx(fit_ll, rel=1e-12)
    learned = st.stages_em(start, chain_impute=chain, rng="R", seed=seed)
    assert float(st.logLik(learned)) == pytest.approx(em_ll, rel=1e-12)
    assert learned.em == {"iter": em_iter}
    incremental = st.stages_em(st.indep(data, lambda_=lambda_), incremental=True,
                               chain_impute=chain, stages_alg=st.stages_fbhc, rng="R", seed=seed)
    assert float(st.logLik(incremental)) == pytest.approx(incremental_ll, rel=1e-12)


def test_impute_fills_with_the_most_probable_level():
    data = _masked_titanic(2, 0.2)
    model = st.full(data, lambda_=1)
    filled = impute(data, model)
    observed = data.notna()
    for var in data.columns:  # observed values are kept
        assert (filled[var][observed[var]].astype(str) == data[var][observed[var]].astype(str)).all()
    assert not filled.isna().any().any()
    # each filled value maximises predict's probabilities given the original row
    rows = data[data["Age"].isna()]
    probs = st.predict(model, rows, class_="Age", prob=True)
    best = probs.to_numpy().max(axis=1)
    chosen = probs.to_numpy()[np.arange(len(rows)), filled.loc[rows.index, "Age"].cat.codes]
    assert np.array_equal(chosen, best)


def test_chain_impute_uses_the_values_already_filled():
    # P(A=x) = .6; B given x is p with .7, B given y is always q, so P(B=p) = .42:
    # alone, B is imputed q; after A = x it is imputed p.
    a = ["x"] * 60 + ["y"] * 40 + [None]
    b = ["p"] * 42 + ["q"] * 18 + ["q"] * 40 + [None]
    data = pd.DataFrame({"A": pd.Categorical(a, ["x", "y"]), "B": pd.Categorical(b, ["p", "q"])})
    model = st.full(data, lambda_=0)
    assert impute(data, model).iloc[-1].tolist() == ["x", "q"]
    assert impute(data, model, chain_impute=True).iloc[-1].tolist() == ["x", "p"]


def test_sevt_fit_em_without_missing_values_is_a_refit():
    data = st.datasets.titanic()
    model = st.full(data, lambda_=1)
    refit = st.sevt_fit_em(model, max_iter=2)
    assert float(st.logLik(refit)) == pytest.approx(float(model.ll), rel=1e-13)
    assert refit.fit_em == {"iter": 2}


def test_stages_em_keeps_the_raw_data_and_is_a_valid_fit():
    data = _masked_titanic(4, 0.15)
    learned = st.stages_em(st.indep(data, lambda_=1), stages_alg=st.stages_fbhc,
                           incremental=True)
    pd.testing.assert_frame_equal(learned.data_raw, data)
    recomputed = st.logLik(st.sevt_fit(learned))
    assert float(st.logLik(learned)) == pytest.approx(float(recomputed), rel=1e-12)
    for per_stage in learned.stage_prob.values():
        for probs in per_stage.values():
            assert probs.sum() == pytest.approx(1.0)


def test_em_reads_integer_column_names_as_full_does():
    named = pd.DataFrame([["a", "x", "u"], ["b", "y", "v"], ["a", None, "u"], ["b", "x", "v"]])
    model = st.full(named, lambda_=1)  # variables "0", "1", "2"
    as_strings = named.set_axis(["0", "1", "2"], axis=1)
    expected = st.sevt_fit_em(st.full(as_strings, lambda_=1), data=as_strings)
    for got in (st.sevt_fit_em(model, data=named), st.sevt_fit_em(model)):
        assert got.stages() == expected.stages()
        for v in got.variables:
            for stage, p in got.stage_prob[v].items():
                np.testing.assert_array_equal(p.to_numpy(),
                                              expected.stage_prob[v][stage].to_numpy())
    assert st.stages_em(model, data=named).stages() == st.stages_em(
        st.full(as_strings, lambda_=1), data=as_strings).stages()


def test_em_checks_its_arguments():
    data = _masked_titanic(1, 0.1)
    model = st.full(data, lambda_=1)
    with pytest.raises(ValueError, match="max_iter"):
        st.sevt_fit_em(model, max_iter=0)
    with pytest.raises(TypeError, match="chain_impute"):
        st.sevt_fit_em(model, chain_impute="yes")
    with pytest.raises(TypeError, match="`data`"):
        st.stages_em(model, data=data.to_numpy())
    with pytest.raises(TypeError, match="stages_alg"):
        st.stages_em(model, stages_alg="bhc")
    with pytest.raises(ValueError, match="max_iter_em"):
        st.stages_em(model, max_iter_em=-1)
    with pytest.raises(ValueError, match="fit it first"):
        st.sevt_fit_em(st.sevt(data))
    table_model = st.full(st.datasets.titanic_table(), lambda_=1)
    with pytest.raises(ValueError, match="not a DataFrame of rows"):
        st.stages_em(table_model)


def test_stages_em_names_stages_alg_when_it_returns_no_model():
    model = st.full(_masked_titanic(1, 0.1), lambda_=1)
    with pytest.raises(TypeError, match="`stages_alg` must return a staged event tree"):
        st.stages_em(model, stages_alg=lambda m: 5)
    # an option stages_alg does not take is named before any imputation
    with pytest.raises(TypeError, match=r"options of `stages_alg` \('stages_bhc'\): .*'nope'"):
        st.stages_em(model, nope=1)
    with pytest.raises(TypeError, match="options of `stages_alg`"):
        st.stages_em(model, stages_alg=st.stages_hclust, max_iter=3)


@pytest.mark.parametrize("call", [st.sevt_fit_em, st.stages_em, st.predict])
def test_a_seed_without_rng_is_refused(call):
    # with rng=None ties go to the first level: the seed would be silently unused
    model = st.full(_masked_titanic(1, 0.1), lambda_=1)
    for seed in (1, "junk"):
        with pytest.raises(ValueError, match="`seed` needs `rng`"):
            call(model, seed=seed)


# -- get_path, copy_sevt ------------------------------------------------------------

def test_get_path_gives_back_the_stage_with_get_stage():
    model = st.stages_bhc(st.full(st.datasets.titanic_table()))
    for var in model.variables[1:]:
        labels = st.stages(model, var)
        for stage in dict.fromkeys(labels):
            paths = st.get_path(model, var, stage)
            assert paths.columns.tolist() == model.variables[: model.variables.index(var)]
            assert st.get_stage(model, paths) == [stage] * len(paths)
            assert paths.index.tolist() == [j for j, s in enumerate(labels) if s == stage]
    both = st.get_path(model, "Survived", ["4", "UNOBSERVED"])
    assert len(both) == st.stages(model, "Survived").count("4") + 2


def test_get_path_equals_r_on_titanic():
    # R: get_path(full(Titanic), "Sex", c("1", "3")) has rows 1 and 3: Class 1st, 3rd
    paths = st.get_path(st.full(st.datasets.titanic_table()), "Sex", ["1", "3"])
    assert paths.index.tolist() == [0, 2]
    assert paths["Class"].astype(str).tolist() == ["1st", "3rd"]


def test_get_path_checks_its_arguments():
    model = st.full(st.datasets.titanic_table())
    with pytest.raises(ValueError, match="root"):
        st.get_path(model, "Class", "1")
    with pytest.raises(ValueError, match="not a stage"):
        st.get_path(model, "Sex", "99")
    with pytest.raises(ValueError, match="variable of the model"):
        st.get_path(model, "Fare", "1")


@pytest.mark.parametrize("kwargs, error, match", [
    (dict(var="Sex", stage=1.5), TypeError, "`stage` must be a stage label"),
    (dict(var="Sex", stage=None), TypeError, "`stage` must be a stage label"),
    (dict(var="Sex", stage=[1.5]), TypeError, "`stage` must be a stage label"),
    (dict(var=pd.NA, stage="1"), TypeError, "`var` must be a variable name"),
    (dict(var=["Sex"], stage="1"), TypeError, "`var` must be a variable name"),
])
def test_get_path_names_a_bad_stage_or_var(kwargs, error, match):
    model = st.full(st.datasets.titanic_table())
    with pytest.raises(error, match=match):
        st.get_path(model, **kwargs)
    # labels may be integers, as R matches 1 to "1"
    assert st.get_path(model, "Sex", [1]).equals(st.get_path(model, "Sex", "1"))
    assert st.get_path(model, "Sex", 1).equals(st.get_path(model, "Sex", "1"))


def test_copy_sevt_keeps_the_structure_and_the_fields_asked_for():
    model = st.stages_bhc(st.full(st.datasets.titanic_table(), lambda_=1))
    bare = st.copy_sevt(model)
    assert bare.stages() == model.stages() and bare.tree == model.tree
    assert not bare.is_fitted and bare.ctables is None and bare.lambda_ is None
    assert bare.ll is None and bare.name_unobserved is None and not hasattr(bare, "score")
    kept = st.copy_sevt(model, ["lambda", "name_unobserved", "ctables", "score"])
    assert kept.lambda_ == 1 and kept.name_unobserved == ["UNOBSERVED"]
    assert kept.score["value"] == model.score["value"]
    refit = st.sevt_fit(kept)
    assert float(refit.ll) == pytest.approx(float(model.ll), rel=1e-13)
    with pytest.raises(ValueError, match="unknown field"):
        st.copy_sevt(model, "probabilities")


@pytest.mark.parametrize("make", [
    lambda d: st.full(d, lambda_=1),
    lambda d: st.indep(d, lambda_=1),
    lambda d: st.sevt_fit(st.full(d), data=d, lambda_=1),
    lambda d: st.search_best(d, alg=st.stages_bhc, lambda_=1),
    lambda d: st.stages_em(st.full(d, lambda_=1), d, max_iter_em=1),
])
def test_editing_the_data_afterwards_leaves_the_model_and_its_em_alone(make):
    data = st.datasets.titanic().astype(object)
    data.loc[::5, "Age"] = np.nan
    model = make(data)
    kept = model.data_raw.copy()
    em_before = float(st.logLik(st.sevt_fit_em(model)))
    data.loc[data.Sex == "Male", "Survived"] = "No"  # the user reuses their frame
    pd.testing.assert_frame_equal(model.data_raw, kept)
    assert float(st.logLik(st.sevt_fit_em(model))) == em_before
