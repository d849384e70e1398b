"""Parents lists: building, parsing, topological orders, minimal DAGs of staged trees."""
import itertools
import shutil
import subprocess

import networkx as nx
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hst

import pystagedtrees as st
from pystagedtrees.graphs import as_sevt
from pystagedtrees.graphs._parentslist import (
    ParentsEntry,
    ParentsList,
    as_adj_matrix,
    as_bn,
    as_networkx,
    as_parentslist,
    parentslist,
    random_parentslist,
    topo_sort_parentslist,
)

# R's documentation example of topo_sort_parentslist
R_EXAMPLE = {"A": [], "B": [], "C": ["A", "B"], "D": ["C"], "E": ["A"], "F": ["B", "E"]}


@hst.composite
def dags(draw, max_vars=6):
    """A random DAG: arcs only go forward in a random permutation of the variables."""
    n = draw(hst.integers(2, max_vars))
    names = [f"V{j}" for j in draw(hst.permutations(range(n)))]
    parents = {v: [] for v in names}
    for i, v in enumerate(names):
        for u in names[:i]:
            if draw(hst.booleans()):
                parents[v].append(u)
    order = draw(hst.permutations(names))  # dict order unrelated to the DAG
    levels = {v: [str(a) for a in range(draw(hst.integers(2, 3)))] for v in names}
    return {v: parents[v] for v in order}, levels


def _is_topological(order, parents):
    position = {v: j for j, v in enumerate(order)}
    return all(position[p] < position[v] for v in parents for p in parents[v])


def test_topo_sort_follows_r_rule_on_r_example():
    # first root in list order each time: A (C needs B), B, C, D, E, F
    assert topo_sort_parentslist(R_EXAMPLE) == ["A", "B", "C", "D", "E", "F"]


def test_all_topo_sort_lists_every_linear_extension():
    expected = [
        list(p) for p in itertools.permutations(R_EXAMPLE) if _is_topological(p, R_EXAMPLE)
    ]
    got = topo_sort_parentslist(R_EXAMPLE, all=True)
    assert sorted(got) == sorted(expected)
    assert len(got) == len({tuple(o) for o in got})


@given(dags())
@settings(max_examples=60, deadline=None)
def test_topo_sort_is_a_topological_permutation(dag):
    parents, _ = dag
    order = topo_sort_parentslist(parents)
    assert sorted(order) == sorted(parents)
    assert _is_topological(order, parents)


@given(dags())
@settings(max_examples=60, deadline=None)
def test_as_parentslist_of_as_sevt_gives_back_the_dag(dag):
    parents, levels = dag
    tree = as_sevt(parents, values=levels)
    with_warnings = as_parentslist(tree)  # no asymmetric independence: no warning
    assert {v: set(e.parents) for v, e in with_warnings.items()} == {v: set(p) for v, p in parents.items()}
    assert all(not (e.context or e.partial or e.local) for e in with_warnings.values())


def test_round_trip_through_compact_stage_vectors():
    # 26 binary variables: the last ones have far more than DENSE_MAX situations
    pl = random_parentslist(26, k=2, maxp=3, seed=11)
    tree = as_sevt(pl)
    assert not tree.stage_vector(25).is_dense
    back = as_parentslist(tree)
    assert {v: set(e.parents) for v, e in back.items()} == {v: set(e.parents) for v, e in pl.items()}


def test_minimal_dag_of_full_tree_is_complete_and_of_indep_empty():
    table = st.datasets.titanic_table()
    full = as_parentslist(st.full(table, join_unobserved=False))
    variables = full.variables
    for i, v in enumerate(variables):
        assert set(full[v].parents) == set(variables[:i])
    indep = as_parentslist(st.indep(table, join_unobserved=False))
    assert all(e.parents == [] for e in indep.values())


def test_minimal_dag_reports_local_independence_as_r_test():
    # R's test: Z's stages c(s1, s2, s2, s1) over X, Y binary.  Along Y every
    # column has both stages (all counts 2 = k), but stage s1 shows up for
    # Y=0 (X=0) and for Y=1 (X=1): the per-row distinct counts add to 4, not
    # 2, so the dependence on Y is local; the same holds for X.
    model = st.sevt({"X": ["0", "1"], "Y": ["0", "1"], "Z": ["0", "1"]}, full=True)
    model = st.join_stages(model, "Z", "1", "4")
    model = st.join_stages(model, "Z", "2", "3")
    assert st.stages(model, "Z") == ["1", "2", "2", "1"]
    with pytest.warns(UserWarning, match="independences detected"):
        pl = as_parentslist(model)
    assert set(pl["Z"].parents) == {"X", "Y"}
    assert pl["Z"].local == ["Y", "X"]
    assert str(pl) == "[X][Y|X][Z|<Y>:<X>]"


