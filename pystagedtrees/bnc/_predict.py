"""Prediction: log-joint per class, posteriors, MAP with R's random ties."""
from __future__ import annotations

import functools
import math
import string

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from pystagedtrees.base._data import category_string, encode_frame
from pystagedtrees.base._loglik import LogLik
from pystagedtrees.base._validation import check_flag
from pystagedtrees.bnc._dataset import encode_for_model
from pystagedtrees.bnc._model import BNCModel, _check_model, _check_not_ensemble, nparams
from pystagedtrees.kernels._bnc_infer import log_joint, max_col, max_col_ties, posteriors
from pystagedtrees.rng import RandomSource, Rng, Seed, resolve_source

__all__ = [
    "predict",
    "compute_log_joint",
    "class_posteriors",
    "posterior_from_log_joint",
    "map_random",
    "logLik",
    "AIC",
    "BIC",
    "cLogLik",
    "accuracy",
]


def _compiled(model, columns):
    """Flat log-CPTs and index tables for the ``log_joint`` kernel.

    ``columns`` names the code columns the kernel will read.
    """
    key = tuple(columns)
    cache = model.__dict__.setdefault("_compiled_cache", {})
    if key not in cache:
        where = {v: j for j, v in enumerate(columns)}
        ptr, cols, strides, offsets, chunks = [0], [], [], [], []
        offset = 0
        with np.errstate(divide="ignore"):
            for f in model.features:
                table = model.params[f]
                # C-order strides of the CPT; the class axis is last (stride 1).
                step = np.cumprod((table.shape[1:] + (1,))[::-1])[::-1]
                for v, s in zip(model.families[f][:-1], step[:-1]):
                    cols.append(where[v])
                    strides.append(s)
                ptr.append(len(cols))
                offsets.append(offset)
                chunks.append(np.log(table).ravel())
                offset += table.size
            log_prior = np.log(model.params[model.class_var])
        cache[key] = (
            *(np.asarray(a, dtype=np.intp) for a in (ptr, cols, strides, offsets)),
            np.concatenate(chunks) if chunks else np.zeros(0),
            np.ascontiguousarray(log_prior, dtype=np.float64),
        )
    return cache[key]


def _log_joint_complete(model, codes, columns, normalise=False):
    """The kernel's log-joints (or posteriors) of complete ``codes``; an
    F-ordered matrix (as :func:`encode_for_model` gives with ``order="F"``)
    is read without a copy."""
    ptr, cols, strides, offsets, log_cpts, log_prior = _compiled(model, columns)
    out = np.empty((codes.shape[0], len(log_prior)))
    log_joint(np.ascontiguousarray(codes.T), ptr, cols, strides, offsets, log_cpts, log_prior,
              out, normalise)
    return out


def _needed_missing(model, missing):
    """Which missing features must be summed out explicitly, per row.

    A missing feature with no observed descendant is barren: its CPT sums
    to one over it, so it drops out.  ``missing`` is (rows, features).
    """
    feats = list(model.features)
    col = {f: j for j, f in enumerate(feats)}
    children = {f: [] for f in feats}
    for g in feats:
        for parent in model.families[g][1:-1]:
            children[parent].append(g)
    reaches = {}
    for f in reversed(_topological_features(model)):
        below = np.zeros(missing.shape[0], dtype=bool)
        for g in children[f]:
            below |= ~missing[:, col[g]] | reaches[g]
        reaches[f] = below
    needed = np.zeros_like(missing)
    for f in feats:
        needed[:, col[f]] = reaches[f]
    return missing & needed


def _topological_features(model):
    placed, order, pending = set(), [], list(model.features)
    while pending:
        ready = [f for f in pending if placed.issuperset(model.families[f][1:-1])]
        order += ready
        placed.update(ready)
        pending = [f for f in pending if f not in placed]
    return order


