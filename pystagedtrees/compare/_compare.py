"""Comparing and inspecting staged trees (R: R/compare.R, R/inclusions_stages.R,
R/subtrees.R, R/confint.R, R/lr_test.R, R/ci_matrices.R, R/cid.R,
R/potential_outcomes.R).

Stage partitions are compared through integer stage ids, so the result
never depends on how stages are labelled.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd
from scipy.optimize import linear_sum_assignment
from scipy.stats import chi2

from pystagedtrees.base._validation import (
    as_numbers,
    check_choice,
    check_flag,
    check_fraction,
    check_ignore,
    check_names,
)
from pystagedtrees.fitting._construct import sevt as sevt_structure
from pystagedtrees.fitting._fit import sevt_fit
from pystagedtrees.fitting._scores import logLik
from pystagedtrees.graphs._parentslist import as_parentslist
from pystagedtrees.inference._inference import prob
from pystagedtrees.model._sevt import Sevt, check_sevt
from pystagedtrees.model._stagevec import EXPAND_MAX, StageLabels, StageVector, dense_too_large
from pystagedtrees.model._trie import MAX_SITUATIONS
from pystagedtrees.random._random import randomize_sevt
from pystagedtrees.stage_ops._stage_ops import path_codes, situation_index, stndnaming

__all__ = [
    "compare_stages",
    "hamming_stages",
    "diff_stages",
    "inclusions_stages",
    "subtree",
    "depsubtree",
    "confint",
    "lr_test",
    "ci_matrices",
    "cid",
    "potential_outcomes",
]


def check_same_tree(object1, object2):
    """Raise unless both models have the same variables, order and levels."""
    check_sevt(object1, "object1")
    check_sevt(object2, "object2")
    if list(object1.tree.items()) != list(object2.tree.items()):
        raise ValueError(
            "`object1` and `object2` must be staged trees over the same variables, "
            f"in the same order, with the same levels; got {object1.tree} and {object2.tree}."
        )


def _ids(model, i):
    return model.stage_vector(i).dense(f"stage vector of {model.variables[i]!r}")


def _single_valued(a, b):
    """For each situation: does its ``a``-stage map to a single ``b``-stage?"""
    radix = int(b.max()) + 1
    pairs = np.unique(a.astype(np.int64) * radix + b)  # one key per (a, b)
    distinct = np.bincount(pairs // radix, minlength=int(a.max()) + 1)
    return distinct[a] == 1


def diff_stages(object1: Sevt, object2: Sevt) -> dict[str, np.ndarray]:
    """Situations whose stages differ between two trees (R: ``diff_stages``).

    Returns
    -------
    dict of str to numpy.ndarray
        Per variable but the root, 0 where the situation's stage holds the
        same situations in both trees, else 1.

    Examples
    --------
    >>> from pystagedtrees import diff_stages
    >>> import pystagedtrees as st
    >>> full = st.full(st.datasets.titanic_table())
    >>> diff_stages(full, st.join_stages(full, "Sex", "1", "2"))["Sex"].tolist()
    [1, 1, 0, 0]
    """
    check_same_tree(object1, object2)
    out = {}
    for i in range(1, len(object1.variables)):
        a, b = _ids(object1, i), _ids(object2, i)
        same = _single_valued(a, b) & _single_valued(b, a)
        out[object1.variables[i]] = (~same).astype(int)
    return out


def inclusions_stages(object1: Sevt, object2: Sevt) -> dict[str, pd.DataFrame]:
    """How the stages of two trees include each other (R: ``inclusions_stages``).

    Returns
    -------
    dict of str to pandas.DataFrame
        Per variable but the root, the distinct rows ``(object1, relation,
        object2)`` of stage labels: ``"="`` same stage, ``"<"`` the first
        tree's stage lies inside the second's, ``">"`` the reverse, ``"!="``
        neither.

    Examples
    --------
    >>> from pystagedtrees import inclusions_stages
    >>> import pystagedtrees as st
    >>> full = st.full(st.datasets.titanic_table())
    >>> inclusions_stages(full, st.join_stages(full, "Sex", "1", "2"))["Sex"].values.tolist()
    [['1', '<', '1'], ['2', '<', '1'], ['3', '=', '3'], ['4', '=', '4']]
    """
    check_same_tree(object1, object2)
    out = {}
    for i in range(1, len(object1.variables)):
        a, b = _ids(object1, i), _ids(object2, i)
        inside_b, inside_a = _single_valued(a, b), _single_valued(b, a)
        relation = np.select(
            [inside_b & inside_a, inside_b, inside_a], ["=", "<", ">"], default="!="
        )
        frame = pd.DataFrame({
            "object1": object1.stage_labels(i).as_array()[a],
            "relation": relation,
            "object2": object2.stage_labels(i).as_array()[b],
        })
        out[object1.variables[i]] = frame.drop_duplicates().reset_index(drop=True)
    return out


def _matched_difference(a, b):
    """R's hamming matching: relabel the side with fewer stages by maximum overlap."""
    n_a, n_b = int(a.max()) + 1, int(b.max()) + 1
    overlap = np.zeros((n_a, n_b), dtype=np.int64)
    np.add.at(overlap, (a, b), 1)
    if n_a < n_b:
        rows, cols = linear_sum_assignment(overlap, maximize=True)
        mapping = np.full(n_a, -1)
        mapping[rows] = cols
        return (mapping[a] != b).astype(int)
    rows, cols = linear_sum_assignment(overlap.T, maximize=True)
    mapping = np.full(n_b, -1)
    mapping[rows] = cols
    return (a != mapping[b]).astype(int)


