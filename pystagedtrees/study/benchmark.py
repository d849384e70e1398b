"""Staged tree refinements against Bayesian network classifiers on real data.

``python -m pystagedtrees.study benchmark --out results.csv`` runs every
method on every dataset and split, as in Leonelli & Varando (2024), on the
papers' data sets and splits shipped with the package
(:mod:`pystagedtrees.datasets`, R's level order).  Other data: with
``--data-dir DIR --splits-dir DIR``, the CSV ``<data-dir>/<name>.csv``
holds categorical columns with the class (``--class-column``, default
``answer``); the split file ``<splits-dir>/<name>_test_ids.csv`` has one
column per split (``V1``, ``V2``, ...) of 1-based test row numbers, the
other rows being the training set.  Levels are the values of the whole file
(sorted), or R's order when ``--levels-dir`` holds ``<name>.json`` files
with ``levels``.

Each run records accuracy, balanced accuracy, F1 and precision (the
positive class is the first class level, as in the paper's scripts), and
the fit and prediction seconds.  Rows are appended to ``--out`` as they
finish, so an interrupted run resumes where it stopped.  The work goes to
joblib workers (``--n-jobs``), or to a Dask cluster with ``--backend dask
--scheduler ADDRESS`` (the workers must see the data directories).  At
the end a table of medians over splits is printed and written next to
``--out``, with the figures (accuracy and time per dataset, each staged
tree next to the classifier it refines, as the paper's Figures 16-18) and
the run's record ``<out stem>_run.json`` (command, settings, date, machine
and versions).

Method names follow the paper's scripts:

- ``st_bhc_tan_cl``, ``st_bhc_tan_hc``, ``st_bhc_3db``, ``st_bhc_5db``:
  the refinements (:mod:`pystagedtrees.classifiers`);
- ``st_kmeans_cmi``, ``st_hclust_cmi``: naive staged trees, CMI order;
- ``bnc_nb``, ``bnc_tan_cl``, ``bnc_tan_hc``, ``bnc_3db``, ``bnc_5db``: the
  Bayesian network classifiers of :mod:`pystagedtrees.bnc`.

All use smoothing 1; the wrappers use 5 folds, ``epsilon = 0.01`` and
smoothing 1 in their search.  With ``--rng R`` every randomised learner
replays R after ``set.seed(--seed)`` (so split 1 with seed 2020 repeats the
project's R references); with numpy each run gets its own seed derived
from ``--seed``, the dataset, the split and the method.
"""
from __future__ import annotations

import argparse
import functools
import io
import json
import os
import sys
import time
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from pystagedtrees import datasets as shipped_data
from pystagedtrees.base._data import read_categorical_csv
from pystagedtrees.study._record import write_run_record

__all__ = [
    "PAPER_DATASETS",
    "METHODS",
    "DEFAULT_METHODS",
    "classification_scores",
    "load_dataset",
    "load_split",
    "run_grid",
    "run_benchmark",
    "summarise",
    "plot_benchmark",
    "add_arguments",
    "run",
]

PAPER_DATASETS = (
    "Asym", "breast_cancer_wisconsin", "chestSim500", "energy1", "energy2", "FallEld",
    "fertility", "monks1", "monks2", "monks3", "puffin", "tic_tac_toe", "Titanic", "voting",
)
"""The 14 binary datasets of Leonelli & Varando (2024)."""

DEFAULT_METHODS = (
    "st_bhc_tan_cl", "st_bhc_tan_hc", "st_bhc_3db", "st_bhc_5db",
    "bnc_tan_cl", "bnc_tan_hc", "bnc_3db", "bnc_5db",
)
"""The eight methods of the paper's Figures 16 and 17."""

SCORES = ("accuracy", "balanced_accuracy", "f1", "precision")
COLUMNS = ("dataset", "split", "method", "n_train", "n_test") + SCORES + (
    "fit_seconds", "predict_seconds", "error")


# -- methods ---------------------------------------------------------------------------

