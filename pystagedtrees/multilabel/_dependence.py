"""Dependence degrees between binary labels, from conditional entropies.

Wang, Ye, Li & Kwong (2021) measure how much a label ``l_j`` depends on a
label ``l_k`` (or on a set ``S`` of labels) by the dependence degree

    I(l_k -> l_j) = 1 - H(l_j | l_k),    I(S -> l_j) = 1 - H(l_j | S),

with entropies in bits, so that both lie in [0, 1] for binary labels.  The
conditional entropy is computed from every cell of the joint table, so
co-occurrence, co-absence and mutual exclusion all count as dependence.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import scipy.sparse as sp
from numpy.typing import ArrayLike
from scipy.special import xlogy

__all__ = ["label_dependence"]

_LN2 = np.log(2.0)


def label_names(Y, name="Y"):
    """The column names of a label frame (None for an array); refuses repeated names."""
    if not isinstance(Y, pd.DataFrame):
        return None
    if not Y.columns.is_unique:
        raise ValueError(f"`{name}` has duplicated column names.")
    return list(Y.columns)


def _binary_label_matrix(Y, name="Y"):
    """Validate a binary label matrix.

    Returns
    -------
    codes : numpy.ndarray of int64, shape (n_samples, n_labels), C-contiguous
        The labels as 0/1.
    names : list or None
        The column names when ``Y`` is a DataFrame.
    """
    names = label_names(Y, name)
    if isinstance(Y, pd.DataFrame):
        values = Y.to_numpy()
    elif sp.issparse(Y):
        values = Y.toarray()
    else:
        values = np.asarray(Y)
    if values.ndim != 2:
        raise ValueError(
            f"`{name}` must be a 2-D label matrix (n_samples, n_labels); got an "
            f"array with {values.ndim} dimension(s). Use Y.reshape(-1, 1) for a "
            "single label."
        )
    if values.shape[0] == 0 or values.shape[1] == 0:
        raise ValueError(
            f"`{name}` must have at least one row and one label column; got "
            f"shape {values.shape}."
        )
    if values.dtype == object:
        try:
            values = values.astype(float)
        except (TypeError, ValueError):
            raise TypeError(
                f"`{name}` must hold 0/1 (or boolean) labels; got non-numeric "
                "values."
            ) from None
    if not (
        np.issubdtype(values.dtype, np.number) or np.issubdtype(values.dtype, np.bool_)
    ):
        raise TypeError(
            f"`{name}` must hold 0/1 (or boolean) labels; got dtype {values.dtype}."
        )
    bad = ~np.isin(values, (0, 1))
    if bad.any():
        row, col = np.argwhere(bad)[0]
        raise ValueError(
            f"`{name}` must hold binary labels coded 0/1; found "
            f"{values[row, col]!r} at row {row}, column {col}."
        )
    return np.ascontiguousarray(values, dtype=np.int64), names


def _conditional_entropy_bits(child, parents):
    """H(child | parents) in bits for 0/1 arrays (``parents`` of shape (n, p)).

    The parent configurations are numbered by their binary expansion and
    counted jointly with the child; empty cells contribute 0 (0 log 0 = 0).
    """
    n_parents = parents.shape[1]
    config = parents @ (1 << np.arange(n_parents, dtype=np.int64))
    joint = np.bincount(2 * config + child, minlength=2 << n_parents)
    per_config = joint[0::2] + joint[1::2]
    # H = -(1/N) sum_{s,y} n_sy log(n_sy / n_s)
    nats = (xlogy(per_config, per_config).sum() - xlogy(joint, joint).sum()) / len(child)
    return max(nats / _LN2, 0.0)  # guard against a rounding -0


def label_dependence(Y: ArrayLike | pd.DataFrame) -> np.ndarray | pd.DataFrame:
    """Pairwise dependence degrees ``I(l_k -> l_j) = 1 - H(l_j | l_k)``.

    Parameters
    ----------
    Y : array-like or pandas.DataFrame of shape (n_samples, n_labels)
        Binary labels coded 0/1 (or booleans).

    Returns
    -------
    numpy.ndarray or pandas.DataFrame of shape (n_labels, n_labels)
        Entry ``[k, j]`` is the dependence degree of label ``j`` on label
        ``k``, i.e. the weight of the arc ``k -> j``; rows are the
        conditioning labels, columns the dependent ones.  Values lie in
        [0, 1]; the diagonal is 1 (a label fully determines itself).  A
        DataFrame with the label names on both axes when ``Y`` is one.

    Notes
    -----
    Entropies are in bits and are estimated by plain frequencies over the
    four cells of each pair's joint table (no smoothing).  A label that is
    constant in ``Y`` has entropy 0, so every label "determines" it fully
    (its whole column is 1).  The matrix is not symmetric:
    ``I(l_k -> l_j) - I(l_j -> l_k) = H(l_k) - H(l_j)``, so the arc into the
    label with the lower entropy is the heavier one.

    Examples
    --------
    >>> from pystagedtrees.multilabel import label_dependence
    >>> import numpy as np
    >>> Y = np.array([[1, 1, 0], [1, 1, 1], [0, 0, 1], [0, 0, 0]])
    >>> label_dependence(Y).round(3)
    array([[1., 1., 0.],
           [1., 1., 0.],
           [0., 0., 1.]])
    """
    codes, names = _binary_label_matrix(Y)
    n_samples = codes.shape[0]
    # both[k, j] = #(l_k = 1, l_j = 1); a float product runs in BLAS, exact below 2**53 rows
    as_float = codes.astype(np.float64)
    both = np.rint(as_float.T @ as_float).astype(np.int64)
    ones = np.diag(both)
    cells = (
        both,
        ones[:, None] - both,  # l_k = 1, l_j = 0
        ones[None, :] - both,  # l_k = 0, l_j = 1
        n_samples - ones[:, None] - ones[None, :] + both,  # both 0
    )
    given = xlogy(ones, ones) + xlogy(n_samples - ones, n_samples - ones)
    nats = given[:, None] - sum(xlogy(c, c) for c in cells)
    degree = np.clip(1.0 - nats / (n_samples * _LN2), 0.0, 1.0)
    if names is not None:
        return pd.DataFrame(degree, index=names, columns=names)
    return degree
