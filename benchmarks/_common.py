"""Helpers shared by the benchmark scripts: shared data, timing, R ratios, and
the Markdown record of a run (``--output FILE``)."""
import argparse
import contextlib
import datetime
import io
import json
import os
import resource
import shutil
import subprocess
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


def best_time(func, repeat=3, clock=time.perf_counter):
    """Best time of ``repeat`` calls, and the last result.  ``clock`` is the
    wall clock by default; ``time.process_time`` gives this process's CPU
    time, steadier on a shared machine (other processes' turns not counted)."""
    best, result = np.inf, None
    for _ in range(repeat):
        start = clock()
        result = func()
        best = min(best, clock() - start)
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


# -- the Markdown record of a run (--output FILE) ---------------------------------------------

def _r_versions():
    """What the R side of the ratios ran: the recorded references' versions, and R here."""
    lines = []
    record = next(iter(sorted(REFERENCE_DIR.glob("*.json"))), None)
    if record is not None:
        ref = json.loads(record.read_text())
        lines.append(f"R's recorded seconds: {ref.get('r_version', 'R (version not recorded)')}, "
                     f"stagedtrees {ref.get('stagedtrees_version', '?')}, "
                     f"bnclassify {ref.get('bnclassify_version', '?')} "
                     f"({os.path.relpath(REFERENCE_DIR, ROOT)})")
    rscript = shutil.which("Rscript")
    if rscript:
        done = subprocess.run([rscript, "--version"], capture_output=True, text=True)
        lines.append("R on this machine (live timings): "
                     + ((done.stdout or done.stderr).strip().splitlines() or ["?"])[0])
    return lines or ["R: none (no recorded references, no Rscript)"]


def machine_lines():
    """Date, machine and versions of a benchmark run, as Markdown list items."""
    from pystagedtrees.study._record import machine

    m = machine()
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip() or "unknown"
    return [
        f"Date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC",
        f"Machine: {m['cpu']}, {m['cores']} cores; {m['os']}",
        f"Python {m['python']}, numpy {m['numpy']}, pandas {m['pandas']}, "
        f"scikit-learn {m['scikit-learn']}, pystagedtrees {m['pystagedtrees']} (commit {commit})",
        *_r_versions(),
    ]


class _Tee(io.TextIOBase):
    """Writes to the terminal and keeps a copy."""

    def __init__(self, terminal):
        self.terminal, self.copy = terminal, io.StringIO()

    def write(self, text):
        self.copy.write(text)
        return self.terminal.write(text)

    def flush(self):
        self.terminal.flush()


@contextlib.contextmanager
def markdown_output(doc):
    """Run a benchmark's main code; with ``--output FILE`` on the command line,
    also write what it printed to ``FILE`` as Markdown, under the date, the
    machine and the versions.  ``--output`` and ``--note TEXT`` (a sentence
    saying, e.g., that the sizes were reduced) are taken out of ``sys.argv``
    before the script reads its own options."""
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--output", type=Path, default=None)
    parser.add_argument("--note", default=None)
    options, rest = parser.parse_known_args(sys.argv[1:])
    command = " ".join(["python", f"benchmarks/{Path(sys.argv[0]).name}", *rest])
    sys.argv[1:] = rest
    tee = _Tee(sys.stdout)
    with contextlib.redirect_stdout(tee):
        yield
    if options.output is None:
        return
    title = doc.strip().splitlines()[0].rstrip(".")
    lines = [f"### {title}", "", *(f"- {line}" for line in [f"Command: `{command}`",
                                                             *machine_lines()])]
    if options.note:
        lines += ["", options.note]
    lines += ["", "```text", tee.copy.getvalue().rstrip("\n"), "```", ""]
    options.output.parent.mkdir(parents=True, exist_ok=True)
    options.output.write_text("\n".join(lines))
    print(f"wrote {options.output}")
