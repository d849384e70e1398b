"""Pictures of staged trees, chain event graphs and DAGs (R: R/plot.R, R/barplot.R,
R/plot_ceg.R, R/plot_parentslist.R, R/write_tikz.R), and Graphviz text.

:func:`plot` draws a staged event tree as R's ``plot.sevt`` does: the root
on the left, one column per variable, edges labelled with the levels and
every situation coloured by its stage.  Situations in ignored stages (by
default the unobserved ones) are left out, or drawn light grey with
``show_ignored``.  The same function
draws a chain event graph (:class:`~pystagedtrees.Ceg`) and a DAG
(anything :func:`~pystagedtrees.as_parentslist` accepts).

matplotlib is optional (``pip install "pystagedtrees[plot]"``) and only
needed by :func:`plot`, :func:`barplot` and :func:`save_figure`;
:func:`to_dot`, :func:`write_tikz` and :func:`make_stages_col` write text.
"""
from __future__ import annotations

import colorsys
import inspect
import math
import numbers
import os
import re
import tempfile
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from pystagedtrees.base._validation import (
    check_choice,
    check_flag,
    check_ignore,
    check_int,
    check_number,
)
from pystagedtrees.model._sevt import Sevt, check_sevt

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.text import Text

__all__ = [
    "plot",
    "barplot",
    "text",
    "make_stages_col",
    "to_dot",
    "write_tikz",
    "save_figure",
]

PALETTES = {
    "R4": ["#000000", "#DF536B", "#61D04F", "#2297E6", "#28E2E5", "#CD0BBC", "#F5C710", "#9E9E9E"],
    "Okabe-Ito": [
        "#000000", "#E69F00", "#56B4E9", "#009E73", "#F0E442",
        "#0072B2", "#D55E00", "#CC79A7", "#999999",
    ],
}
"""R's palettes by name: ``"R4"`` (R's default since 4.0) and ``"Okabe-Ito"``."""

IGNORED_COLOR = "#D3D3D3"
UNCOLORED = "#FFFFFF"
DEFAULT_LIMIT = 10  # R: plot(x, y = 10)
MAX_LEAVES = 2000
EDGE_LABELS_MAX_LEAVES = 256
MAX_TEXT_NODES = 200_000
LEGEND_MAX = 120  # 4 columns of 30
MIN_DPI = 10
RANKDIRS = ("LR", "RL", "TB", "BT")  # Graphviz rankdir values

DAG_EDGE_COLORS = {
    "context": "red",
    "context-partial": "orange",
    "partial": "blue",
    "local": "purple",
    "total": "black",
}
"""R's ``plot.parentslist`` colours of the kinds of arcs."""


# -- matplotlib, lazily --------------------------------------------------------

def _pyplot():
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError(
            'plotting needs matplotlib, the "plot" extra of pystagedtrees: '
            'pip install "pystagedtrees[plot]" (or pip install matplotlib; from a clone, '
            'pip install -e ".[plot]")'
        ) from None
    return plt


def _new_axes(ax, width, height):
    if ax is not None:
        if not hasattr(ax, "add_collection"):
            raise TypeError(f"`ax` must be a matplotlib Axes; got {type(ax).__name__}.")
        return ax
    _, ax = _pyplot().subplots(figsize=(width, height))
    return ax


FIGURE_PAD = 0.1
"""Inches left around what a picture draws in a figure of its own."""


def _drawn_extent(ax):
    """The box, in display units, of what ``ax`` shows: its data with the
    markers' reach, its texts and arrows, legend, title and (when drawn) axes
    frame and labels; not its empty background."""
    from matplotlib.text import Annotation
    from matplotlib.transforms import Bbox

    boxes = []
    if np.all(np.isfinite(ax.dataLim.extents)):
        data = ax.dataLim.transformed(ax.transData)
        sizes = [float(np.max(c.get_sizes())) for c in ax.collections
                 if hasattr(c, "get_sizes") and len(c.get_sizes())]
        reach = (math.sqrt(max(sizes, default=0.0)) / 2 + 1.0) * ax.figure.dpi / 72.0
        boxes.append(Bbox.from_extents(data.x0 - reach, data.y0 - reach,
                                       data.x1 + reach, data.y1 + reach))
    texts = [t for t in [*ax.texts, ax.title] if isinstance(t, Annotation) or t.get_text()]
    legend = [] if ax.get_legend() is None else [ax.get_legend()]
    frame = [ax.xaxis, ax.yaxis, *ax.spines.values()] if ax.axison else []
    for artist in [*texts, *ax.patches, *legend, *frame]:
        if artist.get_visible():
            boxes.append(artist.get_tightbbox())
    return Bbox.union([b for b in boxes if b is not None and np.all(np.isfinite(b.extents))])


def _fit_figure(ax, own):
    """Size a figure made for ``ax`` (``own``) around what it drew, legend and
    names included, keeping the axes' size: a plain ``savefig`` then keeps
    everything, without blank bands (matplotlib's margins, the axes' empty
    edges).  A figure the caller gave is left as it is."""
    if not own:
        return ax
    fig = ax.figure
    ax.apply_aspect()
    box = ax.get_position()
    inches = fig.dpi_scale_trans.inverted()
    drawn = _drawn_extent(ax).transformed(inches)
    axes = box.transformed(fig.transFigure).transformed(inches)
    left, bottom = axes.x0 - drawn.x0 + FIGURE_PAD, axes.y0 - drawn.y0 + FIGURE_PAD
    width = drawn.width + 2 * FIGURE_PAD
    height = drawn.height + 2 * FIGURE_PAD
    fig.set_size_inches(width, height)
    ax.set_position([left / width, bottom / height, axes.width / width, axes.height / height])
    return ax


# -- colours ----------------------------------------------------------------------

# An xcolor name or mix (``red``, ``Periwinkle``, ``red!50!blue``, ``-red``)
_XCOLOR = re.compile(r"-?[A-Za-z][A-Za-z0-9]*(?:![0-9.]+(?:!-?[A-Za-z][A-Za-z0-9]*)?)*")


def _text_color_like(color):
    """Whether :func:`to_dot` and :func:`write_tikz` can write ``color``.

    A colour :func:`_rgb255` reads is written as RGB; any other xcolor name
    or mix is written as given.  Names matplotlib does not know are accepted
    on purpose: TikZ knows more (``dvipsnames``, ``\\definecolor``), so only
    what cannot be a colour at all (spaces, commas, braces) is refused.
    """
    return _rgb255(color) is not None or _XCOLOR.fullmatch(color) is not None


def _color_check():
    """The colours a picture accepts: matplotlib's, or without it :func:`_text_color_like`."""
    try:
        from matplotlib.colors import is_color_like
    except ImportError:
        return _text_color_like
    return is_color_like


def _check_color(color, is_color, where, hint=""):
    """``color`` if it is a colour string ``is_color`` accepts; ``where`` names it."""
    if not isinstance(color, str):
        raise TypeError(f"{where} must be a colour (a string); got {color!r}.")
    if not is_color(color):
        raise ValueError(f"{where} must be a colour; got {color!r}{hint}.")
    return color


def _palette(palette, is_color):
    if palette is None:
        return PALETTES["R4"]
    expected = f"one of {sorted(PALETTES)} or a list of colours"
    if isinstance(palette, str):
        if palette not in PALETTES:
            raise ValueError(f"`palette` must be {expected}; got {palette!r}.")
        return PALETTES[palette]
    # a mapping or a table would give its keys or column names as colours
    if not isinstance(palette, Iterable) or isinstance(palette, (Mapping, set)) or hasattr(
            palette, "columns"):
        raise TypeError(f"`palette` must be {expected}; got {type(palette).__name__}.")
    colors = [_check_color(c, is_color, f"`palette`[{i}]") for i, c in enumerate(palette)]
    if not colors:
        raise ValueError("`palette` is an empty list of colours.")
    return colors


def _spread_colors(n):
    """``n`` well separated hues (used when a variable has more stages than the palette)."""
    out = []
    for i in range(n):
        r, g, b = colorsys.hls_to_rgb(i / n, 0.5, 0.7)
        out.append(f"#{round(r * 255):02X}{round(g * 255):02X}{round(b * 255):02X}")
    return out


def _stage_labels(model, i):
    """Stage label of each situation of variable ``i`` (a drawn variable: few situations)."""
    n = model.n_situations(i)
    if i == 0:
        return np.array(["1"], dtype=object)
    ids = model.stage_vector(i).lookup(np.arange(n, dtype=np.int64))
    return model.stage_labels(i).as_array()[ids]


def _unique_stages(model, i, ignore):
    """Stages of variable ``i`` in order of first appearance, without ``ignore``."""
    ids = model.stage_vector(i).first_appearance()
    labels = model.stage_labels(i).as_array()
    return [str(labels[s]) for s in ids if str(labels[s]) not in ignore]


def _call_col(col, stages, var, is_color):
    n_args = len(inspect.signature(col).parameters)
    colors = col() if n_args == 0 else col(stages) if n_args == 1 else col(stages, var)
    # a string would be read letter by letter ('red' -> 'r', 'e', 'd')
    if isinstance(colors, str) or not isinstance(colors, Iterable):
        raise TypeError(f"`col` must return a list of colours, one per stage; for {var!r} it returned {colors!r}.")
    colors = list(colors)
    if len(colors) != len(stages):
        raise ValueError(
            f"`col` must return one colour per stage; for the {len(stages)} stages {stages} "
            f"of {var!r} it returned {len(colors)}: {colors!r}."
        )
    return {s: _check_color(c, is_color, f"the colour `col` returns for stage {s!r} of {var!r}")
            for s, c in zip(stages, colors)}


