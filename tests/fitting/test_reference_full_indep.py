"""full() and indep() equal R stagedtrees on every benchmark set (split 1)."""
import pytest
from r_reference import assert_matches_r_model, dataset_params, load_split, r_result

import pystagedtrees as st


@pytest.mark.parametrize("name", dataset_params())
@pytest.mark.parametrize("kind", ["full", "indep"])
def test_matches_r(name, kind):
    train, test, ref = load_split(name)
    builder = st.full if kind == "full" else st.indep
    model = builder(train, lambda_=1)
    assert_matches_r_model(model, r_result(ref["models"][kind], f"{kind} on {name}"), test, ref["order"][0])
