"""Staged trees from Dask DataFrames are the staged trees of the same rows in pandas:
same tables, same stages after the learners, same log-likelihood and predictions,
on the local scheduler and on a cluster of two worker processes."""
import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from dask_frames import ON_LOCAL, ON_SCHEDULERS, partition_cuts, split
from hypothesis import given, settings
from hypothesis import strategies as hst
from strategies import categorical_frames

import pystagedtrees as st


def assert_same_model(dask_model, pandas_model, from_dask=True):
    assert dask_model.variables == pandas_model.variables
    assert dask_model.stages() == pandas_model.stages()
    for v in pandas_model.variables:
        pd.testing.assert_frame_equal(dask_model.ctables[v], pandas_model.ctables[v])
    np.testing.assert_allclose(float(st.logLik(dask_model)), float(st.logLik(pandas_model)),
                               rtol=1e-12)
    assert st.logLik(dask_model).nobs == st.logLik(pandas_model).nobs
    if from_dask:
        assert dask_model.data_raw is None  # the model keeps the tables, not the rows


@ON_LOCAL
def test_full_and_indep_match_pandas(frame, n_partitions, scheduler):
    ddf = split(frame, partition_cuts(len(frame), n_partitions))
    assert ddf.npartitions == n_partitions
    for build in (st.full, st.indep):
        for join in (True, False):
            assert_same_model(build(ddf, join_unobserved=join, lambda_=0.5),
                              build(frame, join_unobserved=join, lambda_=0.5))
    order = ["D", "B", "A", "C"]
    assert_same_model(st.full(ddf, order=order), st.full(frame, order=order))


@ON_SCHEDULERS
def test_learners_on_a_dask_model_match_pandas(frame, n_partitions, scheduler):
    ddf = split(frame, partition_cuts(len(frame), n_partitions, seed=n_partitions))
    from_dask, from_pandas = st.full(ddf, lambda_=1), st.full(frame, lambda_=1)
    for learn in (st.stages_bhc, st.stages_fbhc, st.stages_hclust):
        assert_same_model(learn(from_dask), learn(from_pandas))


@ON_SCHEDULERS
def test_sevt_fit_and_make_ctables_match_pandas(frame, n_partitions, scheduler):
    ddf = split(frame, partition_cuts(len(frame), n_partitions, seed=1))
    model = st.stages_bhc(st.full(frame))
    assert_same_model(st.sevt_fit(model, ddf, lambda_=1), st.sevt_fit(model, frame, lambda_=1))
    for use_na in ("ifany", "no"):
        expected = st.make_ctables(model, frame, useNA=use_na)
        got = st.make_ctables(model, ddf, useNA=use_na)
        for v in model.variables:
            pd.testing.assert_frame_equal(got[v], expected[v])


@ON_SCHEDULERS
def test_lazy_predictions_match_pandas(frame, n_partitions, scheduler):
    ddf = split(frame, partition_cuts(len(frame), n_partitions, seed=2))
    model = st.stages_fbhc(st.full(frame, lambda_=1))
    labels = st.predict(model, ddf, class_="B")
    assert isinstance(labels, st_dask_series())  # lazy: nothing computed yet
    expected = st.predict(model, frame, class_="B")
    got = labels.compute()
    assert list(got.cat.categories) == list(expected.categories)
    assert got.astype(object).tolist() == pd.Series(expected).astype(object).tolist()
    for log in (False, True):
        np.testing.assert_allclose(st.predict(model, ddf, prob=True, log=log).compute(),
                                   st.predict(model, frame, prob=True, log=log), rtol=1e-12)
    events = frame[["A", "C"]]
    np.testing.assert_allclose(st.prob(model, split(events, [100, 100, 400])).compute(),
                               st.prob(model, events), rtol=1e-12)
    conditional = st.prob(model, split(frame[["B"]], [300]), conditional_on={"A": "a1"})
    np.testing.assert_allclose(conditional.compute(),
                               st.prob(model, frame[["B"]], conditional_on={"A": "a1"}),
                               rtol=1e-12)
    complete = frame.dropna()
    np.testing.assert_allclose(
        st.path_probability(model, split(complete, [50, 50]), log=True).compute(),
        st.path_probability(model, complete, log=True), rtol=1e-12)


