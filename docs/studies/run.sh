#!/usr/bin/env bash
# Regenerates the study results shown on the site's study pages, on the data
# shipped with the package, at the settings the pages state:
#   bash docs/studies/run.sh            (from the repository root; a few minutes)
# Each study's printed output goes to output.txt next to its results, figures
# and run record (command, settings, date, machine, versions).  The outputs are
# committed; the site shows them as they are.
set -euo pipefail
cd "$(dirname "$0")/../.."

bench=docs/studies/benchmark
rm -rf "$bench" && mkdir -p "$bench"
python -m pystagedtrees.study benchmark --n-jobs 2 --out "$bench/results.csv" \
    | tee "$bench/output.txt"

multi=docs/studies/multilabel
rm -rf "$multi" && mkdir -p "$multi"
python -m pystagedtrees.study multilabel --repeats 10 --out "$multi" | tee "$multi/output.txt"
