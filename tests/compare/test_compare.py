"""Comparison and inspection of staged trees."""
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hst

import pystagedtrees as st
from pystagedtrees.compare import (
    ci_matrices,
    cid,
    compare_stages,
    confint,
    depsubtree,
    diff_stages,
    hamming_stages,
    inclusions_stages,
    lr_test,
    potential_outcomes,
    subtree,
)
from pystagedtrees.graphs import as_sevt
from pystagedtrees.random import random_sevt, sample_from

needs_r = pytest.mark.skipif(shutil.which("Rscript") is None, reason="Rscript not on PATH")
METHODS = ["naive", "hamming", "stages"]
LEVELS = {"A": ["a", "b", "c"], "B": ["x", "y"], "C": ["0", "1"], "D": ["u", "v"]}


@pytest.fixture(scope="module")
def titanic():
    return st.datasets.titanic_table()


def _relabel(model, seed):
    """The same partition under fresh, shuffled labels."""
    rng = np.random.default_rng(seed)
    out = model
    for v in model.variables[1:]:
        old = list(dict.fromkeys(st.stages(model, v)))
        new = [f"s{j}" for j in rng.permutation(len(old))]
        for a, b in zip(old, new):
            out = st.rename_stage(out, v, a, b)
    return out


@given(hst.integers(0, 10_000), hst.floats(0, 1))
@settings(max_examples=25, deadline=None)
def test_identical_partitions_compare_equal_whatever_the_labels(seed, q):
    model = random_sevt(LEVELS, q=q, seed=seed)
    other = _relabel(model, seed)
    for method in METHODS:
        assert compare_stages(model, model, method=method)
        assert compare_stages(model, other, method=method)
    assert hamming_stages(model, other) == 0


def test_full_and_indep_differ(titanic):
    full, indep = st.full(titanic), st.indep(titanic)
    for method in METHODS:
        assert compare_stages(full, full, method=method)
        assert not compare_stages(full, indep, method=method)


def test_hamming_distance_by_hand(titanic):
    full = st.full(titanic, join_unobserved=False)
    joined = st.join_stages(full, "Sex", "1", "2")
    # Sex stages 1,2,3,4 against 1,1,3,4: matching the three stages of the
    # second tree to three of the first leaves one situation mismatched.
    assert hamming_stages(full, joined) == 1
    tree = hamming_stages(full, joined, return_tree=True)
    assert tree["Sex"].sum() == 1 and tree["Age"].sum() == 0
    assert hamming_stages(full, joined, FUN=np.mean) == pytest.approx(1 / 4)
    # FUN must give one number per variable (R's vapply(..., FUN.VALUE = 1))
    with pytest.raises(TypeError, match="what `FUN` returns must be numbers; got None"):
        hamming_stages(full, joined, FUN=lambda flags: None)
    with pytest.raises(ValueError, match="`FUN` must return one number"):
        hamming_stages(full, joined, FUN=lambda flags: flags)
    with pytest.raises(TypeError, match="what `FUN` returns must be numbers"):
        st.cid(full, joined, FUN=lambda flags: "many")
    # indep against full: one matched situation per variable
    indep = st.indep(titanic, join_unobserved=False)
    assert hamming_stages(indep, full) == (4 - 1) + (8 - 1) + (16 - 1)


def test_diff_and_inclusions_by_hand(titanic):
    full = st.full(titanic, join_unobserved=False)
    joined = st.join_stages(full, "Sex", "1", "2")
    assert diff_stages(full, joined)["Sex"].tolist() == [1, 1, 0, 0]
    incl = inclusions_stages(full, joined)["Sex"]
    assert incl.values.tolist() == [["1", "<", "1"], ["2", "<", "1"], ["3", "=", "3"], ["4", "=", "4"]]
    reverse = inclusions_stages(joined, full)["Sex"]
    assert reverse["relation"].tolist() == [">", ">", "=", "="]


@given(hst.integers(0, 10_000), hst.floats(0, 1))
@settings(max_examples=20, deadline=None)
def test_random_submodels_of_full_are_included(seed, q):
    full = st.sevt(LEVELS, full=True)
    sub = random_sevt(full, q=q, seed=seed)
    for table in inclusions_stages(full, sub).values():
        assert set(table["relation"]) <= {"<", "="}


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_cid_is_zero_for_itself_indep_first_or_full_second(seed):
    model = random_sevt(LEVELS, q=0.6, seed=seed)
    full, indep = st.sevt(LEVELS, full=True), st.sevt(LEVELS)
    assert cid(model, model)["cid"] == 0
    assert cid(indep, model)["cid"] == 0
    assert cid(model, full)["cid"] == 0
    assert cid(full, indep)["cid"] > 0



@settings(max_examples=200, deadline=None)
@given(hst.lists(hst.tuples(hst.integers(0, 6), hst.integers(0, 3)), min_size=1, max_size=25),
       hst.lists(hst.tuples(hst.integers(0, 6), hst.integers(0, 3)), min_size=1, max_size=25))
