"""The results recorded from R and the data they were computed on: loaders and comparisons for the tests (the reference material in ../shared, skipped when absent).

``$PYSTAGEDTREES_SHARED`` points at another folder of the same layout (as
:func:`compat.reference.shared_dir`)."""
import json

import numpy as np
import pandas as pd
import pytest

import pystagedtrees as st
from compat._common import read_dataset
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


def _read_as_recorded(name, ref):
    """The data set's cells as the levels R recorded: the text of the cells
    (``dtype=str, keep_default_na=False``) when the levels hold every cell,
    else typed as R's ``read.csv`` types them ("T" is TRUE, "01" is 1, "NA"
    missing).  A cell neither reading knows is an error, never a silent NaN."""
    path = DATA_DIR / f"{name}.csv"
    raw = pd.read_csv(path, dtype=str, keep_default_na=False)
    levels = ref["levels"]
    if all(raw[v].isin(levels[v]).all() for v in ref["order"]):
        return pd.DataFrame({v: pd.Categorical(raw[v], categories=levels[v]) for v in ref["order"]})
    return read_dataset(path, class_var=ref["order"][0], levels=ref["levels"])[ref["order"]]


def load_split(name, repetition=1):
    """Train and test frames of a shared dataset, with R's level order."""
    ref = load_reference(name)
    data = _read_as_recorded(name, ref)
    test_ids = pd.read_csv(SPLITS_DIR / f"{name}_test_ids.csv")[f"V{repetition}"].to_numpy() - 1
    is_test = np.zeros(len(data), dtype=bool)
    is_test[test_ids] = True
    return data[~is_test].reset_index(drop=True), data[is_test].reset_index(drop=True), ref


def assert_matches_r_predict(probs, expected, features, atol=1e-9):
    """Posteriors (a DataFrame) against R's ``predict(prob = TRUE)`` on the same rows.

    R gives NA (written as null) for a row holding the level "": it looks
    stages up by level name, and the name "" matches none.  There ours must
    be a distribution; every other row must equal R's, NaN where R has NA.
    """
    ours = probs.to_numpy(dtype=float)
    r = np.array(expected, dtype=float)
    blank = features.astype(object).eq("").to_numpy().any(axis=1)
    r_blank_na = blank & np.isnan(r).all(axis=1)
    np.testing.assert_allclose(ours[~r_blank_na], r[~r_blank_na], rtol=0, atol=atol)
    np.testing.assert_allclose(ours[r_blank_na].sum(axis=1), 1.0, rtol=1e-12)


def assert_matches_r_model(model, ref_model, test, class_var, rtol=1e-9, atol=1e-9):
    """A fitted staged tree against R's record: stages, logLik with df and
    nobs, BIC and the test rows' posteriors."""
    assert model.stages() == ref_model["stages"]
    ll = st.logLik(model)
    assert ll.df == ref_model["df"]
    assert ll.nobs == ref_model["nobs"]
    np.testing.assert_allclose(float(ll), ref_model["loglik"], rtol=rtol)
    np.testing.assert_allclose(st.BIC(model), ref_model["BIC"], rtol=rtol)
    features = test.drop(columns=[class_var])
    probs = st.predict(model, features, class_=class_var, prob=True)
    assert_matches_r_predict(probs, ref_model["test_prob"], features, atol=atol)


def dataset_params():
    """Parametrisation over the shared datasets (one skipped case without them)."""
    if not DATASETS:
        return [pytest.param("none", marks=pytest.mark.skip(reason=f"no shared datasets at {DATA_DIR}"))]
    return DATASETS
