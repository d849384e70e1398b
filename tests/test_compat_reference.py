"""compat/reference.py (the reference loader) and the recorder's JSON writer, without R."""
import json

import numpy as np
import pandas as pd
import pytest

from compat import record, reference
from conftest import dataset_params, load_split, require_datasets


def _shared_or_skip():
    if not (reference.shared_dir() / "reference" / "r").exists():
        pytest.skip(f"reference material not found at {reference.shared_dir()}")


@pytest.mark.parametrize("name", dataset_params())
def test_loader_gives_the_split_with_r_levels(name):
    train, test, ref = reference.load_split(name)
    # conftest's loader reads the same files its own way
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
