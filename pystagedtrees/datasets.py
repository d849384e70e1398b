"""Data sets shipped with the package, with R's level order.

Three collections, all loaded by :func:`load`:

* **R's data sets**, as R's ``data()`` gives them: ``Titanic`` (R's
  datasets package; :func:`titanic_table` is the table of counts R holds,
  :func:`titanic` and ``load("Titanic")`` the same counts as one row per
  passenger), the data of R's stagedtrees (``Asym``, ``PhDArticles``,
  ``Pokemon``, ``covid_patients``, ``trajectories``, ``falls_long``) and
  bnclassify's ``car`` and ``voting``.
* **The papers' benchmark sets**: the 22 categorical data sets of the
  staged tree classifier papers (Carli, Leonelli & Varando 2023; Leonelli &
  Varando 2024), as their experiment code prepared them (repository
  stagedtrees/exp_class_stagedtrees): the class is the first column,
  ``answer``, and the levels are in the order R's ``read.csv`` gave them
  (R's collation: ``PhDArticles``'s ``answer`` is ``['>2', '0', '1-2']``).
  ``load(name, benchmark=True)`` reads them, and :func:`splits` and
  :func:`train_test` their ten random 80/20 train/test splits.  Five share a
  name with an R data set and are R's data recoded: ``Asym``,
  ``PhDArticles`` and ``Pokemon`` with the class renamed ``answer``, put
  first and its levels sorted; ``Titanic`` is :func:`titanic`'s rows in the
  same order, ``Survived`` renamed ``answer``; ``voting`` is bnclassify's
  rows without a missing vote (232 of 435).  ``house_votes`` holds the
  same rows as ``voting`` with the columns named ``V2`` ... ``V17``, and
  ``FallEld`` the rows of ``falls_long`` in another order, with
  Housing and Assessment joined into ``A`` and Referred and Treatment into
  ``T``.
* **emotions**, the multi-label data set of the label-network chain study:
  593 music clips, six 0/1 label columns first, then 72 numeric features.

Each set's source and licence are in the package's NOTICE file; the test
suite checks every benchmark set against the rows and levels R's
references were recorded on.

Examples
--------
>>> import pystagedtrees as st
>>> train, test = st.datasets.train_test("monks1", repetition=1)
>>> train.shape, test.shape, list(train.columns[:2])
((346, 7), (86, 7), ['answer', 'V3'])
>>> st.datasets.load("Titanic").shape
(2201, 4)
"""
import json
from importlib import resources

import numpy as np
import pandas as pd

from pystagedtrees.base._validation import check_flag, check_int

__all__ = ["titanic_table", "titanic", "load", "names", "splits", "train_test"]

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
_BENCHMARK = "data/benchmark"
_EMOTIONS = "emotions"
_EMOTIONS_LABELS = 6  # its first columns


def titanic_table() -> pd.Series:
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