@ON_SCHEDULERS
def test_ties_broken_at_random_draw_what_pandas_draws(frame, n_partitions, scheduler):
    """The partitions draw in turn, each where the previous left the generator: the
    draws of the same rows in memory, on every computation."""
    balanced = frame.assign(A=pd.Categorical(np.tile(["a0", "a1"], len(frame) // 2)))
    model = st.indep(balanced, lambda_=0)  # A's posterior is its marginal, 1/2: every row ties
    ddf = split(frame, partition_cuts(len(frame), n_partitions, seed=5))
    for rng in ("numpy", "R"):
        labels = st.predict(model, ddf, class_="A", rng=rng, seed=42)
        expected = pd.Series(st.predict(model, frame, class_="A", rng=rng, seed=42))
        assert (expected != pd.Series(st.predict(model, frame, class_="A"))).any()  # drawn
        for _ in range(2):
            got = labels.compute()
            assert got.astype(object).tolist() == expected.astype(object).tolist()


@ON_SCHEDULERS
def test_prob_conditional_on_a_dask_frame_matches_pandas(frame, n_partitions, scheduler):
    model = st.full(frame, lambda_=1)
    ddf = split(frame, partition_cuts(len(frame), n_partitions, seed=6))
    for events, condition in ((["B"], ["A", "C"]), (["D", "A"], ["C"])):
        for log, na0 in ((False, True), (True, False)):
            got = st.prob(model, ddf[events], conditional_on=ddf[condition], log=log, na0=na0)
            assert isinstance(got, dd.Series)  # lazy
            np.testing.assert_allclose(
                got.compute().to_numpy(),
                st.prob(model, frame[events], conditional_on=frame[condition], log=log, na0=na0),
                rtol=1e-12)


def st_dask_series():
    import dask.dataframe as dd
    return dd.Series


def test_levels_argument_reads_columns_without_categories(frame):
    strings = frame.astype(object).where(frame.notna(), None)
    levels = {v: list(frame[v].cat.categories) for v in frame.columns}
    ddf = split(strings, [200, 450])
    assert_same_model(st.full(ddf, levels=levels), st.full(frame))
    assert_same_model(st.full(strings, levels=levels), st.full(frame), from_dask=False)


def test_dask_frames_of_categorize_count_as_pandas(frame):
    import dask
    import dask.dataframe as dd

    strings = frame.astype(object).where(frame.notna(), None)
    ddf = dd.from_pandas(strings, npartitions=4).categorize()
    expected = st.full(ddf.compute())  # the categories categorize() found, in its order
    with dask.config.set(scheduler="sync"):
        assert_same_model(st.full(ddf), expected)


@settings(max_examples=25, deadline=None)
@given(data=categorical_frames(max_rows=40), cuts=hst.lists(hst.integers(0, 40), max_size=8),
       join=hst.booleans())
def test_any_partitioning_gives_the_pandas_model(data, cuts, join):
    import dask

    cuts = [min(c, len(data)) for c in cuts]
    with dask.config.set(scheduler="sync"):
        got = st.full(split(data, cuts), join_unobserved=join, lambda_=1)
        assert_same_model(got, st.full(data, join_unobserved=join, lambda_=1))
        assert_same_model(st.indep(split(data, cuts), join_unobserved=join),
                          st.indep(data, join_unobserved=join))


def test_parquet_string_columns_with_levels_match_pandas(frame, tmp_path):
    # plain string columns (no categorical metadata in the files), levels given
    strings = frame.astype(object).where(frame.notna(), None).astype("str")
    for part, rows in enumerate(np.array_split(np.arange(len(frame)), 3)):
        strings.iloc[rows].to_parquet(tmp_path / f"part-{part}.parquet", index=False)
    ddf = dd.read_parquet(tmp_path)
    assert not any(isinstance(dtype, pd.CategoricalDtype) for dtype in ddf.dtypes)
    levels = {v: list(frame[v].cat.categories) for v in frame.columns}
    assert_same_model(st.full(ddf, levels=levels, lambda_=1), st.full(frame, lambda_=1))



@pytest.mark.parametrize("n_files", [1, 3, 17])
def test_parquet_read_as_arrow_dictionaries_matches_pandas(frame, tmp_path, n_files):
    # Parquet's dictionary columns kept as Arrow dictionaries (dtype_backend="pyarrow"),
    # levels given, in another order than the files' for one column: the indices
    # remapped chunk by chunk; missing values as in memory
    for part, rows in enumerate(np.array_split(np.arange(len(frame)), n_files)):
        frame.iloc[rows].to_parquet(tmp_path / f"part-{part:02d}.parquet", index=False)
    ddf = dd.read_parquet(tmp_path, dtype_backend="pyarrow")
    assert all(isinstance(dtype, pd.ArrowDtype) for dtype in ddf.dtypes)
    levels = {v: list(frame[v].cat.categories) for v in frame.columns}
    levels["B"] = levels["B"][::-1]
    in_memory = frame.assign(B=frame["B"].cat.reorder_categories(levels["B"]))
    with dask.config.set(scheduler="sync"):
        model = st.full(ddf, levels=levels, lambda_=1)
        assert_same_model(model, st.full(in_memory, lambda_=1))
        refined = st.stages_fbhc(model)
        assert_same_model(refined, st.stages_fbhc(st.full(in_memory, lambda_=1)),
                          from_dask=False)
        np.testing.assert_allclose(st.predict(refined, ddf, prob=True).compute(),
                                   st.predict(refined, in_memory, prob=True), rtol=1e-12)

@settings(max_examples=15, deadline=None)
@given(data=categorical_frames(max_rows=60), rows_per_block=hst.integers(1, 8),
       dense=hst.booleans())
def test_partitions_counted_in_blocks_of_rows_give_the_pandas_model(data, rows_per_block, dense):
    from pystagedtrees.fitting import _counting

    ddf = split(data, partition_cuts(len(data), 3, seed=rows_per_block))
    saved = _counting.ROWS_PER_BLOCK, _counting.DENSE_CELLS
    _counting.ROWS_PER_BLOCK = rows_per_block  # the partitions' rows in several blocks
    # tables of every situation, or of the situations reached (as past DENSE_CELLS)
    _counting.DENSE_CELLS = saved[1] if dense else 0
    try:
        with dask.config.set(scheduler="sync"):
            assert_same_model(st.full(ddf, lambda_=1), st.full(data, lambda_=1))
            model = st.full(data)
            for use_na in ("ifany", "no"):
                got = st.make_ctables(model, ddf, useNA=use_na)
                expected = st.make_ctables(model, data, useNA=use_na)
                for v in model.variables:
                    pd.testing.assert_frame_equal(got[v], expected[v])
    finally:
        _counting.ROWS_PER_BLOCK, _counting.DENSE_CELLS = saved
