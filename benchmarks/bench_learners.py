"""Every stage learner on every shared dataset: our seconds beside R's.

Run: python benchmarks/bench_learners.py [dataset ...]
R's seconds come from ../shared/reference/r/<name>.json (models.<key>.seconds);
">" marks R runs stopped at R's time limit.  Targets (issue 3): at least 100x
faster than R where R finishes; stages_bhc on the full monks1 tree under
0.5 s and on every full tree under 30 s.
"""
import sys

import pystagedtrees as st
from _common import best_time, load_split, r_timing, ratio, shared_datasets, markdown_output

LEARNERS = {
    "stages_bhc": lambda full, indep: st.stages_bhc(full),
    "stages_fbhc": lambda full, indep: st.stages_fbhc(full),
    "stages_bj_kullback_0.2": lambda full, indep: st.stages_bj(full, thr=0.2),
    "stages_hclust_totvar_complete_2": lambda full, indep: st.stages_hclust(full, k=2),
    "stages_kmeans_2_seed2024": lambda full, indep: st.stages_kmeans(full, k=2, rng="R", seed=2024),
    "stages_hc_indep": lambda full, indep: st.stages_hc(indep),
}


def main(names):
    print(f"{'dataset':24s} {'learner':34s} {'ours s':>9s} {'R s':>9s} {'R/ours':>9s}")
    for name in names:
        train, _, ref = load_split(name)
        full, indep = st.full(train, lambda_=1), st.indep(train, lambda_=1)
        for key, learner in LEARNERS.items():
            shown, r_seconds, stopped = r_timing(ref["models"].get(key))
            try:
                ours, _ = best_time(lambda: learner(full, indep), repeat=1)
            except ValueError as exc:  # e.g. k-means on a one-level variable, as R
                print(f"{name:24s} {key:34s} {'refused':>9s} {shown:>9s} {'-':>9s}  ({exc})")
                continue
            print(f"{name:24s} {key:34s} {ours:9.4f} {shown:>9s} "
                  f"{ratio(r_seconds, ours, stopped):>9s}", flush=True)


if __name__ == "__main__":
    with markdown_output(__doc__):
        main(sys.argv[1:] or shared_datasets())
