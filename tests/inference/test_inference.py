"""prob / predict: probabilities sum to one, marginalisation, R's conventions."""
import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hst
from strategies import categorical_frames

import pystagedtrees as st

SETTINGS = settings(max_examples=30, deadline=None)


@SETTINGS
@given(categorical_frames(max_vars=3), hst.sampled_from([1, 2]), hst.booleans())
def test_prob_of_all_completions_sums_to_one(data, lambda_, use_full):
    model = (st.full if use_full else st.indep)(data, lambda_=lambda_)
    grid = pd.DataFrame(list(itertools.product(*model.tree.values())), columns=model.variables)
    np.testing.assert_allclose(st.prob(model, grid).sum(), 1.0, rtol=1e-10)
    # conditional on the first variable's first level, the rest sums to 1 too
    first, level = model.variables[0], model.tree[model.variables[0]][0]
    rest = grid[grid[first] == level].drop(columns=first)
    total = st.prob(model, rest, conditional_on={first: level}).sum()
    np.testing.assert_allclose(total, 1.0, rtol=1e-10)


@SETTINGS
@given(categorical_frames(max_vars=3), hst.data())
def test_marginal_equals_sum_of_joint(data, draw):
    model = st.full(data, lambda_=1)
    grid = pd.DataFrame(list(itertools.product(*model.tree.values())), columns=model.variables)
    var = draw.draw(hst.sampled_from(model.variables))
    level = draw.draw(hst.sampled_from(model.tree[var]))
    expected = st.prob(model, grid[grid[var] == level]).sum()
    np.testing.assert_allclose(st.prob(model, {var: level}), expected, rtol=1e-10)


@SETTINGS
@given(categorical_frames(max_vars=3), hst.sampled_from([0, 1]), hst.booleans(), hst.data())
def test_a_missing_value_sums_its_completions_even_through_empty_stages(data, lambda_, na0, draw):
    # with lambda 0 a situation no row reached has no probabilities: a path
    # through it counts 0, in a sum over completions as on its own (R's
    # logSumExp(na.rm = TRUE)), so both sides agree whatever na0 says
    model = st.full(data, lambda_=lambda_)
    grid = pd.DataFrame(list(itertools.product(*model.tree.values())), columns=model.variables)
    last = model.variables[-1]
    level = draw.draw(hst.sampled_from(model.tree[last]))
    expected = st.prob(model, grid[grid[last] == level], na0=na0).sum()
    np.testing.assert_allclose(st.prob(model, {last: level}, na0=na0), expected, rtol=1e-10)


@SETTINGS
@given(categorical_frames(max_vars=4))
def test_predict_rows_sum_to_one(data):
    model = st.full(data, lambda_=1)
    probs = st.predict(model, data.drop(columns=model.variables[0]), prob=True)
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, rtol=1e-12)
    labels = st.predict(model, data.drop(columns=model.variables[0]))
    assert list(labels.categories) == model.tree[model.variables[0]]
    np.testing.assert_array_equal(labels.codes, probs.to_numpy().argmax(axis=1))


@SETTINGS
@given(categorical_frames(max_vars=4), hst.sampled_from([0, 1]), hst.data())
def test_trailing_missing_values_do_not_change_the_probability(data, lambda_, draw):
    # variables after every given one sum to 1 whatever their (possibly
    # unknown, lambda 0) distribution: leaving them out is the same event
    model = st.stages_bhc(st.full(data, lambda_=lambda_))
    m = draw.draw(hst.integers(1, len(model.variables) - 1))
    given_cols = model.variables[:m]
    event = data[given_cols].dropna()
    if event.empty:
        return
    padded = event.assign(**{v: np.nan for v in model.variables[m:]})
    np.testing.assert_allclose(st.prob(model, padded), st.prob(model, event), rtol=1e-12)


