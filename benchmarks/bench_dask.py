"""Staged trees and a TAN classifier learned from Parquet files on a Dask cluster.

For each size given to ``--rows``, writes that many rows x ``--variables``
categorical variables as Parquet files of ``--partition-rows`` rows each
(generated file by file, never whole in memory), then on a fresh
``LocalCluster`` of ``--workers`` worker processes:

1. ``full`` over the first ``--tree-variables`` variables (the counting; the
   files read with ``dtype_backend="pyarrow"``, the levels passed as ``levels=``),
   ``stages_fbhc``, and ``predict`` of every row's first variable written back
   to Parquet;
2. ``BNClassifier("tan_cl")`` of the first variable from all the others (all
   the pair tables counted), and ``predict_proba`` of every row to Parquet.

Reports each step's wall seconds and CPU seconds (this process and the
workers together), rows per second per worker, and each worker's memory at
start-up (after importing the package) and its peak during the steps (the
peak resident set of its process), so that memory flat in the number of rows
shows.  Per worker: its CPU seconds, the share of the step's wall time it had
a task running (from Dask's task stream) and the rows it counts per second
of its CPU; and the CPU seconds other processes took from the machine during
the step (its load), which the wall-clock rates do not tell apart.  With
``--pandas``, the same steps on the smallest size's data in memory, and the
ratio of CPU seconds; and at that size one more Dask step, ``count
(persisted)``: ``full`` again from the files' columns held in the workers'
memory (``persist``, after the peak memory is read), which is compared with
the pandas count from memory, both without reading the files.

    python benchmarks/bench_dask.py --rows 10_000_000 100_000_000 --pandas [--repeat 2]
"""
import argparse
import os
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
    """This process's peak resident set, in MB: Linux's VmHWM, which a worker process
    starts afresh (``ru_maxrss`` keeps the peak of the process it was forked from)."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def cpu_seconds():
    """CPU seconds this process has used (user and system)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _import_package():
    import pystagedtrees  # noqa: F401


def _read_once(path, dtypes):
    """Read one Parquet file as the steps do, in this process (a worker): its first
    read imports and sets up Dask's and Arrow's Parquet readers (some 0.7 s), which
    would otherwise fall in the first timed step of every worker but the one that
    read a partition before."""
    import dask
    import dask.dataframe as dd

    with dask.config.set(scheduler="sync"):
        return (len(dd.read_parquet(path).astype(dtypes))
                + len(dd.read_parquet(path, dtype_backend="pyarrow")))


