"""StagedTreeClassifier as a scikit-learn estimator."""
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.utils.estimator_checks import parametrize_with_checks
from strategies import classification_frame

import pystagedtrees as st
from pystagedtrees import bnc
from pystagedtrees.classifiers import (
    StagedTreeClassifier,
    ordering_cmi,
    sevt_kdb,
    sevt_naive,
    sevt_tan_cl,
)
from pystagedtrees.graphs import as_parentslist

NOT_APPLICABLE = {
    "check_positive_only_tag_during_fit": (
        "with the categorical and allow_nan tags scikit-learn passes integer codes "
        "as floats and then centres them, giving non-integral floats; continuous "
        "features are refused by design (discretize first)"
    ),
}


def expected_failures(estimator):
    return NOT_APPLICABLE


@parametrize_with_checks(
    [StagedTreeClassifier(), StagedTreeClassifier(method="kdb", k=2, random_state=0),
     StagedTreeClassifier(method="naive", random_state=0)],
    expected_failed_checks=expected_failures,
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def _data(n=150, seed=0):
    return classification_frame(n, seed)


def _frame(clf, X, y):
    """The training frame the estimator builds: class codes first."""
    codes = np.searchsorted(clf.classes_, y)
    levels = [str(i) for i in range(len(clf.classes_))]
    return pd.concat([pd.DataFrame({clf.class_name_: pd.Categorical.from_codes(codes, levels)}), X],
                     axis=1)


@pytest.mark.parametrize("method, function, kwargs", [
    ("tan_cl", sevt_tan_cl, {}),
    ("kdb", sevt_kdb, dict(k=2, seed=3)),
    ("naive", sevt_naive, dict(seed=3)),
])
def test_matches_the_function_form(method, function, kwargs):
    X, y = _data()
    clf = StagedTreeClassifier(method=method, k=2, random_state=3).fit(X, y)
    data = _frame(clf, X, y)
    model = function(data, **kwargs)
    assert clf.model_.stages() == model.stages()
    expected = st.predict(model, X, class_=clf.class_name_, prob=True).to_numpy()
    np.testing.assert_allclose(clf.predict_proba(X), expected)
    np.testing.assert_allclose(clf.predict_proba(X).sum(axis=1), 1)
    assert list(clf.classes_) == ["no", "yes"]


def test_fitted_attributes():
    X, y = _data()
    clf = StagedTreeClassifier(method="tan_cl").fit(X, y)
    assert isinstance(clf.bnc_, bnc.BNCModel) and clf.bnc_.is_fitted
    assert clf.model_.variables[0] == clf.class_name_
    assert clf.dag_.to_string() == as_parentslist(clf.model_, silent=True).to_string()
    bnc_arcs = {(p, v) for v, fam in clf.bnc_.families.items() for p in fam[1:]}
    assert set(clf.dag_.edges()) <= bnc_arcs
    # refine=None: the classifier's own staged tree predicts as the classifier
    plain = StagedTreeClassifier(method="tan_cl", refine=None).fit(X, y)
    np.testing.assert_allclose(plain.predict_proba(X),
                               bnc.predict(plain.bnc_, X, prob=True), atol=1e-12)
    assert set(plain.dag_.edges()) == bnc_arcs
    naive = StagedTreeClassifier(method="naive", ordering="cmi", random_state=0).fit(X, y)
    assert naive.bnc_ is None
    assert naive.model_.variables == [naive.class_name_] + ordering_cmi(_frame(naive, X, y))[1:]
    full = StagedTreeClassifier(method="full_bhc", ordering=None).fit(X, y)
    assert full.model_.variables == [full.class_name_, "a", "b", "c"]


def test_a_naive_tree_too_large_for_a_dag_still_classifies(monkeypatch):
    # 15 ternary features: the last has 3**15 situations, stored compactly; the
    # DAG (read from a dense stage vector) is made only when asked for
    from pystagedtrees.model import _stagevec
    monkeypatch.setattr(_stagevec, "EXPAND_MAX", 3 ** 14)
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.integers(0, 3, size=(400, 15)).astype(str),
                     columns=[f"f{i}" for i in range(15)])
    y = (X["f0"] == X["f1"]).to_numpy()
    clf = StagedTreeClassifier(method="naive").fit(X, y)
    proba = clf.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1)
    assert clf.score(X, y) > 0.9
    with pytest.raises(ValueError, match="stage vector of .* would have"):
        _ = clf.dag_  # reading the property raises
    small = StagedTreeClassifier(method="naive").fit(X[["f0", "f1"]], y)
    assert small.dag_ is small.dag_  # made once


