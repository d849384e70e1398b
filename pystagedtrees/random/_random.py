"""Random staged trees and data (R: R/random_sevt.R, R/sample_from.R,
R/generate_toy_data.R, R/potential_outcomes.R).

Every function draws from a numpy ``Generator`` by default (``seed`` may be
an int or a Generator).  With ``rng="R"`` and an integer ``seed`` it draws
exactly what R draws after ``set.seed(seed)``, in the same order, so an R
simulation can be reproduced number for number; passing an
:class:`~pystagedtrees.rng.RRandom` as ``rng`` continues its stream,
like successive calls in one R session (the rule: :mod:`pystagedtrees.rng`).
"""
from __future__ import annotations

import numbers
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from pystagedtrees.base._validation import (
    as_numbers,
    check_call_fits,
    check_fits_in_memory,
    check_ignore,
    check_int,
    check_number,
)
from pystagedtrees.fitting._construct import sevt as sevt_structure
from pystagedtrees.kernels._random import StageJoiner, draw_levels
from pystagedtrees.model._sevt import Sevt, check_sevt
from pystagedtrees.model._stagevec import ParentStageVector
from pystagedtrees.rng import Rng, Seed, resolve_source

__all__ = [
    "random_sevt",
    "randomize_sevt",
    "sample_from",
    "generate_random_dataset",
    "generate_xor_dataset",
    "generate_linear_dataset",
]

# -- random staged trees ---------------------------------------------------------

def _random_stage_joins(model, i, q, source):
    """R's random joins of variable ``i``'s stages (in place)."""
    model.keep_stages(i, model.stage_vector(i).first_appearance())
    joiner = StageJoiner(len(model.stage_labels(i)))
    while joiner.next_stage < len(model.stage_labels(i)):
        # one uniform per stage, plus the index draws of the accepted ones
        remaining = len(model.stage_labels(i)) - joiner.next_stage
        used = joiner.run(q, source.peek_uniforms(2 * remaining + 64))
        source.advance(used)
    model.assign_stages(i, model.stage_vector(i).remap(joiner.mapping()), model.stage_labels(i))
    model.keep_stages(i, model.stage_vector(i).first_appearance())


def _check_takes_k_and_rng(rfun):
    if not callable(rfun):
        raise TypeError(f"`rfun` must be a function rfun(k, rng); got {rfun!r}.")
    check_call_fits(rfun, "`rfun` must take two arguments, rfun(k, rng)", 1, None)


def _random_distributions(k, n, rfun, source):
    """``n`` distributions over ``k`` levels, ``w / sum(w)`` with ``w = rfun(k, rng)``
    drawn stage after stage; the default weights (R's ``rexp(k)`` per stage)
    come in one draw of ``n * k``, the same stream."""
    if rfun is None:
        weights = source.rexp(n * k).reshape(n, k)
    else:
        weights = np.empty((n, k))
        for stage in range(n):
            drawn = as_numbers(rfun(k, source.generator), "what `rfun(k, rng)` returns")
            if drawn.shape != (k,):
                raise ValueError(f"`rfun(k, rng)` must return k = {k} numbers; got shape "
                                 f"{drawn.shape}.")
            weights[stage] = drawn
    # R normalises abs(w) by sum(w): negative draws would give negative "probabilities"
    bad = ~(np.isfinite(weights).all(axis=1) & (weights >= 0).all(axis=1)
            & (weights.max(axis=1, initial=0.0) > 0))
    if bad.any():
        raise ValueError(
            f"`rfun(k, rng)` must return finite non-negative numbers, not all 0; got "
            f"{weights[np.argmax(bad)]}."
        )
    with np.errstate(over="ignore"):
        total = np.sum(weights, axis=1)
    huge = np.isinf(total)
    if huge.any():  # weights near the largest float: scaled first (R's sum overflows)
        weights[huge] /= weights[huge].max(axis=1, keepdims=True)
        total[huge] = np.sum(weights[huge], axis=1)
    return weights / total[:, None]


def _as_random_base(x):
    if isinstance(x, Sevt):  # its fit and scores describe the old stages
        return x.copy_without(("prob", "ll", "score", "em", "fit_em"))
    if isinstance(x, (dict, list, tuple)):
        return sevt_structure(x, full=True)
    from pystagedtrees.graphs._as_sevt import as_sevt

    return as_sevt(x)


