"""Classifiers fitted from Dask collections are those fitted from the same rows in
pandas: the parameters of BNClassifier ("nb", "tan_cl" under each score, "aode",
with and without weights), the staged trees of StagedTreeClassifier, and the
lazily computed posteriors and labels."""
import warnings

import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from dask_frames import ON_CLUSTER, ON_LOCAL, partition_cuts, split
from hypothesis import assume, given, settings
from hypothesis import strategies as hst
from strategies import categorical_frames

import pystagedtrees as st
from pystagedtrees import StagedTreeClassifier
from pystagedtrees.bnc import BNClassifier


@pytest.fixture
def labelled(frame):
    """Features (with missing values), labels that depend on them, and weights."""
    rng = np.random.default_rng(11)
    noisy = rng.random(len(frame)) < 0.3
    y = pd.Series(np.where(noisy, rng.choice(["no", "yes"], len(frame)),
                           np.where(frame["B"] == "b0", "yes", "no")), name="label")
    weights = pd.Series(rng.integers(0, 4, len(frame)).astype(float), name="w")
    return frame, y, weights


def assert_same_network(dask_model, pandas_model):
    dask_parts = dask_model.models if dask_model.is_aode else [dask_model]
    pandas_parts = pandas_model.models if pandas_model.is_aode else [pandas_model]
    for got, expected in zip(dask_parts, pandas_parts, strict=True):
        assert got.families == expected.families
        assert got.params.keys() == expected.params.keys()
        for v, table in expected.params.items():
            np.testing.assert_allclose(got.params[v], table, rtol=1e-12)


def assert_same_predictions(dask_clf, pandas_clf, dask_X, X):
    proba = dask_clf.predict_proba(dask_X)
    assert isinstance(proba, dd.DataFrame)  # lazy
    np.testing.assert_allclose(proba.compute().to_numpy(), pandas_clf.predict_proba(X),
                               rtol=1e-12)
    assert list(proba.columns) == list(pandas_clf.classes_)
    labels = dask_clf.predict(dask_X)
    assert isinstance(labels, dd.Series)
    np.testing.assert_array_equal(labels.compute().to_numpy(), pandas_clf.predict(X))


STRUCTURES = [("nb", "loglik"), ("tan_cl", "loglik"), ("tan_cl", "bic"), ("tan_cl", "aic"),
              ("aode", "loglik")]


@pytest.mark.parametrize(
    "structure, score, scheduler, n_partitions",
    [(*s, "local", n) for s in STRUCTURES for n in ([1, 3, 17] if s[1] == "loglik" else [17])],
    indirect=["scheduler"])
def test_bnclassifier_matches_pandas(labelled, structure, score, n_partitions, scheduler):
    check_bnclassifier(labelled, structure, score, n_partitions)


@ON_CLUSTER
def test_bnclassifier_matches_pandas_on_a_cluster(labelled, n_partitions, scheduler):
    check_bnclassifier(labelled, "tan_cl", "bic", n_partitions, weighted=[True])


def check_bnclassifier(labelled, structure, score, n_partitions, weighted=(False, True)):
    X, y, weights = labelled
    cuts = partition_cuts(len(X), n_partitions, seed=3)
    dX, dy, dw = split(X, cuts), split(y, cuts), split(weights, cuts)
    for weigh in weighted:
        dask_weights, pandas_weights = (dw, weights) if weigh else (None, None)
        clf = BNClassifier(structure=structure, edge_score=score)
        got = clf.fit(dX, dy, sample_weight=dask_weights)
        expected = BNClassifier(structure=structure, edge_score=score).fit(
            X, y, sample_weight=pandas_weights)
        np.testing.assert_array_equal(got.classes_, expected.classes_)
        assert got.n_features_in_ == expected.n_features_in_
        np.testing.assert_array_equal(got.feature_names_in_, expected.feature_names_in_)
        assert_same_network(got.model_, expected.model_)
        assert_same_predictions(got, expected, dX, X)


