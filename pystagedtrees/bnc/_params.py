"""Parameter learning: smoothed maximum likelihood, AWNB, MANB and WANBIA."""
from __future__ import annotations

import math
import numbers
import warnings

import numpy as np
import pandas as pd
from scipy.optimize import minimize
from scipy.special import gammaln, logsumexp

from pystagedtrees.base._validation import check_fits_in_memory, check_flag, check_smoothing
from pystagedtrees.bnc._awnb import check_awnb_args, compute_awnb_weights
from pystagedtrees.bnc._dataset import encode_dataset
from pystagedtrees.bnc._model import BNCModel, _check_model
from pystagedtrees.kernels._bnc_counts import family_counts
from pystagedtrees.rng import RandomSource, Rng, Seed, resolve_source

__all__ = ["lp", "cpt", "fit_cpts"]


def normalise_columns(table, axis=0):
    """Divide ``table`` by its sums over ``axis`` (the child variable).

    A column summing to zero becomes uniform (R's ``normalize``).
    """
    sums = table.sum(axis=axis, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(sums == 0, 1.0 / table.shape[axis], table / sums)


def cpt(counts, smooth, axis=0):
    """Conditional probability table ``(N + a) / (sum_x N + r a)`` over ``axis``."""
    return normalise_columns(counts + smooth, axis)


def family_table(enc, family):
    """Counts over the variables of ``family``, shaped by their levels."""
    if enc.tables is not None:
        return enc.table(family)
    dims = enc.dims(family)
    cells = math.prod(int(d) for d in dims)  # Python ints: no wrap-around
    check_fits_in_memory(
        8 * cells, f"the table of the family of {family[0]!r} ({len(family)} variables) has "
        f"{cells:,} cells",
        "give the feature fewer parents or its parents fewer levels",
    )
    weights = enc.weights
    if weights is not None and weights.shape != (enc.codes.shape[0],):
        raise ValueError(f"row weights of shape {weights.shape} for {enc.codes.shape[0]} rows.")
    counts = family_counts(
        np.ascontiguousarray(enc.codes, dtype=np.int32),
        np.asarray(enc.index(family), dtype=np.int64), np.asarray(dims, dtype=np.int64), weights,
    )
    return counts.reshape(dims)


def fit_cpts(fams, enc, smooth):
    """The smoothed CPT of every family, keyed by its variable."""
    return {v: cpt(family_table(enc, fam), smooth) for v, fam in fams.items()}


def _check_weighting(awnb_trees, awnb_bootstrap, manb_prior, wanbia):
    if wanbia is not None:
        check_flag(wanbia, "wanbia")
    awnb = awnb_trees is not None or awnb_bootstrap is not None
    chosen = [awnb, manb_prior is not None, bool(wanbia)]
    if sum(chosen) > 1:
        raise ValueError(
            "Either MANB, AWNB, WANBIA or none of them can be used: pass at most "
            "one of `awnb_trees`/`awnb_bootstrap`, `manb_prior`, `wanbia`."
        )
    return awnb


def _check_no_weighting_of_aode(awnb_trees, awnb_bootstrap, manb_prior, wanbia):
    """Refuse the feature weightings for an AODE, which bnclassify silently ignores."""
    given = {"awnb_trees": awnb_trees is not None, "awnb_bootstrap": awnb_bootstrap is not None,
             "manb_prior": manb_prior is not None, "wanbia": bool(wanbia)}
    for name, is_given in given.items():
        if is_given:
            raise ValueError(
                f"`{name}` cannot be used with an AODE ensemble `x`: bnclassify fits its "
                "one-dependence estimators with `smooth` alone and ignores the AWNB, MANB "
                "and WANBIA arguments; leave it out."
            )


def _is_naive_bayes(model):
    return all(len(model.families[f]) == 2 for f in model.features)


def lp(x: BNCModel, dataset: pd.DataFrame, smooth: float, awnb_trees: int | None = None,
       awnb_bootstrap: float | None = None, manb_prior: float | None = None,
       wanbia: bool | None = None, seed: Seed = None, rng: Rng = "numpy",
       random_state: Seed | RandomSource = None) -> BNCModel:
    """Learn the parameters of a classifier structure.

    Parameters
    ----------
    x : BNCModel
        A structure (or fitted model, whose parameters are re-learned).
    dataset : pandas.DataFrame
        Categorical data holding the class and every feature of ``x``.
    smooth : float
        Dirichlet (Laplace) pseudo-count ``a >= 0``:
        ``theta = (N_x,pa + a) / (N_pa + r a)``; a parent configuration with
        no data (when ``a = 0``) gets a uniform distribution.
    awnb_trees, awnb_bootstrap : int, float, optional
        AWNB weighting (Hall, 2007), switched on by either argument: each
        feature's CPT becomes ``theta^w`` renormalised, ``w`` the mean of
        ``1/sqrt(d)`` over ``awnb_trees`` (default 10) unpruned trees grown
        as R's rpart does on bootstrap samples of ``trunc(n * awnb_bootstrap)``
        rows (default 0.5), ``d`` the depth at which the feature is first
        tested (0 if never).  The features are taken in data column order,
        which breaks ties between them as in bnclassify.
    manb_prior : float, optional
        Prior probability of each arc of a naive Bayes (MANB averaging).
    wanbia : bool, optional
        Weight the features by maximising the conditional log-likelihood
        of a naive Bayes over them (WANBIA); the weights then apply to the
        CPTs of ``x``, whatever its structure, as in bnclassify.
    seed : int or numpy.random.Generator, optional
        The seed of the AWNB bootstrap samples' ``rng`` (see
        :mod:`pystagedtrees.rng`).
    rng : {"numpy", "R", "R-rounding"} or a random source in use, default "numpy"
        ``rng="R", seed=`` draws what bnclassify draws after
        ``set.seed(seed)``; the source of an enclosing call (e.g. :func:`cv`)
        continues its stream.  Nothing is drawn without AWNB, so R's seed
        may then be missing.
    random_state : optional
        Deprecated alias of ``seed`` (FutureWarning); a source in use
        given here acts as ``rng``.

    Returns
    -------
    BNCModel
        A fitted copy of ``x``.

    Raises
    ------
    ValueError
        For an AODE ensemble ``x``, any of AWNB, MANB or WANBIA: bnclassify
        (0.4.8) fits each of its one-dependence estimators with ``smooth``
        alone and silently drops these arguments, so no weighted AODE exists
        to reproduce.

    Examples
    --------
    >>> import pandas as pd
    >>> from pystagedtrees.bnc import nb, lp
    >>> d = pd.DataFrame({"c": ["a", "a", "b"], "x": ["u", "v", "v"]})
    >>> m = lp(nb("c", d), d, smooth=1)
    >>> m.params["x"]  # P(x | c): column c=a is (1+1, 1+1)/4, c=b is (0+1, 1+1)/3
    array([[0.5       , 0.33333333],
           [0.5       , 0.66666667]])
    """
    _check_model(x)
    smooth = check_smoothing(smooth, "smooth")
    awnb = _check_weighting(awnb_trees, awnb_bootstrap, manb_prior, wanbia)
    if awnb:
        trees, bootstrap = check_awnb_args(awnb_trees, awnb_bootstrap)
    # checked even when nothing is drawn
    draws = resolve_source(seed, rng, random_state=random_state, seed_needed=awnb)
    if x.is_aode:
        _check_no_weighting_of_aode(awnb_trees, awnb_bootstrap, manb_prior, wanbia)
    variables = [*x.features, x.class_var]
    enc = encode_dataset(x.class_var, dataset, columns=variables)
    lp_args = lp_arguments(smooth, awnb_trees, awnb_bootstrap, manb_prior, wanbia)
    if manb_prior is not None and not x.is_aode and not _is_naive_bayes(x):
        raise ValueError(
            "`manb_prior` (MANB) applies to naive Bayes structures only; `x` has feature parents."
        )
    fitted = fit_structure(x, enc, lp_args)
    if x.is_aode:
        return fitted
    if awnb:
        fitted = _awnb(fitted, dataset, trees, bootstrap, draws)
    if manb_prior is not None:
        fitted = _manb(fitted, enc, smooth, manb_prior)
    if wanbia:
        in_model = set(x.features)
        fitted = _wanbia(fitted, enc, [c for c in dataset.columns if c in in_model])
    return fitted


def _fit(model, enc, smooth):
    params = fit_cpts(model.families, enc, smooth)
    levels = {v: enc.levels[v] for v in model.families}
    return model.copy_structure(params=params, levels=levels)


def lp_arguments(smooth, awnb_trees=None, awnb_bootstrap=None, manb_prior=None, wanbia=None):
    """The :func:`lp` arguments a fitted model records (``lp_args``)."""
    return dict(smooth=smooth, awnb_trees=awnb_trees, awnb_bootstrap=awnb_bootstrap,
                manb_prior=manb_prior, wanbia=wanbia)


def fit_structure(x, enc, lp_args):
    """A fitted copy of the structure ``x`` with the smoothed CPTs of ``enc``
    (an AODE fits each of its one-dependence estimators); ``lp_args`` are
    recorded as the arguments it was fitted with."""
    smooth = lp_args["smooth"]
    if x.is_aode:
        models = [_fit(m, enc, smooth) for m in x.models]
        return x.copy_structure(models=models, levels=enc.levels, lp_args=lp_args)
    return _fit(x, enc, smooth).copy_structure(lp_args=lp_args)


def _manb(model, enc, smooth, prior):
    """Model averaging over the arcs of a naive Bayes (Dash & Cooper, 2002)."""
    if not isinstance(prior, numbers.Real) or not 0 <= prior <= 1:
        raise ValueError(f"`manb_prior` must be a probability in [0, 1]; got {prior!r}.")
    if smooth <= 0:
        raise ValueError("MANB needs `smooth` > 0.")
    a = smooth
    params = dict(model.params)
    posteriors = {}
    with np.errstate(divide="ignore"):
        log_prior, log_not = np.log(prior), np.log1p(-prior)
    for f in model.features:
        n_xc = family_table(enc, model.families[f])  # (r, rc)
        r, rc = n_xc.shape
        n_c, n_x, n = n_xc.sum(axis=0), n_xc.sum(axis=1), n_xc.sum()
        lpa = (rc * gammaln(r * a) - gammaln(r * a + n_c).sum()
               + (gammaln(a + n_xc) - gammaln(a)).sum())
        lpna = gammaln(r * a) - gammaln(r * a + n) + (gammaln(a + n_x) - gammaln(a)).sum()
        with_arc, without = lpa + log_prior, lpna + log_not
        p = math.exp(with_arc - logsumexp([with_arc, without]))
        posteriors[f] = p
        theta_x = (n_x + a) / (n_x + a).sum()
        with np.errstate(divide="ignore"):
            mixed = np.logaddexp(np.log(p) + np.log(params[f]),
                                 np.log1p(-p) + np.log(theta_x)[:, None])
        params[f] = np.exp(mixed)
    out = model.copy_structure(params=params)
    out.manb_arc_posterior = posteriors
    return out


def apply_weights(params, weights):
    """``theta^w`` renormalised over the child, per feature (class untouched)."""
    out = dict(params)
    for f, w in weights.items():
        out[f] = normalise_columns(params[f] ** w)
    return out


def _awnb(model, dataset, trees, bootstrap, draws):
    """Weight the feature CPTs by their AWNB weights (Hall, 2007)."""
    in_model = set(model.features)
    features = [c for c in dataset.columns if c in in_model]
    weights = compute_awnb_weights(model.class_var, dataset, trees, bootstrap, features=features,
                                   rng=draws)
    out = model.copy_structure(params=apply_weights(model.params, weights))
    out.weights = weights
    return out


def _wanbia(model, enc, feats):
    """Feature weights maximising the conditional log-likelihood (Zaidi et al., 2013).

    The weights come from a naive Bayes over the same features with
    smooth = 1, as in bnclassify, then weight the CPTs of ``model``, whatever
    its structure.  ``feats`` are the features in data column order, the
    order of bnclassify's sums.
    """
    if not feats:
        return model
    naive_families = {f: [f, model.class_var] for f in feats}
    naive_families[model.class_var] = [model.class_var]
    unit = fit_cpts(naive_families, enc, 1.0)
    cls = enc.codes[:, enc.class_index]
    rows = cls >= 0
    cls = cls[rows]
    n, n_class = len(cls), len(model.classes)
    # log theta_i(x_ni, c) for every row and class; an NA feature gives 0.
    logs = np.zeros((len(feats), n, n_class))
    seen = np.zeros((len(feats), n))
    for i, f in enumerate(feats):
        x = enc.codes[rows, enc.columns.index(f)]
        seen[i] = x >= 0
        logs[i, x >= 0] = np.log(unit[f][x[x >= 0]])
    log_prior = np.log(unit[model.class_var])
    at_truth = np.arange(n)

    def objective(w):
        # The CLL of the weighted CPTs, renormalised as apply_weights does;
        # the gradient is bnclassify's, taken on the unweighted log CPTs.
        log_norm = np.stack([np.log((unit[f] ** wi).sum(axis=0)) for f, wi in zip(feats, w)])
        lj = (log_prior + np.tensordot(w, logs, axes=1)
              - np.tensordot(seen, log_norm, axes=([0], [0])))
        post_log = lj - logsumexp(lj, axis=1, keepdims=True)
        cll = post_log[at_truth, cls].sum()
        post = np.exp(post_log)
        grad = -logs[:, at_truth, cls].sum(axis=1) + np.einsum("inc,nc->i", logs, post)
        return -cll, grad

    res = minimize(objective, np.ones(len(feats)), jac=True, method="L-BFGS-B",
                   bounds=[(0.0, 1.0)] * len(feats),
                   options=dict(maxcor=5, ftol=1e7 * np.finfo(float).eps, gtol=0,
                                maxiter=100))
    if res.status != 0:  # as bnclassify warns
        warnings.warn(f"WANBIA did not converge correctly. {res.message}", RuntimeWarning,
                      stacklevel=3)
    by_name = dict(zip(feats, res.x))
    weights = {f: by_name[f] for f in model.features}
    out = model.copy_structure(params=apply_weights(model.params, weights))
    out.weights = weights
    return out
