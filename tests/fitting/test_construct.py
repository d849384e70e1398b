"""``full``/``indep`` with ``join_unobserved`` number the stages as the fit
does (R's ``unique(stages)``: order of first appearance along the
situations), and equal the two steps R takes: the model without joining,
then ``join_unobserved``."""
import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as hst

import pystagedtrees as st


def random_frame(seed, n_rows, n_levels):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        f"V{j}": pd.Categorical.from_codes(rng.integers(-1, k, size=n_rows),
                                           [f"l{c}" for c in range(k)])
        for j, k in enumerate(n_levels)})


@settings(max_examples=60, deadline=None)
@given(seed=hst.integers(0, 2**32 - 1), n_rows=hst.integers(1, 40),
       n_levels=hst.lists(hst.integers(1, 3), min_size=2, max_size=5),
       name=hst.sampled_from([None, "UNOBSERVED"]), full=hst.booleans())
def test_joined_model_from_data_equals_joining_afterwards(seed, n_rows, n_levels, name, full):
    data = random_frame(seed, n_rows, n_levels)
    build = st.full if full else st.indep
    joined = build(data, lambda_=1, join_unobserved=True, name_unobserved=name)
    after = st.join_unobserved(build(data, lambda_=1, join_unobserved=False), name=name)
    assert joined.stages() == after.stages()
    for v, stages in joined.stages().items():
        # ids in order of first appearance, whatever the situations observed
        assert joined.stage_labels(joined.var_index(v)).tolist() == list(dict.fromkeys(stages))
        assert list(joined.stage_prob[v]) == list(after.stage_prob[v])
        for stage, prob in joined.stage_prob[v].items():
            np.testing.assert_allclose(prob, after.stage_prob[v][stage], rtol=1e-12)
    np.testing.assert_allclose(float(joined.ll), float(after.ll), rtol=1e-12)
