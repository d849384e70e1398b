"""Live cross-checks against R's stagedtrees and bnclassify (through rpy2).

Skipped unless R has the packages (``install.packages(c("stagedtrees",
"bnclassify"))``; see compat/README.md).  R is the independent source of
every expected value here.
"""
import itertools
import json
import re

import numpy as np
import pandas as pd
import pytest

import pystagedtrees as st
import pystagedtrees.bnc as bnc
from pystagedtrees import compat

if not compat.r_available():
    pytest.skip("rpy2 or R is not installed", allow_module_level=True)

from strategies import small_gain_table  # noqa: E402

from pystagedtrees.compat import from_r, r_call, to_r  # noqa: E402
from pystagedtrees.compat._session import RRuntimeError, r_context, ro  # noqa: E402

needs_stagedtrees = pytest.mark.skipif(
    not compat.has_r_package("stagedtrees"),
    reason="R package stagedtrees not installed (in R: install.packages('stagedtrees'))",
)
needs_bnclassify = pytest.mark.skipif(
    not compat.has_r_package("bnclassify"),
    reason="R package bnclassify not installed (in R: install.packages('bnclassify'))",
)
# R timed its fast learners on these benchmark sets in well under a second
FAST_DATASETS = ["Asym", "Pokemon", "puffin"]


def training_data(name):
    if name == "Titanic_rows":
        data = st.datasets.titanic()
        return data[["Survived", "Class", "Sex", "Age"]], None
    return st.datasets.train_test(name)


def r_without_ll(robj):
    with r_context():
        return ro.r("function(x) { x$ll <- NULL; x }")(robj)


@needs_stagedtrees
def test_an_unobserved_name_that_is_r_na_converts_and_matches_no_stage():
    with r_context():
        r_model = ro.r("stagedtrees::full(as.table(Titanic), name_unobserved = NA_character_)")
    model = from_r(r_model)
    assert model.name_unobserved == [None]
    with r_context():
        assert model.stages("Survived") == list(ro.r("function(m) m$stages$Survived")(r_model))
    assert st.stages_bhc(model).stages() == from_r(r_call("stages_bhc", r_model,
                                                          convert_result=False)).stages()


@needs_stagedtrees
def test_paths_through_unreached_situations_have_probability_zero_as_in_r():
    # lambda 0: no row has V0 = "c", so V1's situation after it holds no
    # probabilities.  R's prob drops such paths from its sum (na.rm), which
    # gives 0 for a whole path too, whatever na0 says.
    data = pd.DataFrame({"V0": pd.Categorical(list("aabb"), categories=list("abc")),
                         "V1": list("xyxx"), "V2": list("pqqp")})
    r_model = r_call("full", data, lambda_=0, convert_result=False)
    model = st.full(data, lambda_=0)
    event = pd.DataFrame({"V0": ["a", "c", "b"], "V1": ["x", "x", None], "V2": ["p", "q", "q"]})
    for na0 in (True, False):
        expected = np.asarray(r_call("prob", r_model, event, na0=na0), dtype=float)
        np.testing.assert_allclose(st.prob(model, event, na0=na0), expected, rtol=1e-13)
        assert expected[1] == 0


@needs_stagedtrees
def test_na0_gives_probability_zero_where_r_gives_one():
    # Conditioning on an event of probability 0 leaves the result undefined.
    # R's na0 writes 0 on the log scale, so P(x | cond) = 1 for every x;
    # here it is 0, as R's documentation of na0 says (README, differences).
    data = pd.DataFrame({"V0": pd.Categorical(list("aabb"), categories=list("abc")),
                         "V1": list("xyxx")})
    r_model = r_call("full", data, lambda_=0, convert_result=False)
    model = st.full(data, lambda_=0)
    event = pd.DataFrame({"V1": ["x", "y"]})
    cond = {"V0": "c"}
    assert list(r_call("prob", r_model, event, conditional_on=cond)) == [1.0, 1.0]
    assert list(st.prob(model, event, conditional_on=cond)) == [0.0, 0.0]
    assert np.isnan(st.prob(model, event, conditional_on=cond, na0=False)).all()
    assert np.isnan(np.asarray(r_call("prob", r_model, event, conditional_on=cond, na0=False),
                               dtype=float)).all()


@needs_stagedtrees
@pytest.mark.parametrize("name", ["Titanic_rows"] + FAST_DATASETS)
def test_r_bhc_model_predicts_in_python_as_in_r(name):
    train, test = training_data(name)
    test = train if test is None else test
    class_var = train.columns[0]
    features = test.drop(columns=[class_var])
    r_model = r_call("stages_bhc", r_call("full", train, lambda_=1, convert_result=False),
                     convert_result=False)
    model = from_r(r_model)
    expected = np.asarray(r_call("predict", r_model, features, class_=class_var, prob=True))
    got = st.predict(model, features, class_=class_var, prob=True).to_numpy()
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-13)
    r_ll = r_call("logLik", r_model)
    assert (float(model.ll), model.ll.df, model.ll.nobs) == (float(r_ll), r_ll.df, r_ll.nobs)


R_NA_AS_NAN = """function(m) {
  m$prob <- lapply(m$prob, function(v) lapply(v, function(p) {
    a <- attributes(p); p[is.na(p)] <- NaN; attributes(p) <- a; p }))
  m
}"""


@needs_stagedtrees
@pytest.mark.parametrize("join_unobserved", [True, False])
@pytest.mark.parametrize("unused_class_level", [True, False])
def test_paths_through_unobserved_situations_predict_as_r_intends(join_unobserved,
                                                                    unused_class_level):
    # With lambda 0, R stores NA (not NaN) in situations no row reaches; its
    # predict sets NaN path probabilities to 0 but misses NA, so every row
    # where some class's path crosses such a situation comes back NA.  R's
    # predict on the same model with NaN in place of NA is the expected value.
    data = pd.DataFrame({
        "C": pd.Categorical(["a", "b", "a", "b", "a", "a", "b"],
                            categories=["a", "b"] + (["never"] if unused_class_level else [])),
        "X": ["u", "u", "v", "u", "u", "v", "u"],
        "Y": ["p", "q", "q", "p", "p", "q", "q"],
    })
    kw = dict(lambda_=0, join_unobserved=join_unobserved)
    r_model = r_call("full", data, convert_result=False, **kw)
    as_r_does = np.asarray(r_call("predict", r_model, data, prob=True), dtype=float)
    assert np.isnan(as_r_does).any(axis=1).sum() > 0
    with r_context():
        patched = ro.r(R_NA_AS_NAN)(r_model)
    expected = np.asarray(r_call("predict", patched, data, prob=True), dtype=float)
    got = st.predict(st.full(data, **kw), data, prob=True).to_numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-13)
    assert not np.isnan(got).any()


@needs_stagedtrees
def test_trailing_missing_values_are_summed_out_exactly():
    # Rows (a, x) never show V2, so with lambda 0 that situation holds NA.
    # R sums path probabilities over V2 and zeroes the NA terms (na0): 0.
    # V2 comes after every given variable, so it cannot change P(a, x):
    # R's answer for the event without the V2 column is the expected value.
    data = pd.DataFrame({"V0": list("aaaabbbb"), "V1": list("xxyyxyxy"),
                         "V2": [None, None, "p", "q", "p", "q", "q", "p"]})
    r_model = r_call("full", data, lambda_=0, convert_result=False)
    event = pd.DataFrame({"V0": ["a", "b"], "V1": ["x", "x"], "V2": [None, None]})
    assert list(r_call("prob", r_model, event)) == [0.0, pytest.approx(0.25)]
    expected = np.asarray(r_call("prob", r_model, event[["V0", "V1"]]), dtype=float)
    got = np.asarray(st.prob(st.full(data, lambda_=0), event), dtype=float)
    np.testing.assert_allclose(got, expected, rtol=1e-13)


@needs_stagedtrees
@pytest.mark.parametrize("name", ["Titanic_rows"] + FAST_DATASETS)
def test_python_model_is_valid_for_r_and_gets_r_loglik(name):
    train, test = training_data(name)
    test = train if test is None else test
    class_var = train.columns[0]
    model = st.stages_bhc(st.full(train, lambda_=1))
    robj = to_r(model)
    r_call("stagedtrees:::check_sevt_fit", robj)  # raises in R when invalid
    r_ll = r_call("logLik", r_without_ll(robj))  # R recomputes from ctables and prob
    np.testing.assert_allclose(float(r_ll), float(model.ll), rtol=1e-12)
    assert (r_ll.df, r_ll.nobs) == (model.ll.df, model.ll.nobs)
    np.testing.assert_allclose(r_call("BIC", r_without_ll(robj)), st.BIC(model), rtol=1e-12)
    features = test.drop(columns=[class_var])
    expected = np.asarray(r_call("predict", robj, features, class_=class_var, prob=True))
    got = st.predict(model, features, class_=class_var, prob=True).to_numpy()
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-13)


