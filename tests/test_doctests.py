"""Every docstring example in the package runs and prints what it says.

Each runs in an empty namespace, as a user pasting it would: it imports
what it uses.
"""
import doctest
import importlib
import pkgutil

import pytest

import pystagedtrees

MODULES = sorted(
    info.name
    for info in pkgutil.walk_packages(pystagedtrees.__path__, prefix="pystagedtrees.")
    if not info.name.rsplit(".", 1)[-1].startswith("__")
)


@pytest.mark.parametrize("module_name", MODULES)
def test_docstring_examples(module_name):
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:  # optional extras (rpy2, matplotlib, pgmpy)
        pytest.skip(f"{module_name} needs an optional dependency: {exc}")
    result = doctest.testmod(
        module, globs={}, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
        verbose=False,
    )
    assert result.failed == 0, f"{result.failed} docstring example(s) failed in {module_name}"
