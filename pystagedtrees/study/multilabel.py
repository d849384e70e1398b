"""BNCC against binary relevance, random-order chains and an ensemble of chains.

``python -m pystagedtrees.study multilabel`` cross-validates, on the emotions
data shipped with the package (or ``--data FILE.csv --labels N``), for each
base learner,

* ``BR``: binary relevance (one independent classifier per label);
* ``CC-random``: classifier chains in ``--orders`` random orders, reported as
  the mean, standard deviation, minimum and maximum over the orders;
* ``ECC``: the ensemble of those chains, averaging their label probabilities
  and thresholding at 0.5 (as in scikit-learn's chain ensemble example;
  no bagging, so it uses the very same chains as ``CC-random``);
* ``BNCC``: the chain ordered by the label Bayesian network
  (:class:`pystagedtrees.multilabel.BNClassifierChain`),

with two base learners: ``logistic`` (standardised features, logistic
regression) and ``naive_bayes`` (features cut into ``--bins`` quantile bins,
categorical naive Bayes with Laplace smoothing).  The preprocessing is fitted
on each training fold only.  Every score is computed once on the pooled
out-of-fold predictions of all rows.  The label network learned on all rows
is printed and drawn to ``<out>/label_network.png``; the score table goes to
``<out>/multilabel_scores.csv``.  With ``--network-orders N``, up to ``N``
orders consistent with that network are also cross-validated, each fixed in
all folds (:func:`score_orders`), to show how much the choice among them
matters; their scores go to ``<out>/network_order_scores.csv``.  With
``--repeats R`` the whole cross-validation runs with ``R`` fold splits (seeds
``--seed``, ``--seed + 1``, ...), since one split can rank close methods
either way: :func:`summarise_repeats` reports, per learner and score,
BNCC's mean against the mean of the random chains, their mean paired
difference with its standard error, and in how many repeats BNCC is no
worse; the per-repeat table goes to ``<out>/multilabel_repeats.csv``.
Every run summarises all the methods over its repeats
(:func:`summarise_methods`: means with standard errors, and each method's
paired difference from BNCC), prints them (:func:`methods_table`), writes
them to ``<out>/multilabel_summary.csv``, draws them to
``<out>/multilabel_methods.png`` (:func:`plot_methods`) and records the run
(command, settings, date, machine, versions) in ``<out>/multilabel_run.json``.
"""
from __future__ import annotations

import argparse
import itertools
import numbers
import operator
import os
import time
import warnings
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from sklearn.base import ClassifierMixin, TransformerMixin, clone
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import KFold
from sklearn.multioutput import MultiOutputClassifier
from sklearn.naive_bayes import CategoricalNB
from sklearn.preprocessing import KBinsDiscretizer, StandardScaler
from threadpoolctl import threadpool_limits

from pystagedtrees import datasets as shipped_data
from pystagedtrees.multilabel import BNClassifierChain, label_network
from pystagedtrees.multilabel.metrics import (
    MULTILABEL_SCORES,
    check_indicator_matrix,
    multilabel_scores,
)
from pystagedtrees.study._record import write_run_record
from pystagedtrees.study.benchmark import progress_bar

if TYPE_CHECKING:  # networkx is imported where a graph is drawn or walked
    import networkx as nx

__all__ = [
    "add_arguments",
    "base_learners",
    "compare",
    "compare_repeated",
    "METHODS",
    "load_multilabel_csv",
    "methods_table",
    "split_labels",
    "network_orders",
    "plot_label_network",
    "plot_methods",
    "run",
    "score_orders",
    "summarise_methods",
    "summarise_repeats",
]


def load_multilabel_csv(path: str | os.PathLike[str] | IO[str], n_labels: int,
                        labels_at: str = "start") -> tuple[pd.DataFrame, pd.DataFrame]:
    """Read a CSV whose first (or last) ``n_labels`` columns are 0/1 labels.

    Parameters
    ----------
    path : str or pathlib.Path
    n_labels : int
        Number of label columns.
    labels_at : {"start", "end"}, default="start"
        Where the label columns are.

    Returns
    -------
    X : pandas.DataFrame
        The numeric features.
    Y : pandas.DataFrame
        The labels, as int.

    Examples
    --------
    >>> from pystagedtrees.study.multilabel import load_multilabel_csv
    >>> import io
    >>> X, Y = load_multilabel_csv(io.StringIO("a,b,x\\n1,0,0.5\\n0,1,1.5\\n"), 2)
    >>> list(Y.columns), list(X.columns)
    (['a', 'b'], ['x'])
    """
    return split_labels(pd.read_csv(path), n_labels, labels_at)


