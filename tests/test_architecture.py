"""The package's layering, as ARCHITECTURE.md states it: every import (at module
level or inside a function) goes to the same part or to a lower layer, and no
modules import each other in a circle."""
import ast
import re
from pathlib import Path

import pytest

import pystagedtrees

PACKAGE = Path(pystagedtrees.__file__).parent

# Lowest first; parts in one layer do not import each other.  Keep in step
# with ARCHITECTURE.md.
LAYERS = [
    ["kernels"],
    ["base"],
    ["rng", "datasets"],
    ["model", "bnc"],
    ["fitting"],
    ["stage_ops", "inference"],
    ["graphs"],
    ["random"],
    ["plotting"],
    ["compare"],
    ["learners"],
    ["classifiers", "multilabel"],
    ["__init__"],  # the public API, pystagedtrees itself
    ["compat", "study"],
]
RANK = {part: rank for rank, parts in enumerate(LAYERS) for part in parts}


def module_name(path):
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules():
    paths = sorted(PACKAGE.rglob("*.py")) + sorted(PACKAGE.rglob("*.pyx"))
    return {module_name(p): p for p in paths}


def part_of(module):
    """The part a module of the package belongs to."""
    pieces = module.split(".")
    return "__init__" if len(pieces) == 1 else pieces[1]


def imported_modules(path, module, nodes=None):
    """Every package module that ``path`` imports, wherever the import stands
    (among ``nodes``, some of its syntax nodes, when given)."""
    source = path.read_text()
    if path.suffix == ".pyx":  # cimports and imports of a kernel, read line by line
        out = set()
        for line in source.splitlines():
            words = line.split()
            if len(words) >= 2 and words[0] in ("from", "cimport", "import") \
                    and words[1].startswith("pystagedtrees"):
                out.add(words[1])
        return out
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(source)) if nodes is None else nodes:
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("pystagedtrees"))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1]
                                + ([base] if base else []))
            if not base.startswith("pystagedtrees"):
                continue
            # `from pystagedtrees import bnc` imports the part bnc
            for alias in node.names:
                candidate = f"{base}.{alias.name}"
                out.add(candidate if candidate in MODULES else base)
    return out


MODULES = modules()


def test_every_part_has_a_layer():
    parts = {part_of(m) for m in MODULES}
    assert parts <= set(RANK), f"parts with no layer in LAYERS: {sorted(parts - set(RANK))}"


# The one exception: Sevt's methods delegate, at call time, to the functions of
# the parts above the model that implement them (model/_methods.py).
DELEGATIONS = "pystagedtrees.model._methods"


def is_type_checking_block(node):
    """``if TYPE_CHECKING:``, whose imports only type checkers run."""
    return isinstance(node, ast.If) and isinstance(node.test, ast.Name) \
        and node.test.id == "TYPE_CHECKING"


def module_level_imports(path, module):
    """The package modules that ``path`` imports when it is loaded (not inside functions,
    nor, in the delegations' module, for type checkers only)."""
    def outside_functions(node):
        for child in ast.iter_child_nodes(node):
            if module == DELEGATIONS and is_type_checking_block(child):
                continue
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                yield child
                yield from outside_functions(child)

    return imported_modules(path, module, list(outside_functions(ast.parse(path.read_text()))))


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_go_down(module):
    here = part_of(module)
    path = MODULES[module]
    targets = (module_level_imports(path, module) if module == DELEGATIONS
               else imported_modules(path, module))
    wrong = []
    for target in sorted(targets):
        there = part_of(target)
        if there != here and RANK[there] >= RANK[here]:
            wrong.append(f"{target} (part {there!r}, layer {RANK[there]})")
    assert not wrong, (f"{module} (part {here!r}, layer {RANK[here]}) imports a part that is "
                       f"not below it: {wrong}")


def test_no_import_circles():
    graph = {m: {t for t in (module_level_imports(p, m) if m == DELEGATIONS
                             else imported_modules(p, m)) if t in MODULES and t != m}
             for m, p in MODULES.items()}
    # a package's __init__ importing its own private modules is how parts are built
    state, stack, circles = {}, [], []

    def visit(m):
        state[m] = "open"
        stack.append(m)
        for t in sorted(graph[m]):
            if state.get(t) == "open":
                circles.append(stack[stack.index(t):] + [t])
            elif t not in state:
                visit(t)
        stack.pop()
        state[m] = "done"

    for m in sorted(graph):
        if m not in state:
            visit(m)
    assert not circles, "import circles: " + "; ".join(" -> ".join(c) for c in circles)


STORAGE_FIELDS = ("_stages", "_labels", "_prob", "_n", "_k", "_vars", "_tree", "_ctab",
                  "_ctab_sit", "_data_raw")


def test_only_the_model_touches_its_storage():
    """Other parts read and change a Sevt through its internal API (model/_sevt.py)."""
    pattern = re.compile(r"\.(" + "|".join(STORAGE_FIELDS) + r")\b")
    offenders = [f"{module}: {line.strip()}"
                 for module, path in MODULES.items() if part_of(module) != "model"
                 for line in path.read_text().splitlines() if pattern.search(line)]
    assert not offenders, "private fields of Sevt used outside the model part:\n" + "\n".join(
        offenders)


def test_the_delegations_name_types_of_higher_parts_for_type_checkers_only():
    """The methods' annotations name the types their functions return (``Ceg``, ...):
    imported under ``if TYPE_CHECKING:`` from each part's public ``__init__`` (or
    the model's own modules), never when the model loads."""
    tree = ast.parse(MODULES[DELEGATIONS].read_text())
    blocks = [n for n in tree.body if is_type_checking_block(n)]
    assert len(blocks) == 1 and not blocks[0].orelse
    for node in blocks[0].body:
        assert isinstance(node, (ast.Import, ast.ImportFrom)), ast.dump(node)
        if isinstance(node, ast.ImportFrom) and node.module.startswith("pystagedtrees"):
            public = node.module.count(".") == 1 and node.module.split(".")[1] in RANK
            assert public or node.module.startswith("pystagedtrees.model."), node.module


def test_the_delegations_import_only_the_function_they_call():
    """Each method of Sevt imports, when called, the public function of its name."""
    tree = ast.parse(MODULES[DELEGATIONS].read_text())
    (mixin,) = [n for n in tree.body if isinstance(n, ast.ClassDef)]
    for method in mixin.body:
        if not isinstance(method, ast.FunctionDef):
            continue
        imports = [n for n in ast.walk(method) if isinstance(n, (ast.Import, ast.ImportFrom))]
        assert len(imports) == 1 and [a.name for a in imports[0].names] == [method.name], method.name
        assert imports[0].module == f"pystagedtrees.{part_of(imports[0].module + '.x')}", method.name