@needs_stagedtrees
def test_r_table_input_and_unobserved_stages():
    # R's own Titanic table, built in R: our table converter is not involved
    with r_context():
        r_model = ro.r("stagedtrees::stages_bhc(stagedtrees::full(datasets::Titanic))")
    model = from_r(r_model)
    python = st.stages_bhc(st.full(st.datasets.titanic_table()))
    assert model.stages() == python.stages()
    assert model.name_unobserved == python.name_unobserved == ["UNOBSERVED"]
    np.testing.assert_allclose(float(model.ll), float(python.ll), rtol=1e-12)


@needs_stagedtrees
def test_a_null_field_of_an_r_model_reads_as_absent():
    # R's stages_em leaves name_unobserved present but NULL
    with r_context():
        r_model = ro.r("function() { m <- stagedtrees::full(Titanic, lambda = 1); "
                       "m['name_unobserved'] <- list(NULL); m }")()
    model = from_r(r_model)
    assert model.name_unobserved is None
    assert model.stages() == st.full(st.datasets.titanic_table(), lambda_=1).stages()


@needs_bnclassify
def test_classifiers_both_ways():
    train, test = training_data("Asym")
    class_var = train.columns[0]
    python = bnc.lp(bnc.tan_cl(class_var, train), train, smooth=1)
    # Python's classifier predicted by R
    r_prob = r_call("predict", to_r(python), test, prob=True, convert_result=False)
    ours = bnc.predict(python, test, prob=True)
    assert list(r_call("colnames", r_prob)) == list(ours.columns)
    np.testing.assert_allclose(np.asarray(r_prob), ours, rtol=0, atol=1e-13)
    # R's classifier read back into Python
    r_model = r_call("bnclassify::lp", r_call("bnclassify::tan_cl", class_var, train,
                                              convert_result=False), train, smooth=1)
    assert r_model.families == python.families
    for v in python.params:
        np.testing.assert_allclose(r_model.params[v], python.params[v], rtol=0, atol=1e-15)
    np.testing.assert_allclose(r_call("logLik", to_r(python), train), bnc.logLik(python, train),
                               rtol=1e-12)


@needs_bnclassify
@pytest.mark.parametrize("name", ["Asym", "Pokemon"])
def test_wanbia_weights_a_tan_as_r(name):
    # R's optim and scipy run different L-BFGS-B versions and can stop at
    # different points (README); on these data they agree
    train, test = training_data(name)
    class_var = train.columns[0]
    python = bnc.lp(bnc.tan_cl(class_var, train), train, smooth=1, wanbia=True)
    r_model = r_call("bnclassify::lp", r_call("bnclassify::tan_cl", class_var, train,
                                              convert_result=False),
                     train, smooth=1, wanbia=True, convert_result=False)
    np.testing.assert_allclose(np.asarray(r_call("predict", r_model, test, prob=True)),
                               bnc.predict(python, test, prob=True), rtol=0, atol=1e-6)


@needs_bnclassify
def test_predict_on_no_rows_as_r():
    train, _ = training_data("Asym")
    class_var = train.columns[0]
    python = bnc.lp(bnc.nb(class_var, train), train, smooth=1)
    r_prob = np.asarray(r_call("predict", to_r(python), train.head(0), prob=True))
    assert r_prob.shape == bnc.predict(python, train.head(0), prob=True).shape
    assert len(r_call("predict", to_r(python), train.head(0))) == 0 == len(
        bnc.predict(python, train.head(0)))


@needs_stagedtrees
@needs_bnclassify
def test_crosscheck_matches_on_titanic_and_flags_a_difference(capsys, monkeypatch):
    from compat import crosscheck

    titanic = ["--dataset", "Titanic"]
    assert crosscheck.main(titanic) == 0
    table = capsys.readouterr().out
    rows = [line.split()[:2] for line in table.splitlines()[2:]]
    assert [name for name, _ in rows] == crosscheck.ALL_CHECKS
    assert {status for _, status in rows} == {"match"}
    # a learner that returns its input differs from R's
    monkeypatch.setattr(crosscheck.st, "stages_fbhc", lambda model: model)
    assert crosscheck.main([*titanic, "--functions", "full,stages_fbhc"]) == 1
    out = capsys.readouterr().out
    assert re.search(r"^full\s+match", out, re.M)
    assert re.search(r"^stages_fbhc\s+differs\s.*stages of", out, re.M)
    # posteriors are also held against R's own predict, not only Python's on R's model
    predict = crosscheck.bnc.predict
    monkeypatch.setattr(crosscheck.bnc, "predict",
                        lambda *a, **k: np.sqrt(np.asarray(predict(*a, **k), dtype=float)))
    assert crosscheck.main([*titanic, "--functions", "bnc_nb"]) == 1
    assert re.search(r"^bnc_nb\s+differs\s.*R's predict", capsys.readouterr().out, re.M)
    monkeypatch.undo()
    # the counts R's refits read are compared too
    full = crosscheck.st.full

    def miscounted(*args, **kwargs):
        model = full(*args, **kwargs)
        n = len(model.variables)
        counts = [model.situation_counts(i) + (i == 2) for i in range(n)]
        model.set_counts([model.observed_situations(i) for i in range(n)], counts,
                         model.shared_data_raw)
        return model

    monkeypatch.setattr(crosscheck.st, "full", miscounted)
    assert crosscheck.main([*titanic, "--functions", "full"]) == 1
    assert re.search(r"^full\s+differs\s.*counts of", capsys.readouterr().out, re.M)
    monkeypatch.undo()
    # Python failing on R's result is no R failure
    monkeypatch.setattr(crosscheck.compat, "from_r",
                        lambda x: (_ for _ in ()).throw(ValueError("conversion bug")))
    assert crosscheck.main([*titanic, "--functions", "predict"]) == 1
    assert re.search(r"^predict\s+differs\s.*Python raised on R's result.*conversion bug",
                     capsys.readouterr().out, re.M)
    monkeypatch.undo()
    # the scores check computes the R models it scores, whatever the order of checks
    assert crosscheck.main([*titanic, "--functions", "logLik_BIC"]) == 0
    assert re.search(r"^logLik_BIC\s+match\s.*\(13 models\)", capsys.readouterr().out, re.M)


@needs_bnclassify
def test_r_call_errors_name_the_call_and_an_aode_is_not_read():
    with pytest.raises(RRuntimeError, match=r"^in R's base::log\(\): .*non-numeric"):
        r_call("base::log", "a")
    with r_context():
        model = ro.r("local({ d <- data.frame(c = factor(c('a', 'b', 'a')), "
                     "x = factor(c('u', 'v', 'v')), y = factor(c('p', 'p', 'q'))); "
                     "bnclassify::lp(bnclassify::aode('c', d), d, smooth = 1) })")
    with pytest.raises(TypeError, match="AODE ensemble"):
        from_r(model)


@needs_stagedtrees
@needs_bnclassify
def test_recorder_reproduces_the_repository_reference(tmp_path):
    from compat import record, reference

    main, wrappers = record.record_shipped("Titanic", wrappers=True)
    record.write_json(main, tmp_path / "Titanic.json")
    record.write_json(wrappers, tmp_path / "wrappers" / "Titanic.json")

    def without_timings(recorded):
        text = json.dumps({k: v for k, v in record.json_ready(recorded).items() if k != "commands"},
                          separators=(",", ":"))
        return re.sub(r'"seconds":[^,}]*', '"seconds":0', text)

    # what the repository holds is what R gives now, except the timings
    assert without_timings(record.read_json(tmp_path / "Titanic.json")) == without_timings(
        reference.load_reference("Titanic"))
    assert without_timings(record.read_json(tmp_path / "wrappers" / "Titanic.json")) == \
        without_timings(reference.load_reference("Titanic", wrappers=True))


@needs_stagedtrees
@needs_bnclassify
def test_recorder_refuses_to_mix_versions(tmp_path, capsys):
    from compat import record, reference

    old = {**reference.load_reference("puffin"), "bnclassify_version": "0.4.7"}
    record.write_json(old, tmp_path / "puffin.json.gz")
    with pytest.raises(SystemExit) as stop:
        record.main(["--dataset", "puffin", "--keys", "nb", "--out", str(tmp_path)])
    assert stop.value.code == 2
    assert "recorded with other versions" in capsys.readouterr().err
    assert record.read_json(tmp_path / "puffin.json.gz") == record.json_ready(old)


