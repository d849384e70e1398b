#!/usr/bin/env bash
# Regenerates the tables of the site's performance page (docs/performance/*.md),
# from the repository root:  bash benchmarks/regenerate_docs.sh
# Needs the shared reference material (../shared, or PYSTAGEDTREES_SHARED) for
# R's recorded seconds and the peers' (bench_conversion.py needs neither), and
# R with stagedtrees for bench_order_search.py's live R timings (optional).
# Some runs use reduced sizes to stay short; each table says so in its note.
set -euo pipefail
cd "$(dirname "$0")/.."
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
out=docs/performance
noisy="Run on the project's shared 2-core machine while other jobs ran: times are noisy (each is the best of the runs its script makes)."

python benchmarks/bench_core.py --output "$out/bench_core.md" --note "$noisy"
python benchmarks/bench_learners.py monks1 PhDArticles Titanic chestSim500 voting eeg \
    --output "$out/bench_learners.md" \
    --note "$noisy Six of the 22 shared data sets (named on the command line), to keep the run short."
python benchmarks/bench_bnc.py --output "$out/bench_bnc.md" --note "$noisy"
python benchmarks/bench_order_search.py --columns 6 --datasets PhDArticles chestSim500 \
    --output "$out/bench_order_search.md" \
    --note "$noisy Two data sets, their first 6 columns. R is timed live through rpy2 when rpy2 and R's stagedtrees are installed; \"-\" where they were not."
python benchmarks/bench_conversion.py --output "$out/bench_conversion.md" --note "$noisy"
python benchmarks/bench_scale.py --rows 100000 --output "$out/bench_scale.md" \
    --note "$noisy 100,000 rows only (the 1,000,000-row sizes take minutes and gigabytes)."
python benchmarks/bench_study.py --n-jobs 2 --output "$out/bench_study.md" --note "$noisy"
python benchmarks/bench_peers.py --skip-synthetic --output "$out/bench_peers.md" \
    --note "$noisy The 100,000-row scale test is left out (--skip-synthetic)."
python benchmarks/bench_corners.py --output "$out/bench_corners.md" --note "$noisy"
python benchmarks/bench_dask.py --rows 10_000_000 100_000_000 --pandas --repeat 2 --output "$out/bench_dask.md" \
    --note "$noisy 2 workers; pandas at 10 million rows only (100 million do not fit in memory here)."
