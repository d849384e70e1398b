"""Staged trees and a TAN classifier learned from Parquet files on a Dask cluster.

Writes ``--rows`` rows x ``--variables`` categorical variables as Parquet
files of ``--partition-rows`` rows each (generated file by file, never whole
in memory), then on a ``LocalCluster`` of ``--workers`` worker processes:

1. ``full`` over the first ``--tree-variables`` variables (the counting),
   ``stages_fbhc``, and ``predict`` of every row's first variable written back
   to Parquet;
2. ``BNClassifier("tan_cl")`` of the first variable from all the others (all
   the pair tables counted), and ``predict_proba`` of every row to Parquet.

Reports rows per second per worker and each worker's peak memory (its
resident set, read from the worker processes after the run), and with
``--pandas`` the same steps on the whole data in memory, for the ratio.

    python benchmarks/bench_dask.py --rows 10_000_000 --pandas [--repeat 2]
"""
import argparse
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _common import markdown_output  # noqa: E402

import pystagedtrees as st  # noqa: E402
from pystagedtrees.bnc import BNClassifier  # noqa: E402


def variable_names(p):
    return [f"V{j:02d}" for j in range(p)]


def write_parquet(folder, rows, partition_rows, p, k, seed=0):
    """``rows`` rows of a chain (each variable copies the previous one 60% of the
    time), file by file; returns the levels of every variable."""
    names = variable_names(p)
    levels = [f"l{a}" for a in range(k)]
    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True, exist_ok=True)
    for part, start in enumerate(range(0, rows, partition_rows)):
        n = min(partition_rows, rows - start)
        codes = np.empty((n, p), dtype=np.int8)
        codes[:, 0] = rng.integers(0, k, n)
        for j in range(1, p):
            copy = rng.random(n) < 0.6
            codes[:, j] = np.where(copy, codes[:, j - 1], rng.integers(0, k, n))
        frame = pd.DataFrame({v: pd.Categorical.from_codes(codes[:, j], levels)
                              for j, v in enumerate(names)})
        frame.to_parquet(folder / f"part-{part:05d}.parquet", index=False)
    return {v: levels for v in names}


