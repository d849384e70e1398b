"""Trees deeper than int64 mixed-radix situation indices (64 and more binary
variables): their deep situations are numbered by the trie of the observed
paths.  Checked against a twin that keys every situation by its path (a
tuple) in a dict, counted and multiplied out in pure Python."""
import math
from collections import Counter, defaultdict

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

import pystagedtrees as st
from pystagedtrees.model._trie import MAX_SITUATIONS, first_deep_variable

UNOBSERVED = "UNOBSERVED"


def binary_frame(codes):
    return pd.DataFrame({f"V{j}": pd.Categorical.from_codes(codes[:, j], ["0", "1"])
                         for j in range(codes.shape[1])})


def correlated_codes(n_rows, n_vars, seed):
    """Binary columns, each a noisy copy of the one before: paths repeat, so
    situations are shared by rows and stages have counts of several rows."""
    rng = np.random.default_rng(seed)
    codes = np.empty((n_rows, n_vars), dtype=np.int64)
    codes[:, 0] = rng.integers(0, 2, n_rows)
    for j in range(1, n_vars):
        flip = rng.random(n_rows) < 0.1
        codes[:, j] = np.where(flip, 1 - codes[:, j - 1], codes[:, j - 1])
    return codes


class PathTwin:
    """A full (``by_path``) or independence staged tree keyed by paths.

    A situation is the tuple of the levels before its variable.  The full
    tree gives each path seen in ``train`` its own stage and gathers the
    others in ``UNOBSERVED``; the independence tree has one stage "1" for
    the seen paths.  Counts come from ``fit_rows`` (default ``train``).
    """

    def __init__(self, train, by_path, lambda_, fit_rows=None):
        self.p = train.shape[1]
        self.by_path, self.lambda_ = by_path, lambda_
        self.seen = [{tuple(row[:i]) for row in train.tolist()} for i in range(self.p)]
        self.counts = [defaultdict(Counter) for _ in range(self.p)]
        for row in (train if fit_rows is None else fit_rows).tolist():
            for i in range(self.p):
                self.counts[i][self.stage(i, tuple(row[:i]))][row[i]] += 1

    def stage(self, i, prefix):
        if prefix not in self.seen[i]:
            return UNOBSERVED
        return prefix if self.by_path else "1"

    def prob(self, i, prefix, level):
        counts = self.counts[i][self.stage(i, prefix)]
        return (counts[level] + self.lambda_) / (sum(counts.values()) + 2 * self.lambda_)

    def log_prob(self, row):
        return sum(math.log(self.prob(i, tuple(row[:i]), row[i])) for i in range(self.p))

    def loglik(self, rows):
        return sum(self.log_prob(row) for row in rows.tolist())

    def posterior_of_root(self, row):
        scores = [math.exp(self.log_prob([a] + list(row[1:]))) for a in (0, 1)]
        return [s / sum(scores) for s in scores]


@pytest.fixture(scope="module")
def deep_data():
    codes = correlated_codes(2000, 100, seed=3)
    return codes, binary_frame(codes)


def test_the_deep_variables_start_past_int64_indices():
    assert first_deep_variable([2] * 62) is None
    assert first_deep_variable([2] * 64) == 63
    assert 2 ** 62 == MAX_SITUATIONS


def test_full_of_100_variables_matches_the_path_twin(deep_data):
    codes, frame = deep_data
    model = st.full(frame, lambda_=1)
    twin = PathTwin(codes, by_path=True, lambda_=1)
    assert float(model.ll) == pytest.approx(twin.loglik(codes), rel=1e-10)
    last = model.variables[-1]
    observed_stages = len(model.stage_labels(99)) - 1  # and UNOBSERVED
    assert observed_stages == len(twin.seen[99]) > 1
    assert model.n_situations(99) == 2 ** 99
    logp = st.prob(model, frame.iloc[:50], log=True)
    np.testing.assert_allclose(logp, [twin.log_prob(r) for r in codes[:50].tolist()], rtol=1e-10)
    assert last == "V99"


def test_indep_of_100_variables_matches_the_path_twin(deep_data):
    codes, frame = deep_data
    model = st.indep(frame, lambda_=1)
    twin = PathTwin(codes, by_path=False, lambda_=1)
    np.testing.assert_allclose(st.prob(model, frame.iloc[:50], log=True),
                               [twin.log_prob(r) for r in codes[:50].tolist()], rtol=1e-10)


def test_sevt_fit_of_other_rows_counts_the_paths_outside_the_trie_as_unobserved(deep_data):
    codes, frame = deep_data
    model = st.full(frame.iloc[:1000], lambda_=1)
    refit = st.sevt_fit(model, frame.iloc[1000:], lambda_=1)
    twin = PathTwin(codes[:1000], by_path=True, lambda_=1, fit_rows=codes[1000:])
    assert float(refit.ll) == pytest.approx(twin.loglik(codes[1000:]), rel=1e-10)
    np.testing.assert_allclose(st.prob(refit, frame.iloc[:40], log=True),
                               [twin.log_prob(r) for r in codes[:40].tolist()], rtol=1e-10)


def test_sevt_fit_of_the_same_rows_in_any_order_gives_the_model_back(deep_data):
    # the trie numbers paths in path order: the model's own rows, in any
    # order, number them as the model does (no translation); a part of them
    # does not, and is translated (the test above)
    _, frame = deep_data
    model = st.full(frame, lambda_=1)
    assert st.full(frame.iloc[::-1], lambda_=1).situation_trie.same_paths(model.situation_trie)
    assert not st.full(frame.iloc[:1500], lambda_=1).situation_trie.same_paths(
        model.situation_trie)
    for rows in (frame, frame.iloc[::-1]):
        refit = st.sevt_fit(model, rows, lambda_=1)
        assert float(refit.ll) == float(model.ll)
        for i in (0, 63, 99):
            np.testing.assert_array_equal(refit.situation_counts(i), model.situation_counts(i))


