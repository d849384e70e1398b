"""Sevt's declared methods: each is its function, with the same signature."""
import inspect
import pydoc

import numpy as np
import pandas as pd
import pytest

import pystagedtrees as st
from pystagedtrees.model._methods import SevtMethods

METHODS = sorted(n for n, f in vars(SevtMethods).items() if inspect.isfunction(f))
# a default the model cannot name without importing a part above it: None stands for it
DEFAULT_BY_NONE = {("stages_em", "stages_alg"): st.stages_bhc}


def test_help_lists_the_methods():
    text = pydoc.render_doc(st.Sevt, renderer=pydoc.plaintext)
    for name in ("stages_bhc", "predict", "plot", "sevt_fit", "stages"):
        assert f"{name}(self" in text


@pytest.mark.parametrize("name", METHODS)
def test_method_has_the_signature_and_summary_of_its_function(name):
    function = getattr(st, name)
    method_params = list(inspect.signature(getattr(st.Sevt, name)).parameters.values())[1:]
    function_params = list(inspect.signature(function).parameters.values())[1:]
    # a default named by None is also annotated so: the function's annotation "| None"
    by_none = {m for (n, m) in DEFAULT_BY_NONE if n == name}
    assert [(p.name, p.kind, p.annotation) for p in method_params] == \
        [(p.name, p.kind, f"{p.annotation} | None" if p.name in by_none else p.annotation)
         for p in function_params]
    for m, f in zip(method_params, function_params):
        if (name, m.name) in DEFAULT_BY_NONE:
            assert m.default is None and f.default is DEFAULT_BY_NONE[(name, m.name)]
        else:
            assert m.default is f.default or m.default == f.default, m.name
    summary = inspect.getdoc(function).splitlines()[0]
    assert inspect.getdoc(getattr(st.Sevt, name)).splitlines()[0] == summary


def test_methods_give_what_their_functions_give():
    model = st.full(st.datasets.titanic_table(), lambda_=1)
    assert model.stages_bhc().stages() == st.stages(st.stages_bhc(model))
    rows = st.datasets.titanic().head(20)
    pd.testing.assert_frame_equal(model.predict(rows, class_="Survived", prob=True),
                                  st.predict(model, rows, class_="Survived", prob=True))
    rows = st.datasets.titanic().sample(300, random_state=1).reset_index(drop=True)
    rows.loc[::7, "Age"] = None
    with_gaps = st.full(rows, lambda_=1)
    np.testing.assert_allclose(with_gaps.stages_em(max_iter_em=1).BIC(),
                               st.stages_em(with_gaps, max_iter_em=1).BIC())
    assert with_gaps.stages_em(stages_alg=st.stages_fbhc, max_iter_em=1).stages() == \
        st.stages_em(with_gaps, stages_alg=st.stages_fbhc, max_iter_em=1).stages()