def random_sevt(x: Any, q: float = 0.5, rfun: Callable[[int, Any], Sequence[float]] | None = None,
                seed: Seed = None, rng: Rng = None) -> Sevt:
    """A staged tree with random stages and probabilities (R: ``random_sevt``).

    For each variable but the root, each of its stages (in order of first
    appearance), with probability ``q``, is joined into a stage drawn
    uniformly among the current ones.  Then every stage gets the
    distribution ``w / sum(w)`` with ``w = rfun(k, rng)`` (variables in tree
    order, stages by first appearance, the root last), as R does.  R
    normalises ``|w|`` by ``sum(w)``, which turns negative draws into
    negative "probabilities": here the weights must be non-negative.

    Parameters
    ----------
    x : dict of levels, ParentsList, Sevt, or a DAG
        A dict ``variable -> levels`` (or a list of level lists, variables
        ``V1, V2, ...``) starts from the full tree (R's list method); a :class:`~pystagedtrees.ParentsList`, a model
        string or a networkx DAG from its staged tree (``as_sevt``); a staged
        tree from its own stages.
    q : float, default 0.5
        Probability of joining each stage, in [0, 1].
    rfun : callable, optional
        ``rfun(k, rng)`` returns ``k`` weights, ``rng`` being the numpy
        Generator (or the RRandom with ``rng="R"``).  Default: standard
        exponential draws (R's ``rexp``).
    seed : int or numpy.random.Generator, optional
    rng : {"numpy", "R", "R-rounding"} or a random source in use, optional
        The generator (see :mod:`pystagedtrees.rng`): ``"R"`` replays R
        after ``set.seed(seed)``; default numpy.

    Returns
    -------
    Sevt
        With stage probabilities (sample sizes NaN).  A staged tree ``x``
        keeps its counts, data, ``lambda_`` and ``name_unobserved``, as in
        R, so ``sevt_fit`` refits with them; its log-likelihood, ``score``,
        ``em`` and ``fit_em`` go (R keeps them, though they no longer hold).

    Examples
    --------
    >>> from pystagedtrees import random_sevt
    >>> import pystagedtrees as st
    >>> m = random_sevt({"A": ["a", "b"], "B": ["x", "y"], "C": ["u", "v"]}, q=0.5, seed=3)
    >>> sorted(m.stage_prob)
    ['A', 'B', 'C']
    >>> round(float(m.stage_prob["A"]["1"].sum()), 12)
    1.0
    """
    if isinstance(q, (bool, np.bool_)) or not isinstance(q, numbers.Real):
        raise TypeError(f"`q` must be a probability; got {q!r}.")
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"`q` must be in [0, 1]; got {q!r}.")
    if rfun is not None:
        _check_takes_k_and_rng(rfun)
    source = resolve_source(seed, rng)
    model = _as_random_base(x)
    for i in range(1, len(model.variables)):
        _random_stage_joins(model, i, float(q), source)
    for i in list(range(1, len(model.variables))) + [0]:  # R draws the root's last
        k, n_stages = int(model.n_levels[i]), len(model.stage_labels(i))
        prob = _random_distributions(k, n_stages, rfun, source)
        model.set_stage_probabilities(i, prob, np.full(n_stages, np.nan))
    return model


def randomize_sevt(object: Sevt, treatment: str,
                   p: Sequence[float] | Mapping[str, float] | pd.Series | None = None,
                   ignore: str | Sequence[str] | None = None) -> Sevt:
    """Replace a variable's stages by one randomised stage (R: ``randomize_sevt``).

    Every situation of ``treatment`` whose stage is not in ``ignore`` moves
    to a single stage, ``"randomized"``, with distribution ``p``; the
    ignored stages keep theirs.  This is the intervention of
    :func:`pystagedtrees.potential_outcomes`.

    Parameters
    ----------
    object : Sevt
        A model with stage probabilities.
    treatment : str
    p : sequence of float, dict or pandas.Series, optional
        Distribution over the levels of ``treatment`` (default uniform): in
        level order, or keyed by level name.
    ignore : str or list of str, optional
        Stages to keep (default the unobserved stages).

    Returns
    -------
    Sevt
        Without log-likelihood (the data no longer fit the structure).

    Examples
    --------
    >>> from pystagedtrees import randomize_sevt
    >>> import pystagedtrees as st
    >>> m = randomize_sevt(st.full(st.datasets.titanic_table(), lambda_=1), "Sex")
    >>> set(st.stages(m, "Sex")), m.stage_prob["Sex"]["randomized"].tolist()
    ({'randomized'}, [0.5, 0.5])
    """
    check_sevt(object, fitted=True)
    i = object.var_index(treatment, "treatment")
    p = _treatment_distribution(p, object.tree[treatment], treatment)
    # a list keeps its order: R lists the kept stages' probabilities so
    ignore = check_ignore(ignore, object.name_unobserved)
    model = object.copy()
    labels = model.stage_labels(i)
    kept = [labels.index(s) for s in dict.fromkeys(ignore) if s in labels] if i > 0 else []
    mapping = np.zeros(len(labels), dtype=np.int32)
    mapping[kept] = np.arange(1, len(kept) + 1, dtype=np.int32)
    new_labels = labels.take([0] + kept).replace(0, "randomized")
    model.set_stage_probabilities(i, np.vstack([p, object.stage_probabilities(i)[kept]]),
                                  np.concatenate([[np.nan], object.stage_sizes(i)[kept]]))
    model.assign_stages(i, model.stage_vector(i).remap(mapping), new_labels)
    model.ll = None
    return model


