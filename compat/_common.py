"""What the cross-check, the recorder and the reference loader share: reading data
and reference files, and our R snippets."""
import functools
import gzip
import json
from pathlib import Path

import numpy as np
import pandas as pd

from pystagedtrees.base._data import read_categorical_csv

# Our R code, kept small: R's own functions do the work.
R_TREE_OF_FAMILIES = r"""
function(families, levels, data_order) {
  # bnclassify families (variable, parents..., class) to a parentslist in
  # data order, sorted topologically by R; the list is put in that order
  # because R's as_sevt reads the parents by list position
  pl <- lapply(data_order, function(v) list(parents = families[[v]][-1], values = levels[[v]]))
  names(pl) <- data_order
  class(pl) <- "parentslist"
  order <- stagedtrees::topo_sort_parentslist(pl)
  pl <- pl[order]
  class(pl) <- "parentslist"
  stagedtrees::as_sevt(pl, order = order)
}
"""

R_DATA_CHECK = r"""
function(data) {
  # what R received, per column: rows per level, missing values, and the sum
  # of row number times level code (which also pins the order of the rows)
  lapply(data, function(x) {
    codes <- as.numeric(as.integer(x))
    list(counts = as.vector(table(x)), missing = sum(is.na(x)),
         code_position_sum = sum(codes * seq_along(codes), na.rm = TRUE))
  })
}
"""

R_SCORES_RECOMPUTED = r"""
function(model) {
  # drop the stored log-likelihood so that R recomputes it from ctables and prob
  model$ll <- NULL
  ll <- logLik(model)
  c(loglik = as.numeric(ll), df = attr(ll, "df"), nobs = attr(ll, "nobs"),
    BIC = BIC(model), AIC = AIC(model))
}
"""


@functools.cache
def r_function(code):
    """An R function from our source text (evaluated once)."""
    from pystagedtrees.compat._session import r_context, ro

    with r_context():
        return ro.r(code)


def read_dataset(path, class_var=None, levels=None):
    """A CSV of categorical data, class first (see ``read_categorical_csv``)."""
    return read_categorical_csv(path, class_var, levels, class_arg="--class")


def split_at(data, test_positions):
    """Train and test frames: the rows at the 0-based ``test_positions``, and the others."""
    is_test = np.zeros(len(data), dtype=bool)
    is_test[test_positions] = True
    return data[~is_test].reset_index(drop=True), data[is_test].reset_index(drop=True)


def split_rows(data, split_path=None, repetition=1):
    """Train and test frames: the test rows are column ``V<repetition>`` of the split file
    (1-based row numbers); without a split both are the whole data."""
    if split_path is None:
        return data, data
    splits = pd.read_csv(split_path)
    if f"V{repetition}" not in splits.columns:
        raise ValueError(f"{split_path} has no column V{repetition} (repetition {repetition}); "
                         f"its columns are {list(splits.columns)}.")
    ids = splits[f"V{repetition}"].dropna().to_numpy(dtype=np.int64) - 1
    if ids.min() < 0 or ids.max() >= len(data):
        raise ValueError(f"{split_path}: test row numbers outside 1..{len(data)}.")
    return split_at(data, ids)


def shipped_split(name, repetition=1):
    """``(data, train, test)`` of one of the package's benchmark sets and the papers'
    split ``repetition`` (``pystagedtrees.datasets``)."""
    from pystagedtrees import datasets

    test_positions = datasets.splits(name).get(repetition)
    if test_positions is None:
        raise ValueError(f"{name} has no split {repetition}; it has {sorted(datasets.splits(name))}.")
    data = datasets.load(name, benchmark=True)
    return (data, *split_at(data, test_positions))


def add_data_arguments(parser):
    """The options naming the data: a shipped benchmark set, or a CSV and its split file."""
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--dataset", default=None,
                        help="one of the package's benchmark sets (pystagedtrees.datasets."
                             "names(benchmark=True)), with its split --repetition")
    source.add_argument("--data", default=None, help="CSV of categorical data (class column first)")
    parser.add_argument("--split", default=None,
                        help="with --data: CSV of 1-based test row numbers, columns V1, V2, ...")
    parser.add_argument("--repetition", type=int, default=1,
                        help="the split: column V<n> of --split, or of the shipped set (default 1)")
    parser.add_argument("--class", dest="class_var", default=None,
                        help="with --data: the class column (default: the first)")


def data_name(path):
    return Path(path).stem


REPOSITORY_REFERENCE = Path(__file__).resolve().parents[1] / "tests" / "reference"
"""Where the references the tests compare with live (written by compat.record)."""


def read_json(path):
    """A reference file, gzip-compressed (``.json.gz``) or not."""
    path = Path(path)
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as fh:
        return json.load(fh)