@needs_stagedtrees
def test_recorder_refuses_levels_that_are_not_r_s(monkeypatch):
    from compat import record

    swapped = st.datasets.load("PhDArticles", benchmark=True)
    swapped["answer"] = swapped["answer"].cat.reorder_categories(["0", "1-2", ">2"])
    monkeypatch.setattr(st.datasets, "load", lambda name, benchmark=False: swapped)
    with pytest.raises(ValueError, match=r"R's read.csv sorts them \['>2', '0', '1-2'\]"):
        record.record_shipped("PhDArticles", keys=["nb"])


@needs_stagedtrees
def test_recorder_writes_r_errors_and_goes_on(tmp_path):
    # R's full/sevt_fit stop on a one-level column (bnclassify does not):
    # every staged tree entry, the wrappers' refinements included, records
    # R's error, and the classifiers still get their results
    from compat import record

    rng = np.random.default_rng(3)
    n = 80
    answer = rng.choice(["a", "b"], n)
    frame = pd.DataFrame({"answer": answer, "x": np.where(rng.random(n) < 0.8, answer, "c"),
                          "const": "k", "y": rng.choice(["u", "v"], n)})
    frame.to_csv(tmp_path / "one_level.csv", index=False)
    pd.DataFrame({"V1": np.arange(1, n + 1, 4)}).to_csv(tmp_path / "split.csv", index=False)
    main, wrappers = record.record(tmp_path / "one_level.csv", tmp_path / "split.csv", wrappers=True)
    assert all("error" in entry for entry in main["models"].values())
    assert not any("error" in entry for entry in main["bnc"].values())
    for entry in wrappers["learners"].values():
        assert "families" in entry and "error" in entry["refined"]


def _order_search_data(seed):
    rng = np.random.default_rng(seed)
    n = 300
    first = rng.choice(["a", "b", "c"], n)
    data = {"A": first,
            "B": np.where(rng.random(n) < 0.7, np.where(first == "a", "u", "v"), rng.choice(["u", "v"], n)),
            "C": rng.choice(["0", "1"], n),
            "D": np.where(rng.random(n) < 0.6, first, rng.choice(["a", "b", "c"], n))}
    frame = pd.DataFrame({v: pd.Categorical(x) for v, x in data.items()})
    return frame.mask(rng.random(frame.shape) < 0.05)


@needs_stagedtrees
@pytest.mark.parametrize("search", ["search_greedy", "search_best"])
@pytest.mark.parametrize("alg", ["stages_bhc", "stages_fbhc", "stages_hclust", "stages_bj"])
@pytest.mark.parametrize("lambda_, join_unobserved", [(0, True), (1, False)])
def test_order_searches_equal_r(search, alg, lambda_, join_unobserved):
    data = _order_search_data(seed=len(search) + len(alg))
    with r_context():
        r_alg = ro.r(f"stagedtrees::{alg}")
    expected = r_call(search, data, alg=r_alg, lambda_=lambda_, join_unobserved=join_unobserved)
    got = getattr(st, search)(data, alg=getattr(st, alg), lambda_=lambda_,
                             join_unobserved=join_unobserved)
    assert got.variables == expected.variables
    assert got.stages() == expected.stages()
    assert st.BIC(got) == pytest.approx(st.BIC(expected), rel=1e-12)


@needs_stagedtrees
def test_sevt_add_equals_r():
    data = _order_search_data(seed=1)
    start = r_call("full", data[["D", "B"]], lambda_=1, convert_result=False)
    expected = r_call("sevt_add", start, "A", data)
    got = st.sevt_add(st.full(data[["D", "B"]], lambda_=1), "A", data)
    assert got.stages() == expected.stages()
    assert list(got.stage_prob["A"]) == list(expected.stage_prob["A"])
    assert float(got.ll) == pytest.approx(float(r_call("logLik", expected)), rel=1e-13)
    assert st.sevt_varnames(got) == list(r_call("sevt_varnames", expected))
    assert st.sevt_nvar(got) == int(r_call("sevt_nvar", expected))
    for use_na in ("no", "always"):
        assert st.sevt_add(st.full(data[["D", "B"]], lambda_=1), "A", data,
                           useNA=use_na).stages() == \
            r_call("sevt_add", start, "A", data, useNA=use_na).stages()


@needs_stagedtrees
@pytest.mark.parametrize("use_na", ["ifany", "no", "always"])
def test_make_ctables_equal_r(use_na):
    # rows with missing values count up to their first gap, or not at all
    rng = np.random.default_rng(7)
    data = _small_random_frame(rng)
    data = data.mask(rng.random(data.shape) < 0.15)
    model = st.sevt(data)
    with r_context():
        expected = ro.r("""function(model, data, use_na) lapply(
            stagedtrees:::make_ctables(model, data, useNA = use_na), as.vector)""")(
            to_r(model), to_r(data), use_na)
    expected = from_r(expected)
    for v, table in st.make_ctables(model, data, useNA=use_na).items():
        # R's ftable is situations x levels, read column by column by as.vector
        np.testing.assert_array_equal(table.to_numpy().ravel(order="F"),
                                      np.asarray(expected[v], dtype=float))


@needs_stagedtrees
@pytest.mark.parametrize("chain_impute", [False, True])
def test_stages_em_equals_r_without_ties(chain_impute):
    # masked Titanic rows whose imputations have no tied levels (R draws among ties)
    data = st.datasets.titanic()
    data = data.mask(np.random.default_rng(1).random(data.shape) < 0.1)
    start = st.full(data, lambda_=1)
    r_start = r_call("full", data, lambda_=1, convert_result=False)
    expected = r_call("stages_em", r_start, chain_impute=chain_impute)
    got = st.stages_em(start, chain_impute=chain_impute)
    assert got.stages() == expected.stages()
    assert float(st.logLik(got)) == pytest.approx(float(r_call("logLik", expected)), rel=1e-12)
    fitted = r_call("sevt_fit_em", r_start, chain_impute=chain_impute)
    got_fit = st.sevt_fit_em(start, chain_impute=chain_impute)
    for var, per_stage in got_fit.stage_prob.items():
        for stage, probs in per_stage.items():
            np.testing.assert_allclose(probs, fitted.stage_prob[var][stage], rtol=1e-12)


@needs_stagedtrees
@pytest.mark.parametrize("seed", [11, 12])
def test_em_with_ties_replays_r_after_set_seed(seed):
    data = st.datasets.titanic()
    data = data.mask(np.random.default_rng(2).random(data.shape) < 0.2)  # imputations tie
    r_start = r_call("indep", data, lambda_=1, convert_result=False)
    with r_context():
        r_fbhc = ro.r("stagedtrees::stages_fbhc")
    compat.set_seed(seed)
    expected = r_call("stages_em", r_start, incremental=True, stages_alg=r_fbhc)
    got = st.stages_em(st.indep(data, lambda_=1), incremental=True, stages_alg=st.stages_fbhc,
                       rng="R", seed=seed)
    assert got.stages() == expected.stages()
    assert float(st.logLik(got)) == pytest.approx(float(r_call("logLik", expected)), rel=1e-12)


def _small_random_frame(rng):
    """2-4 categorical columns, a few NAs and sometimes an unused level: the corners."""
    n, p = int(rng.integers(8, 50)), int(rng.integers(2, 5))
    columns = {}
    for j in range(p):
        levels = [f"l{i}" for i in range(int(rng.integers(2, 4)))]
        values = rng.choice(levels, n, p=rng.dirichlet(np.full(len(levels), 0.7))).astype(object)
        if rng.random() < 0.4:
            values[rng.random(n) < 0.1] = None
        extra = ["unused"] if rng.random() < 0.2 else []
        columns[f"V{j}"] = pd.Categorical(values, categories=levels + extra)
    return pd.DataFrame(columns)


@needs_stagedtrees
@pytest.mark.parametrize("seed", range(10))
def test_cid_matches_paths_by_level_name_as_r(seed):
    # the second tree has the levels in another order, and fewer (the first
    # has an extra one, unused), and another variable order: R compares the
    # paths by level name (and fails when the second tree has a level the
    # first lacks; here such paths match nothing)
    rng = np.random.default_rng(300 + seed)
    data = _small_random_frame(rng)
    other = data.copy()
    for v in data.columns:
        data[v] = data[v].cat.add_categories([f"extra_{v}"])
        other[v] = other[v].cat.reorder_categories(list(rng.permutation(other[v].cat.categories)))
    other = other[list(rng.permutation(other.columns))]
    a = st.stages_bhc(st.full(data, lambda_=1))
    b = st.stages_hclust(st.full(other, lambda_=1), k=2)
    got, expected = st.cid(a, b), r_call("cid", to_r(a), to_r(b))
    assert float(got["cid"]) == pytest.approx(float(expected["cid"]))
    for v, wrong in expected["wrong"].items():
        np.testing.assert_array_equal(got["wrong"][v], np.asarray(wrong, dtype=float))