def _staged(build):
    """A method from ``build(train, class_, seed, rng) -> Sevt``."""
    from pystagedtrees.inference._inference import predict

    def predict_labels(model, test, class_, seed, rng):
        labels = predict(model, test.drop(columns=[class_]), class_=class_)
        return np.asarray(labels, dtype=object)

    return build, predict_labels


def _network(structure):
    """A method from ``structure(train, class_, seed, rng)``, fitted with smoothing 1."""
    from pystagedtrees import bnc

    def fit(train, class_, seed, rng):
        return bnc.lp(structure(train, class_, seed, rng), train, smooth=1)

    def predict_labels(model, test, class_, seed, rng):
        return np.asarray(bnc.predict(model, test, seed=seed, rng=rng), dtype=object)

    return fit, predict_labels


def _wrapper_args(seed, rng):
    return dict(k=5, epsilon=0.01, smooth=1, seed=seed, rng=rng)


@functools.cache
def _methods():
    from pystagedtrees import bnc
    from pystagedtrees import classifiers as cl

    def kdb_structure(kdbk):
        def structure(train, class_, seed, rng):
            p = train.shape[1] - 1
            return bnc.kdb(class_, train, kdbk=min(kdbk, p), **_wrapper_args(seed, rng))
        return structure

    return {
        "st_bhc_tan_cl": _staged(lambda tr, c, seed, rng: cl.sevt_tan_cl(tr, c)),
        "st_bhc_tan_hc": _staged(
            lambda tr, c, seed, rng: cl.sevt_tan_hc(tr, c, seed=seed, rng=rng)),
        "st_bhc_3db": _staged(lambda tr, c, seed, rng: cl.sevt_kdb(tr, c, k=3, seed=seed, rng=rng)),
        "st_bhc_5db": _staged(lambda tr, c, seed, rng: cl.sevt_kdb(tr, c, k=5, seed=seed, rng=rng)),
        "st_kmeans_cmi": _staged(lambda tr, c, seed, rng: cl.sevt_naive(tr, c, seed=seed, rng=rng)),
        "st_hclust_cmi": _staged(lambda tr, c, seed, rng: cl.sevt_naive(tr, c, cluster="hclust")),
        "bnc_nb": _network(lambda tr, c, seed, rng: bnc.nb(c, tr)),
        "bnc_tan_cl": _network(lambda tr, c, seed, rng: bnc.tan_cl(c, tr)),
        "bnc_tan_hc": _network(
            lambda tr, c, seed, rng: bnc.tan_hc(c, tr, **_wrapper_args(seed, rng))),
        "bnc_3db": _network(kdb_structure(3)),
        "bnc_5db": _network(kdb_structure(5)),
    }


METHODS = tuple(_methods())
"""Every method name the studies know."""


def task_seed(seed, rng, *keys):
    """The seed of one run: ``seed`` itself for R (R's ``set.seed`` before each call),
    else a numpy seed mixed from ``seed`` and the run's keys."""
    if rng == "R":
        return int(seed)
    words = [int(seed)] + [zlib.crc32(str(k).encode()) for k in keys]
    return int(np.random.SeedSequence(words).generate_state(1)[0])


# -- scores ------------------------------------------------------------------------------