def test_predict_of_100_variables_matches_the_path_twin(deep_data):
    codes, frame = deep_data
    model = st.full(frame.iloc[:1500], lambda_=1)
    twin = PathTwin(codes[:1500], by_path=True, lambda_=1)
    rows = frame.iloc[1400:1600].drop(columns="V0")  # seen and unseen paths
    posterior = st.predict(model, rows, prob=True).to_numpy()
    np.testing.assert_allclose(posterior.sum(axis=1), 1.0)
    expected = [twin.posterior_of_root(r) for r in codes[1400:1600].tolist()]
    np.testing.assert_allclose(posterior, expected, rtol=1e-9, atol=1e-300)
    labels = st.predict(model, rows)
    assert list(labels.codes) == list(np.argmax(expected, axis=1))


@pytest.mark.parametrize("n_vars", [64, 70])
def test_just_past_int64_indices(n_vars):
    codes = correlated_codes(600, n_vars, seed=n_vars)
    frame = binary_frame(codes)
    model = st.full(frame.iloc[:400], lambda_=0.5)
    twin = PathTwin(codes[:400], by_path=True, lambda_=0.5)
    assert float(model.ll) == pytest.approx(twin.loglik(codes[:400]), rel=1e-10)
    np.testing.assert_allclose(st.prob(model, frame.iloc[350:450], log=True),
                               [twin.log_prob(r) for r in codes[350:450].tolist()], rtol=1e-10)
    assert model.ll.df > 0


@settings(max_examples=15, deadline=None)
@given(seed=hs.integers(0, 2 ** 32 - 1), n_vars=hs.integers(63, 68),
       n_rows=hs.integers(1, 60))
def test_random_deep_trees_match_the_path_twin(seed, n_vars, n_rows):
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, 2, (n_rows, n_vars))
    other = rng.integers(0, 2, (5, n_vars))
    other[:2] = codes[:2] if n_rows >= 2 else other[:2]
    model = st.full(binary_frame(codes), lambda_=1)
    twin = PathTwin(codes, by_path=True, lambda_=1)
    assert float(model.ll) == pytest.approx(twin.loglik(codes), rel=1e-10)
    np.testing.assert_allclose(st.prob(model, binary_frame(other), log=True),
                               [twin.log_prob(r) for r in other.tolist()], rtol=1e-10)


def test_stages_bhc_on_100_variables_keeps_the_loglik_of_its_stages(deep_data):
    codes, frame = deep_data
    model = st.full(frame.iloc[:500], lambda_=1)
    learned = st.stages_bhc(model)
    assert sum(len(learned.stage_labels(i)) for i in range(100)) < sum(
        len(model.stage_labels(i)) for i in range(100))
    recomputed = st.prob(learned, frame.iloc[:500], log=True).sum()
    assert float(st.sevt_fit(learned, lambda_=1).ll) == pytest.approx(recomputed, rel=1e-10)
    posterior = st.predict(learned, frame.iloc[:100].drop(columns="V0"), prob=True)
    np.testing.assert_allclose(posterior.sum(axis=1), 1.0)


def test_get_stage_follows_the_trie(deep_data):
    codes, frame = deep_data
    model = st.full(frame.iloc[:300], lambda_=1)
    seen = dict(zip(frame.columns[:99], frame.iloc[7, :99]))
    unseen = {v: "0" if i % 2 else "1" for i, v in enumerate(frame.columns[:99])}
    assert st.get_stage(model, seen) != UNOBSERVED
    assert st.get_stage(model, unseen) == UNOBSERVED


def test_sevt_add_refuses_to_make_a_tree_deep(deep_data):
    _, frame = deep_data
    model = st.full(frame.iloc[:100, :63], lambda_=1)
    with pytest.raises(ValueError, match="sevt_add"):
        st.sevt_add(model, "V63", frame.iloc[:100, :64])


def test_subtree_refuses_deep_trees(deep_data):
    _, frame = deep_data
    model = st.full(frame.iloc[:100, :66], lambda_=1)
    with pytest.raises(ValueError, match="subtree cuts trees whose situations have int64"):
        st.subtree(model, {"V0": "1"})


def test_sample_from_a_deep_tree_follows_its_observed_paths(deep_data):
    codes, frame = deep_data
    model = st.full(frame.iloc[:200, :70], lambda_=0)  # unseen levels have probability 0
    drawn = st.sample_from(model, 300, seed=1)
    seen = {tuple(row) for row in codes[:200, :70].tolist()}
    drawn_codes = np.column_stack([drawn[v].cat.codes.to_numpy() for v in drawn.columns])
    assert (drawn_codes >= 0).all()
    assert all(tuple(row) in seen for row in drawn_codes.tolist())


def test_a_pickled_deep_tree_predicts_the_same(deep_data):
    import pickle

    _, frame = deep_data
    model = st.full(frame.iloc[:300, :66], lambda_=1)
    again = pickle.loads(pickle.dumps(model))
    rows = frame.iloc[250:350, :66].drop(columns="V0")
    np.testing.assert_array_equal(st.predict(model, rows, prob=True).to_numpy(),
                                  st.predict(again, rows, prob=True).to_numpy())