def _sum_of(FUN, flags_per_variable):
    """R's ``sum(vapply(..., FUN, 1))``: ``FUN`` of each variable's 0/1 flags, summed."""
    total = 0.0
    for flags in flags_per_variable:
        value = as_numbers(FUN(flags.astype(float)), "what `FUN` returns")
        if value.shape != ():
            raise ValueError(f"`FUN` must return one number; got shape {value.shape}.")
        total += float(value)
    return total


def hamming_stages(object1: Sevt, object2: Sevt, return_tree: bool = False,
                   FUN: Callable[[np.ndarray], float] = np.sum,
                   ) -> float | dict[str, np.ndarray]:
    """Hamming distance between stage partitions (R: ``hamming_stages``).

    Per variable, stages of the tree with fewer stages are matched to
    stages of the other by a maximum-overlap assignment (scipy's
    ``linear_sum_assignment``, as R's ``clue::solve_LSAP``); the distance
    counts the situations whose matched stages differ.

    Parameters
    ----------
    object1, object2 : Sevt
        Over the same tree.
    return_tree : bool, default False
        Return the per-situation differences instead of the distance.  When
        several matchings are optimal, the situations flagged may differ
        from R's (their number per variable does not).
    FUN : callable, default numpy.sum
        Summary of each variable's 0/1 differences; the distance is the sum
        of the summaries.

    Returns
    -------
    float or dict of str to numpy.ndarray

    Examples
    --------
    >>> from pystagedtrees import hamming_stages
    >>> import pystagedtrees as st
    >>> m = st.full(st.datasets.titanic_table())
    >>> float(hamming_stages(m, st.rename_stage(m, "Sex", "1", "99")))
    0.0
    """
    check_same_tree(object1, object2)
    return_tree = check_flag(return_tree, "return_tree")
    if not callable(FUN):
        raise TypeError(f"`FUN` must be a function; got {FUN!r}.")
    difftree = {
        v: _matched_difference(_ids(object1, i), _ids(object2, i))
        for i, v in enumerate(object1.variables) if i > 0
    }
    if return_tree:
        return difftree
    return _sum_of(FUN, difftree.values())


