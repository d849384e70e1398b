"""Sphinx configuration of the pystagedtrees site.

Build: ``sphinx-build -W -b html docs docs/_build/html`` (after
``pip install -e ".[docs]"``).  Nothing is fetched from the network: no
intersphinx; references to other projects' names are left unlinked
(``nitpick_ignore_regex``) while every reference to a name of this library
must resolve (``nitpicky``).  The vignettes are executed at build time.
"""
import inspect
import os
import shutil
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(DOCS / "_ext"))

import reference  # noqa: E402  (docs/_ext/reference.py)

import pystagedtrees  # noqa: E402

project = "pystagedtrees"
author = "the pystagedtrees authors"
copyright = "the pystagedtrees authors"  # noqa: A001 (Sphinx's name)
release = version = pystagedtrees.__version__ if hasattr(pystagedtrees, "__version__") else "0.1.0"

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_nb",
    "sphinx_copybutton",
]

# performance/*.md: the benchmarks' tables, included by performance.md
exclude_patterns = ["conf.py", "_build", "_ext", "_templates", "tools", "**.ipynb_checkpoints",
                    "README.md", "performance/*.md", "studies"]
templates_path = ["_templates"]
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".py": "myst-nb"}
root_doc = "index"

# -- warnings: every reference to this library resolves ------------------------
nitpicky = True
# Other projects' names (no intersphinx: the build is offline) and the
# parameter types numpydoc reads as words ("optional", "default", "of"...).
nitpick_ignore_regex = [
    (r"py:.*", r"(numpy|np|pandas|pd|scipy|sp|sklearn|networkx|nx|matplotlib|rpy2|"
               r"typing|collections|os|pathlib|argparse|numbers|types|dask|dd|joblib)(\..*)?"),
    (r"py:.*", r"(Axes|Figure|Text|ArrayLike|Callable|Mapping|Sequence|Iterable|Any|"
               r"Literal|Path|PathLike|DataFrame|Series|Categorical|Generator|RandomState|"
               r"SeedSequence|DiGraph|MultiDiGraph|BaseEstimator|spmatrix|ndarray|"
               r"Namespace|ArgumentParser)"),
]

# The storage types of Sevt's internal API (private: shown on the Sevt page,
# not documented) and the parents list's private entries.
nitpick_ignore = [
    ("py:class", "pystagedtrees.model._stagevec.StageVector"),
    ("py:class", "pystagedtrees.model._stagevec.ParentStageVector"),
    ("py:class", "pystagedtrees.model._stagevec.StageLabels"),
    ("py:class", "pystagedtrees.model._sevt.StageProbabilities"),
    ("py:class", "pystagedtrees.model._trie.SituationTrie"),
    ("py:class", "pystagedtrees.graphs._parentslist.ParentsEntry"),
]

# -- autodoc, autosummary, numpydoc ---------------------------------------------
autosummary_generate = True
autosummary_imported_members = True
autodoc_typehints = "signature"
autodoc_typehints_format = "short"
autodoc_member_order = "bysource"
# scikit-learn's metadata-routing methods (inherited; their docstrings link
# into scikit-learn's own site)
autodoc_default_options = {
    "exclude-members": "__init__, __new__, get_metadata_routing, set_fit_request, "
                       "set_predict_request, set_predict_proba_request, set_score_request",
}
# classes whose lowercase function shares their name: distinct page files, so
# the site also builds on case-insensitive file systems
autosummary_filename_map = {
    "pystagedtrees.Sevt": "pystagedtrees.Sevt-class",
    "pystagedtrees.Ceg": "pystagedtrees.Ceg-class",
    "pystagedtrees.LogLik": "pystagedtrees.LogLik-class",
}
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = True
numpydoc_xref_param_type = False

# The Sevt page lists the methods declared for users (model/_methods.py), its
# properties, and, apart, the internal API the library's parts use.
_sevt_own = {name: member for name, member in vars(pystagedtrees.Sevt).items()
             if not name.startswith("_")}
autosummary_context = {
    "r_names": reference.r_counterparts(),
    "sevt_methods": sorted(name for name, member in
                           vars(pystagedtrees.model._methods.SevtMethods).items()
                           if inspect.isfunction(member)),
    "sevt_properties": ["tree", "variables", "is_fitted", "ctables", "stage_prob", "lambda_",
                        "name_unobserved", "ll", "data_raw"],
}
autosummary_context["sevt_internal"] = sorted(
    name for name in _sevt_own if name not in autosummary_context["sevt_properties"])