def test_rng_r_replays_the_function_form():
    X, y = _data()
    clf = StagedTreeClassifier(method="tan_hc", rng="R", random_state=2020).fit(X, y)
    again = StagedTreeClassifier(method="tan_hc", rng="R", random_state=2020).fit(X, y)
    assert clf.model_.stages() == again.model_.stages()
    structure = bnc.tan_hc(clf.class_name_, _frame(clf, X, y), k=5, smooth=1, rng="R", seed=2020)
    assert clf.bnc_.families == structure.families


def test_class_column_name_never_collides():
    X, y = _data()
    clf = StagedTreeClassifier().fit(X.rename(columns={"a": "__class__"}), y)
    assert clf.class_name_ == "___class__"
    assert clf.predict(X.rename(columns={"a": "__class__"})).shape == (len(y),)


def test_missing_values_and_undefined_rows():
    X, y = _data()
    clf = StagedTreeClassifier(method="naive", random_state=0).fit(X, y)
    incomplete = X.iloc[:3].copy()
    incomplete.loc[0, "b"] = None
    np.testing.assert_allclose(clf.predict_proba(incomplete).sum(axis=1), 1)
    # lambda_ = 0: a row through an unobserved situation of every class has no
    # posterior; it gets the class marginal
    Xs = pd.DataFrame({"a": ["u", "u", "v", "v"], "b": ["x", "x", "y", "y"]})
    ys = ["p", "p", "q", "q"]
    zero = StagedTreeClassifier(method="full_bhc", lambda_=0, ordering=None).fit(Xs, ys)
    post = zero.predict_proba(pd.DataFrame({"a": ["u"], "b": ["y"]}))
    np.testing.assert_allclose(post, [[0.5, 0.5]])


def test_pipeline_tools():
    X, y = _data(200)
    scores = cross_val_score(StagedTreeClassifier(), X, y, cv=4)
    assert scores.shape == (4,) and np.all(scores > 0.6)
    grid = GridSearchCV(StagedTreeClassifier(), {"method": ["tan_cl", "naive"],
                                                 "refine": ["bhc", None]}, cv=3).fit(X, y)
    assert grid.best_estimator_.predict(X).shape == (200,)


def test_errors():
    X, y = _data()
    with pytest.raises(ValueError, match="method"):
        StagedTreeClassifier(method="svm").fit(X, y)
    with pytest.raises(ValueError, match="refine"):
        StagedTreeClassifier(refine="hc").fit(X, y)
    with pytest.raises(TypeError, match="discretize"):
        StagedTreeClassifier().fit(np.random.default_rng(0).random((10, 2)), [0, 1] * 5)
    with pytest.raises(TypeError, match="random_state"):
        StagedTreeClassifier(method="tan_hc", rng="R").fit(X, y)
    clf = StagedTreeClassifier().fit(X, y)
    with pytest.raises(ValueError, match="not a level"):
        clf.predict(X.assign(b="zzz"))
    with pytest.raises(ValueError, match="feature names"):
        clf.predict(X[["a", "b"]])
    with pytest.raises(ValueError, match="3 features"), pytest.warns(UserWarning, match="names"):
        clf.predict(X[["a", "b"]].to_numpy())



