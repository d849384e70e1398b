"""The results recorded from R and the data they were computed on: loaders and comparisons for the tests.

The references travel with the repository: ``tests/reference/<name>.json.gz``
(and ``wrappers/<name>.json.gz``), written from live R by ``python -m
compat.record --dataset <name>`` (each file names the R and package versions
that made it and the commands that recorded it; see tests/reference/README.md).
The data are the package's own benchmark sets (``pystagedtrees.datasets``).
"""
import numpy as np
import pytest

import pystagedtrees as st
from compat.reference import available, load_reference, load_split

__all__ = ["DATASETS", "load_reference", "load_split", "load_wrapper_reference", "r_result",
           "data_check", "assert_matches_r_predict", "assert_matches_r_model", "dataset_params"]

DATASETS = available()


def r_result(entry, what):
    """A recorded R result, or a skip when R failed there (``error`` entries)."""
    if "error" in entry:
        pytest.skip(f"R gave no result for {what}: {entry['error']}")
    return entry


def load_wrapper_reference(name):
    """bnclassify's randomised learners on ``name`` (``learners``)."""
    return load_reference(name, wrappers=True)


def data_check(frame):
    """What compat.record has R write of the data it received (``data_check``),
    computed here: per column the rows per level, the missing values and the
    sum of (1-based) row number times (1-based) level code."""
    out = {}
    for column in frame.columns:
        codes = frame[column].cat.codes.to_numpy().astype(np.int64)
        observed = codes >= 0
        out[column] = {
            "counts": np.bincount(codes[observed], minlength=len(frame[column].cat.categories)).tolist(),
            "missing": int((~observed).sum()),
            "code_position_sum": int(((codes + 1) * np.arange(1, len(codes) + 1))[observed].sum()),
        }
    return out


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
    """Parametrisation over the benchmark sets that have a reference."""
    return DATASETS
