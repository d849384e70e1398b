"""Argument checks: the shared helpers, and the public functions that use them."""
import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as hst

import pystagedtrees as st
from pystagedtrees import bnc
from pystagedtrees.base._validation import (
    check_flag,
    check_ignore,
    check_int,
    check_labels,
    check_number,
    check_trace,
)

NOT_BOOLEANS = hst.one_of(
    hst.integers(), hst.floats(), hst.text(), hst.none(), hst.lists(hst.booleans())
)


@given(hst.booleans())
def test_check_flag_keeps_booleans(value):
    assert check_flag(value, "x") is value
    assert check_flag(np.bool_(value), "x") is value


@given(NOT_BOOLEANS)
def test_check_flag_refuses_everything_else(value):
    with pytest.raises(TypeError, match="`switch` must be True or False"):
        check_flag(value, "switch")


@given(hst.integers(-50, 50), hst.integers(-5, 5))
def test_check_int_accepts_whole_numbers_at_or_above_the_minimum(value, minimum):
    for given_as in (value, float(value), np.int64(value)):
        if value >= minimum:
            result = check_int(given_as, "n", minimum=minimum)
            assert result == value and type(result) is int
        else:
            with pytest.raises(ValueError, match=f"`n` must be an integer >= {minimum}"):
                check_int(given_as, "n", minimum=minimum)


@pytest.mark.parametrize("value", [1.5, float("nan"), float("inf"), "3", True, [2], None])
def test_check_int_refuses_non_integers(value):
    with pytest.raises(TypeError, match="`n` must be an integer >= 0"):
        check_int(value, "n")


def test_check_int_none_only_when_allowed():
    assert check_int(None, "n", allow_none=True) is None
    with pytest.raises(TypeError, match="or None"):
        check_int("x", "n", allow_none=True)


@pytest.mark.parametrize(
    "value, positive, error",
    [(-0.1, False, ValueError), (0, True, ValueError), (float("inf"), False, ValueError),
     (float("nan"), False, ValueError), ("1", False, TypeError), (True, False, TypeError),
     (10 ** 400, False, ValueError), (-(2 ** 70), False, ValueError)],
)
def test_check_number_refuses(value, positive, error):
    with pytest.raises(error, match="`w` must be a"):
        check_number(value, "w", positive=positive)


@given(hst.floats(0, 1e300))
def test_check_number_returns_the_float(value):
    assert check_number(value, "w") == value
    assert check_number(value + 1, "w", positive=True) == value + 1
    assert check_number(2 ** 70, "w") == 2.0 ** 70  # a Python integer past int64


def test_check_trace_reads_booleans_as_levels():
    assert (check_trace(True), check_trace(False), check_trace(2)) == (1, 0, 2)
    with pytest.raises(ValueError, match="`trace`"):
        check_trace(-1)
    with pytest.raises(TypeError, match="`trace`"):
        check_trace("verbose")


def test_check_ignore_reads_one_string_as_one_label():
    assert check_ignore("UNOBSERVED", None) == ["UNOBSERVED"]
    assert check_ignore(["1", 2], None) == ["1", "2"]
    assert check_ignore(["U", "U"], None) == ["U", "U"]  # R's length() counts both
    assert check_ignore(None, ["U"]) == ["U"]
    assert check_ignore(None, None) == []
    for bad in (3.5, object(), [None], [1.5]):
        with pytest.raises(TypeError, match="`ignore`"):
            check_ignore(bad, None)



def test_check_labels_reads_one_string_as_one_label():
    assert check_labels("U", "stage") == ["U"]
    assert check_labels(["2", 1], "stage") == ["2", "1"]
    assert check_labels(1, "stage") == ["1"]  # as join_stages reads it
    for bad in (None, 2.5, True, {"a": 1}, [None], [True]):
        with pytest.raises(TypeError, match="`stage` must be a stage label"):
            check_labels(bad, "stage")


def test_object_columns_read_whole_floats_as_in_a_float_column():
    a = pd.Series([1.0, 2, np.nan, 10], dtype=object)
    as_object = pd.DataFrame({"C": list("abab"), "a": a})
    as_float = as_object.astype({"a": float})
    assert st.full(as_object).tree == st.full(as_float).tree == \
        {"C": ["a", "b"], "a": ["1", "2", "10"]}
    for value in (2.5, float("inf")):
        for frame in (as_object, as_float):
            bad = frame.copy()
            bad.loc[3, "a"] = value
            with pytest.raises(TypeError, match="non-categorical floats"):
                st.full(bad)
    # rows read against a model name the argument they came in
    model = st.full(as_float)
    for call, argument in ((lambda: st.prob(model, pd.DataFrame({"a": [2.5]})), "x"),
                           (lambda: st.sevt_fit(model, data=as_float.assign(a=2.5)), "data"),
                           (lambda: st.predict(model, pd.DataFrame({"a": [2.5]}), class_="C"),
                            "newdata")):
        with pytest.raises(TypeError, match=f"^`{argument}`: column 'a' holds non-categorical"):
            call()


