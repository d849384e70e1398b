"""Every vignette runs, writes its figures, and its figures show what they claim."""
import importlib
import os
import runpy
import sys
from pathlib import Path

import numpy as np
import pytest

import pystagedtrees

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from drawing import expected_situations, tree_content  # noqa: E402

from pystagedtrees.graphs import (  # noqa: E402
    Ceg,
    as_networkx,  # noqa: E402
    get_vertices,
)
from pystagedtrees.model import Sevt  # noqa: E402

VIGNETTES = Path(__file__).resolve().parents[1] / "vignettes"

# modules a vignette needs beyond the core; without them it is skipped
NEEDS = {
    "classifiers": ["pystagedtrees.classifiers", "pystagedtrees.bnc"],
    "multilabel": ["pystagedtrees.multilabel"],
    "validate-against-r": ["pystagedtrees.compat"],
}


def vignette_names():
    return sorted(p.stem for p in VIGNETTES.glob("*.py") if not p.stem.startswith("_"))


def check_tree_figure(model, ax):
    d = len([t for t in ax.texts if t.get_gid() == "variable-name"])
    assert d >= 1, "a tree plot writes its variable names"
    ignore = set(model.name_unobserved or [])
    counts, n_grey = expected_situations(model, d, ignore)
    coloured, grey, labels = tree_content(ax)
    # number of coloured nodes equals the number of situations drawn, stage by stage
    assert coloured == counts
    assert grey in (0, n_grey)
    # legend entries equal the stages of the variables drawn
    stages = {f"{v}: {s}" for v, s in counts if v != model.variables[0]}
    assert set(labels) - {"unobserved"} == stages
    assert len(labels) == len(stages) + (grey > 0)


def check_ceg_figure(model, ax):
    nodes = sum(len(c.get_offsets()) for c in ax.collections if (c.get_gid() or "").startswith("positions:"))
    assert nodes == len(get_vertices(model)) - 1  # all positions but END
    vertices = get_vertices(model)
    stages = {f"{v}: {s}" for name, v, s in zip(vertices["name"], vertices["var"], vertices["stage"])
              if name != "END" and v != model.variables[0]}
    assert {t.get_text() for t in ax.get_legend().get_texts()} == stages


def check_barplot(model, ax):
    var = ax.get_legend().get_title().get_text().removeprefix("stages of ")
    for container in ax.containers:
        expected = np.nan_to_num(model.stage_prob[var][container.get_label()].to_numpy())
        np.testing.assert_allclose([b.get_height() for b in container], expected)


def check_dag_figure(model, ax):
    arcs = [c for c in ax.get_children() if (getattr(c, "get_gid", lambda: None)() or "").startswith("arc:")]
    assert len(arcs) == as_networkx(model).number_of_edges()


def check_figure(model, ax):
    gids = {(c.get_gid() or "").split(":")[0] for c in ax.get_children() if hasattr(c, "get_gid")}
    if isinstance(model, Ceg):
        check_ceg_figure(model, ax)
    elif isinstance(model, Sevt) and ax.containers:
        check_barplot(model, ax)
    elif isinstance(model, Sevt):
        check_tree_figure(model, ax)
    elif "arc" in gids:
        check_dag_figure(model, ax)


@pytest.mark.parametrize("name", vignette_names())
def test_vignette_runs_and_draws_what_it_says(name, tmp_path, monkeypatch, capsys):
    for module in NEEDS.get(name, []):
        try:
            importlib.import_module(module)
        except ImportError as exc:
            pytest.skip(f"vignette {name} needs {module}: {exc}")
    path = VIGNETTES / f"{name}.py"
    monkeypatch.setattr(sys, "argv", [str(path), "--figures", str(tmp_path)])
    monkeypatch.setenv("PYSTAGEDTREES_FIGURES", str(tmp_path / "unused"))
    try:
        namespace = runpy.run_path(str(path), run_name="__main__")
        skipped = namespace.get("SKIPPED")
        if skipped:
            pytest.skip(f"vignette {name}: {skipped}")
        figures = namespace.get("figures", {})
        for fig_name, (model, ax) in figures.items():
            png = tmp_path / f"{fig_name}.png"
            assert png.exists() and png.stat().st_size > 1000, f"{fig_name}.png not written"
            if model is not None:
                check_figure(model, ax)
    finally:
        plt.close("all")
    assert capsys.readouterr().out, "a vignette prints its results"


def test_every_vignette_is_a_percent_script():
    names = vignette_names()
    assert {"intro", "porting-from-r", "classifiers", "multilabel", "validate-against-r"} <= set(names)
    for name in names:
        text = (VIGNETTES / f"{name}.py").read_text()
        assert "format_name: percent" in text and "# %% [markdown]" in text, name


def test_validate_against_r_runs_its_live_part_as_a_script(tmp_path):
    # run as README says (python vignettes/...): the harness in compat/ at
    # the repository's top must still be found
    import subprocess

    compat = pytest.importorskip("pystagedtrees.compat")
    if not (compat.r_available() and compat.has_r_package("stagedtrees")
            and compat.has_r_package("bnclassify")):
        pytest.skip("R, rpy2 or the R packages stagedtrees and bnclassify are missing")
    script = VIGNETTES / "validate-against-r.py"
    # the package under test, wherever the interpreter would find another one
    package_root = str(Path(pystagedtrees.__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [package_root] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])}
    result = subprocess.run([sys.executable, str(script), "--figures", str(tmp_path)],
                            capture_output=True, text=True, cwd=tmp_path, timeout=600, env=env)
    assert result.returncode == 0, result.stderr
    assert "live cross-check skipped" not in result.stdout
    assert "cross-check exit status: 0" in result.stdout
