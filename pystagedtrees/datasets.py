"""Datasets shipped with the package: R's ``Titanic``, the data sets of R's
stagedtrees (MIT licence), and bnclassify's ``car`` and ``voting`` (from the
UCI Machine Learning Repository), as R's ``data()`` gives them."""
import json
from importlib import resources

import numpy as np
import pandas as pd

__all__ = ["titanic_table", "titanic", "load", "names"]

# R datasets::Titanic, counts in R's column-major order (Class varies fastest)
_TITANIC_COUNTS = [
    0, 0, 35, 0, 0, 0, 17, 0, 118, 154, 387, 670, 4, 13, 89, 3,
    5, 11, 13, 0, 1, 13, 14, 0, 57, 14, 75, 192, 140, 80, 76, 20,
]
_TITANIC_LEVELS = {
    "Class": ["1st", "2nd", "3rd", "Crew"],
    "Sex": ["Male", "Female"],
    "Age": ["Child", "Adult"],
    "Survived": ["No", "Yes"],
}


def titanic_table():
    """R's ``Titanic`` as a table of counts (a Series with a MultiIndex).

    Returns
    -------
    pandas.Series
        Counts indexed by Class, Sex, Age, Survived (levels in R's order).

    Examples
    --------
    >>> from pystagedtrees.datasets import titanic_table
    >>> t = titanic_table()
    >>> int(t.sum()), list(t.index.names)
    (2201, ['Class', 'Sex', 'Age', 'Survived'])
    """
    names = list(_TITANIC_LEVELS)
    sizes = [len(lev) for lev in _TITANIC_LEVELS.values()]
    # column-major cell order: the first variable varies fastest
    codes = np.unravel_index(np.arange(int(np.prod(sizes))), sizes, order="F")
    index = pd.MultiIndex(levels=list(_TITANIC_LEVELS.values()), codes=codes, names=names)
    return pd.Series(_TITANIC_COUNTS, index=index, name="Freq", dtype=float)


def titanic():
    """R's ``Titanic`` as one row per passenger (categorical columns).

    Examples
    --------
    >>> from pystagedtrees.datasets import titanic
    >>> df = titanic()
    >>> df.shape
    (2201, 4)
    """
    table = titanic_table()
    repeats = table.to_numpy().astype(np.int64)
    frame = table.index.to_frame(index=False).loc[np.repeat(np.arange(len(table)), repeats)]
    return pd.DataFrame(
        {v: pd.Categorical(frame[v], categories=lev) for v, lev in _TITANIC_LEVELS.items()}
    ).reset_index(drop=True)


def _stored_levels():
    return json.loads(resources.files("pystagedtrees").joinpath("data/levels.json").read_text())


def names():
    """The data sets :func:`load` knows, besides :func:`titanic`.

    Examples
    --------
    >>> from pystagedtrees.datasets import names
    >>> names()
    ['Asym', 'PhDArticles', 'Pokemon', 'car', 'covid_patients', 'falls_long', 'trajectories', 'voting']
    """
    return sorted(_stored_levels())


def load(name):
    """A data set of R's stagedtrees or bnclassify, as R's ``data(name)`` gives it.

    Factors become categoricals with R's level order (``NA`` missing),
    character columns (``falls_long``'s) strings, which
    :func:`pystagedtrees.full` sorts into the levels R's ``factor`` gives
    them.

    Parameters
    ----------
    name : str
        One of :func:`names`: ``"PhDArticles"``, ``"Pokemon"``, ``"Asym"``,
        ``"covid_patients"``, ``"trajectories"``, ``"falls_long"``
        (stagedtrees), ``"car"``, ``"voting"`` (bnclassify).

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> import pystagedtrees as st
    >>> phd = st.datasets.load("PhDArticles")
    >>> phd.shape, list(phd["Articles"].cat.categories)
    ((915, 6), ['0', '1-2', '>2'])
    >>> model = st.full(phd, order=["Gender", "Kids", "Married", "Articles"], lambda_=1)
    """
    stored = _stored_levels()
    if not isinstance(name, str) or name not in stored:
        raise ValueError(f"`name` must be one of {sorted(stored)}; got {name!r}.")
    with resources.files("pystagedtrees").joinpath(f"data/{name}.csv.gz").open("rb") as fh:
        raw = pd.read_csv(fh, compression="gzip", keep_default_na=False)
    factors = stored[name]
    return pd.DataFrame({
        column: pd.Categorical.from_codes(raw[column].to_numpy(), factors[column])
        if column in factors else raw[column].astype(object)
        for column in raw.columns
    })