@pytest.mark.parametrize("method", ["tan_hc", "kdb"])
def test_folds_are_named_folds(method):
    # bnc's message says `k`, which is another parameter of the estimator
    X, y = _data(8)
    with pytest.raises(ValueError, match="`folds` must be at most the number of rows"):
        StagedTreeClassifier(method=method, folds=9).fit(X, y)


@pytest.mark.parametrize("method", ["nb", "tan_cl", "naive", "full_bhc"])
def test_a_feature_without_values_is_named_as_x(method):
    X, y = _data()
    with pytest.raises(ValueError, match=r"`X` column\(s\) \['b'\] have no observed value"):
        StagedTreeClassifier(method=method, random_state=0).fit(X.assign(b=np.nan), y)


def test_predict_names_x():
    X, y = _data()
    clf = StagedTreeClassifier().fit(X, y)
    for method in (clf.predict, clf.predict_proba):
        with pytest.raises(ValueError, match="`X`: column 'b' has value 'zzz' that is not a level"):
            method(X.assign(b="zzz"))
        with pytest.raises(ValueError, match="`X` is empty"):
            method(X.iloc[:0])


@pytest.mark.parametrize("estimator", [
    *(StagedTreeClassifier(method=m, random_state=0) for m in ("nb", "tan_cl", "naive", "full_bhc")),
    *(bnc.BNClassifier(structure=s, random_state=0) for s in ("nb", "tan_cl", "kdb", "aode"))])
def test_errors_about_feature_values_name_x(estimator):
    X, y = _data()
    with pytest.raises(TypeError, match="^`X`: column 'c' holds non-categorical floats"):
        estimator.fit(X.assign(c=np.linspace(0.05, 0.95, len(X))), y)


def test_unknown_values_are_quoted_plainly():
    X = np.array([[1, 0], [1, 1], [2, 0], [2, 1]] * 5)
    clf = bnc.BNClassifier().fit(X, [0, 1, 0, 1] * 5)
    with pytest.raises(ValueError, match=r"^`X`: column 'x0' has value '0' that is not a level"):
        clf.predict([[0, 1]])


@pytest.mark.parametrize("estimator", [StagedTreeClassifier(), bnc.BNClassifier()])
def test_whole_floats_in_an_object_array_meet_integer_levels(estimator):
    # X.to_numpy() of a frame whose int column has a NaN holds 1.0 where the
    # training array held 1
    X = pd.DataFrame({"a": [1, 1, 2, 2, 1, 2], "b": list("uvuvvu")})
    y = list("ppqqpq")
    clf = estimator.fit(X.to_numpy(), y)
    with_nan = X.copy()
    with_nan.loc[0, "a"] = np.nan
    as_none = X.to_numpy()
    as_none[0, 0] = None
    np.testing.assert_allclose(clf.predict_proba(with_nan.to_numpy()), clf.predict_proba(as_none))
    with pytest.raises(TypeError, match="non-categorical floats"):
        clf.predict_proba(X.assign(a=[1.5, 1, 2, 2, 1, 2]).to_numpy())


@pytest.mark.parametrize("estimator", [StagedTreeClassifier(), bnc.BNClassifier()])
def test_classes_that_read_as_one_are_refused(estimator):
    # y = [1, "1", ...] became the strings "1", "1": two classes merged into one
    X = pd.DataFrame({"a": list("uvuv")})
    with pytest.raises(ValueError, match="`y` has values 1 and '1' that read as the same level"):
        estimator.fit(X, [1, "1", 2, 2])


