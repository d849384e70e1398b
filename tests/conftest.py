"""Shared fixtures: the reference material in ../shared (skipped when absent).

``$PYSTAGEDTREES_SHARED`` points at another folder of the same layout (as
:func:`compat.reference.shared_dir`)."""
import json

import numpy as np
import pandas as pd
import pytest

from compat.reference import shared_dir

SHARED = shared_dir()
DATA_DIR = SHARED / "data" / "single-label"
SPLITS_DIR = SHARED / "data" / "splits"
REFERENCE_DIR = SHARED / "reference" / "r"

DATASETS = sorted(p.stem for p in DATA_DIR.glob("*.csv")) if DATA_DIR.exists() else []


def require_shared():
    if not REFERENCE_DIR.exists():
        pytest.skip(f"reference material not found at {SHARED} (only in the project's workspace)")


def r_result(entry, what):
    """A recorded R result, or a skip when R failed there (``error`` entries)."""
    if "error" in entry:
        pytest.skip(f"R gave no result for {what}: {entry['error']}")
    return entry


def require_datasets(*names):
    """Skip unless each named dataset has its data, splits and R reference.

    The checks also run with other datasets in ../shared; tests written for a
    particular one then skip."""
    require_shared()
    for name in names:
        for path in (DATA_DIR / f"{name}.csv", SPLITS_DIR / f"{name}_test_ids.csv",
                     REFERENCE_DIR / f"{name}.json"):
            if not path.exists():
                pytest.skip(f"dataset {name!r} is not in the reference material ({path} is missing)")


def load_reference(name):
    require_datasets(name)
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
