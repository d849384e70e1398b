"""Fitting from Dask never gathers the rows, and bad Dask input is refused, with
the argument named, before any partition is computed."""
import pickle

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from dask_frames import split

import pystagedtrees as st
from pystagedtrees import StagedTreeClassifier
from pystagedtrees.bnc import BNClassifier


class RecordingScheduler:
    """Dask's synchronous scheduler, recording what each computation returns."""

    def __init__(self):
        self.results = []

    def __call__(self, dsk, keys, **kwargs):
        out = dask.get(dsk, keys, **kwargs)
        self.results.append(out)
        return out

    @property
    def gathered_bytes(self):
        return sum(len(pickle.dumps(result)) for result in self.results)


def contains_rows(value, n_rows):
    """Whether ``value`` holds a pandas object or array with as many rows as the data."""
    if isinstance(value, (pd.DataFrame, pd.Series)):
        return len(value) >= n_rows
    if isinstance(value, np.ndarray):
        return value.ndim >= 1 and value.shape[0] >= n_rows
    if isinstance(value, dict):
        return any(contains_rows(v, n_rows) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(contains_rows(v, n_rows) for v in value)
    return False


@pytest.fixture
def big(frame):
    """The test frame repeated: 30,000 rows, so that rows outweigh any table."""
    data = pd.concat([frame] * 50, ignore_index=True)
    y = pd.Series(np.where(data["B"] == "b0", "yes", "no"))
    return data, y


def test_fitting_gathers_tables_not_rows(big):
    data, y = big
    cuts = list(range(2000, len(data), 2000))
    ddf, dy = split(data, cuts), split(y, cuts)
    data_bytes = len(pickle.dumps(data))
    fits = {
        "full": lambda: st.full(ddf),
        "indep": lambda: st.indep(ddf, join_unobserved=False),
        "sevt_fit": lambda: st.sevt_fit(st.indep(data), ddf, lambda_=1),
        "make_ctables": lambda: st.make_ctables(st.indep(data), ddf),
        "BNClassifier": lambda: BNClassifier(structure="tan_cl").fit(ddf, dy),
        "StagedTreeClassifier": lambda: StagedTreeClassifier(method="nb").fit(ddf, dy),
    }
    for name, fit in fits.items():
        recorder = RecordingScheduler()
        with dask.config.set(scheduler=recorder):
            fit()
        assert recorder.results, name  # the counting ran through the scheduler
        assert not any(contains_rows(r, len(data)) for r in recorder.results), name
        assert recorder.gathered_bytes < data_bytes / 20, name


def test_prediction_is_lazy(frame):
    model = st.full(frame, lambda_=1)
    recorder = RecordingScheduler()
    with dask.config.set(scheduler=recorder):
        lazy = [st.predict(model, split(frame, [300])), st.prob(model, split(frame, [10])),
                st.path_probability(model, split(frame.dropna(), [10])),
                BNClassifier().fit(frame, frame["A"].fillna("a0")).predict_proba(
                    split(frame, [5]))]
    assert recorder.results == []  # nothing computed until asked
    assert all(isinstance(x, (dd.Series, dd.DataFrame)) for x in lazy)


def nothing_computed():
    """A scheduler that fails the test if anything is computed."""
    def refuse(dsk, keys, **kwargs):
        raise AssertionError("a partition was computed before the input was refused")
    return dask.config.set(scheduler=refuse)


@pytest.fixture
def strings(frame):
    """The frame as plain string columns: a Dask frame's levels are then unknown."""
    return frame.astype(object).where(frame.notna(), None)


def test_unknown_categories_are_refused_before_computing(frame, strings):
    ddf = split(strings, [100])
    y = split(pd.Series(["p", "q"] * 300), [100])
    with nothing_computed():
        for call in (lambda: st.full(ddf), lambda: st.indep(ddf),
                     lambda: BNClassifier().fit(ddf, y),
                     lambda: StagedTreeClassifier(method="nb").fit(ddf, y)):
            with pytest.raises(ValueError, match=r"`X`|`data`") as info:
                call()
            assert "categorize()" in str(info.value)
        with pytest.raises(ValueError, match=r"levels="):
            st.full(ddf)
        unknown = split(frame, [100]).astype({"B": "category"})  # categories unknown to Dask
        unknown = unknown.assign(B=unknown["B"].cat.as_unknown())
        with pytest.raises(ValueError, match=r"\['B'\].*categorize\(\)"):
            st.full(unknown)


def test_bad_levels_are_refused(frame):
    ddf = split(frame, [100])
    with nothing_computed():
        with pytest.raises(ValueError, match="`levels` names variable"):
            st.full(ddf, levels={"Z": ["a"]})
        with pytest.raises(TypeError, match="`levels` must be a dict"):
            st.full(ddf, levels=["a", "b"])
        with pytest.raises(ValueError, match="`order` names unknown"):
            st.full(ddf, order=["A", "Z"])
        with pytest.raises(ValueError, match="`data` lacks|`data` has no column"):
            st.sevt_fit(st.full(frame), ddf[["A", "B"]], lambda_=1)


def test_mismatched_partitions_are_refused_before_computing(frame):
    y = pd.Series(["p", "q"] * 300)
    X3, y2 = split(frame, [100, 200]), split(y, [100])
    X_sorted = dd.from_pandas(frame, npartitions=2)
    y_shifted = dd.from_pandas(y.set_axis(y.index + 7), npartitions=2)
    with nothing_computed():
        with pytest.raises(ValueError, match="`X` and `y` have different partitions"):
            BNClassifier().fit(X3, y2)
        with pytest.raises(ValueError, match="`X` and `sample_weight` have different"):
            BNClassifier().fit(X3, split(y, [100, 200]),
                               sample_weight=split(pd.Series(np.ones(600)), [5]))
        with pytest.raises(TypeError, match="`y` must be a Dask Series"):
            BNClassifier().fit(X3, y)
        with pytest.raises(TypeError, match="`X` must be a Dask DataFrame"):
            BNClassifier().fit(frame, split(y, [100, 200]))
        with pytest.raises(ValueError, match="different divisions"):
            BNClassifier().fit(X_sorted, y_shifted)


def test_partitions_of_different_lengths_are_refused(frame):
    y = pd.Series(["p", "q"] * 300)
    with dask.config.set(scheduler="sync"):
        with pytest.raises(ValueError, match="`X` and `y` have partitions of different lengths"):
            BNClassifier().fit(split(frame, [100]), split(y, [101]))


def test_methods_that_need_rows_refuse_dask_input(frame):
    X, y = split(frame, [100]), split(pd.Series(["p", "q"] * 300), [100])
    model = st.full(frame, lambda_=1)
    with nothing_computed():
        for structure in ("kdb", "tan_hc", "fssj", "bsej", "tan_hcsp"):
            with pytest.raises(TypeError, match=r"`X` is a Dask.*\['nb', 'tan_cl', 'aode'\]"):
                BNClassifier(structure=structure).fit(X, y)
        for params in (dict(method="kdb"), dict(method="tan_hc"), dict(method="naive"),
                       dict(method="full_bhc", ordering="cmi")):
            with pytest.raises(TypeError, match=r"`X` is a Dask.*these take Dask input"):
                StagedTreeClassifier(**params).fit(X, y)
        for rng, seed in ((np.random.default_rng(1), None), (st.rng.RRandom(1), None),
                          ("numpy", np.random.default_rng(1))):
            with pytest.raises(ValueError, match="`rng`: a random source .* in use"):
                st.predict(model, X, rng=rng, seed=seed)
        with pytest.raises(TypeError, match="`conditional_on` must be one event"):
            st.prob(model, X[["A"]], conditional_on=frame[["B"]])
        with pytest.raises(ValueError, match="`x` and `conditional_on` have different partitions"):
            st.prob(model, X[["A"]], conditional_on=split(frame[["B"]], [100, 300]))
        for condition in (X[["A", "B"]], {"A": "a0"}):
            with pytest.raises(ValueError, match=r"must name different variables; both have \['A'\]"):
                st.prob(model, X[["A"]], conditional_on=condition)
        with pytest.raises(ValueError, match="`conditional_on` has variable"):
            st.prob(model, X[["A"]], conditional_on=X[["B"]].assign(Z=X["B"]))
        with pytest.raises(TypeError, match="`conditional_on` is a Dask"):
            st.prob(model, {"A": "a0"}, conditional_on=X[["B"]])
        with pytest.raises(ValueError, match="`x` must give a level for every variable"):
            st.path_probability(model, X[["A", "B"]])
        with pytest.raises(ValueError, match="`newdata` has variable"):
            st.predict(model, X.assign(Z=X["A"]))
        clf = BNClassifier().fit(frame, pd.Series(["p", "q"] * 300))
        with pytest.raises(ValueError, match="feature names"):
            clf.predict(X[["A", "B"]])


def test_an_empty_frame_is_refused(frame):
    with dask.config.set(scheduler="sync"):
        with pytest.raises(ValueError, match="`data` is empty"):
            st.full(split(frame.iloc[:0], [0, 0]))
        with pytest.raises(ValueError, match="`y` is empty"):
            BNClassifier().fit(split(frame.iloc[:0], [0]), split(pd.Series([], dtype=str), [0]))


def test_missing_labels_are_refused(frame):
    y = pd.Series(["p", None] * 300)
    with dask.config.set(scheduler="sync"):
        with pytest.raises(ValueError, match="`y` has missing values"):
            BNClassifier().fit(split(frame, [100]), split(y, [100]))


def test_functions_that_need_rows_name_the_argument(frame):
    from pystagedtrees.multilabel import BNClassifierChain

    ddf = split(frame, [100])
    three = st.full(frame[["A", "B", "C"]])
    with nothing_computed():
        for call, name in ((lambda: st.sevt_add(three, "D", ddf), "data"),
                           (lambda: st.bnc.nb("A", ddf), "dataset"),
                           (lambda: st.sevt_tan_cl(ddf, "A"), "data"),
                           (lambda: BNClassifierChain(BNClassifier()).fit(
                               ddf, pd.DataFrame({"l1": [0, 1] * 300, "l2": [1, 0] * 300})),
                            "X")):
            with pytest.raises(TypeError, match=rf"`{name}` is a Dask collection.*full"):
                call()


class GraphRecordingScheduler(RecordingScheduler):
    """The synchronous scheduler, also recording the number of tasks of each graph."""

    def __init__(self):
        super().__init__()
        self.task_counts = []

    def __call__(self, dsk, keys, **kwargs):
        self.task_counts.append(len(dsk.__dask_graph__()))
        return super().__call__(dsk, keys, **kwargs)


@pytest.mark.parametrize("use_na", ["ifany", "no"])
def test_parquet_partitions_are_read_and_counted_in_one_task(frame, tmp_path, use_na):
    n_files = 4
    for part, rows in enumerate(np.array_split(np.arange(len(frame)), n_files)):
        frame.iloc[rows].to_parquet(tmp_path / f"part-{part}.parquet", index=False)
    # pyarrow's dictionary columns read as categoricals; the levels given as dtypes
    levels = {v: list(frame[v].cat.categories) for v in frame.columns}
    ddf = dd.read_parquet(tmp_path).astype({v: pd.CategoricalDtype(lev)
                                            for v, lev in levels.items()})
    assert ddf.npartitions == n_files
    model = st.stages_bhc(st.full(frame))
    recorder = GraphRecordingScheduler()
    with dask.config.set(scheduler=recorder):
        got = st.make_ctables(model, ddf, useNA=use_na)
    expected = st.make_ctables(model, frame, useNA=use_na)
    for v in model.variables:
        pd.testing.assert_frame_equal(got[v], expected[v])
    # one task per file reads and counts it, one adds the tables: no partition
    # is ever the output of a task
    assert recorder.task_counts == [n_files + 1]
