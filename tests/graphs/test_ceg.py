"""Chain event graphs: positions, simplification, joins of positions, graphs."""
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hst

import pystagedtrees as st
from pystagedtrees.fitting._scores import compute_loglik
from pystagedtrees.graphs import as_adj_matrix, as_networkx
from pystagedtrees.graphs._ceg import (
    Ceg,
    ceg,
    ceg_adj_matrix,
    get_edges,
    get_vertices,
    join_positions,
    sevt_simplify,
)
from pystagedtrees.model._stagevec import StageLabels, StageVector
from pystagedtrees.random import random_sevt

LEVELS = {"A": ["a", "b", "c"], "B": ["x", "y"], "C": ["0", "1"], "D": ["u", "v"]}


@pytest.fixture
def r_model():
    """R's test model (test-igraph_conversion.R): B and C staged by hand, X independent."""
    model = st.sevt({"A": ["1a", "2a"], "B": ["1b", "2b", "3b"], "C": ["1c", "2c"], "X": ["xx", "yy"]})
    model.assign_stages(1, StageVector(2, np.array([0, 1], dtype=np.int32)), StageLabels.from_strings(["aaaa", "bbbb"]))
    model.assign_stages(
        2, StageVector(6, np.array([0, 0, 0, 1, 1, 2], dtype=np.int32)), StageLabels.from_strings(["1", "2", "aaaa"])
    )
    return model


def test_positions_of_r_model_by_hand(r_model):
    # X: one stage, so one position.  C: stages 1,1,1,2,2,aaaa over children all
    # in X's position -> positions 1,1,1,2,2,3.  B: stages differ -> 1, 2.
    positions = ceg(r_model).positions
    assert positions == {"A": ["1"], "B": ["1", "2"], "C": ["1", "1", "1", "2", "2", "3"], "X": ["1"] * 12}
    assert isinstance(ceg(r_model), Ceg)


def test_graph_sizes_of_r_tests(r_model):
    assert len(get_edges(r_model)) == 2 + 6 + 12 + 24
    assert list(get_edges(r_model).columns[:2]) == ["from", "to"]
    assert len(get_vertices(r_model)) == 1 + 2 + 6 + 12 + 24
    graph = ceg(r_model)
    assert len(get_edges(graph)) == 16
    assert len(get_vertices(graph)) == 8
    # R's compatibility checks: tree with and without ignored stages, CEG without
    for obj, ignore in ((r_model, []), (r_model, ["1"]), (graph, [])):
        vert, edges = get_vertices(obj, ignore=ignore), get_edges(obj, ignore=ignore)
        assert set(vert["name"]) == set(edges["from"]) | set(edges["to"])
    nx_graph = as_networkx(graph)
    assert nx_graph.number_of_nodes() == 8 and nx_graph.number_of_edges() == 16
    assert as_networkx(r_model).number_of_edges() == 44


def test_adjacency_counts_edges(r_model):
    graph = ceg(r_model)
    adj = as_adj_matrix(graph)
    assert int(adj.to_numpy().sum()) == len(get_edges(graph))
    assert adj.loc["B_2", "C_2"] == 2 and adj.loc["B_2", "C_3"] == 1
    without_end = ceg_adj_matrix(graph, endnode=False)
    assert int(without_end["END"].sum()) == 0
    dropped = ceg_adj_matrix(graph, ignore=["aaaa"])
    assert "B_1" not in dropped.index and "C_3" not in dropped.index


@given(hst.integers(0, 10_000), hst.floats(0, 1))
@settings(max_examples=25, deadline=None)
def test_simplified_trees_have_positions_as_stages(seed, q):
    model = random_sevt(LEVELS, q=q, seed=seed)
    simple = sevt_simplify(model)
    positions = ceg(simple).positions
    named = st.stages(st.stndnaming(simple))
    assert {v: positions[v] for v in named} == named
    assert st.stages(sevt_simplify(simple)) == st.stages(simple)
    # positions refine stages: every position lies inside one stage
    for v in named:
        pairs = set(zip(positions[v], st.stages(model, v)))
        assert len(pairs) == len(set(positions[v]))
    # without data, each position keeps its stage's probabilities
    row = {"A": "b", "B": "y", "C": "1", "D": "v"}
    assert st.path_probability(simple, row) == pytest.approx(st.path_probability(model, row), rel=1e-12)