DETERMINISTIC_LEARNERS = [("stages_bhc", {}), ("stages_fbhc", {}), ("stages_hc", {}),
                          ("stages_bj", {}), ("stages_simplebhc", {}), ("stages_csbhc", {})]


@needs_stagedtrees
@pytest.mark.parametrize("seed", range(6))
def test_random_small_frames_equal_r(seed):
    # A differential check over random corners (NAs, unused levels, lambda 0
    # and 1): every learner's stages and log-likelihood, R's random learners
    # replayed, and the probabilities predict and confint give.
    rng = np.random.default_rng(seed)
    data = _small_random_frame(rng)
    for lambda_ in (0, 1):
        model = st.full(data, lambda_=lambda_)
        r_model = r_call("full", data, lambda_=lambda_, convert_result=False)
        assert float(model.ll) == pytest.approx(float(r_call("logLik", r_model)), rel=1e-12)
        for name, args in DETERMINISTIC_LEARNERS:
            got, expected = getattr(st, name)(model, **args), r_call(name, r_model, **args)
            assert got.stages() == expected.stages(), (name, lambda_)
            assert float(got.ll) == pytest.approx(float(r_call("logLik", expected)), rel=1e-10)
        r_seed = int(rng.integers(1, 10**5))
        for name in ("stages_kmeans", "stages_bhcr"):
            compat.set_seed(r_seed)
            expected = r_call(name, r_model)
            assert getattr(st, name)(model, rng="R", seed=r_seed).stages() == expected.stages()
        learned = st.stages_bhc(model)
        r_learned = r_call("stages_bhc", r_model, convert_result=False)
        if lambda_ == 0:  # R's predict needs NaN where it stores NA (see above)
            with r_context():
                r_learned = ro.r(R_NA_AS_NAN)(r_learned)
        np.testing.assert_allclose(
            st.predict(learned, data, prob=True).to_numpy(),
            np.asarray(r_call("predict", r_learned, data, prob=True), dtype=float), rtol=1e-10)
        np.testing.assert_allclose(
            st.confint(learned, method="wilson").to_numpy(),
            np.asarray(r_call("confint", r_learned, method="wilson"), dtype=float),
            rtol=1e-9, equal_nan=True)


@needs_stagedtrees
def test_an_empty_level_name_crosses_the_bridge():
    # R cannot index p[""]; the bridge matches level names instead
    data = pd.DataFrame({"A": pd.Categorical(["", "x", "x", "", "x"], categories=["", "x"]),
                         "B": pd.Categorical(["p", "q", "", "p", ""], categories=["p", "q", ""])})
    model = st.full(data, lambda_=1)
    for back in (from_r(r_call("full", data, lambda_=1, convert_result=False)),
                 from_r(to_r(model))):
        for v in model.variables:
            np.testing.assert_allclose(back.stage_probabilities(model.variables.index(v)),
                                       model.stage_probabilities(model.variables.index(v)), rtol=1e-15)


@needs_stagedtrees
@pytest.mark.parametrize("seed", range(4))
def test_fresh_unobserved_labels_equal_r(seed):
    # name None: a fresh number per variable, not recorded in name_unobserved,
    # so the learners may join those stages, as in R
    rng = np.random.default_rng(70 + seed)
    data = _small_random_frame(rng)
    models = {
        "full": (st.full(data, lambda_=1, name_unobserved=None),
                 r_call("full", data, lambda_=1, name_unobserved=None, convert_result=False)),
        "indep": (st.indep(data, lambda_=1, name_unobserved=None),
                  r_call("indep", data, lambda_=1, name_unobserved=None, convert_result=False)),
    }
    unjoined = st.full(data, lambda_=1, join_unobserved=False)
    models["join_unobserved"] = (st.join_unobserved(unjoined, name=None), r_call(
        "join_unobserved", to_r(unjoined), name_=None, convert_result=False))
    for what, (got, expected) in models.items():
        assert got.name_unobserved is None and from_r(expected).name_unobserved is None, what
        assert got.stages() == from_r(expected).stages(), what
        assert st.stages_bhc(got).stages() == r_call("stages_bhc", expected).stages(), what


@needs_stagedtrees
@pytest.mark.parametrize("seed", range(4))
def test_learners_from_indep_with_missing_values_equal_r(seed):
    # indep's stored fit counts each variable's own values, while a refit
    # counts the tree's complete paths: R's learners score moves and joins
    # against the stored model, and keep its probabilities where they change
    # nothing.  Stages, log-likelihood and every stage's probabilities and n.
    rng = np.random.default_rng(300 + seed)
    n, levels = int(rng.integers(60, 150)), ["a", "b", "c"]
    codes = rng.integers(0, 3, size=(n, 4))
    codes[:, 1:] = np.where(rng.random((n, 3)) < 0.6, codes[:, :-1], codes[:, 1:])
    codes[rng.random(codes.shape) < 0.15] = -1
    data = pd.DataFrame({f"V{j}": pd.Categorical.from_codes(codes[:, j], levels) for j in range(4)})
    join_unobserved = bool(seed % 2)
    start = st.indep(data, lambda_=1, join_unobserved=join_unobserved)
    r_start = r_call("indep", data, lambda_=1, join_unobserved=join_unobserved, convert_result=False)
    hc, r_hc = st.stages_hc(start), r_call("stages_hc", r_start, convert_result=False)
    for name, args in [("stages_bhc", {}), ("stages_fbhc", {}), ("stages_hc", {}),
                       ("stages_bj", {"thr": 0.1}), ("stages_simplebhc", {})]:
        for model, r_model in ([(start, r_start)] if name == "stages_hc" else []) + [(hc, r_hc)]:
            got = getattr(st, name)(model, **args)
            expected = from_r(r_call(name, r_model, convert_result=False, **args))
            assert got.stages() == expected.stages(), name
            assert float(got.ll) == pytest.approx(float(expected.ll), rel=1e-10), name
            for var in data.columns:
                for label, prob in got.stage_prob[var].items():
                    np.testing.assert_allclose(prob, expected.stage_prob[var][label], rtol=1e-10)
                    assert prob.attrs["n"] == expected.stage_prob[var][label].attrs["n"]


@needs_stagedtrees
@pytest.mark.parametrize("seed", range(3))
def test_hill_climbing_names_new_stages_as_r_with_a_repeated_ignore(seed):
    # R names a new stage new_label(c(unique(stages), ignore)), counting
    # every element of ignore, repetitions included
    rng = np.random.default_rng(400 + seed)
    n = 80
    codes = rng.integers(0, 3, size=(n, 4))
    codes[:, 1:] = np.where(rng.random((n, 3)) < 0.7, codes[:, :-1], codes[:, 1:])
    codes[:, 2][codes[:, 1] == 2] = -1  # situations never reached: an unobserved stage
    data = pd.DataFrame({f"V{j}": pd.Categorical.from_codes(codes[:, j], ["a", "b", "c"])
                         for j in range(4)})
    start = st.full(data, lambda_=1)
    r_start = r_call("full", data, lambda_=1, convert_result=False)
    ignore = ["UNOBSERVED", "UNOBSERVED"]
    got = st.stages_hc(st.indep(data, lambda_=1), ignore=ignore)
    expected = r_call("stages_hc", r_call("indep", data, lambda_=1, convert_result=False),
                      ignore=ignore)
    assert got.stages() == expected.stages()
    got = st.stages_hc(start, ignore=ignore, score=lambda m: -st.BIC(m))
    assert got.stages() == r_call("stages_hc", r_start, ignore=ignore).stages()


@needs_stagedtrees
def test_hill_climbing_breaks_a_rounding_tie_as_r():
    from tie_cases import NEAR_TIE

    data = pd.DataFrame({v: pd.Categorical.from_codes([int(c) for c in codes],
                                                      [f"l{a}" for a in range(int(max(codes)) + 1)])
                         for v, codes in NEAR_TIE.items()})
    start = st.full(data, lambda_=1)
    for max_iter in (13, 100):
        expected = r_call("stages_hc", to_r(start), scope="X3", max_iter=max_iter)
        assert st.stages_hc(start, scope=["X3"], max_iter=max_iter).stages() == expected.stages()


