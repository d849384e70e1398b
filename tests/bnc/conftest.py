"""Fixtures of the bnc tests: bnclassify's own ``car`` and ``voting`` data,
read from its sources with Rscript (see test_bnc_anchors)."""
import os
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest

DATA_DIR = os.environ.get("PYSTAGEDTREES_BNCLASSIFY_DATA")
GIT_DIR = os.environ.get("BNCLASSIFY_GIT", "/work/.mirror/bmihaljevic+bnclassify/repo")

R_EXPORT = """
for (f in c("car", "voting")) {
  load(file.path(dir, paste0(f, ".RData")))
  d <- get(f)
  write.csv(d, file.path(dir, paste0(f, ".csv")), row.names = FALSE)
  writeLines(vapply(names(d), function(n) paste(c(n, levels(d[[n]])), collapse = "\\t"), ""),
             file.path(dir, paste0(f, "_levels.tsv")))
}
"""


def _fetch_rdata(out):
    for name in ("car", "voting"):
        target = out / f"{name}.RData"
        if DATA_DIR:
            source = Path(DATA_DIR) / f"{name}.RData"
            if not source.exists():
                pytest.skip(f"{source} not found")
            shutil.copy(source, target)
        elif Path(GIT_DIR).exists():
            blob = subprocess.run(["git", "--git-dir", GIT_DIR, "show", f"HEAD:data/{name}.RData"],
                                  capture_output=True, check=False)
            if blob.returncode != 0:
                pytest.skip(f"no data/{name}.RData in {GIT_DIR}")
            target.write_bytes(blob.stdout)
        else:
            pytest.skip("bnclassify's car/voting data not available (set "
                        "PYSTAGEDTREES_BNCLASSIFY_DATA or BNCLASSIFY_GIT)")


def _read(out, name):
    data = pd.read_csv(out / f"{name}.csv", dtype=str, keep_default_na=False, na_values=["NA"])
    for line in (out / f"{name}_levels.tsv").read_text().splitlines():
        column, *levels = line.split("\t")
        data[column] = pd.Categorical(data[column], categories=levels)
    return data


@pytest.fixture(scope="module")
def rdata(tmp_path_factory):
    if shutil.which("Rscript") is None:
        pytest.skip("Rscript is not on PATH (needed to read bnclassify's .RData files)")
    out = tmp_path_factory.mktemp("bnclassify")
    _fetch_rdata(out)
    subprocess.run(["Rscript", "-e", f'dir <- "{out}"', "-e", R_EXPORT], check=True,
                   capture_output=True)
    return {"car": _read(out, "car"), "voting": _read(out, "voting")}


@pytest.fixture(scope="module")
def car(rdata):
    return rdata["car"]


@pytest.fixture(scope="module")
def voting(rdata):
    return rdata["voting"]
