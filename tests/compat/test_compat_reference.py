"""compat/reference.py (the reference loader) and the recorder's JSON writer and merging, without R."""
import gzip
import json
from pathlib import Path

import numpy as np
import pytest

from compat import record, reference

JSONLITE = Path(__file__).resolve().parents[1] / "reference" / "jsonlite"


def _jsonlite_files():
    """Files R's jsonlite wrote: the repository's sample, and ../shared's recordings where present."""
    shared = reference.shared_dir() / "reference" / "r"
    return sorted(JSONLITE.glob("*.json.gz")) + sorted(shared.glob("*.json"))


@pytest.mark.parametrize("path", _jsonlite_files(), ids=lambda p: p.name)
def test_writer_prints_numbers_as_r_jsonlite_did(path):
    # re-serialising what R's jsonlite wrote must give its text back, character for character
    text = gzip.decompress(path.read_bytes()).decode() if path.suffix == ".gz" else path.read_text()
    rewritten = json.dumps(record.json_ready(json.loads(text)), separators=(",", ":")) + "\n"
    assert rewritten == text


def test_writer_rounds_to_15_significant_digits():
    assert record.json_ready(0.1 + 0.2) == 0.3  # signif(0.30000000000000004, 15)
    assert record.json_ready([2.0, np.float64(-1.5), np.int64(3)]) == [2, -1.5, 3]
    assert record.json_ready({"a": float("nan"), "b": float("-inf")}) == {"a": None, "b": "-Inf"}
    assert record.json_ready(1234567.123456789) == 1234567.12345679
    assert record.json_ready(np.array([1.0, 2.5])) == [1, 2.5]


def test_compressed_files_are_written_reproducibly(tmp_path):
    obj = {"x": [0.1 + 0.2, 1.0]}
    record.write_json(obj, tmp_path / "a.json.gz")
    record.write_json(obj, tmp_path / "b.json.gz")
    assert (tmp_path / "a.json.gz").read_bytes() == (tmp_path / "b.json.gz").read_bytes()
    assert reference.load_reference("a", folder=tmp_path) == {"x": [0.3, 1]}


def test_model_reference_and_available_names():
    ref = reference.load_reference("eeg")
    assert reference.model_reference(ref, "stages_bhc") is None  # R timed out on it
    assert reference.model_reference(ref, "full")["df"] > 0
    assert "Titanic" in reference.available()
    assert "learners" in reference.load_reference("Titanic", wrappers=True)


def test_every_reference_names_its_versions_and_commands():
    for name in reference.available():
        for ref in (reference.load_reference(name), reference.load_reference(name, wrappers=True)):
            assert ref["r_version"].startswith("R version 4.2.2")
            assert (ref["stagedtrees_version"], ref["bnclassify_version"]) == ("2.3.0.9999", "0.4.8")
            assert ref["commands"] and all(
                c.startswith(f"python -m compat.record --dataset {name} ") for c in ref["commands"])


def test_missing_material_names_the_path(tmp_path):
    with pytest.raises(FileNotFoundError, match="nothing.json"):
        reference.load_reference("nothing", folder=tmp_path)
    assert reference.available(folder=tmp_path) == []


VERSIONS = {"r_version": "R version 4.2.2", "stagedtrees_version": "2.3.0.9999",
            "bnclassify_version": "0.4.8"}


def _recording(models, **fields):
    data = {"order": ["answer", "x"], "levels": {"answer": ["a", "b"], "x": ["u", "v"]},
            "n_train": 8, "n_test": 2, "data_check": {"train": {}, "test": {}}}
    return {**data, **VERSIONS, "models": models, "bnc": {}, **fields}


def test_recording_keys_into_a_reference_keeps_the_others_and_the_commands(tmp_path):
    path = tmp_path / "d.json.gz"
    first = record.merged(path, _recording({"full": {"df": 3}, "stages_bhc": {"error": "time"}}),
                          "python -m compat.record --dataset d", set(record.MODEL_KEYS + record.BNC_KEYS))
    assert first["commands"] == ["python -m compat.record --dataset d"]
    record.write_json(first, path)
    second = record.merged(path, _recording({"stages_bhc": {"df": 2}}),
                           "python -m compat.record --dataset d --keys stages_bhc", {"stages_bhc"})
    assert second["models"] == {"full": {"df": 3}, "stages_bhc": {"df": 2}}
    assert second["commands"] == ["python -m compat.record --dataset d",
                                  "python -m compat.record --dataset d --keys stages_bhc"]


def test_a_version_mismatch_is_reported_not_mixed(tmp_path):
    path = tmp_path / "d.json.gz"
    record.write_json({**_recording({"full": {"df": 3}}), "stagedtrees_version": "2.3.0",
                       "commands": ["old"]}, path)
    with pytest.raises(ValueError, match=r"stagedtrees_version: '2.3.0' there, '2.3.0.9999' installed"):
        record.merged(path, _recording({"stages_bhc": {"df": 2}}), "new", {"stages_bhc"})
    record.write_json({**_recording({"full": {"df": 3}}), "n_train": 7, "commands": ["old"]}, path)
    with pytest.raises(ValueError, match="other data"):
        record.merged(path, _recording({"stages_bhc": {"df": 2}}), "new", {"stages_bhc"})
    # every key recorded again replaces the file, commands and all
    everything = set(record.MODEL_KEYS + record.BNC_KEYS)
    again = record.merged(path, _recording({"full": {"df": 4}}), "new", everything)
    assert (again["n_train"], again["models"], again["commands"]) == (8, {"full": {"df": 4}}, ["new"])
