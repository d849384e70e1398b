"""The numbers bnclassify's own test suite asserts (tests/testthat, 0.4.8).

They run on bnclassify's ``car`` and ``voting`` data, which the package ships
(``st.datasets.load("car")``; see conftest.py).

R's tests call ``RNGversion("3.5.0")``, hence the "Rounding" sampler.
"""

import numpy as np
import pytest

import pystagedtrees.bnc as bnc
from pystagedtrees.bnc import RoundingDraws
from pystagedtrees.bnc._dataset import encode_dataset
from pystagedtrees.bnc._folds import distribute_over_folds
from pystagedtrees.bnc._structure import ode_scores


def nb_fit(class_, data, smooth=1, columns=None):
    subset = data if columns is None else data[columns]
    return bnc.lp(bnc.nb(class_, subset), data, smooth=smooth)


# test-cv.R
def test_cv_fixed_structures(car):
    r = bnc.cv([nb_fit("class", car), nb_fit("class", car, columns=["class"])], car, k=10,
               dag=False, rng=RoundingDraws(0))
    np.testing.assert_allclose(r, [0.8582183, 0.7002446], atol=1e-7)


def test_cv_wrapper(car):
    draws = RoundingDraws(0)
    t = bnc.tan_hc("class", car, k=2, epsilon=0, smooth=0.01, rng=draws)
    t = bnc.lp(t, car, smooth=0.01)
    assert bnc.cv(t, car, k=2, dag=True, rng=draws) == pytest.approx(0.9346065, abs=1e-7)


def test_cv_aode(car):
    draws = RoundingDraws(0)
    t = bnc.lp(bnc.aode("class", car), car, smooth=0.01)
    assert bnc.cv(t, car, k=2, dag=True, rng=draws) == pytest.approx(0.9056713, abs=1e-7)


def test_cv_relearns_the_wrapper(car):
    # The structure is re-learned in each fold, so its own search does not matter.
    t = bnc.tan_hc("class", car, k=5, epsilon=0, smooth=0.12, seed=1)
    t = bnc.lp(t, car, smooth=0.01)
    r = bnc.cv(t, car, k=5, dag=True, rng=RoundingDraws(0))
    assert r == pytest.approx(0.9415345, abs=1e-6)


def test_cv_with_missing_values(voting):
    r = bnc.cv(nb_fit("Class", voting), voting, k=5, dag=True, rng=RoundingDraws(0))
    assert r == pytest.approx(0.9014301, abs=1e-6)


def test_distribute_over_folds():
    draws = RoundingDraws(4)
    assert np.bincount(distribute_over_folds(1210, 3, draws))[1:].tolist() == [403, 404, 403]
    assert sorted(distribute_over_folds(4, 4, draws).tolist()) == [1, 2, 3, 4]
    assert distribute_over_folds(1, 2, draws).tolist() == [1]
    assert distribute_over_folds(4, 1200, draws).tolist() == [733, 485, 899, 857]


# test-learn-struct.R
def test_fssj(car):
    f = bnc.fssj("class", car, k=10, epsilon=0.01, rng=RoundingDraws(0))
    assert bnc.features(f) == []
    f = bnc.fssj("class", car, k=10, epsilon=0, rng=RoundingDraws(0))
    assert sorted(bnc.features(f)) == sorted(car.columns[:-1])


def test_bsej(car):
    f = bnc.bsej("class", car, k=10, epsilon=0.01, rng=RoundingDraws(0))
    assert bnc.features(f) == list(car.columns[:-1])
    assert bnc.narcs(f) == 6 + 1 + 2 + 3
    assert len(f.greedy_scores_log) == 4
    assert f.greedy_scores_log == sorted(f.greedy_scores_log)
    f = bnc.bsej("class", car, k=10, epsilon=0, rng=RoundingDraws(0))
    assert bnc.narcs(f) == 13
    assert len(f.greedy_scores_log) == 5
    assert f.greedy_scores_log == sorted(f.greedy_scores_log)


def test_tan_hc_tan_hcsp_kdb(car):
    t = bnc.tan_hc("class", car, k=10, epsilon=0, rng=RoundingDraws(0))
    assert len(bnc.features(t)) == 6 and bnc.narcs(t) == 11
    sp = bnc.tan_hcsp("class", car, k=10, epsilon=0, rng=RoundingDraws(0))
    assert len(bnc.features(sp)) == 6 and bnc.narcs(sp) == 11
    assert max(len(f) for f in bnc.families(sp).values()) < 5
    k1 = bnc.kdb("class", car, kdbk=1, k=10, epsilon=0, rng=RoundingDraws(0))
    assert bnc.families(k1) == bnc.families(t)