def test_categories_read_whole_floats_as_a_float_column_does():
    # R: factor(c(1, 2)) has levels "1", "2"
    as_float = pd.DataFrame({"C": list("abab"), "a": [1.0, 2.0, 2.0, 10.0]})
    as_category = as_float.astype({"a": "category"})
    with_half = as_float.assign(a=pd.Categorical([1.0, 2.5, 1.0, 1.0]))
    assert st.full(as_category).tree == st.full(as_float).tree == \
        {"C": ["a", "b"], "a": ["1", "2", "10"]}
    assert st.full(with_half).tree["a"] == ["1", "2.5"]
    model = st.full(as_category, lambda_=1)
    for event in ({"C": "a", "a": 1.0}, {"C": "a", "a": 1}, {"C": "a", "a": "1"}):
        assert st.prob(model, pd.DataFrame([event]))[0] == pytest.approx(3 / 6 * 2 / 5)  # lambda 1
    # a table of counts names its levels as the frame does
    table = as_float.assign(b=[True, False, True, True]).groupby(["C", "a", "b"]).size()
    assert st.full(table).tree == st.full(as_float.assign(b=[True, False, True, True])).tree == \
        {"C": ["a", "b"], "a": ["1", "2", "10"], "b": ["FALSE", "TRUE"]}
    clash = pd.Categorical.from_codes([0, 1], categories=pd.Index(["1", 1.0], dtype=object))
    with pytest.raises(ValueError, match=r"column 'a' \(its categories\) has values '1' and 1.0"):
        st.full(pd.DataFrame({"C": ["a", "b"], "a": clash}))


@pytest.mark.parametrize("values", [[[1], [2]], [{"a": 1}, {"a": 2}], [{1}, {2}]])
def test_unhashable_values_are_refused_naming_the_column(values):
    data = pd.DataFrame({"a": ["x", "y"] * 3, "b": values * 3})
    with pytest.raises(TypeError, match="column 'b' holds values of type"):
        st.full(data)


def test_booleans_mixed_with_zero_or_one_are_refused():
    # pandas takes True for 1: the 1s would vanish into the level "TRUE"
    for other in (1, 0, 0.0, np.int64(1)):
        data = pd.DataFrame({"a": ["x", "y"] * 3, "b": [True, other, False] * 2})
        with pytest.raises(ValueError, match=re.escape(f"mixes booleans with the number {other!r}")):
            st.full(data)
    # other numbers and strings are levels of their own
    data = pd.DataFrame({"a": ["x", "y"] * 3, "b": [True, 2, "z"] * 2})
    assert st.full(data).tree["b"] == ["2", "TRUE", "z"]


def test_time_deltas_are_levels():
    # numpy's timedelta64 counts as an integer to Python; its strings do not
    data = pd.DataFrame({"a": ["x", "y"] * 3, "b": pd.to_timedelta([1, 2, 3] * 2, unit="s")})
    model = st.full(data, lambda_=1)
    assert len(model.tree["b"]) == 3
    np.testing.assert_allclose(st.predict(model, data, prob=True).sum(axis=1), 1)


def test_complex_columns_are_refused_not_cast_to_real():
    # numpy would drop the imaginary parts (1+1j and 1+2j both as "1")
    frame = pd.DataFrame({"C": list("abab"), "z": [1 + 1j, 1 + 2j, 2 + 0j, 2 + 0j]})
    for model_of in (st.full, st.indep):
        with pytest.raises(TypeError, match="column 'z' holds complex numbers"):
            model_of(frame)
    model = st.full(frame.assign(z=[1, 1, 2, 2]))
    with pytest.raises(TypeError, match="column 'z' holds complex numbers"):
        st.predict(model, frame)


# -- the public functions --------------------------------------------------------------

@pytest.fixture(scope="module")
def titanic():
    return st.datasets.titanic()


@pytest.fixture(scope="module")
def fitted(titanic):
    return st.full(titanic, lambda_=1)


def _call(name, fitted, titanic, **kwargs):
    """Call a public function on the data (constructors) or on the fitted model."""
    first = titanic if name in ("full", "indep") else fitted
    return getattr(st, name)(first, **kwargs)


