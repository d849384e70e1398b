"""The record of a study's run: what was run, when, where, with which versions.

Each study writes one next to its results, so a table or a figure can be
traced to the command, the settings and the machine that produced it.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import sys
from collections.abc import Sequence
from pathlib import Path


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:  # not Linux
        pass
    return platform.processor() or platform.machine()


def _os_name() -> str:
    try:
        for line in Path("/etc/os-release").read_text().splitlines():
            if line.startswith("PRETTY_NAME="):
                return line.split("=", 1)[1].strip('"')
    except OSError:
        pass
    return platform.platform()


def machine() -> dict[str, object]:
    """The machine and the versions of the libraries the studies use."""
    import numpy
    import pandas
    import sklearn

    import pystagedtrees

    return {
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "os": _os_name(),
        "python": platform.python_version(),
        "pystagedtrees": pystagedtrees.__version__,
        "numpy": numpy.__version__,
        "pandas": pandas.__version__,
        "scikit-learn": sklearn.__version__,
    }


def _command(study: str) -> str:
    """The command line, when the study runs as ``python -m pystagedtrees.study``."""
    if Path(sys.argv[0]).name == "__main__.py" and Path(sys.argv[0]).parent.name == "study":
        return " ".join(["python -m pystagedtrees.study", *sys.argv[1:]])
    return f"{study} study called from Python (see the settings)"


def write_run_record(path: Path, study: str, args: argparse.Namespace, seconds: float,
                     outputs: Sequence[Path]) -> Path:
    """Write the run record of ``study`` to ``path`` (JSON) and return ``path``.

    It holds the command line, the parsed settings, the UTC date, the
    seconds taken, the files written, the machine and the versions.
    """
    settings = {key: str(value) if isinstance(value, Path) else value
                for key, value in vars(args).items() if not callable(value)}
    record = {
        "study": study,
        "command": _command(study),
        "settings": settings,
        "date": f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC",
        "seconds": round(seconds, 1),
        "outputs": [str(p) for p in outputs],
        "machine": machine(),
    }
    path.write_text(json.dumps(record, indent=2) + "\n")
    return path
