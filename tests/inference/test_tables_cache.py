"""The prediction tables are kept per model while its stages and
probabilities stay the same objects, and rebuilt when they change."""
import gc

import numpy as np
import pandas as pd

import pystagedtrees as st
from pystagedtrees.inference import _inference


def _model():
    rng = np.random.default_rng(5)
    frame = pd.DataFrame(rng.integers(0, 3, (300, 4)).astype(str), columns=list("ABCD"))
    return st.full(frame, lambda_=1), frame


def test_tables_are_built_once_per_fit():
    model, frame = _model()
    first = _inference.log_tables_of(model)
    assert _inference.log_tables_of(model) is first
    assert _inference.log_tables_of(st.sevt_fit(model, lambda_=2)) is not first


def test_changed_probabilities_change_the_predictions_of_the_same_model():
    model, frame = _model()
    rows = frame.drop(columns="A").iloc[:20]
    before = st.predict(model, rows, prob=True).to_numpy()
    flipped = model.stage_probabilities(0)[:, ::-1].copy()  # the root's distribution reversed
    model.set_stage_probabilities(0, flipped, model.stage_sizes(0))
    after = st.predict(model, rows, prob=True).to_numpy()
    fresh = st.predict(model.copy(), rows, prob=True).to_numpy()
    np.testing.assert_array_equal(after, fresh)
    assert not np.allclose(before, after)


def test_the_tables_go_with_their_model():
    model, _ = _model()
    _inference.log_tables_of(model)
    n_kept = len(_inference._TABLES_OF)
    del model
    gc.collect()
    assert len(_inference._TABLES_OF) == n_kept - 1