def compare_stages(object1: Sevt, object2: Sevt,
                   method: Literal["naive", "hamming", "stages"] = "naive",
                   return_tree: bool = False, plot: bool = False,
                   **plot_args: Any) -> bool | dict[str, np.ndarray]:
    """Whether two staged trees have the same stages (R: ``compare_stages``).

    Parameters
    ----------
    object1, object2 : Sevt
        Over the same tree.
    method : {"naive", "hamming", "stages"}
        ``naive`` compares labels after standard naming; ``hamming`` after
        matching stages (:func:`hamming_stages`); ``stages`` the partitions
        (:func:`diff_stages`).
    return_tree : bool, default False
        Return the per-situation differences (the root's is 0).
    plot : bool, default False
        Also draw the tree of ``object1`` with the differing situations in
        red, as R does (situations unobserved in both are left out).
    **plot_args
        Passed on to :func:`~pystagedtrees.plot` (``ax``, ``main``,
        ...); they need ``plot=True``.

    Returns
    -------
    bool or dict of str to numpy.ndarray

    Examples
    --------
    >>> from pystagedtrees import compare_stages
    >>> import pystagedtrees as st
    >>> full = st.full(st.datasets.titanic_table())
    >>> compare_stages(full, full), compare_stages(full, st.indep(st.datasets.titanic_table()))
    (True, False)
    """
    check_same_tree(object1, object2)
    check_choice(method, "method", ("naive", "hamming", "stages"))
    return_tree = check_flag(return_tree, "return_tree")
    if not check_flag(plot, "plot") and plot_args:
        raise TypeError(f"compare_stages got {sorted(plot_args)}: plotting options need plot=True.")
    if method == "naive":
        s1, s2 = stndnaming(object1), stndnaming(object2)
        difftree = {
            v: (s1.stage_labels(i).as_array()[_ids(s1, i)] != s2.stage_labels(i).as_array()[_ids(s2, i)]).astype(int)
            for i, v in enumerate(s1.variables) if i > 0
        }
    elif method == "hamming":
        difftree = hamming_stages(object1, object2, return_tree=True)
    else:
        difftree = diff_stages(object1, object2)
    difftree = {object1.variables[0]: np.zeros(1, dtype=int), **difftree}
    if plot:
        from pystagedtrees.plotting._plotting import plot as draw_tree

        drawn = _difference_tree(object1, object2, difftree)
        differing = [v for v in drawn.variables[1:] if "1" in drawn.stages(v)]
        draw_tree(drawn, col={v: {"1": "red"} for v in differing},
                  **{"legend": False, **plot_args})  # R's picture has no legend
    if return_tree:
        return difftree
    return all(not d.any() for d in difftree.values())


def _difference_tree(object1, object2, difftree):
    """The tree of ``object1`` with stages "1" (differs), "0" (same) and
    "UNOBSERVED" (unobserved in both), to draw (R's compare_stages plot)."""
    drawn = sevt_structure(object1.tree)
    labels = StageLabels.from_strings(["0", "1", "UNOBSERVED"])
    unobserved = [set(m.name_unobserved or ()) for m in (object1, object2)]
    for i, v in enumerate(object1.variables[1:], start=1):
        ids = np.asarray(difftree[v], dtype=np.int32).copy()
        both = np.ones(len(ids), dtype=bool)
        for model, names in zip((object1, object2), unobserved):
            stage_names = model.stage_labels(i).as_array()[_ids(model, i)]
            both &= np.isin(stage_names, list(names))
        ids[both] = 2
        drawn.assign_stages(i, StageVector(len(ids), ids), labels)
    drawn.name_unobserved = ["UNOBSERVED"]
    return drawn


# -- sub-models ------------------------------------------------------------------

