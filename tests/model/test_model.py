"""The staged tree object: construction, fitting, scores, stage operations."""
import itertools
import sys
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as hst
from strategies import categorical_frames

import pystagedtrees as st
import pystagedtrees.model._stagevec as stagevec
from pystagedtrees.fitting._scores import compute_loglik

SETTINGS = settings(max_examples=40, deadline=None)


@SETTINGS
@given(categorical_frames(), hst.sampled_from([0, 1, 2]), hst.booleans(), hst.booleans())
def test_stored_loglik_equals_recomputed(data, lambda_, use_full, join):
    # R's indep(join_unobserved = FALSE) fits margins, not the tables, when
    # data have missing values (see test_indep_without_join_uses_margins_as_r)
    assume(use_full or join or not data.isna().any().any())
    builder = st.full if use_full else st.indep
    model = builder(data, lambda_=lambda_, join_unobserved=join)
    recomputed = compute_loglik(model)
    np.testing.assert_allclose(float(model.ll), float(recomputed), rtol=1e-12)
    assert model.ll.df == recomputed.df and model.ll.nobs == recomputed.nobs


def test_an_unobserved_name_that_is_an_observed_stage_warns():
    data = pd.DataFrame({"A": list("aab"), "B": list("xyx"), "C": list("010")})
    with pytest.warns(UserWarning, match="'1' is the label of an observed stage of 'C'") as full:
        st.full(data, name_unobserved="1")
    with pytest.warns(UserWarning, match="'2' is the label of an observed stage of 'C'") as join:
        st.join_unobserved(st.full(data, join_unobserved=False), name="2")
    assert full[0].filename == join[0].filename == __file__  # the user's line
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        joined = st.full(data)  # again: its own stage already holds those situations
        st.join_unobserved(joined)
        st.full(data, name_unobserved="9")
        every_situation_seen = pd.DataFrame({"A": list("ab"), "B": list("xy")})
        st.indep(every_situation_seen, name_unobserved="1")
        st.join_unobserved(st.full(every_situation_seen, join_unobserved=False), name="1")


@SETTINGS
@given(categorical_frames(), hst.sampled_from([0, 1]), hst.sampled_from(["1", "2", "3", "U"]),
       hst.booleans())
@pytest.mark.filterwarnings("ignore:the unobserved situations' stage name")
def test_an_unobserved_name_that_is_a_stage_name_joins_that_stage(data, lambda_, name, use_full):
    # R: full(name_unobserved = "3") puts the unobserved situations in the
    # observed stage "3", exactly as join_unobserved(name = "3") does later
    builder = st.full if use_full else st.indep
    model = builder(data, lambda_=lambda_, name_unobserved=name)
    levels = [len(v) for v in model.tree.values()]
    # R's sevt_df: distinct stage names times (levels - 1)
    r_df = levels[0] - 1 + sum(
        len(set(s)) * (k - 1) for s, k in zip(model.stages().values(), levels[1:]))
    assert st.sevt_df(model) == r_df
    if use_full:
        later = st.join_unobserved(builder(data, lambda_=lambda_, join_unobserved=False),
                                   name=name)
        assert model.stages() == later.stages()
        assert model.ll.df == later.ll.df
        np.testing.assert_allclose(float(model.ll), float(later.ll), rtol=1e-12)


@SETTINGS
@given(categorical_frames())
def test_available_case_counts(data):
    # R counts a row for the variables before its first missing value
    model = st.full(data)
    complete_prefix = np.ones(len(data), dtype=bool)
    for v in model.variables:
        complete_prefix &= data[v].notna().to_numpy()
        assert model.ctables[v].to_numpy().sum() == complete_prefix.sum()


@SETTINGS
@given(categorical_frames(with_na=False), hst.integers(0, 2**32 - 1))
def test_row_order_does_not_matter(data, seed):
    shuffled = data.sample(frac=1.0, random_state=np.random.RandomState(seed % 2**32))
    a, b = st.full(data, lambda_=1), st.full(shuffled, lambda_=1)
    assert a.stages() == b.stages()
    np.testing.assert_allclose(float(a.ll), float(b.ll), rtol=1e-12)


@SETTINGS
@given(categorical_frames(), hst.data())
def test_joins_never_raise_loglik_and_update_incrementally(data, draw):
    model = st.full(data, lambda_=0)
    var = draw.draw(hst.sampled_from(model.variables[1:]))
    labels = sorted(set(model.stages(var)))
    if len(labels) < 2:
        return
    s1, s2 = draw.draw(hst.permutations(labels))[:2]
    joined = st.join_stages(model, var, s1, s2)
    assert float(joined.ll) <= float(model.ll) + 1e-9
    np.testing.assert_allclose(float(joined.ll), float(compute_loglik(joined)), rtol=1e-10, atol=1e-10)
    refit = st.sevt_fit(joined)
    np.testing.assert_allclose(float(joined.ll), float(refit.ll), rtol=1e-10, atol=1e-10)
    assert joined.ll.df == st.logLik(model).df - (len(model.tree[var]) - 1)


def test_table_and_rows_give_the_same_model():
    table = st.full(st.datasets.titanic_table(), lambda_=1)
    rows = st.full(st.datasets.titanic(), lambda_=1)
    assert table.stages() == rows.stages()
    np.testing.assert_allclose(float(table.ll), float(rows.ll), rtol=1e-12)


def test_titanic_values_from_the_r_spec():
    # stagedtrees-spec.md section 7 (base-R reimplementation, matching R's README)
    model = st.full(st.datasets.titanic_table())
    assert model.stages("Survived") == [str(i) for i in range(1, 13)] + ["UNOBSERVED", "14", "UNOBSERVED", "16"]
    np.testing.assert_allclose(float(model.ll), -5151.517117, atol=1e-6)
    assert model.ll.df == 30
    np.testing.assert_allclose(st.BIC(model), 10533.93425, atol=1e-5)
    indep = st.indep(st.datasets.titanic_table())
    np.testing.assert_allclose(float(indep.ll), -5773.348733, atol=1e-6)
    assert indep.ll.df == 7
    assert st.indep(st.datasets.titanic_table(), join_unobserved=False).ll.df == 6


@pytest.mark.parametrize("lambda_", [0, 1])
def test_sparse_storage_gives_the_same_model(monkeypatch, lambda_):
    dense = st.full(st.datasets.titanic(), lambda_=lambda_)
    monkeypatch.setattr(stagevec, "DENSE_MAX", 1)
    sparse = st.full(st.datasets.titanic(), lambda_=lambda_)
    assert not sparse.stage_vector(3).is_dense
    np.testing.assert_allclose(float(sparse.ll), float(dense.ll), rtol=1e-12)
    assert sparse.ll.df == dense.ll.df
    for i in range(4):
        assert sparse.stage_labels(i).tolist() == dense.stage_labels(i).tolist()
        np.testing.assert_array_equal(sparse.stage_probabilities(i), dense.stage_probabilities(i))
    rows = st.datasets.titanic().drop(columns="Class").iloc[:50]
    pd.testing.assert_frame_equal(
        st.predict(sparse, rows, class_="Class", prob=True),
        st.predict(dense, rows, class_="Class", prob=True),
    )
    assert st.stndnaming(sparse).stage_labels(3).tolist() == st.stndnaming(dense).stage_labels(3).tolist()


