"""compat/reference.py (the reference loader) and the recorder's JSON writer, without R."""
import json

import numpy as np
import pandas as pd
import pytest

from compat import record, reference
from r_reference import dataset_params, load_split, require_datasets


def _shared_or_skip():
    if not (reference.shared_dir() / "reference" / "r").exists():
        pytest.skip(f"reference material not found at {reference.shared_dir()}")


@pytest.mark.parametrize("name", dataset_params())
def test_loader_gives_the_split_with_r_levels(name):
    train, test, ref = reference.load_split(name)
    # r_reference's loader reads the same files its own way
    other_train, other_test, _ = load_split(name)
    pd.testing.assert_frame_equal(train, other_train)
    pd.testing.assert_frame_equal(test, other_test)
    assert (len(train), len(test)) == (ref["n_train"], ref["n_test"])
    assert {v: list(train[v].cat.categories) for v in train} == ref["levels"]


@pytest.mark.parametrize("name", dataset_params())
def test_writer_prints_numbers_as_r_jsonlite_did(name):
    # the shared files were written by R's jsonlite: re-serialising what they
    # hold must give their text back, character for character
    path = reference.shared_dir() / "reference" / "r" / f"{name}.json"
    text = path.read_text()
    rewritten = json.dumps(record.json_ready(json.loads(text)), separators=(",", ":")) + "\n"
    assert rewritten == text


def test_writer_rounds_to_15_significant_digits():
    assert record.json_ready(0.1 + 0.2) == 0.3  # signif(0.30000000000000004, 15)
    assert record.json_ready([2.0, np.float64(-1.5), np.int64(3)]) == [2, -1.5, 3]
    assert record.json_ready({"a": float("nan"), "b": float("-inf")}) == {"a": None, "b": "-Inf"}
    assert record.json_ready(1234567.123456789) == 1234567.12345679


def test_model_reference_and_available_names():
    require_datasets("eeg", "Titanic")
    ref = reference.load_reference("eeg")
    assert reference.model_reference(ref, "stages_bhc") is None  # R timed out on it
    assert reference.model_reference(ref, "full")["df"] > 0
    assert "Titanic" in reference.available()
    assert "learners" in reference.load_reference("Titanic", wrappers=True)


def test_missing_material_names_the_path(tmp_path):
    with pytest.raises(FileNotFoundError, match="nothing.json"):
        reference.load_reference("nothing", shared=tmp_path)
    assert reference.available(shared=tmp_path) == []


def test_reference_loader_reads_cells_as_r_recorded_them(tmp_path, monkeypatch):
    # the text of the cells when the recorded levels hold it; else R's read.csv
    # typing ("T" is TRUE, "01" is 1); never a silent NaN
    import r_reference

    (tmp_path / "d.csv").write_text("answer,a,b\nx,T,01\ny,F,2\nx,T,10\n")
    monkeypatch.setattr(r_reference, "DATA_DIR", tmp_path)
    as_text = {"order": ["answer", "a", "b"],
               "levels": {"answer": ["x", "y"], "a": ["F", "T"], "b": ["01", "10", "2"]}}
    typed = {"order": ["answer", "a", "b"],
             "levels": {"answer": ["x", "y"], "a": ["FALSE", "TRUE"], "b": ["1", "2", "10"]}}
    for ref, a, b in ((as_text, ["T", "F", "T"], ["01", "2", "10"]),
                      (typed, ["TRUE", "FALSE", "TRUE"], ["1", "2", "10"])):
        data = r_reference._read_as_recorded("d", ref)
        assert data["a"].tolist() == a and data["b"].tolist() == b
        assert list(data["b"].cat.categories) == ref["levels"]["b"]
    stray = {"order": ["answer", "a"], "levels": {"answer": ["x", "y"], "a": ["TRUE"]}}
    with pytest.raises(ValueError, match="not a level"):
        r_reference._read_as_recorded("d", stray)


def test_r_posteriors_may_be_na_only_for_rows_with_a_blank_level():
    from r_reference import assert_matches_r_predict

    features = pd.DataFrame({"x": ["", "u", "v"]})
    ours = pd.DataFrame([[0.25, 0.75], [0.5, 0.5], [np.nan, np.nan]])
    assert_matches_r_predict(ours, [[None, None], [0.5, 0.5], [None, None]], features)
    for r in ([[None, None], [None, None], [None, None]],  # R's NA on a row without ""
              [[0.3, 0.7], [0.5, 0.5], [None, None]]):    # a value R gave must match
        with pytest.raises(AssertionError):
            assert_matches_r_predict(ours, r, features)
    with pytest.raises(AssertionError):  # where R has NA for "", ours must be a distribution
        assert_matches_r_predict(ours.fillna(0.0).iloc[[2, 1, 0]].reset_index(drop=True),
                                 [[None, None], [0.5, 0.5], [None, None]],
                                 pd.DataFrame({"x": ["", "u", ""]}))