def split_labels(data: pd.DataFrame, n_labels: int,
                 labels_at: str = "start") -> tuple[pd.DataFrame, pd.DataFrame]:
    """Features and 0/1 labels of a table whose first (or last) ``n_labels`` columns
    are labels (see :func:`load_multilabel_csv`).

    Examples
    --------
    >>> import pystagedtrees as st
    >>> from pystagedtrees.study.multilabel import split_labels
    >>> X, Y = split_labels(st.datasets.load("emotions"), 6)
    >>> X.shape, Y.shape
    ((593, 72), (593, 6))
    """
    if not 1 <= n_labels < data.shape[1]:
        raise ValueError(
            f"`n_labels` must be between 1 and {data.shape[1] - 1} (the file has "
            f"{data.shape[1]} columns); got {n_labels}."
        )
    if labels_at not in ("start", "end"):
        raise ValueError(f"`labels_at` must be 'start' or 'end'; got {labels_at!r}.")
    if labels_at == "start":
        Y, X = data.iloc[:, :n_labels], data.iloc[:, n_labels:]
    else:
        X, Y = data.iloc[:, :-n_labels], data.iloc[:, -n_labels:]
    for name, column in Y.items():
        # read as numbers: a label column holds only 0 and 1
        numbers_read = pd.to_numeric(column, errors="coerce")
        bad = ~numbers_read.isin([0, 1])
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            value = column.iloc[row]
            found = "a missing value" if pd.isna(value) else repr(getattr(value, "item", lambda: value)())
            where = "first" if labels_at == "start" else "last"
            raise ValueError(
                f"label column {name!r} (the {where} {n_labels} columns are labels: `n_labels`) "
                f"must hold 0 and 1 only; found {found} in data row {row + 1}."
            )
    for name, column in X.items():
        text = column[pd.to_numeric(column, errors="coerce").isna() & column.notna()]
        if len(text):
            raise ValueError(f"feature column {name!r} must be numeric; found {text.iloc[0]!r}.")
    return X.astype(float), Y.apply(pd.to_numeric).astype(int)


def base_learners(n_bins: int = 3) -> dict[str, tuple[TransformerMixin, ClassifierMixin]]:
    """The two base learners, each a (preprocessing, classifier) pair.

    Parameters
    ----------
    n_bins : int, default=3
        Number of quantile bins per feature for naive Bayes.  A feature with
        too few distinct values gets fewer bins (scikit-learn drops the empty
        ones; the study does not repeat its warning for every fold).

    Returns
    -------
    dict of str to (transformer, classifier)

    Examples
    --------
    >>> from pystagedtrees.study.multilabel import base_learners
    >>> sorted(base_learners())
    ['logistic', 'naive_bayes']
    """
    return {
        "logistic": (StandardScaler(), LogisticRegression(max_iter=1000)),
        "naive_bayes": (
            KBinsDiscretizer(n_bins=n_bins, encode="ordinal", strategy="quantile"),
            # the chain appends 0/1 label columns: at least n_bins categories each
            CategoricalNB(alpha=1.0, min_categories=n_bins),
        ),
    }


def _fold_predictions(estimator, X_train, Y_train, X_test, n_orders, seed):
    """Test-fold 0/1 predictions of every method for one base learner."""
    predictions = {
        "BR": MultiOutputClassifier(clone(estimator)).fit(X_train, Y_train).predict(X_test),
        "BNCC": BNClassifierChain(clone(estimator), order="bn")
        .fit(X_train, Y_train)
        .predict(X_test),
    }
    probability_sum = 0.0
    for r in range(n_orders):
        # the same seed gives the same order in every fold
        chain = BNClassifierChain(
            clone(estimator), order="random", random_state=[seed, r]
        ).fit(X_train, Y_train)
        predictions[("CC-random", r)] = chain.predict(X_test)
        probability_sum = probability_sum + chain.predict_proba(X_test)
    predictions["ECC"] = (probability_sum / n_orders >= 0.5).astype(int)
    return predictions


def _check_settings(**settings):
    """Each setting is ``(value, minimum)``: an integer no smaller than the minimum."""
    for name, (value, minimum) in settings.items():
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise TypeError(f"`{name}` must be an integer; got {value!r}.")
        if value < minimum:
            raise ValueError(f"`{name}` must be at least {minimum}; got {value}.")


def _check_data(X, Y):
    """``X`` as floats and ``Y`` as 0/1 ints, both 2-D with one row per sample."""
    X = np.asarray(X, dtype=float)
    Y = check_indicator_matrix(Y, "Y")
    if X.ndim != 2 or Y.ndim != 2 or len(X) != len(Y):
        raise ValueError(
            "`X` and `Y` must be 2-D with one row per sample; got shapes "
            f"{X.shape} and {Y.shape}."
        )
    return X, Y


