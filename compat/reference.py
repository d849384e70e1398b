"""Loading the R reference results and the shared data they were computed on.

The reference lives beside the repository, in ``../shared`` (or wherever
the environment variable ``PYSTAGEDTREES_SHARED`` points):
``reference/r/<name>.json`` (written by R, or by :mod:`compat.record`),
``reference/r/wrappers/<name>.json``, ``data/single-label/<name>.csv`` and
``data/splits/<name>_test_ids.csv``.  Functions raise FileNotFoundError
naming the missing path; tests turn that into a skip.

Examples
--------
>>> from compat import reference
>>> names = reference.available()            # doctest: +SKIP
>>> train, test, ref = reference.load_split("Titanic")  # doctest: +SKIP
>>> ref["models"]["full"]["df"]              # doctest: +SKIP
31
"""
import json
import os
from pathlib import Path

from compat._common import read_dataset, split_rows

__all__ = [
    "shared_dir",
    "available",
    "load_reference",
    "load_split",
    "model_reference",
]


def shared_dir():
    """The shared folder: ``$PYSTAGEDTREES_SHARED``, else ``../shared`` beside the repository."""
    env = os.environ.get("PYSTAGEDTREES_SHARED")
    return Path(env) if env else Path(__file__).resolve().parents[1].parent / "shared"


def _existing(path):
    if not path.exists():
        raise FileNotFoundError(f"reference material not found: {path}")
    return path


def available(shared=None):
    """Names of the datasets that have a reference JSON."""
    folder = (Path(shared) if shared else shared_dir()) / "reference" / "r"
    return sorted(p.stem for p in folder.glob("*.json")) if folder.exists() else []


def load_reference(name, wrappers=False, shared=None):
    """The reference JSON of dataset ``name`` as a dict (``wrappers``: bnclassify's wrappers)."""
    folder = (Path(shared) if shared else shared_dir()) / "reference" / "r"
    if wrappers:
        folder = folder / "wrappers"
    with open(_existing(folder / f"{name}.json")) as fh:
        return json.load(fh)


def load_split(name, repetition=1, shared=None):
    """``(train, test, reference)`` of dataset ``name``, with the reference's levels.

    Columns follow the reference's ``order`` (the class first) and the
    levels are R's (its collation, which Python's sorting does not always
    reproduce).
    """
    root = Path(shared) if shared else shared_dir()
    ref = load_reference(name, shared=root)
    data = read_dataset(_existing(root / "data" / "single-label" / f"{name}.csv"),
                        class_var=ref["order"][0], levels=ref["levels"])
    data = data[ref["order"]]
    split = _existing(root / "data" / "splits" / f"{name}_test_ids.csv")
    train, test = split_rows(data, split, repetition)
    return train, test, ref


def model_reference(ref, key):
    """``ref["models"][key]``, or None when R failed on it (an ``error`` entry)."""
    entry = ref["models"].get(key)
    return None if entry is None or "error" in entry else entry