@pytest.mark.parametrize("learn", [lambda m: m, st.stages_bhc])
def test_compactly_stored_stages_are_written_out_for_the_functions_that_read_them(
        monkeypatch, learn):
    # comparisons, DAGs and CEGs read one stage per situation: a compact vector (up to
    # EXPAND_MAX situations) gives them the same answers as the dense one
    data = st.datasets.titanic()
    dense = learn(st.full(data, lambda_=1))
    indep = st.indep(data, lambda_=1)
    monkeypatch.setattr(stagevec, "DENSE_MAX", 1)
    sparse = learn(st.full(data, lambda_=1))
    assert not sparse.stage_vector(3).is_dense
    assert sparse.stages() == dense.stages()
    assert st.as_parentslist(sparse, silent=True).to_string() == st.as_parentslist(
        dense, silent=True).to_string()
    assert st.compare_stages(sparse, indep, method="stages") == st.compare_stages(
        dense, indep, method="stages")
    assert st.hamming_stages(indep, sparse) == st.hamming_stages(indep, dense)
    assert st.cid(indep, sparse)["cid"] == st.cid(indep, dense)["cid"]
    assert st.get_vertices(st.ceg(sparse)).equals(st.get_vertices(st.ceg(dense)))
    monkeypatch.setattr(stagevec, "EXPAND_MAX", 8)
    with pytest.raises(ValueError, match="more than the 8 this library expands"):
        st.stages(sparse)


def test_many_variables_stay_compact():
    rng = np.random.default_rng(1)
    data = pd.DataFrame({f"V{j}": rng.integers(0, 2, 500) for j in range(40)})
    model = st.full(data, lambda_=1)
    # one id per situation only while a variable is small; beyond, one per data row
    assert all(len(s.stage) <= max(stagevec.DENSE_MAX, 500) for s in map(model.stage_vector, range(40)))
    assert not model.stage_vector(39).is_dense
    np.testing.assert_allclose(float(model.ll), float(compute_loglik(model)), rtol=1e-12)
    with pytest.raises(ValueError, match="one per situation"):
        model.stages("V39")
    with pytest.raises(ValueError, match="one per situation"):
        st.full(data, join_unobserved=False)
    probs = st.predict(model, data.iloc[:20].drop(columns="V0"), prob=True)
    np.testing.assert_allclose(probs.sum(axis=1), 1.0)


def test_stage_operations_follow_r():
    # expectations from stagedtrees' own tests (spec section 5)
    model = st.full(st.datasets.titanic_table())
    assert st.join_stages(model, "Sex", "1", "2").stages("Sex") == ["1", "1", "3", "4"]
    assert st.rename_stage(model, "Sex", "2", "NEW").stages("Sex") == ["1", "NEW", "3", "4"]
    named = st.stndnaming(st.join_stages(model, "Age", "5", "1"), uniq=True)
    assert named.stages("Sex") == ["1", "2", "3", "4"]
    assert named.stages("Age") == ["5", "6", "7", "8", "5", "9", "10", "11"]
    assert st.stndnaming(model, prefix=True).stages("Sex") == ["Sex1", "Sex2", "Sex3", "Sex4"]
    assert st.get_stage(model, ["1st", "Female"]) == "2"
    assert model.stndnaming().stages() == st.stndnaming(model).stages()  # method form


def test_sevt_structure_and_df():
    tree = {"A": ["a", "b"], "B": ["1", "2", "3"], "C": ["x", "y"]}
    assert st.sevt(tree, full=True).stages("C") == [str(i) for i in range(1, 7)]
    assert st.sevt(tree).stages("C") == ["1"] * 6
    assert st.sevt_df(st.sevt({"A": ["0", "1"], "B": ["0", "1"]})) == 2


def test_nvar_and_varnames_follow_the_tree_order():
    model = st.full(st.datasets.titanic_table(), order=["Sex", "Class", "Survived", "Age"])
    assert st.sevt_varnames(model) == ["Sex", "Class", "Survived", "Age"] == list(model.tree)
    assert st.sevt_nvar(model) == 4 == model.sevt_nvar()
    with pytest.raises(TypeError, match="Sevt"):
        st.sevt_nvar({"A": ["0", "1"]})
    with pytest.raises(TypeError, match="Sevt"):
        st.sevt_varnames(None)


def test_partial_refit_matches_full_refit():
    model = st.full(st.datasets.titanic_table(), lambda_=1)
    joined = st.join_stages(model, "Age", "1", "2")
    with pytest.warns(UserWarning, match="ignored"):
        partial = st.sevt_fit(joined, scope=["Age"], lambda_=1)
    np.testing.assert_allclose(float(partial.ll), float(st.sevt_fit(joined).ll), rtol=1e-12)
    assert partial.lambda_ == 1


