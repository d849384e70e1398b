"""Speed of full() and predict(): shared datasets and a 40-variable x 100,000-row dataset.

Run: python benchmarks/bench_core.py
Targets (issue 2): full() on 40 x 100,000 under 2 s on one core; predict at
least 1,000,000 rows per second for a fitted model of a shared dataset.
"""
import numpy as np
import pandas as pd
from _common import best_time, load_split, markdown_output, peak_memory_mb, shared_datasets

import pystagedtrees as st


def bench_shared():
    print(f"{'dataset':26s} {'full s':>9s} {'predict rows/s':>15s}")
    for name in shared_datasets():
        train, test, ref = load_split(name)
        class_var = ref["order"][0]
        t_full, model = best_time(lambda: st.full(train, lambda_=1))
        rows = test.drop(columns=class_var)
        big = pd.concat([rows] * max(1, 1_000_000 // len(rows)), ignore_index=True)
        t_pred, _ = best_time(lambda: st.predict(model, big, class_=class_var, prob=True), repeat=1)
        print(f"{name:26s} {t_full:9.4f} {len(big) / t_pred:15,.0f}")


def bench_large(n_vars=40, n_rows=100_000):
    rng = np.random.default_rng(0)
    data = pd.DataFrame(
        {f"V{j}": pd.Categorical.from_codes(rng.integers(0, 2, n_rows), ["0", "1"]) for j in range(n_vars)}
    )
    t_full, model = best_time(lambda: st.full(data, lambda_=1))
    print(f"\nfull() on {n_vars} binary variables x {n_rows:,} rows: {t_full:.3f} s "
          f"(target < 2 s); peak memory {peak_memory_mb():,.0f} MB")
    t_pred, _ = best_time(lambda: st.predict(model, data.drop(columns="V0"), prob=True), repeat=1)
    print(f"predict() on the same rows: {t_pred:.3f} s ({n_rows / t_pred:,.0f} rows/s)")


if __name__ == "__main__":
    with markdown_output(__doc__):
        bench_shared()
        bench_large()