def test_split_stages_are_found_as_by_scanning_each_stage(first, second):
    # the sort-based flags equal R's scan: for each stage s2 of the second tree, the
    # first tree's situations with its configurations, flagged if in several stages
    from pystagedtrees.compare._compare import _split_stage_flags

    cfg1, stage1 = (np.array(c) for c in zip(*first))
    cfg2, stage2 = (np.array(c) for c in zip(*second))
    expected = np.zeros(len(cfg1), dtype=int)
    for s2 in np.unique(stage2):
        matched = np.isin(cfg1, cfg2[stage2 == s2])
        if len(np.unique(stage1[matched])) > 1:
            expected[matched] = 1
    assert _split_stage_flags(cfg1, stage1, cfg2, stage2).tolist() == expected.tolist()

def test_cid_with_different_orders():
    # Y's stage depends on X in both trees; in the second, X comes after Y's
    # other predecessor, so only the shared predecessors are compared.
    first = as_sevt("[X][Z|X][Y|X]", values={"X": ["0", "1"], "Z": ["0", "1"], "Y": ["0", "1"]})
    second = as_sevt("[X][Z|X][Y|X]", order=["X", "Z", "Y"],
                     values={"X": ["0", "1"], "Z": ["0", "1"], "Y": ["0", "1"]})
    assert cid(first, second)["cid"] == 0
    indep_y = as_sevt("[X][Z|X][Y]", values={"X": ["0", "1"], "Z": ["0", "1"], "Y": ["0", "1"]})
    # Y: one stage in indep_y covers all of first's situations, which span two stages
    result = cid(first, indep_y, FUN=np.sum)
    assert result["wrong"]["Y"].tolist() == [1, 1, 1, 1]


def test_lr_test_statistics_and_errors(titanic):
    indep = st.indep(titanic, join_unobserved=False, lambda_=0)
    full = st.full(titanic, join_unobserved=False, lambda_=0)
    result = lr_test(indep, full)
    l1, l2 = st.logLik(indep), st.logLik(full)
    assert result["Chisq"].iloc[1] == pytest.approx(2 * (float(l2) - float(l1)))
    assert result["Df"].iloc[1] == l2.df - l1.df
    # a model against itself: 0 degrees of freedom, and R 4.2.2's
    # pchisq(0, df = 0, lower.tail = FALSE) is 1
    itself = lr_test(full, full)
    assert itself.iloc[1][["Df", "Chisq", "Pr(>Chisq)"]].tolist() == [0.0, 0.0, 1.0]
    alone = lr_test(full)  # against the independence model of the same tables
    assert alone["LogLik"].iloc[0] == pytest.approx(float(l1))
    with pytest.raises(ValueError, match="nested"):
        lr_test(full, indep)
    a = st.join_stages(full, "Sex", "1", "2")
    b = st.join_stages(full, "Sex", "2", "3")
    with pytest.raises(ValueError, match="nested"):
        lr_test(a, b)
    other = st.full(titanic, order=["Sex", "Class", "Age", "Survived"])
    with pytest.raises(ValueError, match="same variables"):
        lr_test(full, other)


@needs_r
def test_lr_test_p_value_and_confint_labels_match_r(titanic):
    indep = st.indep(titanic, join_unobserved=False, lambda_=0)
    full = st.full(titanic, join_unobserved=False, lambda_=0)
    result = lr_test(indep, full)
    stat, df = result["Chisq"].iloc[1], result["Df"].iloc[1]
    script = f"""
cat(sprintf("%a", pchisq({float(stat / 30).hex()}, {df}, lower.tail = FALSE)), "\\n")
for (level in c(0.95, 0.9, 0.99, 0.5, 0.8)) {{
  a <- (1 - level) / 2; cat(paste0(format(100 * c(a, 1 - a), digits = 3), " %"), sep = "|"); cat("\\n")
}}
"""
    out = subprocess.run(["Rscript", "-e", script], capture_output=True, text=True, check=True).stdout.splitlines()
    from scipy.stats import chi2

    assert chi2.sf(stat / 30, df) == pytest.approx(float.fromhex(out[0].strip()), rel=1e-12)
    model = st.full(titanic, lambda_=1)
    for level, line in zip([0.95, 0.9, 0.99, 0.5, 0.8], out[1:]):
        assert list(confint(model, parm="Class", level=level).columns) == line.split("|")


@pytest.mark.parametrize("method", ["wald", "waldcc", "wilson", "goodman", "quesenberry-hurst"])
def test_confint_bounds(titanic, method):
    for lam in (0, 1):
        ci = confint(st.full(titanic, lambda_=lam), method=method)
        lo, hi = ci.iloc[:, 0].to_numpy(), ci.iloc[:, 1].to_numpy()
        finite = np.isfinite(lo) & np.isfinite(hi)
        assert finite.mean() > 0.9
        assert np.all((lo[finite] >= 0) & (hi[finite] <= 1) & (lo[finite] <= hi[finite]))
        assert not any("UNOBSERVED" in r for r in ci.index)