def _stage_name_color(stage, var, colors, is_color):
    """``col="stages"``: a numeric label ``n`` is palette colour ``n`` (recycled, as R), others are colours."""
    if re.fullmatch(r"\d+", stage):
        return colors[(int(stage) - 1) % len(colors)]
    return _check_color(stage, is_color, f"`col`='stages' uses stage names as colours: each stage of {var!r}",
                        "; pass `ignore` (default: the unobserved stages) or another `col`")


def _check_col_dict(col, x, is_color):
    """A dict ``col`` maps variables of ``x`` to ``{stage: colour}`` with stages of theirs."""
    unknown = [v for v in col if v not in x.variables]
    if unknown:
        raise ValueError(f"`col` maps variables to {{stage: colour}}; {unknown} are not variables "
                         f"of the model ({x.variables}).")
    for var, given in col.items():
        if not isinstance(given, Mapping):
            raise TypeError(f"`col`[{var!r}] must be a dict {{stage: colour}}; got {given!r}.")
        stages = _unique_stages(x, x.variables.index(var), ())
        unknown = [s for s in given if s not in stages]
        if unknown:
            raise ValueError(f"`col`[{var!r}] names stages {unknown} that {var!r} does not have ({stages}).")
        for s, c in given.items():
            if c is not None:  # uncoloured, as make_stages_col marks it
                _check_color(c, is_color, f"`col`[{var!r}][{s!r}]")


def make_stages_col(x: Sevt,
                    col: str | Callable[..., Sequence[str]] | Mapping[str, Any] | None = None,
                    ignore: Sequence[str] | None = None, limit: int | None = None,
                    palette: str | Sequence[str] | None = None) -> dict[str, dict[str, str]]:
    """The colour of every stage (R: ``make_stages_col``).

    Parameters
    ----------
    x : Sevt
    col : None, "stages", "classic", callable or dict, optional
        - ``None``: per variable, the stages in order of first appearance
          take the palette's colours in turn (R's default: stage ``"1"`` of
          every variable is the palette's first colour).  A variable with
          more stages than the palette has colours gets evenly spread hues
          instead of R's recycling, so distinct stages look distinct.
        - ``"stages"``: the labels are colours; a numeric label ``n`` is the
          palette's ``n``-th colour (recycled), as R reads it.
        - ``"classic"``: stages with a single situation stay uncoloured
          (white); the others get distinct colours across all variables.
        - a function of the stages (and optionally the variable) returning
          a list of one colour per stage.
        - a dict ``variable -> {stage: colour}``; stages not listed, or
          given None, stay uncoloured (pictures colour the root by its
          entry ``{"1": colour}``).
    ignore : list of str, optional
        Stages left without a colour; default ``x.name_unobserved``.
    limit : int, optional
        Only the first ``limit`` variables.
    palette : str or list of str, optional
        ``"R4"`` (default, R's ``palette()``), ``"Okabe-Ito"`` or colours.

    Returns
    -------
    dict of str to dict of str to str
        ``variable -> {stage: colour}`` for every variable but the root;
        ``None`` marks an uncoloured stage.

    Raises
    ------
    ValueError, TypeError
        An unknown ``col`` or ``palette``, or one giving something that is
        not a colour (matplotlib's colours; without matplotlib, a hex code
        or a colour name).  With ``col="stages"`` that is a stage name that
        is no colour, such as an unobserved stage not in ``ignore``.

    Examples
    --------
    >>> from pystagedtrees import make_stages_col
    >>> import pystagedtrees as st
    >>> model = st.stndnaming(st.stages_bhc(st.full(st.datasets.titanic_table())))
    >>> st.stages(model, "Sex")
    ['1', '1', '2', '3']
    >>> make_stages_col(model)["Sex"]
    {'1': '#000000', '2': '#DF536B', '3': '#61D04F'}
    >>> make_stages_col(model, col="classic")["Sex"]["2"] is None  # a single situation
    True
    """
    check_sevt(x, "x")
    ignore = check_ignore(ignore, x.name_unobserved)
    return _stages_col(x, col, ignore, limit, palette, _color_check())


def _stages_col(x, col, ignore, limit, palette, is_color):
    """:func:`make_stages_col` checking colours with ``is_color`` (pictures and text differ)."""
    colors = _palette(palette, is_color)
    limit = check_int(limit, "limit", minimum=1, allow_none=True)
    p = len(x.variables)
    d = p if limit is None else min(p, limit)
    out = {}
    if col is None:
        for i in range(1, d):
            stages = _unique_stages(x, i, ignore)
            pal = colors if len(stages) <= len(colors) else _spread_colors(len(stages))
            out[x.variables[i]] = dict(zip(stages, pal))
    elif isinstance(col, str) and col == "stages":
        for i in range(1, d):
            var = x.variables[i]
            out[var] = {s: _stage_name_color(s, var, colors, is_color) for s in _unique_stages(x, i, ignore)}
    elif isinstance(col, str) and col == "classic":
        coloured = []
        for i in range(1, d):
            stages = _unique_stages(x, i, ignore)
            labels = x.stage_labels(i).tolist()
            counts = dict(zip(labels, x.stage_vector(i).paths_per_stage(len(labels))))
            out[x.variables[i]] = {s: None for s in stages}
            coloured += [(x.variables[i], s) for s in stages if counts[s] > 1]
        pal = colors if len(coloured) <= len(colors) else _spread_colors(len(coloured))
        for (v, s), c in zip(coloured, pal):
            out[v][s] = c
    elif callable(col):
        for i in range(1, d):
            out[x.variables[i]] = _call_col(col, _unique_stages(x, i, ignore), x.variables[i], is_color)
    elif isinstance(col, Mapping):
        _check_col_dict(col, x, is_color)
        for i in range(1, d):
            given = col.get(x.variables[i], {})
            out[x.variables[i]] = {s: given.get(s) for s in _unique_stages(x, i, ignore)}
    else:
        raise ValueError(
            "`col` must be None, 'stages', 'classic', a function or a dict "
            f"variable -> {{stage: colour}}; got {col!r}."
        )
    return out


def _root_color(x, col, palette, is_color):
    """The root's colour: a dict ``col`` may give it (else uncoloured), otherwise the palette's first."""
    if isinstance(col, Mapping):
        return col.get(x.variables[0], {}).get("1")
    return _palette(palette, is_color)[0]


# -- which part of a tree is drawn ---------------------------------------------

def _drawn_depth(model, limit, max_leaves):
    """Number of variables drawn, and a note when fewer than all are."""
    limit = check_int(limit, "limit", minimum=1, allow_none=True)
    max_leaves = check_int(max_leaves, "max_leaves", minimum=1)
    p = len(model.variables)
    wanted = min(p, DEFAULT_LIMIT if limit is None else limit)
    d = wanted
    while d > 1 and math.prod(int(k) for k in model.n_levels[:d]) > max_leaves:
        d -= 1
    note = None
    if d < p:
        note = f"first {d} of {p} variables shown"
        if d < wanted or limit is None:
            reason = (
                f"the first {wanted} would draw more than max_leaves={max_leaves} leaves"
                if d < wanted else f"at most {DEFAULT_LIMIT} variables are drawn unless `limit` is given"
            )
            warnings.warn(
                f"the tree has {p} variables; only the first {d} are drawn ({reason}).",
                UserWarning,
                stacklevel=4,  # the caller of plot()
            )
    return d, note


class _TreeView:
    """The situations of the first ``d`` variables: stages, colours, ignored flags."""

    def __init__(self, model, d, col, ignore, palette, is_color):
        self.model = model
        self.d = d
        self.variables = model.variables[:d]
        self.k = [int(k) for k in model.n_levels[:d]]
        self.ignore = check_ignore(ignore, model.name_unobserved)
        self.colors = _stages_col(model, col, self.ignore, d, palette, is_color)
        self.root_color = _root_color(model, col, palette, is_color)
        self.stages = [_stage_labels(model, i).astype(str) for i in range(d)]
        self.ignored = [np.isin(s, list(self.ignore)) if i else np.zeros(1, bool)
                        for i, s in enumerate(self.stages)]

    def color(self, i, stage):
        if i == 0:
            return self.root_color
        return self.colors[self.variables[i]].get(stage)

    def legend_stages(self):
        """(variable, stage) of every non-ignored stage, variables 2..d."""
        return [(v, s) for v in self.variables[1:] for s in self.colors[v]]


def _tree_layout(k, xlim, ylim, cex_tree_y):
    """R's plot.sevt layout: x per depth and y of every node at depths 0..d.

    The leaves span ``cex_tree_y`` of the height; each node's children are
    spread evenly over a width ``A_j`` chosen bottom-up so that gaps between
    sibling groups equal gaps within a group.
    """
    d = len(k)
    n_nodes = [math.prod(k[:j]) for j in range(d + 1)]
    span = cex_tree_y * (ylim[1] - ylim[0])
    widths = [0.0] * d
    for j in range(d - 1, -1, -1):
        if k[j] > 1:
            widths[j] = span / (n_nodes[j] + (n_nodes[j] - 1) / (k[j] - 1))
        span -= widths[j]
    ys = [np.array([(ylim[0] + ylim[1]) / 2])]
    for j in range(d):
        offsets = widths[j] * (np.linspace(-0.5, 0.5, k[j]) if k[j] > 1 else np.zeros(1))
        ys.append((ys[-1][:, None] + offsets[None, :]).ravel())
    xs = xlim[0] + (xlim[1] - xlim[0]) * np.arange(d + 1) / d
    return xs, ys


