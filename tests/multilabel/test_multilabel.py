"""Tests of pystagedtrees.multilabel: dependence degrees, cycle breaking, the
label network, the BN-ordered classifier chain and the metrics."""
import math

import networkx as nx
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as hst
from scipy.stats import entropy
from sklearn.base import BaseEstimator
from sklearn.cluster import KMeans
from sklearn.linear_model import LinearRegression, LogisticRegression, Ridge
from sklearn.multioutput import ClassifierChain, MultiOutputClassifier
from sklearn.naive_bayes import GaussianNB
from sklearn.utils.estimator_checks import parametrize_with_checks

from pystagedtrees.multilabel import (
    BNClassifierChain,
    break_cycles,
    label_dependence,
    label_network,
)
from pystagedtrees.multilabel.metrics import multilabel_scores


@hst.composite
def label_matrices(draw, max_labels=5, max_rows=60):
    """Random 0/1 label matrices with some dependence between columns."""
    n = draw(hst.integers(1, max_rows))
    m = draw(hst.integers(1, max_labels))
    rng = np.random.default_rng(draw(hst.integers(0, 2**32 - 1)))
    Y = (rng.random((n, m)) < rng.random(m)).astype(int)
    for j in range(1, m):  # copy an earlier column into some rows
        copied = rng.random(n) < rng.random()
        Y[copied, j] = Y[copied, rng.integers(j)]
    return Y


# ---------------------------------------------------------------- dependence


