"""Learners refuse, before learning any variable, work that some variable in
scope cannot fit in memory: the refusal names that variable and both figures.

Each test sets the machine's memory between the needs of the first and the
last variable, and counts the calls of the learner's per-variable kernel: a
refusal after work would have counted the first variable."""
import re

import numpy as np
import pandas as pd
import pytest

import pystagedtrees as st
import pystagedtrees.base._validation as validation
from pystagedtrees.learners import _clustering, _learners

# learner as called, its public function (the key of its memory steps), the
# module and name of the kernel (or, for stages_hclust, the distance setup
# before its kernels) it calls once per variable learned
LEARNERS = [
    (st.stages_bhc, st.stages_bhc, _learners, "backward_join"),
    (st.stages_fbhc, st.stages_fbhc, _learners, "backward_join"),
    (lambda m: st.stages_bj(m, thr=0.3), st.stages_bj, _learners, "backward_join_distance"),
    (st.stages_hc, st.stages_hc, _learners, "move_situations"),
    (lambda m: st.stages_hclust(m, k=2), st.stages_hclust, _clustering, "_r_dist_of"),
    (lambda m: st.stages_kmeans(m, k=2, seed=1), st.stages_kmeans, _clustering, "best_of_starts"),
    (lambda m: st.stages_em(m, stages_alg=st.stages_bj, thr=0.3), st.stages_bj, _learners,
     "backward_join_distance"),
]


def _titanic_model():
    return st.full(st.datasets.titanic(), lambda_=1)


def _counting(monkeypatch, module, name):
    calls = []
    kernel = getattr(module, name)

    def counted(*args, **kwargs):
        calls.append(1)
        return kernel(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return calls


def _budget_between_first_and_last(monkeypatch, learner, model):
    """A machine whose budget fits every variable's need but the last one's."""
    steps = list(_learners.MEMORY_STEPS[learner](model, range(1, 4), ["UNOBSERVED"]))
    others, last = max(need for _, need in steps[:-1]), steps[-1][1]
    assert others < last
    monkeypatch.setattr(validation, "_available_memory", lambda: None)
    monkeypatch.setattr(validation, "_physical_memory", lambda: 2 * others)
    return steps[-1][0]


@pytest.mark.parametrize("call, learner, module, kernel", LEARNERS)
def test_refusal_comes_before_the_first_variable_is_learned(monkeypatch, call, learner, module,
                                                            kernel):
    model = _titanic_model()
    what = _budget_between_first_and_last(monkeypatch, learner, model)
    calls = _counting(monkeypatch, module, kernel)
    with pytest.raises(ValueError, match=re.escape(what)) as info:
        call(model)
    assert "'Survived'" in str(info.value) and "this machine can give" in str(info.value)
    assert calls == []
    # with memory enough the same kernel runs for the variables
    monkeypatch.setattr(validation, "_physical_memory", lambda: None)
    call(model)
    assert calls


def test_refusal_uses_what_is_available_now(monkeypatch):
    model = _titanic_model()
    monkeypatch.setattr(validation, "_physical_memory", lambda: 1 << 40)
    monkeypatch.setattr(validation, "_available_memory", lambda: 300)
    with pytest.raises(ValueError, match=r"'Age' pairwise.* would need 1,024 bytes, more than "
                                         r"the 300 bytes"):
        st.stages_bhc(model)


def test_memory_budget_is_the_smaller_of_half_the_machine_and_what_is_available(monkeypatch):
    monkeypatch.setattr(validation, "_physical_memory", lambda: 1000)
    monkeypatch.setattr(validation, "_available_memory", lambda: 800)
    assert validation.memory_budget() == 500
    monkeypatch.setattr(validation, "_available_memory", lambda: 300)
    assert validation.memory_budget() == 300
    monkeypatch.setattr(validation, "_physical_memory", lambda: None)
    assert validation.memory_budget() == 300
    monkeypatch.setattr(validation, "_available_memory", lambda: None)
    assert validation.memory_budget() is None


def test_available_memory_is_a_positive_figure_on_this_system():
    available = validation._available_memory()
    assert available is None or 0 < available


def test_hc_refuses_an_unlistable_variable_before_learning_the_others():
    # a variable of 2^21 situations (sparse: the unobserved ones share a stage)
    rng = np.random.default_rng(0)
    data = pd.DataFrame(rng.choice(["a", "b"], size=(50, 22)),
                        columns=[f"V{j}" for j in range(22)])
    model = st.full(data, lambda_=1)
    with pytest.raises(ValueError, match="stages_hc moves single situations: the stage "
                                         r".* of 'V21'"):
        st.stages_hc(model, ignore=False, scope=["V1", "V21"])


def test_levels_beyond_the_learners_limit_are_refused_up_front():
    rng = np.random.default_rng(0)
    data = pd.DataFrame({"A": rng.choice(["x", "y"], 600),
                         "B": pd.Categorical([str(v) for v in range(300)] * 2),
                         "C": rng.choice(["x", "y"], 600)})
    model = st.full(data, lambda_=1)
    for learner in (st.stages_bhc, st.stages_fbhc, st.stages_bj, st.stages_hc):
        with pytest.raises(ValueError, match=r"variable 'B' has 300 levels; the learners "
                                             r"accept at most 256"):
            learner(model, scope=["C", "B"])


def test_distinct_rows_without_each_column_counts_as_pandas():
    from pystagedtrees.learners._order_search import _distinct_rows_without_each
    rng = np.random.default_rng(4)
    codes = rng.integers(-1, 3, size=(300, 6)).astype(np.int32)
    frame = pd.DataFrame(codes)
    expected = [len(frame.drop(columns=j).drop_duplicates()) for j in range(6)]
    assert _distinct_rows_without_each(codes) == expected


@pytest.mark.parametrize("search", [st.search_greedy, st.search_best])
def test_order_searches_refuse_before_building_any_tree(monkeypatch, search):
    from pystagedtrees.learners import _order_search
    data = st.datasets.titanic()
    built = _counting(monkeypatch, _order_search, "model_from_codes")
    # Age after the other three meets their 14 observed combinations, plus one
    # unobserved stage: 2 tables of 15 x 15 numbers; give the machine less
    monkeypatch.setattr(validation, "_available_memory", lambda: None)
    monkeypatch.setattr(validation, "_physical_memory", lambda: 2 * 8 * 15 * 15)
    with pytest.raises(ValueError, match=r"stages_bhc on '\w+' added after every other "
                                         r"variable, in up to \d+ stages would need"):
        search(data)
    assert built == []
    monkeypatch.setattr(validation, "_physical_memory", lambda: None)
    search(data, alg=st.stages_fbhc)
    assert built
