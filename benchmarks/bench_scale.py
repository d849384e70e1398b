"""Scale: full(), sevt_fit() and predict() on many binary variables and rows.

Run: python benchmarks/bench_scale.py [--vars 20 40 63 100] [--rows 100000 1000000]
                                      [--before PATH] [--repeat N] [--output FILE]
Each size draws independent binary columns (numpy seed 0); predict() reads the
same rows without the root (the class), with prob=True and with labels.  Each
call reports its wall seconds (best of the repeats), its CPU seconds (of that
best run; rows per CPU second stay meaningful on a shared machine) and the
process's peak resident memory after it; the repeats of predict() reuse the
tables the first call built for the model; ``B/sit`` is the
peak after full() over the situations the full tree holds (all variables).
Past 63 binary variables the tree numbers its deep situations by the observed
paths (a checkout without that refuses the size: shown as "refused").  With
``--before PATH`` (another checkout, e.g. main, built in place) the same sizes
are timed there too, one size after the other in both, and the table gives
the ratios before / after of the CPU seconds (steadier than wall seconds on a
shared machine).  Targets (issue 32): class posteriors at 5 million
rows/s per core on 20 variables, 1 million rows/s at 63 to 100 variables.
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

if "BENCH_CHECKOUT" in os.environ:  # a child timing a checkout: its package, imported
    sys.path.insert(0, os.environ["BENCH_CHECKOUT"])  # before _common puts this one first
    import pystagedtrees  # noqa: F401

from _common import markdown_output  # noqa: E402

TIMED = ("full", "sevt_fit", "predict_prob", "predict")


def binary_data(n_vars, n_rows):
    rng = np.random.default_rng(0)
    return pd.DataFrame({f"V{j}": pd.Categorical.from_codes(rng.integers(0, 2, n_rows), ["0", "1"])
                         for j in range(n_vars)})


def peak_rss_gb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6  # kB on Linux


def best_of(repeat, func):
    """(wall seconds, CPU seconds, peak RSS in GB after it) of the fastest of
    ``repeat`` calls, and its result."""
    best, result = (np.inf, np.inf, 0.0), None
    for _ in range(repeat):
        result = None  # one model at a time in memory
        start, cpu = time.perf_counter(), time.process_time()
        result = func()
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
        if wall < best[0]:
            best = (wall, cpu, peak_rss_gb())
    return best, result


def time_size(n_vars, n_rows, repeat):
    """Seconds of each timed call on one size, in the package this process imports."""
    import pystagedtrees as st

    data = binary_data(n_vars, n_rows)
    rows = data.drop(columns="V0")
    out = {}
    try:
        out["full"], model = best_of(repeat, lambda: st.full(data, lambda_=1))
    except ValueError:  # past what that checkout indexes
        return None
    n_situations = sum(len(model.observed_situations(i)) for i in range(n_vars))
    out["bytes_per_situation"] = out["full"][2] * 1e9 / n_situations
    out["sevt_fit"], refit = best_of(repeat, lambda: st.sevt_fit(model, data, lambda_=1))
    del refit  # not held while predict() runs
    out["predict_prob"], _ = best_of(repeat, lambda: st.predict(model, rows, prob=True))
    out["predict"], _ = best_of(repeat, lambda: st.predict(model, rows))
    return out


def time_in(checkout, n_vars, n_rows, repeat):
    """:func:`time_size` run in a fresh process importing ``checkout``'s package."""
    env = {**os.environ, "BENCH_CHECKOUT": str(checkout)}
    command = [sys.executable, __file__, "--one", str(n_vars), str(n_rows), "--repeat", str(repeat)]
    done = subprocess.run(command, env=env, cwd=checkout, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vars", type=int, nargs="+", default=[20, 40, 63, 100])
    parser.add_argument("--rows", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--before", type=Path, help="another checkout to compare with")
    parser.add_argument("--one", type=int, nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:  # a child process: one size, as JSON
        print(json.dumps(time_size(*args.one, args.repeat)))
        return
    here = Path(__file__).resolve().parents[1]
    header = (f"{'vars':>4s} {'rows':>9s} {'call':>12s} {'after s':>9s} {'CPU s':>7s} "
              f"{'peak GB':>7s} {'B/sit':>6s} {'rows/s':>11s} {'rows/CPU s':>11s}")
    print(header + (f" {'before s':>9s} {'CPU s':>7s} {'CPU ratio':>9s}" if args.before else ""))
    for n_rows in args.rows:
        for n_vars in args.vars:
            after = time_in(here, n_vars, n_rows, args.repeat)
            before = time_in(args.before.resolve(), n_vars, n_rows, args.repeat) if args.before else None
            for call in TIMED:
                if after is None:
                    print(f"{n_vars:4d} {n_rows:9,d} {call:>12s} {'refused':>9s}", flush=True)
                    continue
                wall, cpu, peak = after[call]
                per_sit = after["bytes_per_situation"] if call == "full" else None
                line = (f"{n_vars:4d} {n_rows:9,d} {call:>12s} {wall:9.3f} {cpu:7.2f} {peak:7.2f} "
                        + (f"{per_sit:6.0f}" if per_sit else f"{'':>6s}"))
                line += (f" {n_rows / wall:11,.0f} {n_rows / cpu:11,.0f}" if call.startswith("predict")
                         else f" {'':>11s} {'':>11s}")
                if args.before:
                    line += (f" {'refused':>9s}" if before is None else
                             f" {before[call][0]:9.3f} {before[call][1]:7.2f} "
                             f"{before[call][1] / cpu:8.1f}x")
                print(line, flush=True)


if __name__ == "__main__":
    with markdown_output(__doc__):
        main()