def _pooled_predictions(X, Y, n_folds, n_bins, random_state, fold_predictions, progress=None):
    """Out-of-fold predictions of every method, per base learner.

    ``fold_predictions(estimator, X_train, Y_train, X_test)`` returns a dict
    of method -> 0/1 predictions for one test fold; the preprocessing is
    fitted on the training fold.  Returns ``[(learner, {method:
    predictions})]`` with the predictions of all folds pooled in the rows of
    ``Y``.  ``progress`` labels a progress bar over the folds (None: none).
    """
    folds = list(KFold(n_splits=n_folds, shuffle=True, random_state=random_state).split(X))
    learners = base_learners(n_bins)
    steps = [(learner, fold) for learner in learners for fold in folds]
    if progress is not None:
        steps = progress_bar(steps, len(steps), progress)
    pooled = {learner: {} for learner in learners}
    for learner, (train, test) in steps:
        preprocessing, estimator = learners[learner]
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Bins whose width are too small")
            prep = clone(preprocessing).fit(X[train])
        # Thousands of tiny fits: threaded BLAS only adds overhead (the
        # whole study ran 11x slower with it on a loaded 2-core machine).
        with threadpool_limits(limits=1, user_api="blas"):
            fold = fold_predictions(
                estimator, prep.transform(X[train]), Y[train], prep.transform(X[test])
            )
        for method, predicted in fold.items():
            pooled[learner].setdefault(method, np.empty_like(Y))[test] = predicted
    return list(pooled.items())


def compare(X: ArrayLike, Y: ArrayLike, n_folds: int = 10, n_orders: int = 10, n_bins: int = 3,
            random_state: int = 0, progress: bool = False) -> pd.DataFrame:
    """Cross-validate BR, random-order chains, ECC and BNCC.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    Y : array-like of shape (n_samples, n_labels)
        0/1 labels.
    n_folds : int, default=10
        Folds of the (shuffled) K-fold cross-validation.
    n_orders : int, default=10
        Number of random chain orders (and size of the ensemble).
    n_bins : int, default=3
        Quantile bins per feature for the naive Bayes learner.
    random_state : int, default=0
        Seed of the fold split and of the random orders.
    progress : bool, default=False
        Show the progress over the folds on stderr (tqdm's bar when it is
        installed, else a counter).

    Returns
    -------
    pandas.DataFrame
        One row per (learner, method), with a ``statistic`` column:
        ``value`` for single models, ``mean``/``sd``/``min``/``max`` over
        the random orders for ``CC-random``; one column per score of
        :data:`~pystagedtrees.multilabel.metrics.MULTILABEL_SCORES`.

    Examples
    --------
    >>> from pystagedtrees.study.multilabel import compare
    >>> from sklearn.datasets import make_multilabel_classification
    >>> X, Y = make_multilabel_classification(
    ...     n_samples=80, n_features=6, n_classes=3, random_state=0)
    >>> table = compare(X, Y, n_folds=2, n_orders=2)
    >>> table.groupby("learner")["method"].unique().map(list).to_dict()
    {'logistic': ['BR', 'BNCC', 'ECC', 'CC-random'], 'naive_bayes': ['BR', 'BNCC', 'ECC', 'CC-random']}
    """
    _check_settings(n_folds=(n_folds, 2), n_orders=(n_orders, 1), n_bins=(n_bins, 2))
    X, Y = _check_data(X, Y)

    def fold_predictions(estimator, X_train, Y_train, X_test):
        return _fold_predictions(estimator, X_train, Y_train, X_test, n_orders, random_state)

    rows = []
    for learner, pooled in _pooled_predictions(
        X, Y, n_folds, n_bins, random_state, fold_predictions,
        progress=f"multilabel (seed {random_state})" if progress else None,
    ):
        per_order = pd.DataFrame(
            [multilabel_scores(Y, pooled[("CC-random", r)]) for r in range(n_orders)]
        )
        for method in ("BR", "BNCC", "ECC"):
            rows.append(
                {"learner": learner, "method": method, "statistic": "value"}
                | multilabel_scores(Y, pooled[method])
            )
        for statistic in ("mean", "sd", "min", "max"):
            summary = per_order.std(ddof=1) if statistic == "sd" else per_order.agg(statistic)
            rows.append(
                {"learner": learner, "method": "CC-random", "statistic": statistic}
                | summary.to_dict()
            )
    return pd.DataFrame(rows, columns=["learner", "method", "statistic", *MULTILABEL_SCORES])


def compare_repeated(X: ArrayLike, Y: ArrayLike, n_repeats: int, n_folds: int = 10,
                     n_orders: int = 10, n_bins: int = 3, random_state: int = 0,
                     progress: bool = False) -> pd.DataFrame:
    """:func:`compare` with ``n_repeats`` fold splits.

    Repeat ``r`` is :func:`compare` with ``random_state + r``, so its folds
    and its random orders both change; ``progress`` shows each repeat's.

    Returns
    -------
    pandas.DataFrame
        The tables of :func:`compare`, with a first column ``seed``.

    Examples
    --------
    >>> from pystagedtrees.study.multilabel import compare_repeated
    >>> from sklearn.datasets import make_multilabel_classification
    >>> X, Y = make_multilabel_classification(
    ...     n_samples=60, n_features=5, n_classes=3, random_state=0)
    >>> table = compare_repeated(X, Y, 2, n_folds=2, n_orders=2)
    >>> sorted(table["seed"].unique().tolist()), len(table)
    ([0, 1], 28)
    """
    _check_settings(n_repeats=(n_repeats, 1))
    _check_settings(random_state=(random_state, 0))
    tables = [
        compare(X, Y, n_folds=n_folds, n_orders=n_orders, n_bins=n_bins,
                random_state=random_state + r, progress=progress).assign(seed=random_state + r)
        for r in range(n_repeats)
    ]
    table = pd.concat(tables, ignore_index=True)
    return table[["seed", *table.columns.drop("seed")]]