def classification_scores(truth: ArrayLike, predicted: ArrayLike,
                          positive: object) -> dict[str, float]:
    """Accuracy, balanced accuracy, F1 and precision of ``positive`` against the rest.

    The definitions of the paper's scripts: balanced accuracy is the mean of
    the recall of ``positive`` and of the rest; a recall or precision with
    nothing to count is 1.  A missing prediction counts as wrong.

    Examples
    --------
    >>> from pystagedtrees.study.benchmark import classification_scores
    >>> s = classification_scores(["a", "a", "b", "b"], ["a", "b", "b", "b"], "a")
    >>> s["accuracy"], s["balanced_accuracy"], round(s["f1"], 4), s["precision"]
    (0.75, 0.75, 0.6667, 1.0)
    """
    truth = np.asarray(truth, dtype=object)
    predicted = np.asarray(predicted, dtype=object)
    if truth.shape != predicted.shape or truth.ndim != 1 or truth.size == 0:
        raise ValueError(
            f"`truth` and `predicted` must be two non-empty 1-d sequences of equal length; "
            f"got shapes {truth.shape} and {predicted.shape}."
        )
    right = truth == predicted
    is_pos, said_pos = truth == positive, predicted == positive
    tp = np.sum(is_pos & said_pos)
    fp = np.sum(~is_pos & said_pos)
    fn = np.sum(is_pos & ~said_pos)
    n_pos, n_neg = np.sum(is_pos), np.sum(~is_pos)
    tpr = tp / n_pos if n_pos else 1.0
    tnr = np.sum(right & ~is_pos) / n_neg if n_neg else 1.0
    return {
        "accuracy": float(np.mean(right)),
        "balanced_accuracy": float((tpr + tnr) / 2),
        "f1": float(2 * tp / (2 * tp + fp + fn)) if tp + fp + fn else 1.0,
        "precision": float(tp / (tp + fp)) if tp + fp else 1.0,
    }


def timed_run(method, train, test, class_, seed, rng):
    """Fit and predict with one method; the result row (scores, seconds, or the error)."""
    fit, predict_labels = _methods()[method]
    row = {"n_train": train.shape[0], "n_test": test.shape[0], "error": ""}
    try:
        start = time.perf_counter()
        model = fit(train, class_, seed, rng)
        fitted = time.perf_counter()
        labels = predict_labels(model, test, class_, seed, rng)
        done = time.perf_counter()
    except Exception as exc:  # a failed run is recorded, not fatal to the grid
        row.update({s: np.nan for s in SCORES}, fit_seconds=np.nan, predict_seconds=np.nan,
                   error=f"{type(exc).__name__}: {exc}".replace("\n", " "))
        return row
    positive = test[class_].cat.categories[0]
    row.update(classification_scores(test[class_].astype(object).to_numpy(), labels, positive))
    row.update(fit_seconds=fitted - start, predict_seconds=done - fitted)
    return row


# -- data ------------------------------------------------------------------------------------

def load_dataset(data_dir: str | os.PathLike[str] | None, name: str, class_column: str = "answer",
                 levels_dir: str | os.PathLike[str] | None = None) -> pd.DataFrame:
    """A dataset as categorical columns, the class first.

    Parameters
    ----------
    data_dir : str or Path or None
        Holds ``<name>.csv``; None: the package's copy of the papers' data
        set ``name`` (``levels_dir`` unused: it has R's levels).
    name : str
    class_column : str, default "answer"
    levels_dir : str or Path, optional
        Holds ``<name>.json`` with R's ``levels`` per column.

    Returns
    -------
    pandas.DataFrame
        Columns typed as R's ``read.csv`` types them ("NA" missing,
        integer and logical columns with R's levels; see
        ``read_categorical_csv``); without R's levels, string levels are
        sorted as :func:`pystagedtrees.full` sorts them.
    """
    # a copy: the caller may edit it, the cache must not change
    return _read_dataset(data_dir, name, class_column, levels_dir).copy()


@functools.lru_cache(maxsize=16)
def _read_dataset(data_dir, name, class_column, levels_dir):
    if data_dir is None:
        data = shipped_data.load(name, benchmark=True)
        if class_column not in data.columns:
            raise ValueError(f"`class_column` {class_column!r} is not a column of {name}: "
                             f"{list(data.columns)}.")
        return data[[class_column] + [c for c in data.columns if c != class_column]]
    path = Path(data_dir) / f"{name}.csv"
    if not path.exists():
        raise FileNotFoundError(f"dataset {name!r} not found: no file {path}.")
    levels = None
    if levels_dir is not None and (Path(levels_dir) / f"{name}.json").exists():
        with open(Path(levels_dir) / f"{name}.json") as fh:
            levels = json.load(fh).get("levels")
    return read_categorical_csv(path, class_column, levels, class_arg="class_column")