def _treatment_distribution(p, levels, treatment):
    """``p`` as probabilities in level order: uniform by default, a mapping by level name."""
    k = len(levels)
    if p is None:
        return np.full(k, 1.0 / k)
    if isinstance(p, (dict, pd.Series)):
        # names are matched here; R would overwrite them and go by position
        if set(p.keys()) != set(levels):
            raise ValueError(
                f"`p` names levels {sorted(map(str, p.keys()))}; it must name each level of "
                f"{treatment!r} once: {levels}."
            )
        p = [p[level] for level in levels]
    try:
        values = np.asarray(p, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"`p` must be numbers (a probability per level); got {p!r}.") from None
    if values.shape != (k,) or not np.all(np.isfinite(values)) or np.any(values < 0) \
            or not np.isclose(values.sum(), 1.0):
        raise ValueError(
            f"`p` must be a probability vector over the {k} levels of {treatment!r}; got {p}."
        )
    return values


# -- sampling ----------------------------------------------------------------------

def _stage_draw_tables(prob, source, drawable):
    """Cumulative probabilities and level order per stage, as the source samples.

    numpy: levels in order.  R: ``sample``'s decreasing heapsort of the
    normalised probabilities (``revsort``), then running sums.
    """
    n_stages, k = prob.shape
    order = np.tile(np.arange(k, dtype=np.int64), (n_stages, 1))
    # R sums the weights one by one (cumsum's last entry) before dividing
    normalised = np.where(drawable[:, None], prob, 1.0)
    normalised = normalised / np.cumsum(normalised, axis=1)[:, -1:]
    source.order_for_inversion(normalised, order, np.flatnonzero(drawable))
    return np.ascontiguousarray(np.cumsum(normalised, axis=1)), order


def _draw_variable(model, i, codes, situation, source, unobserved, complete):
    """Draw variable ``i`` for every row still on the tree; return the number of draws.

    ``complete`` tells that no row has stopped yet (no situation is -1).
    """
    prob = model.stage_probabilities(i)
    labels = model.stage_labels(i)
    drawable = ~np.isnan(prob).any(axis=1) & (prob.sum(axis=1) > 0)
    for name in unobserved:
        sid = labels.index(name)
        if sid >= 0:
            drawable[sid] = False
    vector = model.stage_vector(i)
    if isinstance(vector, ParentStageVector):
        stage = vector.lookup_codes(codes, i)
    else:
        # rows that stopped earlier (situation -1) look up situation 0, unused
        stage = vector.lookup(situation if complete else np.maximum(situation, 0))
    cum, order = _stage_draw_tables(prob, source, drawable)
    used = draw_levels(
        stage, drawable.astype(np.uint8), cum, order,
        source.peek_uniforms(len(stage)), codes, i, situation,
    )
    source.advance(used)
    return used


def _trie_numbers(model, i, codes, previous):
    """The situations of deep variable ``i`` of the rows drawn so far (-1 for
    those that stopped), from their numbers ``previous`` at ``i - 1`` if deep."""
    alive = codes[:, i - 1] >= 0
    out = np.full(len(codes), -1, dtype=np.int64)
    if previous is None:
        out[alive] = model.situations_of_paths(i, codes[alive, :i])
    else:
        children = model.situation_trie.children[i - model.situation_trie.first]
        out[alive] = children[previous[alive], codes[alive, i - 1]]
    return out


