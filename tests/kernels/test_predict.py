"""The prediction kernels against slow, obviously correct twins, on random trees
mixing every storage of stages (dense, sparse with arbitrary listed
situations, by parent configuration, deep variables numbered by a trie) and
stages without probabilities."""
import math

import numpy as np
import pytest

from pystagedtrees.inference._inference import _LogTables
from pystagedtrees.kernels._predict import (
    class_posteriors,
    path_log_probabilities,
    rows_of_columns,
)
from pystagedtrees.model._stagevec import ParentStageVector, StageVector
from pystagedtrees.model._trie import SituationTrie


def random_trie(rng, n_levels, first):
    """A trie numbering the situations of variables ``first`` onwards: random
    situations of ``first - 1`` and, variable after variable, random children
    of those, numbered in path order (those left out lead outside)."""
    n_anchor_situations = math.prod(int(k) for k in n_levels[:first - 1])
    anchor = np.flatnonzero(rng.random(n_anchor_situations) < 0.6)
    children, n_nodes = [], len(anchor)
    for k in n_levels[first - 1:-1]:
        chosen = rng.random(n_nodes * int(k)) < 0.7
        table = np.where(chosen, np.cumsum(chosen) - 1, chosen.sum()).reshape(n_nodes, int(k))
        n_nodes = int(chosen.sum())
        children.append(np.vstack([table, np.full((1, int(k)), n_nodes)]))
    return SituationTrie(first, anchor, children)


class RandomTree:
    """What the kernels' table builder reads of a model, drawn at random;
    ``full``: a full tree (a stage per situation, none deep), where some
    situations give every level one probability (their rows' levels tie)."""

    def __init__(self, seed, full=False):
        rng = np.random.default_rng(seed)
        p = int(rng.integers(1, 7))
        self.n_levels = rng.integers(2, 4, p).astype(np.int64)
        self.variables = [f"V{i}" for i in range(p)]
        self.vectors, self.log_tables = [], []
        first = int(rng.integers(2, p + 2)) if p >= 3 and not full else p + 1  # past p: none deep
        self.situation_trie = random_trie(rng, self.n_levels, first) if first < p else None
        for i in range(p):
            n_situations = math.prod(int(k) for k in self.n_levels[:i])
            storage = rng.integers(0, 3) if i > 0 else 0
            n_stages = int(rng.integers(1, n_situations + 2))
            if full:
                n_stages = n_situations
                vector = StageVector(n_situations, np.arange(n_situations))
            elif self.is_deep(i):  # listed: some trie numbers; the others (outside too) default
                n_nodes = self.situation_trie.n_nodes(i)
                listed = np.flatnonzero(rng.random(n_nodes) < 0.8)
                vector = StageVector(n_situations, rng.integers(0, n_stages, len(listed)),
                                     listed, int(rng.integers(0, n_stages)))
            elif storage == 0:
                vector = StageVector(n_situations, rng.integers(0, n_stages, n_situations))
            elif storage == 1:  # any listed situations, not only those under listed ones
                listed = np.flatnonzero(rng.random(n_situations) < 0.5)
                vector = StageVector(n_situations, rng.integers(0, n_stages, len(listed)),
                                     listed, int(rng.integers(0, n_stages)))
            else:
                parents = np.flatnonzero(rng.random(i) < 0.6)
                radices = self.n_levels[parents]
                strides = [math.prod(int(k) for k in self.n_levels[j + 1:i]) for j in parents]
                vector = ParentStageVector(n_situations, i - parents, strides, radices,
                                           rng.integers(0, n_stages, math.prod(map(int, radices))))
            prob = rng.random((n_stages, int(self.n_levels[i])))
            prob /= prob.sum(axis=1, keepdims=True)
            if full:
                prob[rng.random(n_stages) < 0.3] = 1 / self.n_levels[i]
            prob[rng.random(n_stages) < 0.15] = np.nan  # stages without probabilities
            self.vectors.append(vector)
            self.log_tables.append(np.log(prob))
        self.codes = np.column_stack([rng.integers(0, k, 300) for k in self.n_levels]).astype(np.int32)

    def stage_vector(self, i):
        return self.vectors[i]

    def is_deep(self, i):
        return self.situation_trie is not None and i >= self.situation_trie.first

    def stage_probabilities(self, i):
        return np.exp(self.log_tables[i])


