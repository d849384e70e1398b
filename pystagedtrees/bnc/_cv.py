"""Cross-validation of fitted classifiers and the one-shot ``bnc`` learner."""
from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from pystagedtrees.base._validation import check_flag
from pystagedtrees.bnc._dataset import encode_dataset
from pystagedtrees.bnc._folds import check_folds, stratified_folds
from pystagedtrees.bnc._model import BNCModel
from pystagedtrees.bnc._params import lp
from pystagedtrees.bnc._predict import class_posteriors, map_random
from pystagedtrees.bnc._search import bsej, fssj, kdb, tan_hc, tan_hcsp
from pystagedtrees.bnc._structure import aode, nb, tan_cl
from pystagedtrees.kernels._bnc_counts import col_means
from pystagedtrees.rng import RandomSource, Rng, Seed, resolve_source

__all__ = ["cv", "bnc", "LEARNERS", "learn_structure"]

LEARNERS = {
    "nb": nb,
    "tan_cl": tan_cl,
    "tan_hc": tan_hc,
    "tan_hcsp": tan_hcsp,
    "kdb": kdb,
    "fssj": fssj,
    "bsej": bsej,
    "aode": aode,
}
RANDOMISED = {"tan_hc", "tan_hcsp", "kdb", "fssj", "bsej"}


def learn_structure(name, class_, dataset, args, draws=None):
    """Run the structure learner ``name`` with ``args``; wrappers draw from ``draws``."""
    if not isinstance(name, str) or name not in LEARNERS:
        raise ValueError(
            f"`dag_learner` must be one of {sorted(LEARNERS)}; got {name!r}."
        )
    if not isinstance(args, Mapping) or not all(isinstance(k, str) for k in args):
        raise TypeError(
            "`dag_args` must be a dict of the structure learner's arguments (by name); "
            f"got a {type(args).__name__}."
        )
    args = dict(args)
    learner = LEARNERS[name]
    taken = inspect.signature(learner).parameters
    unknown = [k for k in args if k not in taken or k in ("class_", "dataset")]
    if unknown:
        allowed = [k for k in taken if k not in ("class_", "dataset")]
        raise ValueError(f"`dag_args` has {unknown}, which {name}() does not take; it takes {allowed}.")
    # Draw from the caller's stream unless the arguments bring their own.
    if name in RANDOMISED and not {"random_state", "rng", "seed"} & set(args):
        args["rng"] = draws
    return learner(class_, dataset, **args)


def bnc(dag_learner: str, class_: str, dataset: pd.DataFrame, smooth: float,
        dag_args: Mapping[str, Any] | None = None, awnb_trees: int | None = None,
        awnb_bootstrap: float | None = None, manb_prior: float | None = None,
        wanbia: bool | None = None, seed: Seed = None, rng: Rng = "numpy",
        random_state: Seed | RandomSource = None) -> BNCModel:
    """Learn a structure with ``dag_learner`` and then its parameters with :func:`lp`.

    Parameters
    ----------
    dag_learner : str
        One of "nb", "tan_cl", "tan_hc", "tan_hcsp", "kdb", "fssj", "bsej", "aode".
    class_ : str
    dataset : pandas.DataFrame
    smooth : float
        Dirichlet pseudo-count of the final CPTs.
    dag_args : dict, optional
        Arguments of the structure learner (e.g. ``{"k": 5}`` for wrappers).
    awnb_trees, awnb_bootstrap, manb_prior, wanbia
        Parameter learning options, passed to :func:`lp`.
    seed, rng
        Randomness of the wrappers (see :func:`tan_hc`) and of AWNB's
        bootstrap samples, drawn from one stream in that order, as in R
        (the rule: :mod:`pystagedtrees.rng`).
    random_state : optional
        Deprecated alias of ``seed`` (FutureWarning); a source in use
        given here acts as ``rng``.

    Returns
    -------
    BNCModel
        A fitted model.

    Examples
    --------
    >>> import pandas as pd
    >>> from pystagedtrees.bnc import bnc, narcs
    >>> d = pd.DataFrame({"c": list("aabb"), "x": list("uvuv"), "y": list("uvvv")})
    >>> narcs(bnc("tan_cl", "c", d, smooth=1))
    3
    """
    draws = resolve_source(seed, rng, random_state=random_state)
    structure = learn_structure(dag_learner, class_, dataset, {} if dag_args is None else dag_args,
                                draws)
    return lp(structure, dataset, smooth, awnb_trees=awnb_trees, awnb_bootstrap=awnb_bootstrap,
              manb_prior=manb_prior, wanbia=wanbia, rng=draws)