def _log_joint_with_missing(model, codes, columns):
    """``ln P(c, x_observed)``: the missing features are summed out.

    Barren missing features drop out; rows are grouped by the missing
    features left, whose families are multiplied in probability space with
    einsum; the other families are added in log space.
    """
    where = [columns.index(f) for f in model.features]
    feats = list(model.features)
    missing = codes[:, where] < 0
    observed_codes = np.where(codes < 0, 0, codes)
    n_class = len(model.params[model.class_var])
    out = np.empty((codes.shape[0], n_class))
    patterns, group = np.unique(_needed_missing(model, missing), axis=0, return_inverse=True)
    col = {v: columns.index(v) for v in feats}
    for g, pattern in enumerate(patterns):
        rows = np.flatnonzero(group.ravel() == g)
        sub = observed_codes[rows]
        hidden_vars = {f for f, h in zip(feats, pattern) if h}
        letters = {v: string.ascii_letters[i] for i, v in enumerate(sorted(hidden_vars))}
        with np.errstate(divide="ignore"):
            total = np.tile(np.log(model.params[model.class_var]), (len(rows), 1))
        operands, subscripts = [], []
        for j, f in enumerate(feats):
            fam = model.families[f]
            observed = [i for i, v in enumerate(fam[:-1]) if v not in hidden_vars]
            hidden = [i for i, v in enumerate(fam[:-1]) if v in hidden_vars]
            moved = np.transpose(model.params[f], observed + hidden + [len(fam) - 1])
            index = tuple(sub[:, col[fam[i]]] for i in observed)
            factor = moved[index] if index else np.broadcast_to(
                moved, (len(rows),) + moved.shape)
            # A barren missing child contributes a factor of one.
            barren = missing[rows, j] & (f not in hidden_vars)
            if hidden:
                shape = (len(rows),) + (1,) * (factor.ndim - 1)
                operands.append(np.where(barren.reshape(shape), 1.0, factor))
                subscripts.append("Z" + "".join(letters[fam[i]] for i in hidden) + "Y")
            else:
                with np.errstate(divide="ignore", invalid="ignore"):
                    total = total + np.where(barren[:, None], 0.0, np.log(factor))
        if operands:
            marginal = np.einsum(",".join(subscripts) + "->ZY", *operands,
                                 optimize=True)
            with np.errstate(divide="ignore"):
                total = total + np.log(marginal)
        out[rows] = total
    return out


def _model_log_joint(model, codes, columns):
    if codes.size == 0 or codes.min() >= 0:  # no value missing: one contiguous pass
        return _log_joint_complete(model, codes, columns)
    complete = (codes >= 0).all(axis=1)
    out = np.empty((codes.shape[0], len(model.params[model.class_var])))
    if complete.any():
        out[complete] = _log_joint_complete(model, codes[complete], columns)
    out[~complete] = _log_joint_with_missing(model, codes[~complete], columns)
    return out


def compute_log_joint(model, codes, columns=None):
    """``ln P(c, x)`` for every row of ``codes`` and every class.

    ``codes`` holds the model's features (in ``columns`` order, default the
    model's feature order) as level codes, -1 for missing; in either memory
    order (Fortran order, a column after another, is read without a copy).
    """
    columns = list(model.features) if columns is None else list(columns)
    codes = np.asarray(codes, dtype=np.int32)
    if not model.is_aode:
        return _model_log_joint(model, codes, columns)
    # R averages the SPODEs in probability space, literally.
    total = None
    for sp in model.models:
        p = np.exp(_model_log_joint(sp, codes, columns))
        total = p if total is None else total + p
    with np.errstate(divide="ignore"):
        return np.log(total / len(model.models))


def class_posteriors(model, codes, columns=None):
    """``posterior_from_log_joint(compute_log_joint(model, codes, columns))``,
    in one compiled pass over the rows where no value is missing."""
    columns = list(model.features) if columns is None else list(columns)
    codes = np.asarray(codes, dtype=np.int32)
    if not model.is_aode and (codes.size == 0 or codes.min() >= 0):
        return _log_joint_complete(model, codes, columns, normalise=True)
    return posterior_from_log_joint(compute_log_joint(model, codes, columns))


def posterior_from_log_joint(lj):
    """Normalise log-joints per row into class posteriors.

    ``exp(lj - m) / sum(exp(lj - m))`` with ``m`` the row's maximum: R's
    ``exp(lj - logsumexp(lj))`` to a few units in the last place; a row that
    cannot be normalised (all ``-inf``) becomes uniform.
    """
    lj = np.ascontiguousarray(lj, dtype=np.float64)
    p = np.empty_like(lj)
    posteriors(lj, p)
    return p


def map_random(scores, draws, take_exp=False):
    """Column of the row maximum; near-ties broken at random as R's ``max.col``.

    Entries within 1e-5 times the row's largest are tied; R draws a uniform
    at each tie it meets, row by row, so ``draws`` is consumed exactly as R
    consumes its stream.  With ``take_exp`` the scores are ``exp(scores)``.
    """
    scores = np.exp(scores) if take_exp else scores
    scores = np.ascontiguousarray(scores, dtype=np.float64)
    n = scores.shape[0]
    pred = np.empty(n, dtype=np.int32)
    events = np.empty(n, dtype=np.intp)
    max_col(scores, pred, events)
    tied = np.flatnonzero(events)
    if len(tied):
        uniforms = np.ascontiguousarray(draws.runif(int(events.sum())), dtype=np.float64)
        max_col_ties(scores, tied.astype(np.intp), uniforms, pred)
    return pred