def slow_path_logprob(tree, path):
    """Sum of the log-probabilities along the path, situation by situation;
    a deep variable's situation is its number in the trie, found by
    following the path's levels from the anchor."""
    situation, total = 0, 0.0
    trie = tree.situation_trie
    for i, code in enumerate(path):
        if tree.is_deep(i):
            if i == trie.first:
                anchor = trie.anchor.tolist()
                situation = anchor.index(situation) if situation in anchor else len(anchor)
            situation = int(trie.children[i - trie.first][situation, path[i - 1]])
        elif i > 0:
            situation = situation * int(tree.n_levels[i - 1]) + int(path[i - 1])
        stage = int(tree.vectors[i].lookup(np.array([situation]))[0])
        total += tree.log_tables[i][stage, code]
    return total


def slow_class_posterior(tree, row, target):
    """Log-posteriors of the target's levels and the first best one, or None
    for a row with a gap or an unknown value."""
    given = [i for i, code in enumerate(row) if code >= 0 or i == target]
    last = max(given)
    if any(code < -1 for code in row) or len(given) != last + 1:
        return None
    scores = []
    for a in range(int(tree.n_levels[target])):
        path = list(row[:last + 1])
        path[target] = a
        value = slow_path_logprob(tree, path)
        scores.append(-np.inf if np.isnan(value) else value)
    top = max(scores)
    if top == -np.inf:
        return [np.nan] * len(scores), -1
    norm = top + math.log(sum(math.exp(s - top) for s in scores))
    log_post = [s - norm for s in scores]
    return log_post, int(np.argmax(log_post))


@pytest.mark.parametrize("seed", range(40))
def test_path_log_probabilities_equal_the_slow_twin(seed):
    tree = RandomTree(seed)
    codes = np.tile(tree.codes, (4, 1))  # several blocks of rows
    out = np.empty(len(codes))
    path_log_probabilities(_LogTables(tree).tree, codes, out)
    expected = np.tile([slow_path_logprob(tree, row) for row in tree.codes], 4)
    np.testing.assert_allclose(out, expected, rtol=1e-13, atol=0)
    assert np.array_equal(np.isnan(out), np.isnan(expected))


def check_class_posteriors(tree, seed, full=False):
    """The kernel's posteriors of rows of ``tree`` with gaps, missing and
    unknown values, against the slow twin; ``full``: walked with the
    target's levels adjacent, and once for the best levels only."""
    rng = np.random.default_rng(seed + 1000)
    codes = tree.codes.copy()
    codes[rng.random(codes.shape) < 0.15] = -1  # gaps and values missing at the end
    codes[rng.random(codes.shape) < 0.02] = -2  # values that are not levels
    target = int(rng.integers(0, codes.shape[1]))
    expected = [slow_class_posterior(tree, row, target) for row in codes]
    # the rows four times over: several blocks of rows, walked in order or shuffled
    tiled = np.tile(codes, (4, 1))
    n, k = len(tiled), int(tree.n_levels[target])
    tables = _LogTables(tree)
    adjacent = tables.adjacent(target) if full else ()
    assert len(adjacent) == (len(tree.n_levels) if full else 0)
    # a frame's Categorical codes as they are (int8) or int32; with ``full``
    # the best levels alone too (no values written)
    for as_prob, order, dtype, written in ((False, np.zeros(0, dtype=np.int64), np.int32, n),
                                           (True, rng.permutation(n), np.int8, n),
                                           (False, rng.permutation(n), np.int8, 0 if full else n)):
        out, best, done = np.empty((written, k)), np.empty(n, dtype=np.int64), np.empty(n, dtype=np.uint8)
        class_posteriors(tables.tree, tiled.astype(dtype), order, target, as_prob, out, best,
                         done, adjacent)
        for r in range(n):
            assert done[r] == (expected[r % len(codes)] is not None)
            if done[r] == 0:
                continue
            log_post, first_best = expected[r % len(codes)]
            assert best[r] == first_best
            if written:
                wanted = np.exp(log_post) if as_prob else np.array(log_post)
                np.testing.assert_allclose(out[r], wanted, rtol=1e-12, atol=1e-300)


