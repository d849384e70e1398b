"""The public API: functions taking a model first are also Sevt methods (one implementation,
see tests/model/test_methods.py)."""
import inspect

import pytest

import pystagedtrees as st

# functions whose first argument may be something else than a model (levels,
# data, graphs) are still methods when they accept a model
NOT_MODEL_FIRST = {"sevt", "full", "indep", "parentslist", "random_parentslist", "topo_sort_parentslist",
                   "all_topo_sort",
                   "as_sevt", "generate_random_dataset", "generate_xor_dataset",
                   "generate_linear_dataset", "save_figure", "sevt_refine", "sevt_tan_cl",
                   "search_best", "search_greedy",
                   "sevt_tan_hc", "sevt_kdb", "sevt_naive", "ordering_mi", "ordering_cmi",
                   "ordering_ch"}


def test_model_functions_are_methods():
    missing = []
    for name in st.__all__:
        func = getattr(st, name)
        if not inspect.isfunction(func) or name in NOT_MODEL_FIRST:
            continue
        if not inspect.isfunction(getattr(st.Sevt, name, None)):
            missing.append(name)
    assert missing == []


def test_method_and_function_agree():
    model = st.full(st.datasets.titanic_table(), lambda_=1)
    assert model.stages_bhc().stages() == st.stages_bhc(model).stages()
    assert model.BIC() == st.BIC(model)
    assert model.get_stage(["1st"]) == st.get_stage(model, ["1st"])


def test_r_datasets_load_with_their_levels():
    # sizes and levels as R's data() documents them (?PhDArticles, ?Pokemon,
    # ..., bnclassify's ?car and ?voting, whose 392 missing votes R keeps)
    shapes = {"Asym": (1000, 4), "PhDArticles": (915, 6), "Pokemon": (999, 5),
              "covid_patients": (10000, 4), "trajectories": (10000, 5), "falls_long": (50000, 6),
              "car": (1728, 7), "voting": (435, 17)}
    assert set(shapes) <= set(st.datasets.names())
    for name, shape in shapes.items():
        data = st.datasets.load(name)
        assert data.shape == shape
        assert data.isna().sum(axis=None) == (392 if name == "voting" else 0)
    assert list(st.datasets.load("PhDArticles")["Mentor"].cat.categories) == [
        "low", "medium", "high"]
    with pytest.raises(ValueError, match="`name` must be one of"):
        st.datasets.load("Falls")


def test_the_version_is_the_installed_distribution_s():
    import importlib.metadata
    import re

    assert re.fullmatch(r"\d+\.\d+\.\d+([ab]|rc|\.dev|\.post)?\d*", st.__version__)
    assert importlib.metadata.version("pystagedtrees") == st.__version__
