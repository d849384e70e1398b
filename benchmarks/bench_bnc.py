"""Speed of the Bayesian network classifiers beside R bnclassify's recorded times.

Run: python benchmarks/bench_bnc.py
For every shared dataset (split 1): tan_cl + lp(smooth=1) against R's
``bnc.tan_cl_loglik.seconds``, and the wrappers tan_hc / kdb(kdbk=3) /
kdb(kdbk=5) (R's generator, seed 2020, as R ran them) against
``reference/r/wrappers/<name>.json``.  Then prediction of 1,000,000 rows with
a TAN.  Targets (issue 5): wrappers at least 20x faster than R; 1,000,000
TAN predictions under 1 s.  Times are the best of 3 wall-clock runs.
"""
import json
import time

import numpy as np
import pandas as pd
from _common import (
    REFERENCE_DIR,
    best_time,
    load_split,
    markdown_output,
    r_timing,
    ratio,
    shared_datasets,
)

import pystagedtrees.bnc as bnc


def _wrapper_calls(train):
    p = train.shape[1] - 1
    return {
        "tan_hc": lambda: bnc.tan_hc("answer", train, k=5, epsilon=0.01, smooth=1, rng="R",
                                     seed=2020),
        "kdb3": lambda: bnc.kdb("answer", train, k=5, kdbk=min(3, p), smooth=1, rng="R",
                                seed=2020),
        "kdb5": lambda: bnc.kdb("answer", train, k=5, kdbk=min(5, p), smooth=1, rng="R",
                                seed=2020),
    }


def _wrapper_records(name):
    """R's recorded wrapper runs of a dataset (none when it has no wrapper file)."""
    path = REFERENCE_DIR / "wrappers" / f"{name}.json"
    return json.loads(path.read_text())["learners"] if path.exists() else {}


def bench_learners():
    keys = ["tan_cl", "tan_hc", "kdb3", "kdb5"]
    print(f"{'dataset':24s}" + "".join(f" {k + ' s':>9s} {'R s':>7s} {'ratio':>6s}" for k in keys))
    ratios = {k: [] for k in keys}
    totals = {k: [0.0, 0.0] for k in keys}
    for name in shared_datasets():
        train, _, ref = load_split(name)
        wrappers = _wrapper_records(name)
        calls = {"tan_cl": lambda: bnc.lp(bnc.tan_cl("answer", train), train, smooth=1),
                 **_wrapper_calls(train)}
        records = {"tan_cl": ref["bnc"].get("tan_cl_loglik"),
                   **{key: wrappers.get(key) for key in keys[1:]}}
        cells = []
        for key in keys:
            shown, theirs, stopped = r_timing(records[key])
            try:
                ours, _ = best_time(calls[key])
            except ValueError:  # where R may fail too (e.g. kdb with one feature)
                cells.append(f" {'refused':>9s} {shown:>7s} {'-':>6s}")
                continue
            if theirs is not None and not stopped:
                ratios[key].append(theirs / ours)
                totals[key][0] += ours
                totals[key][1] += theirs
            cells.append(f" {ours:9.4f} {shown:>7s} {ratio(theirs, ours, stopped):>6s}")
        print(f"{name:24s}" + "".join(cells))
    print("median R/ours: " + ", ".join(f"{k} {np.median(v):.0f}x" for k, v in ratios.items() if v))
    print("all datasets, sum of R's times / sum of ours: " + ", ".join(
        f"{k} {totals[k][1] / totals[k][0]:.0f}x" for k in keys if totals[k][0]))


def bench_prediction(n_rows=1_000_000):
    # the dataset with the most features (its R record names them; no CSV read)
    name = max(shared_datasets(),
               key=lambda n: len(json.loads((REFERENCE_DIR / f"{n}.json").read_text())["order"]))
    train, test, _ = load_split(name)
    model = bnc.lp(bnc.tan_cl("answer", train), train, smooth=1)
    rows = test.drop(columns="answer")
    big = pd.concat([rows] * (n_rows // len(rows) + 1), ignore_index=True).iloc[:n_rows]
    t_prob, _ = best_time(lambda: bnc.predict(model, big, prob=True))
    t_label, _ = best_time(lambda: bnc.predict(model, big, seed=0))
    print(f"\nTAN ({name}, {len(model.features)} features): {n_rows:,} rows, "
          f"posteriors {t_prob:.3f} s, labels {t_label:.3f} s (target < 1 s)")
    codes = big.apply(lambda c: c.cat.codes).to_numpy(np.int32)
    start = time.perf_counter()
    bnc._predict.compute_log_joint(model, codes)
    print(f"  of which the log-joint kernel on pre-encoded codes: "
          f"{time.perf_counter() - start:.3f} s")


if __name__ == "__main__":
    with markdown_output(__doc__):
        bench_learners()
        bench_prediction()