def test_minimal_dag_reports_context_independence():
    # Z depends on Y only when X = 1: along Y the X=0 column is constant
    # (count 1) and the X=1 column is not, a context-specific independence.
    model = st.sevt({"X": ["0", "1"], "Y": ["0", "1"], "Z": ["0", "1"]}, full=True)
    model = st.join_stages(model, "Z", "1", "2")
    with pytest.warns(UserWarning):
        pl = as_parentslist(model)
    assert pl["Z"].parents == ["Y", "X"]
    assert pl["Z"].context == ["Y"]
    assert pl["Z"].stages == ["1", "1", "3", "4"]
    assert as_parentslist(model, silent=True)["Z"].context == ["Y"]


def test_string_form_round_trip_and_decorations():
    pl = as_parentslist("[A][B|A][C|(A):{B}][D| <C> ]")
    assert pl["C"].partial == ["A"] and pl["C"].context == ["B"]
    assert pl["D"].local == ["C"]
    assert str(pl) == "[A][B|A][C|(A):{B}][D|<C>]"
    assert pl.to_string(only_parents=True) == "[A][B|A][C|A:B][D|C]"
    assert as_parentslist(str(pl)).edges() == pl.edges()
    # bnlearn / bnclassify model strings separate families with spaces
    assert as_parentslist("[c] [x|c]").edges() == [("c", "x")]
    # spaces inside a name belong to it; spaces around names do not
    spaced = as_parentslist(" [Age group] [Sex | Age group : <Class x> ] [Class x]")
    assert sorted(spaced.variables) == ["Age group", "Class x", "Sex"]
    assert spaced["Sex"].parents == ["Age group", "Class x"]
    assert spaced["Sex"].local == ["Class x"]
    assert as_parentslist(str(spaced)).edges() == spaced.edges()
    with pytest.raises(ValueError, match="empty variable name"):
        as_parentslist("[A][ |A]")


def test_sources_agree():
    graph = nx.DiGraph([("A", "B"), ("A", "C"), ("B", "C")])
    nx.set_node_attributes(graph, {"A": ["a", "b"]}, "levels")
    from_graph = as_parentslist(graph)
    from_dict = parentslist({"C": ["A", "B"], "B": ["A"], "A": []}, values={"A": ["a", "b"]})
    from_string = as_parentslist("[A][B|A][C|A:B]", values={"A": ["a", "b"]})
    for pl in (from_graph, from_string):
        assert pl.variables == from_dict.variables
        assert {v: set(e.parents) for v, e in pl.items()} == {v: set(e.parents) for v, e in from_dict.items()}
        assert pl["A"].values == ["a", "b"]
    assert isinstance(as_parentslist(from_dict), ParentsList)


class _FakeCpd:
    def __init__(self, variable, states):
        self.variable = variable
        self.state_names = {variable: states}


class _PgmpyLike(nx.DiGraph):
    """The part of pgmpy's DiscreteBayesianNetwork API that as_parentslist reads."""

    def get_cpds(self):
        return [_FakeCpd("A", ["lo", "hi"]), _FakeCpd("B", ["0", "1", "2"])]


def test_pgmpy_like_model_gives_levels_from_cpds():
    model = _PgmpyLike([("A", "B")])
    pl = as_parentslist(model)
    assert pl["A"].values == ["lo", "hi"] and pl["B"].values == ["0", "1", "2"]
    assert pl["B"].parents == ["A"]