def summarise_repeats(table: pd.DataFrame) -> pd.DataFrame:
    """BNCC against the random-order chains over the repeats of :func:`compare_repeated`.

    For each repeat, BNCC's score is paired with the mean over that repeat's
    random orders.

    Parameters
    ----------
    table : pandas.DataFrame
        The result of :func:`compare_repeated`.

    Returns
    -------
    pandas.DataFrame
        One row per (learner, score), with the mean over the repeats of
        BNCC's score (``bncc``) and of the random chains' mean
        (``cc_random``); the mean paired difference BNCC minus random
        (``difference``) and its standard error (``se``, NaN with one
        repeat); and ``no_worse``, the number of repeats in which BNCC is
        no worse (a lower Hamming loss, or a higher score, or equal), out
        of ``repeats``.

    Examples
    --------
    >>> from pystagedtrees.study.multilabel import compare_repeated, summarise_repeats
    >>> from sklearn.datasets import make_multilabel_classification
    >>> X, Y = make_multilabel_classification(
    ...     n_samples=60, n_features=5, n_classes=3, random_state=0)
    >>> summary = summarise_repeats(compare_repeated(X, Y, 2, n_folds=2, n_orders=2))
    >>> summary.columns.tolist()
    ['learner', 'score', 'bncc', 'cc_random', 'difference', 'se', 'no_worse', 'repeats']
    """
    rows = []
    for learner, per_repeat in _per_repeat_scores(table, ("BNCC", "CC-random")):
        bncc, random_mean = per_repeat["BNCC"], per_repeat["CC-random"]
        for score in MULTILABEL_SCORES:
            difference = bncc[score] - random_mean[score]
            rows.append({
                "learner": learner, "score": score,
                "bncc": bncc[score].mean(), "cc_random": random_mean[score].mean(),
                "difference": difference.mean(), "se": _standard_error(difference),
                "no_worse": int(_no_worse(score, difference).sum()), "repeats": len(difference),
            })
    return pd.DataFrame(rows)


METHODS = ("BR", "CC-random", "ECC", "BNCC")
"""The methods of :func:`compare`, in the order the summaries list them."""


def _per_repeat_scores(table, methods):
    """``[(learner, {method: scores by seed})]`` of a :func:`compare_repeated`
    table for ``methods``; ``CC-random`` is each repeat's mean over its random
    orders."""
    missing = {"seed", "learner", "method", "statistic", *MULTILABEL_SCORES} - set(table.columns)
    if missing:
        raise ValueError(
            f"`table` must be a result of compare_repeated; it lacks {sorted(missing)}."
        )
    out = []
    for learner, runs in table.groupby("learner", sort=False):
        single = runs[runs.statistic.isin(["value", "mean"])]
        per_method = {method: rows.set_index("seed")[list(MULTILABEL_SCORES)]
                      for method, rows in single.groupby("method", sort=False)}
        absent = [method for method in methods if method not in per_method]
        if absent:
            raise ValueError(f"`table` must be a result of compare_repeated; it has no "
                             f"{absent} rows for learner {learner!r}.")
        seeds = per_method["BNCC"].index
        out.append((learner, {method: per_method[method].loc[seeds] for method in methods}))
    return out


def _standard_error(values):
    """Standard error of the mean of ``values`` (NaN for a single one)."""
    return values.std(ddof=1) / np.sqrt(len(values)) if len(values) > 1 else np.nan


def _no_worse(score, difference):
    """Where a difference (method minus another) is no worse: lower Hamming loss, else higher."""
    return difference <= 0 if score == "hamming_loss" else difference >= 0