def peak_memory_mb():
    """This process's peak resident set, in MB (Linux reports KB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _import_package():
    import pystagedtrees  # noqa: F401


REPEAT = 1  # best of this many runs of each step (--repeat)
CLIENT = None  # the Dask client while the Dask steps run


def _scheduler_task_count(dask_scheduler):
    return len(dask_scheduler.tasks)


def wait_until_forgotten():
    """Wait until the cluster has forgotten the tasks of the previous run: a
    result still in memory under the same key would be reused, not recomputed."""
    deadline = time.perf_counter() + 10
    while CLIENT is not None and CLIENT.run_on_scheduler(_scheduler_task_count) \
            and time.perf_counter() < deadline:
        time.sleep(0.01)


def timed(label, results, function):
    """``function()``, its best wall time of ``REPEAT`` runs recorded under ``label``."""
    best = np.inf
    for _ in range(REPEAT):
        wait_until_forgotten()
        start = time.perf_counter()
        out = function()
        best = min(best, time.perf_counter() - start)
    results[label] = best
    return out


def run_dask(folder, out, levels, tree_variables, workers):
    import dask.dataframe as dd
    from distributed import Client, LocalCluster

    times = {}
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        global CLIENT
        CLIENT = client
        client.run(_import_package)  # as in the pandas process: imported before timing
        # the levels are known (the writer's): no pass over the data to find them;
        # the files' dictionary columns read as categoricals, whose codes the
        # dtype keeps (the same categories)
        ddf = dd.read_parquet(folder).astype({v: pd.CategoricalDtype(lev)
                                              for v, lev in levels.items()})
        names = list(levels)
        # the workers' first read of Parquet loads its readers: not the counting's time
        ddf.get_partition(0).map_partitions(len).compute()
        model = timed("count (full)", times, lambda: st.full(ddf, order=tree_variables,
                                                             lambda_=1))
        model = timed("stages_fbhc", times, lambda: st.stages_fbhc(model))
        labels = st.predict(model, ddf[tree_variables], class_=tree_variables[0])
        timed("predict -> Parquet", times,
              lambda: labels.to_frame().to_parquet(out / "staged", write_index=False))
        clf = timed("tan_cl fit", times,
                    lambda: BNClassifier("tan_cl").fit(ddf[names[1:]], ddf[names[0]]))
        proba = clf.predict_proba(ddf[names[1:]])
        proba.columns = [str(c) for c in proba.columns]
        timed("predict_proba -> Parquet", times,
              lambda: proba.to_parquet(out / "tan", write_index=False))
        memory = list(client.run(peak_memory_mb).values())
        CLIENT = None
    return times, memory


def run_pandas(folder, out, tree_variables):
    times = {}
    data = timed("read Parquet", times, lambda: pd.read_parquet(folder))
    names = list(data.columns)
    model = timed("count (full)", times, lambda: st.full(data, order=tree_variables, lambda_=1))
    model = timed("stages_fbhc", times, lambda: st.stages_fbhc(model))
    timed("predict -> Parquet", times, lambda: pd.DataFrame(
        {"label": st.predict(model, data[tree_variables], class_=tree_variables[0])}
    ).to_parquet(out / "staged.parquet", index=False))
    clf = timed("tan_cl fit", times,
                lambda: BNClassifier("tan_cl").fit(data[names[1:]], data[names[0]]))
    timed("predict_proba -> Parquet", times, lambda: pd.DataFrame(
        clf.predict_proba(data[names[1:]]), columns=[str(c) for c in clf.classes_]
    ).to_parquet(out / "tan.parquet", index=False))
    return times, peak_memory_mb()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=lambda s: int(s.replace("_", "")), default=100_000_000)
    parser.add_argument("--partition-rows", type=lambda s: int(s.replace("_", "")),
                        default=1_000_000)
    parser.add_argument("--variables", type=int, default=20)
    parser.add_argument("--levels", type=int, default=3)
    parser.add_argument("--tree-variables", type=int, default=8,
                        help="variables of the staged tree (its first ones)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--dir", type=Path, default=None, help="where to write (default: temp)")
    parser.add_argument("--pandas", action="store_true",
                        help="also run the in-memory pandas path (needs the data in memory)")
    parser.add_argument("--repeat", type=int, default=1,
                        help="time each step as the best of this many runs")
    args = parser.parse_args(argv)
    global REPEAT
    REPEAT = args.repeat
    root = args.dir or Path(tempfile.mkdtemp(prefix="bench_dask_"))
    folder, out = root / "data", root / "out"
    shutil.rmtree(root, ignore_errors=True)
    out.mkdir(parents=True)
    start = time.perf_counter()
    levels = write_parquet(folder, args.rows, args.partition_rows, args.variables, args.levels)
    print(f"wrote {args.rows:,} rows x {args.variables} variables in "
          f"{time.perf_counter() - start:.1f} s ({args.partition_rows:,} rows per file)")
    tree_variables = list(levels)[: args.tree_variables]
    times, memory = run_dask(folder, out, levels, tree_variables, args.workers)
    pandas_times = run_pandas(folder, out, tree_variables) if args.pandas else None
    print(f"\n{'step':<26}{'dask s':>9}{'rows/s/worker':>16}"
          + (f"{'pandas s':>10}{'ratio':>8}" if pandas_times else ""))
    for step, seconds in times.items():
        rate = args.rows / seconds / args.workers
        line = f"{step:<26}{seconds:>9.2f}{rate:>16,.0f}"
        if pandas_times:
            line += f"{pandas_times[0][step]:>10.2f}{seconds / pandas_times[0][step]:>8.2f}"
        print(line)
    print("peak memory per worker (MB): " + ", ".join(f"{m:.0f}" for m in memory))
    if pandas_times:
        print(f"pandas: read {pandas_times[0]['read Parquet']:.2f} s, "
              f"peak memory {pandas_times[1]:.0f} MB")
    shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    with markdown_output(__doc__):
        main()
