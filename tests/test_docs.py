"""Documentation: every public name has a docstring with an example, and the graph
text written for papers (DOT, TikZ) is well formed."""
import importlib
import inspect
import re
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hst

import pystagedtrees as st
from pystagedtrees.graphs import ceg, get_vertices, parentslist
from pystagedtrees.plotting import to_dot, write_tikz

# Modules whose names are not (yet) exported from pystagedtrees but are public.
PUBLIC_MODULES = []

# Public names still without an Examples section, with the file whose owner to ask.
KNOWN_GAPS = {}


@pytest.fixture(scope="module")
def titanic_bhc():
    return st.stndnaming(st.stages_bhc(st.full(st.datasets.titanic_table())))


def public_objects():
    """(qualified name, object) of every public name; an exported module stands for its own names."""
    seen = []

    def add(prefix, module, names):
        for name in names:
            obj = getattr(module, name)
            if inspect.ismodule(obj):
                members = getattr(obj, "__all__", None)
                assert members, f"exported module {obj.__name__} has no __all__"
                add(f"{prefix}.{name}", obj, members)
            else:
                seen.append((f"{prefix}.{name}", obj))

    add("pystagedtrees", st, st.__all__)
    for module_name in PUBLIC_MODULES:
        module = importlib.import_module(module_name)
        add(module_name, module, module.__all__)
    return seen


def _cases():
    cases = []
    for qualname, obj in public_objects():
        marks = []
        if qualname in KNOWN_GAPS:
            marks = [pytest.mark.xfail(reason=f"no example yet: ask the owner of {KNOWN_GAPS[qualname]}")]
        cases.append(pytest.param(obj, id=qualname, marks=marks))
    return cases


def examples_section(doc):
    """The text of a numpydoc Examples section, or None."""
    match = re.search(r"^Examples\n-{8,}\n(.*?)(?=^\S[^\n]*\n-{3,}\n|\Z)", doc, flags=re.M | re.S)
    return match.group(1) if match else None


def test_examples_section_finder():
    doc = "Sum.\n\nReturns\n-------\nint\n\nExamples\n--------\n>>> 1 + 1\n2\n"
    assert examples_section(doc).strip() == ">>> 1 + 1\n2"
    assert examples_section("Sum.\n\nExamples are below.\n") is None


@pytest.mark.parametrize("obj", _cases())
def test_public_name_has_docstring_with_example(obj):
    doc = inspect.getdoc(obj)
    assert doc, "no docstring"
    section = examples_section(doc)
    assert section is not None, "no Examples section"
    assert ">>>" in section, "the Examples section has no doctest"


# -- DOT -----------------------------------------------------------------------------

_DOT_ID = r'"(?:[^"\\]|\\.)*"'
_DOT_ATTRS = rf'(?:\s*\[\s*(?:[A-Za-z_]+={_DOT_ID}\s*(?:,\s*[A-Za-z_]+={_DOT_ID}\s*)*)?\])?'
_DOT_STATEMENT = re.compile(
    rf"^\s*(?:[A-Za-z_]+={_DOT_ID}|(?:node|edge|graph){_DOT_ATTRS}|{_DOT_ID}(?:\s*->\s*{_DOT_ID})?{_DOT_ATTRS})\s*;\s*$"
)


def check_dot_grammar(text):
    """Nodes and edges of DOT text, asserting it is in the DOT subset to_dot writes."""
    lines = text.strip().splitlines()
    assert re.fullmatch(rf"(?:strict\s+)?digraph\s+{_DOT_ID}\s*\{{", lines[0]), lines[0]
    assert lines[-1].strip() == "}"
    nodes, edges = [], []
    for line in lines[1:-1]:
        assert _DOT_STATEMENT.match(line), f"not a DOT statement: {line!r}"
        if re.match(r"\s*(?:[A-Za-z_]+=|(?:node|edge|graph)\b)", line):
            continue  # graph attribute or default attributes
        head = line.split("[", 1)[0]
        ids = [i[1:-1] for i in re.findall(_DOT_ID, head)]
        if "->" in head:
            edges.append(tuple(ids))
        else:
            nodes.append(ids[0])
    return nodes, edges


def parse_dot(text):
    """Nodes and edges of DOT text: parsed by pydot when installed, else grammar-checked."""
    try:
        import pydot
    except ImportError:
        return check_dot_grammar(text)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pydot's own deprecation noise
        graphs = pydot.graph_from_dot_data(text)
    assert graphs is not None and len(graphs) == 1, "pydot could not parse the DOT text"
    graph = graphs[0]
    nodes = [n.get_name().strip('"') for n in graph.get_nodes() if n.get_name() not in ("node", "edge", "graph")]
    edges = [(e.get_source().strip('"'), e.get_destination().strip('"')) for e in graph.get_edges()]
    if "\\" not in text:  # pydot keeps escapes in names: compare only plain ones
        assert (nodes, edges) == check_dot_grammar(text)
    return nodes, edges


@pytest.mark.parametrize("bad", [
    'digraph "g" {\n  "a" -> ;\n}\n',
    'digraph "g" {\n  "a" [label="x];\n}\n',
    'graph "g" {\n  "a";\n}\n',
    'digraph "g" {\n  "a" -> "b"\n}\n',
])
def test_grammar_check_rejects_bad_dot(bad):
    with pytest.raises(AssertionError):
        check_dot_grammar(bad)