def sample_from(object: Sevt, size: int = 1, seed: Seed = None,
                rng: Rng = None) -> pd.DataFrame:
    """Draw paths (rows of data) from a staged tree (R: ``sample_from``).

    The root's levels are drawn for all rows at once, then each variable
    for each row in turn from the distribution of the row's stage, as R
    does (vectorised here: one compiled pass per variable).  With
    ``rng="R"`` the draws are R's: ``sample`` with replacement for the root
    (Walker's alias method beyond 200 likely levels) and, per row, R's
    inversion over the decreasingly sorted probabilities.  A row whose
    stage is unobserved (in ``name_unobserved``) or has undefined
    probabilities gets a missing value there and after.

    Parameters
    ----------
    object : Sevt
        A model with stage probabilities.
    size : int, default 1
    seed : int or numpy.random.Generator, optional
    rng : {"numpy", "R", "R-rounding"} or a random source in use, optional
        The generator (see :mod:`pystagedtrees.rng`): ``"R"`` reproduces
        R's ``sample_from(object, size, seed)``; default numpy.

    Returns
    -------
    pandas.DataFrame
        Categorical columns with the tree's levels, in tree order;
        ``attrs["seed"]`` holds ``seed``.

    Examples
    --------
    >>> from pystagedtrees import sample_from
    >>> import pystagedtrees as st
    >>> model = st.full(st.datasets.titanic_table(), lambda_=1)
    >>> data = sample_from(model, 1000, seed=1)
    >>> data.shape, list(data.columns)
    ((1000, 4), ['Class', 'Sex', 'Age', 'Survived'])
    """
    check_sevt(object, fitted=True)
    size = check_int(size, "size", minimum=1)
    source = resolve_source(seed, rng)
    p = len(object.variables)
    check_fits_in_memory(8 * (p + 1) * size, f"`size` = {size} rows of {p} variables",
                         "draw fewer rows, or draw in batches")
    codes = np.empty((size, p), dtype=np.int32)
    root = object.stage_probabilities(0)[0]
    if np.isnan(root).any():
        raise ValueError("the root's probabilities are undefined (NaN): cannot sample.")
    codes[:, 0] = source.sample_int(len(root), size, replace=True, prob=root)
    situation = codes[:, 0].astype(np.int64)
    unobserved = set(object.name_unobserved or [])
    complete = True
    numbers = None
    for i in range(1, p):
        if object.is_deep(i):  # numbered in the trie, not by the kernel's mixed radix
            numbers = _trie_numbers(object, i, codes, numbers)
            situation[:] = numbers
        complete = _draw_variable(object, i, codes, situation, source, unobserved, complete) == size
    frame = pd.DataFrame(
        {v: pd.Categorical.from_codes(codes[:, i], object.tree[v]) for i, v in enumerate(object.variables)}
    )
    frame.attrs["seed"] = seed
    return frame


# -- toy data sets -------------------------------------------------------------------

_SIGNS = np.array([-1.0, 1.0])


def _binary_columns(p, n, source):
    """R's columns X1..Xp: for each, ``runif(2)`` weights then n draws of -1/+1."""
    columns = {}
    for j in range(p):
        weights = source.runif(2)
        columns[f"X{j + 1}"] = source.sample_int(2, n, replace=True, prob=weights)
    return columns


def _as_sign_frame(columns):
    return pd.DataFrame(
        {v: pd.Categorical.from_codes(np.asarray(c, dtype=np.int64), ["-1", "1"]) for v, c in columns.items()}
    )


def _check_data_size(p, n):
    """``p`` variables and ``n`` rows, whole numbers whose data fit in memory."""
    p = check_int(p, "p", minimum=1)
    n = check_int(n, "n", minimum=1)
    check_fits_in_memory(8 * p * n, f"`n` = {n} rows of `p` = {p} variables",
                         "ask for fewer rows or variables")
    return p, n


def generate_random_dataset(p: int, n: int, seed: Seed = None, rng: Rng = None) -> pd.DataFrame:
    """``n`` rows of ``p`` independent -1/+1 variables with random margins (R: ``generate_random_dataset``).

    Returns
    -------
    pandas.DataFrame
        Columns ``X1..Xp``, categorical with levels ``["-1", "1"]``.

    Examples
    --------
    >>> from pystagedtrees import generate_random_dataset
    >>> generate_random_dataset(3, 5, seed=1).shape
    (5, 3)
    """
    p, n = _check_data_size(p, n)
    source = resolve_source(seed, rng)
    return _as_sign_frame(_binary_columns(p, n, source))