# test-learn-chowliu.R
@pytest.mark.parametrize("which, score, arcs", [
    ("car", "loglik", 11), ("voting", "loglik", 31), ("car", "bic", 6), ("voting", "bic", 30),
])
def test_chow_liu_arcs(rdata, which, score, arcs):
    data = rdata[which]
    t = bnc.tan_cl(data.columns[-1], data, score=score)
    assert bnc.narcs(t) == arcs
    assert sorted(bnc.features(t)) == sorted(data.columns[:-1])


def test_chow_liu_details(car, voting):
    bic = bnc.tan_cl("Class", voting, score="bic")
    assert bnc.families(bic)["immigration"] == ("immigration", "Class")
    assert bnc.narcs(bnc.tan_cl("class", car.iloc[[0]])) == 11
    loglik, bic_score, aic = ode_scores(encode_dataset("class", car), "buying", "maint")
    assert loglik == pytest.approx(0.07199921, abs=1e-4) and bic_score < aic
    loglik, bic_score, aic = ode_scores(encode_dataset("Class", voting),
                                        "water_project_cost_sharing", "crime")
    assert loglik == pytest.approx(0.003924715, abs=1e-4) and bic_score < aic
    complete = voting.dropna().reset_index(drop=True)
    scores = ode_scores(encode_dataset("Class", complete), "handicapped_infants",
                        "water_project_cost_sharing")
    assert scores[1] == pytest.approx(-4.280159, abs=1e-5)


# test-anb-bn-operate.R
def test_nparams_and_loglik(car, voting):
    assert bnc.nparams(nb_fit("class", car)) == 63
    assert bnc.nparams(nb_fit("Class", voting)) == 2 * 16 + 1
    one = nb_fit("class", car, smooth=0, columns=["buying", "class"])
    assert bnc.logLik(one, car) == pytest.approx(-3724.18038821656273, rel=1e-12)
    assert bnc.AIC(one, car) == pytest.approx(-3739.18038821654636, rel=1e-12)
    assert bnc.BIC(one, car) == pytest.approx(-3780.09078783677614, rel=1e-12)
    full = nb_fit("class", car, smooth=0)
    assert bnc.logLik(full, car) == pytest.approx(-13503.6883427047687, rel=1e-12)
    assert bnc.AIC(full, car) == pytest.approx(-13566.6883427047687, rel=1e-12)
    assert bnc.BIC(full, car) == pytest.approx(-13738.5120211097346, rel=1e-12)


# test-learn-params.R, test-anb-bn-operate.R, test-learn-params-wanbia.r
def test_manb(car):
    m = bnc.lp(bnc.nb("class", car), car, smooth=1, manb_prior=0.5)
    posterior = [m.manb_arc_posterior[f] for f in m.features]
    np.testing.assert_allclose(posterior, [1, 1, 0.000026294701543, 1, 1, 1], rtol=1e-7)
    m = bnc.lp(bnc.nb("class", car), car, smooth=1, manb_prior=0.1)
    assert m.manb_arc_posterior["doors"] == pytest.approx(2.921702e-06, abs=1e-7)


def test_conditional_log_likelihood(voting):
    complete = voting.dropna().reset_index(drop=True)
    model = nb_fit("Class", complete)
    post = bnc.predict(model, complete, prob=True).to_numpy()
    cll = np.log(post[np.arange(len(complete)), complete["Class"].cat.codes]).sum()
    assert -cll == pytest.approx(149.1442, abs=1e-2)
    assert bnc.cLogLik(model, complete) == pytest.approx(cll, rel=1e-12)


# test-learn-chowliu.R: the loglik score of a pair is the class-conditional MI
def test_cmi_anchors(car, voting):
    assert bnc.cmi("buying", "maint", car, z="class") == pytest.approx(0.07199921, abs=1e-4)
    assert bnc.cmi("water_project_cost_sharing", "crime", voting, z="Class") == \
        pytest.approx(0.003924715, abs=1e-4)


def test_wanbia_with_missing_values(voting):
    # R's value (a test it marks "too slow" and skips); scipy's L-BFGS-B and
    # R's optim stop at slightly different points of this flat objective.
    m = bnc.lp(bnc.nb("Class", voting), voting, smooth=1, wanbia=True)
    assert bnc.awnb_weights(m)["physician_fee_freeze"] == pytest.approx(0.7730736, abs=5e-3)
