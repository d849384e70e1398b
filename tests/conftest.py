"""Shared fixtures: the reference material in ../shared (skipped when absent)."""
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
DATA_DIR = SHARED / "data" / "single-label"
SPLITS_DIR = SHARED / "data" / "splits"
REFERENCE_DIR = SHARED / "reference" / "r"

DATASETS = sorted(p.stem for p in DATA_DIR.glob("*.csv")) if DATA_DIR.exists() else []


def require_shared():
    if not REFERENCE_DIR.exists():
        pytest.skip(f"reference material not found at {SHARED} (only in the project's workspace)")


def load_reference(name):
    require_shared()
    with open(REFERENCE_DIR / f"{name}.json") as fh:
        return json.load(fh)


def load_split(name, repetition=1):
    """Train and test frames of a shared dataset, with R's level order."""
    ref = load_reference(name)
    raw = pd.read_csv(DATA_DIR / f"{name}.csv", dtype=str, keep_default_na=False)
    data = pd.DataFrame(
        {v: pd.Categorical(raw[v], categories=ref["levels"][v]) for v in ref["order"]}
    )
    test_ids = pd.read_csv(SPLITS_DIR / f"{name}_test_ids.csv")[f"V{repetition}"].to_numpy() - 1
    is_test = np.zeros(len(data), dtype=bool)
    is_test[test_ids] = True
    return data[~is_test].reset_index(drop=True), data[is_test].reset_index(drop=True), ref


def dataset_params():
    """Parametrisation over the shared datasets (one skipped case without them)."""
    if not DATASETS:
        return [pytest.param("none", marks=pytest.mark.skip(reason=f"no shared datasets at {DATA_DIR}"))]
    return DATASETS
