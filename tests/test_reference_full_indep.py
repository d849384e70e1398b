"""full() and indep() equal R stagedtrees on every shared dataset (split 1)."""
import numpy as np
import pytest

import pystagedtrees as st
from conftest import dataset_params, load_split, r_result


def _check_against_r(model, ref_model, test, class_var):
    assert model.stages() == ref_model["stages"]
    ll = st.logLik(model)
    assert ll.df == ref_model["df"]
    assert ll.nobs == ref_model["nobs"]
    np.testing.assert_allclose(float(ll), ref_model["loglik"], rtol=1e-9)
    np.testing.assert_allclose(st.BIC(model), ref_model["BIC"], rtol=1e-9)
    probs = st.predict(model, test.drop(columns=[class_var]), class_=class_var, prob=True)
    np.testing.assert_allclose(probs.to_numpy(), np.array(ref_model["test_prob"]), rtol=0, atol=1e-9)


@pytest.mark.parametrize("name", dataset_params())
@pytest.mark.parametrize("kind", ["full", "indep"])
def test_matches_r(name, kind):
    train, test, ref = load_split(name)
    builder = st.full if kind == "full" else st.indep
    model = builder(train, lambda_=1)
    _check_against_r(model, r_result(ref["models"][kind], f"{kind} on {name}"), test, ref["order"][0])