@pytest.mark.parametrize("method", ["full_bhc", "naive"])
def test_ordering_lists_the_features_and_the_class_comes_first(method):
    X, y = classification_frame(120, seed=5)
    clf = StagedTreeClassifier(method=method, ordering=["c", "a", "b"], random_state=0).fit(X, y)
    assert clf.model_.variables == [clf.class_name_, "c", "a", "b"]
    # a feature named like the internal class column moves the class name, not the order
    renamed = X.rename(columns={"a": "__class__"})
    clf = StagedTreeClassifier(method=method, ordering=["c", "__class__", "b"],
                               random_state=0).fit(renamed, y)
    assert clf.model_.variables == ["___class__", "c", "__class__", "b"]
    by_callable = StagedTreeClassifier(
        method=method, random_state=0,
        ordering=lambda data, class_: [class_, "b", "c", "a"]).fit(X, y)
    assert by_callable.model_.variables[1:] == ["b", "c", "a"]
    for bad in (["c", "a"], ["c", "a", "a", "b"], ["c", "a", "b", "z"]):
        with pytest.raises(ValueError, match="ordering` must list every feature once"):
            StagedTreeClassifier(method=method, ordering=bad).fit(X, y)
    for listed in (np.array(["c", "a", "b"]), pd.Index(["c", "a", "b"]), pd.Series(["c", "a", "b"])):
        clf = StagedTreeClassifier(method=method, ordering=listed, random_state=0).fit(X, y)
        assert clf.model_.variables[1:] == ["c", "a", "b"]
    with pytest.raises(TypeError, match="`ordering` must be one of .*a list of the features"):
        StagedTreeClassifier(method=method, ordering={"c", "a", "b"}).fit(X, y)


def _rare_level_data():
    """Training rows without level "w" of feature "a", which the test rows hold."""
    X, y = classification_frame(80, seed=3)
    X = X.assign(a=X["a"].astype(str))
    test = X.iloc[:4].copy()
    test.loc[test.index[:2], "a"] = "w"
    return X, y, test


@pytest.mark.parametrize("estimator", [StagedTreeClassifier(), bnc.BNClassifier(),
                                       bnc.BNClassifier(structure="tan_cl")])
def test_handle_unknown_missing_sums_unknown_levels_out(estimator):
    X, y, test = _rare_level_data()
    clf = estimator.fit(X, y)
    with pytest.raises(ValueError, match="'w' that is not a level.*handle_unknown='missing'"):
        clf.predict_proba(test)
    as_missing = test.copy()
    as_missing.loc[test["a"] == "w", "a"] = np.nan
    expected = clf.predict_proba(as_missing)
    lenient = clone(estimator).set_params(handle_unknown="missing").fit(X, y)
    np.testing.assert_allclose(lenient.predict_proba(test), expected)
    np.testing.assert_array_equal(lenient.predict(test), clf.predict(as_missing))
    with pytest.raises(ValueError, match="handle_unknown"):
        clone(estimator).set_params(handle_unknown="ignore").fit(X, y)


def test_handle_unknown_missing_lets_cross_validation_meet_rare_levels():
    X, y = classification_frame(60, seed=4)
    X = X.assign(a=X["a"].astype(str))
    X.loc[0, "a"] = "rare"  # in one fold's test rows only
    with pytest.warns(UserWarning, match="not a level"):  # scikit-learn's fit-failure warning
        strict = cross_val_score(StagedTreeClassifier(), X, y, cv=3)
    assert np.isnan(strict).any()
    lenient = cross_val_score(StagedTreeClassifier(handle_unknown="missing"), X, y, cv=3)
    assert not np.isnan(lenient).any()


def _missing_in_training(n=2000, seed=0):
    """Feature "a" is noise, missing mostly where the informative "b" is "pos"."""
    rng = np.random.default_rng(seed)
    y = rng.choice(["neg", "pos"], n)
    b = np.where(rng.random(n) < 0.8, y, np.where(y == "pos", "neg", "pos"))
    a = pd.Series(rng.choice(["u", "v"], n)).where(
        rng.random(n) > np.where(b == "pos", 0.95, 0.05))
    return pd.DataFrame({"a": a, "b": b}), y


