"""Type hints on the public API: every public function, method and class of the
user-facing modules annotates all its parameters and its return, the annotations
name things that exist, and the package ships its ``py.typed`` marker."""
import importlib
import importlib.util
import inspect
import re
import sys
import typing
from pathlib import Path

import pytest

import pystagedtrees

ROOT = Path(__file__).resolve().parents[1]


def _public_modules():
    """The modules users import from: the site's reference documents the same."""
    path = ROOT / "docs" / "_ext" / "reference.py"
    spec = importlib.util.spec_from_file_location("docs_reference", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.PUBLIC_MODULES


PUBLIC_MODULES = _public_modules()
def public_callables(module_name):
    """(qualified name, function) of every public function and method of a module."""
    module = importlib.import_module(module_name)
    out = []
    for name in module.__all__:
        obj = getattr(module, name)
        if inspect.isfunction(obj):
            out.append((f"{module_name}.{name}", obj))
        elif inspect.isclass(obj):
            for attr, member in vars(obj).items():
                if attr.startswith("_") and attr != "__init__":
                    continue
                if isinstance(member, property):
                    member = member.fget
                if inspect.isfunction(member):
                    out.append((f"{module_name}.{name}.{attr}", member))
    return out


def missing_annotations(function):
    """The parameters (and 'return') of ``function`` that carry no annotation."""
    signature = inspect.signature(function)
    missing = [name for name, p in signature.parameters.items()
               if p.annotation is inspect.Parameter.empty and name not in ("self", "cls")]
    if signature.return_annotation is inspect.Signature.empty:
        missing.append("return")
    return missing


@pytest.mark.parametrize("module_name", PUBLIC_MODULES)
def test_public_functions_are_annotated(module_name):
    unannotated = {qualname: missing for qualname, f in public_callables(module_name)
                   if (missing := missing_annotations(f))}
    assert not unannotated, f"public callables without annotations: {unannotated}"


def test_missing_annotations_finds_what_is_missing():
    def bare(a, b: int, *args, c=1, **kwargs) -> None:
        pass

    def no_return(a: int):
        pass

    assert missing_annotations(bare) == ["a", "args", "c", "kwargs"]
    assert missing_annotations(no_return) == ["return"]


def _type_checking_names():
    """What the modules import for type checkers only, by the names they use."""
    import dask.dataframe as dd
    import networkx
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.text import Text

    return {"dd": dd, "nx": networkx, "Axes": Axes, "Figure": Figure, "Text": Text,
            "Sevt": pystagedtrees.Sevt, "Ceg": pystagedtrees.Ceg,
            "ParentsList": pystagedtrees.ParentsList, "LogLik": pystagedtrees.LogLik,
            "SevtSummary": pystagedtrees.SevtSummary}


@pytest.mark.parametrize("module_name", PUBLIC_MODULES)
def test_annotations_name_what_exists(module_name):
    pytest.importorskip("matplotlib")
    pytest.importorskip("dask.dataframe")  # the annotations of Dask input
    extra = _type_checking_names()
    unresolved = {}
    for qualname, function in public_callables(module_name):
        namespace = {**extra, **sys.modules[function.__module__].__dict__}
        try:
            typing.get_type_hints(function, globalns=namespace)
        except Exception as exc:  # a typo in an annotation: NameError, TypeError...
            unresolved[qualname] = repr(exc)
    assert not unresolved, unresolved


def test_py_typed_is_shipped():
    # the package imported (the sources, or an installed wheel in CI) carries the marker
    assert (Path(pystagedtrees.__file__).parent / "py.typed").is_file()
    # the package data line of pyproject.toml (tomllib is Python >= 3.11 only)
    text = (ROOT / "pyproject.toml").read_text()
    section = re.search(r"^\[tool\.setuptools\.package-data\]\n(.*?)(?=^\[|\Z)", text, re.M | re.S)
    assert section and re.search(r'^pystagedtrees = \[[^\]]*"py\.typed"[^\]]*\]', section.group(1),
                                 re.M)
