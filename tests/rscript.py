"""Running base R (Rscript) from the tests: every expected value comes from R,
printed with 17 significant digits so that equality is exact."""
import os
import shutil
import subprocess
import tempfile

import numpy as np
import pytest

RSCRIPT = shutil.which("Rscript")
needs_r = pytest.mark.skipif(RSCRIPT is None, reason="Rscript (base R) is not on PATH")

# R prelude for run_r: emit(name, values) prints one line "name v1 v2 ...".
_R_PRELUDE = r"""
emit <- function(name, v) {
  v <- if (is.double(v)) sprintf("%.17g", v) else as.character(v)
  cat(name, v, "\n")
}
"""


def r_literal(values):
    """An R double vector literal that round-trips ``values`` exactly.

    Hexadecimal literals, because R's decimal parser is not correctly rounded
    (17-digit decimals can land one ulp away); R reads normal hex floats exactly.
    """
    values = np.ravel(np.asarray(values, dtype=float))
    assert not np.any((values != 0) & (np.abs(values) < np.finfo(float).tiny)), "subnormal"
    return "c(" + ",".join(float(v).hex() for v in values) + ")"


def run_r(script):
    """Run R code with ``emit`` available; return {name: list of str}."""
    with tempfile.NamedTemporaryFile("w", suffix=".R", delete=False) as handle:
        handle.write(_R_PRELUDE + script)
    try:
        done = subprocess.run(
            [RSCRIPT, "--vanilla", handle.name], capture_output=True, text=True, timeout=120
        )
    finally:
        os.unlink(handle.name)
    if done.returncode != 0:
        raise RuntimeError(f"Rscript failed:\n{done.stderr}")
    out = {}
    for line in done.stdout.splitlines():
        if line.strip():
            name, *values = line.split()
            out[name] = values
    return out


def as_floats(values):
    return np.array([float(v) for v in values])


def as_ints(values):
    return np.array([int(v) for v in values], dtype=np.int64)