def test_features_with_missing_values_come_late_in_a_classifier_tree():
    X, y = _missing_in_training()
    test = pd.DataFrame({"a": [np.nan, "u"], "b": ["pos", "neg"]})
    forward = StagedTreeClassifier(method="nb", refine=None).fit(X, y)
    backward = StagedTreeClassifier(method="nb", refine=None).fit(X[["b", "a"]], y)
    assert forward.model_.variables[1:] == ["b", "a"]
    np.testing.assert_allclose(forward.predict_proba(test),
                               backward.predict_proba(test[["b", "a"]]))
    # b is fitted on every row, as in the network classifier
    network = bnc.BNClassifier().fit(X, y)
    np.testing.assert_allclose(forward.predict_proba(test), network.predict_proba(test))


@pytest.mark.parametrize("method", ["tan_cl", "tan_hc", "kdb"])
@pytest.mark.filterwarnings("ignore:StagedTreeClassifier.*is fitted on")  # as it should: a is
def test_the_network_refined_is_bnclassify_s_on_data_with_missing_values(method):  # half missing
    X, y = _missing_in_training(300, seed=2)
    X = X.assign(c=np.where(np.random.default_rng(3).random(300) < 0.2, None, X["b"]))
    clf = StagedTreeClassifier(method=method, k=2, random_state=2, rng="R").fit(X, y)
    data = X.assign(**{clf.class_name_: pd.Categorical(y).rename_categories(["0", "1"])})
    learner = {"tan_cl": lambda: bnc.tan_cl(clf.class_name_, data),
               "tan_hc": lambda: bnc.tan_hc(clf.class_name_, data, k=5, epsilon=0.01, smooth=1,
                                            rng="R", seed=2),
               "kdb": lambda: bnc.kdb(clf.class_name_, data, k=5, kdbk=2, epsilon=0.01,
                                      smooth=1, rng="R", seed=2)}[method]
    assert bnc.families(clf.bnc_) == bnc.families(learner())


def test_fit_warns_when_a_missing_value_starves_later_variables():
    X, y = _missing_in_training()
    kept, share = int(X["a"].notna().sum()), round(100 * X["a"].isna().mean())
    with pytest.warns(UserWarning, match=rf"'b' is fitted on {kept} of the 2000 rows that "
                                         rf"observe it.*'a' \(earlier in the order\) is "
                                         rf"missing in {share}%"):
        StagedTreeClassifier(method="full_bhc", ordering=None).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        StagedTreeClassifier(method="full_bhc", ordering=["b", "a"]).fit(X, y)
        StagedTreeClassifier(method="full_bhc", ordering=None).fit(X.dropna(), y[X["a"].notna()])


def test_randomness_tags_and_checks_follow_what_the_method_draws():
    X, y = _data()
    assert not StagedTreeClassifier(method="naive", cluster="hclust").__sklearn_tags__(
    ).non_deterministic
    assert StagedTreeClassifier(method="naive").__sklearn_tags__().non_deterministic
    # tan_cl draws nothing: rng="R" needs no seed
    a = StagedTreeClassifier(method="tan_cl", rng="R").fit(X, y)
    np.testing.assert_array_equal(a.predict_proba(X),
                                  StagedTreeClassifier(method="tan_cl").fit(X, y).predict_proba(X))


@pytest.mark.parametrize("method", ["nb", "tan_cl", "tan_hc", "kdb"])
@pytest.mark.parametrize("ordering", [["b", "a"], lambda data, class_: [class_, "b", "a"]],
                         ids=["list", "callable"])
def test_an_ordering_the_network_methods_ignore_is_refused(method, ordering):
    X = pd.DataFrame({"a": list("xyxyxy"), "b": list("uuvvuv")})
    clf = StagedTreeClassifier(method=method, ordering=ordering)
    with pytest.raises(ValueError, match=rf"`ordering` orders the features of the methods "
                                         rf"'naive', .* method='{method}' orders them by its"):
        clf.fit(X, list("pqpqpq"))
    # the named orderings (the default "cmi" among them) stay accepted
    StagedTreeClassifier(method="nb", ordering="mi").fit(X, list("pqpqpq"))