def titanic() -> pd.DataFrame:
    """R's ``Titanic`` as one row per passenger (categorical columns).

    The rows follow the table's cells in R's order, as R's
    ``as.data.frame(Titanic)`` expanded by ``Freq`` gives them; this is also
    ``load("Titanic")``.

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


def _read_json(path):
    return json.loads(resources.files("pystagedtrees").joinpath(path).read_text(encoding="utf-8"))


def _r_levels():
    return _read_json("data/levels.json")


def _benchmark_levels():
    return _read_json(f"{_BENCHMARK}/levels.json")


def _read_gzip_csv(path, **options):
    with resources.files("pystagedtrees").joinpath(path).open("rb") as fh:
        return pd.read_csv(fh, compression="gzip", **options)


def _from_codes(raw, factors):
    """Codes (-1 missing) to categoricals with the stored levels; other columns as text."""
    return pd.DataFrame({
        column: pd.Categorical.from_codes(raw[column].to_numpy(), factors[column])
        if column in factors else raw[column].astype(object)
        for column in raw.columns
    })


def names(benchmark: bool = False) -> list:
    """The names :func:`load` knows (with ``benchmark=True``: the papers' 22 sets).

    Examples
    --------
    >>> from pystagedtrees.datasets import names
    >>> names(benchmark=True)[:4]
    ['Asym', 'breast_cancer_wisconsin', 'chestSim500', 'credit_card']
    >>> [n for n in names() if n not in names(benchmark=True)]
    ['car', 'covid_patients', 'emotions', 'falls_long', 'trajectories']
    """
    papers = sorted(_benchmark_levels(), key=str.lower)
    if check_flag(benchmark, "benchmark"):
        return papers
    return sorted(set(_r_levels()) | {"Titanic", _EMOTIONS} | set(papers), key=str.lower)


def _check_name(name, benchmark):
    known = names(benchmark)
    if not isinstance(name, str) or name not in known:
        which = "the papers' benchmark sets" if benchmark else "the shipped data sets"
        raise ValueError(f"`name` must be one of {which}: {known}; got {name!r}.")
    return name


def load(name: str, benchmark: bool = False) -> pd.DataFrame:
    """A shipped data set, as R (or the papers' code) gives it.

    Factors become categoricals with R's level order (``NA`` missing);
    character columns (``falls_long``'s) stay strings, which
    :func:`pystagedtrees.full` sorts into the levels R's ``factor`` gives
    them.

    Parameters
    ----------
    name : str
        One of :func:`names`: an R data set (``"PhDArticles"``,
        ``"Pokemon"``, ``"Asym"``, ``"covid_patients"``, ``"trajectories"``,
        ``"falls_long"``, ``"Titanic"``; bnclassify's ``"car"``,
        ``"voting"``), one of the papers' benchmark sets (``"monks1"``,
        ``"credit_card"``, ...) or ``"emotions"``.
    benchmark : bool, default False
        Load the papers' version of a benchmark set (class ``answer`` first,
        the rows :func:`splits` indexes).  Only needed for the five names
        that are also R data sets (``Asym``, ``PhDArticles``, ``Pokemon``,
        ``Titanic``, ``voting``): the other benchmark sets have no other
        version.

    Returns
    -------
    pandas.DataFrame
        ``emotions``: six int columns of 0/1 labels, then 72 float features.

    Examples
    --------
    >>> import pystagedtrees as st
    >>> phd = st.datasets.load("PhDArticles")
    >>> phd.shape, list(phd["Articles"].cat.categories)
    ((915, 6), ['0', '1-2', '>2'])
    >>> model = st.full(phd, order=["Gender", "Kids", "Married", "Articles"], lambda_=1)
    >>> papers = st.datasets.load("PhDArticles", benchmark=True)
    >>> list(papers.columns[:2]), list(papers["answer"].cat.categories)
    (['answer', 'Gender'], ['>2', '0', '1-2'])
    """
    benchmark = check_flag(benchmark, "benchmark")
    _check_name(name, benchmark)
    if name == _EMOTIONS:
        data = _read_gzip_csv("data/emotions.csv.gz")
        return data.astype({c: float for c in data.columns[_EMOTIONS_LABELS:]})
    r_levels = _r_levels()
    if not benchmark and name == "Titanic":
        return titanic()
    if not benchmark and name in r_levels:
        raw = _read_gzip_csv(f"data/{name}.csv.gz", keep_default_na=False)
        return _from_codes(raw, r_levels[name])
    raw = _read_gzip_csv(f"{_BENCHMARK}/{name}.csv.gz")
    return _from_codes(raw, _benchmark_levels()[name])


def splits(name: str) -> dict:
    """The papers' ten train/test splits of a benchmark set: its test rows.

    Parameters
    ----------
    name : str
        One of ``names(benchmark=True)``.

    Returns
    -------
    dict
        Repetition number (1 to 10, the papers' ``V1`` ... ``V10``) -> the
        **0-based** positions of the test rows in ``load(name,
        benchmark=True)``, sorted (the papers' files hold 1-based row
        numbers).  The other rows are the training set.

    Examples
    --------
    >>> from pystagedtrees.datasets import splits
    >>> s = splits("iris")             # the papers' V1 starts 7, 17, 18
    >>> sorted(s)[:3], len(s[1]), s[1][:3].tolist()
    ([1, 2, 3], 30, [6, 16, 17])
    """
    _check_name(name, benchmark=True)
    numbers = _read_gzip_csv(f"{_BENCHMARK}/{name}_test_ids.csv.gz")
    return {int(column.removeprefix("V")): numbers[column].to_numpy(dtype=np.int64) - 1
            for column in numbers.columns}


def train_test(name: str, repetition: int = 1) -> tuple:
    """The training and test rows of one of the papers' splits of a benchmark set.

    Parameters
    ----------
    name : str
        One of ``names(benchmark=True)``.
    repetition : int, default 1
        The split, 1 to 10 (the papers' ``V1`` ... ``V10``).

    Returns
    -------
    (pandas.DataFrame, pandas.DataFrame)
        Training and test rows of ``load(name, benchmark=True)`` in their
        order, each indexed from 0.

    Examples
    --------
    >>> from pystagedtrees.datasets import train_test
    >>> train, test = train_test("Titanic", repetition=2)
    >>> len(train), len(test)
    (1761, 440)
    """
    every = splits(name)
    repetition = check_int(repetition, "repetition", minimum=1)
    if repetition not in every:
        raise ValueError(f"`repetition` must be between 1 and {max(every)}; got {repetition}.")
    data = load(name, benchmark=True)
    is_test = np.zeros(len(data), dtype=bool)
    is_test[every[repetition]] = True
    return data[~is_test].reset_index(drop=True), data[is_test].reset_index(drop=True)