def summarise_methods(table: pd.DataFrame) -> pd.DataFrame:
    """Every method against BNCC over the repeats of :func:`compare_repeated`.

    For each base learner, method and score: the mean over the repeats and
    its standard error, and the mean paired difference from BNCC (the
    method's score minus BNCC's in the same repeat, so on the same folds)
    with its standard error.  ``CC-random`` counts, in each repeat, the mean
    over that repeat's random orders.

    Parameters
    ----------
    table : pandas.DataFrame
        The result of :func:`compare_repeated`.

    Returns
    -------
    pandas.DataFrame
        One row per (learner, method, score), methods in the order of
        :data:`METHODS`, with columns ``mean``, ``se`` (NaN with one
        repeat), ``minus_bncc``, ``minus_bncc_se`` (NaN for BNCC itself),
        ``no_worse_than_bncc`` (repeats where the method is no worse than
        BNCC) and ``repeats``.

    Examples
    --------
    >>> from pystagedtrees.study.multilabel import compare_repeated, summarise_methods
    >>> from sklearn.datasets import make_multilabel_classification
    >>> X, Y = make_multilabel_classification(
    ...     n_samples=60, n_features=5, n_classes=3, random_state=0)
    >>> summary = summarise_methods(compare_repeated(X, Y, 2, n_folds=2, n_orders=2))
    >>> summary.columns.tolist()
    ['learner', 'method', 'score', 'mean', 'se', 'minus_bncc', 'minus_bncc_se', 'no_worse_than_bncc', 'repeats']
    >>> summary.method.unique().tolist()
    ['BR', 'CC-random', 'ECC', 'BNCC']
    """
    rows = []
    for learner, per_repeat in _per_repeat_scores(table, METHODS):
        bncc = per_repeat["BNCC"]
        for method in METHODS:
            scores = per_repeat[method]
            for score in MULTILABEL_SCORES:
                difference = scores[score] - bncc[score]
                itself = method == "BNCC"
                rows.append({
                    "learner": learner, "method": method, "score": score,
                    "mean": scores[score].mean(), "se": _standard_error(scores[score]),
                    "minus_bncc": np.nan if itself else difference.mean(),
                    "minus_bncc_se": np.nan if itself else _standard_error(difference),
                    "no_worse_than_bncc": int(_no_worse(score, difference).sum()),
                    "repeats": len(difference),
                })
    return pd.DataFrame(rows)


def methods_table(summary: pd.DataFrame,
                  scores: Sequence[str] = ("hamming_loss", "example_f1", "micro_f1",
                                           "subset_accuracy")) -> pd.DataFrame:
    """The summary of :func:`summarise_methods` as a table to read: "mean (se)".

    Parameters
    ----------
    summary : pandas.DataFrame
        The result of :func:`summarise_methods`.
    scores : sequence of str
        The scores shown, one column each (among
        :data:`~pystagedtrees.multilabel.metrics.MULTILABEL_SCORES`).

    Returns
    -------
    pandas.DataFrame
        One row per (learner, method), each cell the mean over the repeats
        with its standard error in brackets, to four decimals.

    Examples
    --------
    >>> import pandas as pd
    >>> from pystagedtrees.study.multilabel import methods_table
    >>> summary = pd.DataFrame({"learner": ["nb", "nb"], "method": ["BR", "BNCC"],
    ...                         "score": ["hamming_loss"] * 2, "mean": [0.2, 0.21],
    ...                         "se": [0.001, 0.002]})
    >>> methods_table(summary, ["hamming_loss"])
      learner method     hamming_loss
    0      nb     BR  0.2000 (0.0010)
    1      nb   BNCC  0.2100 (0.0020)
    """
    unknown = [score for score in scores if score not in MULTILABEL_SCORES]
    if unknown or not len(scores):
        raise ValueError(f"`scores` must name some of {list(MULTILABEL_SCORES)}; got {scores!r}.")
    shown = summary[summary.score.isin(scores)].assign(
        cell=lambda t: [f"{m:.4f}" + ("" if np.isnan(e) else f" ({e:.4f})")
                        for m, e in zip(t["mean"], t["se"])])
    wide = shown.pivot(index=["learner", "method"], columns="score", values="cell")
    order = shown[["learner", "method"]].drop_duplicates()
    wide = wide.loc[list(order.itertuples(index=False, name=None)), list(scores)]
    wide.columns.name = None
    return wide.reset_index()


def plot_methods(summary: pd.DataFrame, path: str | os.PathLike[str],
                 scores: Sequence[str] = ("hamming_loss", "example_f1")) -> None:
    """Draw each method's mean score with its standard error, per base learner.

    One panel per score; in each, the methods of every learner side by
    side, with bars of one standard error either way.

    Parameters
    ----------
    summary : pandas.DataFrame
        The result of :func:`summarise_methods`.
    path : str or pathlib.Path
        Output file; the format follows the extension (e.g. ``.png``).
    scores : sequence of str
        One panel per score.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> import pandas as pd
    >>> from pystagedtrees.study.multilabel import plot_methods
    >>> summary = pd.DataFrame({"learner": ["nb"] * 2, "method": ["BR", "BNCC"],
    ...                         "score": ["hamming_loss"] * 2, "mean": [0.2, 0.21],
    ...                         "se": [0.001, 0.002]})
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     plot_methods(summary, pathlib.Path(tmp) / "methods.png", ["hamming_loss"])
    ...     (pathlib.Path(tmp) / "methods.png").read_bytes()[:4]
    b'\\x89PNG'
    """
    from matplotlib.figure import Figure  # lazy: plotting is optional

    unknown = [score for score in scores if score not in set(summary.score)]
    if unknown or not len(scores):
        raise ValueError(f"`scores` must name scores of `summary`; got {scores!r}.")
    learners = list(dict.fromkeys(summary.learner))
    methods = list(dict.fromkeys(summary.method))
    fig = Figure(figsize=(3.2 * len(scores) + 1, 3.4))
    axes = fig.subplots(1, len(scores), squeeze=False)[0]
    width = 0.8 / len(methods)
    for ax, score in zip(axes, scores):
        rows = summary[summary.score == score].set_index(["learner", "method"])
        for j, method in enumerate(methods):
            x = np.arange(len(learners)) - 0.4 + width * (j + 0.5)
            picked = rows.reindex([(learner, method) for learner in learners])
            ax.errorbar(x, picked["mean"], yerr=picked["se"].fillna(0), ls="none",
                        marker="o", ms=5, capsize=3, label=method)
        ax.set_xticks(np.arange(len(learners)))
        ax.set_xticklabels(learners)
        better = "lower" if score == "hamming_loss" else "higher"
        ax.set_title(f"{score.replace('_', ' ')} ({better} is better)", fontsize=10)
        ax.grid(True, axis="y", alpha=0.3)
    axes[0].legend(fontsize=8, ncol=len(methods), loc="lower left", bbox_to_anchor=(0, 1.1))
    fig.savefig(path, dpi=120, bbox_inches="tight")