@needs_bnclassify
@pytest.mark.parametrize("seed", range(3))
def test_random_frames_bnc_wrappers_replay_r(seed):
    # the greedy wrappers, cv and AWNB draw from R's stream: with the same
    # set.seed they must pick the same arcs, folds and bootstrap samples
    rng = np.random.default_rng(seed)
    n = 60
    classes = rng.choice(["a", "b", "c"], n)
    data = pd.DataFrame({"class": classes, **{
        f"V{j}": np.where(rng.random(n) < 0.6, classes, rng.choice(["a", "b", "c"], n))
        for j in range(4)}}).astype("category")
    r_seed = int(rng.integers(1, 10**5))
    for learner, args in [("tan_hc", {}), ("tan_hcsp", {}), ("kdb", {"kdbk": 2}),
                          ("fssj", {}), ("bsej", {})]:
        compat.set_seed(r_seed)
        expected = from_r(r_call(f"bnclassify::{learner}", "class", data, k=3, epsilon=0, **args,
                                 convert_result=False))
        got = getattr(bnc, learner)("class", data, k=3, epsilon=0, rng="R", seed=r_seed, **args)
        # parents in R's order: it fixes the axes of the CPTs
        assert bnc.families(got) == bnc.families(expected), learner
    fitted = bnc.lp(bnc.nb("class", data), data, smooth=1)
    compat.set_seed(r_seed)
    expected_cv = r_call("bnclassify::cv", to_r(fitted), data, k=5, dag=False)
    assert bnc.cv(fitted, data, k=5, dag=False, rng="R", seed=r_seed) == \
        pytest.approx(float(np.asarray(expected_cv).ravel()[0]), rel=1e-12)
    # bnclassify takes a bootstrap size above 1 too (more rows, with replacement)
    for trees, size in ((5, 0.5), (3, 2)):
        compat.set_seed(r_seed)
        r_awnb = r_call("bnclassify::lp",
                        r_call("bnclassify::nb", "class", data, convert_result=False), data,
                        smooth=1, awnb_trees=trees, awnb_bootstrap=size, convert_result=False)
        awnb = bnc.lp(bnc.nb("class", data), data, smooth=1, awnb_trees=trees,
                      awnb_bootstrap=size, rng="R", seed=r_seed)
        np.testing.assert_allclose(
            bnc.predict(awnb, data, prob=True),
            np.asarray(r_call("predict", r_awnb, data, prob=True), dtype=float), rtol=1e-10)
    # bnc(): the wrapper's draws, then AWNB's bootstrap samples, from one stream
    compat.set_seed(r_seed)
    r_both = r_call("bnclassify::bnc", "tan_hc", "class", data, smooth=1,
                    dag_args={"k": 3, "epsilon": 0}, awnb_trees=3, convert_result=False)
    both = bnc.bnc("tan_hc", "class", data, smooth=1, dag_args={"k": 3, "epsilon": 0},
                   awnb_trees=3, rng="R", seed=r_seed)
    np.testing.assert_allclose(
        bnc.predict(both, data, prob=True),
        np.asarray(r_call("predict", r_both, data, prob=True), dtype=float), rtol=1e-10)


@needs_stagedtrees
@pytest.mark.parametrize("seed", range(3))
def test_learner_options_equal_r(seed):
    # every distance, linkage and k-means algorithm R offers, on random data
    rng = np.random.default_rng(100 + seed)
    data = _small_random_frame(rng)
    data = pd.concat([data] * 3, ignore_index=True)  # enough rows for several stages
    model = st.full(data, lambda_=1)
    r_model = r_call("full", data, lambda_=1, convert_result=False)
    for distance in ("kullback", "totvar", "hellinger", "bhatt", "chandarw", "euclidean",
                     "manhattan", "reny"):
        got = st.stages_bj(model, distance=distance, thr=0.2)
        assert got.stages() == r_call("stages_bj", r_model, distance=distance, thr=0.2).stages()
    for distance, method in zip(
            ("totvar", "hellinger", "euclidean", "maximum", "manhattan", "canberra", "minkowski",
             "totvar"),
            ("ward.D", "single", "complete", "average", "mcquitty", "median", "centroid",
             "ward.D2")):
        got = st.stages_hclust(model, distance=distance, method=method, k=2)
        expected = r_call("stages_hclust", r_model, distance=distance, method=method, k=2)
        assert got.stages() == expected.stages(), (distance, method)
    r_seed = int(rng.integers(1, 10**5))
    for algorithm in ("Hartigan-Wong", "Lloyd", "Forgy", "MacQueen"):
        compat.set_seed(r_seed)
        expected = r_call("stages_kmeans", r_model, k=2, algorithm=algorithm, nstart=2)
        got = st.stages_kmeans(model, k=2, algorithm=algorithm, nstart=2, rng="R", seed=r_seed)
        assert got.stages() == expected.stages(), algorithm


@needs_stagedtrees
def test_stages_set_by_hand_equal_r():
    # the example of R's ?stages, assignment by assignment
    titanic = st.datasets.titanic_table()
    with r_context():
        ro.globalenv["titanic"] = to_r(titanic)
        expected = from_r(ro.r("""local({
          mod <- stagedtrees::full(titanic, lambda = 1)
          s <- stagedtrees::stages(mod)
          s["Survived", Class = "1st"] <- "C1"
          stagedtrees::stages(mod) <- s
          s <- stagedtrees::stages(mod)
          s["Survived", Class = "3rd"] <- s["Survived", Class = "2nd"]
          stagedtrees::stages(mod) <- s
          s <- stagedtrees::stages(mod)
          s["Age", Sex = "Female"] <- "S-female"
          s["Age", Sex = "Male"] <- "S-male"
          stagedtrees::stages(mod) <- s
          mod
        })"""))
    model = st.full(titanic, lambda_=1)
    model = st.set_stages(model, "Survived", "C1", context={"Class": "1st"})
    second = st.stages(model, "Survived", context={"Class": "2nd"})
    model = st.set_stages(model, "Survived", second, context={"Class": "3rd"})
    model = st.set_stages(model, "Age", "S-female", context={"Sex": "Female"})
    model = st.set_stages(model, "Age", "S-male", context={"Sex": "Male"})
    assert model.stages() == expected.stages()
    assert float(model.ll) == pytest.approx(float(expected.ll), rel=1e-13)


@needs_stagedtrees
@pytest.mark.parametrize("seed", range(6))
def test_topological_orders_equal_r(seed):
    # random DAGs written as R lists of parents, in a shuffled variable order
    rng = np.random.default_rng(seed)
    names = [f"V{j}" for j in range(int(rng.integers(2, 6)))]
    parents = {v: [u for u in names[:j] if rng.random() < 0.4] for j, v in enumerate(names)}
    listed = {v: parents[v] for v in rng.permutation(names)}
    r_list = "list(" + ", ".join(
        f"{v} = list(parents = c({', '.join(repr(p) for p in ps)}))" if ps else f"{v} = list()"
        for v, ps in listed.items()
    ) + ")"
    with r_context():
        first = list(ro.r(f"stagedtrees::topo_sort_parentslist({r_list})"))
        rows = ro.r(
            f"apply(stagedtrees::all_topo_sort({r_list}), 1, paste, collapse = ',')"
        )
    assert st.topo_sort_parentslist(listed) == first
    assert st.all_topo_sort(listed) == [row.split(",") for row in rows]


