"""Time of the full benchmark study of Leonelli & Varando (2024) beside R's recorded seconds.

Run: python benchmarks/bench_study.py [--n-jobs 2] [--rng numpy|R] [--keep DIR]

The grid of the paper: its 14 binary datasets (all in the shared data), the
8 methods of Figures 16-17 (``st_bhc_{tan_cl,tan_hc,3db,5db}`` and
``bnc_{tan_cl,tan_hc,3db,5db}``) and the 10 splits, run by
``python -m pystagedtrees.study benchmark`` machinery into a fresh results
file (figures included).  Target (issue 7): under 10 minutes on 2 cores.

R's seconds exist for split 1 only (reference/r/<name>.json and
wrappers/<name>.json: the classifier learners, and stages_bhc on their
staged trees); the table sets our split-1 fit seconds beside them per
method and gives R's split-1 total times 10 as an estimate of R's grid.
"""
import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from _common import (
    DATA_DIR,
    REFERENCE_DIR,
    SPLITS_DIR,
    markdown_output,
    r_timing,
    shared_datasets,
)

from pystagedtrees.study.benchmark import (
    DEFAULT_METHODS,
    PAPER_DATASETS,
    plot_benchmark,
    run_benchmark,
    succeeded,
    summarise,
)


def r_split_one_seconds(name):
    """R's seconds on split 1 per method: the learner, plus for a refinement stages_bhc
    (and, for tan_cl, as_sevt with sevt_fit, the only refinement where R timed them).
    NaN where R failed or has no record."""
    ref = json.loads((REFERENCE_DIR / f"{name}.json").read_text())
    path = REFERENCE_DIR / "wrappers" / f"{name}.json"
    wrappers = json.loads(path.read_text())["learners"] if path.exists() else {}

    def seconds(*records):
        times = [r_timing(record)[1] for record in records]
        return np.nan if None in times else sum(times)

    tan_cl = ref["bnc"].get("tan_cl_loglik")
    out = {"bnc_tan_cl": seconds(tan_cl),
           "st_bhc_tan_cl": seconds(tan_cl, ref["models"].get("sevt_tan_cl"),
                                    ref["models"].get("stages_bhc_tan_cl"))}
    for key, method in (("tan_hc", "tan_hc"), ("kdb3", "3db"), ("kdb5", "5db")):
        record = wrappers.get(key, {})
        out[f"bnc_{method}"] = seconds(record)
        out[f"st_bhc_{method}"] = seconds(record, record.get("refined"))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-jobs", type=int, default=2, help="joblib workers (default: 2)")
    parser.add_argument("--rng", choices=("numpy", "R"), default="numpy")
    parser.add_argument("--keep", type=Path, default=None,
                        help="directory for the results and figures (default: a temporary one)")
    args = parser.parse_args()
    datasets = [d for d in PAPER_DATASETS if d in shared_datasets()]
    if not datasets:
        sys.exit(f"none of the paper's datasets {list(PAPER_DATASETS)} is in {DATA_DIR}")
    with tempfile.TemporaryDirectory() as tmp:
        out_dir = args.keep if args.keep is not None else Path(tmp)
        out = out_dir / "paper_benchmark.csv"
        if out.exists():
            out.unlink()  # time the whole grid, not a resumed part
        start = time.perf_counter()
        results = run_benchmark(DATA_DIR, SPLITS_DIR, out, datasets=datasets,
                                methods=DEFAULT_METHODS, splits=range(1, 11),
                                levels_dir=REFERENCE_DIR, seed=2020, rng=args.rng,
                                n_jobs=args.n_jobs)
        grid_seconds = time.perf_counter() - start
        plot_benchmark(results, out_dir, prefix="paper_benchmark")
        total_seconds = time.perf_counter() - start

    failed = ~succeeded(results)
    print(f"grid: {len(datasets)} datasets x {len(DEFAULT_METHODS)} methods x 10 splits = "
          f"{len(results)} runs ({int(failed.sum())} failed), n_jobs={args.n_jobs}, rng={args.rng}")
    print(f"wall time: {grid_seconds:.1f} s for the runs, {total_seconds:.1f} s with the figures "
          f"(target < 600 s)\n")
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print("median accuracy over the 10 splits:")
        print(summarise(results, "accuracy").to_string(float_format="{:.3f}".format))

    split1 = results[results["split"] == 1].set_index(["dataset", "method"])["fit_seconds"]
    r_seconds = pd.DataFrame({d: r_split_one_seconds(d) for d in datasets}).T
    ours = split1.unstack("method").reindex(index=datasets, columns=r_seconds.columns)
    print("\nsplit 1, fit seconds summed over the datasets "
          "(R: as recorded, see r_split_one_seconds):")
    table = pd.DataFrame({"ours": ours.sum(), "R": r_seconds.sum()})
    table["R / ours"] = table["R"] / table["ours"]
    print(table.loc[list(DEFAULT_METHODS)].to_string(float_format="{:.3f}".format))
    print(f"\nsum of fit seconds, all splits: ours {results['fit_seconds'].sum():.1f} s; "
          f"R estimated from split 1 x 10: {10 * r_seconds.to_numpy().sum():.1f} s "
          "(R ran sequentially on one core; prediction not included on either side)")


if __name__ == "__main__":
    with markdown_output(__doc__):
        main()
