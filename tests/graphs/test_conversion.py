"""as_sevt: Bayesian networks to staged trees, against R and against direct CPT counts."""
import numpy as np
import pandas as pd
import pytest
from r_reference import assert_matches_r_predict, dataset_params, load_split, r_result

import pystagedtrees as st
from pystagedtrees.graphs import as_sevt, parentslist, random_parentslist
from pystagedtrees.model._stagevec import DENSE_MAX, ParentStageVector, StageVector
from pystagedtrees.random import random_sevt, sample_from


def _tan_parents(ref):
    families = r_result(ref["bnc"]["tan_cl_loglik"], "tan_cl")["families"]
    # each family is [var, parents...]; the class's is the class alone
    return {v: (families[v][1:] if isinstance(families[v], list) else []) for v in ref["order"]}


@pytest.mark.parametrize("name", dataset_params())
def test_tan_structure_matches_r_sevt_tan_cl(name):
    train, test, ref = load_split(name)
    r_model = r_result(ref["models"]["sevt_tan_cl"], f"sevt_tan_cl on {name}")
    tree = as_sevt(parentslist(_tan_parents(ref), values=ref["levels"]))
    # R's tree order: the topological sort of the list in data order
    assert tree.variables == ["answer"] + list(r_model["stages"])
    model = st.sevt_fit(tree, data=train, lambda_=1)
    ll = st.logLik(model)
    assert ll.df == r_model["df"]
    assert ll.nobs == r_model["nobs"]
    np.testing.assert_allclose(float(ll), r_model["loglik"], rtol=1e-9)
    np.testing.assert_allclose(st.BIC(model), r_model["BIC"], rtol=1e-9)
    assert st.stndnaming(model).stages() == r_model["stages"]
    features = test.drop(columns=["answer"])
    probs = st.predict(model, features, class_="answer", prob=True)
    assert_matches_r_predict(probs, r_model["test_prob"], features)


def test_bnclassify_model_converts_like_its_families():
    from pystagedtrees.bnc import lp, tan_cl

    train, _, ref = load_split("Asym")
    bnc_model = lp(tan_cl("answer", train, score="loglik"), train, smooth=1)
    from_model = as_sevt(bnc_model, order=["answer"] + list(ref["models"]["sevt_tan_cl"]["stages"]))
    from_families = as_sevt(parentslist(_tan_parents(ref), values=ref["levels"]))
    assert from_model.stages() == from_families.stages()


def test_an_aode_ensemble_is_refused_not_read_as_its_naive_bayes():
    # R: no as_sevt / as_parentslist method for a bnc_aode; its families were
    # read here as a naive Bayes, silently
    from pystagedtrees.bnc import aode, lp

    data = st.datasets.titanic()
    for ensemble in (aode("Survived", data), lp(aode("Survived", data), data, smooth=1)):
        for convert in (as_sevt, st.as_parentslist):
            with pytest.raises(TypeError, match="`x` is an AODE ensemble"):
                convert(ensemble)


def test_hand_built_chain():
    # X -> Y -> Z: Z's stage follows Y only; situations (X, Y) with Y fastest
    tree = as_sevt({"Z": ["Y"], "Y": ["X"], "X": []},
                   values={"X": ["a", "b", "c"], "Y": ["0", "1"], "Z": ["u", "v"]})
    assert tree.variables == ["X", "Y", "Z"]
    assert st.stages(tree) == {"Y": ["1", "2", "3"], "Z": ["1", "2", "1", "2", "1", "2"]}


def test_parents_are_looked_up_by_name_in_any_given_order():
    # A -> C <- B, built in the order B, A, C: C's stage is (B, A) with A fastest
    tree = as_sevt({"A": [], "B": [], "C": ["A", "B"]}, order=["B", "A", "C"],
                   values={"A": ["0", "1"], "B": ["x", "y", "z"], "C": ["0", "1"]})
    assert st.stages(tree, "C") == ["1", "2", "3", "4", "5", "6"]
    assert st.stages(tree, "A") == ["1", "1", "1"]


