"""Benchmark: the slow corners and the refusals before work (issue 32, items 2 and 5).

- ``as_sevt`` of a node with 21 and 23 binary parents;
- ``predict`` and ``prob`` of a row with 20 and 23 binary gaps, on the full
  tree of 2,000 rows (stored sparsely past 2^20 situations);
- ``random_sevt`` of 14, 18 and 20 binary variables;
- the time to the refusal of ``as_parentslist(indep(...))`` on 26 binary
  columns, and of ``stages_bhc``/``stages_hclust`` on the full tree of 60
  binary columns x 50,000 rows (about 35,000 stages for a deep variable).

Run: ``python benchmarks/bench_corners.py`` (minutes: it builds the
60 x 50,000 tree).  Times are the best of a few runs, wall clock.
"""
import numpy as np
import pandas as pd
from _common import best_time, peak_memory_mb

import pystagedtrees as st


def binary_frame(rows, columns, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(rng.choice(["a", "b"], size=(rows, columns)),
                        columns=[f"V{j}" for j in range(columns)])


def report(label, seconds):
    print(f"{label:<58} {seconds:8.3f} s")


def refusal_time(call):
    """Seconds until ``call`` raises its ValueError (it must)."""
    def refused():
        try:
            call()
        except ValueError:
            return
        raise AssertionError("expected a refusal")
    return best_time(refused, repeat=1)[0]


def main():
    for n in (21, 23):
        parents = {f"X{j}": [] for j in range(n)}
        parents["Y"] = list(parents)
        values = {v: ["0", "1"] for v in parents}
        report(f"as_sevt, a node of {n} binary parents",
               best_time(lambda: st.as_sevt(parents, values=values), repeat=2)[0])
    for gaps in (20, 23):
        p = gaps + 4
        model = st.full(binary_frame(2000, p), lambda_=1)
        row = {f"V{j}": "a" for j in range(gaps + 1, p)}
        report(f"predict(prob=True), a row of {gaps} binary gaps",
               best_time(lambda: st.predict(model, pd.DataFrame([row]), prob=True))[0])
        report(f"prob, an event after {gaps} binary gaps", best_time(lambda: st.prob(model, row))[0])
    for n in (14, 18, 20):
        levels = {f"V{j}": ["a", "b"] for j in range(n)}
        report(f"random_sevt, {n} binary variables",
               best_time(lambda: st.random_sevt(levels, seed=1), repeat=2)[0])
    wide = st.indep(binary_frame(1000, 26))
    report("as_parentslist(indep), 26 binary columns: refused after",
           refusal_time(lambda: st.as_parentslist(wide)))
    deep = st.full(binary_frame(50_000, 60), lambda_=1)
    for name in ("stages_bhc", "stages_fbhc", "stages_hclust"):
        report(f"{name}, 60 x 50,000 full tree: refused after",
               refusal_time(lambda: getattr(st, name)(deep)))
    print(f"peak memory {peak_memory_mb():,.0f} MB")


if __name__ == "__main__":
    main()
