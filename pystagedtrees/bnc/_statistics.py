"""Data statistics of bnclassify: (conditional) mutual information."""
from __future__ import annotations

import math
from typing import Literal

import numpy as np
import pandas as pd

from pystagedtrees.base._data import check_column, check_frame
from pystagedtrees.base._validation import check_choice
from pystagedtrees.bnc._dataset import encode_dataset
from pystagedtrees.bnc._params import family_table
from pystagedtrees.kernels._bnc_counts import entropy_ml

__all__ = ["cmi", "cmi_table"]

UNITS = {"log": 1.0, "log2": math.log(2), "log10": math.log(10)}


def cmi_table(counts, unit="log"):
    """Mutual information of a 2-D ``(x, y)`` table of counts, or the
    conditional mutual information of a 3-D ``(x, y, z)`` one.

    Plug-in estimates, as R's ``entropy`` package computes them: the 2-D
    case as the Kullback-Leibler divergence from the product of the
    margins, the 3-D case as ``H(x,z) + H(y,z) - H(x,y,z) - H(z)``.
    """
    scale = UNITS[unit]
    if counts.ndim == 2:
        joint = counts / counts.sum()
        null = np.outer(joint.sum(axis=1), joint.sum(axis=0))
        seen = joint > 0
        return float(np.sum(joint[seen] * np.log(joint[seen] / null[seen]))) / scale

    def entropy(table):
        # R's entropy walks a table in column-major order
        return entropy_ml(np.asfortranarray(table).ravel(order="F")) / scale

    return (entropy(counts.sum(axis=1)) + entropy(counts.sum(axis=0))
            - entropy(counts) - entropy(counts.sum(axis=(0, 1))))


def cmi(x: str, y: str, dataset: pd.DataFrame, z: str | None = None,
        unit: Literal["log", "log2", "log10"] = "log") -> float:
    """Mutual information ``I(x; y)``, or ``I(x; y | z)`` given ``z``.

    The plug-in (maximum-likelihood) estimate from the rows of ``dataset``
    complete on the variables involved, as R's ``bnclassify::cmi``.

    Parameters
    ----------
    x, y : str
        Column names.
    dataset : pandas.DataFrame
        Categorical data.
    z : str, optional
        The conditioning column.
    unit : {"log", "log2", "log10"}
        Base of the logarithm (R's ``entropy`` units): nats, bits, or bans.

    Returns
    -------
    float

    Examples
    --------
    >>> import pandas as pd
    >>> from pystagedtrees.bnc import cmi
    >>> d = pd.DataFrame({"x": list("aabb"), "y": list("ccdd"), "z": list("efef")})
    >>> cmi("x", "y", d, unit="log2")  # y copies x: one bit
    1.0
    >>> cmi("x", "z", d)
    0.0
    """
    check_frame(dataset, "dataset")
    names = [x, y] if z is None else [x, y, z]
    for arg, value in zip(["x", "y", "z"], names):
        check_column(value, arg, dataset, "dataset")
    check_choice(unit, "unit", list(UNITS))
    distinct = list(dict.fromkeys(names))
    enc = encode_dataset(distinct[0], dataset, columns=distinct)
    counts = family_table(enc, names)
    if counts.sum() == 0:
        raise ValueError(
            f"`dataset` has no row where all of {distinct} are observed."
        )
    return cmi_table(counts, unit)