def test_wilson_interval_matches_textbook_form(titanic):
    # Wilson (1927) in its usual form: centre (x + z^2/2)/(n + z^2), half-width
    # z/(n + z^2) * sqrt(x (n - x) / n + z^2 / 4), with z the normal quantile.
    from scipy.stats import norm

    model = st.full(titanic, lambda_=0)
    ci = confint(model, parm="Class", method="wilson")
    counts = titanic.groupby(level="Class").sum().to_numpy()
    n, z = counts.sum(), norm.ppf(0.975)
    centre = (counts + z ** 2 / 2) / (n + z ** 2)
    half = z / (n + z ** 2) * np.sqrt(counts * (n - counts) / n + z ** 2 / 4)
    np.testing.assert_allclose(ci.iloc[:, 0], centre - half, rtol=1e-12)
    np.testing.assert_allclose(ci.iloc[:, 1], centre + half, rtol=1e-12)


def test_subtree_gives_conditional_probabilities(titanic):
    model = st.full(titanic, lambda_=1)
    sub = subtree(model, {"Class": "2nd", "Sex": "Female"})
    assert sub.variables == ["Age", "Survived"]
    grid = pd.DataFrame({"Age": ["Child", "Child", "Adult", "Adult"], "Survived": ["No", "Yes", "No", "Yes"]})
    full_rows = grid.assign(Class="2nd", Sex="Female")[model.variables]
    joint = st.path_probability(model, full_rows)
    np.testing.assert_allclose(st.path_probability(sub, grid), joint / joint.sum(), rtol=1e-12)
    # the stored counts are those of the rows below the situation
    rows = titanic.xs(("2nd", "Female"), level=("Class", "Sex"))
    refit = st.sevt_fit(sub, lambda_=1)
    direct = st.full(rows, lambda_=1, join_unobserved=False)
    assert float(st.logLik(refit)) == pytest.approx(float(st.logLik(direct)), rel=1e-12)
    with pytest.raises(ValueError, match="at least two"):
        subtree(model, ["1st", "Male", "Child"])


def test_subtree_of_a_compact_tree():
    from pystagedtrees.graphs import random_parentslist

    pl = random_parentslist(26, maxp=2, seed=4)
    model = random_sevt(pl, q=0, seed=1)
    sub = subtree(model, {"X1": "1", "X2": "2"})
    assert sub.variables == [f"X{j}" for j in range(3, 27)]
    row = sample_from(model, 1, seed=2).iloc[[0]].assign(X1="1", X2="2")
    prefix = (st.path_probability(model, row[model.variables], log=True)
              - st.path_probability(sub, row[sub.variables], log=True))
    # the prefix probability P(X1=1, X2=2) does not depend on the rest of the row
    first_two = model.stage_prob["X1"]["1"]["1"] * model.stage_prob["X2"][st.get_stage(model, {"X1": "1"})]["2"]
    assert np.exp(prefix) == pytest.approx(first_two, rel=1e-10)


def test_depsubtree(titanic):
    chain = as_sevt("[W][X|W][Y|X][Z|Y:W]", values={v: ["0", "1"] for v in "WXYZ"})
    dep = depsubtree(chain, "Z")
    assert dep.variables == ["W", "Y", "Z"]
    assert st.stages(dep, "Z") == ["1", "2", "3", "4"]
    assert set(st.stages(dep, "Y")) == {"NA"}
    assert st.stages(depsubtree(chain, "Z", "full"), "Y") == ["1", "2"]
    assert st.stages(depsubtree(chain, "Z", "indep"), "Y") == ["1", "1"]
    with pytest.raises(ValueError, match="no parents"):
        depsubtree(chain, "W")
    with pytest.raises(ValueError, match="other_stages"):
        depsubtree(chain, "Z", "bad")


def test_ci_matrices_by_hand():
    model = st.sevt({"A": ["a1", "a2"], "B": ["b1", "b2", "b3"], "C": ["0", "1"]}, full=True)
    mats = ci_matrices(model, "C")
    # C's situations (A, B) with B fastest: rows are B's levels, columns A's
    assert mats["B"].to_numpy().tolist() == [["1", "4"], ["2", "5"], ["3", "6"]]
    # B matters, so all rows are carried back: (b1a1, b1a2, b2a1, ...) by A
    assert mats["A"].to_numpy().tolist() == [["1", "2", "3"], ["4", "5", "6"]]
    indep = ci_matrices(st.sevt({"A": ["a1", "a2"], "B": ["b1", "b2", "b3"], "C": ["0", "1"]}), "C")
    assert indep["A"].to_numpy().tolist() == [["1"], ["1"]]


def test_potential_outcomes(titanic):
    model = st.full(titanic, lambda_=1)
    po = potential_outcomes(model, "Survived", "Sex")
    np.testing.assert_allclose(po.sum(axis=1), 1, rtol=1e-12)
    assert list(po.index) == ["Male", "Female"] and list(po.columns) == ["No", "Yes"]
    # the root has no confounders: intervening equals conditioning
    root = potential_outcomes(model, "Survived", "Class")
    for c in model.tree["Class"]:
        cond = st.prob(model, {"Survived": "Yes"}, conditional_on={"Class": c})
        assert root.loc[c, "Yes"] == pytest.approx(cond, rel=1e-12)
    with pytest.raises(ValueError, match="different"):
        potential_outcomes(model, "Sex", "Sex")
