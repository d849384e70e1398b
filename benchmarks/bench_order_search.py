"""Benchmark: search_greedy and search_best with stages_bhc on the shared datasets.

R has no recorded timings for the order searches, so R is timed live (through
rpy2) when the R package stagedtrees is installed; otherwise only our times
are printed.  The searches run on the first ``--columns`` columns (the
dynamic programme makes p * 2^(p-1) learner calls).

Run: ``python benchmarks/bench_order_search.py [--columns 6] [--datasets A B ...]``.
"""
import argparse
import time

from _common import best_time, load_split, markdown_output, ratio, shared_datasets

import pystagedtrees as st
from pystagedtrees import compat


def r_seconds(search, data):
    """Wall time of the same search in R, or None without R's stagedtrees."""
    if not compat.has_r_package("stagedtrees"):
        return None
    from pystagedtrees.compat._session import r_context, ro

    with r_context():
        alg = ro.r("stagedtrees::stages_bhc")
    start = time.perf_counter()
    compat.r_call(search, data, alg=alg, convert_result=False)
    return time.perf_counter() - start


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--columns", type=int, default=6)
    parser.add_argument("--datasets", nargs="*", default=["PhDArticles", "chestSim500", "reinis"])
    args = parser.parse_args(argv)
    available = set(shared_datasets())
    print(f"{'dataset':<14}{'search':<15}{'ours (s)':>10}{'R (s)':>10}{'R/ours':>9}")
    for name in args.datasets:
        if name not in available:
            print(f"{name:<14}not in the shared data")
            continue
        train, _, _ = load_split(name)
        data = train.iloc[:, : args.columns]
        for search in ("search_greedy", "search_best"):
            ours, _ = best_time(lambda: getattr(st, search)(data, alg=st.stages_bhc), repeat=2)
            theirs = r_seconds(search, data)
            shown = "-" if theirs is None else f"{theirs:.2f}"
            print(f"{name:<14}{search:<15}{ours:>10.3f}{shown:>10}{ratio(theirs, ours):>9}")


if __name__ == "__main__":
    with markdown_output(__doc__):
        main()
