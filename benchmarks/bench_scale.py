"""Scale: full(), sevt_fit() and predict() on many binary variables and rows.

Run: python benchmarks/bench_scale.py [--vars 20 40 63] [--rows 100000 1000000]
                                      [--before PATH] [--repeat N] [--output FILE]
Each size draws independent binary columns (numpy seed 0); predict() reads the
same rows without the root (the class), with prob=True and with labels.  With
``--before PATH`` (another checkout, e.g. main, built in place) the same sizes
are timed there too, one size after the other in both, and the table gives
the ratios before / after.  Targets (issue 32): class posteriors at 5 million
rows/s per core on 20 variables, 1 million rows/s at 63 to 100 variables.
"""
import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from _common import markdown_output

TIMED = ("full", "sevt_fit", "predict_prob", "predict")


def binary_data(n_vars, n_rows):
    rng = np.random.default_rng(0)
    return pd.DataFrame({f"V{j}": pd.Categorical.from_codes(rng.integers(0, 2, n_rows), ["0", "1"])
                         for j in range(n_vars)})


def best_of(repeat, func):
    best, result = np.inf, None
    for _ in range(repeat):
        start = time.perf_counter()
        result = func()
        best = min(best, time.perf_counter() - start)
    return best, result


def time_size(n_vars, n_rows, repeat):
    """Seconds of each timed call on one size, in the package this process imports."""
    import pystagedtrees as st

    data = binary_data(n_vars, n_rows)
    rows = data.drop(columns="V0")
    seconds = {}
    seconds["full"], model = best_of(repeat, lambda: st.full(data, lambda_=1))
    seconds["sevt_fit"], _ = best_of(repeat, lambda: st.sevt_fit(model, data, lambda_=1))
    seconds["predict_prob"], _ = best_of(repeat, lambda: st.predict(model, rows, prob=True))
    seconds["predict"], _ = best_of(repeat, lambda: st.predict(model, rows))
    return seconds


def time_in(checkout, n_vars, n_rows, repeat):
    """:func:`time_size` run in a fresh process importing ``checkout``'s package."""
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    command = [sys.executable, __file__, "--one", str(n_vars), str(n_rows), "--repeat", str(repeat)]
    done = subprocess.run(command, env=env, cwd=checkout, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vars", type=int, nargs="+", default=[20, 40, 63])
    parser.add_argument("--rows", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--before", type=Path, help="another checkout to compare with")
    parser.add_argument("--one", type=int, nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:  # a child process: one size, as JSON
        print(json.dumps(time_size(*args.one, args.repeat)))
        return
    here = Path(__file__).resolve().parents[1]
    header = f"{'vars':>4s} {'rows':>9s} {'call':>12s} {'after s':>9s} {'rows/s':>11s}"
    print(header + (f" {'before s':>9s} {'ratio':>7s}" if args.before else ""))
    for n_rows in args.rows:
        for n_vars in args.vars:
            after = time_in(here, n_vars, n_rows, args.repeat)
            before = time_in(args.before.resolve(), n_vars, n_rows, args.repeat) if args.before else None
            for call in TIMED:
                line = f"{n_vars:4d} {n_rows:9,d} {call:>12s} {after[call]:9.3f}"
                line += f" {n_rows / after[call]:11,.0f}" if call.startswith("predict") else f" {'':>11s}"
                if before:
                    line += f" {before[call]:9.3f} {before[call] / after[call]:6.1f}x"
                print(line, flush=True)


if __name__ == "__main__":
    with markdown_output(__doc__):
        main()