@SETTINGS
@given(categorical_frames(max_vars=4))
def test_unsmoothed_predictions_are_probabilities(data):
    # lambda 0 leaves never-reached situations undefined: paths through them
    # have probability 0, so rows still sum to 1 (or are NaN when every
    # class is impossible)
    model = st.full(data, lambda_=0)
    probs = st.predict(model, data.drop(columns=model.variables[0]), prob=True).to_numpy()
    defined = ~np.isnan(probs).any(axis=1)
    np.testing.assert_allclose(probs[defined].sum(axis=1), 1.0, rtol=1e-12)
    assert np.isnan(probs[~defined]).all()


def test_predict_equals_bayes_rule_from_joint():
    model = st.full(st.datasets.titanic_table(), order=["Survived", "Class", "Sex", "Age"], lambda_=1)
    row = {"Class": "3rd", "Sex": "Male", "Age": "Child"}
    joint = np.array([st.prob(model, {**row, "Survived": s}) for s in ["No", "Yes"]])
    probs = st.predict(model, pd.DataFrame([row]), prob=True).to_numpy()[0]
    np.testing.assert_allclose(probs, joint / joint.sum(), rtol=1e-12)
    logp = st.predict(model, pd.DataFrame([row]), prob=True, log=True).to_numpy()[0]
    np.testing.assert_allclose(np.exp(logp), probs, rtol=1e-12)


def test_predict_with_missing_values_sums_them_out():
    model = st.full(st.datasets.titanic_table(), order=["Survived", "Class", "Sex", "Age"], lambda_=1)
    partial = pd.DataFrame({"Class": ["1st"], "Sex": [None], "Age": ["Adult"]})
    joint = np.array([st.prob(model, {"Class": "1st", "Age": "Adult", "Survived": s}) for s in ["No", "Yes"]])
    probs = st.predict(model, partial, prob=True).to_numpy()[0]
    np.testing.assert_allclose(probs, joint / joint.sum(), rtol=1e-12)


def test_prob_matches_r_readme():
    # R README: stndnaming(stages_bhc(full(Titanic))) gives 0.3107124; here the
    # full model, where the value is the empirical frequency 654 / 2092
    model = st.full(st.datasets.titanic_table())
    np.testing.assert_allclose(st.prob(model, {"Survived": "Yes"}, {"Age": "Adult"}), 654 / 2092)


def test_path_probability_is_product_of_stage_probabilities():
    model = st.full(st.datasets.titanic_table(), lambda_=1)
    sp = model.stage_prob
    path = ["Crew", "Female", "Adult", "Yes"]
    expected = (
        sp["Class"]["1"]["Crew"]
        * sp["Sex"][st.get_stage(model, path[:1])]["Female"]
        * sp["Age"][st.get_stage(model, path[:2])]["Adult"]
        * sp["Survived"][st.get_stage(model, path[:3])]["Yes"]
    )
    np.testing.assert_allclose(st.path_probability(model, path), expected, rtol=1e-12)


def test_prob_errors():
    model = st.full(st.datasets.titanic_table(), lambda_=1)
    with pytest.raises(ValueError, match="different variables"):
        st.prob(model, {"Age": "Adult"}, conditional_on={"Age": "Child"})
    with pytest.raises(ValueError, match="not in the model"):
        st.prob(model, {"Colour": "red"})
    with pytest.raises(ValueError, match="fit it first"):
        st.predict(st.sevt(st.datasets.titanic_table()))
    with pytest.raises(TypeError, match="dict"):
        st.prob(model, "Age")


def _tied_model():
    # C is independent of A; P(C = p | A) = 1/2 for A = "y", so C ties there
    data = pd.DataFrame({
        "A": pd.Categorical(["x"] * 30 + ["y"] * 20, ["x", "y"]),
        "C": pd.Categorical(["q"] * 20 + ["p"] * 10 + ["p"] * 10 + ["q"] * 10, ["p", "q"]),
    })
    return st.full(data, lambda_=0)