def test_to_dot_one_node_per_situation(titanic_bhc):
    text = to_dot(titanic_bhc, show_ignored=True)
    nodes, edges = parse_dot(text)
    n_situations = 1 + 4 + 8 + 16
    leaves = [n for n in nodes if n.startswith("s4_")]
    assert len(nodes) - len(leaves) == n_situations
    assert len(leaves) == 32
    assert len(edges) == 4 + 8 + 16 + 32
    # every situation's label is its stage
    labels = re.findall(r'^\s*"s3_(\d+)" \[label="([^"]*)"', text, flags=re.M)
    assert [lab for _, lab in sorted(labels, key=lambda t: int(t[0]))] == st.stages(titanic_bhc, "Survived")
    # unobserved situations are dashed grey
    assert text.count("dashed") == 2


def test_to_dot_quotes_odd_names():
    model = st.sevt({'A "x"': ['a"1', "b\\2"], "B": ["x y", "z"]}, full=True)
    nodes, edges = parse_dot(to_dot(model))
    assert len(nodes) == 1 + 2 + 4 and len(edges) == 6


def test_to_dot_hides_ignored_and_limits(titanic_bhc):
    nodes, _ = parse_dot(to_dot(titanic_bhc, show_ignored=False))
    assert len([n for n in nodes if not n.startswith("s4_")]) == 1 + 4 + 8 + 14
    nodes, edges = parse_dot(to_dot(titanic_bhc, limit=2))
    assert len(nodes) == 1 + 4 + 8 and len(edges) == 4 + 8


def test_to_dot_ceg_and_dag(titanic_bhc):
    model = ceg(titanic_bhc)
    nodes, edges = parse_dot(to_dot(model))
    assert sorted(nodes) == sorted(get_vertices(model)["name"])
    pl = parentslist({"A": [], "B": ["A"], "C": ["A", "B"]})
    nodes, edges = parse_dot(to_dot(pl))
    assert nodes == ["A", "B", "C"] and sorted(edges) == sorted(pl.edges())


# -- TikZ ----------------------------------------------------------------------------

def test_write_tikz_nodes_edges_and_file(titanic_bhc, tmp_path):
    path = tmp_path / "tree.tex"
    text = write_tikz(titanic_bhc, file=path, show_ignored=True)
    assert path.read_text() == text
    assert text.startswith("\\begin{tikzpicture}") and text.rstrip().endswith("\\end{tikzpicture}")
    assert text.count("\\node [leaf]") == 32
    assert text.count("\\node [") == 1 + 4 + 8 + 16 + 32
    assert text.count("\\draw[") == 4 + 8 + 16 + 32
    # one style per shown stage, plus one for the ignored ones, plus the leaves
    n_stages = 1 + sum(len(set(s) - {"UNOBSERVED"}) for s in titanic_bhc.stages().values())
    assert len(re.findall(r"^\tst\d+/\.style=", text, flags=re.M)) == n_stages + 1
    assert text.count("{") == text.count("}")


def test_drawings_leave_ignored_situations_out_by_default_as_r(titanic_bhc):
    # R's plot and write_tikz skip the situations in `ignore` (and so what
    # lies below them): here the two unobserved Survived situations, 4 leaves
    text = write_tikz(titanic_bhc)
    assert text == write_tikz(titanic_bhc, show_ignored=False)
    assert text.count("\\node [leaf]") == 32 - 4
    assert "UNOBSERVED" not in text
    assert to_dot(titanic_bhc) == to_dot(titanic_bhc, show_ignored=False)


def test_write_tikz_escapes_tex():
    model = st.sevt({"A": ["a_1", "50%"], "B": ["$x$", "y"]})
    text = write_tikz(model)
    assert "{a\\_1}" in text and "{50\\%}" in text and "{\\$x\\$}" in text


def test_write_tikz_ceg(titanic_bhc):
    model = ceg(titanic_bhc)
    text = write_tikz(model, node_label=lambda var, stage: f"{var}-{stage}")
    assert text.count("\\node [") == len(get_vertices(model))
    assert "{Sex-1}" in text


@settings(max_examples=25, deadline=None)
@given(k=hst.lists(hst.integers(1, 3), min_size=2, max_size=4), q=hst.floats(0, 1),
       seed=hst.integers(0, 2**16))
def test_to_dot_random_trees(k, q, seed):
    tree = {f"V{i}": [f"l{a}" for a in range(n)] for i, n in enumerate(k)}
    model = st.random_sevt(tree, q=q, seed=seed)
    nodes, edges = parse_dot(to_dot(model))
    leaves = [n for n in nodes if n.startswith(f"s{len(k)}_")]
    n_situations = sum(model.n_situations(i) for i in range(len(k)))
    assert len(nodes) - len(leaves) == n_situations
    assert len(edges) == sum(model.n_situations(i + 1) for i in range(len(k)))


def test_to_dot_refuses_huge_trees_and_names_limit():
    # 2 + 4 + ... + 2^20 nodes: more than the 200000 written
    model = st.sevt({f"X{i}": ["0", "1"] for i in range(20)})
    with pytest.raises(ValueError, match="`limit`"):
        to_dot(model)
    nodes, edges = parse_dot(to_dot(model, limit=3))
    assert len(nodes) == 1 + 2 + 4 + 8 and len(edges) == 2 + 4 + 8


def _readme_python_blocks():
    from pathlib import Path

    readme = Path(__file__).resolve().parents[1] / "README.md"
    if not readme.exists():
        return []
    return re.findall(r"```python\n(.*?)```", readme.read_text(), flags=re.S)


@pytest.mark.parametrize("block", _readme_python_blocks(),
                         ids=lambda b: b.strip().splitlines()[0][:40])
def test_readme_examples_run(block, capsys):
    exec(compile(block, "README.md", "exec"), {"__name__": "readme"})
    assert capsys.readouterr().out.strip()  # every example prints its result