def _as_named_models(x):
    if isinstance(x, BNCModel):
        return None, [x]
    if isinstance(x, dict):
        return list(x), list(x.values())
    if isinstance(x, (list, tuple)) and x:
        return None, list(x)
    raise TypeError("`x` must be a fitted BNCModel, or a non-empty list or dict of them.")


def _refit(model, train, dag, draws):
    if model.lp_args is None:
        raise ValueError("`x` must have been fitted with lp(), which cv() repeats per fold.")
    args = {k: v for k, v in model.lp_args.items() if v is not None}
    if dag:
        if model.learner is None:
            raise ValueError("`x` does not record its structure learner; use dag=False.")
        name, learner_args = model.learner
        structure = learn_structure(name, model.class_var, train, learner_args, draws)
    else:
        structure = model
    return lp(structure, train, rng=draws, **args)


def cv(x: BNCModel | Sequence[BNCModel] | Mapping[str, BNCModel], dataset: pd.DataFrame, k: int,
       dag: bool = True, mean: bool = True, seed: Seed = None, rng: Rng = "numpy",
       random_state: Seed | RandomSource = None) -> float | np.ndarray | dict[str, Any]:
    """Stratified k-fold cross-validated accuracy of fitted classifiers.

    Parameters
    ----------
    x : BNCModel, list or dict of BNCModel
        Fitted models (from :func:`lp`), all with the same class variable.
    dataset : pandas.DataFrame
    k : int
        Number of folds, ``1 < k <= n_rows``.
    dag : bool
        Re-learn the structure on each training fold (True) or only the
        parameters (False).
    mean : bool
        Return the mean accuracy per model (True) or the folds x models matrix.
    seed, rng
        Folds, nested searches and prediction ties, drawn from one stream
        (the rule: :mod:`pystagedtrees.rng`): numpy, or R's after
        ``set.seed(seed)`` with ``rng="R"``.
    random_state : optional
        Deprecated alias of ``seed`` (FutureWarning); a source in use
        given here acts as ``rng``.

    Returns
    -------
    float, numpy.ndarray or dict
        One accuracy for a single model; an array (or dict for a dict input)
        for several; a matrix when ``mean=False``.

    Examples
    --------
    >>> import pandas as pd
    >>> from pystagedtrees.bnc import nb, lp, cv
    >>> d = pd.DataFrame({"c": list("aaaabbbb"), "x": list("uuuvvvvu")})
    >>> acc = cv(lp(nb("c", d), d, smooth=1), d, k=2, seed=0)
    >>> 0 <= acc <= 1
    True
    """
    names, models = _as_named_models(x)
    if not all(isinstance(m, BNCModel) for m in models):
        raise TypeError("`x` must be a fitted BNCModel, or a non-empty list or dict of them.")
    dag, mean = check_flag(dag, "dag"), check_flag(mean, "mean")
    class_vars = {m.class_var for m in models}
    if len(class_vars) != 1:
        raise ValueError("`x` must hold BNCModels sharing one class variable.")
    class_ = class_vars.pop()
    if not all(m.is_fitted for m in models):
        raise ValueError("every element of `x` must be fitted (use lp()).")
    enc = encode_dataset(class_, dataset)
    k = check_folds(k, enc.codes.shape[0])
    draws = resolve_source(seed, rng, random_state=random_state)
    class_codes = enc.codes[:, enc.class_index]
    folds = stratified_folds(class_codes, len(enc.levels[class_]), k, draws)
    acc = np.empty((len(folds), len(models)))
    # Categorical columns keep every level in each training fold.
    frame = enc.as_frame()
    if len(folds) == 1:
        # R would fit on no rows and guess uniformly: no accuracy to speak of
        raise ValueError(
            f"every row of `dataset` fell in one of the `k` = {k} folds (too few rows per "
            "class), so a training fold is empty."
        )
    for i, test_rows in enumerate(folds):
        train = frame.drop(index=test_rows)
        test_codes = enc.codes[test_rows]
        fitted = [_refit(m, train, dag, draws) for m in models]
        for j, m in enumerate(fitted):
            cols = [enc.columns.index(f) for f in m.features]
            post = class_posteriors(m, test_codes[:, cols])
            labels = np.asarray(m.levels[class_])
            truth = np.asarray(enc.levels[class_])[class_codes[test_rows]]
            acc[i, j] = np.count_nonzero(labels[map_random(post, draws)] == truth) / len(test_rows)
    if not mean:
        return acc
    out = col_means(acc)
    if names is not None:
        return dict(zip(names, out.tolist()))
    return float(out[0]) if len(models) == 1 else out