def score_orders(X: ArrayLike, Y: ArrayLike, orders: Iterable[Sequence[int]], n_folds: int = 10,
                 n_bins: int = 3, random_state: int = 0, progress: bool = False) -> pd.DataFrame:
    """Cross-validate classifier chains in given, fixed label orders.

    Unlike BNCC in :func:`compare`, which learns its order on each training
    fold, every chain here keeps its order in all folds.  With the orders
    consistent with a label network (see :func:`network_orders`) this shows
    how much the choice among them matters.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    Y : array-like of shape (n_samples, n_labels)
        0/1 labels.
    orders : iterable of sequences of int
        Chain orders, each a permutation of the label indices.
    n_folds, n_bins, random_state : int
        As in :func:`compare`; the same values give the same folds.
    progress : bool, default=False
        As in :func:`compare`.

    Returns
    -------
    pandas.DataFrame
        One row per (learner, order), the order as a tuple of label
        indices; one column per score of
        :data:`~pystagedtrees.multilabel.metrics.MULTILABEL_SCORES`.

    Examples
    --------
    >>> import numpy as np
    >>> from pystagedtrees.study.multilabel import score_orders
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 4))
    >>> Y = (X[:, :3] + rng.normal(size=(60, 3)) > 0).astype(int)
    >>> table = score_orders(X, Y, [[0, 1, 2], [2, 1, 0]], n_folds=2)
    >>> table[["learner", "order"]].to_numpy().tolist()
    [['logistic', (0, 1, 2)], ['logistic', (2, 1, 0)], ['naive_bayes', (0, 1, 2)], ['naive_bayes', (2, 1, 0)]]
    """
    _check_settings(n_folds=(n_folds, 2), n_bins=(n_bins, 2))
    X, Y = _check_data(X, Y)
    checked = []
    for order in orders:
        try:
            order = tuple(operator.index(label) for label in order)
        except TypeError:
            raise TypeError(
                f"`orders` must hold sequences of label indices; got {order!r}."
            ) from None
        if sorted(order) != list(range(Y.shape[1])):
            raise ValueError(
                f"every order in `orders` must be a permutation of 0..{Y.shape[1] - 1}; "
                f"got {order}."
            )
        checked.append(order)
    if not checked:
        raise ValueError("`orders` must hold at least one order.")

    def fold_predictions(estimator, X_train, Y_train, X_test):
        return {
            order: BNClassifierChain(clone(estimator), order=list(order))
            .fit(X_train, Y_train)
            .predict(X_test)
            for order in checked
        }

    rows = [
        {"learner": learner, "order": order} | multilabel_scores(Y, pooled[order])
        for learner, pooled in _pooled_predictions(
            X, Y, n_folds, n_bins, random_state, fold_predictions,
            progress="network orders" if progress else None,
        )
        for order in checked
    ]
    return pd.DataFrame(rows, columns=["learner", "order", *MULTILABEL_SCORES])


def network_orders(graph: nx.DiGraph, limit: int | None = None) -> list[tuple[int, ...]]:
    """The chain orders consistent with a label network, as label indices.

    Parameters
    ----------
    graph : networkx.DiGraph
        A label network from :func:`~pystagedtrees.multilabel.label_network` (its nodes carry their
        label ``index``).
    limit : int or None, default=None
        Return at most this many orders (the first ones networkx lists).

    Returns
    -------
    list of tuple of int
        Topological orders of ``graph``: every label after its parents.

    Examples
    --------
    >>> import numpy as np
    >>> from pystagedtrees.multilabel import label_network
    >>> from pystagedtrees.study.multilabel import network_orders
    >>> net = label_network(np.array([[1, 1, 0], [1, 1, 1], [0, 0, 1], [0, 0, 0]] * 20))
    >>> sorted(net.edges)
    [(0, 1)]
    >>> network_orders(net)
    [(0, 1, 2), (0, 2, 1), (2, 0, 1)]
    """
    import networkx as nx

    if limit is not None:
        _check_settings(limit=(limit, 1))
    index = dict(graph.nodes(data="index"))
    orders = itertools.islice(nx.all_topological_sorts(graph), limit)
    return sorted(tuple(index[node] for node in order) for order in orders)


