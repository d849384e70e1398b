"""The stage learners equal R stagedtrees on every benchmark set (split 1).

Reference: tests/reference/<name>.json.gz, ``models.<key>``.  Where R hit
its time limit the record has ``error`` instead of a model: the learner is
then checked for its properties (no worse score than the start, stored
log-likelihood equal to a fresh computation).
"""
import numpy as np
import pytest
from r_reference import assert_matches_r_model, dataset_params, load_split, r_result

import pystagedtrees as st
from pystagedtrees.fitting._scores import compute_loglik

LEARNERS = {
    "stages_bhc": lambda full, indep: st.stages_bhc(full),
    "stages_fbhc": lambda full, indep: st.stages_fbhc(full),
    "stages_bj_kullback_0.2": lambda full, indep: st.stages_bj(full, distance="kullback", thr=0.2),
    "stages_hc_indep": lambda full, indep: st.stages_hc(indep),
    "stages_hclust_totvar_complete_2": lambda full, indep: st.stages_hclust(
        full, k=2, distance="totvar", method="complete"
    ),
    # R: set.seed(2024) right before the call
    "stages_kmeans_2_seed2024": lambda full, indep: st.stages_kmeans(full, k=2, rng="R", seed=2024),
}
# R timed out on these (no reference); the properties are checked on a
# smaller scope so the suite stays fast
SLOW_WITHOUT_REFERENCE = {"stages_hc_indep": 3}


def check_properties(model, start):
    assert -st.BIC(model) >= -st.BIC(start) - 1e-9
    np.testing.assert_allclose(float(model.ll), float(compute_loglik(model)), rtol=1e-9)


@pytest.mark.parametrize("name", dataset_params())
@pytest.mark.parametrize("learner", sorted(LEARNERS))
def test_learner_matches_r(name, learner):
    train, test, ref = load_split(name)
    full = st.full(train, lambda_=1)
    indep = st.indep(train, lambda_=1)
    ref_model = ref["models"][learner]
    if "error" in ref_model:
        # R gave no model: it ran past its time limit, or stopped with an error
        start_key = "indep" if learner.endswith("indep") else "full"
        r_result(ref["models"][start_key], f"{start_key} on {name}")
        start = indep if start_key == "indep" else full
        try:
            if learner in SLOW_WITHOUT_REFERENCE:
                scope = start.variables[1 : 1 + SLOW_WITHOUT_REFERENCE[learner]]
                model = getattr(st, learner.split("_indep")[0])(start, scope=scope)
            else:
                model = LEARNERS[learner](full, indep)
        except ValueError:
            if "time limit" in ref_model["error"]:
                raise
            return  # R stopped with an error, and we refuse clearly
        check_properties(model, start)
        return
    model = LEARNERS[learner](full, indep)
    assert_matches_r_model(model, ref_model, test, ref["order"][0], rtol=1e-8, atol=1e-8)