def test_real_pgmpy_model_if_installed():
    pgmpy_models = pytest.importorskip("pgmpy.models")
    from pgmpy.factors.discrete import TabularCPD

    cls = getattr(pgmpy_models, "DiscreteBayesianNetwork", None) or pgmpy_models.BayesianNetwork
    model = cls([("A", "B")])
    model.add_cpds(
        TabularCPD("A", 2, [[0.3], [0.7]], state_names={"A": ["x", "y"]}),
        TabularCPD("B", 2, [[0.1, 0.8], [0.9, 0.2]], evidence=["A"], evidence_card=[2],
                   state_names={"B": ["u", "v"], "A": ["x", "y"]}),
    )
    tree = as_sevt(model)
    assert tree.tree == {"A": ["x", "y"], "B": ["u", "v"]}
    assert st.stages(tree, "B") == ["1", "2"]


def test_adjacency_bn_and_networkx():
    pl = parentslist({"A": [], "B": ["A"], "C": ["A", "B"]}, values={"A": ["0", "1"]})
    adj = as_adj_matrix(pl)
    assert adj.to_numpy().tolist() == [[0, 1, 1], [0, 0, 1], [0, 0, 0]]
    assert list(adj.index) == ["A", "B", "C"]
    bn = as_bn(pl)
    assert set(bn.edges()) == set(pl.edges()) and bn.nodes["A"]["levels"] == ["0", "1"]
    graph = as_networkx(as_parentslist("[A][B|A][C|(A):{B}]"))
    assert graph.edges["A", "C"]["label"] == "partial"
    assert graph.edges["B", "C"]["label"] == "context"
    assert graph.edges["A", "B"]["label"] == "total"


def test_bad_graphs_raise_clear_errors():
    with pytest.raises(ValueError, match="cycle"):
        parentslist({"A": ["B"], "B": ["A"]})
    with pytest.raises(ValueError, match="cycle"):
        topo_sort_parentslist({"A": ["C"], "B": ["A"], "C": ["B"], "D": []})
    with pytest.raises(ValueError, match="cycle"):
        as_parentslist(nx.DiGraph([("A", "B"), ("B", "A")]))
    with pytest.raises(ValueError, match="own parent"):
        parentslist({"A": ["A"]})
    with pytest.raises(ValueError, match="'Z' of 'B' is not a variable"):
        parentslist({"A": [], "B": ["Z"]})
    with pytest.raises(ValueError, match="model string"):
        as_parentslist("A -> B")
    with pytest.raises(TypeError, match="undirected"):
        as_parentslist(nx.Graph([("A", "B")]))
    with pytest.raises(TypeError, match="`x` must be"):
        as_parentslist(42)
    with pytest.raises(TypeError, match="`x`: parents of 'q' must be a list of names"):
        as_parentslist({"q": 1})
    with pytest.raises(TypeError, match="`parents`: context of 'q' must be a list of names"):
        parentslist({"q": {"parents": [], "context": 1}})
    with pytest.raises(ValueError, match="`x`: entry of 'q' has unknown field"):
        as_parentslist({"q": {"parent": []}})
    with pytest.raises(ValueError, match="`k`"):
        random_parentslist(3, k=1)
    with pytest.raises(TypeError, match="`n`"):
        random_parentslist(2.5)


def test_random_parentslist_respects_bounds():
    pl = random_parentslist(8, k=4, maxp=2, seed=5)
    assert pl.variables == [f"X{j}" for j in range(1, 9)]
    for i, (_v, e) in enumerate(pl.items()):
        assert 2 <= len(e.values) <= 4
        assert (len(e.parents) == 0) if i == 0 else (1 <= len(e.parents) <= min(2, i))
        assert all(int(p[1:]) <= i for p in e.parents)
    assert random_parentslist(8, k=4, maxp=2, seed=5).edges() == pl.edges()
    assert random_parentslist(4, maxp=0, seed=1).edges() == []
    for n, k in ((3, 2 ** 70), (2 ** 70, 2)):
        with pytest.raises(ValueError, match=f"`n` = {n} variables of up to `k` = {k} levels"):
            random_parentslist(n, k=k)


R_RANDOM_PARENTSLIST = """
set.seed(2024)
n <- 7; k <- 4; maxp <- 3
vals <- sapply(1:n, function(i) 1 + sample(k - 1, 1))
for (i in 2:n) {
  m <- sample(min(maxp, i - 1), 1)
  cat(i, ":", sample(1:(i - 1), size = m), "\\n")
}
cat("levels:", vals, "\\n")
"""