@needs_bnclassify
@pytest.mark.parametrize("seed", range(3))
def test_bnc_inspection_equals_r(seed):
    # cmi, the structure predicates and accessors, cLogLik, accuracy, and the
    # AWNB/MANB quantities, on the structures of several learners
    rng = np.random.default_rng(200 + seed)
    n = 50
    classes = rng.choice(["a", "b", "c"], n)
    data = pd.DataFrame({"class": classes, **{
        f"V{j}": np.where(rng.random(n) < 0.5, classes, rng.choice(["a", "b"], n))
        for j in range(4)}}).astype("category")
    holes = data.mask(rng.random(data.shape) < 0.1)
    for x, y, z in [("V0", "V1", None), ("V1", "V2", "class"), ("V3", "class", "V0")]:
        for unit in ("log", "log2", "log10"):
            expected = r_call("bnclassify::cmi", x, y, holes, z=z, unit=unit)
            expected = float(np.asarray(expected).ravel()[0])
            assert bnc.cmi(x, y, holes, z=z, unit=unit) == pytest.approx(expected, rel=1e-12,
                                                                         abs=1e-15)
    r_seed = int(rng.integers(1, 10**5))
    structures = [("nb", {}), ("tan_cl", {}), ("kdb", {"kdbk": 2, "k": 3}),
                  ("bsej", {"k": 3}), ("fssj", {"k": 3})]
    for learner, args in structures:
        compat.set_seed(r_seed)
        r_dag = r_call(f"bnclassify::{learner}", "class", data, **args, convert_result=False)
        dag = from_r(r_dag)
        for predicate in ("is_anb", "is_nb", "is_ode", "is_semi_naive"):
            expected = bool(np.asarray(r_call(f"bnclassify::{predicate}", r_dag)).ravel()[0])
            assert getattr(bnc, predicate)(dag) == expected, (learner, predicate)
        assert bnc.vars(dag) == list(np.asarray(r_call("bnclassify::vars", r_dag)))
        assert {f: list(fam) for f, fam in bnc.feature_families(dag).items()} == \
            {f: list(fam) for f, fam in r_call("bnclassify::feature_families", r_dag).items()}
        r_fit = r_call("bnclassify::lp", r_dag, data, smooth=1, convert_result=False)
        fit = bnc.lp(dag, data, smooth=1)
        assert bnc.cLogLik(fit, data) == pytest.approx(
            float(np.asarray(r_call("bnclassify::cLogLik", r_fit, data)).ravel()[0]), rel=1e-12)
        assert bnc.values(fit) == {v: list(levels) for v, levels in
                                   r_call("bnclassify::values", r_fit).items()}
        assert bnc.modelstring(fit) == r_call("bnclassify::modelstring", r_fit)
        assert bnc.class_var(fit) == r_call("bnclassify::class_var", r_fit)
        assert bnc.features(fit) == list(r_call("bnclassify::features", r_fit))
        for count in ("narcs", "nparams"):
            expected = np.asarray(r_call(f"bnclassify::{count}", r_fit)).ravel()[0]
            assert getattr(bnc, count)(fit) == expected, (learner, count)
        r_params = r_call("bnclassify::params", r_fit)
        assert list(bnc.params(fit)) == list(r_params)
        for v, cpt in bnc.params(fit).items():  # R's tables vary their first dimension fastest
            cpt = np.asarray(cpt)
            np.testing.assert_allclose(
                cpt, np.asarray(r_params[v]).reshape(cpt.shape, order="F"), rtol=1e-12)
        predicted = pd.Categorical(bnc.predict(fit, data, seed=0),
                                   categories=bnc.classes(fit))
        assert bnc.accuracy(predicted, data["class"]) == pytest.approx(
            float(np.asarray(r_call("bnclassify::accuracy", predicted, data["class"])).ravel()[0]))
    nb_dag = r_call("bnclassify::nb", "class", data, convert_result=False)
    r_manb = r_call("bnclassify::lp", nb_dag, data, smooth=1, manb_prior=0.3,
                    convert_result=False)
    expected = r_call("bnclassify::manb_arc_posterior", r_manb)
    got = bnc.manb_arc_posterior(bnc.lp(bnc.nb("class", data), data, smooth=1, manb_prior=0.3))
    assert list(got) == list(expected.index)
    np.testing.assert_allclose(list(got.values()), expected.to_numpy(), rtol=1e-10)
    compat.set_seed(r_seed)
    r_awnb = r_call("bnclassify::lp", nb_dag, data, smooth=1, awnb_trees=4, convert_result=False)
    with r_context():
        expected = dict(zip(*ro.r("function(m) { w <- bnclassify::awnb_weights(m); "
                                  "list(names(w), unname(w)) }")(r_awnb)))
    got = bnc.awnb_weights(bnc.lp(bnc.nb("class", data), data, smooth=1, awnb_trees=4,
                                  rng="R", seed=r_seed))
    assert list(got) == list(expected)
    np.testing.assert_allclose(list(got.values()), list(expected.values()), rtol=1e-12)


@needs_stagedtrees
@pytest.mark.skipif(not compat.has_r_package("clue"),
                    reason="R package clue not installed (R's hamming_stages needs it)")
@pytest.mark.parametrize("seed", range(4))
def test_hamming_distance_equals_r(seed):
    # the optimal matching's size is unique, whichever optimum each side finds
    rng = np.random.default_rng(300 + seed)
    data = _small_random_frame(rng)
    full = st.full(data, lambda_=1)
    models = [full, st.stages_bhc(full), st.stages_fbhc(full), st.indep(data, lambda_=1),
              st.random_sevt(full, q=0.5, seed=seed)]
    for a in models:
        for b in models:
            r_a, r_b = to_r(a), to_r(b)
            expected = float(np.asarray(r_call("hamming_stages", r_a, r_b)).ravel()[0])
            assert st.hamming_stages(a, b) == expected
            assert st.compare_stages(a, b, method="hamming") == bool(
                np.asarray(r_call("compare_stages", r_a, r_b, method="hamming")).ravel()[0])


def _same_frame_text(got, expected):
    """Equal cell by cell as text, and in the same row order."""
    return got.astype(str).to_numpy().tolist() == expected.astype(str).to_numpy().tolist()


@needs_stagedtrees
@pytest.mark.parametrize("seed", range(6))
def test_model_inspection_equals_r(seed):
    # summaries, comparisons, tests, paths and renamings of two learned
    # models on random data (NAs, unused levels, unobserved situations)
    rng = np.random.default_rng(200 + seed)
    data = pd.concat([_small_random_frame(rng)] * 2, ignore_index=True)
    full = st.full(data, lambda_=1)
    a, b = st.stages_bhc(full), st.stages_hclust(full, k=2)
    r_a, r_b = to_r(a), to_r(b)
    names = a.variables

    r_summary = r_call("summary", r_a)["stages.info"]
    for v, table in st.summary(a).tables.items():
        expected = r_summary[v]
        assert list(table.columns) == list(expected.columns)
        assert table["stage"].tolist() == expected["stage"].astype(str).tolist()
        np.testing.assert_allclose(table.iloc[:, 1:].to_numpy(float),
                                   expected.iloc[:, 1:].to_numpy(float), rtol=1e-12)

    with r_context():  # R names the columns after the deparsed arguments
        r_inclusions = from_r(ro.r("function(x, y) stagedtrees::inclusions_stages(x, y)")(r_a, r_b))
    for v, table in st.inclusions_stages(a, b).items():
        assert _same_frame_text(table, r_inclusions[v]), v
    for v in names[1:]:
        got, expected = st.ci_matrices(a, v), r_call("ci_matrices", r_a, v)
        assert list(got) == list(expected)
        assert all(_same_frame_text(got[u], expected[u]) for u in got), v

    got, expected = st.cid(a, b), r_call("cid", r_a, r_b)
    assert float(got["cid"]) == pytest.approx(float(expected["cid"]))
    for v, wrong in expected["wrong"].items():
        np.testing.assert_array_equal(got["wrong"][v], np.asarray(wrong, dtype=float))
    for v, diff in r_call("diff_stages", r_a, r_b).items():
        np.testing.assert_array_equal(st.diff_stages(a, b)[v], np.asarray(diff, dtype=float))
    for models in ((a, a, full), (b, full)):  # each nested in the next (or equal)
        np.testing.assert_allclose(st.lr_test(*models).to_numpy(float),
                                   r_call("lr_test", *map(to_r, models)).to_numpy(float),
                                   rtol=1e-10, equal_nan=True)
    for method, level in itertools.product(
            ("wald", "waldcc", "wilson", "goodman", "quesenberry-hurst"), (0.95, 0, 1)):
        got = st.confint(a, method=method, level=level)
        expected = r_call("confint", r_a, method=method, level=level)
        assert list(got.index) == list(expected.index), method
        assert list(got.columns) == list(expected.columns), (method, level)
        np.testing.assert_allclose(got.to_numpy(float), np.asarray(expected, dtype=float),
                                   rtol=1e-9, equal_nan=True)
    assert st.sevt_df(a) == np.asarray(r_call("sevt_df", r_a)).ravel()[0]

    first = a.tree[names[0]][0]
    assert st.subtree(a, [first]).stages() == r_call("subtree", r_a, [first]).stages()
    for path in itertools.product(a.tree[names[0]], a.tree[names[1]]):
        expected = np.asarray(r_call("get_stage", r_a, list(path))).ravel()[0]
        assert st.get_stage(a, list(path)) == expected, path
    last = names[-1]
    for stage in dict.fromkeys(st.stages(a, last)):
        assert _same_frame_text(st.get_path(a, last, stage),
                                r_call("get_path", r_a, last, stage)), stage
    with r_context():  # the order of R's prob lists, which the clusterings read
        r_prob_names = ro.r("function(m) lapply(m$prob, names)")
    for options in ({}, {"uniq": True}, {"uniq": True, "prefix": True}):
        got, expected = st.stndnaming(b, **options), r_call("stndnaming", r_b, convert_result=False,
                                                            **options)
        assert got.stages() == from_r(expected).stages(), options
        assert {v: list(p) for v, p in got.stage_prob.items()} == {
            v: np.atleast_1d(p).tolist() for v, p in from_r(r_prob_names(expected)).items()}, options
    renamed = st.stages(a, names[2])[0]
    got, expected = st.rename_stage(a, names[2], renamed, "new"), r_call(
        "rename_stage", r_a, names[2], renamed, "new", convert_result=False)
    assert got.stages() == from_r(expected).stages()
    assert list(got.stage_prob[names[2]]) == \
        np.atleast_1d(from_r(r_prob_names(expected))[names[2]]).tolist()
    got, expected = st.sevt_simplify(a), r_call("sevt_simplify", r_a)
    assert got.stages() == expected.stages()
    assert float(got.ll) == pytest.approx(float(st.logLik(expected)), rel=1e-12)
    np.testing.assert_allclose(
        np.asarray(st.potential_outcomes(a, last, names[1]), dtype=float),
        np.asarray(r_call("potential_outcomes", r_a, last, names[1]), dtype=float),
        rtol=1e-10)


