"""nb and tan_cl after lp(smooth=1) against bnclassify 0.4.8 on split 1 of
every shared dataset (reference/r/<name>.json, ``bnc.*``)."""
import numpy as np
import pytest
from conftest import dataset_params, load_split

import pystagedtrees.bnc as bnc

LEARNERS = {
    "nb": lambda d: bnc.nb("answer", d),
    "tan_cl_loglik": lambda d: bnc.tan_cl("answer", d, score="loglik"),
    "tan_cl_bic": lambda d: bnc.tan_cl("answer", d, score="bic"),
    "tan_cl_aic": lambda d: bnc.tan_cl("answer", d, score="aic"),
}


def _r_families(ref_families):
    # R writes the class family as a bare string.
    return {v: tuple([f] if isinstance(f, str) else f) for v, f in ref_families.items()}


@pytest.mark.parametrize("name", dataset_params())
@pytest.mark.parametrize("key", sorted(LEARNERS))
def test_matches_r(name, key):
    train, test, ref = load_split(name)
    expected = ref["bnc"][key]
    model = bnc.lp(LEARNERS[key](train), train, smooth=1)

    assert bnc.families(model) == _r_families(expected["families"])
    for var, table in expected["params"].items():
        assert list(np.atleast_1d(table["dim"])) == list(model.params[var].shape)
        np.testing.assert_allclose(
            model.params[var].ravel(order="F"), table["values"], rtol=0, atol=1e-12
        )
    prob = bnc.predict(model, test, prob=True)
    np.testing.assert_allclose(prob, expected["test_prob"], rtol=0, atol=1e-9)
    labels = bnc.predict(model, test, random_state=0)
    assert np.mean(labels == test["answer"].astype(str).to_numpy()) == pytest.approx(
        expected["test_accuracy"], abs=1e-12
    )