# -- executed vignettes (myst-nb, jupytext percent scripts) ----------------------
nb_custom_formats = {".py": ["jupytext.reads", {"fmt": "py:percent"}]}
nb_execution_mode = "force"
nb_execution_raise_on_error = True  # a vignette that raises fails the build, naming it
nb_execution_timeout = 900
nb_execution_show_tb = True
nb_merge_streams = True
myst_enable_extensions = ["colon_fence", "dollarmath"]
myst_heading_anchors = 3

# -- HTML ------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = "pystagedtrees"
html_static_path = []
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
html_show_sourcelink = False


# -- pages written at build time -------------------------------------------------
def _write_if_changed(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def check_reference(app, config):
    """Fail the build when the public API and the reference disagree."""
    if problems := reference.reference_problems():
        raise RuntimeError("; ".join(problems))


def _module_and_name(qualified):
    """The deepest public module holding ``qualified`` and the name within it."""
    modules = sorted(reference.PUBLIC_MODULES, key=len, reverse=True)
    module = next(m for m in modules if qualified.startswith(m + "."))
    return module, qualified[len(module) + 1:]


def write_reference_pages(app, config):
    """``api/index.rst`` (the grouped reference) and ``api/from-r.rst`` (R to Python)."""
    lines = [
        "API reference",
        "=============",
        "",
        "Every public name of pystagedtrees, one page each, grouped as R stagedtrees' "
        "reference index groups its functions.  Each page names the R counterpart; "
        ":doc:`from-r` lists them all by their R name.  A function whose first argument "
        "is a model is also a method of :class:`~pystagedtrees.Sevt`.",
        "",
        ".. toctree::",
        "   :hidden:",
        "",
        "   from-r",
        "",
    ]
    for title, slug, intro, entries in reference.GROUPS:
        lines += [f".. _api-{slug}:", "", title, "-" * len(title), "", intro, ""]
        by_module = {}
        for name, _ in entries:
            module, short = _module_and_name(name)
            by_module.setdefault(module, []).append(short)
        for module, shorts in by_module.items():
            lines += [f".. currentmodule:: {module}", "", ".. autosummary::",
                      "   :toctree: generated", "   :nosignatures:", ""]
            lines += [f"   {short}" for short in shorts] + [""]
    lines += ["Modules", "-------", "",
              "The modules users import from, with what their docstrings say of them.", "",
              ".. toctree::", "   :maxdepth: 1", ""]
    lines += [f"   modules/{module}" for module in reference.PUBLIC_MODULES] + [""]
    _write_if_changed(DOCS / "api" / "index.rst", "\n".join(lines))
    for module in reference.PUBLIC_MODULES:
        _write_if_changed(DOCS / "api" / "modules" / f"{module}.rst", "\n".join([
            module, "=" * len(module), "", f".. automodule:: {module}", "   :no-members:", ""]))

    rows = sorted(((r, name) for name, r in reference.r_counterparts().items() if r),
                  key=lambda pair: pair[0].lower())
    lines = [
        "From R to Python",
        "================",
        "",
        "The R function (or class) behind each name of the reference, by R name.  "
        "Names without an R counterpart are new in pystagedtrees.",
        "",
        ".. list-table::",
        "   :header-rows: 1",
        "   :widths: 1 1",
        "",
        "   * - R",
        "     - Python",
    ]
    for r, name in rows:
        lines += [f"   * - ``{r}``", f"     - :py:obj:`{name}`"]
    _write_if_changed(DOCS / "api" / "from-r.rst", "\n".join(lines) + "\n")


def copy_vignettes(app, config):
    """The vignettes (``vignettes/*.py``, jupytext percent scripts) into the
    source tree, where myst-nb executes them; the copies are not tracked."""
    target = DOCS / "vignettes"
    target.mkdir(exist_ok=True)
    wanted = {p.name for p in (ROOT / "vignettes").glob("*.py") if not p.name.startswith("_")}
    for stale in target.glob("*.py"):
        if stale.name not in wanted:
            stale.unlink()
    for name in wanted:
        source = ROOT / "vignettes" / name
        copy = target / name
        if not copy.exists() or copy.read_bytes() != source.read_bytes():
            shutil.copyfile(source, copy)


def setup(app):
    # the vignettes write their figures here (see their --figures option)
    os.environ.setdefault("PYSTAGEDTREES_FIGURES", str(DOCS / "_build" / "vignette-figures"))
    app.connect("config-inited", check_reference)
    app.connect("config-inited", write_reference_pages)
    app.connect("config-inited", copy_vignettes)