@needs_stagedtrees
def test_backward_join_breaks_an_exact_distance_tie_as_r():
    from tie_cases import EXACT_TIE

    expected = r_call("stages_bj", r_call("full", EXACT_TIE, lambda_=1, convert_result=False),
                      distance="kullback", thr=0.05)
    got = st.stages_bj(st.full(EXACT_TIE, lambda_=1), distance="kullback", thr=0.05)
    assert got.stages() == expected.stages()


@needs_stagedtrees
def test_a_value_that_is_not_a_level_is_an_impossible_event_as_in_r():
    train = pd.DataFrame({"answer": list("ababab"), "x": list("pqppqq"), "y": list("uuvvuv")})
    model = st.full(train, lambda_=1)
    r_model = to_r(model)
    # R computes with such a value when it is a row's last observed one
    # (before that its stage lookup stops with an error)
    newdata = pd.DataFrame({"x": ["p", "r", None, "q"], "y": ["u", None, "v", "w"]})
    with pytest.warns(UserWarning) as warned:
        got = st.predict(model, newdata, prob=True)
    messages = sorted(str(w.message) for w in warned)
    assert len(messages) == 2
    assert re.search(r"column 'x' has value 'r' that is not a level.*no prediction", messages[0])
    assert re.search(r"column 'y' has value 'w' that is not a level.*no prediction", messages[1])
    expected = np.asarray(r_call("predict", r_model, newdata, prob=True), dtype=float)
    np.testing.assert_allclose(got.to_numpy(), expected, rtol=1e-12)
    assert np.isnan(expected[[1, 3]]).all() and not np.isnan(expected[[0, 2]]).any()
    events = pd.DataFrame({"x": ["p", "r", "q"]})
    with pytest.warns(UserWarning, match="probability 0"):
        got = st.prob(model, events)
    expected = np.asarray(r_call("prob", r_model, events), dtype=float)
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    assert expected[1] == 0


@needs_stagedtrees
def test_from_r_reads_probabilities_and_tables_by_level_name():
    # R's sevt_fit on character data stores prob and ctables in the data's
    # level order ("bad" first), not the tree's; R itself reads them by name
    with r_context():
        ro.r('model <- stagedtrees::sevt(list(X = c("good", "bad"), Y = c("high", "low"),'
             ' Z = c("u", "v")))'
             '; D <- data.frame(X = c("good", "good", "bad"), Y = c("high", "low", "low"),'
             ' Z = c("u", "v", "v")); m <- stagedtrees::sevt_fit(model, data = D, lambda = 1)')
        r_model = ro.r("m")
    converted = from_r(r_model)
    expected = float(np.ravel(r_call("prob", r_model, pd.DataFrame({"X": ["good"]})))[0])
    assert st.prob(converted, {"X": "good"}) == pytest.approx(expected)  # 0.6
    data = pd.DataFrame({"X": ["good", "good", "bad"], "Y": ["high", "low", "low"],
                         "Z": ["u", "v", "v"]})
    ours = st.sevt_fit(st.sevt(converted.tree), data=data, lambda_=1)
    for v in converted.variables:
        pd.testing.assert_frame_equal(converted.ctables[v], ours.ctables[v])
    # probabilities written by hand, without the attribute n (R's covid_patients example)
    with r_context():
        ro.r('h <- stagedtrees::sevt(list(A = c("a", "b"), B = c("x", "y")));'
             'h$prob <- list(A = list("NA" = c(a = .5, b = .5)), B = list("1" = c(y = .7, x = .3)))')
        hand = ro.r("h")
    expected = float(np.ravel(r_call("prob", hand, pd.DataFrame({"A": ["a"], "B": ["x"]})))[0])
    assert st.prob(from_r(hand), {"A": "a", "B": "x"}) == pytest.approx(expected)  # 0.15
    with r_context():
        ro.r('h$prob$B[["1"]] <- c(p = .3, q = .7)')
        misnamed = ro.r("h")
    with pytest.raises(ValueError, match="named otherwise than its levels"):
        from_r(misnamed)


@needs_stagedtrees
def test_prob_recycles_a_single_row_against_the_other_side_as_r():
    model = st.full(st.datasets.titanic(), lambda_=1)
    r_model = to_r(model)
    conditions = pd.DataFrame({"Class": ["1st", "3rd", "Crew"]})
    for x in ({"Survived": "Yes"}, pd.DataFrame({"Survived": ["Yes"]})):
        got = st.prob(model, x, conditional_on=conditions)
        expected = np.ravel(r_call("prob", r_model, pd.DataFrame({"Survived": ["Yes"]}),
                                   conditional_on=conditions))
        assert got.shape == (3,)
        np.testing.assert_allclose(got, expected, rtol=1e-12)


@needs_stagedtrees
def test_an_unnamed_list_of_levels_names_the_variables_as_r():
    from pystagedtrees.compat import set_seed

    levels = [["-1", "1"], ["a", "b", "c"], ["-1", "1"]]
    assert st.sevt(levels, full=True).tree == r_call("sevt", levels, full=True).tree
    set_seed(11)
    expected = from_r(r_call("random_sevt", levels, q=0.5, convert_result=False))
    got = st.random_sevt(levels, q=0.5, rng="R", seed=11)
    assert got.tree == expected.tree and got.stages() == expected.stages()
    for v in got.variables:
        for stage, p in got.stage_prob[v].items():
            np.testing.assert_allclose(p.to_numpy(), expected.stage_prob[v][stage].to_numpy())


@needs_stagedtrees
def test_aic_and_bic_of_several_models_are_r_tables():
    table = st.datasets.titanic_table()
    models = [st.indep(table), st.stages_bhc(st.full(table, lambda_=1)), st.full(table)]
    r_models = [to_r(m) for m in models]
    for got, expected in ((st.AIC(*models), r_call("AIC", *r_models)),
                          (st.AIC(*models, k=3.5), r_call("AIC", *r_models, k=3.5)),
                          (st.BIC(*models[:2]), r_call("BIC", *r_models[:2]))):
        assert list(got.columns) == list(expected.columns)
        np.testing.assert_allclose(got.to_numpy(float), expected.to_numpy(float), rtol=1e-12)
    # R names the rows after the calls' expressions: Python's names= stands for them
    with r_context():
        r_table = ro.r("function(m1, m2) AIC(m1, m2)")(*r_models[:2])
    assert st.AIC(*models[:2], names=["m1", "m2"]).index.tolist() == list(
        ro.r["rownames"](r_table))
    m1, m2 = models[:2]  # the same call in Python labels the rows alike
    assert st.AIC(m1, m2).index.tolist() == list(ro.r["rownames"](r_table))
    assert st.AIC(models[0], k=3.5) == pytest.approx(float(np.ravel(r_call("AIC", r_models[0],
                                                                         k=3.5))[0]))
    smaller = st.full(st.datasets.titanic().iloc[:500], lambda_=1)
    with pytest.warns(UserWarning, match="not all fitted to the same number of observations"):
        st.BIC(models[0], smaller)


R_DATA = {"Asym": "stagedtrees", "PhDArticles": "stagedtrees", "Pokemon": "stagedtrees",
          "covid_patients": "stagedtrees", "trajectories": "stagedtrees",
          "falls_long": "stagedtrees", "car": "bnclassify", "voting": "bnclassify"}


