"""Run a project's test suite against the installed pystagedtrees (a wheel), not its sources.

    python .ci/test_installed.py PROJECT_DIR [pytest options]

Copies PROJECT_DIR (a clone or an unpacked sdist) without its pystagedtrees/
folder to a temporary folder and runs ``python -m pytest tests`` there, so
the tests import the installed package; pyproject.toml's ``pythonpath``
still finds compat/ and the tests' helpers in the copy.  Used by .ci/run and
by cibuildwheel (pyproject.toml's test-command).
"""
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

LEFT_OUT = shutil.ignore_patterns("pystagedtrees", "build", "dist", ".git", "__pycache__",
                                  "*.egg-info", ".hypothesis", ".pytest_cache")


def main(argv):
    if not argv:
        sys.exit(__doc__)
    project, options = Path(argv[0]).resolve(), argv[1:]
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "project"
        shutil.copytree(project, copy, ignore=LEFT_OUT)
        where = subprocess.run([sys.executable, "-c", "import pystagedtrees; print(pystagedtrees.__file__)"],
                               cwd=copy, capture_output=True, text=True, check=True).stdout.strip()
        print(f"testing the installed pystagedtrees at {where}", flush=True)
        return subprocess.run([sys.executable, "-m", "pytest", "tests", *options], cwd=copy).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