FLAGS = [
    ("full", "join_unobserved"), ("indep", "join_unobserved"), ("sevt_fit", "compute_logLik"),
    ("join_unobserved", "fit"), ("stndnaming", "uniq"), ("stndnaming", "prefix"),
    ("sevt_simplify", "fit"), ("as_parentslist", "silent"), ("predict", "prob"),
    ("predict", "log"), ("to_dot", "show_ignored"), ("write_tikz", "show_ignored"),
]


@pytest.mark.parametrize("name, flag", FLAGS)
@pytest.mark.parametrize("value", ["yes", 1.5, None])
def test_switches_must_be_booleans(fitted, titanic, name, flag, value):
    with pytest.raises(TypeError, match=f"`{flag}` must be True or False"):
        _call(name, fitted, titanic, **{flag: value})


@pytest.mark.parametrize("name", ["prob", "path_probability"])
def test_inference_switches_must_be_booleans(fitted, name):
    event = {"Class": "1st"} if name == "prob" else {
        "Class": "1st", "Sex": "Male", "Age": "Child", "Survived": "No"}
    with pytest.raises(TypeError, match="`log` must be True or False"):
        getattr(st, name)(fitted, event, log="yes")


@pytest.mark.parametrize(
    "name", ["stages_bhc", "stages_fbhc", "stages_hc", "stages_bj", "stages_bhcr", "join_unobserved"]
)
@pytest.mark.parametrize("value, error", [(-1, ValueError), (2.5, TypeError), ("all", TypeError)])
def test_trace_must_be_a_level(fitted, titanic, name, value, error):
    with pytest.raises(error, match="`trace`"):
        _call(name, fitted, titanic, trace=value)


def test_trace_true_prints_like_trace_1(fitted, capsys):
    st.stages_bhc(fitted, trace=True)
    with_true = capsys.readouterr().out
    st.stages_bhc(fitted, trace=1)
    assert with_true and with_true == capsys.readouterr().out


def test_a_single_ignored_label_is_not_split_into_characters(titanic):
    model = st.full(titanic, lambda_=1, name_unobserved="U1")
    named = st.stndnaming(model, ignore="U1")
    assert named.stages("Survived") == st.stndnaming(model, ignore=["U1"]).stages("Survived")
    assert "U1" in named.stages("Survived")
    assert st.confint(model, "Age", ignore="U1").equals(st.confint(model, "Age", ignore=["U1"]))


@pytest.mark.parametrize("name", ["stages_bhc", "stages_hc", "stndnaming", "confint"])
def test_ignore_must_hold_labels(fitted, titanic, name):
    with pytest.raises(TypeError, match="`ignore`"):
        _call(name, fitted, titanic, ignore=3.5)


@pytest.mark.parametrize("name", ["stages_hclust", "stages_kmeans"])
@pytest.mark.parametrize("limit", [2.5, "3"])
def test_clustering_limit_is_a_whole_number(fitted, name, limit):
    with pytest.raises(TypeError, match="`limit`"):
        getattr(st, name)(fitted, limit=limit)


def test_kmeans_variables_left_out_of_a_k_dict_get_the_default(fitted):
    default_k = len(fitted.tree[fitted.variables[0]])
    partial = st.stages_kmeans(fitted, k={"Age": 3}, seed=1)
    explicit = st.stages_kmeans(
        fitted, k={"Sex": default_k, "Age": 3, "Survived": default_k}, seed=1
    )
    assert partial.stages() == explicit.stages()


@pytest.mark.parametrize("name", ["stages_hclust", "stages_kmeans"])
@pytest.mark.parametrize("k", [0, 1.5, "two", [2, "x"], b"x"])
def test_clustering_k_is_checked_for_every_variable(fitted, name, k):
    with pytest.raises((TypeError, ValueError), match="`k`"):
        getattr(st, name)(fitted, k=k)


def test_numpy_scalar_arrays_are_single_values(fitted):
    # a 0-d array iterates into numpy's own error; it is read as its one element
    assert st.stages_hclust(fitted, k=np.array(2)).stages() == st.stages_hclust(fitted, k=2).stages()
    assert st.stages_bhc(fitted, scope=np.array("Survived")).stages() == st.stages_bhc(
        fitted, scope="Survived").stages()
    assert check_labels(np.array("UNOBSERVED"), "ignore") == ["UNOBSERVED"]
    assert check_labels(np.array(3), "ignore") == ["3"]