def _check_pair_any(value, where):
    """Two finite numbers; ``where`` names them."""
    if isinstance(value, (str, bytes)):
        raise ValueError(f"{where} must be a pair of numbers; got {value!r}.")
    try:
        a, b = (float(v) for v in value)
    except (TypeError, ValueError):
        raise ValueError(f"{where} must be a pair of numbers; got {value!r}.") from None
    if not (math.isfinite(a) and math.isfinite(b)):
        raise ValueError(f"{where} must be finite numbers; got {value!r}.")
    return a, b


def _tikz_limits(value, name, normalize_layout):
    """``write_tikz``'s ``xlim``/``ylim``: None is R's NULL."""
    if value is not None:
        return _check_pair(value, name)
    if normalize_layout:
        return (0.0, 1.0)
    raise ValueError(f"`{name}` is None with normalize_layout=False: R then writes the "
                     "layout's coordinates unscaled (igraph's Sugiyama ones by default), which "
                     f"this port does not; give `{name}` as a pair of numbers.")


def _check_pair(value, name):
    a, b = _check_pair_any(value, f"`{name}`")
    if not a < b:
        raise ValueError(f"`{name}` must have low < high; got {value!r}.")
    return a, b


# -- plot --------------------------------------------------------------------------

def plot(
    x: Any,
    limit: int | None = None,
    xlim: tuple[float, float] = (0, 1),
    ylim: tuple[float, float] = (0, 1),
    ax: Axes | None = None,
    *,
    main: str | None = None,
    sub: str | None = None,
    asp: float | None = None,
    col: str | Callable[..., Sequence[str]] | Mapping[str, Any] | None = None,
    palette: str | Sequence[str] | None = None,
    ignore: Sequence[str] | None = None,
    show_ignored: bool = False,
    cex_label_nodes: float | Sequence[float] = 0,
    cex_label_edges: float | None = None,
    cex_nodes: float | Sequence[float] | None = None,
    cex_tree_y: float = 0.9,
    var_names: bool = True,
    legend: bool = True,
    col_edges: str = "black",
    pch_nodes: int | str = 16,
    lwd_nodes: float = 1.0,
    lwd_edges: float = 1.0,
    layout: (Mapping[Any, tuple[float, float]]
             | Callable[..., Mapping[Any, tuple[float, float]]] | None) = None,
    max_leaves: int = MAX_LEAVES,
) -> Axes:
    """Draw a staged event tree, a chain event graph or a DAG (R: ``plot.sevt``,
    ``plot.ceg``, ``plot.parentslist``).

    A staged tree is drawn as R draws it: the root on the left, a column per
    variable, each edge labelled with its level (rotated along the edge) and
    each situation coloured by its stage, with a legend ``variable: stage``.
    Situations in ignored stages are left out, as R leaves them out; with
    ``show_ignored`` they and the edges out of them are drawn light grey.
    Only the first ``limit`` variables are drawn (R's default, 10); past
    ``max_leaves`` leaves fewer are drawn, with a warning and a note on the
    figure.

    A :class:`~pystagedtrees.Ceg` is drawn with one node per position
    (coloured by its stage), a column per variable and an ``END`` node;
    parallel edges are curved.  Anything else is read with
    :func:`~pystagedtrees.as_parentslist` and drawn as a DAG,
    layered by topological generation, arcs coloured by kind (R's colours:
    context red, context-partial orange, partial blue, local purple, total
    black).

    Parameters
    ----------
    x : Sevt, Ceg, ParentsList, dict, str, networkx.DiGraph or bnc model
    limit : int, optional
        Number of variables drawn (R's ``limit``; default 10).
    xlim, ylim : pair of float, default (0, 1)
        Where the tree is laid out (R's ``xlim``, ``ylim``).
    ax : matplotlib.axes.Axes, optional
        Draw there; default a new figure sized to the tree.
    main, sub : str, optional
        Title and subtitle.
    asp : float, optional
        y/x aspect ratio, a positive number (R uses 1); default fills the axes.
    col, palette
        Stage colours, see :func:`make_stages_col`.  For a DAG, ``col``
        maps kinds of arcs (``"context"``, ``"partial"``...) to colours, as
        R's ``plot.parentslist`` does.
    ignore : list of str, optional
        Stages whose situations are left out, or with ``show_ignored``
        drawn grey, and kept out of the legend (default
        ``x.name_unobserved``).
    show_ignored : bool, default False
        Draw the ignored situations too (grey); by default they are left
        out, as R does.
    cex_label_nodes : float or list of float, default 0
        Size of the stage names written on the situations, relative to the
        edge labels; 0 writes none (R's default).  A list gives one size per
        variable, recycled as R does.
    cex_label_edges : float, optional
        Size of the levels written on the edges; 0 writes none.  Default 1
        when the drawing has at most 256 leaves, else 0 (R always writes
        them).
    cex_nodes : float or list of float, optional
        Size of the situations, R's ``cex`` (2 is R's default size; 0 hides
        them), or one size per variable.  Default: R's size, made smaller
        where the situations of a column would overlap.
    cex_tree_y : float, default 0.9
        Share of the height used by the tree (room for the names below).
    var_names : bool, default True
        Write the variable names under their columns (see :func:`text`).
    legend : bool, default True
        A legend of the stages, when there are at most 120 of them.
    col_edges : str, default "black"
        A matplotlib colour.
    pch_nodes : int or str, default 16
        Shape of the situations: one of R's point shapes 0-25 (16 is a
        filled circle, 1 an open one, 15 a filled square...) or a single
        character, drawn as the shape.
    lwd_nodes, lwd_edges : float, default 1.0
        Line widths of the situations' outlines and of the edges.
    layout : dict or callable, optional
        Chain event graphs and DAGs only: the place of every node, a dict
        ``node -> (x, y)`` or a function taking the networkx graph (as
        networkx's layout functions do) and returning one; the picture is
        fitted into ``xlim`` and ``ylim``.  Default: one column per
        variable (a layer of the DAG), as R's Sugiyama layout.
    max_leaves : int, default 2000
        Largest number of leaves drawn.

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    ImportError
        Without matplotlib.
    ValueError, TypeError
        Bad arguments.

    Examples
    --------
    >>> from pystagedtrees import plot
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import pystagedtrees as st
    >>> model = st.stndnaming(st.stages_bhc(st.full(st.datasets.titanic_table())))
    >>> ax = plot(model)
    >>> sorted(t.get_text() for t in ax.get_legend().get_texts())[:3]
    ['Age: 1', 'Age: 2', 'Age: 3']
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    xlim = _check_pair(xlim, "xlim")
    ylim = _check_pair(ylim, "ylim")
    legend = check_flag(legend, "legend")
    if cex_label_edges is not None:
        cex_label_edges = check_number(cex_label_edges, "cex_label_edges")
    if isinstance(x, Sevt) and not _is_ceg(x):
        if layout is not None:
            raise ValueError("`layout` places the nodes of a chain event graph or a DAG; "
                             "a staged tree is always drawn as a tree.")
        style = _TreeStyle(
            show_ignored=check_flag(show_ignored, "show_ignored"),
            cex_label_nodes=_per_variable(cex_label_nodes, "cex_label_nodes"),
            cex_label_edges=cex_label_edges,
            cex_nodes=None if cex_nodes is None else _per_variable(cex_nodes, "cex_nodes"),
            cex_tree_y=check_number(cex_tree_y, "cex_tree_y", positive=True),
            var_names=check_flag(var_names, "var_names"),
            col_edges=_check_color(col_edges, _color_check(), "`col_edges`"),
            pch_nodes=_check_pch(pch_nodes),
            lwd_nodes=check_number(lwd_nodes, "lwd_nodes"),
            lwd_edges=check_number(lwd_edges, "lwd_edges", positive=True),
        )
        asp = check_number(asp, "asp", positive=True, allow_none=True)
        return _fit_figure(_plot_tree(x, limit, xlim, ylim, ax, main, sub, asp, col, palette,
                                      ignore, legend, style, max_leaves), own=ax is None)
    tree_only = dict(
        limit=limit, sub=sub, asp=asp, show_ignored=show_ignored, cex_label_nodes=cex_label_nodes,
        cex_nodes=cex_nodes, cex_tree_y=cex_tree_y, var_names=var_names, col_edges=col_edges,
        pch_nodes=pch_nodes, lwd_nodes=lwd_nodes, lwd_edges=lwd_edges, max_leaves=max_leaves,
    )
    changed = [name for name, value in tree_only.items()
               if not _is_default(value, _PLOT_DEFAULTS[name])]
    if changed:
        raise ValueError(
            f"{', '.join(f'`{n}`' for n in changed)} appl{'ies' if len(changed) == 1 else 'y'} "
            f"only to staged trees; "
            f"`x` is drawn as a {'chain event graph' if isinstance(x, Sevt) else 'DAG'}."
        )
    if isinstance(x, Sevt):
        return _fit_figure(_plot_ceg(x, ax, xlim, ylim, main, col, palette, ignore, legend,
                                     cex_label_edges, layout), own=ax is None)
    return _fit_figure(_plot_dag(x, ax, xlim, ylim, main, col, legend, layout), own=ax is None)


_PLOT_DEFAULTS = {name: p.default for name, p in inspect.signature(plot).parameters.items()}


def _is_default(value, default):
    """Whether an option was left as it was (or given its default value)."""
    if value is default:
        return True
    plain = (numbers.Number, str)
    return (not isinstance(value, bool) and not isinstance(default, bool)
            and isinstance(value, plain) and isinstance(default, plain) and value == default)


def _is_ceg(x):
    from pystagedtrees.graphs._ceg import Ceg

    return isinstance(x, Ceg)


@dataclass(frozen=True)
class _TreeStyle:
    """How :func:`plot` draws a staged tree: its checked R-style options."""

    show_ignored: bool
    cex_label_nodes: Callable  # variable index -> size
    cex_label_edges: float | None
    cex_nodes: Callable | None
    cex_tree_y: float
    var_names: bool
    col_edges: str
    pch_nodes: int | str
    lwd_nodes: float
    lwd_edges: float


def _per_variable(value, name):
    """One non-negative size, or a list of them recycled over the variables (R's ``rep``)."""
    values = list(value) if isinstance(value, Iterable) and not isinstance(value, str) else [value]
    if not values:
        raise ValueError(f"`{name}` must be a number or a non-empty list of numbers; got {value!r}.")
    values = [check_number(v, name) for v in values]
    return lambda j: values[j % len(values)]


# R's point shapes: (outline, filled with the colour, size relative to the others)
_PCH_SHAPES = {
    0: ("square", False), 1: ("circle", False), 2: ("triangle", False), 3: ("plus", False),
    4: ("cross", False), 5: ("diamond", False), 6: ("triangle_down", False),
    7: ("square+cross", False), 8: ("plus+cross", False), 9: ("diamond+plus", False),
    10: ("circle+plus", False), 11: ("triangle+triangle_down", False),
    12: ("square+plus", False), 13: ("circle+cross", False), 14: ("square+roof", False),
    15: ("square", True), 16: ("circle", True), 17: ("triangle", True), 18: ("diamond", True),
    19: ("circle", True), 20: ("circle", True), 21: ("circle", False), 22: ("square", False),
    23: ("diamond", False), 24: ("triangle", False), 25: ("triangle_down", False),
}


def _check_pch(pch):
    """R's ``pch``: a shape number 0-25 or a single character."""
    if isinstance(pch, str):
        if len(pch) != 1 or not pch.isprintable() or pch.isspace():
            raise ValueError(f"`pch_nodes` must be a shape 0-25 or one visible character; got {pch!r}.")
        return pch
    pch = check_int(pch, "pch_nodes")
    if pch not in _PCH_SHAPES:
        raise ValueError(f"`pch_nodes` must be a shape 0-25 or one visible character; got {pch!r}.")
    return pch


def _shape_path(name):
    from matplotlib.path import Path

    def lines(*segments):
        vertices = [point for segment in segments for point in segment]
        codes = [Path.MOVETO, Path.LINETO] * len(segments)
        return Path(vertices, codes)

    if name == "circle":
        return Path.unit_circle()
    if name == "square":
        return Path([(-1, -1), (1, -1), (1, 1), (-1, 1), (-1, -1)], closed=True)
    if name in ("triangle", "triangle_down"):
        sign = 1 if name == "triangle" else -1
        return Path([(-1, -sign * 0.75), (1, -sign * 0.75), (0, sign * 1.0), (-1, -sign * 0.75)],
                    closed=True)
    if name == "diamond":
        return Path([(0, -1), (1, 0), (0, 1), (-1, 0), (0, -1)], closed=True)
    if name == "plus":
        return lines(((-1, 0), (1, 0)), ((0, -1), (0, 1)))
    if name == "cross":
        return lines(((-1, -1), (1, 1)), ((-1, 1), (1, -1)))
    if name == "roof":  # pch 14: a triangle standing on the square's base
        return lines(((-1, -1), (0, 1)), ((0, 1), (1, -1)))
    return Path.make_compound_path(*(_shape_path(part) for part in name.split("+")))


def _pch_marker(pch):
    """matplotlib marker, whether it is filled, and its size relative to R's circle."""
    if isinstance(pch, str):
        from matplotlib.path import Path
        from matplotlib.textpath import TextPath

        glyph = TextPath((0, 0), pch)
        low, high = glyph.vertices.min(axis=0), glyph.vertices.max(axis=0)
        return Path(glyph.vertices - (low + high) / 2, glyph.codes), True, 1.0
    shape, filled = _PCH_SHAPES[pch]
    return _shape_path(shape), filled, (2 / 3 if pch == 20 else 1.0)


def _finish_axes(ax, xlim, ylim, asp, main, sub):
    pad_x = 0.04 * (xlim[1] - xlim[0])
    pad_y = 0.04 * (ylim[1] - ylim[0])
    ax.set_xlim(xlim[0] - pad_x, xlim[1] + pad_x)
    ax.set_ylim(ylim[0] - pad_y, ylim[1] + pad_y)
    if asp is not None:
        ax.set_aspect(asp)
    ax.set_axis_off()
    if main is not None:
        ax.set_title(str(main))
    if sub is not None:
        ax.text(0.5, -0.02, str(sub), transform=ax.transAxes, ha="center", va="top")


def _legend(ax, n_entries, title):
    """The legend of the stages; none past LEGEND_MAX entries, which no one could read."""
    if n_entries == 0 or n_entries > LEGEND_MAX:
        return
    ax.legend(
        loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False, title=title,
        fontsize="small", ncol=max(1, math.ceil(n_entries / 30)), markerscale=0.8,
    )


def _edge_label(ax, start, end, text, fontsize, color, at=0.5):
    """A level written along its edge (angle given in data space, turned at draw time).

    ``at`` is where along the edge; past the middle, sibling labels are further apart.
    """
    angle = math.degrees(math.atan2(end[1] - start[1], end[0] - start[0]))
    ax.text(
        start[0] + at * (end[0] - start[0]), start[1] + at * (end[1] - start[1]), text, rotation=angle,
        rotation_mode="anchor", transform_rotates_text=True, ha="center", va="bottom",
        fontsize=fontsize, color=color, gid="edge-label",
    )


def _plot_tree(model, limit, xlim, ylim, ax, main, sub, asp, col, palette, ignore, legend, style,
               max_leaves):
    from matplotlib.collections import LineCollection

    d, note = _drawn_depth(model, limit, max_leaves)
    view = _TreeView(model, d, col, ignore, palette, _color_check())
    xs, ys = _tree_layout(view.k, xlim, ylim, style.cex_tree_y)
    n_leaves = len(ys[-1])
    ax = _new_axes(ax, 2.0 + 1.8 * d, min(40.0, max(4.8, 0.18 * n_leaves)))
    ax.set_autoscale_on(False)  # the limits are set at the end; rescaling per artist is slow
    cex_label_edges = style.cex_label_edges
    if cex_label_edges is None:
        cex_label_edges = 1.0 if n_leaves <= EDGE_LABELS_MAX_LEAVES else 0.0
    height_pts = ax.bbox.height * 72.0 / ax.figure.dpi * style.cex_tree_y
    fontsize = float(np.clip(0.8 * height_pts / n_leaves, 4.0, 9.0))  # fits the gap between leaves
    marker, filled, relative_size = _pch_marker(style.pch_nodes)
    if style.cex_nodes is None:
        # per column: a marker about 60% of the gap between its nodes, R's cex 2 at most
        sizes = [float(np.clip((0.6 * height_pts / len(ys[j])) ** 2, 4.0, _marker_area(2.0)))
                 for j in range(d)]
    else:
        sizes = [_marker_area(style.cex_nodes(j)) for j in range(d)]
    sizes = [size * relative_size ** 2 for size in sizes]

    # edges of depth j lead from the situations of variable j to depth j+1
    segments = {False: [], True: []}
    for j in range(d):
        ignored_parent = np.repeat(view.ignored[j], view.k[j])
        parents = np.repeat(ys[j], view.k[j])
        for idx, (y0, y1) in enumerate(zip(parents, ys[j + 1])):
            grey = bool(ignored_parent[idx])
            if grey and not style.show_ignored:
                continue
            segments[grey].append(((xs[j], y0), (xs[j + 1], y1)))
            if cex_label_edges > 0:
                level = model.tree[view.variables[j]][idx % view.k[j]]
                _edge_label(ax, (xs[j], y0), (xs[j + 1], y1), level, fontsize * cex_label_edges,
                            IGNORED_COLOR if grey else style.col_edges, at=0.6)
    for grey, segs in segments.items():
        if segs:
            ax.add_collection(LineCollection(
                segs, colors=IGNORED_COLOR if grey else style.col_edges,
                linewidths=style.lwd_edges, gid="ignored-edges" if grey else "edges", zorder=1,
            ))

    def situations(j, idx, color, **kwargs):
        """Draw situations ``idx`` of column ``j`` as R's ``points(pch, col, lwd)``."""
        edge = color or "black"
        face = (color or UNCOLORED) if filled else "none"
        ax.scatter(np.full(len(idx), xs[j]), ys[j][idx], s=sizes[j], marker=marker, c=face,
                   edgecolors=edge, linewidths=style.lwd_nodes, **kwargs)

    ignored_labelled = False
    for j in range(d):
        var = view.variables[j]
        stages = view.stages[j]
        order = [] if j == 0 else list(view.colors[var])
        groups = [("1", np.array([0]))] if j == 0 else [(s, np.flatnonzero(stages == s)) for s in order]
        for stage, idx in groups:
            situations(j, idx, view.color(j, stage), label=f"{var}: {stage}" if j else "_root",
                       gid=f"situations:{var}:{stage}", zorder=3)
        if style.show_ignored and view.ignored[j].any():
            situations(j, np.flatnonzero(view.ignored[j]), IGNORED_COLOR,
                       label="_ignored" if ignored_labelled else "unobserved",
                       gid=f"ignored:{var}", zorder=2)
            ignored_labelled = True
        if style.cex_label_nodes(j) > 0:
            _stage_names(ax, view, j, xs[j], ys[j], fontsize * style.cex_label_nodes(j),
                         beside=sizes[j] > 0, show_ignored=style.show_ignored)
    if style.var_names:
        text(model, limit=d, xlim=xlim, ylim=ylim, ax=ax, ha="left")
    if note is not None:
        ax.text(1.0, 0.0, note, transform=ax.transAxes, ha="right", va="top",
                fontsize="small", style="italic", gid="truncation-note")
    _finish_axes(ax, xlim, ylim, asp, main, sub)
    if legend:
        has_ignored = style.show_ignored and any(ig.any() for ig in view.ignored)
        _legend(ax, len(view.legend_stages()) + has_ignored, "stages")
    return ax


def _marker_area(cex):
    """Area in points^2 of a marker of R's size ``cex`` (R's default 2 is 8 points across)."""
    return (4.0 * cex) ** 2


def _stage_names(ax, view, j, x, ys, fontsize, beside, show_ignored):
    """Each situation's stage written in its colour, beside the marker or (none drawn) on it."""
    stages = view.stages[j]
    shown = np.arange(len(stages)) if show_ignored else np.flatnonzero(~view.ignored[j])
    offset = (3, 3) if beside else (0, 0)
    align = dict(ha="left", va="bottom") if beside else dict(ha="center", va="center")
    for s in shown:
        color = IGNORED_COLOR if view.ignored[j][s] else (view.color(j, stages[s]) or "black")
        ax.annotate(stages[s], (x, ys[s]), xytext=offset, textcoords="offset points",
                    fontsize=fontsize, color=color, gid="node-label", **align)


def text(x: Sevt, y: float | None = None, limit: int | None = None,
         xlim: tuple[float, float] = (0, 1), ylim: tuple[float, float] = (0, 1),
         ax: Axes | None = None, **kwargs: Any) -> list[Text]:
    """Write the variable names under the columns of a drawn staged tree (R: ``text.sevt``).

    :func:`plot` calls it unless ``var_names=False``; call it yourself to
    place or style the names differently.

    Parameters
    ----------
    x : Sevt
    y : float, optional
        Height of the names; default ``ylim[0]``.
    limit : int, optional
        Number of variables named (R's default 10).
    xlim, ylim : pair of float, default (0, 1)
        As given to :func:`plot`.
    ax : matplotlib.axes.Axes, optional
        Default the current axes.
    **kwargs
        Passed to matplotlib's ``Axes.text`` (``fontsize``, ``color``,
        ``ha``...); R's names are centred on their columns' x.

    Returns
    -------
    list of matplotlib.text.Text

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import pystagedtrees as st
    >>> model = st.full(st.datasets.titanic_table())
    >>> ax = st.plot(model, var_names=False)
    >>> [t.get_text() for t in st.text(model, ax=ax, y=0.98, color="red")]
    ['Class', 'Sex', 'Age', 'Survived']
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    check_sevt(x, "x")
    xlim = _check_pair(xlim, "xlim")
    ylim = _check_pair(ylim, "ylim")
    if y is None:
        y = ylim[0]
    elif isinstance(y, bool) or not isinstance(y, numbers.Real) or not math.isfinite(y):
        raise TypeError(f"`y` must be a finite number or None; got {y!r}.")
    limit = check_int(limit, "limit", minimum=1, allow_none=True)
    d = min(len(x.variables), DEFAULT_LIMIT if limit is None else limit)
    if ax is None:
        ax = _pyplot().gca()
    elif not hasattr(ax, "text"):
        raise TypeError(f"`ax` must be a matplotlib Axes; got {type(ax).__name__}.")
    options = dict(ha="center", va="center", gid="variable-name")
    options.update(kwargs)
    xs = np.linspace(xlim[0], xlim[1], d + 1)[:d]
    return [ax.text(float(px), y, name, **options) for px, name in zip(xs, x.variables[:d])]


def _layered_positions(layers, xlim, ylim):
    """Coordinates of nodes given as layers (lists of names), left to right."""
    coords = {}
    n = len(layers)
    for j, names in enumerate(layers):
        x = xlim[0] + (xlim[1] - xlim[0]) * (j / (n - 1) if n > 1 else 0.5)
        m = len(names)
        ys = np.linspace(ylim[1], ylim[0], m + 2)[1:-1]
        for name, y in zip(names, ys):
            coords[name] = (x, float(y))
    return coords


def _node_positions(layout, graph_of, layers, xlim, ylim):
    """Where each node goes: by layers, or a user's ``layout`` fitted to the limits.

    ``graph_of()`` gives the networkx graph, built only for a layout.  As
    R's ``write_tikz`` does, each coordinate is stretched linearly onto
    ``xlim``/``ylim`` (a coordinate shared by all nodes goes to the middle).
    """
    if layout is None:
        return _layered_positions(layers, xlim, ylim)
    graph = graph_of()
    expected = "a dict node -> (x, y), or a function of the networkx graph returning one"
    coords = layout(graph) if callable(layout) else layout
    if not isinstance(coords, Mapping):
        raise TypeError(f"`layout` must be {expected}; got {type(coords).__name__}.")
    missing = [node for node in graph.nodes if node not in coords]
    if missing:
        raise ValueError(f"`layout` has no place for the node {missing[0]!r} "
                         f"({len(missing)} of {graph.number_of_nodes()} missing).")
    points = {node: _check_pair_any(coords[node], f"`layout`[{node!r}]") for node in graph.nodes}
    xy = np.array(list(points.values()), dtype=float)
    low, high = xy.min(axis=0), xy.max(axis=0)
    limits = np.array([xlim, ylim])
    spread = np.where(high > low, high - low, 1.0)
    fitted = np.where(high > low, (xy - low) / spread, 0.5) * (limits[:, 1] - limits[:, 0]) + limits[:, 0]
    return {node: (float(px), float(py)) for node, (px, py) in zip(points, fitted)}


def _ceg_positions(model, ignore, layers, layout, xlim, ylim):
    """:func:`_node_positions` of the positions of a chain event graph."""
    from pystagedtrees.graphs._parentslist import as_networkx

    def graph_of():
        return as_networkx(model, ignore=list(check_ignore(ignore, model.name_unobserved)))

    return _node_positions(layout, graph_of, layers, xlim, ylim)


def _ceg_view(model, col, ignore, palette, is_color):
    """Positions (name, variable, stage, colour) in layers, and the edges."""
    from pystagedtrees.graphs._ceg import get_edges, get_vertices

    ignore = check_ignore(ignore, model.name_unobserved)
    vertices = get_vertices(model, ignore=list(ignore))
    edges = get_edges(model, ignore=list(ignore))
    colors = _stages_col(model, col, ignore, None, palette, is_color)
    root_color = _root_color(model, col, palette, is_color)
    layers = {v: [] for v in model.variables}
    nodes = []
    for name, stage, var in vertices.itertuples(index=False):
        if name == "END":
            continue
        color = root_color if var == model.variables[0] else colors[var].get(stage)
        layers[var].append(name)
        nodes.append((name, var, stage, color))
    return list(layers.values()) + [["END"]], nodes, edges, colors


def _quadratic_curve(p0, p1, bend, n=24):
    """Points of a quadratic Bezier from p0 to p1 bent sideways by ``bend``."""
    p0, p1 = np.asarray(p0), np.asarray(p1)
    delta = p1 - p0
    control = (p0 + p1) / 2 + bend * np.array([-delta[1], delta[0]])
    t = np.linspace(0, 1, n)[:, None]
    return (1 - t) ** 2 * p0 + 2 * (1 - t) * t * control + t ** 2 * p1


def _plot_ceg(model, ax, xlim, ylim, main, col, palette, ignore, legend, cex_label_edges, layout):
    from matplotlib.collections import LineCollection

    layers, nodes, edges, colors = _ceg_view(model, col, ignore, palette, _color_check())
    coords = _ceg_positions(model, ignore, layers, layout, xlim, ylim)
    tallest = max(len(layer) for layer in layers)
    ax = _new_axes(ax, 2.0 + 1.8 * len(layers), max(4.0, 0.5 * tallest))
    if cex_label_edges is None:
        cex_label_edges = 1.0 if len(edges) <= 4 * EDGE_LABELS_MAX_LEAVES else 0.0
    curves = []
    for (start, end), group in edges.groupby(["from", "to"], sort=False):
        bends = np.linspace(-0.25, 0.25, len(group)) if len(group) > 1 else [0.0]
        for bend, label in zip(bends, group["label"]):
            curve = _quadratic_curve(coords[start], coords[end], bend)
            curves.append(curve)
            if cex_label_edges > 0:
                mid = len(curve) // 2
                _edge_label(ax, curve[mid - 1], curve[mid + 1], label, 8 * cex_label_edges, "black")
    ax.add_collection(LineCollection(curves, colors="black", linewidths=1.0, gid="edges", zorder=1))
    by_stage = {}
    for name, var, stage, color in nodes:
        by_stage.setdefault((var, stage, color), []).append(coords[name])
    root = model.variables[0]
    for (var, stage, color), points in by_stage.items():
        pts = np.array(points)
        ax.scatter(pts[:, 0], pts[:, 1], s=160, c=color or UNCOLORED,
                   edgecolors="black", label="_root" if var == root else f"{var}: {stage}",
                   gid=f"positions:{var}:{stage}", zorder=3)
    for name, _, _, _ in nodes:
        ax.annotate(name, coords[name], xytext=(0, 9), textcoords="offset points",
                    ha="center", fontsize=7, gid="node-label")
    ax.scatter(*coords["END"], s=160, c="white", edgecolors="black", marker="s", gid="end", zorder=3)
    ax.annotate("END", coords["END"], xytext=(0, 9), textcoords="offset points", ha="center", fontsize=7)
    _finish_axes(ax, xlim, ylim, None, main, None)
    if legend:
        _legend(ax, sum(1 for var, _, _ in by_stage if var != root), "stages")
    return ax


def _dag_layers(graph):
    import networkx as nx

    return [sorted(layer, key=list(graph.nodes).index) for layer in nx.topological_generations(graph)]


def _dag_colors(col):
    """Colours of the kinds of arcs: R's, or those ``col`` maps kinds to (R's ``col``)."""
    if col is None:
        return DAG_EDGE_COLORS
    if not isinstance(col, Mapping):
        raise TypeError(f"`col` of a DAG must map kinds of arcs ({', '.join(DAG_EDGE_COLORS)}) "
                        f"to colours; got {type(col).__name__}.")
    unknown = [kind for kind in col if kind not in DAG_EDGE_COLORS]
    if unknown:
        raise ValueError(f"`col` names {unknown[0]!r}, not a kind of arc; the kinds are "
                         f"{', '.join(DAG_EDGE_COLORS)}.")
    is_color = _color_check()
    return {**DAG_EDGE_COLORS,
            **{kind: _check_color(c, is_color, f"`col`[{kind!r}]") for kind, c in col.items()}}


def _plot_dag(x, ax, xlim, ylim, main, col, legend, layout):
    from matplotlib.lines import Line2D

    from pystagedtrees.graphs._parentslist import as_networkx

    colors = _dag_colors(col)
    graph = as_networkx(x)
    layers = _dag_layers(graph)
    coords = _node_positions(layout, lambda: graph, layers, xlim, ylim)
    longest = max(len(str(node)) for node in graph.nodes)
    ax = _new_axes(ax, 1.0 + (0.9 + 0.09 * longest) * len(layers),
                   max(3.0, 0.9 * max(len(layer) for layer in layers)))
    _finish_axes(ax, xlim, ylim, None, main, None)  # limits first: arcs are measured on screen
    boxes = {}
    for node, (px, py) in coords.items():
        text = ax.text(px, py, node, ha="center", va="center", gid=f"variable:{node}", zorder=3,
                       bbox=dict(boxstyle="round,pad=0.4", facecolor="white", edgecolor="black"))
        boxes[node] = text.get_bbox_patch()
    layer_of = {v: j for j, layer in enumerate(layers) for v in layer}
    kinds = []
    sag = 0.0  # how far below its chord the deepest arc goes, in display units
    for parent, child, attrs in graph.edges(data=True):
        kind = attrs.get("label", "total")
        kinds.append(kind)
        # arcs that skip layers bend (downwards) more, so they pass around the nodes in between
        bend = 0.2 * (layer_of[child] - layer_of[parent] - 1) if layout is None else 0.0
        chord = np.subtract(ax.transData.transform(coords[child]), ax.transData.transform(coords[parent]))
        sag = max(sag, bend * float(np.hypot(*chord)) / 2)
        ax.annotate(
            "", xy=coords[child], xytext=coords[parent], gid=f"arc:{kind}",
            # clipped at the name boxes (drawn after them, so the boxes are placed)
            arrowprops=dict(arrowstyle="-|>", color=colors[kind], shrinkA=1, shrinkB=1,
                            patchA=boxes[parent], patchB=boxes[child],
                            connectionstyle=f"arc3,rad={bend}"),
            zorder=4,
        )
    if sag > 0:  # make room below the nodes: a share of the height the arcs' sag needs
        bottom, top = ax.get_ylim()
        share = min(0.8, 1.1 * sag / ax.bbox.height)
        ax.set_ylim(top - (top - bottom) / (1 - share), top)
    present = [k for k in DAG_EDGE_COLORS if k in kinds]
    if legend and len(present) > 1:
        handles = [Line2D([], [], color=colors[k], label=k) for k in present]
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False,
                  fontsize="small", title="dependence")
    return ax


# -- barplot -----------------------------------------------------------------------

def barplot(x: Sevt, var: str, ignore: Sequence[str] | None = None, beside: bool = True,
            horiz: bool = False, legend: bool = False,
            col: str | Callable[..., Sequence[str]] | Mapping[str, Any] | None = None,
            palette: str | Sequence[str] | None = None, xlab: str | None = None,
            ylab: str | None = None, ax: Axes | None = None, main: str | None = None,
            width: float = 0.8) -> Axes:
    """Bar chart of the probabilities of ``var`` in each of its stages (R: ``barplot.sevt``).

    One group of bars per level of ``var``, one bar per stage in order of
    the stages' first situations, coloured as in :func:`plot`; or, with
    ``beside=False``, one bar per level with the stages stacked, as R draws
    them.

    Parameters
    ----------
    x : Sevt
        A fitted staged tree.
    var : str
    ignore : list of str, optional
        Stages left out; default ``x.name_unobserved``.
    beside : bool, default True
        Bars side by side (True) or stacked (False).
    horiz : bool, default False
        Horizontal bars.
    legend : bool, default False
        A legend of the stages (R's ``legend.text``).
    col, palette
        See :func:`make_stages_col`.
    xlab, ylab : str, optional
        Axis titles; by default, as R, "probability" on the value axis and
        none on the other.
    ax : matplotlib.axes.Axes, optional
    main : str, optional
    width : float, default 0.8
        Width of a group of bars, a positive number.

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    ValueError, TypeError
        ``x`` not fitted, ``var`` not one of its variables, or other bad
        arguments (colours as in :func:`make_stages_col`).

    Examples
    --------
    >>> from pystagedtrees import barplot
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import pystagedtrees as st
    >>> model = st.stages_bhc(st.full(st.datasets.titanic_table()))
    >>> ax = barplot(model, "Sex")
    >>> len(ax.patches)  # 3 stages x 2 levels
    6
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    check_sevt(x, "x", fitted=True)
    i = x.var_index(var)
    ignore = check_ignore(ignore, x.name_unobserved)
    beside, horiz, legend = (check_flag(beside, "beside"), check_flag(horiz, "horiz"),
                             check_flag(legend, "legend"))
    width = check_number(width, "width", positive=True)
    titles = {"xlab": xlab, "ylab": ylab}
    for name, title in titles.items():
        if title is not None and not isinstance(title, str):
            raise TypeError(f"`{name}` must be a string or None; got {title!r}.")
    if i == 0:
        stages, colors = ["1"], {"1": _root_color(x, col, palette, _color_check())}
    else:
        colors = _stages_col(x, col, ignore, None, palette, _color_check())[var]
        stages = list(colors)
    probs = x.stage_prob_of(i)
    levels = x.tree[var]
    groups = len(stages) if beside else 1
    own = ax is None
    ax = _new_axes(ax, max(4.0, 0.5 + 0.35 * len(levels) * groups), 4.0)
    bar_width = width / max(groups, 1)
    centers = np.arange(len(levels), dtype=float)
    stacked = np.zeros(len(levels))
    draw = ax.barh if horiz else ax.bar
    for b, stage in enumerate(stages):
        heights = np.nan_to_num(probs[stage].to_numpy(dtype=float))
        offsets = centers - width / 2 + (b + 0.5) * bar_width if beside else centers
        base = {} if beside else ({"left": stacked} if horiz else {"bottom": stacked})
        draw(offsets, heights, bar_width, color=colors[stage] or UNCOLORED, edgecolor="black",
             linewidth=0.5, label=stage, gid=f"stage:{stage}", **base)
        stacked = stacked + heights
    (ax.set_yticks if horiz else ax.set_xticks)(centers, levels)
    value_axis = "xlab" if horiz else "ylab"
    for name, set_title in (("xlab", ax.set_xlabel), ("ylab", ax.set_ylabel)):
        default = "probability" if name == value_axis else ""
        set_title(titles[name] if titles[name] is not None else default)
    if main is not None:
        ax.set_title(str(main))
    if legend:
        ax.legend(title=f"stages of {var}", fontsize="small", frameon=False,
                  loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return _fit_figure(ax, own)


# -- text output -------------------------------------------------------------------

def _tree_nodes(model, view, xs, ys, show_ignored):
    """Nodes (id, var index, stage, colour, ignored, x, y) and edges (from, to, level, ignored)."""
    nodes, edges = [], []
    for j in range(view.d):
        for s, stage in enumerate(view.stages[j]):
            ignored = bool(view.ignored[j][s])
            if ignored and not show_ignored:
                continue
            nodes.append((f"s{j}_{s}", j, stage, view.color(j, stage), ignored, xs[j], ys[j][s]))
            levels = model.tree[view.variables[j]]
            for a, level in enumerate(levels):
                child = s * len(levels) + a
                edges.append((f"s{j}_{s}", f"s{j + 1}_{child}", level, ignored))
    leaves = {to for _, to, _, _ in edges if to.startswith(f"s{view.d}_")}
    for name in sorted(leaves, key=lambda n: int(n.split("_")[1])):
        nodes.append((name, None, None, None, False, xs[view.d], ys[view.d][int(name.split("_")[1])]))
    return nodes, edges


def _text_tree(model, limit, col, ignore, palette, show_ignored, xlim, ylim):
    limit = check_int(limit, "limit", minimum=1, allow_none=True)
    d = len(model.variables) if limit is None else min(limit, len(model.variables))
    total = sum(math.prod(int(k) for k in model.n_levels[:j]) for j in range(d + 1))
    if total > MAX_TEXT_NODES:
        raise ValueError(
            f"the first {d} variables make a tree of {total} nodes; pass a smaller `limit` "
            f"(at most {MAX_TEXT_NODES} nodes are written)."
        )
    view = _TreeView(model, d, col, ignore, palette, _text_color_like)
    xs, ys = _tree_layout(view.k, xlim, ylim, 1.0)
    return view, _tree_nodes(model, view, xs, ys, show_ignored)


def _dot_quote(text):
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _dot_attrs(**attrs):
    inner = ", ".join(f"{k}={_dot_quote(v)}" for k, v in attrs.items() if v is not None)
    return f" [{inner}]" if inner else ""


def to_dot(x: Any, limit: int | None = None,
           col: str | Callable[..., Sequence[str]] | Mapping[str, Any] | None = None,
           palette: str | Sequence[str] | None = None, ignore: Sequence[str] | None = None,
           show_ignored: bool = False, rankdir: Literal["LR", "RL", "TB", "BT"] = "LR") -> str:
    """Graphviz DOT text of a staged tree, a chain event graph or a DAG.

    No Graphviz binary is needed to produce it; render it with
    ``dot -Tpdf`` or any DOT viewer.

    Parameters
    ----------
    x : Sevt, Ceg or a DAG (see :func:`plot`)
    limit : int, optional
        Staged trees: only the first ``limit`` variables (default all).
    col, palette
        Stage colours, see :func:`make_stages_col`.
    ignore : list of str, optional
        Stages whose situations are left out, or with ``show_ignored``
        drawn grey and dashed (default ``x.name_unobserved``).
    show_ignored : bool, default False
        Write the ignored situations too; by default they are left out, as
        :func:`plot` leaves them out.
    rankdir : {"LR", "RL", "TB", "BT"}, default "LR"
        Graphviz direction ("LR": root on the left).

    Returns
    -------
    str
        A ``digraph``: for a staged tree one node per situation (labelled
        by its stage, filled with its colour, ``tooltip`` the variable) and
        a point per leaf, edges labelled with the levels.

    Raises
    ------
    ValueError
        A tree too large to write (more than 200000 nodes): pass ``limit``.

    Examples
    --------
    >>> from pystagedtrees import to_dot
    >>> import pystagedtrees as st
    >>> text = to_dot(st.sevt({"A": ["a", "b"], "B": ["x", "y"]}))
    >>> print(text.splitlines()[0])
    digraph "staged tree" {
    >>> print(text.splitlines()[3])
      "s0_0" [label="1", fillcolor="#000000", fontcolor="white", tooltip="A"];
    >>> print([line for line in text.splitlines() if "->" in line][0])
      "s0_0" -> "s1_0" [label="a"];
    """
    show_ignored = check_flag(show_ignored, "show_ignored")
    check_choice(rankdir, "rankdir", RANKDIRS)
    if isinstance(x, Sevt):
        from pystagedtrees.graphs._ceg import Ceg

        if isinstance(x, Ceg):
            return _dot_ceg(x, col, palette, ignore, rankdir)
        view, (nodes, edges) = _text_tree(x, limit, col, ignore, palette, show_ignored, (0, 1), (0, 1))
        lines = ['digraph "staged tree" {', f"  rankdir={_dot_quote(rankdir)};",
                 '  node [shape="circle", style="filled", fontsize="10"];']
        for name, j, stage, color, ignored, _, _ in nodes:
            if j is None:
                lines.append(f"  {_dot_quote(name)}{_dot_attrs(shape='point', label='')};")
                continue
            fill = IGNORED_COLOR if ignored else (color or UNCOLORED)
            lines.append(f"  {_dot_quote(name)}" + _dot_attrs(
                label=stage, fillcolor=fill, fontcolor=_text_color(fill),
                tooltip=view.variables[j], style="filled,dashed" if ignored else None,
            ) + ";")
        for start, end, level, ignored in edges:
            lines.append(f"  {_dot_quote(start)} -> {_dot_quote(end)}"
                         + _dot_attrs(label=level, color=IGNORED_COLOR if ignored else None) + ";")
        return "\n".join(lines) + "\n}\n"
    return _dot_dag(x, rankdir)


def _dot_ceg(model, col, palette, ignore, rankdir):
    layers, nodes, edges, _ = _ceg_view(model, col, ignore, palette, _text_color_like)
    lines = ['digraph "chain event graph" {', f"  rankdir={_dot_quote(rankdir)};",
             '  node [shape="circle", style="filled", fontsize="10"];']
    for name, var, stage, color in nodes:
        fill = color or UNCOLORED
        lines.append(f"  {_dot_quote(name)}" + _dot_attrs(
            label=name, fillcolor=fill, fontcolor=_text_color(fill), tooltip=f"{var}: stage {stage}") + ";")
    lines.append(f"  {_dot_quote('END')}{_dot_attrs(shape='box', fillcolor='white')};")
    for start, end, label in edges[["from", "to", "label"]].itertuples(index=False):
        lines.append(f"  {_dot_quote(start)} -> {_dot_quote(end)}{_dot_attrs(label=label)};")
    return "\n".join(lines) + "\n}\n"


def _dot_dag(x, rankdir):
    from pystagedtrees.graphs._parentslist import as_networkx

    graph = as_networkx(x)
    lines = ['digraph "DAG" {', f"  rankdir={_dot_quote(rankdir)};", '  node [shape="ellipse"];']
    lines += [f"  {_dot_quote(v)};" for v in graph.nodes]
    for parent, child, attrs in graph.edges(data=True):
        kind = attrs.get("label", "total")
        lines.append(f"  {_dot_quote(parent)} -> {_dot_quote(child)}"
                     + _dot_attrs(color=DAG_EDGE_COLORS[kind], tooltip=kind) + ";")
    return "\n".join(lines) + "\n}\n"


def _rgb255(color):
    """(r, g, b) in 0..255 of a hex colour, or of a named one when matplotlib knows it."""
    if re.fullmatch(r"#[0-9A-Fa-f]{6}", color):
        return tuple(int(color[i:i + 2], 16) for i in (1, 3, 5))
    try:
        from matplotlib.colors import to_rgb
    except ImportError:
        return None
    try:
        return tuple(round(255 * c) for c in to_rgb(color))
    except ValueError:
        return None


def _text_color(fill):
    """Black or white, whichever reads better on ``fill``."""
    rgb = _rgb255(fill)
    if rgb is None:
        return "black"
    luminance = (0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2]) / 255
    return "white" if luminance < 0.5 else "black"


def _tikz_color(color):
    rgb = _rgb255(color)
    if rgb is None:
        return color  # a name xcolor may know
    return "{{rgb,255:red,{:d}; green,{:d}; blue,{:d}}}".format(*rgb)


_TEX_SPECIAL = re.compile(r"([\\{}$&#_%~^])")


def _tex_escape(text):
    def repl(match):
        ch = match.group(1)
        return {"\\": r"\textbackslash{}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}.get(ch, "\\" + ch)

    return _TEX_SPECIAL.sub(repl, str(text))


def write_tikz(x: Sevt, file: str | os.PathLike[str] | None = None, limit: int | None = None,
               col: str | Callable[..., Sequence[str]] | Mapping[str, Any] | None = None,
               palette: str | Sequence[str] | None = None, ignore: Sequence[str] | None = None,
               show_ignored: bool = False, node_label: Callable[[str, str], str] | None = None,
               edge_label: Callable[[str, str], str] | None = None, scale: float = 10,
               xlim: tuple[float, float] | None = (0, 1),
               ylim: tuple[float, float] | None = (0, 1), node_shape: str = "circle",
               node_inner_sep: str = "1mm", node_minimum_size: str = "0.3cm",
               node_draw_color: str = "black", node_thickness: str = "very thick",
               layout: Mapping[Any, tuple[float, float]]
               | Callable[..., Mapping[Any, tuple[float, float]]] | None = None,
               edge_options: Callable[[str, str], str | Sequence[str]] | None = None,
               edge_label_options: Callable[[str, str], str | Sequence[str]] | None = None,
               node_text_color: str | None = None, normalize_layout: bool = True) -> str:
    """A TikZ picture of a staged tree or a chain event graph (R: ``write_tikz``).

    Nodes are placed as :func:`plot` places them (R lays them out with
    igraph's Sugiyama layout instead); there is one TikZ style per stage,
    filled with the stage's colour, so a paper can restyle stages in one
    place.

    Parameters
    ----------
    x : Sevt or Ceg
    file : str or path-like, optional
        Also write the picture there (a file, not a folder).
    limit : int, optional
        Staged trees: only the first ``limit`` variables.
    col, palette
        See :func:`make_stages_col`.  Besides matplotlib's colours, any
        xcolor name or mix (``Periwinkle``, ``red!50!blue``) is written as
        given, since TikZ may know it; LaTeX reports the unknown ones.
    ignore : list of str, optional
        Stages whose situations are left out, or with ``show_ignored``
        written grey (default ``x.name_unobserved``).
    show_ignored : bool, default False
        Write the ignored situations too (grey); by default they are left
        out, as R does.
    node_label : callable, optional
        ``node_label(var, stage) -> str``; default (None) the stage.
    edge_label : callable, optional
        ``edge_label(var, level) -> str``; default (None) the level.
    scale : float, default 10
    xlim, ylim : pair of float or None, default (0, 1)
        Range of the coordinates; None is (0, 1) when ``normalize_layout``.
    normalize_layout : bool, default True
        R's argument, for ports: the coordinates are always stretched onto
        ``xlim`` and ``ylim``.  R's ``xlim = NULL`` with ``normalize_layout
        = FALSE`` writes the layout's coordinates unscaled (igraph's
        Sugiyama ones by default), which this port does not: that
        combination is an error.
    node_shape, node_inner_sep, node_minimum_size, node_draw_color, node_thickness : str
        TikZ options of the nodes, as in R.
    layout : dict or callable, optional
        Chain event graphs only: the place of every position, as in
        :func:`plot`, stretched onto ``xlim`` and ``ylim`` as R does.
    edge_options, edge_label_options : callable, optional
        ``f(var, level) -> str`` (or a list of str, joined by commas): TikZ
        options of each edge (``to[...]``, default none) and of its label
        (``node [...]``, default ``"sloped"``), as R's functions of the edge.
    node_text_color : str, optional
        Colour of the stage names; default black or white, whichever reads
        better on the stage's colour (R: always black).

    Returns
    -------
    str
        The ``tikzpicture`` environment.

    Raises
    ------
    ValueError, TypeError
        Bad arguments, such as a ``col`` giving something that cannot be
        a colour or a ``file`` that is a folder.

    Examples
    --------
    >>> from pystagedtrees import write_tikz
    >>> import pystagedtrees as st
    >>> tikz = write_tikz(st.sevt({"A": ["a", "b"], "B": ["x", "y"]}))
    >>> print(tikz.splitlines()[0])
    \\begin{tikzpicture}[auto, scale=10,
    >>> tikz.count("\\\\node ["), tikz.count("\\\\draw")
    (7, 6)
    """
    check_sevt(x, "x")
    normalize_layout = check_flag(normalize_layout, "normalize_layout")
    xlim, ylim = (_tikz_limits(lim, name, normalize_layout)
                  for lim, name in ((xlim, "xlim"), (ylim, "ylim")))
    show_ignored = check_flag(show_ignored, "show_ignored")
    check_number(scale, "scale", positive=True)  # written as given: 10, not 10.0
    tikz_options = {"node_shape": node_shape, "node_inner_sep": node_inner_sep,
                    "node_minimum_size": node_minimum_size, "node_draw_color": node_draw_color,
                    "node_thickness": node_thickness}
    for name, value in tikz_options.items():
        if not isinstance(value, str):
            raise TypeError(f"`{name}` must be a string (a TikZ option); got {value!r}.")
    node_label = _check_label(node_label, "node_label", "stage")
    edge_label = _check_label(edge_label, "edge_label", "level")
    edge_options = _check_tikz_options(edge_options, "edge_options", "")
    edge_label_options = _check_tikz_options(edge_label_options, "edge_label_options", "sloped")
    if node_text_color is not None:
        node_text_color = _check_color(node_text_color, _text_color_like, "`node_text_color`")
    file = _check_path(file, "file")
    if file is not None and file.is_dir():
        raise ValueError(f"`file` must be a file to write; {str(file)!r} is a folder.")
    from pystagedtrees.graphs._ceg import Ceg

    styles, node_lines, edge_lines = {}, [], []

    def text_color(fill):
        return _text_color(fill) if node_text_color is None else _tikz_color(node_text_color)

    def draw(start, end, var, level, arrow="->"):
        to = f"to[{options}]" if (options := edge_options(var, level)) else "to"
        edge_lines.append(f"\t\\draw[{arrow}] ({_tikz_id(start)}) {to} node "
                          f"[{edge_label_options(var, level)}]"
                          f"{{{_tex_escape(edge_label(var, level))}}} ({_tikz_id(end)});")

    def style(key, fill, label):
        if key not in styles:
            fill = fill or UNCOLORED
            styles[key] = (
                f"\tst{len(styles)}/.style={{{node_shape},inner sep={node_inner_sep},"
                f"minimum size={node_minimum_size},draw,{node_draw_color},{node_thickness},"
                f"fill={_tikz_color(fill)},text={text_color(fill)}}},  % {label}"
            )
        return styles[key].split("/", 1)[0].strip()

    if isinstance(x, Ceg):
        layers, nodes, edges, _ = _ceg_view(x, col, ignore, palette, _text_color_like)
        coords = _ceg_positions(x, ignore, layers, layout, xlim, ylim)
        for name, var, stage, color in nodes:
            node_style = style((var, stage), color, f"{var}: {stage}")
            node_lines.append(f"\t\\node [{node_style}] ({_tikz_id(name)}) at "
                              f"({coords[name][0]:f}, {coords[name][1]:f})\t{{{_tex_escape(node_label(var, stage))}}};")
        node_lines.append(f"\t\\node [leaf] (END) at ({coords['END'][0]:f}, {coords['END'][1]:f})\t{{END}};")
        for start, end, label, var in edges[["from", "to", "label", "var"]].itertuples(index=False):
            draw(start, end, var, label)
    else:
        if layout is not None:
            raise ValueError("`layout` places the positions of a chain event graph; "
                             "a staged tree is always written as a tree.")
        view, (nodes, edges) = _text_tree(x, limit, col, ignore, palette, show_ignored, xlim, ylim)
        for name, j, stage, color, ignored, px, py in nodes:
            if j is None:
                node_lines.append(f"\t\\node [leaf] ({_tikz_id(name)}) at ({px:f}, {py:f})\t{{}};")
                continue
            var = view.variables[j]
            if ignored:
                node_style = style(("ignored", ""), IGNORED_COLOR, "ignored stages")
            else:
                node_style = style((var, stage), color, f"{var}: {stage}")
            node_lines.append(f"\t\\node [{node_style}] "
                              f"({_tikz_id(name)}) at ({px:f}, {py:f})\t{{{_tex_escape(node_label(var, stage))}}};")
        for start, end, level, ignored in edges:
            var = view.variables[int(start[1:].split("_")[0])]
            draw(start, end, var, level, "->,draw=" + _tikz_color(IGNORED_COLOR) if ignored else "->")
    header = [f"\\begin{{tikzpicture}}[auto, scale={scale},"] + list(styles.values()) + [
        "\tleaf/.style={circle,inner sep=1mm,minimum size=0.2cm,draw,very thick,black,fill=gray,text=black}]",
        "",
    ]
    text = "\n".join(header + node_lines + [""] + edge_lines + ["\\end{tikzpicture}"]) + "\n"
    if file is not None:
        file.write_text(text)
    return text


def _check_label(label, name, what):
    """``label(var, what) -> str``; ``None`` writes ``what`` itself."""
    if label is None:
        return lambda var, value: value
    if not callable(label):
        raise TypeError(f"`{name}` must be a function (var, {what}) -> str, or None; got {label!r}.")
    return label


def _check_tikz_options(options, name, default):
    """``options(var, level)`` as one TikZ option string; ``None`` gives ``default``."""
    if options is None:
        return lambda var, level: default
    if not callable(options):
        raise TypeError(f"`{name}` must be a function (var, level) -> str, or None; got {options!r}.")

    def checked(var, level):
        value = options(var, level)
        if isinstance(value, str):
            return value
        if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
            return ",".join(value)
        raise TypeError(f"`{name}` must return a string or a list of strings; it returned {value!r}.")

    return checked


def _check_path(path, name):
    """``None`` or a non-empty path (str or path-like), as a Path."""
    if path is None:
        return None
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"`{name}` must be a path (str or os.PathLike) or None; got {path!r}.")
    if os.fspath(path) == "":
        raise ValueError(f"`{name}` must be a non-empty path; got {path!r}.")
    return Path(path)


def _tikz_id(name):
    """A TikZ node name: letters, digits and dashes only."""
    return re.sub(r"[^A-Za-z0-9-]+", "-", str(name))


# -- files -------------------------------------------------------------------------

_SESSION_FOLDER = []


def save_figure(obj: Figure | Axes, name: str, folder: str | os.PathLike[str] | None = None,
                dpi: float = 100) -> Path:
    """Save a figure (or an Axes' figure) as ``folder/name.png``.

    Parameters
    ----------
    obj : matplotlib.figure.Figure or matplotlib.axes.Axes
    name : str
        File name without extension.
    folder : str or path-like, optional
        Default the environment variable ``PYSTAGEDTREES_FIGURES``, else a
        temporary folder made once per session.
    dpi : float, default 100
        At least 10.

    Returns
    -------
    pathlib.Path
        The PNG written.

    Examples
    --------
    >>> from pystagedtrees import plot, save_figure
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import tempfile, pystagedtrees as st
    >>> ax = plot(st.sevt({"A": ["a", "b"], "B": ["x", "y"]}))
    >>> save_figure(ax, "small", folder=tempfile.mkdtemp()).suffix
    '.png'
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    figure = getattr(obj, "figure", obj)
    if not hasattr(figure, "savefig"):
        raise TypeError(f"`obj` must be a matplotlib Figure or Axes; got {type(obj).__name__}.")
    if not isinstance(name, str) or not name or os.sep in name:
        raise ValueError(f"`name` must be a file name without folders; got {name!r}.")
    folder = _check_path(folder, "folder")
    dpi = check_number(dpi, "dpi", positive=True)
    if dpi < MIN_DPI:  # FreeType cannot size text below a few pixels
        raise ValueError(f"`dpi` must be at least {MIN_DPI}; got {dpi:g}.")
    if folder is None:
        folder = os.environ.get("PYSTAGEDTREES_FIGURES")
    if folder is None:
        if not _SESSION_FOLDER:
            _SESSION_FOLDER.append(tempfile.mkdtemp(prefix="pystagedtrees-figures-"))
        folder = _SESSION_FOLDER[0]
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.png"
    figure.savefig(path, dpi=dpi, bbox_inches="tight")
    return path
