"""BNClassifier as a scikit-learn estimator."""
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st_hyp
from sklearn.base import clone
from sklearn.ensemble import AdaBoostClassifier
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import FunctionTransformer
from sklearn.utils.estimator_checks import parametrize_with_checks
from strategies import classification_frame

import pystagedtrees.bnc as bnc
from pystagedtrees.bnc import BNClassifier
from pystagedtrees.bnc._estimator import WEIGHTED_STRUCTURES

NOT_APPLICABLE = {
    "check_positive_only_tag_during_fit": (
        "with the categorical and allow_nan tags scikit-learn passes integer codes "
        "as floats and then centres them, giving non-integral floats; continuous "
        "features are refused by design (discretize first)"
    ),
}


CONTINUOUS_WEIGHT_CHECKS = {
    check: "draws continuous features, refused by design; tested on categorical data "
    "in test_integer_weights_are_repeated_rows and test_zero_weights_are_dropped_rows"
    for check in ("check_sample_weight_equivalence_on_dense_data",
                  "check_classifiers_one_label_sample_weights")
}
UNWEIGHTED_STRUCTURE_CHECKS = {
    check: "the cross-validated searches take no sample_weight (a ValueError)"
    for check in ("check_sample_weights_pandas_series", "check_sample_weights_not_an_array",
                  "check_sample_weights_list", "check_sample_weights_shape",
                  "check_sample_weights_not_overwritten")
}


def expected_failures(estimator):
    if estimator.structure in WEIGHTED_STRUCTURES:
        return {**NOT_APPLICABLE, **CONTINUOUS_WEIGHT_CHECKS}
    return {**NOT_APPLICABLE, **CONTINUOUS_WEIGHT_CHECKS, **UNWEIGHTED_STRUCTURE_CHECKS}


