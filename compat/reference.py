"""Loading the R reference results and the data they were computed on.

The references live in the repository, ``tests/reference/<name>.json.gz``
and ``tests/reference/wrappers/<name>.json.gz``, written from live R by
``python -m compat.record --dataset <name>``; the data are the package's
benchmark sets (``pystagedtrees.datasets``).  ``folder=`` reads another
folder of such files (``.json`` or ``.json.gz``), for instance the older
recordings in ``../shared/reference/r`` (:func:`shared_dir`).  Functions
raise FileNotFoundError naming a missing file.

Examples
--------
>>> from compat import reference
>>> "Titanic" in reference.available()
True
>>> train, test, ref = reference.load_split("Titanic")
>>> ref["models"]["full"]["df"], ref["n_test"] == len(test)
(31, True)
"""
import os
from pathlib import Path

from compat._common import REPOSITORY_REFERENCE, read_json

__all__ = [
    "shared_dir",
    "available",
    "load_reference",
    "load_split",
    "model_reference",
]


def shared_dir():
    """The shared folder beside the repository (``$PYSTAGEDTREES_SHARED``, else ``../shared``):
    an extra source of material, never needed by the tests."""
    env = os.environ.get("PYSTAGEDTREES_SHARED")
    return Path(env) if env else Path(__file__).resolve().parents[1].parent / "shared"


def _reference_file(folder, name):
    for suffix in (".json.gz", ".json"):
        if (folder / f"{name}{suffix}").exists():
            return folder / f"{name}{suffix}"
    raise FileNotFoundError(f"no reference for {name!r} in {folder} ({name}.json.gz or {name}.json)")


def available(folder=None):
    """Names of the data sets that have a reference in ``folder`` (default: the repository's)."""
    folder = Path(folder) if folder else REPOSITORY_REFERENCE
    found = {p.name.removesuffix(".gz").removesuffix(".json") for p in folder.glob("*.json*")}
    return sorted(found, key=str.lower)


def load_reference(name, wrappers=False, folder=None):
    """The reference of data set ``name`` as a dict (``wrappers``: bnclassify's wrappers)."""
    folder = Path(folder) if folder else REPOSITORY_REFERENCE
    return read_json(_reference_file(folder / "wrappers" if wrappers else folder, name))


def load_split(name, repetition=1, folder=None):
    """``(train, test, reference)`` of the shipped benchmark set ``name``.

    Columns follow the papers' order (the class, ``answer``, first) and the
    levels are R's (its collation, which Python's sorting does not always
    reproduce); the test suite checks them against the reference.
    """
    from pystagedtrees import datasets

    train, test = datasets.train_test(name, repetition)
    return train, test, load_reference(name, folder=folder)


def model_reference(ref, key):
    """``ref["models"][key]``, or None when R failed on it (an ``error`` entry)."""
    entry = ref["models"].get(key)
    return None if entry is None or "error" in entry else entry