def plot_label_network(graph: nx.DiGraph, path: str | os.PathLike[str]) -> None:
    """Draw a label network (from :func:`~pystagedtrees.multilabel.label_network`) to an image file.

    The labels sit on a circle in chain order, clockwise from the top, and
    are numbered by their chain position; arcs are annotated with their
    dependence degree.  (On a circle no arc can pass through a label.)

    Parameters
    ----------
    graph : networkx.DiGraph
    path : str or pathlib.Path
        Output file; the format follows the extension (e.g. ``.png``).

    Examples
    --------
    >>> import numpy as np
    >>> from pystagedtrees.multilabel import label_network
    >>> from pystagedtrees.study.multilabel import plot_label_network
    >>> import pathlib, tempfile
    >>> net = label_network(np.array([[0, 0], [1, 1], [1, 0], [1, 1]]))
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     plot_label_network(net, pathlib.Path(tmp) / "net.png")
    ...     (pathlib.Path(tmp) / "net.png").read_bytes()[:4]
    b'\\x89PNG'
    """
    import networkx as nx
    from matplotlib.figure import Figure  # lazy: plotting is optional

    order = graph.graph["order"]
    angles = np.pi / 2 - 2 * np.pi * np.arange(len(order)) / len(order)
    pos = {node: (np.cos(a), np.sin(a)) for node, a in zip(order, angles)}
    fig = Figure(figsize=(7, 7))
    ax = fig.add_subplot()
    node_size = 500
    nx.draw_networkx_nodes(graph, pos, ax=ax, node_size=node_size,
                           node_color="#dbe8f5", edgecolors="#4a6f96")
    nx.draw_networkx_labels(graph, pos, ax=ax, font_size=9,
                            labels={node: str(i + 1) for i, node in enumerate(order)})
    nx.draw_networkx_edges(graph, pos, ax=ax, node_size=node_size, arrowsize=14,
                           edge_color="#555555")
    nx.draw_networkx_edge_labels(
        graph, pos, ax=ax, font_size=8, label_pos=0.35,  # off-centre: chords cross there
        edge_labels={(u, v): f"{w:.2f}" for u, v, w in graph.edges(data="weight")},
    )
    for node, a in zip(order, angles):  # names outside the circle
        ax.text(1.2 * np.cos(a), 1.2 * np.sin(a), str(node), fontsize=9,
                ha="center" if abs(np.cos(a)) < 0.3 else ("left" if np.cos(a) > 0 else "right"),
                va="center")
    ax.set_title("Label network (node numbers: chain order)", fontsize=10)
    ax.set_xlim(-1.9, 1.9)
    ax.set_ylim(-1.35, 1.35)
    ax.set_axis_off()
    fig.savefig(path, dpi=120, bbox_inches="tight")