@functools.lru_cache(maxsize=256)
def _class_columns(classes, class_var):
    """The posteriors' columns, built once per class levels (building one is a
    fifth of predicting a hundred rows); callers hand out copies, since a
    frame's ``columns.name`` can be set in place."""
    return pd.Index(list(classes), name=class_var)


def predict(x: BNCModel, newdata: pd.DataFrame, prob: bool = False, seed: Seed = None,
            rng: Rng = "numpy",
            random_state: Seed | RandomSource = None) -> pd.Categorical | pd.DataFrame:
    """Predict the class of each row of ``newdata``.

    Parameters
    ----------
    x : BNCModel
        A fitted model (from :func:`lp` or :func:`bnc`).
    newdata : pandas.DataFrame
        Must hold every feature of ``x``, with values among its levels;
        missing values are summed out of the joint distribution.
    prob : bool
        Return the class posteriors (rows sum to one) instead of labels.
    seed : int or numpy.random.Generator, optional
        Breaks exact (1e-5 relative) ties between the most probable classes,
        drawing from ``rng`` (see :mod:`pystagedtrees.rng`).
    rng : {"numpy", "R", "R-rounding"} or a random source in use, default "numpy"
        With ``"R"`` ties are broken with R's generator after
        ``set.seed(seed)``.
    random_state : optional
        Deprecated alias of ``seed`` (FutureWarning); a source in use
        given here acts as ``rng``.

    Returns
    -------
    pandas.Categorical or pandas.DataFrame
        The class labels (categories ``x.classes``, as R's factor), or the
        posteriors (rows sum to one) with a column per class, in
        ``x.classes`` order, indexed as ``newdata`` (R's matrix with class
        names); as :func:`pystagedtrees.predict` returns them.

    Examples
    --------
    >>> import pandas as pd
    >>> from pystagedtrees.bnc import nb, lp, predict
    >>> d = pd.DataFrame({"c": ["a", "a", "b"], "x": ["u", "u", "v"]})
    >>> m = lp(nb("c", d), d, smooth=1)
    >>> predict(m, pd.DataFrame({"x": ["u", "v"]})).tolist()
    ['a', 'b']
    >>> # P(a)P(u|a) = 3/5 * 3/4 = 0.45, P(b)P(u|b) = 2/5 * 1/3; normalised:
    >>> predict(m, pd.DataFrame({"x": ["u"]}), prob=True).round(4)
    c       a       b
    0  0.7714  0.2286
    """
    _check_model(x, fitted=True)
    prob = check_flag(prob, "prob")
    # R: no rows, no predictions; F order: the columns copied whole
    codes = encode_for_model(x, newdata, allow_no_rows=True, order="F")
    post = class_posteriors(x, codes)
    classes = list(x.classes)
    if prob:
        # ``post`` is ours alone: no copy (pandas copies an array by default)
        return pd.DataFrame(post, index=newdata.index,
                            columns=_class_columns(tuple(classes), x.class_var).copy(),
                            copy=False)
    draws = resolve_source(seed, rng, random_state=random_state)
    return pd.Categorical.from_codes(map_random(post, draws), classes)


def _coded_rows(object, dataset):
    """Feature and class codes of ``dataset`` against the model's levels: a
    subset or a reordering of the data must index the same probabilities."""
    _check_model(object, "object", fitted=True)
    features = encode_for_model(object, dataset, name="dataset")
    if object.class_var not in dataset.columns:
        raise ValueError(f"`dataset` lacks the class column {object.class_var!r}.")
    classes, _ = encode_frame(dataset, columns=[object.class_var],
                              levels={object.class_var: object.levels[object.class_var]},
                              name="dataset")
    classes = classes[:, 0]
    if (classes < 0).any():
        raise ValueError("`dataset` has missing class values; the likelihood needs them.")
    return features, classes


def _log_lik(object, dataset, what):
    features, classes = _coded_rows(object, dataset)  # checks the model too
    # R has no logLik for an AODE: its penalties would need nparams
    _check_not_ensemble(object, what, "object")
    lj = compute_log_joint(object, features)
    return float(lj[np.arange(len(classes)), classes].sum()), len(classes)


def logLik(object: BNCModel, dataset: pd.DataFrame) -> LogLik:  # noqa: N802 (R's name)
    """Log-likelihood ``sum_n ln P(c_n, x_n)`` of a fitted model on ``dataset``.

    Returns
    -------
    pystagedtrees.LogLik
        A float with R's attributes ``df`` (:func:`nparams`) and ``nobs``
        (the rows of ``dataset``).

    Examples
    --------
    >>> import pandas as pd
    >>> from pystagedtrees.bnc import nb, lp, logLik
    >>> d = pd.DataFrame({"c": ["a", "b"], "x": ["u", "v"]})
    >>> ll = logLik(lp(nb("c", d), d, smooth=0), d)  # ln(1/2) twice
    >>> round(ll, 6), ll.df, ll.nobs
    (-1.386294, 3, 2)
    """
    value, n = _log_lik(object, dataset, "logLik()")
    return LogLik(value, df=nparams(object), nobs=n)