def subtree(object: Sevt, path: Mapping[str, str] | Sequence[str] | pd.DataFrame) -> Sevt:
    """The staged tree below a situation (R: ``subtree``).

    Parameters
    ----------
    object : Sevt
    path : dict, sequence or one-row pandas.DataFrame
        Levels of the first ``m`` variables (at least two variables must
        remain).

    Returns
    -------
    Sevt
        Over the remaining variables; the first keeps the situation's
        distribution as stage "1" (R keeps its label), the others the stages
        (and fitted probabilities and counts) of the situations below it.  The log-likelihood is dropped.

    Examples
    --------
    >>> from pystagedtrees import subtree
    >>> import pystagedtrees as st
    >>> m = st.full(st.datasets.titanic_table(), lambda_=1)
    >>> sub = subtree(m, {"Class": "Crew"})
    >>> sub.variables, st.stages(sub, "Age")
    (['Sex', 'Age', 'Survived'], ['7', '8'])
    """
    check_sevt(object)
    codes = path_codes(object, path, "path")
    if codes.shape[0] != 1:
        raise ValueError(f"`path` must give one path; got {codes.shape[0]}.")
    m = codes.shape[1]
    if m > len(object.variables) - 2:
        raise ValueError(
            f"`path` must leave at least two variables; it fixes {m} of {len(object.variables)}."
        )
    if object.situation_trie is not None:
        deep = object.variables[object.situation_trie.first]
        raise ValueError(
            f"`object`: subtree cuts trees whose situations have int64 indices; from {deep!r} "
            "on they are numbered by the observed paths instead (trees of more than "
            f"{MAX_SITUATIONS} situations per variable).")
    idx = int(situation_index(object, codes)[0])
    # per remaining variable: its stages below the situation, in order of first
    # appearance, and the old ids they come from
    root_stage = object.stage_vector(m).lookup([idx])  # R keeps its label
    parts = [(StageVector(1, np.zeros(1, dtype=np.int32)), object.stage_labels(m).take(root_stage),
              root_stage)]
    block = 1
    for old in range(m + 1, len(object.variables)):
        block *= int(object.n_levels[old - 1])
        vector = object.stage_vector(old).block(idx * block, block)
        kept = vector.first_appearance()
        mapping = np.full(len(object.stage_labels(old)), -1, dtype=np.int32)
        mapping[kept] = np.arange(len(kept), dtype=np.int32)
        parts.append((vector.remap(mapping), object.stage_labels(old).take(kept), kept))
    out = object.restructured({v: object.tree[v] for v in object.variables[m:]},
                              [p[0] for p in parts], [p[1] for p in parts])
    if object.has_counts:
        situations, counts = [], []
        block = 1
        for t, old in enumerate(range(m, len(object.variables))):
            block = 1 if t == 0 else block * int(object.n_levels[old - 1])
            start = idx * block
            sit = object.observed_situations(old)
            inside = (sit >= start) & (sit < start + block)
            situations.append(sit[inside] - start)
            counts.append(object.situation_counts(old)[inside])
        if not len(situations[0]):  # the situation holds no data: a row of zeros
            situations[0] = np.zeros(1, dtype=np.int64)
            counts[0] = np.zeros((1, int(object.n_levels[m])))
        out.set_counts(situations, counts, object.shared_data_raw)
    if object.is_fitted:
        for t, (_, _, old_ids) in enumerate(parts):
            out.set_stage_probabilities(t, object.stage_probabilities(m + t)[old_ids].copy(),
                                        object.stage_sizes(m + t)[old_ids].copy())
    return out