METHODS = [dict(method="nb"), dict(method="tan_cl", refine="fbhc"),
           dict(method="full_bhc", ordering=None),
           dict(method="full_fbhc", ordering=["D", "A", "C", "B"])]


@ON_LOCAL
@pytest.mark.parametrize("params", METHODS)
def test_staged_tree_classifier_matches_pandas(labelled, params, n_partitions, scheduler):
    check_staged_tree_classifier(labelled, params, n_partitions)


@ON_CLUSTER
def test_staged_tree_classifier_matches_pandas_on_a_cluster(labelled, n_partitions, scheduler):
    check_staged_tree_classifier(labelled, METHODS[1], n_partitions)


def check_staged_tree_classifier(labelled, params, n_partitions):
    X, y, _ = labelled
    cuts = partition_cuts(len(X), n_partitions, seed=4)
    dX, dy = split(X, cuts), split(y, cuts)
    got, got_warnings = fit_recording_warnings(StagedTreeClassifier(**params), dX, dy)
    expected, expected_warnings = fit_recording_warnings(StagedTreeClassifier(**params), X, y)
    assert got_warnings == expected_warnings
    assert got.model_.variables == expected.model_.variables
    assert got.model_.stages() == expected.model_.stages()
    np.testing.assert_allclose(float(st.logLik(got.model_)), float(st.logLik(expected.model_)),
                               rtol=1e-12)
    if expected.bnc_ is not None:
        assert_same_network(got.bnc_, expected.bnc_)
    assert_same_predictions(got, expected, dX, X)