def test_parents_list_switches_must_be_booleans():
    for bad in ("no", float("nan"), np.array([True, False])):
        with pytest.raises(TypeError, match="`all` must be True or False"):
            st.topo_sort_parentslist({"A": []}, all=bad)
        with pytest.raises(TypeError, match="`only_parents` must be True or False"):
            st.as_parentslist({"A": [], "B": ["A"]}).to_string(only_parents=bad)


def test_backward_join_threshold_is_not_negative(fitted):
    with pytest.raises(ValueError, match="`thr` must be a non-negative number"):
        st.stages_bj(fitted, thr=-0.1)


def test_to_dot_direction(fitted):
    assert 'rankdir="TB"' in st.to_dot(fitted, rankdir="TB")
    for rankdir in ("down", pd.DataFrame(), ["TB"]):
        with pytest.raises(ValueError, match="`rankdir` must be one of"):
            st.to_dot(fitted, rankdir=rankdir)


@pytest.mark.parametrize("palette", [{"red": 1}, {"red", "blue"}, pd.DataFrame({"red": [1]})])
@pytest.mark.parametrize("name", ["to_dot", "write_tikz"])
def test_a_palette_is_a_name_or_a_list_of_colours(fitted, name, palette):
    with pytest.raises(TypeError, match="`palette` must be one of"):
        getattr(st, name)(fitted, palette=palette)
    assert getattr(st, name)(fitted, palette=("red", "blue")) == getattr(st, name)(
        fitted, palette=["red", "blue"])


@pytest.mark.parametrize(
    "kwargs, error",
    [({"scale": "big"}, TypeError), ({"scale": 0}, ValueError), ({"node_shape": 3}, TypeError)],
)
def test_write_tikz_options(fitted, kwargs, error):
    with pytest.raises(error, match=f"`{next(iter(kwargs))}`"):
        st.write_tikz(fitted, **kwargs)


@pytest.mark.parametrize(
    "kwargs", [{"legend": "no"}, {"var_names": 0.5}, {"cex_nodes": -1}, {"lwd_edges": "thick"}]
)
def test_plot_options(fitted, kwargs):
    pytest.importorskip("matplotlib")
    with pytest.raises((TypeError, ValueError), match=f"`{next(iter(kwargs))}`"):
        st.plot(fitted, **kwargs)


def test_barplot_switches(fitted):
    pytest.importorskip("matplotlib")
    with pytest.raises(TypeError, match="`horiz`"):
        st.barplot(fitted, "Age", horiz="yes")


def test_bnc_predict_prob_switch(titanic):
    model = bnc.bnc("nb", "Survived", titanic, smooth=1)
    with pytest.raises(TypeError, match="`prob` must be True or False"):
        bnc.predict(model, titanic, prob="yes")


@pytest.mark.parametrize("fn", [bnc.nb, bnc.aode])
def test_bnc_features_one_name_or_a_list_of_distinct_names(titanic, fn):
    assert bnc.features(fn("Survived", features="Age")) == ["Age"]
    for bad, message in [(["Survived"], "the class"), (["Age", "Age"], "twice")]:
        with pytest.raises(ValueError, match=message):
            fn("Survived", features=bad)
    with pytest.raises(TypeError, match="`features`"):
        fn("Survived", features=[1, 2])
    with pytest.warns(UserWarning, match="ignored"):  # R ignores them next to data
        fn("Survived", titanic, features="Age")


@pytest.mark.parametrize("call", [
    lambda t, v: st.full(t, lambda_=v),
    lambda t, v: st.indep(t, lambda_=v),
    lambda t, v: st.sevt_fit(st.sevt(t), t, lambda_=v),
    lambda t, v: st.join_unobserved(st.full(t, join_unobserved=False), lambda_=v),
    lambda t, v: st.search_greedy(t, lambda_=v),
    lambda t, v: st.StagedTreeClassifier(lambda_=v).fit(t.drop(columns="Survived"), t.Survived),
    lambda t, v: bnc.lp(bnc.nb("Survived", t), t, smooth=v),
    lambda t, v: bnc.tan_hc("Survived", t, k=2, epsilon=0, smooth=v),
    lambda t, v: bnc.BNClassifier(smooth=v).fit(t.drop(columns="Survived"), t.Survived),
])
def test_smoothing_that_overflows_the_sums_is_refused(titanic, call):
    # 1e308 + 1e308 is inf: every probability would come out 0 or NaN
    with pytest.raises(ValueError, match="`(lambda_|smooth)` must be at most 1e\\+300"):
        call(titanic, 1e308)
    call(titanic, 1e300)