def AIC(object: BNCModel, dataset: pd.DataFrame) -> float:  # noqa: N802
    """``logLik - nparams`` (bnclassify's sign convention: larger is better).

    Examples
    --------
    >>> import pandas as pd
    >>> from pystagedtrees.bnc import nb, lp, AIC
    >>> d = pd.DataFrame({"c": ["a", "b"], "x": ["u", "v"]})
    >>> round(AIC(lp(nb("c", d), d, smooth=0), d), 6)  # -2 ln 2 - 3
    -4.386294
    """
    return _log_lik(object, dataset, "AIC()")[0] - nparams(object)


def BIC(object: BNCModel, dataset: pd.DataFrame) -> float:  # noqa: N802
    """``logLik - ln(N)/2 * nparams`` (larger is better).

    Examples
    --------
    >>> import pandas as pd
    >>> from pystagedtrees.bnc import nb, lp, BIC
    >>> d = pd.DataFrame({"c": ["a", "b"], "x": ["u", "v"]})
    >>> round(BIC(lp(nb("c", d), d, smooth=0), d), 6)  # -2 ln 2 - ln(2)/2 * 3
    -2.426015
    """
    ll, n = _log_lik(object, dataset, "BIC()")
    return ll - math.log(n) / 2 * nparams(object)


def cLogLik(object: BNCModel, dataset: pd.DataFrame) -> float:  # noqa: N802 (R's name)
    """Conditional log-likelihood ``sum_n ln P(c_n | x_n)`` on ``dataset``.

    Missing feature values are summed out, as in :func:`predict`.

    Examples
    --------
    >>> import pandas as pd
    >>> from pystagedtrees.bnc import nb, lp, cLogLik
    >>> d = pd.DataFrame({"c": ["a", "b"], "x": ["u", "v"]})
    >>> cLogLik(lp(nb("c", d), d, smooth=0), d)  # each class is certain
    0.0
    """
    features, classes = _coded_rows(object, dataset)
    post = class_posteriors(object, features)
    with np.errstate(divide="ignore"):
        return float(np.log(post[np.arange(len(classes)), classes]).sum())


def accuracy(x: ArrayLike | pd.Categorical, y: ArrayLike | pd.Categorical) -> float:
    """The share of predicted labels ``x`` equal to the true labels ``y``.

    Labels are compared by their level names, as R's ``factor`` names them
    and as :func:`predict` returns them: the number 1 (or 1.0) equals the
    string "1", and True equals "TRUE".  So true labels from a column of
    numbers meet the predicted level names.  bnclassify's ``accuracy``
    compares two factors by their codes, which agrees when both have the
    same levels (``accuracy(factor(c(1, 2)), factor(c("1", "2")))`` is 1)
    and stops on plain vectors.  A missing value equals only a missing
    value, as in R.

    Examples
    --------
    >>> from pystagedtrees.bnc import accuracy
    >>> accuracy(["a", "b", "b"], ["a", "b", "a"])
    0.6666666666666666
    >>> accuracy([1, 2, 2], ["1", "2", "1"])
    0.6666666666666666
    """
    predicted, truth = (_label_array(v, name) for v, name in ((x, "x"), (y, "y")))
    if len(predicted) != len(truth):
        raise ValueError(
            f"`x` and `y` must have the same length; got {len(predicted)} and {len(truth)}."
        )
    if len(predicted) == 0:
        raise ValueError("`x` and `y` are empty: there is no accuracy to compute.")
    missing = pd.isna(predicted), pd.isna(truth)
    names = [_level_names(labels) for labels in (predicted, truth)]
    equal = (names[0] == names[1]) & ~missing[0] & ~missing[1] | (missing[0] & missing[1])
    return float(equal.sum() / len(predicted))


def _level_names(labels):
    """Each label's level name (see :func:`accuracy`)."""
    if pd.api.types.infer_dtype(labels, skipna=True) == "string":
        return labels  # already the names: no loop per label
    return np.array([category_string(v) for v in labels], dtype=object)


def _label_array(labels, name):
    if isinstance(labels, (str, bytes)) or not hasattr(labels, "__len__"):
        raise TypeError(f"`{name}` must be a sequence of labels; got {labels!r}.")
    values = np.asarray(labels, dtype=object)
    if values.ndim != 1:
        raise ValueError(f"`{name}` must be one-dimensional; got shape {values.shape}.")
    return values