def load_split(data: pd.DataFrame, splits_dir: str | os.PathLike[str] | None, name: str,
               split: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Training and test rows of split ``split`` (1-based column ``V<split>``; with
    ``splits_dir`` None, the papers' split of the shipped set ``name``)."""
    if splits_dir is None:
        shipped = shipped_data.splits(name)
        if split not in shipped:
            raise ValueError(f"{name} has no split {split} (it has {sorted(shipped)}).")
        test_rows = shipped[split]
    else:
        path = Path(splits_dir) / f"{name}_test_ids.csv"
        if not path.exists():
            raise FileNotFoundError(f"splits of {name!r} not found: no file {path}.")
        ids = pd.read_csv(path)
        column = f"V{split}"
        if column not in ids.columns:
            raise ValueError(f"{path} has no split {split} (columns {list(ids.columns)}).")
        test_rows = ids[column].dropna().to_numpy(dtype=np.int64) - 1
    is_test = np.zeros(data.shape[0], dtype=bool)
    is_test[test_rows] = True
    return data[~is_test].reset_index(drop=True), data[is_test].reset_index(drop=True)


def benchmark_task(task):
    """One dataset × split × method run (top level, so workers can unpickle it)."""
    data = load_dataset(task["data_dir"], task["dataset"], task["class_column"], task["levels_dir"])
    train, test = load_split(data, task["splits_dir"], task["dataset"], task["split"])
    seed = task_seed(task["seed"], task["rng"], task["dataset"], task["split"], task["method"])
    row = {k: task[k] for k in ("dataset", "split", "method")}
    row.update(timed_run(task["method"], train, test, data.columns[0], seed, task["rng"]))
    return row


# -- running a grid --------------------------------------------------------------------------

def progress_bar(iterable, total, label):
    """tqdm's bar when it is installed, else a counter on stderr."""
    try:
        from tqdm import tqdm
    except ImportError:
        # on a terminal one line redrawn; in a log a line every tenth of the work
        live = sys.stderr.isatty()
        step = 1 if live else max(1, total // 10)

        def counted():
            for done, item in enumerate(iterable, start=1):
                if done % step == 0 or done == total:
                    print(f"{label}: {done}/{total}", end="\r" if live else "\n",
                          file=sys.stderr, flush=True)
                yield item
            if live and total:
                print(file=sys.stderr)
        return counted()
    return tqdm(iterable, total=total, desc=label)


def _dask_results(function, tasks, scheduler):
    try:
        from dask.distributed import Client, as_completed
    except ImportError:
        raise RuntimeError(
            "--backend dask needs dask.distributed, which is not installed: "
            "pip install 'dask[distributed]'."
        ) from None
    with Client(scheduler) if scheduler else Client(processes=True) as client:
        futures = client.map(function, tasks, pure=False)
        for future in as_completed(futures):
            yield future.result()


def run_grid(function: Callable[[Any], Any], tasks: Sequence[Any], n_jobs: int = 1,
             backend: str = "loky", scheduler: str | None = None,
             label: str = "runs") -> Iterator[Any]:
    """Results of ``function(task)`` for every task, in completion order.

    Parameters
    ----------
    function : callable
        A top-level function (workers import it).
    tasks : list
    n_jobs : int, default 1
        joblib workers (-1: one per core).
    backend : {"loky", "threading", "sequential", "dask"}, default "loky"
    scheduler : str, optional
        Address of a Dask scheduler (``backend="dask"``); default a local
        cluster.
    label : str
        Progress bar label.

    Yields
    ------
    object

    Examples
    --------
    >>> from pystagedtrees.study.benchmark import run_grid
    >>> sorted(run_grid(abs, [-2, 1], backend="sequential", label="demo"))
    [1, 2]
    """
    if backend == "dask":
        results = _dask_results(function, tasks, scheduler)
    elif backend in ("loky", "threading", "sequential"):
        if scheduler is not None:
            raise ValueError("`scheduler` is for backend='dask'.")
        from joblib import Parallel, delayed

        results = Parallel(n_jobs=n_jobs, backend=backend, return_as="generator_unordered")(
            delayed(function)(t) for t in tasks)
    else:
        raise ValueError(
            f"`backend` must be 'loky', 'threading', 'sequential' or 'dask'; got {backend!r}."
        )
    yield from progress_bar(results, len(tasks), label)


def _complete_part(path):
    """The bytes of ``path`` up to its last complete row (a run killed while
    writing can leave a partial one)."""
    data = path.read_bytes() if path.exists() else b""
    return data[:data.rfind(b"\n") + 1]


def read_results(path, columns):
    """The complete rows already in ``path`` (none when absent), checked against ``columns``."""
    path = Path(path)
    text = _complete_part(path)
    if not text:
        return pd.DataFrame(columns=list(columns))
    done = pd.read_csv(io.BytesIO(text), keep_default_na=False, na_values=[""])
    if list(done.columns) != list(columns):
        raise ValueError(
            f"{path} has columns {list(done.columns)}, not this study's {list(columns)}: "
            "give another --out."
        )
    return done


def append_results(path, columns, function, tasks, run_args):
    """Run the tasks, appending each row to ``path`` as it comes (after the header
    if the file is new; a partial last row is dropped first)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    complete = _complete_part(path)
    with open(path, "r+b" if complete else "wb") as fh:
        if complete:
            fh.truncate(len(complete))
            fh.seek(len(complete))
        else:
            fh.write(pd.DataFrame(columns=list(columns)).to_csv(index=False).encode())
        for row in run_grid(function, tasks, **run_args):
            fh.write(pd.DataFrame([row], columns=list(columns)).to_csv(index=False, header=False)
                     .encode())
            fh.flush()


def succeeded(results):
    """Mask of the rows without an error."""
    return results["error"].isna() | (results["error"].astype(str) == "")


def pending(tasks, done, keys):
    """The tasks without a successful row in ``done`` (matched on ``keys``)."""
    ok = done[succeeded(done)]
    finished = {tuple(str(v) for v in r) for r in ok[list(keys)].itertuples(index=False)}
    return [t for t in tasks if tuple(str(t[k]) for k in keys) not in finished]


def latest(results, keys):
    """One row per run: the last recorded (a retried failure is superseded)."""
    return results.drop_duplicates(subset=list(keys), keep="last")


# -- the benchmark ----------------------------------------------------------------------------

def run_benchmark(data_dir: str | os.PathLike[str] | None,
                  splits_dir: str | os.PathLike[str] | None, out: str | os.PathLike[str],
                  datasets: Sequence[str] | None = None,
                  methods: Sequence[str] = DEFAULT_METHODS, splits: Iterable[int] = range(1, 11),
                  class_column: str = "answer", levels_dir: str | os.PathLike[str] | None = None,
                  seed: int = 2020, rng: str = "numpy", n_jobs: int = 1, backend: str = "loky",
                  scheduler: str | None = None) -> pd.DataFrame:
    """Run (or resume) the grid and return every recorded row.

    Parameters mirror the command-line options (see the module docstring);
    ``data_dir`` and ``splits_dir`` None (both) run on the shipped data
    sets and splits; ``datasets`` defaults to :data:`PAPER_DATASETS` (those
    found in ``data_dir``).

    Returns
    -------
    pandas.DataFrame
        The rows of ``out``, one per run.
    """
    unknown = [m for m in methods if m not in METHODS]
    if unknown:
        raise ValueError(f"unknown method(s) {unknown}; choose among {list(METHODS)}.")
    if rng not in ("numpy", "R"):
        raise ValueError(f"`rng` must be 'numpy' or 'R'; got {rng!r}.")
    if (data_dir is None) != (splits_dir is None):
        raise ValueError("`data_dir` and `splits_dir` go together: give both, or neither for "
                         "the shipped data sets and splits.")
    shipped = data_dir is None
    if datasets is None and shipped:
        datasets = list(PAPER_DATASETS)
    elif datasets is None:
        datasets = [d for d in PAPER_DATASETS if (Path(data_dir) / f"{d}.csv").exists()]
        if not datasets:
            raise FileNotFoundError(
                f"none of the paper's datasets is in {data_dir}; name the ones to run "
                "(`datasets`, --datasets on the command line)."
            )
    elif shipped:
        known = shipped_data.names(benchmark=True)
        missing = [d for d in datasets if d not in known]
        if missing:
            raise ValueError(f"{missing} are not among the shipped data sets {known}.")
    common = dict(data_dir=None if shipped else str(data_dir),
                  splits_dir=None if shipped else str(splits_dir), class_column=class_column,
                  levels_dir=None if levels_dir is None else str(levels_dir), seed=seed, rng=rng)
    tasks = [dict(common, dataset=d, split=int(s), method=m)
             for d in datasets for s in splits for m in methods]
    keys = ("dataset", "split", "method")
    todo = pending(tasks, read_results(out, COLUMNS), keys)
    append_results(out, COLUMNS, benchmark_task, todo,
                   dict(n_jobs=n_jobs, backend=backend, scheduler=scheduler, label="benchmark"))
    return latest(read_results(out, COLUMNS), keys)


def summarise(results: pd.DataFrame, stat: str = "accuracy") -> pd.DataFrame:
    """Median of ``stat`` over splits: datasets in rows, methods in columns, and a mean row.

    Examples
    --------
    >>> import pandas as pd
    >>> from pystagedtrees.study.benchmark import summarise
    >>> r = pd.DataFrame({"dataset": ["a", "a", "b"], "split": [1, 2, 1],
    ...                   "method": ["m"] * 3, "accuracy": [0.5, 0.7, 0.9]})
    >>> summarise(r).round(2).to_dict()
    {'m': {'a': 0.6, 'b': 0.9, 'mean': 0.75}}
    """
    table = results.pivot_table(index="dataset", columns="method", values=stat, aggfunc="median")
    table.columns.name = None
    table.index.name = None
    table.loc["mean"] = table.mean(axis=0)
    return table


FIGURE_GROUPS = {
    "kdb": ("st_bhc_3db", "st_bhc_5db", "bnc_3db", "bnc_5db"),
    "tan": ("st_bhc_tan_cl", "st_bhc_tan_hc", "bnc_tan_cl", "bnc_tan_hc"),
    "staged": ("st_bhc_tan_cl", "st_bhc_tan_hc", "st_bhc_3db", "st_bhc_5db",
               "st_kmeans_cmi", "st_hclust_cmi"),
}
"""Methods side by side in the paper's figures (refined staged trees next to their classifiers)."""


FAMILIES = ("tan_cl", "tan_hc", "3db", "5db", "nb", "kmeans_cmi", "hclust_cmi")


def method_style(method):
    """Colour and marker of a method in every figure: a refinement in the dark
    shade of its classifier's colour, staged trees round, classifiers square."""
    from matplotlib import colormaps

    staged = method.startswith("st_")
    family = method.removeprefix("st_bhc_").removeprefix("st_").removeprefix("bnc_")
    shade = 2 * FAMILIES.index(family) + (0 if staged else 1)
    return dict(color=colormaps["tab20"].colors[shade % 20], marker="o" if staged else "s")


def _dodged_panel(ax, medians, methods, datasets, log):
    width = 0.8 / max(len(methods), 1)
    for j, method in enumerate(methods):
        x = np.arange(len(datasets)) - 0.4 + width * (j + 0.5)
        ax.plot(x, medians.reindex(index=datasets)[method].to_numpy(), ls="none", ms=5,
                label=method, **method_style(method))
    if log:
        ax.set_yscale("log")
    ax.set_xticks(np.arange(len(datasets)))
    ax.grid(True, axis="y", alpha=0.3)


def plot_benchmark(results: pd.DataFrame, out_dir: str | os.PathLike[str],
                   prefix: str = "benchmark") -> list[Path]:
    """Write the figures of the benchmark as PNG files; returns their paths.

    For each group of ``FIGURE_GROUPS`` with a method in ``results``:
    ``<prefix>_accuracy_<group>.png`` (median accuracy and fit seconds per
    dataset) and ``<prefix>_scores_<group>.png`` (balanced accuracy, F1,
    precision); for all the methods run, ``<prefix>_accuracy_all.png``
    and ``<prefix>_time.png``.
    """
    from matplotlib.figure import Figure  # lazy: plotting is optional

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    ok = results[succeeded(results)]
    present = list(dict.fromkeys(ok["method"]))
    datasets = sorted(set(ok["dataset"]), key=str.lower)
    groups = {name: [m for m in methods if m in present] for name, methods in FIGURE_GROUPS.items()}
    groups["all"] = present
    paths = []
    for name, methods in groups.items():
        if not methods:
            continue
        for kind, stats in (("accuracy", ("accuracy", "fit_seconds")),
                            ("scores", ("balanced_accuracy", "f1", "precision"))):
            if name == "all" and kind == "scores":
                continue
            fig = Figure(figsize=(max(6, 0.6 * len(datasets) + 2), 2.2 * len(stats) + 1))
            axes = fig.subplots(len(stats), 1, sharex=True, squeeze=False)[:, 0]
            for ax, stat in zip(axes, stats):
                medians = ok.pivot_table(index="dataset", columns="method", values=stat,
                                         aggfunc="median")
                _dodged_panel(ax, medians, methods, datasets, log=stat == "fit_seconds")
                ax.set_ylabel("fit seconds" if stat == "fit_seconds" else stat.replace("_", " "))
            axes[-1].set_xticklabels(datasets, rotation=60, ha="right", fontsize=8)
            axes[0].legend(ncol=min(len(methods), 4), fontsize=7, loc="lower left",
                           bbox_to_anchor=(0, 1.02))
            fig.suptitle(f"median over splits ({name})", fontsize=9, y=0.995)
            path = out_dir / f"{prefix}_{kind}_{name}.png"
            fig.savefig(path, dpi=110, bbox_inches="tight")
            paths.append(path)
    fig = Figure(figsize=(7, 0.35 * len(datasets) * max(1, len(present) / 4) + 1.5))
    ax = fig.subplots()
    medians = ok.pivot_table(index="dataset", columns="method", values="fit_seconds",
                             aggfunc="median")
    height = 0.8 / max(len(present), 1)
    for j, method in enumerate(present):
        y = np.arange(len(datasets)) - 0.4 + height * (j + 0.5)
        ax.plot(medians.reindex(index=datasets)[method].to_numpy(), y, ls="none", ms=5,
                label=method, **method_style(method))
    ax.set_xscale("log")
    ax.set_yticks(np.arange(len(datasets)))
    ax.set_yticklabels(datasets, fontsize=8)
    ax.set_xlabel("median fit seconds")
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    path = out_dir / f"{prefix}_time.png"
    fig.savefig(path, dpi=110, bbox_inches="tight")
    paths.append(path)
    return paths


# -- command line ----------------------------------------------------------------------------

def positive_int(text):
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer; got {value}")
    return value


def add_grid_arguments(parser, default_seed):
    """Options shared by the studies: methods' randomness and where the work runs."""
    parser.add_argument("--rng", choices=("numpy", "R"), default="numpy",
                        help="random draws of the learners: numpy, or R's after set.seed(--seed)")
    parser.add_argument("--seed", type=int, default=default_seed,
                        help=f"seed of everything random (default: {default_seed})")
    parser.add_argument("--n-jobs", type=int, default=-1,
                        help="parallel workers, -1 for one per core (default: -1)")
    parser.add_argument("--backend", choices=("loky", "threading", "sequential", "dask"),
                        default="loky", help="where the runs go (default: loky processes)")
    parser.add_argument("--scheduler", default=None,
                        help="address of a Dask scheduler (with --backend dask)")
    parser.add_argument("--figures-dir", type=Path, default=None,
                        help="directory of the PNG figures (default: next to --out)")
    parser.add_argument("--no-figures", action="store_true", help="do not draw figures")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register the options of the ``benchmark`` study on ``parser``.

    Examples
    --------
    >>> from pystagedtrees.study.benchmark import add_arguments
    >>> import argparse
    >>> parser = argparse.ArgumentParser()
    >>> add_arguments(parser)
    >>> args = parser.parse_args(["--data-dir", "d", "--splits-dir", "s", "--out", "r.csv"])
    >>> args.splits, len(args.methods), args.backend
    ([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 8, 'loky')
    """
    parser.add_argument("--data-dir", type=Path, default=None,
                        help="directory of <name>.csv files (default: the papers' data sets, "
                             "shipped with the package)")
    parser.add_argument("--splits-dir", type=Path, default=None,
                        help="directory of <name>_test_ids.csv files (with --data-dir; default: "
                             "the papers' splits, shipped)")
    parser.add_argument("--out", type=Path, required=True,
                        help="results CSV, appended to (an interrupted run resumes)")
    parser.add_argument("--datasets", nargs="+", default=None,
                        help="dataset names (default: the paper's 14 binary datasets)")
    parser.add_argument("--methods", nargs="+", choices=METHODS, default=list(DEFAULT_METHODS),
                        metavar="METHOD",
                        help=f"methods among {', '.join(METHODS)} (default: the paper's eight)")
    parser.add_argument("--splits", nargs="+", type=positive_int, default=list(range(1, 11)),
                        help="split numbers (default: 1 to 10)")
    parser.add_argument("--class-column", default="answer", help="class column (default: answer)")
    parser.add_argument("--levels-dir", type=Path, default=None,
                        help="directory of <name>.json files with R's level order")
    add_grid_arguments(parser, default_seed=2020)


def figure_dir(args):
    return args.figures_dir if args.figures_dir is not None else args.out.parent


def run(args: argparse.Namespace) -> int:
    """Run the benchmark with parsed command-line ``args``; returns the exit status."""
    start = time.perf_counter()
    results = run_benchmark(
        args.data_dir, args.splits_dir, args.out, datasets=args.datasets, methods=args.methods,
        splits=args.splits, class_column=args.class_column, levels_dir=args.levels_dir,
        seed=args.seed, rng=args.rng, n_jobs=args.n_jobs, backend=args.backend,
        scheduler=args.scheduler,
    )
    seconds = time.perf_counter() - start
    failed = results[~succeeded(results)]
    written = [args.out]
    with pd.option_context("display.width", 200, "display.max_columns", 50):
        for stat in ("accuracy", "fit_seconds"):
            table = summarise(results, stat)
            print(f"\nmedian {stat} over splits:")
            print(table.to_string(float_format="{:.4f}".format))
            written.append(args.out.with_name(f"{args.out.stem}_{stat}_median.csv"))
            table.to_csv(written[-1])
    print(f"\n{len(results)} runs recorded in {args.out}; this session took {seconds:.1f} s.")
    if len(failed):
        print(f"{len(failed)} run(s) failed, e.g. {failed.iloc[0]['method']} on "
              f"{failed.iloc[0]['dataset']}: {failed.iloc[0]['error']}")
    if not args.no_figures:
        for path in plot_benchmark(results, figure_dir(args), prefix=args.out.stem):
            print(f"figure: {path}")
            written.append(path)
    record = write_run_record(args.out.with_name(f"{args.out.stem}_run.json"), "benchmark", args,
                              time.perf_counter() - start, written)
    print(f"run record: {record}")
    return 0 if failed.empty else 1
