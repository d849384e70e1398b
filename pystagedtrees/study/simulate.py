"""Staged tree and Bayesian network classifiers on simulated data (Leonelli & Varando 2024).

``python -m pystagedtrees.study simulate --out simulation.csv`` draws, for
each process, number of features ``p`` and repetition, a training and a
test set of binary features with a binary class ``answer``:

- ``random_sevt``: a random staged tree over the class and ``p`` binary
  features (``random_sevt(q=0.5)``), sampled; drawn again until the
  training set has both classes;
- ``linear``: ``generate_linear_dataset(p, eps=0, gamma=0)`` with weights
  uniform in (-1, 1);
- ``xor``: ``generate_xor_dataset(p, eps=1.2)``.

Every method of the benchmark study can run (default: the paper's
``st_bhc_3db``, ``st_bhc_tan_cl``, ``st_kmeans_cmi``, ``bnc_3db``,
``bnc_nb``, ``bnc_tan_hc``); each run records accuracy, F1 (and balanced
accuracy, precision) and the fit seconds.  Rows are appended to ``--out``
as they finish, so an interrupted run resumes; the work goes to joblib
workers or a Dask cluster as in the benchmark.  The figure plots the
median of accuracy, F1 and fit time against ``p``, one panel per process.
"""
from __future__ import annotations

import argparse
import os
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from pystagedtrees.study.benchmark import (
    METHODS,
    SCORES,
    add_grid_arguments,
    append_results,
    figure_dir,
    latest,
    method_style,
    pending,
    positive_int,
    read_results,
    succeeded,
    task_seed,
    timed_run,
)

__all__ = ["PROCESSES", "DEFAULT_METHODS", "simulate_data", "run_simulation",
           "plot_simulation", "add_arguments", "run"]

PROCESSES = ("random_sevt", "linear", "xor")
DEFAULT_METHODS = (
    "st_bhc_3db", "st_bhc_tan_cl", "st_kmeans_cmi", "bnc_3db", "bnc_nb", "bnc_tan_hc")
"""The methods of the paper's simulations."""

COLUMNS = ("process", "p", "repetition", "method", "n_train", "n_test") + SCORES + (
    "fit_seconds", "predict_seconds", "error")
KEYS = ("process", "p", "repetition", "method")
MAX_DRAWS = 100  # a random staged tree almost never gives a one-class training set


def _as_class_first(frame, class_column):
    """``answer`` first, every column categorical with its full level set."""
    frame = frame.rename(columns={class_column: "answer"})
    return frame[["answer"] + [c for c in frame.columns if c != "answer"]]


def _split(frame, n_train):
    return frame.iloc[:n_train].reset_index(drop=True), frame.iloc[n_train:].reset_index(drop=True)