def machine_cpu_seconds():
    """CPU seconds all processes of the machine have used (Linux's /proc/stat: every
    state but idle and waiting for I/O), or NaN where it cannot be read."""
    try:
        with open("/proc/stat") as stat:
            fields = [int(x) for x in stat.readline().split()[1:]]
    except OSError:
        return float("nan")
    return (sum(fields[:8]) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")


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


def worker_cpu_seconds():
    """CPU seconds of each worker of the running cluster (none without one), by address."""
    return dict(sorted(CLIENT.run(cpu_seconds).items())) if CLIENT is not None else {}


def busy_seconds(task_stream, workers):
    """Seconds each worker (by address) had a task running, from Dask's task stream:
    the length of the union of its tasks' compute intervals (a stream may report
    overlapping ones, which a plain sum would count twice)."""
    spans = {w: [] for w in workers}
    for task in task_stream:
        spans.setdefault(task["worker"], []).extend(
            (s["start"], s["stop"]) for s in task["startstops"] if s["action"] == "compute")
    busy = {}
    for worker, intervals in spans.items():
        total, reach = 0.0, -np.inf
        for start, stop in sorted(intervals):
            if stop > reach:  # the part past what earlier intervals covered
                total += stop - max(start, reach)
                reach = stop
        busy[worker] = total
    return busy


class Step:
    """One run of a step: wall and CPU seconds (this process and the workers), and
    per worker its CPU seconds and its seconds running tasks; the CPU seconds the
    machine's other processes took meanwhile."""

    def __init__(self, function):
        wait_until_forgotten()
        workers_start, machine_start = worker_cpu_seconds(), machine_cpu_seconds()
        own_start, start = cpu_seconds(), time.perf_counter()
        self.busy = []
        if CLIENT is None:
            self.out = function()
        else:
            from distributed import get_task_stream

            with get_task_stream(client=CLIENT) as stream:
                self.out = function()
            self.busy = list(busy_seconds(stream.data, workers_start).values())
        self.wall = time.perf_counter() - start
        own = cpu_seconds() - own_start
        self.workers = [c - workers_start[w] for w, c in worker_cpu_seconds().items()]
        self.cpu = own + sum(self.workers)
        self.others = max(machine_cpu_seconds() - machine_start - self.cpu, 0.0)


def timed(label, results, function):
    """``function()``; its fastest of ``REPEAT`` runs (wall) recorded under ``label``
    as a :class:`Step`, with the least CPU seconds of the runs."""
    runs = [Step(function) for _ in range(REPEAT)]
    fastest = min(runs, key=lambda run: run.wall)
    fastest.cpu = min(run.cpu for run in runs)
    results[label] = fastest
    return fastest.out


def run_dask(folder, out, levels, tree_variables, workers, from_memory=False):
    """The Dask steps' times, and each worker's memory (MB) at start-up and at peak;
    ``from_memory``: also the count from the partitions persisted in the workers."""
    import dask.dataframe as dd
    from distributed import Client, LocalCluster, wait

    global CLIENT
    times = {}
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        client.run(_import_package)  # as in the pandas process: imported before timing
        # the levels are known (the writer's): no pass over the data to find them;
        # the files' dictionary columns read as categoricals, whose codes the
        # dtype keeps (the same categories)
        dtypes = {v: pd.CategoricalDtype(lev) for v, lev in levels.items()}
        start_up = list(client.run(peak_memory_mb).values())
        # each worker's first read of Parquet sets up its readers: not the counting's time
        client.run(_read_once, str(min(folder.glob("*.parquet"))), dtypes)
        CLIENT = client
        # the staged tree takes the levels as an argument: its columns stay Arrow
        # dictionaries, whose indices are the codes (no categorical made per
        # partition); the classifier wants categoricals of known categories
        arrow = dd.read_parquet(folder, dtype_backend="pyarrow")
        ddf = dd.read_parquet(folder).astype(dtypes)
        names = list(levels)
        tree_levels = {v: levels[v] for v in tree_variables}
        model = timed("count (full)", times, lambda: st.full(
            arrow, order=tree_variables, levels=tree_levels, lambda_=1))
        model = timed("stages_fbhc", times, lambda: st.stages_fbhc(model))
        labels = st.predict(model, arrow[tree_variables], class_=tree_variables[0])
        timed("predict -> Parquet", times,
              lambda: labels.to_frame().to_parquet(out / "staged", write_index=False))
        clf = timed("tan_cl fit", times,
                    lambda: BNClassifier("tan_cl").fit(ddf[names[1:]], ddf[names[0]]))
        proba = clf.predict_proba(ddf[names[1:]])
        proba.columns = [str(c) for c in proba.columns]
        timed("predict_proba -> Parquet", times,
              lambda: proba.to_parquet(out / "tan", write_index=False))
        peak = list(client.run(peak_memory_mb).values())
        if from_memory:  # after the peak: the data held in memory is not the steps' own
            # the whole frame: dask 2026.8 loses partitions of a persisted
            # column selection of read_parquet ("Missing dependency")
            held = arrow.persist()
            wait(held)
            timed("count (persisted)", times, lambda: st.full(
                held, order=tree_variables, levels=tree_levels, lambda_=1))
            del held
        CLIENT = None
    return times, start_up, peak


def step_columns(names, tree_variables):
    """The columns each step reads (a Dask step reads them from the files)."""
    return {"count (full)": tree_variables, "count (persisted)": [], "stages_fbhc": [],
            "predict -> Parquet": tree_variables, "tan_cl fit": names,
            "predict_proba -> Parquet": names[1:]}


def run_pandas(folder, out, tree_variables):
    """The pandas steps' times, each step's ``read`` (the CPU seconds of reading
    the columns it uses from the files, as its Dask step does) and the peak memory."""
    times = {}
    data = timed("read Parquet", times, lambda: pd.read_parquet(folder))
    names = list(data.columns)
    read = {}
    for step, columns in step_columns(names, tree_variables).items():
        if columns:
            timed(f"read {step}", times, lambda c=columns: pd.read_parquet(folder, columns=c))
        read[step] = times[f"read {step}"].cpu if columns else 0.0
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
    return times, read, peak_memory_mb()


PANDAS_STEP = {"count (persisted)": "count (full)"}
"""The pandas step a Dask step is compared with, where their names differ."""


def report(rows, workers, times, pandas_times, pandas_read):
    """The table of one size's steps; when pandas ran, its CPU seconds from the frame
    in memory, and with the read of the step's columns from the files (a Dask step
    reads them), each with the ratio Dask / pandas.  Then per worker its CPU seconds
    and the share of the wall time it ran tasks, the rows per CPU second of a worker
    (the rows over the workers' CPU seconds together), and the CPU seconds the
    machine's other processes took during the step."""
    print(f"\n{'step':<26}{'wall s':>8}{'CPU s':>8}{'rows/s/worker':>15}"
          + (f"{'pandas CPU s':>14}{'ratio':>7}{'+ read':>8}{'ratio':>7}"
             if pandas_times else ""))
    for step, run in times.items():
        line = f"{step:<26}{run.wall:>8.2f}{run.cpu:>8.2f}{rows / run.wall / workers:>15,.0f}"
        if pandas_times:
            alone = pandas_times[PANDAS_STEP.get(step, step)].cpu
            with_read = alone + pandas_read[step]
            line += (f"{alone:>14.2f}{run.cpu / alone:>7.2f}{with_read:>8.2f}"
                     f"{run.cpu / with_read:>7.2f}")
        print(line)
    print(f"\n{'step':<26}{'worker CPU s':>14}{'busy % of wall':>16}"
          f"{'rows/CPU s/worker':>19}{'others CPU s':>14}")
    for step, run in times.items():
        print(f"{step:<26}{', '.join(f'{c:.2f}' for c in run.workers):>14}"
              f"{', '.join(f'{100 * b / run.wall:.0f}' for b in run.busy):>16}"
              f"{rows / max(sum(run.workers), 1e-9):>19,.0f}{run.others:>14.2f}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=lambda s: int(s.replace("_", "")), nargs="+",
                        default=[10_000_000, 100_000_000], help="one or more data sizes")
    parser.add_argument("--partition-rows", type=lambda s: int(s.replace("_", "")),
                        default=1_000_000)
    parser.add_argument("--variables", type=int, default=20)
    parser.add_argument("--levels", type=int, default=3)
    parser.add_argument("--tree-variables", type=int, default=8,
                        help="variables of the staged tree (its first ones)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--dir", type=Path, default=None, help="where to write (default: temp)")
    parser.add_argument("--pandas", action="store_true",
                        help="also run the in-memory pandas path on the smallest size (needs "
                             "its data in memory)")
    parser.add_argument("--repeat", type=int, default=1,
                        help="time each step as the best of this many runs")
    args = parser.parse_args(argv)
    global REPEAT
    REPEAT = args.repeat
    root = args.dir or Path(tempfile.mkdtemp(prefix="bench_dask_"))
    memory = {}
    for rows in sorted(args.rows):
        folder, out = root / "data", root / "out"
        shutil.rmtree(root, ignore_errors=True)
        out.mkdir(parents=True)
        start = time.perf_counter()
        levels = write_parquet(folder, rows, args.partition_rows, args.variables, args.levels)
        print(f"\n#### {rows:,} rows\n\nwrote {rows:,} rows x {args.variables} variables in "
              f"{time.perf_counter() - start:.1f} s ({args.partition_rows:,} rows per file)")
        tree_variables = list(levels)[: args.tree_variables]
        with_pandas = args.pandas and rows == min(args.rows)
        times, start_up, peak = run_dask(folder, out, levels, tree_variables, args.workers,
                                         from_memory=with_pandas)
        pandas_times = pandas_read = None
        if with_pandas:
            pandas_times, pandas_read, pandas_peak = run_pandas(folder, out, tree_variables)
        report(rows, args.workers, times, pandas_times, pandas_read)
        memory[rows] = (start_up, peak)
        print("memory per worker (MB): at start-up " + ", ".join(f"{m:.0f}" for m in start_up)
              + "; peak " + ", ".join(f"{m:.0f}" for m in peak))
        if pandas_times:
            print(f"pandas: read {pandas_times['read Parquet'].wall:.2f} s wall, "
                  f"{pandas_times['read Parquet'].cpu:.2f} s CPU (all columns); "
                  f"peak memory {pandas_peak:.0f} MB")
    print(f"\n{'rows':>14}  peak memory per worker above start-up (MB)")
    for rows, (start_up, peak) in memory.items():
        print(f"{rows:>14,}  " + ", ".join(f"{p - s:.0f}" for s, p in zip(start_up, peak)))
    shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    with markdown_output(__doc__):
        main()