def test_label_dependence_by_hand():
    # l0 = 1,1,1,0 and l1 = 1,1,0,0.
    # H(l1 | l0): l0=1 (3 rows) has l1 = 1,1,0 -> h(1/3); l0=0 (1 row) -> 0,
    #   so H = 3/4 h(1/3) and I(l0 -> l1) = 1 - 3/4 h(1/3) = 0.3113.
    # H(l0 | l1): l1=1 (2 rows) has l0 = 1,1 -> 0; l1=0 has l0 = 1,0 -> 1 bit,
    #   so H = 1/2 and I(l1 -> l0) = 0.5.
    h = lambda p: -p * math.log2(p) - (1 - p) * math.log2(1 - p)  # noqa: E731
    Y = np.array([[1, 1], [1, 1], [1, 0], [0, 0]])
    expected = np.array([[1.0, 1 - 0.75 * h(1 / 3)], [0.5, 1.0]])
    np.testing.assert_allclose(label_dependence(Y), expected, atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(label_matrices())
def test_label_dependence_matches_conditional_entropy_from_crosstabs(Y):
    # Independent computation: H(l_j | l_k) = sum_v P(l_k = v) H(l_j | l_k = v)
    # with scipy's entropy on each conditional distribution.
    n, m = Y.shape
    expected = np.empty((m, m))
    for k in range(m):
        for j in range(m):
            h = 0.0
            for v in (0, 1):
                rows = Y[:, k] == v
                if rows.any():
                    counts = np.bincount(Y[rows, j], minlength=2)
                    h += rows.mean() * entropy(counts, base=2)
            expected[k, j] = 1 - h
    degree = label_dependence(Y)
    np.testing.assert_allclose(degree, expected, atol=1e-9)
    assert np.all((degree >= 0) & (degree <= 1))


def test_label_dependence_counts_mutual_exclusion_and_keeps_names():
    Y = pd.DataFrame({"a": [1, 0, 1, 0, 0], "not_a": [0, 1, 0, 1, 1]})
    degree = label_dependence(Y)
    assert list(degree.index) == list(degree.columns) == ["a", "not_a"]
    np.testing.assert_allclose(degree.to_numpy(), 1.0)  # each determines the other


@pytest.mark.parametrize(
    "Y, error, match",
    [
        (np.array([0, 1, 1]), ValueError, "2-D"),
        (np.array([[0, 2], [1, 0]]), ValueError, "binary"),
        (np.array([["a", "b"], ["b", "a"]]), TypeError, "0/1"),
        (np.zeros((0, 3)), ValueError, "at least one row"),
        (pd.DataFrame([[0, 1, 1]], columns=list("aab")), ValueError, "`Y` has duplicated"),
    ],
)
@pytest.mark.parametrize("function", [label_dependence, label_network])
def test_label_functions_reject_bad_labels(Y, error, match, function):
    with pytest.raises(error, match=match):
        function(Y)


# ---------------------------------------------------------------- break_cycles

nan = np.nan


def test_break_cycles_keeps_lightest_arc_off_the_cycle():
    # Cycle 0 -> 1 -> 2 -> 0 (0.9, 0.5, 0.2) plus a tail 2 -> 3 of weight 0.1.
    # The tail is the lightest arc but lies on no cycle: it stays; the cycle
    # loses its lightest arc 2 -> 0.
    w = np.array(
        [[nan, 0.9, nan, nan], [nan, nan, 0.5, nan], [0.2, nan, nan, 0.1], [nan] * 4]
    )
    dag = break_cycles(w)
    assert sorted(dag.edges) == [(0, 1), (1, 2), (2, 3)]
    assert dag.graph["removed_arcs"] == [(2, 0)]
    assert dag.edges[2, 3]["weight"] == 0.1


def test_break_cycles_two_disjoint_cycles_and_a_bridge():
    # 0 <-> 1 (0.7 / 0.2): remove 1 -> 0.  2 -> 3 -> 4 -> 2 (0.5, 0.6, 0.55):
    # remove 2 -> 3.  The bridge 1 -> 2 (0.01) is on no cycle: kept.
    w = np.full((5, 5), nan)
    w[0, 1], w[1, 0], w[1, 2] = 0.7, 0.2, 0.01
    w[2, 3], w[3, 4], w[4, 2] = 0.5, 0.6, 0.55
    dag = break_cycles(w)
    assert sorted(dag.graph["removed_arcs"]) == [(1, 0), (2, 3)]
    assert sorted(dag.edges) == [(0, 1), (1, 2), (3, 4), (4, 2)]


def test_break_cycles_nested_cycles():
    # Arcs 0->1 (1.0), 1->2 (0.4), 2->0 (0.6), 1->0 (0.3).  Cycles: 0->1->0
    # (lightest 1->0, 0.3) and 0->1->2->0 (lightest 1->2, 0.4).  Removing 1->0
    # leaves the second cycle, which then loses 1->2.
    g = nx.DiGraph()
    g.add_weighted_edges_from([(0, 1, 1.0), (1, 2, 0.4), (2, 0, 0.6), (1, 0, 0.3)])
    dag = break_cycles(g)
    assert dag.graph["removed_arcs"] == [(1, 0), (1, 2)]
    assert sorted(dag.edges) == [(0, 1), (2, 0)]
    assert g.number_of_edges() == 4  # the input graph is left alone


def test_break_cycles_ties_keep_arcs_from_earlier_to_later_nodes():
    # Complete bidirected graph, all weights equal: the documented tie rule
    # keeps each arc i -> j with i < j, i.e. the node order.
    dag = break_cycles(np.full((3, 3), 0.5))
    assert sorted(dag.edges) == [(0, 1), (0, 2), (1, 2)]
    named = break_cycles(pd.DataFrame(np.full((2, 2), 1.0), index=["b", "a"], columns=["b", "a"]))
    assert list(named.edges) == [("b", "a")]


def test_break_cycles_removes_self_loops_of_a_digraph():
    g = nx.DiGraph()
    g.add_weighted_edges_from([(0, 0, 5.0), (0, 1, 1.0)])
    dag = break_cycles(g)
    assert list(dag.edges) == [(0, 1)] and dag.graph["removed_arcs"] == [(0, 0)]


@hst.composite
def weighted_digraphs(draw):
    n = draw(hst.integers(1, 7))
    rng = np.random.default_rng(draw(hst.integers(0, 2**32 - 1)))
    w = rng.integers(0, 5, size=(n, n)).astype(float)  # small ints: many ties
    w[rng.random((n, n)) < draw(hst.floats(0, 0.8))] = nan
    return w


@settings(max_examples=150, deadline=None)
@given(weighted_digraphs())
def test_break_cycles_properties(w):
    n = w.shape[0]
    arcs = {(i, j): w[i, j] for i in range(n) for j in range(n) if i != j and not np.isnan(w[i, j])}
    dag = break_cycles(w)
    assert nx.is_directed_acyclic_graph(dag)
    removed = dag.graph["removed_arcs"]
    assert set(dag.edges) | set(removed) == set(arcs)
    assert not set(dag.edges) & set(removed)
    assert all(dag.edges[a]["weight"] == arcs[a] for a in dag.edges)
    # Arcs on no cycle of the input are all kept.
    original = nx.DiGraph(list(arcs))
    original.add_nodes_from(range(n))
    scc = {v: k for k, c in enumerate(nx.strongly_connected_components(original)) for v in c}
    assert all(a in dag.edges for a in arcs if scc[a[0]] != scc[a[1]])
    # When removed, each arc was on a cycle and was the lightest arc of every
    # cycle of the graph at that time (ties: larger (tail, head) first).
    for step, (u, v) in enumerate(removed):
        current = nx.DiGraph(list(dag.edges) + removed[step:])
        assert nx.has_path(current, v, u)
        comp = {x: k for k, c in enumerate(nx.strongly_connected_components(current)) for x in c}
        cyclic = [a for a in current.edges if comp[a[0]] == comp[a[1]]]
        lightest = min(cyclic, key=lambda a: (arcs[a], -a[0], -a[1]))
        assert lightest == (u, v)


@pytest.mark.parametrize(
    "weights, error, match",
    [
        (np.ones((2, 3)), ValueError, "square"),
        (np.array([[nan, np.inf], [1.0, nan]]), ValueError, "finite"),
        (nx.Graph([(0, 1)]), TypeError, "DiGraph"),
        (nx.DiGraph([(0, 1)]), ValueError, "weight"),
        (pd.DataFrame(np.ones((2, 2)), index=["a", "b"], columns=["b", "a"]), ValueError, "index"),
        # repeated labels would merge two nodes into one
        (pd.DataFrame(np.ones((3, 3)), index=list("aab"), columns=list("aab")), ValueError,
         "`weights` has duplicated column names"),
    ],
)
def test_break_cycles_rejects_bad_input(weights, error, match):
    with pytest.raises(error, match=match):
        break_cycles(weights)


# ---------------------------------------------------------------- label_network


def _chain_labels(n=2000, seed=1):
    """Labels from a known network A -> B -> C, A -> E (mutual exclusion), D alone.

    Each child drops some of its parent's ones, so entropies decrease along
    the arcs (A: p=.5, B: .4, C: .32, E: .35) and the heavier of two opposite
    dependence arcs is the true one.
    """
    rng = np.random.default_rng(seed)
    A = rng.random(n) < 0.5
    B = A & (rng.random(n) < 0.8)
    C = B & (rng.random(n) < 0.8)
    D = rng.random(n) < 0.3
    E = ~A & (rng.random(n) < 0.7)
    return pd.DataFrame({"A": A, "B": B, "C": C, "D": D, "E": E}).astype(int)


def test_label_network_recovers_a_known_chain():
    Y = _chain_labels()
    net = label_network(Y)
    assert sorted(net.edges) == [("A", "B"), ("A", "E"), ("B", "C")]
    assert net.degree("D") == 0
    order = net.graph["order"]
    assert sorted(order) == sorted(Y.columns)
    assert order.index("A") < order.index("B") < order.index("C")
    assert order.index("A") < order.index("E")
    degree = label_dependence(Y)
    for parent, child, weight in net.edges(data="weight"):
        assert weight == degree.loc[parent, child]


def test_label_network_ties_go_to_the_lowest_index():
    # Three copies of one label.  Each label's best first parent is a tie
    # between the two others (the same gain), broken to the lower index: 0
    # takes 1, 1 takes 0, 2 takes 0; a second copy adds nothing but penalty.
    # The 2-cycle 0 <-> 1 has equal weights (1.0), so 1 -> 0 (larger
    # (tail, head)) is removed: arcs 0 -> 1 and 0 -> 2, order 0, 1, 2.
    a = np.random.default_rng(3).random(200) < 0.4
    net = label_network(np.column_stack([a, a, a]).astype(int))
    assert sorted(net.edges) == [(0, 1), (0, 2)]
    assert net.graph["removed_arcs"] == [(1, 0)]
    assert net.graph["order"] == [0, 1, 2]


def test_label_network_limits():
    Y = _chain_labels()
    assert label_network(Y, max_parents=0).number_of_edges() == 0
    assert label_network(Y, penalty=1e9).number_of_edges() == 0
    limited = label_network(Y, max_children=1)
    assert max(d for _, d in limited.out_degree) <= 1


@settings(max_examples=60, deadline=None)
@given(
    label_matrices(max_labels=6, max_rows=80),
    hst.none() | hst.integers(0, 3),
    hst.sampled_from(["log", None, 0, 1, 2]),
)
def test_label_network_properties(Y, max_children, max_parents):
    net = label_network(Y, max_children=max_children, max_parents=max_parents)
    n, m = Y.shape
    assert nx.is_directed_acyclic_graph(net)
    order = net.graph["order"]
    assert sorted(order) == list(range(m)) and sorted(net.graph["initial_order"]) == list(range(m))
    position = {label: i for i, label in enumerate(order)}
    assert all(position[u] < position[v] for u, v in net.edges)
    limit = {"log": math.floor(math.log2(n)), None: m}.get(max_parents, max_parents)
    assert max(d for _, d in net.in_degree) <= limit
    if max_children is not None:
        assert max(d for _, d in net.out_degree) <= max_children


@settings(max_examples=60, deadline=None)
@given(label_matrices(max_labels=7, max_rows=120), hst.data())
def test_scoring_every_candidate_at_once_equals_one_by_one(Y, data):
    # the parent search scores all candidates in one grouped pass; each must equal
    # the family's own score, H(child | parents + [candidate]) from its joint table
    from pystagedtrees.multilabel._network import _family_score, _family_scores_with_each

    codes = np.asarray(Y, dtype=np.int64)
    m = codes.shape[1]
    child = data.draw(hst.integers(0, m - 1))
    others = [j for j in range(m) if j != child]
    parents = data.draw(hst.lists(hst.sampled_from(others), unique=True, max_size=m - 2)) if others else []
    penalty = data.draw(hst.floats(0, 5))
    at_once = _family_scores_with_each(codes, child, parents, penalty)
    for j in others:
        if j not in parents:
            assert at_once[j] == pytest.approx(_family_score(codes, child, parents + [j], penalty),
                                               rel=1e-12, abs=1e-9)


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"max_parents": "sqrt"}, ValueError, "`max_parents` must be one of 'log', None, an integer"),
        ({"max_parents": -1}, ValueError, "max_parents"),
        ({"max_children": 1.5}, TypeError, "max_children"),
        ({"penalty": -1.0}, ValueError, "penalty"),
        ({"penalty": "aic"}, ValueError, "penalty"),
    ],
)
def test_label_network_rejects_bad_parameters(kwargs, error, match):
    with pytest.raises(error, match=match):
        label_network(_chain_labels(50), **kwargs)