def test_predict_breaks_ties_at_random_only_when_asked():
    model = _tied_model()
    rows = pd.DataFrame({"A": ["y"] * 400 + ["x"] * 100})
    first = st.predict(model, rows, class_="C")
    assert list(first[:400]) == ["p"] * 400 and list(first[400:]) == ["q"] * 100
    drawn = st.predict(model, rows, class_="C", rng=np.random.default_rng(0))
    assert list(drawn[400:]) == ["q"] * 100  # no tie, no draw
    share = (np.asarray(drawn[:400]) == "p").mean()
    assert 0.4 < share < 0.6
    again = st.predict(model, rows, class_="C", rng="numpy", seed=5)
    assert list(again) == list(st.predict(model, rows, class_="C", rng="numpy", seed=5))
    with pytest.raises(ValueError, match="rng"):
        st.predict(model, rows, class_="C", rng="mt")


def test_predict_replays_r_tie_draws():
    # R: set.seed(7); predict(m, newdata = nd, class = "C") for the same model and rows
    rows = pd.DataFrame({"A": ["y", "y", "x", "y", "y", "y", "x", "y", "y", "y"]})
    got = st.predict(_tied_model(), rows, class_="C", rng="R", seed=7)
    assert list(got) == ["q", "p", "q", "p", "q", "p", "q", "q", "p", "q"]


@pytest.mark.parametrize("n_vars", [4, 41])  # one integer key per row, or rows compared whole
def test_rows_with_gaps_are_computed_once_per_distinct_row(n_vars):
    rng = np.random.default_rng(n_vars)
    data = pd.DataFrame({f"V{j}": rng.choice(["a", "b"], 300) for j in range(n_vars)})
    model = st.full(data, lambda_=1)
    rows = data.head(6).astype(object)
    rows.iloc[[0, 3], 1] = None  # gaps before the last observed value
    rows.iloc[[1, 4], 2] = None
    repeated = pd.concat([rows] * 3, ignore_index=True).sample(frac=1, random_state=0)
    one_by_one = [st.prob(model, repeated.iloc[[r]]) for r in range(len(repeated))]
    np.testing.assert_allclose(st.prob(model, repeated), np.ravel(one_by_one), rtol=1e-12)


def _gappy_rows(model, rng, n):
    """``n`` rows over the model's levels, about a third of the cells missing."""
    return pd.DataFrame({
        var: pd.Categorical.from_codes(
            np.where(rng.random(n) < 0.35, -1, rng.integers(0, len(levels), n)), levels)
        for var, levels in model.tree.items()
    })


def _summed_by_hand(model, row):
    """A row's probability: the sum of path_probability over every completion of
    its gaps up to its last observed variable (undefined paths count 0)."""
    observed = [var for var in model.variables if pd.notna(row[var])]
    if not observed:
        return 1.0
    upto = model.variables[: model.variables.index(observed[-1]) + 1]
    choices = [[row[v]] if pd.notna(row[v]) else model.tree[v] for v in upto]
    table = model.stage_prob
    total = 0.0
    for path in itertools.product(*choices):
        p = table[upto[0]]["1"][path[0]]
        for i in range(1, len(path)):
            p *= table[upto[i]][st.get_stage(model, list(path[:i]))][path[i]]
        total += 0.0 if np.isnan(p) else p
    return total


@SETTINGS
@given(categorical_frames(max_vars=4), hst.sampled_from([0, 1]), hst.integers(0, 2**31 - 1))
def test_gaps_summed_out_by_the_kernel_equal_the_sum_by_hand(data, lambda_, seed):
    model = st.full(data, lambda_=lambda_)
    rows = _gappy_rows(model, np.random.default_rng(seed), 12)
    expected = [_summed_by_hand(model, row) for _, row in rows.iterrows()]
    np.testing.assert_allclose(st.prob(model, rows, na0=True), expected, rtol=1e-12, atol=1e-300)


@pytest.mark.parametrize("buffer", [1, 2, 5])
def test_rows_with_more_completions_than_the_buffer_sum_the_same(monkeypatch, buffer):
    from pystagedtrees.inference import _inference as inference
    model = st.full(st.datasets.titanic(), lambda_=1)
    rows = _gappy_rows(model, np.random.default_rng(3), 200)
    expected = st.prob(model, rows)
    monkeypatch.setattr(inference, "_COMPLETION_BUFFER", buffer)
    np.testing.assert_array_equal(st.prob(model, rows), expected)


