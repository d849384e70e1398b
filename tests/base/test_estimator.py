"""What both scikit-learn classifiers share (base/_estimator.py): columns found by name."""
import numpy as np
import pandas as pd
import pytest

from pystagedtrees import StagedTreeClassifier
from pystagedtrees.bnc import BNClassifier

ESTIMATORS = [BNClassifier(structure="tan_cl"), StagedTreeClassifier(method="tan_cl"),
              StagedTreeClassifier(method="naive", random_state=0)]


def _data(columns):
    rng = np.random.default_rng(3)
    X = pd.DataFrame({c: rng.choice(list(levels), 200)
                      for c, levels in zip(columns, ["ab", "uvw", "xyz0"])})
    y = np.where((X[columns[0]] == "a") ^ (X[columns[2]] == "x"), "yes", "no")
    return X, y


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=repr)
@pytest.mark.parametrize("columns", [["f", "g", "h"], [10, 2, 7], [("a", 1), ("b", 2), ("c", 3)]],
                         ids=["strings", "integers", "tuples"])
def test_a_reordered_frame_gives_the_same_predictions(estimator, columns):
    X, y = _data(columns)
    clf = estimator.fit(X, y)
    shuffled = X[[columns[2], columns[0], columns[1]]]
    np.testing.assert_array_equal(clf.predict_proba(shuffled), clf.predict_proba(X))
    # the levels differ between columns: matched by position this would be refused
    assert (clf.predict(shuffled) == clf.predict(X)).all()


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=repr)
def test_other_columns_are_refused_by_name(estimator):
    X, y = _data([10, 2, 7])
    clf = estimator.fit(X, y)
    with pytest.raises(ValueError, match=r"lacks \[7\] and has \['7'\] besides"):
        clf.predict(X.rename(columns={7: "7"}))
    with pytest.raises(ValueError, match=r"lacks \[2\] and has \[\] besides"):
        clf.predict(X[[10, 7]])


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=repr)
def test_an_array_is_read_by_position(estimator):
    X, y = _data(["f", "g", "h"])
    clf = estimator.fit(X.to_numpy(), y)
    np.testing.assert_array_equal(clf.predict_proba(X.to_numpy()),
                                  estimator.fit(X, y).predict_proba(X))


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=repr)
def test_swapped_columns_of_other_levels_are_refused_naming_the_column_read(estimator):
    X, y = _data([10, 2, 7])  # 10: a/b, 7: x/y/z/0
    clf = estimator.fit(X, y)
    swapped = X.rename(columns={10: 7, 7: 10})  # names matched: column 10 now holds x/y/z/0
    with pytest.raises(ValueError, match=r"column '10' has value '[xyz0]' that is not a level"):
        clf.predict(swapped)
