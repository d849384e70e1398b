"""bnclassify 0.4.8 results on split 1 of every benchmark set: nb and tan_cl
after lp(smooth=1) (tests/reference/<name>.json.gz, ``bnc.*``) and the randomised
wrappers replayed with R's generator (tests/reference/wrappers/<name>.json.gz)."""
import numpy as np
import pytest
from r_reference import dataset_params, load_split, load_wrapper_reference, r_result

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
    expected = r_result(ref["bnc"][key], f"{key} on {name}")
    model = bnc.lp(LEARNERS[key](train), train, smooth=1)

    assert bnc.families(model) == _r_families(expected["families"])
    for var, table in expected["params"].items():
        assert list(np.atleast_1d(table["dim"])) == list(model.params[var].shape)
        np.testing.assert_allclose(
            model.params[var].ravel(order="F"), table["values"], rtol=0, atol=1e-12
        )
    prob = bnc.predict(model, test, prob=True)
    np.testing.assert_allclose(prob, expected["test_prob"], rtol=0, atol=1e-9)
    labels = bnc.predict(model, test, seed=0)
    assert np.mean(labels == test["answer"].astype(str).to_numpy()) == pytest.approx(
        expected["test_accuracy"], abs=1e-12
    )


WRAPPERS = {
    "tan_hc": lambda d, p: bnc.tan_hc("answer", d, k=5, epsilon=0.01, smooth=1, rng="R", seed=2020),
    "kdb3": lambda d, p: bnc.kdb("answer", d, k=5, kdbk=min(3, p), smooth=1, rng="R", seed=2020),
    "kdb5": lambda d, p: bnc.kdb("answer", d, k=5, kdbk=min(5, p), smooth=1, rng="R", seed=2020),
}


@pytest.mark.parametrize("name", dataset_params())
@pytest.mark.parametrize("key", sorted(WRAPPERS))
def test_wrappers_match_r(name, key):
    """R ran each learner right after set.seed(2020) (tests/reference/wrappers)."""
    train, test, _ = load_split(name)
    expected = r_result(load_wrapper_reference(name)["learners"][key], f"{key} on {name}")
    model = WRAPPERS[key](train, train.shape[1] - 1)
    assert bnc.families(model) == _r_families(expected["families"])
    prob = bnc.predict(bnc.lp(model, train, smooth=1), test, prob=True)
    np.testing.assert_allclose(prob, expected["test_prob"], rtol=0, atol=1e-9)


@pytest.mark.parametrize("name", dataset_params())
def test_fitted_tan_becomes_a_staged_tree(name):
    """R turned its TAN into a staged tree (as_sevt) and fitted it with lambda 1
    (reference ``models.sevt_tan_cl``); our fitted TAN goes through the same."""
    staged = pytest.importorskip("pystagedtrees.graphs")
    import pystagedtrees as st

    train, _, ref = load_split(name)
    expected = r_result(ref["models"]["sevt_tan_cl"], f"sevt_tan_cl on {name}")
    model = bnc.lp(bnc.tan_cl("answer", train), train, smooth=1)
    fitted = st.sevt_fit(staged.as_sevt(model), data=train, lambda_=1)
    ll = st.logLik(fitted)
    assert float(ll) == pytest.approx(expected["loglik"], rel=1e-10)
    assert ll.df == expected["df"]