def _estimator_data(titanic):
    return titanic[["Class", "Sex", "Age"]], titanic["Survived"]


@pytest.mark.parametrize(
    "param, value, error",
    [("k", 0, ValueError), ("k", 2.5, TypeError), ("ordering", "random", ValueError),
     ("lambda_", -1, ValueError), ("refine", "bj", ValueError), ("cluster", "pam", ValueError),
     ("n_stages", 0, ValueError), ("folds", 1, ValueError), ("epsilon", float("nan"), ValueError),
     ("search_smooth", "1", TypeError), ("tan_score", "bde", ValueError),
     ("random_state", "seed", TypeError), ("random_state", -1, ValueError),
     ("rng", "mt", ValueError)],
)
def test_staged_tree_classifier_checks_every_parameter_at_fit(titanic, param, value, error):
    # the default method ("tan_cl") uses none of k, ordering, cluster, n_stages, folds, ...
    X, y = _estimator_data(titanic)
    with pytest.raises(error, match=f"`{param}`"):
        st.StagedTreeClassifier(**{param: value}).fit(X, y)


@pytest.mark.parametrize(
    "param, value, error",
    [("smooth", -1, ValueError), ("edge_score", "bde", ValueError), ("k", 1, ValueError),
     ("epsilon", "0.1", TypeError), ("kdbk", 1.5, TypeError), ("search_smooth", -2, ValueError),
     ("random_state", 2.5, TypeError), ("structure", "bn", ValueError)],
)
def test_bn_classifier_checks_every_parameter_at_fit(titanic, param, value, error):
    X, y = _estimator_data(titanic)
    with pytest.raises(error, match=f"`{param}`"):
        bnc.BNClassifier(**{param: value}).fit(X, y)


def test_values_that_read_as_one_level_are_refused():
    # 1 and "1" would both become level "1": two codes for one level.
    data = pd.DataFrame({"A": ["a", "b", "a", "b"], "B": pd.Series([1, "1", 2, "2"], dtype=object)})
    with pytest.raises(ValueError, match=r"column 'B' has values 1 and '1' that read as the same"):
        st.full(data)
    X, y = data[["B"]], data["A"]
    for estimator in (st.StagedTreeClassifier(), bnc.BNClassifier()):
        with pytest.raises(ValueError, match="read as the same level"):
            estimator.fit(X, y)


@pytest.mark.parametrize("estimator", [st.StagedTreeClassifier(), bnc.BNClassifier()])
def test_missing_classes_are_refused(titanic, estimator):
    X, y = _estimator_data(titanic)
    y = y.astype(object).where(np.arange(len(y)) % 7 != 0)
    with pytest.raises(ValueError, match="`y` has missing values"):
        estimator.fit(X, y)