def test_fitting_reproduces_smoothed_cpts_on_a_compact_tree():
    # 24 binary variables: the last ones have more than DENSE_MAX situations
    # and are stored by parent configuration.  Their fitted probabilities must
    # be the smoothed conditional frequencies counted directly with pandas.
    pl = random_parentslist(24, k=2, maxp=3, seed=3)
    tree = as_sevt(pl)
    assert isinstance(tree.stage_vector(23), ParentStageVector) and tree.n_situations(23) > DENSE_MAX
    data = sample_from(random_sevt(pl, q=0, seed=4), 3000, seed=5)
    model = st.sevt_fit(tree, data=data, lambda_=1)
    for v in ["X20", "X23", "X24"]:
        parents = sorted(pl[v].parents, key=model.variables.index)
        counts = data.groupby(parents + [v], observed=False).size().unstack(v)
        expected = ((counts + 1).T / (counts + 1).sum(axis=1)).T.to_numpy()
        fitted = np.vstack(list(model.stage_prob[v][s] for s in model.stage_prob[v]))
        np.testing.assert_allclose(fitted, expected, rtol=1e-12)
    # situation-level lookups agree with reading the parents off the path
    rows = data.iloc[:50]
    codes = np.column_stack([rows[v].cat.codes for v in model.variables[:23]])
    labels = st.get_stage(model, rows[model.variables[:23]])
    parents = sorted(pl["X24"].parents, key=model.variables.index)
    config = np.zeros(50, dtype=int)
    for p in parents:
        config = config * 2 + codes[:, model.variables.index(p)]
    assert labels == [str(c + 1) for c in config]