@pytest.mark.skipif(shutil.which("Rscript") is None, reason="Rscript not on PATH")
def test_random_parentslist_replays_r():
    # The generating process of the spec (3.12) written in base R: levels of
    # every variable first, then for each variable the number of parents and
    # the parents themselves.
    out = subprocess.run(["Rscript", "-e", R_RANDOM_PARENTSLIST], capture_output=True, text=True, check=True).stdout
    lines = out.strip().splitlines()
    expected_levels = [int(x) for x in lines[-1].split(":")[1].split()]
    expected_parents = {
        f"X{line.split(':')[0].strip()}": [f"X{x}" for x in line.split(":")[1].split()] for line in lines[:-1]
    }
    pl = random_parentslist(7, k=4, maxp=3, seed=2024, rng="R")
    assert [len(e.values) for e in pl.values()] == expected_levels
    assert {v: e.parents for v, e in pl.items() if v != "X1"} == expected_parents


def test_networkx_refuses_vertex_names_that_collide():
    # paths a / b-x and a-b / x are both named "root-a-b-x" in R's scheme
    data = pd.DataFrame({"A": ["a", "a-b", "a", "a-b"], "B": ["b", "b", "x", "x"],
                         "C": ["b-x", "c", "c", "c"]})
    model = st.full(data, lambda_=1)
    names = st.get_vertices(model)["name"]
    assert names.duplicated().any()
    with pytest.raises(ValueError, match="levels containing '-'"):
        st.as_networkx(model)


def test_entries_read_from_a_parents_list_are_copies():
    pl = st.parentslist({"A": [], "B": ["A"]}, values={"A": ["0", "1"]})
    pl["B"].parents.append("Z")
    pl.get("A").values.append("2")
    for entry in pl.values():
        entry.parents.append("Z")
    assert str(pl) == "[A][B|A]"
    assert pl["A"].values == ["0", "1"]


def test_a_parents_list_keeps_its_own_entries():
    entries = {"A": ParentsEntry([], ["a", "b"]), "B": ParentsEntry(["A"], ["x", "y"])}
    dag = ParentsList(entries)
    entries["B"].parents.append("B")
    entries["A"].values.append("c")
    assert str(dag) == "[A][B|A]" and dag["A"].values == ["a", "b"]


def _counting_reductions(monkeypatch):
    from pystagedtrees.graphs import _parentslist
    calls = []
    reduce = _parentslist._minimal_parents

    def counted(model, i):
        calls.append(i)
        return reduce(model, i)

    monkeypatch.setattr(_parentslist, "_minimal_parents", counted)
    return calls


def test_as_parentslist_refuses_a_tree_it_cannot_lay_out_before_reducing_any_variable(
        monkeypatch):
    from pystagedtrees.graphs import _parentslist
    model = st.full(st.datasets.titanic_table(), lambda_=1)
    calls = _counting_reductions(monkeypatch)
    monkeypatch.setattr(_parentslist, "EXPAND_MAX", 10)  # Survived has 16 situations
    with pytest.raises(ValueError, match=r"array of stage ids of 'Survived' would have 16 "
                                         r"entries .* more than the 10"):
        st.as_parentslist(model)
    assert calls == []


def test_as_parentslist_refuses_beyond_memory_before_reducing_any_variable(monkeypatch):
    import pystagedtrees.base._validation as validation
    model = st.full(st.datasets.titanic_table(), lambda_=1)
    calls = _counting_reductions(monkeypatch)
    monkeypatch.setattr(validation, "_available_memory", lambda: None)
    monkeypatch.setattr(validation, "_physical_memory", lambda: 2 * 16 * 8)  # fits Age's 8 only
    with pytest.raises(ValueError, match=r"as_parentslist lays out the 16 stage ids of "
                                         r"'Survived' would need 256 bytes, more than the 128"):
        st.as_parentslist(model)
    assert calls == []


def test_as_parentslist_of_single_stage_variables_lays_nothing_out(monkeypatch):
    import pystagedtrees.base._validation as validation
    model = st.indep(st.datasets.titanic_table(), join_unobserved=False)
    monkeypatch.setattr(validation, "_available_memory", lambda: None)
    monkeypatch.setattr(validation, "_physical_memory", lambda: 2)  # nothing to lay out
    pl = st.as_parentslist(model)
    assert pl.to_string(only_parents=True) == "[Class][Sex][Age][Survived]"
    assert [pl[v].stages for v in pl] == [None, ["1"], ["1"], ["1"]]