def _at_least(minimum):
    """An argparse type: an integer no smaller than ``minimum``."""

    def parse(text):
        value = int(text)
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}; got {value}")
        return value

    parse.__name__ = "integer"  # argparse names the type in its messages
    return parse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register the options of the ``multilabel`` study on ``parser``.

    Examples
    --------
    >>> from pystagedtrees.study.multilabel import add_arguments
    >>> import argparse
    >>> parser = argparse.ArgumentParser()
    >>> add_arguments(parser)
    >>> args = parser.parse_args(["--data", "emotions.csv", "--labels", "6"])
    >>> args.folds, args.orders, str(args.out)
    (10, 10, '.')
    """
    parser.add_argument("--data", type=Path, default=None,
                        help="CSV file with label columns and numeric features (default: the "
                             "emotions data shipped with the package, its 6 labels first)")
    parser.add_argument("--labels", type=_at_least(1), default=None,
                        help="number of label columns (needed with --data)")
    parser.add_argument("--labels-at", choices=("start", "end"), default="start",
                        help="where the label columns are (default: start)")
    parser.add_argument("--folds", type=_at_least(2), default=10,
                        help="cross-validation folds (default: 10)")
    parser.add_argument("--orders", type=_at_least(1), default=10,
                        help="random chain orders, also the ensemble size (default: 10)")
    parser.add_argument("--bins", type=_at_least(2), default=3,
                        help="quantile bins per feature for naive Bayes (default: 3)")
    parser.add_argument("--seed", type=_at_least(0), default=0,
                        help="seed of the folds and random orders (default: 0)")
    parser.add_argument("--repeats", type=_at_least(1), default=1,
                        help="fold splits, with seeds --seed, --seed + 1, ...; more than one "
                             "adds a summary of BNCC against the random chains (default: 1)")
    parser.add_argument("--network-orders", type=_at_least(0), default=0, metavar="N",
                        help="also score up to N chain orders consistent with the label "
                             "network, each kept fixed in all folds (default: 0, off)")
    parser.add_argument("--out", type=Path, default=Path("."),
                        help="directory for the plot and the score table (default: .)")


EMOTIONS_LABELS = 6
"""Label columns of the shipped emotions data (the first ones)."""


def _read_data(args):
    """``(source, X, Y)`` of the data the options name."""
    if args.data is None:
        if args.labels not in (None, EMOTIONS_LABELS) or args.labels_at != "start":
            raise ValueError(f"the shipped emotions data have their {EMOTIONS_LABELS} labels "
                             "first: give --data with --labels and --labels-at for other data.")
        return "emotions (shipped)", *split_labels(shipped_data.load("emotions"), EMOTIONS_LABELS)
    if args.labels is None:
        raise ValueError("--labels (the number of label columns) is needed with --data.")
    if args.data.is_dir():
        raise ValueError(f"--data {args.data} is a directory, not a CSV file.")
    n_columns = pd.read_csv(args.data, nrows=0).shape[1]
    if args.labels >= n_columns:
        raise ValueError(f"--labels must be less than the {n_columns} columns of {args.data} "
                         f"(at least one feature); got {args.labels}.")
    return args.data, *load_multilabel_csv(args.data, args.labels, args.labels_at)


def run(args: argparse.Namespace) -> int:
    """Run the study with parsed command-line ``args``; returns the exit status."""
    start = time.perf_counter()
    if args.out.exists() and not args.out.is_dir():
        raise ValueError(f"--out {args.out} is a file, not a directory.")
    source, X, Y = _read_data(args)
    if args.folds > len(X):
        raise ValueError(f"--folds must be at most the {len(X)} rows of {source}; got {args.folds}.")
    args.out.mkdir(parents=True, exist_ok=True)  # now, not after the work
    print(f"{source}: {X.shape[0]} rows, {X.shape[1]} features, {Y.shape[1]} labels")
    graph = label_network(Y)
    print("Label network (all rows):")
    for parent, child, weight in graph.edges(data="weight"):
        print(f"  {parent} -> {child}  (dependence {weight:.3f})")
    print("Chain order: " + " > ".join(map(str, graph.graph["order"])))
    repeats = compare_repeated(X, Y, args.repeats, n_folds=args.folds, n_orders=args.orders,
                               n_bins=args.bins, random_state=args.seed, progress=True)
    table = repeats[repeats.seed == args.seed].drop(columns="seed")
    print(f"\n{args.folds}-fold cross-validation, pooled out-of-fold predictions "
          f"(CC-random over {args.orders} orders):")
    print(table.to_string(index=False, float_format="{:.4f}".format))
    table.to_csv(args.out / "multilabel_scores.csv", index=False)
    written = [args.out / "multilabel_scores.csv"]
    summary = summarise_methods(repeats)
    print(f"\nEvery method over {args.repeats} fold split(s) (seeds {args.seed}.."
          f"{args.seed + args.repeats - 1}): mean (standard error over the splits; CC-random: "
          "each split's mean over its orders):")
    print(methods_table(summary).to_string(index=False))
    summary.to_csv(args.out / "multilabel_summary.csv", index=False)
    plot_methods(summary, args.out / "multilabel_methods.png")
    written += [args.out / "multilabel_summary.csv", args.out / "multilabel_methods.png"]
    if args.repeats > 1:
        print(f"\nBNCC against the mean random chain over {args.repeats} fold splits "
              f"(seeds {args.seed}..{args.seed + args.repeats - 1}): means, mean paired "
              "difference (standard error), repeats where BNCC is no worse:")
        print(summarise_repeats(repeats).to_string(index=False, float_format="{:.4f}".format))
        repeats.to_csv(args.out / "multilabel_repeats.csv", index=False)
        written.append(args.out / "multilabel_repeats.csv")
    if args.network_orders:
        orders = network_orders(graph, limit=args.network_orders)
        order_table = score_orders(X, Y, orders, n_folds=args.folds, n_bins=args.bins,
                                   random_state=args.seed, progress=True)
        _print_order_summary(order_table, table)
        order_table.to_csv(args.out / "network_order_scores.csv", index=False)
        written.append(args.out / "network_order_scores.csv")
    plot_label_network(graph, args.out / "label_network.png")
    written.append(args.out / "label_network.png")
    written.append(write_run_record(args.out / "multilabel_run.json", "multilabel", args,
                                    time.perf_counter() - start, written))
    print("\nWrote " + ", ".join(map(str, written)))
    return 0


def _print_order_summary(order_table, table):
    """Range of each score over the network's orders, next to the random mean."""
    n_orders = order_table["order"].nunique()
    print(f"\n{n_orders} chain order(s) consistent with the label network, each "
          "fixed in all folds: min / mean / max, and the CC-random mean:")
    random_mean = table[table.statistic == "mean"].set_index("learner")
    for learner, rows in order_table.groupby("learner", sort=False):
        for score in ("hamming_loss", "example_f1"):
            low, mean, high = rows[score].agg(["min", "mean", "max"])
            print(f"  {learner:12s} {score:13s} {low:.4f} / {mean:.4f} / {high:.4f}"
                  f"   (CC-random {random_mean.loc[learner, score]:.4f})")