def _dense_of(vector_args, n):
    """The stage ids of a parent-configuration vector, computed in plain Python."""
    lags, strides, radices, table = vector_args
    out = []
    for s in range(n):
        config = 0
        for stride, radix in zip(strides, radices):
            config = config * radix + (s // stride) % radix
        out.append(table[config])
    return np.array(out, dtype=np.int32)


def test_parent_stage_vector_behaves_like_its_dense_form():
    # variable at position 3 of a tree with k = (2, 3, 2): parents at positions 0 and 2
    args = ([3, 1], [6, 1], [2, 2], [2, 0, 1, 0])
    compact = ParentStageVector(12, *[np.array(a) for a in args])
    dense_ids = _dense_of(args, 12)
    dense = StageVector(12, dense_ids)
    np.testing.assert_array_equal(compact.dense(), dense_ids)
    np.testing.assert_array_equal(compact.lookup([11, 0, 7]), dense_ids[[11, 0, 7]])
    np.testing.assert_array_equal(compact.first_appearance(), dense.first_appearance())
    np.testing.assert_array_equal(compact.ids_in_use(), dense.ids_in_use())
    np.testing.assert_array_equal(compact.paths_per_stage(3), dense.paths_per_stage(3))
    mapping = np.array([1, 1, 0], dtype=np.int32)
    np.testing.assert_array_equal(compact.remap(mapping).dense(), dense.remap(mapping).dense())
    for start in (0, 6):
        np.testing.assert_array_equal(compact.block(start, 6).dense(), dense.block(start, 6).dense())
    np.testing.assert_array_equal(compact.block(4, 2).dense(), dense_ids[4:6])
    np.testing.assert_array_equal(
        compact.with_default_outside([1, 4], 5).dense(), dense.with_default_outside([1, 4], 5).dense()
    )
    np.testing.assert_array_equal(compact.assign([3], 1).dense(), dense.assign([3], 1).dense())
    copied = compact.copy()
    copied.table[0] = 9
    assert compact.table[0] == 2


def test_huge_compact_vector_refuses_dense_and_edits():
    tree = as_sevt(random_parentslist(30, maxp=2, seed=1))
    vector = tree.stage_vector(29)
    with pytest.raises(ValueError, match="compactly"):
        vector.dense()
    with pytest.raises(ValueError, match="compactly"):
        vector.assign([0], 0)
    assert int(vector.paths_per_stage(len(tree.stage_labels(29))).sum()) == tree.n_situations(29)


def test_bad_input_raises_clear_errors():
    levels = {"A": ["0", "1"], "B": ["0", "1"]}
    with pytest.raises(ValueError, match="cycle"):
        as_sevt({"A": ["B"], "B": ["A"]}, values=levels)
    with pytest.raises(ValueError, match="levels of variable 'B' are unknown"):
        as_sevt({"A": [], "B": ["A"]}, values={"A": ["0", "1"]})
    with pytest.raises(ValueError, match="levels of variable 'B' are unknown"):
        as_sevt({"A": [], "B": ["A"]}, values=pd.DataFrame({"A": ["0", "1"]}))
    with pytest.raises(ValueError, match="'Z' of 'B' is not a variable"):
        as_sevt({"A": [], "B": ["Z"]}, values=levels)
    with pytest.raises(ValueError, match="not a topological order"):
        as_sevt({"A": [], "B": ["A"]}, order=["B", "A"], values=levels)
    with pytest.raises(ValueError, match="every variable"):
        as_sevt({"A": [], "B": ["A"]}, order=["A"], values=levels)
    with pytest.raises(ValueError, match="at least two"):
        as_sevt({"A": []}, values={"A": levels["A"]})
    tree = as_sevt({"A": [], "B": ["A"]}, values=levels)
    with pytest.raises(ValueError, match="lacks variable"):
        st.sevt_fit(tree, data=pd.DataFrame({"A": ["0", "1"]}), lambda_=1)


def test_levels_read_from_data():
    data = pd.DataFrame({"A": ["x", "y", "x"], "B": ["1", "2", "2"]})
    tree = as_sevt("[A][B|A]", values=data)
    assert tree.tree == {"A": ["x", "y"], "B": ["1", "2"]}
    fitted = st.sevt_fit(tree, data=data, lambda_=0)
    assert fitted.stage_prob["B"]["1"].tolist() == [0.5, 0.5]


def test_values_of_a_variable_not_in_the_graph_are_refused():
    levels = {"A": ["0", "1"], "B": ["0", "1"]}
    with pytest.raises(ValueError, match="`values` gives levels of \\['Z'\\]"):
        as_sevt({"A": [], "B": ["A"]}, values={**levels, "Z": ["u", "v"]})
    # the data as a DataFrame may hold more columns than the graph
    data = pd.DataFrame({"A": ["0", "1"], "B": ["0", "1"], "Z": [0.5, 1.5]})
    assert as_sevt({"A": [], "B": ["A"]}, values=data).tree == levels
    # ... but a frame with none of the graph's variables is a mistake, not levels
    with pytest.raises(ValueError, match="`values` is a DataFrame without any of the graph's"):
        as_sevt({"A": [], "B": ["A"]}, values=data.rename(columns=str.lower))


def test_as_sevt_refuses_every_variable_before_building_any(monkeypatch):
    import pystagedtrees.base._validation as validation
    from pystagedtrees.graphs import _as_sevt as conversion
    built = []
    build = conversion.parent_stage_vector
    monkeypatch.setattr(conversion, "parent_stage_vector",
                        lambda i, layout: built.append(i) or build(i, layout))
    levels = {v: [str(j) for j in range(100)] for v in "ABC"}
    parents = {"A": [], "B": ["A"], "C": ["A", "B"]}
    monkeypatch.setattr(conversion, "MAX_CONFIGURATIONS", 9999)  # C's 10,000: too many
    with pytest.raises(ValueError, match=r"variable 'C' would have 10000 parent configurations"):
        st.as_sevt(parents, values=levels)
    assert built == []
    monkeypatch.setattr(conversion, "MAX_CONFIGURATIONS", 1 << 26)
    monkeypatch.setattr(validation, "_available_memory", lambda: None)
    monkeypatch.setattr(validation, "_physical_memory", lambda: 2 * 64 * 5000)  # B fits, C not
    with pytest.raises(ValueError, match=r"as_sevt builds the 10,000 stages of 'C' would need "
                                         r"680,000 bytes, more than the 320,000 bytes"):
        st.as_sevt(parents, values=levels)
    assert built == []
    monkeypatch.setattr(validation, "_physical_memory", lambda: None)
    st.as_sevt(parents, values=levels)
    assert built == [1, 2]