def simulate_data(process: str, p: int, n_train: int, n_test: int,
                  seed: int | np.random.Generator) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A training and a test set of one process (class ``answer`` first).

    Parameters
    ----------
    process : {"random_sevt", "linear", "xor"}
    p : int
        Number of binary features.
    n_train, n_test : int
    seed : int or numpy.random.Generator

    Returns
    -------
    train, test : pandas.DataFrame

    Examples
    --------
    >>> from pystagedtrees.study.simulate import simulate_data
    >>> train, test = simulate_data("xor", 3, 50, 20, seed=1)
    >>> list(train.columns), len(test)
    (['answer', 'X1', 'X2', 'X3'], 20)
    """
    from pystagedtrees.random._random import (
        generate_linear_dataset,
        generate_xor_dataset,
        random_sevt,
        sample_from,
    )

    rng = np.random.default_rng(seed)
    n = n_train + n_test
    if process == "random_sevt":
        tree = {"answer": ["0", "1"], **{f"X{j + 1}": ["1", "2"] for j in range(p)}}
        for _ in range(MAX_DRAWS):
            model = random_sevt(tree, q=0.5, seed=rng)
            train = sample_from(model, n_train, seed=rng)
            if train["answer"].nunique() == 2:
                return train, sample_from(model, n_test, seed=rng)
        raise RuntimeError(f"no two-class training set in {MAX_DRAWS} random staged trees.")
    if process == "linear":
        data = generate_linear_dataset(p, n, eps=0, gamma=0, alpha=rng.uniform(-1, 1, p), seed=rng)
        return _split(_as_class_first(data, "C"), n_train)
    if process == "xor":
        data = generate_xor_dataset(p, n, eps=1.2, seed=rng)
        # sign(product + noise) is 0 with probability 0; drop such a row if it occurs
        return _split(_as_class_first(data, "C").dropna().reset_index(drop=True), n_train)
    raise ValueError(f"`process` must be one of {list(PROCESSES)}; got {process!r}.")


def simulation_task(task):
    """One process × p × repetition × method run (top level, for the workers)."""
    data_seed = task_seed(task["seed"], "numpy", task["process"], task["p"], task["repetition"])
    train, test = simulate_data(task["process"], task["p"], task["n_train"], task["n_test"],
                                data_seed)
    seed = task_seed(task["seed"], task["rng"], task["process"], task["p"], task["repetition"],
                     task["method"])
    row = {k: task[k] for k in KEYS}
    row.update(timed_run(task["method"], train, test, "answer", seed, task["rng"]))
    return row


def run_simulation(out: str | os.PathLike[str], processes: Sequence[str] = PROCESSES,
                   p_values: Iterable[int] = range(2, 16), repetitions: int = 100,
                   methods: Sequence[str] = DEFAULT_METHODS, n_train: int = 1000,
                   n_test: int = 1000, seed: int = 0, rng: str = "numpy", n_jobs: int = 1,
                   backend: str = "loky", scheduler: str | None = None) -> pd.DataFrame:
    """Run (or resume) the simulation grid; returns every recorded row.

    The data of a (process, p, repetition) cell depend on ``seed`` only,
    so every method sees the same training and test sets.
    """
    unknown = [m for m in methods if m not in METHODS]
    if unknown:
        raise ValueError(f"unknown method(s) {unknown}; choose among {list(METHODS)}.")
    bad = [q for q in processes if q not in PROCESSES]
    if bad:
        raise ValueError(f"unknown process(es) {bad}; choose among {list(PROCESSES)}.")
    if rng not in ("numpy", "R"):
        raise ValueError(f"`rng` must be 'numpy' or 'R'; got {rng!r}.")
    tasks = [dict(process=q, p=int(p), repetition=r, method=m, n_train=int(n_train),
                  n_test=int(n_test), seed=seed, rng=rng)
             for q in processes for p in p_values for r in range(1, repetitions + 1)
             for m in methods]
    todo = pending(tasks, read_results(out, COLUMNS), KEYS)
    append_results(out, COLUMNS, simulation_task, todo,
                   dict(n_jobs=n_jobs, backend=backend, scheduler=scheduler, label="simulation"))
    return latest(read_results(out, COLUMNS), KEYS)


def plot_simulation(results: pd.DataFrame,
                    path: str | os.PathLike[str]) -> str | os.PathLike[str]:
    """Median accuracy, F1 and fit seconds against ``p``: one column per process."""
    from matplotlib.figure import Figure  # lazy: plotting is optional

    ok = results[succeeded(results)]
    processes = [q for q in PROCESSES if q in set(ok["process"])]
    stats = ("accuracy", "f1", "fit_seconds")
    fig = Figure(figsize=(3.2 * max(len(processes), 1) + 1, 7))
    axes = fig.subplots(len(stats), max(len(processes), 1), sharex=True, squeeze=False)
    medians = ok.groupby(["process", "method", "p"])[list(stats)].median()
    for col, process in enumerate(processes):
        for row, stat in enumerate(stats):
            ax = axes[row, col]
            for method in dict.fromkeys(ok["method"]):
                if (process, method) in medians.index.droplevel("p"):
                    curve = medians.loc[(process, method)][stat]
                    style = method_style(method)
                    ax.plot(curve.index, curve.to_numpy(), color=style["color"],
                            marker=style["marker"], ms=3, label=method)
            if stat == "fit_seconds":
                ax.set_yscale("log")
            if row == 0:
                ax.set_title(process)
            if col == 0:
                ax.set_ylabel("fit seconds" if stat == "fit_seconds" else stat)
            ax.grid(True, alpha=0.3)
        axes[-1, col].set_xlabel("p")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=min(len(labels), 6), fontsize=7)
    fig.subplots_adjust(bottom=0.12)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110, bbox_inches="tight")
    return path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register the options of the ``simulate`` study on ``parser``.

    Examples
    --------
    >>> from pystagedtrees.study.simulate import add_arguments
    >>> import argparse
    >>> parser = argparse.ArgumentParser()
    >>> add_arguments(parser)
    >>> args = parser.parse_args(["--out", "sim.csv"])
    >>> args.p_values[0], args.p_values[-1], args.repetitions, args.n_train
    (2, 15, 100, 1000)
    """
    parser.add_argument("--out", type=Path, required=True,
                        help="results CSV, appended to (an interrupted run resumes)")
    parser.add_argument("--processes", nargs="+", choices=PROCESSES, default=list(PROCESSES),
                        help="data generating processes (default: all three)")
    parser.add_argument("--p-values", nargs="+", type=positive_int, default=list(range(2, 16)),
                        help="numbers of features (default: 2 to 15)")
    parser.add_argument("--repetitions", type=positive_int, default=100,
                        help="data sets per process and p (default: 100)")
    parser.add_argument("--n-train", type=positive_int, default=1000,
                        help="training rows (default: 1000)")
    parser.add_argument("--n-test", type=positive_int, default=1000,
                        help="test rows (default: 1000)")
    parser.add_argument("--methods", nargs="+", choices=METHODS, default=list(DEFAULT_METHODS),
                        metavar="METHOD",
                        help=f"methods among {', '.join(METHODS)} (default: the paper's six)")
    add_grid_arguments(parser, default_seed=0)


def run(args: argparse.Namespace) -> int:
    """Run the simulation study with parsed command-line ``args``; returns the exit status."""
    start = time.perf_counter()
    results = run_simulation(
        args.out, processes=args.processes, p_values=args.p_values, repetitions=args.repetitions,
        methods=args.methods, n_train=args.n_train, n_test=args.n_test, seed=args.seed,
        rng=args.rng, n_jobs=args.n_jobs, backend=args.backend, scheduler=args.scheduler,
    )
    seconds = time.perf_counter() - start
    failed = results[~succeeded(results)]
    table = results.pivot_table(index=["process", "p"], columns="method", values="accuracy",
                                aggfunc="median")
    table.columns.name = None
    with pd.option_context("display.width", 200, "display.max_columns", 50):
        print("median accuracy over repetitions:")
        print(table.to_string(float_format="{:.4f}".format))
    table.to_csv(args.out.with_name(f"{args.out.stem}_accuracy_median.csv"))
    print(f"\n{len(results)} runs recorded in {args.out}; this session took {seconds:.1f} s.")
    if len(failed):
        print(f"{len(failed)} run(s) failed, e.g. {failed.iloc[0]['method']} on "
              f"{failed.iloc[0]['process']} p={failed.iloc[0]['p']}: {failed.iloc[0]['error']}")
    if not args.no_figures:
        path = plot_simulation(results, figure_dir(args) / f"{args.out.stem}.png")
        print(f"figure: {path}")
    return 0 if failed.empty else 1