@pytest.mark.parametrize("lambda_", [0, 1])
def test_sparse_storage_sums_gaps_out_as_the_kernel(monkeypatch, lambda_):
    from pystagedtrees.model import _stagevec
    data = st.datasets.titanic()
    dense = st.full(data, lambda_=lambda_)
    rows = _gappy_rows(dense, np.random.default_rng(4), 300)
    monkeypatch.setattr(_stagevec, "DENSE_MAX", 1)
    sparse = st.full(data, lambda_=lambda_)
    assert not sparse.stage_vector(3).is_dense
    np.testing.assert_allclose(st.prob(sparse, rows), st.prob(dense, rows), rtol=1e-13)
    # built a few paths at a time (two passes over each row's completions), the sums
    # are the same to the last bit
    from pystagedtrees.inference import _inference as inference
    expected = st.prob(sparse, rows)
    for paths in (1, 3, 7):
        monkeypatch.setattr(inference, "_SPARSE_PATHS", paths)
        np.testing.assert_array_equal(st.prob(sparse, rows), expected)


@pytest.mark.parametrize("lambda_", [0, 1])
@pytest.mark.parametrize("class_", ["Class", "Sex", "Age", "Survived"])
def test_full_trees_predict_as_the_general_walk_to_the_last_bit(monkeypatch, class_, lambda_):
    """A full tree's rows are walked from their codes, the class levels adjacent
    (empty stages too, with ``lambda_=0``): the same probabilities, log-probabilities
    and labels as the general walk, to the last bit, rows with gaps included."""
    from pystagedtrees.inference import _inference as inference
    model = st.full(st.datasets.titanic(), lambda_=lambda_)
    assert inference.log_tables_of(model).full
    rows = _gappy_rows(model, np.random.default_rng(5), 1500)  # several blocks of rows
    rows[class_] = rows[class_].cat.codes  # not read: anything

    def predictions():
        return [st.predict(model, rows, class_=class_, prob=True).to_numpy(),
                st.predict(model, rows, class_=class_, prob=True, log=True).to_numpy(),
                np.asarray(st.predict(model, rows, class_=class_).codes)]

    full = predictions()
    monkeypatch.setattr(inference._LogTables, "adjacent", lambda self, c: ())
    for fast, general in zip(full, predictions()):
        np.testing.assert_array_equal(fast, general)


def test_values_that_are_not_levels_are_impossible_events_with_a_warning():
    model = st.full(st.datasets.titanic(), lambda_=1)
    rows = st.datasets.titanic().drop(columns="Survived").astype(object).iloc[:6].copy()
    rows.iloc[1, 0] = "4th"  # Class, before the last variable
    rows.iloc[4, 2] = "Baby"  # Age, the last one
    with pytest.warns(UserWarning, match="that is not a level.*no prediction"):
        got = st.predict(model, rows, class_="Survived", prob=True)
    assert got.iloc[[1, 4]].isna().all(axis=None)
    known = rows.drop(index=rows.index[[1, 4]])
    pd.testing.assert_frame_equal(got.drop(index=got.index[[1, 4]]),
                                  st.predict(model, known, class_="Survived", prob=True))
    with pytest.warns(UserWarning, match="probability 0"):
        probs = st.prob(model, rows)
    assert probs[1] == 0 and probs[4] == 0
    np.testing.assert_allclose(np.delete(probs, [1, 4]), st.prob(model, known))
    with pytest.warns(UserWarning, match="`conditional_on`"):
        assert st.prob(model, {"Sex": "Male"}, conditional_on={"Class": "4th"}) == 0
    with pytest.raises(ValueError, match="not a level"):  # a path must be made of levels
        st.path_probability(model, ["4th", "Male", "Adult", "No"])