@pytest.mark.parametrize("seed", range(40))
def test_class_posteriors_equal_the_slow_twin(seed):
    check_class_posteriors(RandomTree(seed), seed)


@pytest.mark.parametrize("seed", range(40))
def test_class_posteriors_of_full_trees_equal_the_slow_twin(seed):
    """Full trees walked from the rows' codes, the target's levels adjacent;
    rows whose levels tie keep the first best level."""
    check_class_posteriors(RandomTree(seed, full=True), seed, full=True)


@pytest.mark.parametrize("dtype", [np.int32, np.int8])
@pytest.mark.parametrize("seed", range(10))
def test_rows_of_columns_equal_the_slow_twin(seed, dtype):
    rng = np.random.default_rng(seed)
    n, p = int(rng.integers(0, 700)), int(rng.integers(1, 8))
    columns = tuple(None if rng.random() < 0.3 else rng.integers(-2, 127, n).astype(dtype)
                    for _ in range(p))
    out = np.empty((n, p), dtype=dtype)
    rows_of_columns(columns, out)
    expected = np.column_stack([np.full(n, -1) if c is None else c for c in columns])
    np.testing.assert_array_equal(out, expected.reshape(n, p))


class FittedTree:
    """A fitted model, as the slow twins read a tree."""

    def __init__(self, model):
        self.model = model
        self.n_levels = model.n_levels
        self.situation_trie = model.situation_trie
        self.vectors = [model.stage_vector(i) for i in range(len(model.variables))]
        with np.errstate(divide="ignore"):
            self.log_tables = [np.log(model.stage_probabilities(i))
                               for i in range(len(model.variables))]

    def is_deep(self, i):
        return self.model.is_deep(i)


@pytest.mark.parametrize("p", [30, 70])
def test_class_posteriors_of_fitted_trees_equal_the_slow_twin(p):
    """Trees fitted to data, whose sparse variables the kernels number by
    their listed situations (past 63 binary variables, into the trie's)."""
    import pandas as pd

    import pystagedtrees as st
    from pystagedtrees.inference._inference import log_tables_of

    rng = np.random.default_rng(p)
    data = pd.DataFrame({f"V{j}": pd.Categorical.from_codes(rng.integers(0, 2, 300), ["0", "1"])
                         for j in range(p)})
    model = st.full(data, lambda_=1)
    tables = log_tables_of(model)
    assert len(tables.tree[11][p - 1]) and tables.tree[12] == p  # numbered, none anchored
    tree = FittedTree(model)
    known = np.column_stack([data[v].cat.codes for v in data.columns]).astype(np.int32)
    codes = np.vstack([known[:100], rng.integers(0, 2, (100, p))]).astype(np.int32)
    codes[rng.random(codes.shape) < 0.01] = -1
    n = len(codes)
    for target in (0, p // 2):
        out, best, done = np.empty((n, 2)), np.empty(n, dtype=np.int64), np.empty(n, dtype=np.uint8)
        class_posteriors(tables.tree, codes, rng.permutation(n), target, False, out, best, done)
        for r, row in enumerate(codes):
            expected = slow_class_posterior(tree, row, target)
            assert done[r] == (expected is not None)
            if expected is not None:
                np.testing.assert_allclose(out[r], expected[0], rtol=1e-12, atol=1e-300)
                assert best[r] == expected[1]
    complete = codes[(codes >= 0).all(axis=1)]
    out = np.empty(len(complete))
    path_log_probabilities(tables.tree, complete, out)
    np.testing.assert_allclose(out, [slow_path_logprob(tree, row) for row in complete], rtol=1e-13)
