"""Benchmark: as_sevt of a large DAG, fitting it, sampling from it.

Targets (issue 4): each step under 2 s on the project's 2-core machine.

- ``as_sevt`` of a DAG over 60 binary variables where every variable from
  the fourth on has 3 parents (the full tree would have 2^59 situations for
  the last variable: stages are stored by parent configuration);
- ``sevt_fit`` of that tree on 100,000 rows;
- ``sample_from`` 1,000,000 rows of the fitted model.

Run: ``python benchmarks/bench_conversion.py``.
"""
import time

import numpy as np
from _common import markdown_output

from pystagedtrees.fitting import sevt_fit
from pystagedtrees.graphs import as_sevt, parentslist
from pystagedtrees.random import random_sevt, sample_from

N_VARS = 60
N_PARENTS = 3


def three_parent_dag(seed=0):
    rng = np.random.default_rng(seed)
    names = [f"X{j + 1}" for j in range(N_VARS)]
    parents = {
        v: [names[j] for j in rng.choice(i, min(i, N_PARENTS), replace=False)] for i, v in enumerate(names)
    }
    return parentslist(parents, values={v: ["0", "1"] for v in names})


def timed(label, func):
    """Run ``func`` once; print wall time and CPU time (the latter is robust to a busy machine)."""
    start, cpu_start = time.perf_counter(), time.process_time()
    result = func()
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    print(f"{label:<40} wall {seconds:6.3f} s  cpu {cpu:6.3f} s  {'ok' if seconds < 2 else 'SLOW'}")
    return result


def main():
    dag = three_parent_dag()
    tree = timed("as_sevt (60 binary vars, 3 parents)", lambda: as_sevt(dag))
    truth = random_sevt(tree, q=0, seed=1)
    data = sample_from(truth, 100_000, seed=2)
    fitted = timed("sevt_fit (100,000 rows)", lambda: sevt_fit(tree, data=data, lambda_=1))
    timed("sample_from (1,000,000 rows)", lambda: sample_from(fitted, 1_000_000, seed=3))


if __name__ == "__main__":
    with markdown_output(__doc__):
        main()
