"""The documentation site: every name of every public ``__all__`` has a reference
page (docs/_ext/reference.py lists them, grouped as R stagedtrees groups them,
with their R counterparts), and, once the site is built, the pages exist."""
import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
SITE = DOCS / "_build" / "html"


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def reference():
    return load(DOCS / "_ext" / "reference.py", "docs_reference")


def test_every_public_name_has_a_reference_entry(reference):
    assert reference.reference_problems() == []


def test_the_groups_are_r_stagedtrees_reference_groups(reference):
    titles = [title for title, _, _, _ in reference.GROUPS]
    for expected in ("Model construction and fitting", "Structure learning",
                     "Inference and prediction", "Conversions and DAGs",
                     "Random models and data", "Comparison and tests", "Chain event graphs",
                     "Plotting and export", "Staged tree classifiers",
                     "Multi-label classification", "The R bridge"):
        assert expected in titles
    # each entry states its R counterpart, None saying there is none
    for _, _, _, entries in reference.GROUPS:
        for name, r_name in entries:
            assert r_name is None or (isinstance(r_name, str) and r_name), name


def test_reference_problems_names_what_is_wrong(reference, monkeypatch):
    groups = [(t, s, i, list(e)) for t, s, i, e in reference.GROUPS]
    dropped = groups[0][3].pop()  # a public name without its page
    groups[1][3].append(("pystagedtrees.not_a_name", None))
    groups[2][3].append(groups[2][3][0])
    monkeypatch.setattr(reference, "GROUPS", groups)
    problems = " ".join(reference.reference_problems())
    assert dropped[0] in problems
    assert "pystagedtrees.not_a_name" in problems and "not public" in problems
    assert "listed twice" in problems


def page_of(name, filename_map):
    return SITE / "api" / "generated" / f"{filename_map.get(name, name)}.html"


@pytest.mark.skipif(not (SITE / "index.html").exists(),
                    reason="the site is not built (docs/build.sh builds it)")
def test_the_built_site_has_one_page_per_reference_name(reference):
    conf = (DOCS / "conf.py").read_text()
    filename_map = dict(re.findall(r'"(pystagedtrees\.\w+)": "(pystagedtrees\.[\w-]+)"', conf))
    documented = reference.documented_names()
    missing = [name for name in documented if not page_of(name, filename_map).is_file()]
    assert missing == []
    pages = {p.stem for p in (SITE / "api" / "generated").glob("*.html")}
    assert pages == {filename_map.get(name, name) for name in documented}
    # a page names its R counterpart
    text = page_of("pystagedtrees.full", filename_map).read_text()
    assert "R counterpart:" in text and "<span class=\"pre\">full</span>" in text


def test_the_performance_page_shows_every_benchmark_as_its_script_wrote_it():
    scripts = sorted(p.stem for p in (ROOT / "benchmarks").glob("bench_*.py"))
    page = (DOCS / "performance.md").read_text()
    assert sorted(re.findall(r"\{include\} performance/(bench_\w+)\.md", page)) == scripts
    regenerate = (ROOT / "benchmarks" / "regenerate_docs.sh").read_text()
    for name in scripts:
        # the regeneration script writes each table where the page reads it
        assert re.search(rf"benchmarks/{name}\.py [^\n]*(\\\n[^\n]*)*--output \"\$out/{name}\.md\"",
                         regenerate), name
        text = (DOCS / "performance" / f"{name}.md").read_text()
        assert text.startswith("### ")
        for field in (f"- Command: `python benchmarks/{name}.py", "- Date: ", "- Machine: ",
                      " cores; ", "- Python ", "numpy ", "pystagedtrees "):
            assert field in text, (name, field)
        assert "```text\n" in text


@pytest.mark.parametrize("study, record", [("benchmark", "results_run.json"),
                                           ("multilabel", "multilabel_run.json")])
def test_the_study_pages_show_what_their_command_wrote(study, record):
    import json

    folder = DOCS / "studies" / study
    run = json.loads((folder / record).read_text())
    # written by the command of docs/studies/run.sh, on the shipped data
    assert run["command"].startswith(f"python -m pystagedtrees.study {study} ")
    assert f"python -m pystagedtrees.study {study} " in (DOCS / "studies" / "run.sh").read_text()
    assert run["settings"].get("data", run["settings"].get("data_dir")) is None
    for output in run["outputs"]:
        assert (ROOT / output).is_file(), output
    page = (DOCS / f"study-{study}.md").read_text()
    for shown in re.findall(r"(?:literalinclude\} |\]\()(studies/[\w/.-]+)", page):
        assert (DOCS / shown).is_file(), shown
        assert shown.endswith(("output.txt", record)) or str(DOCS / shown) in {
            str(ROOT / o) for o in run["outputs"]}, shown