@pytest.mark.parametrize("estimator", [st.StagedTreeClassifier(), bnc.BNClassifier()])
def test_classes_of_mixed_types_are_refused(titanic, estimator):
    X, y = _estimator_data(titanic)
    mixed = pd.Series(["a", 1] * (len(y) // 2) + ["a"] * (len(y) % 2), dtype=object)
    with pytest.raises(TypeError, match=r"`y` mixes values of types \['int', 'str'\]"):
        estimator.fit(X, mixed)


@pytest.mark.parametrize("estimator", [st.StagedTreeClassifier(), bnc.BNClassifier()])
def test_empty_labels_are_refused_by_name(titanic, estimator):
    X, _ = _estimator_data(titanic)
    for y in (pd.DataFrame(), np.empty((len(X), 0))):
        with pytest.raises(ValueError, match="`y` must be one column of class labels"):
            estimator.fit(X, y)


# -- arguments a fuzz got past the checks --------------------------------------------

@pytest.mark.parametrize("name", ["stages_hclust", "stages_kmeans", "stages_bhc", "confint"])
@pytest.mark.parametrize("bad", [None, "titanic"])
def test_learners_refuse_what_is_not_a_model(titanic, name, bad):
    with pytest.raises(TypeError, match="`object` must be a staged event tree"):
        getattr(st, name)(titanic if bad == "titanic" else bad)


@pytest.mark.parametrize("name", ["sevt_fit", "stages_bhc", "stages_hclust", "stages_kmeans"])
@pytest.mark.parametrize("scope", [3, {"Sex": 1}, "frame", [1]])
def test_scope_must_name_variables(fitted, titanic, name, scope):
    scope = titanic if isinstance(scope, str) else scope
    with pytest.raises(TypeError, match="`scope` must be a variable name or a list"):
        getattr(st, name)(fitted, scope=scope)


def test_scope_may_be_any_sequence_of_names(fitted):
    expected = st.stages_bhc(fitted, scope=["Sex", "Age"]).stages()
    assert st.stages_bhc(fitted, scope=("Sex", "Age")).stages() == expected
    assert st.stages_bhc(fitted, scope=pd.Index(["Sex", "Age"])).stages() == expected


def test_confint_arguments(fitted):
    # R also takes 1-based positions; here only names, to avoid off-by-one surprises
    with pytest.raises(TypeError, match="`parm` must be a variable name"):
        st.confint(fitted, parm=2)
    with pytest.raises(ValueError, match="`method` must be one of"):
        st.confint(fitted, method=np.array(["wald", "wilson"]))
    with pytest.raises(TypeError, match="`level`"):
        st.confint(fitted, level="0.9")
    for level in (1.5, -0.1, float("nan")):
        with pytest.raises(ValueError, match="`level` must be a number in \\[0, 1\\]"):
            st.confint(fitted, level=level)


@pytest.mark.parametrize("new", [None, 1.5, float("nan"), [], {}, object()])
def test_a_new_stage_name_is_a_label(fitted, new):
    with pytest.raises(TypeError, match="`new` must be a stage label"):
        st.rename_stage(fitted, "Sex", "1", new)


def test_stage_arguments_are_named_in_errors(fitted):
    with pytest.raises(ValueError, match="`s1` 'zzz' is not a stage"):
        st.join_stages(fitted, "Sex", "zzz", "2")
    with pytest.raises(ValueError, match="`s2` 'zzz' is not a stage"):
        st.join_stages(fitted, "Sex", "1", "zzz")
    with pytest.raises(TypeError, match="`s1` must be a stage label"):
        st.join_stages(fitted, "Sex", None, "2")
    # integers read as their labels, as R's 1 matches "1"
    assert st.rename_stage(fitted, "Sex", 1, "x").stages("Sex")[0] == "x"
    by_number = st.join_stages(fitted, "Sex", 1, 2)
    assert by_number.stages() == st.join_stages(fitted, "Sex", "1", "2").stages()


def test_a_path_of_one_value_is_one_level(fitted, titanic):
    # R's length-one vectors: a string (or number) is one level, never split
    first = titanic.columns[0]
    level = str(fitted.tree[first][0])
    assert st.get_stage(fitted, level) == st.get_stage(fitted, [level])
    with pytest.raises(ValueError, match="`path`: column .* has value '0'"):
        st.get_stage(fitted, 0)
    with pytest.raises(ValueError, match="`path` has missing values"):
        st.subtree(fitted, None)
    with pytest.raises(ValueError, match="`x` must give one level per variable .*got 1"):
        st.path_probability(fitted, "NoXY")


@pytest.mark.parametrize("order, error, match", [
    ([], ValueError, "`order` is empty"),
    ({"Class": 1, "Sex": 2}, TypeError, "`order` must be a list"),
    ({"Class", "Sex"}, TypeError, "`order` must be a list"),
    (["Class"], ValueError, "`order` gives 1 variable"),
])
def test_order_must_list_two_variables(titanic, order, error, match):
    with pytest.raises(error, match=match):
        st.full(titanic, order=order)
    with pytest.raises(error, match=match):
        st.indep(st.datasets.titanic_table(), order=order)


def test_simultaneous_interval_of_a_one_level_variable_is_its_estimate():
    # no free parameter: the chi-square quantile with 0 df is 0, so the
    # interval collapses to the (certain) estimate instead of being NaN
    model = st.full(pd.DataFrame({"A": ["a", "a", "a"], "B": ["x", "y", "x"]}))
    ci = st.confint(model, parm="A", method="quesenberry-hurst")
    assert ci.to_numpy().tolist() == [[1.0, 1.0]]


def test_choices_given_as_arrays_are_refused(fitted):
    two = np.array(["naive", "hamming"])
    with pytest.raises(ValueError, match="`method` must be one of"):
        st.compare_stages(fitted, fitted, method=two)
    with pytest.raises(TypeError, match="`return_tree` must be True or False"):
        st.compare_stages(fitted, fitted, return_tree="yes")
    with pytest.raises(TypeError, match="`return_tree` must be True or False"):
        st.hamming_stages(fitted, fitted, return_tree=np.array([True, False]))
    with pytest.raises(ValueError, match="`other_stages` must be one of"):
        st.depsubtree(fitted, "Age", other_stages=np.array(["NA", "full"]))
    with pytest.raises(ValueError, match="`algorithm` must be one of"):
        st.stages_kmeans(fitted, algorithm=np.array(["Lloyd", "MacQueen"]))


@pytest.mark.parametrize("call", [
    lambda m: st.sample_from(m, 3, seed=-1),
    lambda m: st.stages_kmeans(m, k=2, seed=-1),
    lambda m: st.predict(m, rng="numpy", seed=-1),
    lambda m: st.random_sevt(m, seed=-2),
    lambda m: st.random_parentslist(3, seed=-1),
])
def test_numpy_seeds_are_not_negative(fitted, call):
    with pytest.raises(ValueError, match="`seed` must be an integer >= 0"):
        call(fitted)


def test_seeds_are_integers_and_negative_ones_are_for_r(fitted):
    with pytest.raises(TypeError, match="`seed` must be an integer"):
        st.stages_kmeans(fitted, k=2, seed=1.5)
    with pytest.raises(TypeError, match="`seed` must be an integer"):
        st.predict(fitted, rng="R", seed="1")
    # set.seed(-1) is valid in R
    assert st.sample_from(fitted, 5, seed=-1, rng="R").equals(
        st.sample_from(fitted, 5, seed=-1, rng="R"))


@pytest.mark.filterwarnings("ignore:`random_state` is deprecated:FutureWarning")
def test_bnc_random_state_checks_and_legacy_generators(titanic):
    with pytest.raises(ValueError, match="`random_state` must be None, an integer seed >= 0"):
        bnc.tan_hc("Survived", titanic, k=2, random_state=-1)
    twice = [bnc.families(bnc.tan_hc("Survived", titanic, k=2,
                                     random_state=np.random.RandomState(3))) for _ in range(2)]
    assert twice[0] == twice[1]


def test_randomize_sevt_distribution_by_level_name(fitted):
    levels = fitted.tree["Sex"]
    by_name = st.randomize_sevt(fitted, "Sex", p=pd.Series({levels[1]: 0.3, levels[0]: 0.7}))
    by_position = st.randomize_sevt(fitted, "Sex", p=[0.7, 0.3])
    assert by_name.stage_prob["Sex"]["randomized"].tolist() == \
        by_position.stage_prob["Sex"]["randomized"].tolist() == [0.7, 0.3]
    with pytest.raises(ValueError, match="`p` names levels"):
        st.randomize_sevt(fitted, "Sex", p={"x": 0.3, "y": 0.7})
    with pytest.raises(TypeError, match="`p` must be numbers"):
        st.randomize_sevt(fitted, "Sex", p=["a", "b"])
    with pytest.raises(TypeError, match="`ignore`"):
        st.randomize_sevt(fitted, "Sex", ignore=3.5)


def test_randomize_sevt_keeps_one_named_stage_whole():
    model = st.full(pd.DataFrame({"A": ["a", "a", "b"], "B": ["x", "y", "x"], "C": ["u", "v", "v"]}),
                    lambda_=1)
    kept = st.randomize_sevt(model, "C", ignore="UNOBSERVED")
    assert kept.stages("C") == st.randomize_sevt(model, "C", ignore=["UNOBSERVED"]).stages("C")
    assert "UNOBSERVED" in kept.stages("C")


def test_random_sevt_needs_real_weights_and_level_lists():
    tree = {"A": ["0", "1"], "B": ["0", "1"]}
    with pytest.raises(ValueError, match="`rfun.*` must return finite non-negative"):
        st.random_sevt(tree, rfun=lambda k, rng: rng.normal(size=k) - 5, seed=1)
    with pytest.raises(ValueError, match="not all 0"):
        st.random_sevt(tree, rfun=lambda k, rng: np.zeros(k), seed=1)
    with pytest.raises(TypeError, match="`x` must map each variable to a list of its levels"):
        st.random_sevt({"A": 2, "B": 3})
    with pytest.raises(ValueError, match="distinct levels"):
        st.sevt({"A": ["a", "a"], "B": ["x", "y"]})


def test_counts_must_be_finite():
    table = pd.Series([1.0, np.inf, 2.0, 3.0],
                      index=pd.MultiIndex.from_product([["a", "b"], ["x", "y"]], names=["A", "B"]))
    with pytest.raises(ValueError, match="finite non-negative counts"):
        st.full(table)


def test_clustering_k_of_the_wrong_kind(fitted):
    with pytest.raises(TypeError, match="`k` must be a number, a list or a dict"):
        st.stages_hclust(fitted, k=object())
    with pytest.raises(ValueError, match=r"`k` names \['Z'\]"):
        st.stages_kmeans(fitted, k={"Z": 1})


def test_parentslist_values_are_level_lists(fitted):
    with pytest.raises(TypeError, match="`values` must map each variable to a list of its levels"):
        st.as_parentslist(fitted, values=st.as_parentslist(fitted, silent=True), silent=True)


def test_integer_column_names_match_the_model():
    data = pd.DataFrame({0: ["a", "b", "a", "b"], 1: ["x", "x", "y", "y"]})
    model = st.full(data, lambda_=1)
    as_strings = data.rename(columns=str)
    assert float(st.sevt_fit(model, data).ll) == float(st.full(as_strings, lambda_=1).ll)
    assert st.predict(model, data, class_="0").tolist() == \
        st.predict(model, as_strings, class_="0").tolist()
    with pytest.raises(ValueError, match="coincide as strings"):
        st.full(pd.DataFrame({1: ["a", "b"], "1": ["x", "y"]}))


def test_paths_and_events_name_the_argument_with_an_unknown_level(fitted):
    assert st.subtree(fitted, "1st").tree == st.subtree(fitted, ["1st"]).tree
    with pytest.raises(ValueError, match="`path`: column 'Class' has value 'zz'"):
        st.subtree(fitted, "zz")
    # prob and predict compute with it as R does (test_inference), naming it in a warning
    with pytest.warns(UserWarning, match="`x`: column 'Class' has value 'zz'"):
        st.prob(fitted, {"Class": "zz"})
    with pytest.warns(UserWarning, match="`newdata`: column 'Sex' has value 'x'"):
        st.predict(fitted, pd.DataFrame({"Sex": ["x"]}))


@pytest.mark.parametrize("cls", [st.Sevt, st.Ceg])
def test_model_constructors_check_their_parts(fitted, cls):
    with pytest.raises(TypeError, match="`tree` must map each variable to its levels"):
        cls(None, None, None)
    with pytest.raises(TypeError, match="`stages` must hold one stage vector per variable"):
        cls({"a": ["x", "y"], "b": ["u", "v"]}, {"b": ["1"]}, {})
    stages = [fitted.stage_vector(i) for i in range(len(fitted.variables))]
    labels = [fitted.stage_labels(i) for i in range(len(fitted.variables))]
    with pytest.raises(TypeError, match="`labels` must hold one list of stage labels"):
        cls(fitted.tree, stages, None)
    with pytest.raises(ValueError, match="one stage per situation"):
        cls(fitted.tree, stages[::-1], labels)
    rebuilt = cls(fitted.tree, stages, labels)
    assert rebuilt.stages() == fitted.stages()


@pytest.mark.parametrize("entries", [None, {"A": []}, [("A", [])]])
def test_parents_list_constructor_needs_entries(entries):
    with pytest.raises(TypeError, match="`entries` must map each variable name to a ParentsEntry"):
        st.ParentsList(entries)


@pytest.mark.parametrize("name", ["stages_bhc", "stndnaming", "confint", "get_edges",
                                  "get_vertices", "write_tikz", "randomize_sevt"])
def test_ignore_false_means_nothing_as_in_r(fitted, name):
    # R code passes ignore = FALSE; its %in% then matches no stage
    joined = st.join_unobserved(st.full(st.datasets.titanic(), lambda_=1, join_unobserved=False))
    extra = {"treatment": "Age"} if name == "randomize_sevt" else {}
    function = getattr(st, name)
    assert repr(function(joined, ignore=False, **extra)) == repr(function(joined, ignore=[], **extra))
    with pytest.raises(TypeError, match="`ignore`"):
        function(joined, ignore=True, **extra)


def test_whole_floats_past_int64_are_levels_as_the_smaller_ones():
    big = pd.DataFrame({"C": list("abab"), "a": [1e20, 0.0, 1e20, -3e19]})
    model = st.full(big)
    assert model.tree["a"] == ["-30000000000000000000", "0", "100000000000000000000"]
    # the same values as objects and as a categorical's categories read the same
    assert st.full(big.astype({"a": object})).tree == model.tree
    clf = st.StagedTreeClassifier(method="naive", random_state=0).fit(big[["a"]], big["C"])
    as_category = pd.DataFrame({"a": pd.Categorical([1e20, 0.0])})
    np.testing.assert_array_equal(clf.predict(as_category), clf.predict(big[["a"]].iloc[:2]))
    with pytest.raises(TypeError, match=r"column 'a' holds non-categorical floats \(e.g. 2.5\)"):
        st.full(big.assign(a=[1e20, 2.5, 0.0, 0.0]))