def fit_recording_warnings(estimator, X, y):
    """The fitted estimator and the warnings of its fit: (category, text, file) each."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        estimator.fit(X, y)
    return estimator, [(w.category, str(w.message), w.filename) for w in caught
                       if issubclass(w.category, UserWarning)]


@pytest.mark.parametrize("params", METHODS)
def test_rows_lost_to_missing_values_warn_as_in_pandas(labelled, params):
    """A feature missing in most rows, early in the tree: the later variables are fitted
    on few of the rows observing them, which the Dask fit says as pandas says it."""
    import dask

    X, y, _ = labelled
    X = X.copy()
    X.loc[np.random.default_rng(8).random(len(X)) < 0.7, "D"] = np.nan
    params = {**params, "ordering": ["D", "A", "C", "B"]} if "ordering" in params else params
    cuts = partition_cuts(len(X), 5, seed=9)
    with dask.config.set(scheduler="sync"):
        _, got = fit_recording_warnings(StagedTreeClassifier(**params), split(X, cuts),
                                        split(y, cuts))
    _, expected = fit_recording_warnings(StagedTreeClassifier(**params), X, y)
    assert got == expected
    assert params["method"] == "nb" or any("is fitted on" in w[1] for w in got)
    assert all(w[2] == __file__ for w in got)  # the user's line


def test_integer_labels_keep_their_type(labelled):
    import dask

    X, y, _ = labelled
    codes = pd.Series((y == "yes").astype(int) * 7)  # classes 0 and 7
    with dask.config.set(scheduler="sync"):
        got = BNClassifier().fit(split(X, [100]), split(codes, [100]))
        np.testing.assert_array_equal(got.classes_, BNClassifier().fit(X, codes).classes_)
        assert got.predict(split(X, [100])).compute().dtype == got.classes_.dtype


def test_columns_of_one_parquet_dataset_pair_up(tmp_path):
    """Read for fewer columns, Dask merges Parquet files into fewer partitions: X and
    y of one dataset must still pair row by row (they are read in one graph)."""
    import dask

    pytest.importorskip("pyarrow")
    rng = np.random.default_rng(5)
    pieces = [pd.DataFrame({f"V{j:02d}": pd.Categorical(rng.choice(["a", "b", "c"], 3000),
                                                        categories=["a", "b", "c"])
                            for j in range(12)}) for _ in range(6)]
    for i, piece in enumerate(pieces):
        piece.to_parquet(tmp_path / f"part-{i}.parquet", index=False)
    data = pd.concat(pieces, ignore_index=True)
    ddf = dd.read_parquet(tmp_path).astype({c: data[c].dtype for c in data.columns})
    features = list(data.columns[1:])
    with dask.config.set(scheduler="sync"):
        got = BNClassifier(structure="tan_cl").fit(ddf[features], ddf["V00"])
        expected = BNClassifier(structure="tan_cl").fit(data[features], data["V00"])
        assert_same_network(got.model_, expected.model_)
        assert_same_predictions(got, expected, ddf[features], data[features])


@settings(max_examples=12, deadline=None)
@given(data=categorical_frames(min_vars=3, max_rows=40),
       cuts=hst.lists(hst.integers(0, 40), max_size=6),
       structure=hst.sampled_from(["nb", "tan_cl", "aode"]))
def test_any_partitioning_gives_the_pandas_classifier(data, cuts, structure):
    import dask

    X, y = data.iloc[:, 1:], data.iloc[:, 0].astype(object)
    assume(y.notna().all() and len(X.columns) >= 1)
    assume(all(X[c].notna().any() for c in X.columns))  # pandas refuses an all-missing column
    cuts = [min(c, len(data)) for c in cuts]
    with dask.config.set(scheduler="sync"):
        got = BNClassifier(structure=structure).fit(split(X, cuts), split(y, cuts))
        expected = BNClassifier(structure=structure).fit(X, y)
        np.testing.assert_array_equal(got.classes_, expected.classes_)
        assert_same_network(got.model_, expected.model_)
        np.testing.assert_allclose(got.predict_proba(split(X, cuts)).compute().to_numpy(),
                                   expected.predict_proba(X), rtol=1e-12)


def test_partitions_holding_different_labels_add_up(labelled):
    """Each partition counts over the labels it holds, in its own order; the sum lines
    the class axes up (a class missing from most partitions, weights that are not whole)."""
    import dask

    X, _, _ = labelled
    rng = np.random.default_rng(2)
    y = pd.Series(np.r_[["c"] * 100, rng.choice(["b", "a"], 300), rng.choice(["a", "c"], 200)])
    weights = pd.Series(rng.random(len(X)))
    cuts = [100, 100, 250, 400]
    with dask.config.set(scheduler="sync"):
        for structure in ("nb", "tan_cl", "aode"):
            got = BNClassifier(structure=structure).fit(split(X, cuts), split(y, cuts),
                                                        sample_weight=split(weights, cuts))
            expected = BNClassifier(structure=structure).fit(X, y, sample_weight=weights)
            np.testing.assert_array_equal(got.classes_, ["a", "b", "c"])
            assert_same_network(got.model_, expected.model_)


def test_each_partition_is_read_and_counted_in_one_task(tmp_path):
    """The fit of a Parquet dataset runs one task per file (read, pair with the labels,
    count every table) and the tasks of the sum: no separate pass for the labels."""
    import dask
    from dask.callbacks import Callback

    pytest.importorskip("pyarrow")
    rng = np.random.default_rng(6)
    for i in range(5):
        pd.DataFrame({f"V{j}": pd.Categorical(rng.choice(["a", "b"], 200), categories=["a", "b"])
                      for j in range(4)}).to_parquet(tmp_path / f"part-{i}.parquet", index=False)
    ddf = dd.read_parquet(tmp_path).astype(pd.CategoricalDtype(["a", "b"]))
    started = []
    with dask.config.set(scheduler="sync"), Callback(pretask=lambda key, *_: started.append(key)):
        BNClassifier(structure="tan_cl").fit(ddf[["V1", "V2", "V3"]], ddf["V0"])
    assert len(started) == 5 + 1