def generate_xor_dataset(p: int, n: int, eps: float = 1.2, seed: Seed = None,
                         rng: Rng = None) -> pd.DataFrame:
    """A noisy XOR class over ``p`` random -1/+1 variables (R: ``generate_xor_dataset``).

    ``C = sign(X1 * ... * Xp + U)``, ``U ~ Uniform(-eps, eps)`` per row; a
    sign of 0 is missing (as in R).

    Returns
    -------
    pandas.DataFrame
        Columns ``C, X1..Xp``, categorical with levels ``["-1", "1"]``.

    Examples
    --------
    >>> from pystagedtrees import generate_xor_dataset
    >>> d = generate_xor_dataset(2, 200, eps=0, seed=1)
    >>> x = d[["X1", "X2"]].astype(int).prod(axis=1)
    >>> bool((d["C"].astype(int) == x).all())
    True
    """
    p, n = _check_data_size(p, n)
    eps = check_number(eps, "eps")
    source = resolve_source(seed, rng)
    columns = _binary_columns(p, n, source)
    product = np.prod(np.column_stack([_SIGNS[c] for c in columns.values()]), axis=1)
    noise = source.runif(n, -eps, eps)
    sign = np.sign(product + noise)
    codes = np.where(sign > 0, 1, np.where(sign < 0, 0, -1))
    return _as_sign_frame({"C": codes, **columns})


def generate_linear_dataset(p: int, n: int, eps: float = 1.2, gamma: float | None = None,
                            alpha: Sequence[float] | None = None, seed: Seed = None,
                            rng: Rng = None) -> pd.DataFrame:
    """A noisy linear class over ``p`` random -1/+1 variables (R: ``generate_linear_dataset``).

    ``C = sign(sum_j alpha_j X_j + U + gamma)``, ``U ~ Uniform(-eps, eps)``
    per row; a sign of 0 counts as 1.  Defaults: ``alpha ~ Uniform(-p, p)^p``
    and ``gamma ~ Uniform(-p, p)``, drawn when R's lazy defaults are
    evaluated (alpha just before the first row's noise, gamma just after).

    Returns
    -------
    pandas.DataFrame
        Columns ``C, X1..Xp`` (categorical, levels ``["-1", "1"]``), with
        ``attrs["alpha"]`` and ``attrs["gamma"]``.

    Examples
    --------
    >>> from pystagedtrees import generate_linear_dataset
    >>> d = generate_linear_dataset(3, 6, seed=1, rng="R")
    >>> [round(a, 6) for a in d.attrs["alpha"]], round(d.attrs["gamma"], 6)
    ([-1.396676, -0.683315, -2.919658], 2.218145)
    """
    p, n = _check_data_size(p, n)
    eps = check_number(eps, "eps")
    if alpha is not None:
        try:
            if isinstance(alpha, (str, bytes, dict)):
                raise TypeError
            alpha = np.asarray(alpha, dtype=float)
        except (TypeError, ValueError):
            raise TypeError(f"`alpha` must be {p} finite numbers; got {alpha!r}.") from None
        if alpha.shape != (p,) or not np.all(np.isfinite(alpha)):
            raise ValueError(f"`alpha` must be {p} finite numbers; got {alpha}.")
    if gamma is not None and (isinstance(gamma, (bool, np.bool_))
                              or not isinstance(gamma, numbers.Real)):
        raise TypeError(f"`gamma` must be a finite number; got {gamma!r}.")
    if gamma is not None and not np.isfinite(gamma):
        raise ValueError(f"`gamma` must be a finite number; got {gamma!r}.")
    source = resolve_source(seed, rng)
    columns = _binary_columns(p, n, source)
    if alpha is None:
        alpha = source.runif(p, -p, p)
    first_noise = source.runif(1, -eps, eps)
    gamma = float(source.runif(1, -p, p)[0]) if gamma is None else float(gamma)
    noise = np.concatenate([first_noise, source.runif(n - 1, -eps, eps)])
    signs = np.column_stack([_SIGNS[c] for c in columns.values()])
    # R's sum() accumulates in long double
    linear = np.sum(signs * alpha, axis=1, dtype=np.longdouble).astype(float)
    codes = np.where(np.sign(linear + noise + gamma) < 0, 0, 1)
    frame = _as_sign_frame({"C": codes, **columns})
    frame.attrs["alpha"] = [float(a) for a in alpha]
    frame.attrs["gamma"] = gamma
    return frame
