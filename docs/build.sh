#!/usr/bin/env bash
# Build the documentation site and check it in a browser (CI runs this).
#   - installs the package with its docs extra (pip install -e ".[docs]"),
#   - installs Debian's chromium when it is missing,
#   - builds with warnings as errors (nitpicky on the library's names; the
#     vignettes are executed: one that raises fails the build, naming it),
#   - opens the index and stages_bhc pages in headless Chromium, saves
#     screenshots (docs/_build/screenshots) and runs the site's search.
# Nothing is fetched at build time; the installs above are the only downloads.
set -euo pipefail
cd "$(dirname "$0")/.."

python -m pip install -e ".[docs]"
if ! command -v chromium >/dev/null 2>&1; then
    apt-get update && apt-get install -y chromium
fi

rm -rf docs/_build/html docs/_build/doctrees
start=$SECONDS
python -m sphinx -W --keep-going -b html docs docs/_build/html
echo "docs/build.sh: site built in $((SECONDS - start)) s"
python docs/tools/browser_check.py docs/_build/html --screenshots docs/_build/screenshots
