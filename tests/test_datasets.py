"""The shipped data sets: the rows and levels R's references were recorded on,
the papers' splits, and what the documentation says of each set's relatives."""
import numpy as np
import pandas as pd
import pytest
from r_reference import DATASETS, data_check, load_reference

import pystagedtrees as st


def test_every_benchmark_set_has_a_reference():
    assert st.datasets.names(benchmark=True) == DATASETS
    assert len(DATASETS) == 22
    assert set(DATASETS) <= set(st.datasets.names())


@pytest.mark.parametrize("name", DATASETS)
def test_rows_and_levels_are_those_r_was_given(name):
    ref = load_reference(name)
    train, test = st.datasets.train_test(name)
    assert list(train.columns) == ref["order"]
    assert {v: list(train[v].cat.categories) for v in train} == ref["levels"]
    assert (len(train), len(test)) == (ref["n_train"], ref["n_test"])
    # R's own summary of the data it fitted: rows per level and their order
    assert data_check(train) == ref["data_check"]["train"]
    assert data_check(test) == ref["data_check"]["test"]


@pytest.mark.parametrize("name", DATASETS)
def test_splits_are_ten_sorted_fifths(name):
    n = len(st.datasets.load(name, benchmark=True))
    every = st.datasets.splits(name)
    assert sorted(every) == list(range(1, 11))
    for rows in every.values():
        assert np.all(np.diff(rows) > 0) and rows[0] >= 0 and rows[-1] < n
        assert len(rows) == pytest.approx(n / 5, abs=1)


def test_data_check_counts_rows_levels_and_their_order():
    frame = pd.DataFrame({"x": pd.Categorical(["b", None, "a", "b"], categories=["a", "b", "c"])})
    # codes (1-based) 2, NA, 1, 2 at rows 1..4: 2*1 + 1*3 + 2*4
    assert data_check(frame) == {"x": {"counts": [1, 2, 0], "missing": 1, "code_position_sum": 13}}


def _answer_first(data, class_var):
    renamed = data.rename(columns={class_var: "answer"})
    return renamed[["answer"] + [c for c in renamed.columns if c != "answer"]]


def _same_values(a, b):
    assert list(a.columns) == list(b.columns)
    assert a.astype(str).reset_index(drop=True).equals(b.astype(str).reset_index(drop=True))


@pytest.mark.parametrize("name, class_var", [("Asym", "X4"), ("PhDArticles", "Articles"),
                                             ("Pokemon", "Activity"), ("Titanic", "Survived")])
def test_papers_versions_of_r_data_are_r_data_recoded(name, class_var):
    papers = st.datasets.load(name, benchmark=True)
    ours = _answer_first(st.datasets.load(name), class_var)
    if name == "Asym":  # the papers name the features X1..X3
        ours.columns = ["answer", "X1", "X2", "X3"]
    _same_values(papers, ours)


def test_titanic_is_the_table_as_rows():
    rows = st.datasets.load("Titanic")
    pd.testing.assert_frame_equal(rows, st.datasets.titanic())
    counts = rows.value_counts(sort=False).reorder_levels(["Class", "Sex", "Age", "Survived"])
    table = st.datasets.titanic_table()
    assert counts.reindex(table.index, fill_value=0).tolist() == table.astype(int).tolist()
    papers = st.datasets.load("Titanic", benchmark=True)
    assert list(papers["Sex"].cat.categories) == ["Female", "Male"]  # read.csv's order
    assert list(rows["Sex"].cat.categories) == ["Male", "Female"]  # the table's


def test_papers_voting_is_bnclassify_voting_without_missing_votes():
    complete = st.datasets.load("voting").dropna()
    assert len(complete) == 232
    _same_values(st.datasets.load("voting", benchmark=True), _answer_first(complete, "Class"))
    house = st.datasets.load("house_votes", benchmark=True)
    voting = st.datasets.load("voting", benchmark=True)
    assert house.astype(str).to_numpy().tolist() == voting.astype(str).to_numpy().tolist()


def test_fall_eld_holds_the_falls_long_rows_recoded():
    falls = st.datasets.load("falls_long")
    assessed = falls["Assessment"] == "Assessed"
    recoded = pd.DataFrame({
        "answer": falls["Fall"].map({"Fall": "Fall", "Don't Fall": "No fall"}),
        "A": falls["Housing"] + " " + falls["Assessment"].str.lower(),
        "R": falls["Risk"].str.replace("Risk", "risk"),
        "T": (falls["Referred"] + " & " + falls["Treatment"]).map({
            "Not Referred & Not Treated": "Not treated", "Referred & Treated": "Referred & treated",
            "Not Referred & Treated": "Not referred & treated"}).where(assessed, "No sense"),
    })
    papers = st.datasets.load("FallEld", benchmark=True).astype(str)
    # the same rows, in another order
    assert recoded.value_counts().sort_index().equals(papers.value_counts().sort_index())


def test_emotions_has_six_labels_then_72_features():
    data = st.datasets.load("emotions")
    assert data.shape == (593, 78)
    labels = data.iloc[:, :6]
    assert list(labels.columns)[:2] == ["amazed-suprised", "happy-pleased"]
    assert set(np.unique(labels.to_numpy())) == {0, 1}
    assert all(dtype == np.float64 for dtype in data.dtypes.iloc[6:])


def test_bad_names_and_splits_are_refused():
    with pytest.raises(ValueError, match=r"`name` must be one of the shipped data sets: \['Asym'"):
        st.datasets.load("nope")
    with pytest.raises(ValueError, match="the papers' benchmark sets"):
        st.datasets.load("car", benchmark=True)
    with pytest.raises(ValueError, match="the papers' benchmark sets"):
        st.datasets.splits("emotions")
    with pytest.raises(TypeError, match="`benchmark` must be True or False"):
        st.datasets.load("iris", benchmark="yes")
    with pytest.raises(ValueError, match="`repetition` must be between 1 and 10; got 11"):
        st.datasets.train_test("iris", repetition=11)
    with pytest.raises(ValueError, match="`repetition` must be an integer >= 1"):
        st.datasets.train_test("iris", repetition=0)
