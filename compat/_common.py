"""What the cross-check and the recorder share: reading data, and our R snippets."""
import functools
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

R_SCORES_RECOMPUTED = r"""
function(model) {
  # drop the stored log-likelihood so that R recomputes it from ctables and prob
  model$ll <- NULL
  ll <- logLik(model)
  c(loglik = as.numeric(ll), df = attr(ll, "df"), nobs = attr(ll, "nobs"),
    BIC = BIC(model), AIC = AIC(model))
}
"""


@functools.lru_cache(maxsize=None)
def r_function(code):
    """An R function from our source text (evaluated once)."""
    from pystagedtrees.compat._session import r_context, ro

    with r_context():
        return ro.r(code)


def read_dataset(path, class_var=None, levels=None):
    """A CSV of categorical data, class first (see ``read_categorical_csv``)."""
    return read_categorical_csv(path, class_var, levels, class_arg="--class")


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
    is_test = np.zeros(len(data), dtype=bool)
    is_test[ids] = True
    return data[~is_test].reset_index(drop=True), data[is_test].reset_index(drop=True)


def data_name(path):
    return Path(path).stem