def test_scope_of_every_variable_is_a_complete_fit_with_the_data():
    # as R's sevt_fit: a scope equal to all variables refits from `data` and `lambda_`
    titanic = st.datasets.titanic()
    model = st.full(titanic, lambda_=1)
    half = titanic.iloc[: len(titanic) // 2]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scoped = st.sevt_fit(model, data=half, lambda_=2, scope=model.variables)
    plain = st.sevt_fit(model, data=half, lambda_=2)
    assert scoped.lambda_ == 2 and float(scoped.ll) == float(plain.ll)
    assert scoped.ll.nobs == len(half)


def test_summary_and_repr():
    model = st.full(st.datasets.titanic_table(), lambda_=1)
    text = repr(model)
    assert "Class[4] -> Sex[2] -> Age[2] -> Survived[2]" in text
    table = st.summary(model).tables["Survived"]
    assert table["npaths"].sum() == 16
    assert table["sample.size"].sum() == 2201
    # R's summary.sevt writes npaths = 0 for the root's stage
    assert st.summary(model).tables["Class"]["npaths"].tolist() == [0]
    # and prints lambda as R's print.summary.sevt does ("lambda:  1")
    assert "\nlambda: 1\n" in repr(st.summary(model))
    assert "\nlambda: 0.25\n" in repr(st.summary(st.full(st.datasets.titanic_table(),
                                                          lambda_=0.25)))


# -- bad input ---------------------------------------------------------------
def test_bad_input_errors():
    df = pd.DataFrame({"A": ["a", "b"], "B": ["x", "y"]})
    with pytest.raises(TypeError, match="non-categorical floats"):
        st.full(pd.DataFrame({"A": ["a", "b"], "X": [0.5, 1.5]}))
    with pytest.raises(ValueError, match="order"):
        st.full(df, order=["A", "Z"])
    with pytest.raises(ValueError, match="empty"):
        st.full(df.iloc[:0])
    with pytest.raises(ValueError, match="lambda_"):
        st.full(df, lambda_=-1)
    with pytest.raises(TypeError, match="lambda_"):
        st.full(df, lambda_="1")
    with pytest.raises(ValueError, match="at least two variables"):
        st.full(df[["A"]])
    with pytest.raises(TypeError, match="DataFrame"):
        st.full([[1, 2]])
    model = st.full(df, lambda_=1)
    with pytest.warns(UserWarning, match=r"column 'B' has value 'w'"):
        st.predict(model, pd.DataFrame({"B": ["w"]}))  # R's NA (test_inference)
    with pytest.raises(ValueError, match="class_"):
        st.predict(model, df, class_="Z")
    with pytest.raises(ValueError, match="not a stage"):
        st.join_stages(model, "B", "1", "9")
    with pytest.raises(TypeError, match="Sevt"):
        st.logLik("model")
    with pytest.raises(ValueError, match="data"):
        st.sevt_fit(st.sevt(df))
    for position, error in (("B", TypeError), (True, TypeError), (-1, ValueError),
                            (2, ValueError)):
        with pytest.raises(error, match="`only`"):
            model.copy(only=position)
    partial = model.copy(only=1)
    assert partial.stage_vector(1) is not model.stage_vector(1) and partial.stage_vector(0) is model.stage_vector(0)


@SETTINGS
@given(categorical_frames(), hst.sampled_from([0, 1]), hst.booleans(), hst.integers(1, 2))
def test_a_one_level_variable_changes_nothing_but_the_names(data, lambda_, join, where):
    # R's full/indep stop with an ftable error on a one-level column (README,
    # differences from R); here its outcome is certain: no parameters, no loglik
    with_constant = data.copy()
    with_constant.insert(min(where, data.shape[1]), "K", pd.Categorical(["k"] * len(data)))
    for model_of in (st.full, st.indep):
        plain = model_of(data, lambda_=lambda_, join_unobserved=join)
        model = model_of(with_constant, lambda_=lambda_, join_unobserved=join)
        np.testing.assert_allclose(float(model.ll), float(plain.ll), rtol=1e-12)
        assert (model.ll.df, model.ll.nobs) == (plain.ll.df, plain.ll.nobs)
        for p in model.stage_prob["K"].values():  # NaN: a stage no row reached, lambda 0
            assert p.tolist() == [1.0] or np.isnan(p).all()
    joined = st.stages_bhc(st.full(with_constant, lambda_=1), scope=["K"])
    assert len(set(st.stages(joined, "K")) - {"UNOBSERVED"}) <= 1


def test_indep_without_join_uses_margins_as_r():
    # R's indep.data.frame(join_unobserved = FALSE): each variable from its own
    # margin, nobs = nrow(data) (stagedtrees-spec.md, section 2)
    data = pd.DataFrame({"A": ["a", "b", None, "a"], "B": ["x", None, "y", "y"]})
    model = st.indep(data, join_unobserved=False, lambda_=0)
    np.testing.assert_allclose(model.stage_prob["B"]["1"].to_numpy(), [1 / 3, 2 / 3])
    assert model.ll.nobs == 4 and model.ll.df == 2
    expected = 2 * np.log(2 / 3) + np.log(1 / 3) + np.log(1 / 3) + 2 * np.log(2 / 3)
    np.testing.assert_allclose(float(model.ll), expected)
    # without missing values it is the ordinary fit
    complete = data.dropna()
    a = st.indep(complete, join_unobserved=False, lambda_=1)
    b = st.sevt_fit(st.sevt(complete), data=complete, lambda_=1)
    np.testing.assert_allclose(float(a.ll), float(b.ll), rtol=1e-12)


def test_indep_without_join_all_missing_column_gives_nan_quietly():
    # R 4.2.2, stagedtrees 2.3.0.9999: indep(df, lambda = 0,
    # join_unobserved = FALSE) gives prob$B$`1` = c(u = NaN, v = NaN) with
    # n = 0, and the log-likelihood of A alone
    data = pd.DataFrame({
        "A": pd.Categorical(["a", "b", "a"]),
        "B": pd.Categorical([None] * 3, categories=["u", "v"]),
    })
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = st.indep(data, join_unobserved=False, lambda_=0)
    assert model.stage_prob["B"]["1"].isna().all()
    assert model.stage_sizes(1).tolist() == [0.0]
    np.testing.assert_allclose(float(model.ll), 2 * np.log(2 / 3) + np.log(1 / 3))


def test_stages_set_by_hand_refit_from_the_counts():
    data = st.datasets.titanic()
    model = st.full(data, lambda_=1)
    changed = st.set_stages(model, "Survived", "C1", context={"Class": "1st"})
    assert st.stages(changed, "Survived", context={"Class": "1st"}) == ["C1"] * 4
    assert st.stages(changed, "Survived", context={"Class": "Crew"}) == \
        st.stages(model, "Survived", context={"Class": "Crew"})
    refit = st.sevt_fit(changed, data, lambda_=1)
    assert float(changed.ll) == pytest.approx(float(refit.ll), rel=1e-13)
    # one stage per variable is the independence model
    merged = model
    for var in model.variables[1:]:
        merged = st.set_stages(merged, var, "1")
    assert float(merged.ll) == pytest.approx(float(st.indep(data, lambda_=1).ll), rel=1e-13)
    assert st.set_stages(model, "Age", "1", fit=False).ll is None


def test_replacing_stages_drops_unused_ids_unless_told_all_are_used():
    model = st.full(st.datasets.titanic(), lambda_=1)
    n = model.stage_vector(1).n_situations
    vector = stagevec.StageVector(n, np.zeros(n, dtype=np.int32))  # id 1 unused
    labels = stagevec.StageLabels.from_strings(["a", "b"])
    checked, trusted = model.copy(), model.copy()
    checked.replace_stages(1, vector, labels)
    assert [checked.stage_labels(1)[j] for j in range(len(checked.stage_labels(1)))] == ["a"]
    # all_used=True takes the caller's word: nothing is looked at or dropped
    trusted.replace_stages(1, vector, labels, all_used=True)
    assert len(trusted.stage_labels(1)) == 2


def test_stage_context_selects_the_matching_paths():
    model = st.full(st.datasets.titanic_table())
    context = {"Class": ["2nd", "Crew"], "Age": "Adult"}
    labels = st.stages(model, "Survived")
    # R's situation order: every path of the earlier variables, the last fastest
    paths = itertools.product(*(model.tree[v] for v in model.variables[:3]))
    expected = [label for path, label in zip(paths, labels)
                if path[0] in context["Class"] and path[2] == "Adult"]
    assert st.stages(model, "Survived", context=context) == expected


def test_set_stages_errors():
    model = st.full(st.datasets.titanic_table(), lambda_=1)
    with pytest.raises(ValueError, match="root variable"):
        st.set_stages(model, "Class", "1")
    with pytest.raises(ValueError, match=r"`context` names \['Survived'\]"):
        st.set_stages(model, "Age", "1", context={"Survived": "Yes"})
    with pytest.raises(ValueError, match="`context` gives"):
        st.stages(model, "Age", context={"Sex": "Other"})
    with pytest.raises(TypeError, match="`context` must be a dict"):
        st.stages(model, "Age", context=["Sex"])
    with pytest.raises(ValueError, match="`value` must be one label or one per selected situation"):
        st.set_stages(model, "Age", ["1", "2"])
    # R: "`value` must be of type character" (a number could be meant as a position)
    for number in (1, np.int64(1), ["1", 2]):
        with pytest.raises(TypeError, match="`value` must be stage labels"):
            st.set_stages(model, "Age", number, context={"Class": "1st"})
    with pytest.raises(ValueError, match="give `var` too"):
        st.stages(model, context={"Sex": "Male"})


@settings(max_examples=30, deadline=None)
@given(categorical_frames(min_vars=2), hst.sampled_from([0, 1]), hst.data())
def test_stages_set_by_hand_keep_the_fit_consistent(data, lambda_, draw):
    model = st.full(data, lambda_=lambda_)
    var = draw.draw(hst.sampled_from(model.variables[1:]))
    i = model.variables.index(var)
    context = {}
    for v in model.variables[:i]:
        if draw.draw(hst.booleans()):
            context[v] = draw.draw(hst.sampled_from(model.tree[v]))
    labels = draw.draw(hst.sampled_from(["A", "B", "1"]))
    changed = st.set_stages(model, var, labels, context=context)
    assert set(st.stages(changed, var, context=context)) == {labels}
    refit = st.sevt_fit(changed, data, lambda_=lambda_)
    np.testing.assert_allclose(float(changed.ll), float(refit.ll), rtol=1e-12)
    for stage, prob in changed.stage_prob[var].items():
        np.testing.assert_allclose(prob, refit.stage_prob[var][stage], rtol=1e-12)


def test_make_ctables_counts_rows_up_to_their_first_gap_or_only_complete_rows():
    data = pd.DataFrame({"A": ["a", "b", None, "a", "b"], "B": ["x", None, "y", "y", "x"],
                         "C": ["u", "v", "v", None, "u"]})
    model = st.sevt(data)
    available = st.make_ctables(model, data)
    # "ifany": A counts 4 rows, B the 3 with A and B, C the 2 with all three
    assert [float(t.to_numpy().sum()) for t in available.values()] == [4.0, 3.0, 2.0]
    complete = st.make_ctables(model, data, useNA="no")
    for v, table in st.make_ctables(model, data.dropna()).items():
        np.testing.assert_array_equal(complete[v].to_numpy(), table.to_numpy())
    always = st.make_ctables(model, data, useNA="always")
    assert all(np.array_equal(always[v], available[v]) for v in available)
    with pytest.raises(ValueError, match="useNA"):
        st.make_ctables(model, data, useNA="sometimes")
    with pytest.raises(ValueError, match="useNA"):
        st.sevt_add(st.full(data[["A", "B"]]), "C", data, useNA="sometimes")


@settings(max_examples=30, deadline=None)
@given(categorical_frames(min_vars=2, max_vars=4))
def test_summary_rows_are_the_stages_in_use_by_first_situation(data):
    # R's summary.sevt: unique(stages[[v]]) in situation order, npaths = how
    # many situations each has, and the root's single stage with npaths 0
    model = st.stages_bhc(st.full(data, lambda_=1))
    tables = st.summary(model).tables
    root = tables[model.variables[0]]
    assert root["stage"].tolist() == ["1"] and root["npaths"].tolist() == [0]
    for v, stages in model.stages().items():
        in_order = list(dict.fromkeys(stages))
        assert tables[v]["stage"].tolist() == in_order
        assert tables[v]["npaths"].tolist() == [stages.count(s) for s in in_order]
        for row in tables[v].itertuples(index=False):
            probs = model.stage_prob[v][row.stage]
            np.testing.assert_allclose(np.asarray(row[3:], dtype=float), probs.to_numpy(),
                                       equal_nan=True)


def test_stndnaming_refuses_to_give_an_ignored_stage_name_to_another_stage():
    # R would label stages 1, 2, 2, 3 and merge two stages by name without
    # refitting (prob keeps one of them); here two stages would share "2"
    model = st.full(st.datasets.titanic_table(), lambda_=1)
    with pytest.raises(ValueError, match="would name two stages of 'Sex' '2'"):
        st.stndnaming(model, ignore=["2"])
    prefixed = st.stndnaming(model, prefix=True, ignore=["2"])
    assert prefixed.stages("Sex") == ["Sex1", "2", "Sex2", "Sex3"]


def test_join_stages_needs_two_distinct_stages():
    model = st.full(st.datasets.titanic_table(), lambda_=1)
    with pytest.raises(ValueError, match="`s1` and `s2` must be distinct stages"):
        st.join_stages(model, "Sex", "1", "1")


def test_confint_keeps_the_root_whatever_ignore_holds():
    # R: the root has no stage vector, so `ignore` never removes its rows
    model = st.full(st.datasets.titanic_table(), lambda_=1)
    ignored = st.confint(model, ignore=["1"])
    assert [r for r in ignored.index if r.endswith("|1")][:4] == [
        f"Class={c}|1" for c in model.tree["Class"]]
    assert not any(r.startswith("Sex=") and r.endswith("|1") for r in ignored.index)


def test_boolean_columns_have_r_logical_level_names():
    # R: levels(as.factor(c(TRUE, FALSE))) is "FALSE" "TRUE", read.csv's logicals too
    values = [True, False, True, True, False]
    data = pd.DataFrame({
        "plain": values,
        "nullable": pd.array([True, None, True, False, False], dtype="boolean"),
        "categorical": pd.Categorical(values),
        "objects": pd.Series([True, False, None, True, False], dtype=object),
    })
    model = st.full(data, lambda_=1)
    assert all(levels == ["FALSE", "TRUE"] for levels in model.tree.values())
    # Python booleans and R's names find the same levels
    assert st.prob(model, {"plain": True}) == st.prob(model, {"plain": "TRUE"})
    assert st.prob(model, {"objects": False}) == st.prob(model, {"objects": "FALSE"})
    probs = st.predict(model, data, class_="plain", prob=True)
    assert list(probs.columns) == ["FALSE", "TRUE"]


def test_an_unnamed_list_of_levels_names_the_variables_v1_v2():
    model = st.sevt([["a", "b"], ("x", "y", "z")], full=True)
    assert model.tree == {"V1": ["a", "b"], "V2": ["x", "y", "z"]}
    with pytest.warns(UserWarning, match="`order` is ignored"):
        assert st.sevt([["a", "b"], ["x", "y"]], order=["V2", "V1"]).variables == ["V1", "V2"]
    with pytest.raises(TypeError, match="a list of level lists"):
        st.sevt("ab")


def test_criteria_of_several_models_list_each_models_value():
    table = st.datasets.titanic_table()
    models = [st.indep(table), st.full(table, lambda_=1)]
    for criterion, args in ((st.AIC, {}), (st.AIC, {"k": 4}), (st.BIC, {})):
        together = criterion(*models, **args)
        assert together["df"].tolist() == [st.logLik(m).df for m in models]
        np.testing.assert_allclose(together.iloc[:, 1], [criterion(m, **args) for m in models])
    assert st.AIC(models[0], k=4) - st.AIC(models[0]) == pytest.approx(2 * 7)
    with pytest.raises(TypeError, match="`k`"):
        st.AIC(models[0], k="2")
    with pytest.raises(TypeError, match="Sevt"):
        st.BIC(models[0], "m2")


def test_criteria_tables_take_row_labels_for_the_calls_r_would_name():
    table = st.datasets.titanic_table()
    models = [st.indep(table), st.full(table, lambda_=1)]
    for criterion in (st.AIC, st.BIC):
        labelled = criterion(*models, names=("m1", "m2"))
        assert labelled.index.tolist() == ["m1", "m2"]
        pd.testing.assert_frame_equal(labelled.reset_index(drop=True), criterion(*models))
        assert models[0].AIC(models[1], names=["a", "b"]).index.tolist() == ["a", "b"]
        with pytest.raises(ValueError, match="`?names`? must give one row label per model"):
            criterion(*models, names=["m1"])
        with pytest.raises(ValueError, match="names"):
            criterion(models[0], names=["m1"])
        with pytest.raises(TypeError, match="names"):
            criterion(*models, names="m1")
        with pytest.raises(ValueError, match="names must be distinct"):
            criterion(*models, names=["m", "m"])


def test_criteria_tables_are_labelled_with_the_calls_expressions_as_in_r():
    # R: AIC(indep, full(Titanic, lambda = 1)) labels its rows "indep" and
    # "full(Titanic, lambda = 1)"; Python >= 3.11 can read the call back
    table = st.datasets.titanic_table()
    indep, full = st.indep(table), st.full(table, lambda_=1)
    reads_calls = sys.version_info >= (3, 11)
    assert st.AIC(indep, full).index.tolist() == (["indep", "full"] if reads_calls else [0, 1])
    labels = st.BIC(indep,
                    st.full( table , lambda_=1 )).index.tolist()  # noqa: E201, E202
    assert labels == (["indep", "st.full(table, lambda_=1)"] if reads_calls else [0, 1])
    assert indep.AIC(full, k=3).index.tolist() == (["indep", "full"] if reads_calls else [0, 1])
    # no expression to read, or the same one twice (R stops there): numbered rows
    assert st.AIC(*[indep, full]).index.tolist() == [0, 1]
    assert st.AIC(indep, indep).index.tolist() == [0, 1]
    assert [st.AIC(a, b).index.tolist() for a, b in [(indep, full)]] == [
        ["a", "b"] if reads_calls else [0, 1]]


def test_counts_whose_total_overflows_give_r_result_not_a_crash():
    # R (full(t, lambda = 0) on this table): logLik -Inf with df 7, NaN probabilities
    table = pd.Series(np.full(8, 1e308), index=pd.MultiIndex.from_product(
        [["a", "b"]] * 3, names=["A", "B", "C"]))
    with np.errstate(over="ignore"):
        ll = st.logLik(st.full(table, lambda_=0))
    assert float(ll) == -np.inf and ll.df == 7 and ll.nobs == np.inf


@pytest.mark.parametrize("args, error, match", [
    (("x", 3, 10), TypeError, "`value` must be a number"),
    ((True, 3, 10), TypeError, "`value` must be a number"),
    ((-1.0, float("inf"), 10), TypeError, "`df` must be an integer"),
    ((-1.0, -1, 10), ValueError, "`df` must be an integer >= 0"),
    ((-1.0, 3, -5), ValueError, "`nobs` must be a number >= 0 or inf"),
    ((-1.0, 3, float("nan")), ValueError, "`nobs`"),
    ((-1.0, 3, "10"), TypeError, "`nobs`"),
    ((-1.0, 3, True), TypeError, "`nobs`"),
])
def test_loglik_checks_its_parts(args, error, match):
    with pytest.raises(error, match=match):
        st.LogLik(*args)
    ll = st.LogLik(np.float64(-2.5), np.int64(3), 10.0)
    assert (float(ll), ll.df, ll.nobs, type(ll.nobs)) == (-2.5, 3, 10, int)


def test_loglik_of_weighted_counts_keeps_a_fractional_nobs():
    assert st.LogLik(-1.0, 3, 2.5).nobs == 2.5


def test_weighted_and_huge_tables_of_counts_are_fitted_as_r_fits_them():
    index = pd.MultiIndex.from_product([["a", "b"], ["x", "y"]], names=["A", "B"])
    # R: logLik(full(as.table(array(c(0.5, 0.25, 1, 1e-300), c(2, 2))))) is -1.672475 (df 3)
    weighted = st.full(pd.Series([0.5, 1.0, 0.25, 1e-300], index=index))
    ll = st.logLik(weighted)
    assert float(ll) == pytest.approx(-1.672475, abs=5e-7) and ll.df == 3 and ll.nobs == 1.75
    assert st.BIC(weighted) == pytest.approx(-2 * float(ll) + np.log(1.75) * 3)
    # a total past 2^64 is a Python int: BIC takes its log, as R does (1e300 counts;
    # R: BIC 1.109035e+301 before and after stages_bhc)
    huge = st.full(pd.Series([1e300, 1e300, 1e300, 1e300], index=index))
    assert st.BIC(huge) == pytest.approx(-2 * float(st.logLik(huge)) + np.log(4e300) * 3)
    assert st.stages_bhc(huge).stages() == {"B": ["2", "2"]}  # R: stages_bhc(full(t))$stages
    with pytest.raises(ValueError, match="past the largest float"):
        st.full(pd.Series([10 ** 400, 1, 1, 1], index=index))
    with pytest.raises(TypeError, match="must hold real numbers"):
        st.full(pd.Series([1 + 2j, 1, 1, 1], index=index))
    from fractions import Fraction
    assert st.logLik(st.full(pd.Series([Fraction(1, 2), 1, 1, 1], index=index))).nobs == 3.5


def test_stage_labels_that_are_long_numbers_stay_names():
    # labels are strings in R; a number past int64 is kept as a name, not an overflow
    model = st.full(st.datasets.titanic(), lambda_=1)
    big = "9" * 20
    renamed = st.rename_stage(model, "Survived", "4", big)
    assert st.stages(renamed, "Survived") == [big if s == "4" else s for s in st.stages(model, "Survived")]
    moved = st.set_stages(model, "Survived", big, context={"Class": "1st"})
    assert len(st.get_path(moved, "Survived", big)) == 4
    assert big in st.stages(st.full(st.datasets.titanic(), name_unobserved=big), "Survived")
    for edge in ("9" * 18, str(2 ** 63 - 1), str(2 ** 63)):  # int64 or not, either way
        assert edge in st.stages(st.rename_stage(model, "Survived", "4", edge), "Survived")


def test_numbered_labels_of_19_digits_are_found():
    # 63 binary variables: the last one's situations are numbered past 10^18,
    # and those labels must be looked up as the numbers they are stored as
    rng = np.random.default_rng(1)
    model = st.full(pd.DataFrame({f"v{i}": rng.choice(["0", "1"], 20) for i in range(63)}),
                    lambda_=1)
    long_labels = [s for s in model.stage_prob["v62"] if len(s) >= 19]
    assert long_labels
    renamed = st.rename_stage(model, "v62", long_labels[0], "X")
    assert "X" in renamed.stage_prob["v62"] and long_labels[0] not in renamed.stage_prob["v62"]
    joined = st.join_stages(model, "v62", long_labels[0], long_labels[-1])
    assert len(joined.stage_prob["v62"]) == len(model.stage_prob["v62"]) - 1


def test_a_table_of_counts_must_hold_numbers():
    table = st.datasets.titanic_table()
    for bad in (table.astype(str), table > 0, table.astype(object).where(table > 5, "x")):
        with pytest.raises(TypeError, match="`data`: a table of counts must hold real numbers"):
            st.full(bad)
    # numbers in any numeric or object dtype are counts
    expected = float(st.logLik(st.full(table)))
    for same in (table.astype(object), table.astype("Int64"), table.astype(np.float32)):
        assert float(st.logLik(st.full(same))) == pytest.approx(expected, rel=1e-12)


def test_lambda_is_checked_when_set_on_a_model():
    # refits read model.lambda_: a bad value gave NaN log-likelihoods or numpy's type errors
    model = st.full(st.datasets.titanic(), lambda_=1)
    with pytest.raises(ValueError, match="`lambda_` must be a non-negative number"):
        model.lambda_ = -1
    with pytest.raises(TypeError, match="`lambda_` must be a non-negative number"):
        model.lambda_ = "a"
    model.lambda_ = 0.5
    assert float(st.logLik(st.sevt_fit(model))) == pytest.approx(
        float(st.logLik(st.full(st.datasets.titanic(), lambda_=0.5))), rel=1e-12)


def _negative_aic(model):
    return -st.AIC(model)


def test_derived_models_share_nothing_a_user_can_edit():
    data = pd.DataFrame({"A": ["a", "b", None, "a", "b", "a"] * 5,
                         "B": ["x", "y", "x", None, "y", "y"] * 5})
    first = st.full(data, lambda_=1)
    learned = st.stages_bhc(first)
    imputed = st.sevt_fit_em(first).stage_prob["A"]["1"].to_numpy()
    # data_raw is read as a copy: editing it changes no model
    raw = learned.data_raw
    raw.loc[:, "A"] = "b"
    np.testing.assert_array_equal(st.sevt_fit_em(first).stage_prob["A"]["1"], imputed)
    pd.testing.assert_frame_equal(first.data_raw, learned.data_raw)
    # and assigning keeps a copy
    learned.data_raw = raw
    raw.loc[:, "B"] = "x"
    assert set(learned.data_raw["B"].dropna()) == {"x", "y"} and set(first.data_raw["A"].dropna()) == {"a", "b"}
    with pytest.raises(TypeError, match="data_raw"):
        learned.data_raw = [1, 2]
    # score, em and fit_em are each model's own
    renamed = st.stndnaming(learned)
    renamed.score["value"] = 0.0
    assert learned.score["value"] == pytest.approx(-st.BIC(learned))
    # the stored log-likelihood is immutable, as a float is
    assert renamed.ll == learned.ll
    with pytest.raises(AttributeError, match="immutable"):
        renamed.ll.df = 1
    with pytest.raises(AttributeError, match="immutable"):
        del renamed.ll.df
    # a summary holds a copy
    summary = st.summary(learned)
    assert summary.model is not learned and summary.model.stages() == learned.stages()


@pytest.mark.parametrize("score", ["aic", _negative_aic])
def test_models_learned_with_any_picklable_score_pickle(score):
    import pickle

    start = st.full(st.datasets.titanic(), lambda_=1)
    for learner in (st.stages_bhc, st.stages_fbhc, st.stages_csbhc, st.stages_simplebhc):
        model = learner(start, score=score)
        back = pickle.loads(pickle.dumps(model))
        assert back.stages() == model.stages()
        assert back.score["f"](back) == pytest.approx(model.score["value"])
        assert float(st.logLik(back)) == float(st.logLik(model))


def test_renamings_order_the_probabilities_as_r():
    # R: rename_stage sets prob[[new]] and drops prob[[stage]], so the stage
    # moves last; stndnaming assigns prob[new] <- prob[old], overwriting the
    # names already there in place and appending the others.
    model = st.full(st.datasets.titanic_table(), lambda_=1)
    assert list(st.rename_stage(model, "Survived", 2, "2").stage_prob["Survived"]) == \
        list(model.stage_prob["Survived"])  # no new name: nothing moves
    renamed = st.rename_stage(model, "Survived", "2", "z")
    order = list(model.stage_prob["Survived"])
    assert list(renamed.stage_prob["Survived"]) == [s for s in order if s != "2"] + ["z"]
    assert renamed.stage_prob["Survived"]["z"].equals(model.stage_prob["Survived"]["2"])
    learned = st.stages_bhc(model)
    standard = st.stndnaming(learned)
    for v in learned.variables[1:]:
        old = list(learned.stage_prob[v])
        first_seen = [s for s in dict.fromkeys(learned.stages(v)) if s not in learned.name_unobserved]
        new = [str(j + 1) for j in range(len(first_seen))]
        expected = [s for s in old if s in new or s not in first_seen] + [s for s in new if s not in old]
        assert list(standard.stage_prob[v]) == expected, v
        for before, after in zip(first_seen, new):
            assert standard.stage_prob[v][after].equals(learned.stage_prob[v][before])


def test_fresh_unobserved_labels_are_r_new_label_and_not_recorded():
    table = st.datasets.titanic_table()
    fresh = st.full(table, lambda_=1, name_unobserved=None)
    named = st.full(table, lambda_=1)
    n_situations = 16  # Class x Sex x Age before Survived
    assert fresh.name_unobserved is None
    assert fresh.stages("Survived") == [str(n_situations + 1) if s == "UNOBSERVED" else s
                                        for s in named.stages("Survived")]
    assert st.join_unobserved(st.full(table, lambda_=1, join_unobserved=False),
                              name=None).stages() == fresh.stages()
    assert set(st.indep(table, lambda_=1, name_unobserved=None).stages("Survived")) == {"1", "2"}
    # nothing to ignore: the learners may join the fresh stages with others
    def partition(model):
        return {v: [list(dict.fromkeys(s)).index(x) for x in s] for v, s in model.stages().items()}

    assert partition(st.stages_bhc(fresh)) == partition(st.stages_bhc(named, ignore=False))
    assert partition(st.stages_bhc(fresh)) != partition(st.stages_bhc(named))


def test_models_pickled_before_data_raw_ll_and_name_unobserved_were_properties_load():
    import pickle

    model = st.full(st.datasets.titanic(), lambda_=1, join_unobserved=True)
    state = dict(model.__dict__)
    for field in ("data_raw", "ll", "name_unobserved"):
        state[field] = state.pop("_" + field)  # the attribute's old name
    old = st.Sevt.__new__(st.Sevt)
    old.__setstate__(state)
    pd.testing.assert_frame_equal(old.data_raw, model.data_raw)
    assert old.ll == model.ll and old.ll.df == model.ll.df
    assert old.name_unobserved == model.name_unobserved == ["UNOBSERVED"]
    back = pickle.loads(pickle.dumps(model))
    pd.testing.assert_frame_equal(back.data_raw, model.data_raw)


def test_stndnaming_with_every_stage_of_a_variable_ignored_renames_nothing_there():
    # as R: stndnaming(indep(d), ignore = "1") leaves B's only stage as it is
    data = pd.DataFrame({"A": list("xyxy"), "B": list("pqqp")}).astype("category")
    model = st.indep(data, lambda_=1)
    assert st.stndnaming(model, ignore=["1"]).stages() == model.stages()
    holes = pd.DataFrame({"A": pd.Categorical([None] * 4, categories=["x", "y"]),
                          "B": pd.Categorical(list("pqqp")), "C": pd.Categorical(list("uvuv"))})
    full = st.full(holes, lambda_=1)  # every stage of B and C unobserved
    assert st.stndnaming(full).stages() == full.stages()
    assert st.compare_stages(full, full, method="naive")


def test_unobserved_names_and_loglik_assigned_by_hand_are_checked():
    data = pd.DataFrame({"A": list("xxyy"), "B": list("pqpp"), "C": list("uvvu")})
    model = st.full(data, lambda_=1)
    as_list = model.copy()
    as_list.name_unobserved = ["UNOBSERVED"]
    as_str = model.copy()
    as_str.name_unobserved = "UNOBSERVED"  # R's length-one character vector, not its letters
    assert as_str.name_unobserved == ["UNOBSERVED"]
    for learner in (st.stages_bhc, lambda m: st.stages_hclust(m, k=1)):
        assert learner(as_str).stages() == learner(as_list).stages()
    with pytest.raises(TypeError, match="`name_unobserved` must be a stage label"):
        model.name_unobserved = 2.5
    with pytest.raises(TypeError, match="`ll` must be a LogLik"):
        model.ll = -3.0
    model.ll = None
    assert model.ll is None


def test_a_context_on_a_wide_tree_is_refused_before_listing_its_situations():
    # numpy's meshgrid of 39 variables raised a RuntimeError (32 dimensions at most), and
    # on a tree from a network it allocated gigabytes before any check
    rng = np.random.default_rng(5)
    columns = [f"X{j}" for j in range(40)]
    model = st.full(pd.DataFrame(rng.integers(0, 2, (30, 40)).astype(str), columns=columns),
                    lambda_=1)
    with pytest.raises(ValueError, match="`context` selects 274877906944 situations of 'X39', "
                                         "more than the 16777216 this library lists"):
        st.set_stages(model, "X39", "A", context={"X0": "1"})
    with pytest.raises(ValueError, match="the stage vector of 'X39' would have"):
        st.set_stages(model, "X39", "A", context={v: "1" for v in columns[:30]})
    # within the limit, the context picks R's situations (last variable fastest)
    small = st.full(st.datasets.titanic_table(), lambda_=1)
    edited = st.set_stages(small, "Survived", "A", context={"Class": ["1st", "Crew"],
                                                            "Age": "Adult"})
    expected = small.stages("Survived")
    for situation in (1, 3, 13, 15):  # (1st|Crew) x (Male|Female) x Adult
        expected[situation] = "A"
    assert edited.stages("Survived") == expected


def test_refusals_of_oversized_trees_quote_the_limit_that_applies_and_the_variable():
    from pystagedtrees.graphs import _as_sevt as conversion
    from pystagedtrees.model._stagevec import DENSE_MAX

    rng = np.random.default_rng(0)
    columns = [f"X{i}" for i in range(22)]
    data = pd.DataFrame(rng.integers(0, 2, (50, 22)).astype(str), columns=columns)
    message = (f"the full stage vector of 'X21' would have {2 ** 21} entries .* more than the "
               f"{DENSE_MAX} .*full\\(join_unobserved=True\\)")
    for build in (lambda: st.full(data, join_unobserved=False),
                  lambda: st.sevt(data, full=True),
                  lambda: st.random_sevt({c: ["0", "1"] for c in columns})):
        with pytest.raises(ValueError, match=message):
            build()
    # past int64 situation indices the deep variables are numbered by the
    # observed paths (tests/fitting/test_deep_trees.py): no refusal there
    wide = pd.DataFrame(np.tile([["0"], ["1"]], (1, 64)), columns=[f"X{i}" for i in range(64)])
    for build in (st.sevt, st.indep, st.full):
        assert build(wide).n_situations(63) == 2 ** 63
    levels = {v: [str(j) for j in range(100)] for v in "ABC"}
    with pytest.raises(ValueError, match=r"variable 'C' would have 10000 parent configurations"):
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(conversion, "MAX_CONFIGURATIONS", 9999)
            st.as_sevt({"A": [], "B": [], "C": ["A", "B"]}, values=levels)


def test_sevt_add_reads_integer_column_names_as_full_does():
    named = pd.DataFrame([["a", "x", "u"], ["b", "y", "v"], ["a", "y", "u"], ["b", "x", "v"]] * 3)
    added = st.sevt_add(st.full(named[[0, 1]]), "2", named)
    assert added.variables == ["0", "1", "2"]
    assert float(added.ll) == pytest.approx(float(st.full(named).ll), rel=1e-12)


@settings(max_examples=100, deadline=None)
@given(hst.lists(hst.sampled_from(["1", "2", "10", "01", "UNOBSERVED", "a", "007"]), max_size=12),
       hst.lists(hst.one_of(hst.sampled_from(["1", "10", "01", "a", "zz", "UNOBSERVED"]),
                            hst.none()), max_size=4))
def test_stage_labels_ids_without_agrees_with_a_label_by_label_scan(labels, ignore):
    from pystagedtrees.model._stagevec import StageLabels

    stage_labels = StageLabels.from_strings(labels)
    assert stage_labels.ids_without(ignore) == [
        s for s, label in enumerate(labels) if label not in ignore]


@settings(max_examples=100, deadline=None)
@given(hst.lists(hst.sampled_from(["1", "2", "10", "UNOBSERVED", "a", "b"]), min_size=1, max_size=8),
       hst.data(), hst.sampled_from([1, 20]))
def test_stage_labels_take_keeps_the_labels_and_only_the_names_in_use(labels, data, copies):
    from pystagedtrees.model._stagevec import StageLabels

    # ``copies`` repeats the ids past the few StageLabels.take handles in Python
    ids = data.draw(hst.lists(hst.integers(0, len(labels) - 1), max_size=6)) * copies
    taken = StageLabels.from_strings(labels).take(np.array(ids, dtype=np.int32))
    assert taken.tolist() == [labels[s] for s in ids]
    assert sorted(taken._names) == sorted({labels[s] for s in ids} & {"UNOBSERVED", "a", "b"})


def test_stages_of_several_variables_as_r_indexes_its_list():
    model = st.stages_bhc(st.full(st.datasets.titanic_table(), lambda_=1))
    chosen = st.stages(model, ["Survived", "Sex"])
    assert list(chosen) == ["Survived", "Sex"]
    assert chosen == {v: st.stages(model, v) for v in ("Survived", "Sex")}
    assert st.stages(model, np.array(["Survived", "Sex"])) == chosen
    with pytest.raises(ValueError, match="root variable"):
        st.stages(model, ["Class", "Sex"])
    with pytest.raises(ValueError, match="`var` names a variable twice"):
        st.stages(model, ["Sex", "Sex"])  # R repeats it; a dict cannot
    with pytest.raises(ValueError, match="give `var` too, as one variable's name"):
        st.stages(model, ["Sex"], context={"Class": "1st"})


@pytest.mark.parametrize("dtype", [">i8", ">i4", ">f8", ">u2"])
def test_big_endian_columns_read_as_native_ones(dtype):
    # pandas' hash tables refuse non-native byte order ("Big-endian buffer not supported")
    native = pd.DataFrame({"a": [0, 1, 1, 0, 2] * 4, "b": [1, 1, 0, 0, 1] * 4})
    swapped = native.astype(dtype)
    model, expected = st.full(swapped, lambda_=1), st.full(native, lambda_=1)
    assert model.tree == expected.tree and float(model.logLik()) == float(expected.logLik())
    np.testing.assert_array_equal(st.predict(model, swapped, class_="a", prob=True),
                                  st.predict(expected, native, class_="a", prob=True))
    clf = st.StagedTreeClassifier().fit(swapped[["b"]].to_numpy(), swapped["a"])
    np.testing.assert_array_equal(clf.predict_proba(swapped[["b"]].to_numpy()),
                                  clf.predict_proba(native[["b"]].to_numpy()))


def _stage_prob_built_eagerly(model):
    """``stage_prob`` as a dict of dicts of Series, each built from the
    model's ``stages``-style reads: a Series per stage label, in stage order."""
    out = {}
    for i, v in enumerate(model.variables):
        labels = ["1"] if i == 0 else model.stage_labels(i).tolist()
        prob = model.stage_probabilities(i)
        out[v] = {}
        for s, label in enumerate(labels):
            out[v][label] = pd.Series(prob[s], index=model.tree[v], name=label)
            out[v][label].attrs["n"] = float(model.stage_sizes(i)[s])
    return out


@pytest.mark.parametrize("make", [
    lambda: st.full(st.datasets.titanic_table(), lambda_=1),
    lambda: st.indep(st.datasets.titanic_table()),
    lambda: st.stages_bhc(st.full(st.datasets.titanic_table(), lambda_=1)),
    lambda: st.full(st.datasets.titanic_table(), join_unobserved=True, name_unobserved="NA"),
])
def test_stage_prob_reads_as_the_dict_of_series_it_stands_for(make):
    model = make()
    views, eager = model.stage_prob, _stage_prob_built_eagerly(model)
    assert list(views) == list(eager)
    for v in eager:
        assert list(views[v]) == list(eager[v]) and len(views[v]) == len(eager[v])
        for (label, got), (_, want) in zip(views[v].items(), eager[v].items()):
            pd.testing.assert_series_equal(got, want)
            assert got is views[v][label]  # built once
            assert got.attrs == want.attrs
        assert "no such stage" not in views[v]
        with pytest.raises(KeyError):
            views[v]["no such stage"]


def _unique_first_appearance(table):
    """The sort-based algorithm ParentStageVector used (np.unique), kept as its twin."""
    values, first = np.unique(table, return_index=True)
    return values[np.argsort(first, kind="stable")].astype(np.int32)


@SETTINGS
@given(hst.lists(hst.integers(0, 40), min_size=1, max_size=300), hst.integers(0, 3))
def test_parent_vector_ids_by_one_pass_equal_those_by_unique(table, radix_extra):
    table = np.array(table, dtype=np.int32)
    vector = stagevec.ParentStageVector(len(table) * (2 + radix_extra), [1], [1],
                                        [len(table)], table)
    np.testing.assert_array_equal(vector.first_appearance(), _unique_first_appearance(table))
    np.testing.assert_array_equal(vector.ids_in_use(), np.unique(table).astype(np.int32))
    first = stagevec.first_position_by_id(table, 50)
    assert len(first) == 50
    for value in range(50):
        hits = np.flatnonzero(table == value)
        assert first[value] == (hits[0] if len(hits) else -1)


def test_is_fitted_follows_probabilities_replaced_after_it_was_asked():
    """The stages without probabilities are kept per model between calls
    (predict asks on each one); replacing a variable's arrays is seen."""
    model = st.full(st.datasets.titanic_table(), lambda_=1)
    assert model.is_fitted
    prob, n = model.stage_probabilities(1).copy(), model.stage_sizes(1).copy()
    prob[0], n[0] = np.nan, np.nan
    model.set_stage_probabilities(1, prob, n)
    assert not model.is_fitted
    with pytest.raises(ValueError, match="without probabilities"):
        st.predict(model)
    model.set_stage_probabilities(1, np.full_like(prob, 1 / prob.shape[1]), np.ones_like(n))
    assert model.is_fitted