@needs_stagedtrees
@pytest.mark.parametrize("name", sorted(R_DATA))
def test_shipped_datasets_are_r_data(name):
    package = R_DATA[name]
    if not compat.has_r_package(package):
        pytest.skip(f"R package {package} is not installed (in R: install.packages('{package}'))")
    with r_context():
        r_data = ro.r(f'local({{ data("{name}", package = "{package}"); {name} }})')
    expected = from_r(r_data)
    ours = st.datasets.load(name)
    assert list(ours.columns) == list(expected.columns)
    for column in ours.columns:
        if isinstance(expected[column].dtype, pd.CategoricalDtype):
            assert list(ours[column].cat.categories) == list(expected[column].cat.categories)
        assert ours[column].astype(str).tolist() == expected[column].astype(str).tolist()
    # R's full() of voting's 17 columns takes minutes: the first 7 columns
    with r_context():
        r_data = ro.r("function(d) d[, seq_len(min(ncol(d), 7)), drop = FALSE]")(r_data)
    r_model = r_call("full", r_data, lambda_=1, convert_result=False)
    got = st.full(ours.iloc[:, :7], lambda_=1)
    assert got.tree == from_r(r_model).tree
    assert float(st.logLik(got)) == pytest.approx(float(np.ravel(r_call("logLik", r_model))[0]),
                                                  rel=1e-12)


def test_titanic_rows_are_r_s_table_expanded():
    with r_context():
        expanded = ro.r("local({ d <- as.data.frame(Titanic); "
                        "d[rep(seq_len(nrow(d)), d$Freq), 1:4] })")
    expected = from_r(expanded).reset_index(drop=True)
    pd.testing.assert_frame_equal(st.datasets.load("Titanic"), expected, check_categorical=True)


@needs_bnclassify
def test_bnc_loglik_carries_r_df_and_nobs_and_a_class_only_model_predicts_the_prior():
    data = st.datasets.titanic()
    model = bnc.lp(bnc.tan_cl("Survived", data), data, smooth=1)
    with r_context():
        ll_r = ro.r("function(m, d) { ll <- logLik(m, d); "
                    "c(ll, attr(ll, 'df'), attr(ll, 'nobs')) }")(to_r(model), to_r(data))
    ll = bnc.logLik(model, data)
    np.testing.assert_allclose([float(ll), ll.df, ll.nobs], np.asarray(ll_r), rtol=1e-12)
    only_class = bnc.lp(bnc.nb("Survived", data[["Survived"]]), data[["Survived"]], smooth=1)
    with r_context():  # R's data frame of 4 rows and no column
        no_columns = ro.r("function(d) d[, FALSE]")(to_r(data.iloc[:4]))
    expected = np.asarray(r_call("predict", to_r(only_class), no_columns, prob=True))
    np.testing.assert_allclose(bnc.predict(only_class, data.iloc[:4, []], prob=True), expected)


@needs_stagedtrees
def test_stages_hc_makes_moves_with_small_relative_gains_as_r():
    # R makes a move gaining 5e-5 on a BIC of 5.7e7; a tolerance of 1e-11 of
    # the score took it for a tie
    start = st.set_stages(st.full(small_gain_table(), lambda_=0), "B", ["1", "1", "2", "2"])
    expected = from_r(r_call("stages_hc", to_r(start), convert_result=False))
    got = st.stages_hc(start)
    assert got.stages() == expected.stages() == {"B": ["1", "1", "2", "1"]}
    assert float(st.BIC(got)) == pytest.approx(float(st.BIC(expected)), rel=1e-15)


# trace output of the learners: R's cli lines, word for word (R writes them
# to stderr; Rscript is run apart, as rpy2 does not hand cli's output back)
TRACE_CALLS = [
    ("stages_bhc(full(Titanic, lambda = 1), trace = 2)",
     lambda: st.stages_bhc(st.full(st.datasets.titanic_table(), lambda_=1), trace=2)),
    ("stages_bhc(full(Titanic, lambda = 1), trace = 2, score = function(x) -BIC(x))",
     lambda: st.stages_bhc(st.full(st.datasets.titanic_table(), lambda_=1), trace=2,
                           score=lambda m: -st.BIC(m))),
    ("stages_bhc(full(Titanic, lambda = 1), trace = 1, max_iter = 2)",
     lambda: st.stages_bhc(st.full(st.datasets.titanic_table(), lambda_=1), trace=1,
                           max_iter=2)),
    ("stages_fbhc(full(Titanic, lambda = 1), trace = 2)",
     lambda: st.stages_fbhc(st.full(st.datasets.titanic_table(), lambda_=1), trace=2)),
    ("stages_bj(full(Titanic, lambda = 1), thr = 0.3, trace = 2)",
     lambda: st.stages_bj(st.full(st.datasets.titanic_table(), lambda_=1), thr=0.3, trace=2)),
    ("stages_hc(indep(Titanic, lambda = 1), trace = 2)",
     lambda: st.stages_hc(st.indep(st.datasets.titanic_table(), lambda_=1), trace=2)),
    ("stages_hc(full(Titanic, lambda = 1), trace = 2, max_iter = 3)",
     lambda: st.stages_hc(st.full(st.datasets.titanic_table(), lambda_=1), trace=2,
                          max_iter=3)),
    ("stages_hc(indep(Titanic, lambda = 1), trace = 2, score = function(x) -BIC(x))",
     lambda: st.stages_hc(st.indep(st.datasets.titanic_table(), lambda_=1), trace=2,
                          score=lambda m: -st.BIC(m))),
    ("{set.seed(3); stages_bhcr(full(Titanic, lambda = 1), trace = 2, max_iter = 30)}",
     lambda: st.stages_bhcr(st.full(st.datasets.titanic_table(), lambda_=1), trace=2,
                            max_iter=30, rng="R", seed=3)),
]


@needs_stagedtrees
def test_learners_trace_as_r_does(tmp_path, capsys):
    import os
    import shutil
    import subprocess

    script = tmp_path / "trace.R"
    script.write_text("suppressMessages(library(stagedtrees))\n" + "".join(
        f'message("@@")\ninvisible({call})\n' for call, _ in TRACE_CALLS))
    done = subprocess.run([shutil.which("Rscript"), str(script)], capture_output=True, text=True,
                          timeout=300, env=os.environ)
    assert done.returncode == 0, done.stderr
    r_blocks = done.stderr.split("@@\n")[1:]
    for (call, ours), expected in zip(TRACE_CALLS, r_blocks, strict=True):
        capsys.readouterr()
        ours()
        assert capsys.readouterr().out == expected, call


@needs_stagedtrees
def test_parents_lists_convert_both_ways():
    model = st.stages_bhc(st.full(st.datasets.titanic_table(), lambda_=1))
    with r_context():
        r_list = ro.r("suppressWarnings(stagedtrees::as_parentslist(stagedtrees::stages_bhc("
                      "stagedtrees::full(Titanic, lambda = 1))))")
    ours = st.as_parentslist(model, silent=True)
    read = from_r(r_list)
    assert type(read).__name__ == "ParentsList"
    assert dict(read.items()) == dict(ours.items())
    assert r_call("identical", r_list, to_r(read)) is True
    # a hand-made list (one parent, no stages) works in R and comes back
    plain = st.parentslist({"A": [], "B": ["A"], "C": ["A", "B"]},
                           values={"A": ["a0", "a1"], "B": ["b0", "b1"], "C": ["c0", "c1"]})
    assert dict(from_r(to_r(plain)).items()) == dict(plain.items())
    tree = from_r(r_call("stagedtrees::as_sevt", plain, convert_result=False))
    assert tree.tree == st.as_sevt(plain).tree


@needs_stagedtrees
def test_r_trajectories_example_model_converts_and_draws_as_r():
    # R's own ?trajectories example (read from the installed package): hand-set
    # probabilities, NA for the stages no path reaches, no counts
    with r_context():
        ro.r('local({ code <- utils::example("trajectories", package = "stagedtrees", '
             'give.lines = TRUE); eval(parse(text = code), envir = globalenv()) })')
        r_model = ro.globalenv["model"]
        r_drawn = ro.r("stagedtrees::sample_from(model, 2000, seed = 1)")
    model = from_r(r_model)
    assert model.is_fitted
    undefined = [(v, s) for v in model.variables[1:] for s, p in model.stage_prob[v].items()
                 if p.isna().all()]
    assert sorted(undefined) == [("OUT", "UNOBS"), ("RSP", "childnoICU")]
    drawn = st.sample_from(model, 2000, rng="R", seed=1)
    pd.testing.assert_frame_equal(drawn.astype(str), from_r(r_drawn).astype(str))