def depsubtree(object: Sevt, var: str,
               other_stages: Literal["NA", "indep", "full"] = "NA") -> Sevt:
    """The staged tree of a variable over its minimal parents (R: ``depsubtree``).

    Parameters
    ----------
    object : Sevt
    var : str
        A variable with at least one parent in the minimal DAG
        (:func:`~pystagedtrees.as_parentslist`).
    other_stages : {"NA", "indep", "full"}
        Stages of the parents: one stage labelled ``"NA"`` per variable (R
        uses missing labels), the independence model, or the full model.

    Returns
    -------
    Sevt
        Unfitted, over the parents (in tree order) and ``var``, whose stages
        are those of ``object`` on the parents' configurations.

    Examples
    --------
    >>> from pystagedtrees import depsubtree
    >>> import pystagedtrees as st
    >>> m = st.full(st.datasets.titanic_table(), join_unobserved=False)
    >>> d = depsubtree(m, "Age")
    >>> d.variables, st.stages(d, "Age")
    (['Class', 'Sex', 'Age'], ['1', '2', '3', '4', '5', '6', '7', '8'])
    """
    check_sevt(object)
    check_choice(other_stages, "other_stages", ("NA", "indep", "full"))
    i = object.var_index(var, "var")
    entry = as_parentslist(object, silent=True)[var]
    if not entry.parents:
        raise ValueError(f"`var` {var!r} has no parents in the minimal DAG: there is no subtree.")
    variables = [v for v in object.variables[:i] if v in entry.parents] + [var]
    model = sevt_structure({v: object.tree[v] for v in variables}, full=other_stages == "full")
    if other_stages == "NA":
        for t in range(1, len(variables) - 1):
            model.relabel_stages(t, StageLabels.from_strings(["NA"]))
    labels = np.asarray(entry.stages)
    names, first, ids = np.unique(labels, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty(len(order), dtype=np.int32)
    rank[order] = np.arange(len(order), dtype=np.int32)
    model.assign_stages(
        len(variables) - 1,
        StageVector(len(labels), rank[ids.ravel()]),
        StageLabels.from_strings(list(names[order])),
    )
    return model


# -- inference ---------------------------------------------------------------------

def _r_percent_labels(probs):
    """R's ``paste0(format(100 * a, digits = 3), " %")``: common decimals, right-aligned.

    Fixed notation always (R switches to scientific notation for extreme
    levels such as 0.999).
    """
    values = 100 * np.asarray(probs, dtype=float)
    decimals = 0
    for x in values:
        target = float(f"{x:.3g}")
        for sig in range(1, 4):
            if float(f"{x:.{sig}g}") == target:
                break
        exponent = int(np.floor(np.log10(abs(target)))) if target != 0 else 0
        decimals = max(decimals, sig - 1 - exponent)
    texts = [f"{x:.{decimals}f}" for x in values]
    width = max(len(t) for t in texts)
    return [t.rjust(width) + " %" for t in texts]


def confint(object: Sevt, parm: str | Sequence[str] | None = None, level: float = 0.95,
            method: Literal["wald", "waldcc", "wilson", "goodman",
                            "quesenberry-hurst"] = "wald",
            ignore: Sequence[str] | None = None) -> pd.DataFrame:
    """Confidence intervals for the stage probabilities (R: ``confint.sevt``).

    Parameters
    ----------
    object : Sevt
        A fitted model.
    parm : str or list of str, optional
        Variables (default all), reported in tree order.  Names only: R
        also takes 1-based positions.
    level : float, default 0.95
    method : {"wald", "waldcc", "wilson", "goodman", "quesenberry-hurst"}
        Wald (with continuity correction), Wilson's score, and the
        simultaneous intervals of Goodman (1965) and Quesenberry & Hurst
        (1964).
    ignore : list of str, optional
        Stages left out (default the unobserved ones).

    Returns
    -------
    pandas.DataFrame
        One row ``"var=level|stage"`` per level and stage; columns are R's
        percent labels (``" 2.5 %"``, ``"97.5 %"``), clipped to [0, 1].
        With smoothing, counts are recovered from the probabilities and the
        intervals mapped back to the smoothed scale, as in R.

    Examples
    --------
    >>> from pystagedtrees import confint
    >>> import pystagedtrees as st
    >>> ci = confint(st.full(st.datasets.titanic_table(), lambda_=0), parm="Class")
    >>> list(ci.columns), ci.index[0]
    ([' 2.5 %', '97.5 %'], 'Class=1st|1')
    """
    check_sevt(object, fitted=True)
    check_choice(method, "method", ("wald", "waldcc", "goodman", "wilson", "quesenberry-hurst"))
    level = check_fraction(level, "level")
    if parm is None:
        positions = range(len(object.variables))
    else:
        # names only: R's numeric parm is a 1-based index, easy to misread here
        positions = sorted(object.var_index(v, "parm") for v in check_names(parm, "parm"))
    ignore = check_ignore(ignore, object.name_unobserved)
    lam = object.lambda_ or 0.0
    rows, lower, upper = [], [], []
    for i in positions:
        v = object.variables[i]
        k = int(object.n_levels[i])
        if method in ("wald", "waldcc", "wilson"):
            q = chi2.ppf(level, 1)
        elif method == "quesenberry-hurst":
            # with one level there is nothing to estimate: R's qchisq(., 0) is 0
            q = chi2.isf(1 - level, k - 1) if k > 1 else 0.0
        else:
            q = chi2.isf((1 - level) / k, 1)
        sids = object.stage_vector(i).first_appearance()
        labels = ["1"] if i == 0 else object.stage_labels(i).as_array()[sids].tolist()
        if i > 0:  # R: the root has no stage vector to ignore
            kept = [j for j, label in enumerate(labels) if label not in ignore]
            sids, labels = np.asarray(sids)[kept], [labels[j] for j in kept]
        # all stages of the variable at once: one row per stage, one column per level
        p = object.stage_probabilities(i)[sids]
        n = object.stage_sizes(i)[sids][:, None]
        n_stage = p * (n + k * lam) - lam
        with np.errstate(divide="ignore", invalid="ignore"):  # R's NaN for empty stages
            if lam > 0:
                p = n_stage / n
            if method in ("wald", "waldcc"):
                half = np.sqrt(q * p * (1 - p) / n) + (1 / (2 * n) if method == "waldcc" else 0)
                lo, hi = p - half, p + half
            else:
                root = np.sqrt(q ** 2 + 4 * n_stage * q * (1 - p))
                lo = (q + 2 * n_stage - root) / (2 * (n + q))
                hi = (q + 2 * n_stage + root) / (2 * (n + q))
        if lam > 0:
            lo = (n * lo + lam) / (n + k * lam)
            hi = (n * hi + lam) / (n + k * lam)
        levels = object.levels_of(i)
        rows += [f"{v}={level_name}|{label}" for label in labels for level_name in levels]
        lower.append(np.maximum(0, lo).ravel())
        upper.append(np.minimum(1, hi).ravel())
    alpha = (1 - level) / 2
    columns = _r_percent_labels([alpha, 1 - alpha])
    values = np.column_stack([np.concatenate(lower), np.concatenate(upper)]) if rows else np.zeros((0, 2))
    return pd.DataFrame(values, index=rows, columns=columns)


def lr_test(object: Sevt, *others: Sevt) -> pd.DataFrame:
    """Likelihood-ratio tests of nested staged trees (R: ``lr_test``).

    Parameters
    ----------
    object : Sevt
        The smallest model, fitted.  Alone, it is tested against the
        independence model fitted to the same data.
    *others : Sevt
        Larger fitted models over the same tree, each containing ``object``
        (every stage of ``object`` a union of their stages).

    Returns
    -------
    pandas.DataFrame
        Columns ``#Df``, ``LogLik``, ``Df``, ``Chisq``, ``Pr(>Chisq)``, one
        row per model (``attrs["heading"]`` describes them).

    Raises
    ------
    ValueError
        Models that are not nested or not over the same tree.

    Examples
    --------
    >>> from pystagedtrees import lr_test
    >>> import pystagedtrees as st
    >>> table = st.datasets.titanic_table()
    >>> test = lr_test(st.indep(table, join_unobserved=False), st.full(table, join_unobserved=False))
    >>> test["Df"].tolist()[1], bool(test["Pr(>Chisq)"].iloc[1] < 1e-10)
    (25.0, True)
    """
    check_sevt(object, fitted=True)
    names = ["object"] + [f"model {j + 2}" for j in range(len(others))]
    if not others:
        if not object.has_counts:
            raise ValueError("`object` has no data: fit it with data to test it against independence.")
        base = sevt_structure(object.tree)
        base.set_counts([object.observed_situations(i) for i in range(len(object.variables))],
                        [object.situation_counts(i) for i in range(len(object.variables))],
                        data_raw=None)
        base = sevt_fit(base, lambda_=object.lambda_ or 0.0)
        others, object = (object,), base
        names = ["indep", "object"]
    for j, other in enumerate(others):
        check_sevt(other, f"model {j + 2}", fitted=True)
        check_same_tree(object, other)
        for v, table in inclusions_stages(object, other).items():
            if table["relation"].isin(["!=", "<"]).any():
                raise ValueError(
                    f"lr_test requires nested models: the stages of {v!r} in model "
                    f"{j + 2} do not refine those of the first model."
                )
    lls = [logLik(object)] + [logLik(o) for o in others]
    df = np.array([ll.df for ll in lls], dtype=float)
    loglik = np.array([float(ll) for ll in lls])
    change = np.full(len(lls), np.nan)
    stat = np.full(len(lls), np.nan)
    pvalue = np.full(len(lls), np.nan)
    change[1:] = df[1:] - df[0]
    stat[1:] = 2 * (loglik[1:] - loglik[0])
    dof = np.abs(change[1:])
    # 0 degrees of freedom: the point mass at 0, whose upper tail R's pchisq
    # puts at 1 up to 0 included and at 0 above
    point_mass_tail = np.where(stat[1:] <= 0, 1.0, 0.0)
    pvalue[1:] = np.where(dof > 0, chi2.sf(stat[1:], np.maximum(dof, 1)), point_mass_tail)
    frame = pd.DataFrame(
        {"#Df": df, "LogLik": loglik, "Df": change, "Chisq": stat, "Pr(>Chisq)": pvalue},
        index=pd.RangeIndex(1, len(lls) + 1),
    )
    tree = " -> ".join(f"{v}[{len(lev)}]" for v, lev in object.tree.items())
    frame.attrs["heading"] = ["Likelihood-ratio test", tree] + [
        f"Model {j + 1}: {name}" for j, name in enumerate(names)
    ]
    return frame


def ci_matrices(object: Sevt, var: str) -> dict[str, pd.DataFrame]:
    """The stages of a variable arranged by each predecessor (R: ``ci_matrices``).

    Starting from the immediate predecessor, each matrix has a row per
    level of that predecessor and a column per context of the earlier
    ones; when all rows agree (the variable does not depend on that
    predecessor) only one row is carried back.

    Returns
    -------
    dict of str to pandas.DataFrame
        Keyed by predecessor, nearest first.

    Examples
    --------
    >>> from pystagedtrees import ci_matrices
    >>> import pystagedtrees as st
    >>> m = st.full(st.datasets.titanic_table())
    >>> ci_matrices(m, "Sex")["Class"].to_numpy().ravel().tolist()
    ['1', '2', '3', '4']
    """
    check_sevt(object)
    i = object.var_index(var, "var")
    if i == 0:
        raise ValueError(f"`var` {var!r} is the root: it has no predecessors.")
    stages = object.stage_labels(i).as_array()[_ids(object, i)]
    out = {}
    for j in range(i - 1, -1, -1):
        u = object.variables[j]
        k = int(object.n_levels[j])
        # R fills column by column: row = level of the predecessor
        matrix = stages.reshape(-1, k).T
        # object dtype: pandas would infer a string dtype column by column
        out[u] = pd.DataFrame(matrix, index=pd.Index(object.tree[u], name=u), dtype="O")
        rows_agree = (matrix == matrix[0]).all()
        stages = matrix[0] if rows_agree else matrix.ravel()
    return out


def _shared_config(model, i, shared, reference):
    """The values of the ``shared`` variables along each situation of variable ``i``, as one
    index over ``reference``'s levels (a level that ``reference`` lacks matches nothing)."""
    sit = np.arange(model.n_situations(i), dtype=np.int64)
    config = np.zeros(len(sit), dtype=np.int64)
    for u in shared:
        j = model.variables.index(u)
        known = reference.tree[u]
        # R compares the paths by level name; 0 stands for a level unknown to reference
        as_reference = np.array([known.index(x) + 1 if x in known else 0 for x in model.tree[u]])
        stride = int(np.prod(model.n_levels[j + 1:i], dtype=np.int64))
        config = config * (len(known) + 1) + as_reference[(sit // stride) % int(model.n_levels[j])]
    return config


def _split_stage_flags(cfg1, stage1, cfg2, stage2):
    """1 for each situation of the first tree whose shared configuration meets a
    stage of the second tree that the first tree splits over several stages.

    A stage ``s2`` gathers configurations; the first tree's situations with
    those configurations must share one stage, which holds exactly when the
    smallest and largest of their stages agree.  Sorting once makes this
    linear-logarithmic in the situations (a scan per stage was quadratic).
    """
    order = np.argsort(cfg1, kind="stable")
    configs, starts = np.unique(cfg1[order], return_index=True)
    lowest = np.minimum.reduceat(stage1[order], starts)
    highest = np.maximum.reduceat(stage1[order], starts)
    at = np.minimum(np.searchsorted(configs, cfg2), len(configs) - 1)
    found = configs[at] == cfg2
    at, s2 = at[found], stage2[found]
    stages2, group = np.unique(s2, return_inverse=True)
    low = np.full(len(stages2), np.iinfo(np.int64).max)
    high = np.full(len(stages2), np.iinfo(np.int64).min)
    np.minimum.at(low, group, lowest[at])
    np.maximum.at(high, group, highest[at])
    split = high > low
    return np.isin(cfg1, configs[at[split[group]]]).astype(int)


def cid(object1: Sevt, object2: Sevt,
        FUN: Callable[[np.ndarray], float] = np.mean) -> dict[str, Any]:
    """Context-specific interventional discrepancy (R: ``cid``).

    For every variable and every stage of ``object2``, the situations of
    ``object1`` that agree with one of that stage's situations on the
    predecessors the two trees share should lie in a single stage of
    ``object1``; those that do not are counted as wrong.

    Parameters
    ----------
    object1, object2 : Sevt
        Over the same variables (orders and levels may differ: paths are
        matched by level name, as in R).
    FUN : callable, default numpy.mean
        Summary of each variable's 0/1 indicators.

    Returns
    -------
    dict
        ``wrong``: per variable of ``object1``, a 0/1 array over its
        situations; ``cid``: the sum of ``FUN`` over variables.

    Examples
    --------
    >>> from pystagedtrees import cid
    >>> import pystagedtrees as st
    >>> table = st.datasets.titanic_table()
    >>> float(cid(st.indep(table), st.full(table))["cid"])
    0.0
    """
    check_sevt(object1, "object1")
    check_sevt(object2, "object2")
    if not callable(FUN):
        raise TypeError(f"`FUN` must be a function; got {FUN!r}.")
    if set(object1.variables) != set(object2.variables):
        raise ValueError(
            "`object1` and `object2` must have the same variables; got "
            f"{object1.variables} and {object2.variables}."
        )
    for name, model in (("object1", object1), ("object2", object2)):
        last = len(model.variables) - 1
        if model.n_situations(last) > EXPAND_MAX:  # checked before any work
            raise dense_too_large(model.n_situations(last),
                                  f"stage vector of {model.variables[last]!r} in `{name}`",
                                  advice="cid flags every situation of every variable")
    wrong = {}
    for j1, v in enumerate(object1.variables):
        if j1 == 0:
            wrong[v] = np.zeros(1, dtype=int)
            continue
        j2 = object2.var_index(v, "object2")
        shared = [u for u in object1.variables[:j1] if u in object2.variables[:j2]]
        cfg1 = _shared_config(object1, j1, shared, object1)
        cfg2 = _shared_config(object2, j2, shared, object1)
        stage1 = _ids(object1, j1)
        stage2 = np.zeros(1, dtype=np.int32) if j2 == 0 else _ids(object2, j2)
        wrong[v] = _split_stage_flags(cfg1, stage1, cfg2, stage2)
    return {"wrong": wrong, "cid": _sum_of(FUN, wrong.values())}


def potential_outcomes(object: Sevt, outcome: str, treatment: str) -> pd.DataFrame:
    """Distributions of an outcome under interventions on a treatment (R: ``potential_outcomes``).

    The treatment's stages are replaced by a uniform randomised stage
    (:func:`~pystagedtrees.randomize_sevt`), then
    ``P(outcome = y | treatment = t)`` is computed in that tree.

    Returns
    -------
    pandas.DataFrame
        Rows: treatment levels; columns: outcome levels.  Rows sum to 1
        when every stage has probabilities.  In a fit without smoothing
        (``lambda_=0``) a path through a situation no row reached counts
        as probability 0, as R's ``prob`` counts it: a treatment level not
        observed in some context gives a row summing to less than 1 (the
        same numbers as R), and one never observed a row of NaN or 0.

    Examples
    --------
    >>> import numpy as np
    >>> from pystagedtrees import potential_outcomes
    >>> import pystagedtrees as st
    >>> m = st.full(st.datasets.titanic_table(), lambda_=1)
    >>> po = potential_outcomes(m, "Survived", "Class")
    >>> po.shape, bool(np.allclose(po.sum(axis=1), 1))
    ((4, 2), True)
    """
    check_sevt(object, fitted=True)
    object.var_index(outcome, "outcome")
    object.var_index(treatment, "treatment")
    if outcome == treatment:
        raise ValueError("`outcome` and `treatment` must be different variables.")
    randomized = randomize_sevt(object, treatment)
    t_levels, y_levels = object.tree[treatment], object.tree[outcome]
    conditions = pd.DataFrame({treatment: t_levels})
    values = np.column_stack([
        prob(randomized, pd.DataFrame({outcome: [y] * len(t_levels)}), conditional_on=conditions, na0=False)
        for y in y_levels
    ])
    return pd.DataFrame(
        values, index=pd.Index(t_levels, name=treatment), columns=pd.Index(y_levels, name=outcome)
    )