# ---------------------------------------------------------------- the chain

# Checks written for single-output classifiers (1-D targets, 1-D predictions,
# predict_proba of shape (n, 2)) do not apply to a multi-label-only estimator.
SINGLE_OUTPUT_CHECKS = {
    "check_classifiers_train": "asserts 1-D predictions",
    "check_classifiers_classes": "fits on a 1-D target",
    "check_classifiers_one_label": "fits on a 1-D target",
    "check_estimator_sparse_array": "expects predict_proba of shape (n, 2)",
    "check_estimator_sparse_matrix": "expects predict_proba of shape (n, 2)",
}


@parametrize_with_checks(
    [
        BNClassifierChain(LogisticRegression()),
        BNClassifierChain(LogisticRegression(), order="random", random_state=0),
    ],
    expected_failed_checks=lambda estimator: SINGLE_OUTPUT_CHECKS,
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def _separable_labels(n=400, seed=0):
    """Features and 4 labels, label j = [x_j > t_j] with distinct prevalences."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    thresholds = np.array([-1.0, -0.3, 0.4, 1.1])
    return X, (X > thresholds).astype(int)


def test_predictions_follow_the_original_label_order_for_a_reversed_chain():
    X, Y = _separable_labels()
    reversed_order = [3, 2, 1, 0]
    chain = BNClassifierChain(LogisticRegression(), order=reversed_order).fit(X, Y)
    np.testing.assert_array_equal(chain.order_, reversed_order)
    # the first link sees only X; the last one sees X and the three others
    assert chain.estimators_[0].n_features_in_ == 4
    assert chain.estimators_[-1].n_features_in_ == 7
    predicted = chain.predict(X)
    assert (predicted == Y).mean(axis=0).min() > 0.95  # column j predicts label j
    br = MultiOutputClassifier(LogisticRegression()).fit(X, Y).predict(X)
    assert (predicted == br).mean() > 0.97
    proba = chain.predict_proba(X)
    np.testing.assert_allclose(proba.mean(axis=0), Y.mean(axis=0), atol=0.03)


def test_cv_trains_the_links_on_cross_validated_labels_as_scikit_learn():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(120, 3))
    Y = (X[:, [0, 1, 2]] + rng.normal(scale=1.0, size=(120, 3)) > 0).astype(int)
    for chain_method in ("predict", "predict_proba"):
        ours = BNClassifierChain(LogisticRegression(), order=[2, 0, 1], cv=3,
                                 chain_method=chain_method).fit(X, Y)
        theirs = ClassifierChain(LogisticRegression(), order=[2, 0, 1], cv=3,
                                 chain_method=chain_method).fit(X, Y)
        for a, b in zip(ours.estimators_, theirs.estimators_):
            np.testing.assert_allclose(a.coef_, b.coef_)
        np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))
    on_true_labels = BNClassifierChain(LogisticRegression(), order=[2, 0, 1]).fit(X, Y)
    assert not np.allclose(on_true_labels.estimators_[2].coef_, ours.estimators_[2].coef_)


def test_chain_accepts_label_names_and_other_codings():
    X, Y = _separable_labels()
    names = ["w", "x", "y", "z"]
    frame = pd.DataFrame(Y, columns=names)
    by_name = BNClassifierChain(LogisticRegression(), order=["z", "x", "w", "y"]).fit(X, frame)
    np.testing.assert_array_equal(by_name.order_, [3, 1, 0, 2])
    signed = BNClassifierChain(LogisticRegression(), order=[3, 1, 0, 2]).fit(X, 2 * Y - 1)
    np.testing.assert_array_equal(signed.predict(X), 2 * by_name.predict(X) - 1)
    assert all(list(c) == [-1, 1] for c in signed.classes_)
    words = BNClassifierChain(LogisticRegression(), order=[3, 1, 0, 2]).fit(
        X, np.where(Y == 1, "yes", "no")
    )
    np.testing.assert_array_equal(words.predict(X) == "yes", by_name.predict(X) == 1)


def test_bn_order_is_the_label_network_order():
    Y = _chain_labels(600).to_numpy()
    X = Y + np.random.default_rng(0).normal(scale=1.0, size=Y.shape)
    chain = BNClassifierChain(LogisticRegression()).fit(X, Y)
    net = label_network(Y)
    np.testing.assert_array_equal(chain.order_, net.graph["order"])
    assert sorted(chain.label_graph_.edges) == sorted(net.edges)
    limited = BNClassifierChain(LogisticRegression(), max_parents=0).fit(X, Y)
    assert limited.label_graph_.number_of_edges() == 0


def test_random_order_is_a_seeded_permutation():
    X, Y = _separable_labels()
    orders = [
        BNClassifierChain(LogisticRegression(), order="random", random_state=s).fit(X, Y).order_
        for s in (7, 7, 8)
    ]
    np.testing.assert_array_equal(orders[0], orders[1])
    assert sorted(orders[2]) == [0, 1, 2, 3]
    assert BNClassifierChain(LogisticRegression(), order="random").fit(X, Y).label_graph_ is None


def test_chain_on_probabilities_and_sparse_features():
    X, Y = _separable_labels()
    soft = BNClassifierChain(LogisticRegression(), chain_method="predict_proba").fit(X, Y)
    assert (soft.predict(X) == Y).mean() > 0.95
    sparse = BNClassifierChain(LogisticRegression()).fit(sp.csr_array(X), Y)
    np.testing.assert_array_equal(sparse.predict(sp.csr_array(X)), sparse.predict(X))


def test_chain_with_this_librarys_bn_classifier_on_discretised_features():
    bnc = pytest.importorskip("pystagedtrees.bnc")
    if not hasattr(bnc, "BNClassifier"):
        pytest.skip("pystagedtrees.bnc has no BNClassifier")
    from sklearn.naive_bayes import CategoricalNB
    from sklearn.preprocessing import KBinsDiscretizer

    X, Y = _separable_labels(n=150)
    X = X + np.random.default_rng(1).normal(scale=0.7, size=X.shape)  # not separable
    codes = KBinsDiscretizer(n_bins=3, encode="ordinal", strategy="quantile").fit_transform(X)
    bn_chain = BNClassifierChain(bnc.BNClassifier(structure="nb")).fit(codes, Y)
    # The same naive Bayes model (Laplace smoothing) from scikit-learn; only
    # the class prior's smoothing differs, so predictions should agree.
    sk_chain = BNClassifierChain(CategoricalNB(alpha=1.0)).fit(codes, Y)
    np.testing.assert_array_equal(bn_chain.order_, sk_chain.order_)
    assert (bn_chain.predict(codes) == sk_chain.predict(codes)).mean() > 0.98


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"order": [0, 1, 1, 2]}, ValueError, "permutation"),
        ({"order": "entropy"}, ValueError, "order"),
        ({"order": 3}, TypeError, "order"),
        ({"chain_method": "decision_function"}, ValueError, "chain_method"),
        ({"order": "random", "random_state": "seed"}, TypeError, "random_state"),
        ({"random_state": 2.5}, TypeError, "random_state"),  # checked even when unused
        ({"max_children": -2}, ValueError, "max_children"),
        ({"cv": 1}, ValueError, "`cv`"),
        ({"cv": "folds"}, TypeError, "`cv` must be None, a number of folds"),
        ({"cv": True}, TypeError, "`cv` must be None"),
        ({"cv": {"q": 1}}, TypeError, "`cv` must be None"),
        ({"cv": [1, 2]}, ValueError, "`cv` must be None.*one split is 1"),
        ({"cv": np.zeros((2, 3, 4))}, ValueError, "`cv` must be None.*one split is array"),
        ({"cv": [(np.zeros((2, 2), int), np.arange(3))]}, ValueError, "splits must hold 1-D"),
        ({"cv": [(np.arange(3.0), np.arange(3))]}, ValueError, "splits must hold 1-D"),
        ({"cv": [(np.arange(25), np.arange(25, 51))]}, ValueError, r"row indices in 0\.\.49"),
        ({"cv": []}, ValueError, "at least one split"),
        ({"order": np.zeros((2, 3, 4))}, TypeError, "1-D sequence"),
        ({"order": [[0], [1, 2]]}, TypeError, "1-D sequence"),
        ({"random_state": True}, TypeError, "random_state"),
        ({"random_state": np.True_}, TypeError, "random_state"),
    ],
)
def test_chain_rejects_bad_parameters(kwargs, error, match):
    X, Y = _separable_labels(50)
    with pytest.raises(error, match=match):
        BNClassifierChain(LogisticRegression(), **kwargs).fit(X, Y)


def test_chain_takes_an_order_from_any_iterable_of_labels():
    X, Y = _separable_labels(50)
    expected = BNClassifierChain(LogisticRegression(), order=[3, 1, 0, 2]).fit(X, Y)
    for order in (iter([3, 1, 0, 2]), np.array([3, 1, 0, 2]), (3, 1, 0, 2)):
        got = BNClassifierChain(LogisticRegression(), order=order).fit(X, Y)
        np.testing.assert_array_equal(got.order_, expected.order_)


def test_chain_reads_an_iterable_of_splits_once():
    from sklearn.model_selection import KFold

    X, Y = _separable_labels(50)
    expected = BNClassifierChain(LogisticRegression(), cv=KFold(3)).fit(X, Y)
    for cv in (list(KFold(3).split(X)), (split for split in KFold(3).split(X))):
        got = BNClassifierChain(LogisticRegression(), cv=cv).fit(X, Y)
        np.testing.assert_array_equal(got.predict_proba(X), expected.predict_proba(X))


@pytest.mark.parametrize("estimator", ["CategoricalNB", "BNClassifier", "StagedTreeClassifier"])
def test_chain_refuses_probabilities_for_a_categorical_learner(estimator):
    # CategoricalNB would cast the probabilities to level 0 without a word
    from sklearn.naive_bayes import CategoricalNB

    import pystagedtrees
    from pystagedtrees.bnc import BNClassifier

    learners = {"CategoricalNB": CategoricalNB(), "BNClassifier": BNClassifier(),
                "StagedTreeClassifier": pystagedtrees.StagedTreeClassifier()}
    X, Y = _separable_labels(50)
    with pytest.raises(ValueError, match=f"`chain_method='predict_proba'`.*{estimator} takes "
                                         "categorical features"):
        BNClassifierChain(learners[estimator], chain_method="predict_proba").fit(
            (X > 0).astype(int), Y)


def test_chain_needs_distinct_label_columns():
    X, Y = _separable_labels(50)
    frame = pd.DataFrame(Y, columns=["a", "a", "b", "c"])  # four labels
    with pytest.raises(ValueError, match="`Y` has duplicated column names"):
        BNClassifierChain(LogisticRegression()).fit(X, frame)
    with pytest.raises(ValueError, match="`Y` must have at least one label column"):
        BNClassifierChain(LogisticRegression()).fit(X, Y[:, :0])


@pytest.mark.parametrize("rows_of_X, rows_of_Y", [(0, 0), (50, 0), (0, 50)])
def test_chain_refuses_empty_input_as_scikit_learn(rows_of_X, rows_of_Y):
    X, Y = _separable_labels(50)
    with pytest.raises(ValueError, match=r"Found array with 0 sample\(s\)"):
        BNClassifierChain(LogisticRegression()).fit(X[:rows_of_X], Y[:rows_of_Y])


def test_chain_names_an_empty_label_frame():
    X, Y = _separable_labels(50)
    with pytest.raises(ValueError, match="`Y` must have at least one row"):
        BNClassifierChain(LogisticRegression()).fit(X, pd.DataFrame(Y[:0], columns=list("abcd")))


def test_chain_rejects_non_binary_labels_and_non_estimators():
    X, Y = _separable_labels(50)
    Y3 = Y.copy()
    Y3[0, 1] = 2
    with pytest.raises(ValueError, match="Only binary classification.*column 1"):
        BNClassifierChain(LogisticRegression()).fit(X, Y3)
    with pytest.raises(TypeError, match="estimator"):
        BNClassifierChain("logistic").fit(X, Y)
    fits_without_tags = type("FitsWithoutTags", (), {"fit": lambda self, X, y: self})()
    with pytest.raises(TypeError, match="`estimator` must be a scikit-learn classifier"):
        BNClassifierChain(fits_without_tags).fit(X, Y)


@pytest.mark.parametrize("estimator, kind", [
    (LinearRegression(), "a regressor"),  # failed for want of `classes_`
    (KMeans(2, n_init=1), "a clusterer"),
    (Ridge(), "a regressor"),
])
def test_chain_refuses_an_estimator_that_does_not_classify(estimator, kind):
    X, Y = _separable_labels(50)
    with pytest.raises(TypeError, match=f"`estimator` must be a scikit-learn classifier; got .*"
                                        f"tags declare {kind}"):
        BNClassifierChain(estimator).fit(X, Y)


class _UntaggedClassifier(BaseEstimator):
    """A classifier that scikit-learn's tags do not call one (no ClassifierMixin)."""

    def fit(self, X, y):
        self.model_ = LogisticRegression().fit(X, y)
        self.classes_ = self.model_.classes_
        return self

    def predict(self, X):
        return self.model_.predict(X)


def test_chain_takes_a_duck_typed_classifier():
    X, Y = _separable_labels(50)
    expected = BNClassifierChain(LogisticRegression()).fit(X, Y).predict(X)
    got = BNClassifierChain(_UntaggedClassifier()).fit(X, Y).predict(X)
    np.testing.assert_array_equal(got, expected)


def test_chain_keeps_each_label_columns_own_values():
    X, Y = _separable_labels(60)
    frame = pd.DataFrame(Y, columns=list("abcd")).assign(
        a=lambda f: f["a"] == 1, b=lambda f: np.where(f["b"] == 1, "yes", "no"))
    chain = BNClassifierChain(LogisticRegression()).fit(X, frame)
    predicted = chain.predict(X)
    as_codes = BNClassifierChain(LogisticRegression()).fit(X, Y).predict(X)
    assert predicted.dtype == object
    assert isinstance(predicted[0, 0], (bool, np.bool_)) and isinstance(predicted[0, 1], str)
    np.testing.assert_array_equal(predicted[:, 0].astype(int), as_codes[:, 0])
    np.testing.assert_array_equal(predicted[:, 1] == "yes", as_codes[:, 1])
    np.testing.assert_array_equal(predicted[:, 2:].astype(int), as_codes[:, 2:])
    # numbers of several types stay a numeric array, which scikit-learn's metrics take
    numeric = pd.DataFrame(Y, columns=list("abcd")).astype({"a": np.uint8, "b": float})
    chain = BNClassifierChain(LogisticRegression()).fit(X, numeric)
    assert chain.predict(X).dtype == np.float64
    assert chain.score(X, numeric) == BNClassifierChain(LogisticRegression()).fit(X, Y).score(X, Y)
    mixed = frame.astype(object)
    mixed.loc[0, "b"] = 1
    with pytest.raises(ValueError, match=r"label column 'b' of `Y` mixes values of types \['int', 'str'\]"):
        BNClassifierChain(LogisticRegression()).fit(X, mixed)
    with pytest.raises(ValueError, match="label column 'c' of `Y` has missing values"):
        BNClassifierChain(LogisticRegression()).fit(X, frame.astype({"c": float}).assign(
            c=lambda f: f["c"].where(f.index > 0)))


@pytest.mark.parametrize("seed, error", [(-1, ValueError), ("a", TypeError)])
def test_chain_names_random_state(seed, error):
    X, Y = _separable_labels(30)
    with pytest.raises(error, match="`random_state` must be None, an int >= 0"):
        BNClassifierChain(LogisticRegression(), order="random", random_state=seed).fit(X, Y)


@pytest.mark.parametrize("estimator", [LogisticRegression(), GaussianNB()])
def test_chain_refuses_a_label_with_one_class(estimator):
    # scikit-learn's chain fails in fit for some learners and only in
    # predict_proba for others
    X, Y = _separable_labels(50)
    Y[:, 1] = 1
    with pytest.raises(ValueError, match=r"label column 1 of `Y` has only one class \(1\)"):
        BNClassifierChain(estimator, order="random").fit(X, Y)


# ---------------------------------------------------------------- metrics


def test_multilabel_scores_by_hand():
    Y_true = np.array([[1, 1, 0, 0], [0, 0, 0, 0], [1, 0, 1, 0]])
    Y_pred = np.array([[1, 0, 0, 0], [0, 0, 0, 0], [0, 1, 1, 1]])
    # Wrong cells: row 0 col 1; row 2 cols 0, 1, 3 -> 4 of 12.
    # Exact rows: row 1 only -> 1/3.
    # Per row F1 = 2|T&P| / (|T|+|P|): 2/3, 1 (both empty), 2/5 -> mean 31/45.
    # Per row Jaccard |T&P| / |T|P|: 1/2, 1, 1/4 -> mean 7/12.
    # Micro: TP = 2 (r0c0, r2c2), FP = 2 (r2c1, r2c3), FN = 2 (r0c1, r2c0)
    #   -> F1 = 2 TP / (2 TP + FP + FN) = 4 / 8.
    # Macro: label F1s 2/3 (TP1 FN1), 0, 1 (TP1), 0 (FP only) -> 5/12.
    scores = multilabel_scores(Y_true, Y_pred)
    expected = {
        "hamming_loss": 4 / 12,
        "subset_accuracy": 1 / 3,
        "example_f1": 31 / 45,
        "example_accuracy": 7 / 12,
        "micro_f1": 0.5,
        "macro_f1": 5 / 12,
    }
    assert scores == pytest.approx(expected)
    assert multilabel_scores(Y_true.astype(bool), Y_pred.astype(float)) == scores


def test_multilabel_scores_of_a_single_label():
    y_true = np.array([[1], [1], [1], [0], [0]])
    y_pred = np.array([[1], [1], [0], [0], [1]])
    # TP 2, FN 1, FP 1 -> F1 4/6; 3 of 5 rows right
    scores = multilabel_scores(y_true, y_pred)
    assert scores == pytest.approx({
        "hamming_loss": 2 / 5, "subset_accuracy": 3 / 5, "micro_f1": 4 / 6,
        "macro_f1": 4 / 6, "example_f1": 3 / 5, "example_accuracy": 3 / 5,
    })
    # the label written twice is the same problem, scored on scikit-learn's
    # multi-label path
    twice = multilabel_scores(np.repeat(y_true, 2, axis=1), np.repeat(y_pred, 2, axis=1))
    assert scores == pytest.approx(twice)


@pytest.mark.parametrize(
    "Y_pred, error, match",
    [
        (np.array([[2, 0], [0, 1]]), ValueError, "`Y_pred` must hold only 0 and 1"),
        (np.array([1, 0]), ValueError, "`Y_pred` must be a non-empty"),
        (np.array([[1, 0, 1], [0, 1, 1]]), ValueError, "same shape"),
        ([["yes", "no"], ["no", "yes"]], TypeError, "`Y_pred` must be a 0/1 matrix"),
    ],
)
def test_multilabel_scores_refuse_non_indicator_matrices(Y_pred, error, match):
    # scikit-learn alone scores a 2 as a hit in F1 but as a miss in hamming loss
    with pytest.raises(error, match=match):
        multilabel_scores(np.array([[1, 0], [0, 1]]), Y_pred)


def test_string_features_are_refused_naming_the_column_not_by_numpy():
    from pystagedtrees.bnc import BNClassifier
    rng = np.random.default_rng(4)
    Y = pd.DataFrame({"l1": rng.integers(0, 2, 40), "l2": rng.integers(0, 2, 40)})
    X = pd.DataFrame({"f1": rng.integers(0, 3, 40), "f2": rng.choice(["u", "v"], 40)})
    chain = BNClassifierChain(BNClassifier())
    for features, column in ((X, "'f2'"), (X.to_numpy(), "1"), (X.astype({"f2": "category"}),
                                                                   "'f2'")):
        with pytest.raises(TypeError, match=rf"`X`: column {column} holds strings \(e.g. "
                                            r"'[uv]'\); .*OrdinalEncoder"):
            chain.fit(features, Y)
    # integer codes work, and predicting from strings is refused the same way
    codes = X.assign(f2=(X.f2 == "v").astype(int))
    fitted = chain.fit(codes, Y)
    assert fitted.predict(codes).shape == (40, 2)
    with pytest.raises(TypeError, match=r"`X`: column 'f2' holds strings"):
        fitted.predict(X)