@parametrize_with_checks(
    [BNClassifier(), BNClassifier(structure="tan_cl"),
     BNClassifier(structure="tan_hc", random_state=0), BNClassifier(structure="aode")],
    expected_failed_checks=expected_failures,
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def _data(n=120, seed=0):
    return classification_frame(n, seed)


@pytest.mark.parametrize("structure", ["nb", "tan_cl", "tan_hc", "tan_hcsp", "kdb",
                                       "fssj", "bsej", "aode"])
def test_matches_the_functional_api(structure):
    X, y = _data()
    clf = BNClassifier(structure=structure, smooth=1, k=3, epsilon=0, random_state=4).fit(X, y)
    frame = X.assign(__class__=pd.Categorical.from_codes(
        np.searchsorted(clf.classes_, y), categories=["0", "1"]))
    args = {} if structure in ("nb", "tan_cl", "aode") else dict(k=3, epsilon=0, smooth=1)
    model = bnc.bnc(structure, "__class__", frame, smooth=1, dag_args=args, seed=4)
    np.testing.assert_allclose(clf.predict_proba(X), bnc.predict(model, frame, prob=True))
    assert list(clf.classes_) == ["no", "yes"]


def test_integer_coded_arrays_and_dataframes_agree():
    X, y = _data()
    codes = np.column_stack([pd.Categorical(X[c]).codes for c in X])
    clf_frame = BNClassifier(structure="tan_cl").fit(X.astype(str), y)
    clf_codes = BNClassifier(structure="tan_cl").fit(codes, y)
    np.testing.assert_allclose(clf_frame.predict_proba(X.astype(str)),
                               clf_codes.predict_proba(codes))
    assert list(clf_frame.feature_names_in_) == ["a", "b", "c"]


def test_pipeline_cross_val_and_grid_search():
    X, y = _data(200)
    pipe = Pipeline([("to_str", FunctionTransformer(lambda d: d.astype(str))),
                     ("bnc", BNClassifier())])
    scores = cross_val_score(pipe, X, y, cv=4)
    assert scores.shape == (4,) and np.all(scores > 0.6)
    grid = GridSearchCV(BNClassifier(), {"structure": ["nb", "tan_cl"], "smooth": [0.5, 1.0]},
                        cv=3).fit(X, y)
    assert grid.best_params_["structure"] in ("nb", "tan_cl")
    assert grid.best_estimator_.predict(X).shape == (200,)


def test_missing_values_at_prediction():
    X, y = _data()
    clf = BNClassifier().fit(X, y)
    incomplete = X.iloc[:3].copy()
    incomplete.loc[0, "a"] = None
    post = clf.predict_proba(incomplete)
    np.testing.assert_allclose(post.sum(axis=1), 1)
    # Naive Bayes: a missing feature simply drops out of the product.
    without = BNClassifier().fit(X[["b", "c"]], y).predict_proba(X.iloc[:1][["b", "c"]])
    np.testing.assert_allclose(post[0], without[0])


def test_errors():
    X, y = _data()
    with pytest.raises(ValueError, match="structure"):
        BNClassifier(structure="svm").fit(X, y)
    with pytest.raises(TypeError, match="discretize"):
        BNClassifier().fit(np.random.default_rng(0).random((10, 2)), [0, 1] * 5)
    clf = BNClassifier().fit(X, y)
    with pytest.raises(ValueError, match="not a level"):
        clf.predict(X.assign(b="zzz"))
    with pytest.raises(ValueError, match="n_samples"):
        BNClassifier(structure="kdb", k=500).fit(X, y)


def test_kdbk_is_at_least_one_and_at_most_the_features():
    X, y = _data()
    with pytest.raises(ValueError, match="`kdbk` must be"):
        BNClassifier(structure="nb", kdbk=0).fit(X, y)
    one = X[["a"]]
    capped = BNClassifier(structure="kdb", kdbk=2, k=3, random_state=0).fit(one, y)
    frame = one.assign(__class__=pd.Categorical.from_codes(
        np.searchsorted(capped.classes_, y), categories=["0", "1"]))
    model = bnc.bnc("kdb", "__class__", frame, smooth=1, dag_args=dict(k=3, kdbk=1),
                    seed=0)
    np.testing.assert_allclose(capped.predict_proba(one), bnc.predict(model, frame, prob=True))
    with pytest.raises(ValueError, match="exceeds the number of features"):
        bnc.kdb("__class__", frame, k=3, kdbk=2)  # as bnclassify


def test_a_feature_without_values_is_named_as_x():
    X, y = _data()
    with pytest.raises(ValueError, match=r"`X` column\(s\) \['b'\] have no observed value"):
        BNClassifier().fit(X.assign(b=np.nan), y)


def test_a_feature_named_like_the_class_column_is_kept():
    X, y = _data()
    renamed = X.rename(columns={"a": "__class__"})
    clf = BNClassifier(structure="tan_cl").fit(renamed, y)
    assert clf.class_name_ == "___class__"
    assert sorted(clf.model_.features) == ["__class__", "b", "c"]
    np.testing.assert_allclose(clf.predict_proba(renamed),
                               BNClassifier(structure="tan_cl").fit(X, y).predict_proba(X))


def test_ties_go_to_the_first_class_whatever_the_batch():
    # every posterior is exactly 1/2: the label may not depend on the call or the other rows
    X = pd.DataFrame({"a": list("uvuv")})
    y = ["p", "p", "q", "q"]
    clf = BNClassifier(random_state=0).fit(X, y)
    np.testing.assert_array_equal(clf.predict_proba(X), 0.5)
    assert {tuple(clf.predict(X)) for _ in range(10)} == {("p", "p", "p", "p")}
    assert [clf.predict(X.iloc[[r, 0]])[0] for r in range(4)] == ["p"] * 4


@st_hyp.composite
def weighted_categorical_data(draw, min_weight):
    """Categorical features (some values missing), a class, and integer row weights."""
    n = draw(st_hyp.integers(4, 30))
    seed = draw(st_hyp.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    # the first row observes every feature: a column of nothing is refused
    # (by fit_input) before any weighting
    X = pd.DataFrame({
        name: np.where((rng.random(n) < 0.1) & (np.arange(n) > 0), None,
                       rng.choice(list("uvw")[:k], n))
        for name, k in (("a", 2), ("b", 3), ("c", 2))
    })
    y = rng.choice(["p", "q", "r"][:draw(st_hyp.integers(2, 3))], n)
    weights = rng.integers(min_weight, 4, n)
    return X, y, weights


WEIGHTED_CLASSIFIERS = [
    BNClassifier(), BNClassifier(structure="aode"), BNClassifier(structure="tan_cl", smooth=0.5),
    *(BNClassifier(structure="tan_cl", edge_score=s) for s in ("bic", "aic")),
]


UNSCORABLE = "never observed together with the class"


def fit_or_refusal(classifier, X, y, sample_weight=None):
    """The fitted clone, or the message of tan_cl's refusal of two features
    that no (weighted) row observes together (R stops there too)."""
    try:
        return clone(classifier).fit(X, y, sample_weight=sample_weight)
    except ValueError as exc:
        if UNSCORABLE not in str(exc):
            raise
        return str(exc)


def assert_same_model(fitted, expected, X):
    if isinstance(expected, str):  # refused: so must the other fit be
        assert isinstance(fitted, str) and UNSCORABLE in fitted
        return
    assert fitted.model_.families == expected.model_.families
    assert fitted.model_.levels == expected.model_.levels
    np.testing.assert_allclose(fitted.predict_proba(X), expected.predict_proba(X),
                               rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("classifier", WEIGHTED_CLASSIFIERS, ids=repr)
@settings(max_examples=40, deadline=None)
@given(data=weighted_categorical_data(min_weight=1))
def test_integer_weights_are_repeated_rows(classifier, data):
    X, y, weights = data
    rows = np.repeat(np.arange(len(y)), weights)
    repeated = fit_or_refusal(classifier, X.iloc[rows], y[rows])
    weighted = fit_or_refusal(classifier, X, y, sample_weight=weights)
    # the structure too is learned from the weighted counts: the BIC/AIC edges
    # of tan_cl are penalised with the weighted number of rows
    assert_same_model(weighted, repeated, X)


@pytest.mark.parametrize("classifier", WEIGHTED_CLASSIFIERS, ids=repr)
@settings(max_examples=30, deadline=None)
@given(data=weighted_categorical_data(min_weight=1), extra_seed=st_hyp.integers(0, 1000))
def test_zero_weights_are_dropped_rows(classifier, data, extra_seed):
    X, y, weights = data
    rng = np.random.default_rng(extra_seed)
    # more rows of values already seen, so that dropping them loses no level
    extra = pd.DataFrame({c: rng.choice(X[c].to_numpy(), 5) for c in X.columns})
    X_all = pd.concat([X, extra], ignore_index=True)
    y_all = np.concatenate([y, rng.choice(y, 5)])
    kept = fit_or_refusal(classifier, X, y, sample_weight=weights)
    weighted = fit_or_refusal(classifier, X_all, y_all,
                              sample_weight=np.concatenate([weights, np.zeros(5)]))
    assert_same_model(weighted, kept, X_all)


@pytest.mark.parametrize("classifier", WEIGHTED_CLASSIFIERS, ids=repr)
def test_unit_weights_are_no_weights(classifier):
    X, y = _data()
    plain = clone(classifier).fit(X, y)
    for weights in (np.ones(len(y)), 1, [1.0] * len(y), pd.Series(np.ones(len(y)))):
        weighted = clone(classifier).fit(X, y, sample_weight=weights)
        assert weighted.model_.families == plain.model_.families
        assert weighted.model_.lp_args == plain.model_.lp_args
        np.testing.assert_array_equal(weighted.predict_proba(X), plain.predict_proba(X))


def test_boosting_reweights_the_classifier():
    # AdaBoost refits on re-weighted rows: with weights ignored every round
    # would learn the same tables
    X, y = _data(200)
    boosted = AdaBoostClassifier(BNClassifier(), n_estimators=3, random_state=0).fit(X, y)
    first, second = (m.model_.params[m.model_.features[1]] for m in boosted.estimators_[:2])
    assert not np.allclose(first, second)


@pytest.mark.parametrize("weights, error, match", [
    (np.ones(5), ValueError, r"one weight per row of `X`, shape \(120,\); got shape \(5,\)"),
    (np.ones((120, 2)), ValueError, r"`sample_weight` must have one weight per row"),
    (np.r_[-1.0, np.ones(119)], ValueError, "`sample_weight` must hold finite weights >= 0"),
    (np.r_[np.nan, np.ones(119)], ValueError, "`sample_weight` must hold finite weights >= 0"),
    (np.r_[np.inf, np.ones(119)], ValueError, "`sample_weight` must hold finite weights >= 0"),
    (np.zeros(120), ValueError, "`sample_weight` must have a non-zero weight"),
    (np.full(120, 1e307), ValueError, "`sample_weight` is too large"),
    (["1"] * 120, TypeError, "`sample_weight` must hold real numbers"),
    (np.ones(120, dtype=bool), TypeError, "`sample_weight` must hold real numbers"),
    (sp.csr_matrix(np.ones((120, 1))), TypeError, "`sample_weight` must be a dense array"),
])
def test_bad_sample_weight(weights, error, match):
    X, y = _data()
    with pytest.raises(error, match=match):
        BNClassifier().fit(X, y, sample_weight=weights)


@pytest.mark.parametrize("structure", ["tan_hc", "tan_hcsp", "kdb", "fssj", "bsej"])
def test_cross_validated_searches_refuse_weights(structure):
    X, y = _data()
    with pytest.raises(ValueError, match=f"`sample_weight` .*structure='{structure}'"):
        BNClassifier(structure=structure).fit(X, y, sample_weight=np.ones(len(y)))