def test_the_class_columns_own_values_are_not_read():
    # R sets newdata[[class]] to NA: a value there that is no level changes nothing
    model = st.full(st.datasets.titanic(), lambda_=1)
    rows = st.datasets.titanic().astype(object).iloc[:4].copy()
    expected = st.predict(model, rows.drop(columns="Survived"), class_="Survived", prob=True)
    rows["Survived"] = ["Maybe", 3, None, "Yes"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = st.predict(model, rows, class_="Survived", prob=True)
    pd.testing.assert_frame_equal(got, expected)


def test_a_single_row_is_recycled_against_the_other_side():
    model = st.full(st.datasets.titanic(), lambda_=1)
    conditions = pd.DataFrame({"Class": ["1st", "3rd"]})
    got = st.prob(model, {"Survived": "Yes"}, conditional_on=conditions)
    expected = [st.prob(model, {"Survived": "Yes"}, conditional_on={"Class": c})
                for c in ["1st", "3rd"]]
    np.testing.assert_allclose(got, expected, rtol=1e-14)
    with pytest.raises(ValueError, match="as many rows, or one of them one row; got 2 and 3"):
        st.prob(model, pd.DataFrame({"Sex": ["Male", "Female"]}),
                conditional_on=pd.DataFrame({"Class": ["1st", "2nd", "3rd"]}))


def test_rows_with_too_many_completions_are_refused_before_summing(monkeypatch):
    import pystagedtrees.inference._inference as inference

    monkeypatch.setattr(inference, "MAX_COMPLETIONS", 1 << 4)
    rng = np.random.default_rng(3)
    data = pd.DataFrame(rng.integers(0, 2, (60, 7)).astype(str),
                        columns=[f"X{i}" for i in range(7)])
    model = st.indep(data, lambda_=1)
    # four binary gaps: 16 paths, summed; the answer of an independence model
    assert st.prob(model, {"X4": "1"}) == pytest.approx(model.stage_prob["X4"]["1"]["1"])
    message = r"a row misses 5 values \('X0', 'X1', 'X2', 'X3', 'X4'\) .* takes 32 paths, more than the 16"
    with pytest.raises(ValueError, match=message):
        st.prob(model, {"X5": "1"})
    rows = data.iloc[:3].copy()
    rows.iloc[1, :5] = None
    with pytest.raises(ValueError, match=message):
        st.predict(model, rows, class_="X6", prob=True)
    with pytest.raises(ValueError, match="a row misses"):  # imputing X0 sums out X1..X5
        st.sevt_fit_em(st.indep(pd.concat([data, rows.assign(X5=None)]), lambda_=1),
                       max_iter=1)
    # the values missing after the last observed one cost nothing
    assert st.prob(model, {"X0": "1", "X1": "0"}) == pytest.approx(
        model.stage_prob["X0"]["1"]["1"] * model.stage_prob["X1"]["1"]["0"])


def test_many_rows_of_a_sparse_tree_give_the_same_result_whole_or_in_chunks():
    from pystagedtrees.inference._inference import path_logprob

    rng = np.random.default_rng(7)
    n, p = 6000, 14  # 3^13 situations for the last variable: stored sparsely
    codes = np.empty((n, p), dtype=np.int32)
    codes[:, 0] = rng.integers(0, 3, n)
    for j in range(1, p):
        codes[:, j] = np.where(rng.random(n) < 0.7, codes[:, j - 1], rng.integers(0, 3, n))
    data = pd.DataFrame({f"v{j}": pd.Categorical.from_codes(codes[:, j], ["a", "b", "c"])
                         for j in range(p)})
    model = st.full(data, lambda_=1)
    by_chunks = np.concatenate([path_logprob(model, codes[a:a + 1000]) for a in range(0, n, 1000)])
    np.testing.assert_array_equal(path_logprob(model, codes), by_chunks)


def test_many_rows_of_a_sparse_tree_are_predicted_as_few_rows_are():
    # past 4096 rows a tree with sparse variables is walked in path order
    rng = np.random.default_rng(8)
    n, p = 6000, 14  # 3^13 situations for the last variable: stored sparsely
    codes = np.empty((n, p), dtype=np.int64)
    codes[:, 0] = rng.integers(0, 3, n)
    for j in range(1, p):
        codes[:, j] = np.where(rng.random(n) < 0.7, codes[:, j - 1], rng.integers(0, 3, n))
    data = pd.DataFrame({f"v{j}": pd.Categorical.from_codes(codes[:, j], ["a", "b", "c"])
                         for j in range(p)})
    model = st.full(data, lambda_=1)
    rows = data.drop(columns="v3")
    rows.iloc[::7, 5] = None  # gaps, summed out
    rows.iloc[::11, -3:] = None  # values missing at the end
    whole = st.predict(model, rows, class_="v3", prob=True)
    parts = pd.concat([st.predict(model, rows.iloc[a:a + 1000], class_="v3", prob=True)
                       for a in range(0, n, 1000)])
    pd.testing.assert_frame_equal(whole, parts)
    labels = st.predict(model, rows, class_="v3")
    assert list(labels) == [list(parts.columns)[i] for i in parts.to_numpy().argmax(axis=1)]


def _every_completion_logprob(model, row, upto):
    """The slow twin of ``_distinguished_logprob``: one path per completion of
    the row's gaps, their probabilities added."""
    from pystagedtrees.inference._inference import path_logprob
    gaps = [j for j in range(upto) if row[j] < 0]
    levels = [range(int(model.n_levels[j])) for j in gaps]
    paths = []
    for completion in itertools.product(*levels):
        path = np.array(row[:upto], dtype=np.int32)
        path[gaps] = completion
        paths.append(path)
    with np.errstate(divide="ignore"):
        log_prob = np.nan_to_num(path_logprob(model, np.array(paths)), nan=-np.inf)
        return float(np.log(np.exp(log_prob).sum()))


@SETTINGS
@given(categorical_frames(min_vars=3, max_vars=6, max_rows=40, with_na=False),
       hst.integers(0, 2**31 - 1), hst.sampled_from([0, 1]), hst.booleans(), hst.booleans())
def test_distinguished_completions_sum_as_every_completion(data, seed, lambda_, sparse, learn):
    import pystagedtrees.model._stagevec as stagevec
    from pystagedtrees.inference._inference import _distinguished_logprob, _LogTables
    original = stagevec.DENSE_MAX
    stagevec.DENSE_MAX = 1 if sparse else original  # listed situations and a default stage
    try:
        model = st.full(data, lambda_=lambda_)
        if learn and lambda_:
            model = st.stages_bhc(model)
    finally:
        stagevec.DENSE_MAX = original
    rng = np.random.default_rng(seed)
    p = len(model.variables)
    row = rng.integers(0, model.n_levels).astype(np.int32)
    row[rng.random(p) < 0.6] = -1
    row[-1] = rng.integers(0, model.n_levels[-1])
    fast = _distinguished_logprob(model, row, p, _LogTables(model))
    slow = _every_completion_logprob(model, row, p)
    if np.isinf(slow):
        assert fast == slow
    else:
        assert fast == pytest.approx(slow, rel=1e-12, abs=1e-12)


def test_rows_with_many_gaps_cost_the_situations_a_sparse_tree_distinguishes(monkeypatch):
    import pystagedtrees.inference._inference as inference
    import pystagedtrees.model._stagevec as stagevec
    rng = np.random.default_rng(5)
    data = pd.DataFrame(rng.choice(["a", "b"], size=(200, 18)),
                        columns=[f"V{j}" for j in range(18)])
    monkeypatch.setattr(stagevec, "DENSE_MAX", 1)  # listed situations, one default stage
    model = st.full(data, lambda_=1)
    monkeypatch.setattr(stagevec, "DENSE_MAX", 1 << 20)
    monkeypatch.setattr(inference, "_COMPLETION_BUFFER", 1 << 8)  # "many": past 256
    row = {"V16": "a", "V17": "b"}  # 16 binary gaps: 65,536 completions
    calls = []
    summed = inference._completion_logprob
    monkeypatch.setattr(inference, "_completion_logprob",
                        lambda *args: calls.append(1) or summed(*args))
    distinguished = st.prob(model, row)
    assert calls == []  # no completion was listed
    # the same sum over every completion, as before
    monkeypatch.setattr(inference, "_COMPLETION_BUFFER", 1 << 20)
    assert st.prob(model, row) == pytest.approx(distinguished, rel=1e-12)
    assert calls
    # and past the limit of completions summed, since the tree tells few apart
    monkeypatch.setattr(inference, "_COMPLETION_BUFFER", 1 << 8)
    monkeypatch.setattr(inference, "MAX_COMPLETIONS", 1 << 14)
    assert st.prob(model, row) == distinguished
    posterior = st.predict(model, pd.DataFrame([row]), class_="V17", prob=True).to_numpy()
    assert posterior.sum() == pytest.approx(1.0)


@pytest.mark.parametrize("value", [["yes", "no"], ("Male",), np.array(["Male"]), {"Male"}])
def test_an_event_of_several_values_is_refused_naming_the_argument(value):
    model = st.full(st.datasets.titanic_table(), lambda_=1)
    with pytest.raises(TypeError, match=r"`x` must map each variable to one level .* for 'Sex'"):
        st.prob(model, {"Sex": value})
    with pytest.raises(TypeError, match=r"`conditional_on` must map each variable to one level"):
        st.prob(model, {"Age": "Adult"}, conditional_on={"Sex": value})


def test_rows_past_the_limit_of_completions_are_summed_by_what_the_tree_distinguishes(
        monkeypatch):
    import pystagedtrees.inference._inference as inference
    import pystagedtrees.model._stagevec as stagevec
    rng = np.random.default_rng(8)
    data = pd.DataFrame(rng.choice(["a", "b"], size=(6, 10)),
                        columns=[f"V{j}" for j in range(10)])
    monkeypatch.setattr(stagevec, "DENSE_MAX", 1)
    model = st.full(data, lambda_=1)
    monkeypatch.setattr(stagevec, "DENSE_MAX", 1 << 20)
    row = np.array([0, 1, -1, -1, -1, -1, -1, -1, 0, 1], dtype=np.int32)  # 64 completions
    tables = inference._LogTables(model)
    distinguished = inference._distinguished_paths(model, tables, np.arange(2, 8), 10)
    assert 64 // 4 <= distinguished < 64  # not few enough to be chosen below the limit
    monkeypatch.setattr(inference, "_COMPLETION_BUFFER", 1)
    monkeypatch.setattr(inference, "MAX_COMPLETIONS", distinguished)
    calls = []
    summed = inference._completion_logprob
    monkeypatch.setattr(inference, "_completion_logprob",
                        lambda *args: calls.append(1) or summed(*args))
    event = {v: model.tree[v][row[j]] for j, v in enumerate(model.variables) if row[j] >= 0}
    log_prob = st.prob(model, event, log=True)
    assert calls == []
    assert log_prob == pytest.approx(_every_completion_logprob(model, row, 10), rel=1e-12)


def test_many_rows_of_a_sparse_tree_are_walked_in_path_order_with_the_same_results():
    """Past 4096 rows a tree with sparse variables is walked in the order of
    the rows' paths (their positions in the sorted keys' low bits); the
    results are those of the rows walked as given, a few at a time."""
    from pystagedtrees.inference._inference import _path_order, encode_columns, log_tables_of

    rng = np.random.default_rng(3)
    data = pd.DataFrame({f"V{j}": pd.Categorical.from_codes(rng.integers(0, 2, 5000), ["0", "1"])
                         for j in range(30)})
    model = st.full(data, lambda_=1)
    rows = data.drop(columns="V0")
    columns = encode_columns(model, rows, "newdata", unread=("V0",))
    order = _path_order(model, columns, 0, log_tables_of(model))
    assert np.array_equal(np.sort(order), np.arange(len(data)))
    prefix = np.column_stack([rows[v].cat.codes for v in rows.columns[:20]])[order]
    keys = [tuple(row) for row in prefix]
    assert keys == sorted(keys)
    whole = st.predict(model, rows, prob=True)
    parts = pd.concat([st.predict(model, rows.iloc[a:a + 1000], prob=True)
                       for a in range(0, len(rows), 1000)])
    pd.testing.assert_frame_equal(whole, parts)