def test_simplify_refits_from_data_and_keeps_unobserved():
    table = st.datasets.titanic_table()
    # Age situations 1st-Male and 2nd-Male share a stage, but their Survived
    # children are in different stages: simplification splits them again
    model = st.join_stages(st.full(table, lambda_=1), "Age", "1", "3")
    simple = sevt_simplify(model)
    assert len(set(st.stages(simple, "Age"))) == len(set(st.stages(model, "Age"))) + 1
    assert float(st.logLik(simple)) == pytest.approx(float(compute_loglik(simple)), rel=1e-12)
    assert float(st.logLik(simple)) >= float(st.logLik(model)) - 1e-9  # finer partition
    survived = st.stages(simple, "Survived")
    original = st.stages(model, "Survived")
    assert [s == "UNOBSERVED" for s in survived] == [s == "UNOBSERVED" for s in original]
    assert not sevt_simplify(model, fit=False).is_fitted


def test_join_positions():
    model = st.full(st.datasets.titanic_table(), lambda_=1, join_unobserved=False)
    joined = join_positions(model, "Sex", "1", "2")
    # Age's stage becomes (Sex stage of the parent situation, Sex level)
    assert st.stages(joined, "Sex") == ["1", "1", "3", "4"]
    assert st.stages(joined, "Age") == ["11", "12", "11", "12", "31", "32", "41", "42"]
    assert st.stages(joined, "Survived")[:4] == ["111", "112", "121", "122"]
    assert float(st.logLik(joined)) == pytest.approx(float(compute_loglik(joined)), rel=1e-12)
    # the two joined situations now root identical subtrees: one position
    assert ceg(joined).positions["Sex"][:2] == ["1", "1"]


def test_join_positions_when_downstream_stages_outnumber_the_old_ones():
    # unobserved first, then observed: the rebuilt stages of X2 outnumber the
    # fitted ones (this raised an IndexError on the stale probabilities)
    data = pd.DataFrame({
        "X0": pd.Categorical(["l2", "l1"], ["l0", "l1", "l2"]),
        "X1": pd.Categorical(["l0", "l1"], ["l0", "l1"]),
        "X2": pd.Categorical(["l0", "l0"], ["l0"]),
    })
    model = st.full(data, lambda_=1)
    joined = join_positions(model, "X1", "2", "3")
    assert float(joined.ll) == pytest.approx(float(compute_loglik(st.sevt_fit(joined))), rel=1e-12)
    simple = st.stages_simplebhc(model)
    assert float(simple.ll) == pytest.approx(float(compute_loglik(st.sevt_fit(simple))), rel=1e-12)


def test_ceg_of_two_variable_tree():
    model = random_sevt({"A": ["aa", "aaa", "a"], "B": ["b", "bbb"]}, seed=1)
    positions = ceg(model).positions
    assert positions["A"] == ["1"] and len(positions["B"]) == 3


def test_graphs_of_trees_too_large_to_list_are_refused_before_any_work():
    # 30 binary variables: 2^30 leaves, past what the situation-by-situation
    # functions write out; refused at once, not after minutes of work
    rng = np.random.default_rng(0)
    data = pd.DataFrame({f"v{i}": rng.choice(["0", "1"], 40) for i in range(30)})
    model = st.full(data, lambda_=1)
    first, second = st.stages(model, "v2")[:2]
    for call in (lambda: get_edges(model), lambda: get_vertices(model),
                 lambda: join_positions(model, "v2", first, second),
                 lambda: st.cid(model, model)):
        with pytest.raises(ValueError, match="more than the 16777216 this library expands"):
            call()
    # joining at the last variable has no later situation to rebuild
    last = list(model.stage_prob["v29"])
    assert st.sevt_df(join_positions(model, "v29", last[0], last[1])) == st.sevt_df(model) - 1
