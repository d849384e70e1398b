"""Helpers shared by the benchmark scripts: shared data, timing, R ratios."""
import json
import resource
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from compat.reference import shared_dir  # noqa: E402

SHARED = shared_dir()
DATA_DIR = SHARED / "data" / "single-label"
SPLITS_DIR = SHARED / "data" / "splits"
REFERENCE_DIR = SHARED / "reference" / "r"


def shared_datasets():
    if not REFERENCE_DIR.exists():
        sys.exit(f"benchmarks need the reference material at {SHARED}")
    return sorted(p.stem for p in DATA_DIR.glob("*.csv"))


def load_split(name, repetition=1):
    """Train and test frames of a shared dataset (R's level order) and R's record."""
    ref = json.loads((REFERENCE_DIR / f"{name}.json").read_text())
    raw = pd.read_csv(DATA_DIR / f"{name}.csv", dtype=str, keep_default_na=False)
    data = pd.DataFrame({v: pd.Categorical(raw[v], categories=ref["levels"][v]) for v in ref["order"]})
    test_ids = pd.read_csv(SPLITS_DIR / f"{name}_test_ids.csv")[f"V{repetition}"].to_numpy() - 1
    is_test = np.zeros(len(data), dtype=bool)
    is_test[test_ids] = True
    return data[~is_test].reset_index(drop=True), data[is_test].reset_index(drop=True), ref


def best_time(func, repeat=3):
    """Best wall time of ``repeat`` calls, and the last result."""
    best, result = np.inf, None
    for _ in range(repeat):
        start = time.perf_counter()
        result = func()
        best = min(best, time.perf_counter() - start)
    return best, result


def peak_memory_mb():
    """Peak resident memory of this process so far (MB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def ratio(their_seconds, ours, stopped=False):
    """``their_seconds / ours`` as text; ``stopped`` (theirs hit a time limit) adds ">"."""
    if their_seconds is None or not np.isfinite(their_seconds) or their_seconds <= 0:
        return "-"
    times = their_seconds / ours
    return f"{'>' if stopped else ''}{times:,.0f}x" if times >= 10 else f"{times:.1f}x"


def r_timing(record):
    """R's seconds for a recorded call: ``(text, seconds for a ratio, stopped)``.

    A call R stopped at its time limit has ``error`` and the limit in
    ``seconds`` (shown with ">"); a call R failed on has no time to compare.
    """
    seconds, error = (record or {}).get("seconds"), (record or {}).get("error", "")
    if seconds is None:
        return "-", None, False
    if error and "time limit" not in error:
        return "failed", None, False
    return f"{'>' if error else ''}{seconds:.3f}", seconds, bool(error)
