"""Pictures and graph text: plot, barplot, make_stages_col, to_dot, write_tikz."""
import sys
import warnings

import numpy as np
import pandas as pd
import pytest
from drawing import expected_situations, tree_content
from hypothesis import given, settings
from hypothesis import strategies as hst

import pystagedtrees as st
from pystagedtrees.graphs import as_networkx, as_parentslist, ceg, get_vertices
from pystagedtrees.plotting._plotting import (
    DAG_EDGE_COLORS,
    FIGURE_PAD,
    LEGEND_MAX,
    PALETTES,
    _tree_layout,
    barplot,
    make_stages_col,
    plot,
    save_figure,
)

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def titanic_bhc():
    return st.stndnaming(st.stages_bhc(st.full(st.datasets.titanic_table())))


# -- layout -----------------------------------------------------------------------

def test_layout_by_hand():
    # two binary variables, ylim (0, 1), cex_tree_y 0.9 (R's plot.sevt):
    # leaves span 0.9 -> A_1 = 0.9 / (2 + 1/1) = 0.3, then A_0 = 0.9 - 0.3 = 0.6;
    # root at 0.5, children at 0.5 -+ 0.3, leaves at 0.2 -+ 0.15 and 0.8 -+ 0.15
    xs, ys = _tree_layout([2, 2], (0, 1), (0, 1), 0.9)
    np.testing.assert_allclose(xs, [0, 0.5, 1])
    np.testing.assert_allclose(ys[1], [0.2, 0.8])
    np.testing.assert_allclose(ys[2], [0.05, 0.35, 0.65, 0.95])


@settings(max_examples=60, deadline=None)
@given(k=hst.lists(hst.integers(1, 4), min_size=1, max_size=5),
       lo=hst.floats(-5, 5), height=hst.floats(0.1, 10), cex=hst.floats(0.1, 1.0))
def test_layout_properties(k, lo, height, cex):
    ylim = (lo, lo + height)
    xs, ys = _tree_layout(k, (0, 1), ylim, cex)
    leaves = ys[-1]
    assert len(leaves) == np.prod(k)
    centre = (ylim[0] + ylim[1]) / 2
    assert ys[0][0] == pytest.approx(centre)
    if len(leaves) > 1:
        # leaves evenly spaced over cex_tree_y of the height, centred
        gaps = np.diff(leaves)
        np.testing.assert_allclose(gaps, gaps[0], rtol=1e-9, atol=1e-12)
        assert leaves[-1] - leaves[0] == pytest.approx(cex * height)
        assert (leaves[0] + leaves[-1]) / 2 == pytest.approx(centre)
    for j in range(len(k)):
        # every node sits at the mean of its children
        np.testing.assert_allclose(ys[j + 1].reshape(-1, k[j]).mean(axis=1), ys[j], atol=1e-9)
    assert np.all(np.diff(xs) > 0)


# -- plot of a staged tree ------------------------------------------------------------

def test_plot_titanic_content(titanic_bhc):
    ax = plot(titanic_bhc, show_ignored=True)
    coloured, grey, labels = tree_content(ax)
    counts, n_grey = expected_situations(titanic_bhc, 4, {"UNOBSERVED"})
    assert coloured == counts
    assert grey == n_grey == 2
    stages = {f"{v}: {s}" for v, ss in titanic_bhc.stages().items() for s in ss if s != "UNOBSERVED"}
    assert set(labels) - {"unobserved"} == stages
    assert len(labels) == len(stages) + 1
    # one edge label per edge, the levels in tree order
    edge_texts = [t.get_text() for t in ax.texts if t.get_gid() == "edge-label"]
    tree = titanic_bhc.tree
    assert len(edge_texts) == 4 + 8 + 16 + 32
    assert edge_texts[:4] == tree["Class"]
    assert [t.get_text() for t in ax.texts if t.get_gid() == "variable-name"] == list(tree)
    assert not [t for t in ax.texts if t.get_gid() == "truncation-note"]


def test_plot_nodes_sit_where_their_situations_are(titanic_bhc):
    # the y of each coloured node must be the layout y of a situation in that stage
    ax = plot(titanic_bhc, ylim=(0, 1))
    _, ys = _tree_layout([4, 2, 2, 2], (0, 1), (0, 1), 0.9)
    for coll in ax.collections:
        gid = coll.get_gid() or ""
        if not gid.startswith("situations:") or gid.startswith("situations:Class"):
            continue
        _, var, stage = gid.split(":", 2)
        i = titanic_bhc.variables.index(var)
        expected = ys[i][np.array(st.stages(titanic_bhc, var)) == stage]
        np.testing.assert_allclose(np.sort(coll.get_offsets()[:, 1]), np.sort(expected))


def test_plot_colours_follow_make_stages_col(titanic_bhc):
    ax = plot(titanic_bhc, col="stages", palette="Okabe-Ito")
    colours = make_stages_col(titanic_bhc, col="stages", palette="Okabe-Ito")
    for coll in ax.collections:
        gid = coll.get_gid() or ""
        if gid.startswith("situations:") and not gid.startswith("situations:Class"):
            _, var, stage = gid.split(":", 2)
            assert matplotlib.colors.to_hex(coll.get_facecolor()[0]).upper() == colours[var][stage].upper()


def test_plot_returns_given_axes_and_hides_ignored(titanic_bhc):
    fig, ax = plt.subplots()
    out = plot(titanic_bhc, ax=ax, show_ignored=False, legend=False, cex_label_edges=0, main="T")
    assert out is ax
    coloured, grey, labels = tree_content(ax)
    assert grey == 0 and labels == []
    assert not [c for c in ax.collections if c.get_gid() == "ignored-edges"]
    assert ax.get_title() == "T"
    # ignore=[] colours the unobserved stage as any other
    coloured, grey, labels = tree_content(plot(titanic_bhc, ignore=[]))
    assert grey == 0 and ("Survived", "UNOBSERVED") in coloured


def test_plot_limit(titanic_bhc):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an explicit limit is no surprise: no warning
        ax = plot(titanic_bhc, limit=2)
    coloured, _, labels = tree_content(ax)
    assert {v for v, _ in coloured} == {"Class", "Sex"}
    assert set(labels) == {f"Sex: {s}" for s in set(st.stages(titanic_bhc, "Sex"))}
    note = [t.get_text() for t in ax.texts if t.get_gid() == "truncation-note"]
    assert note == ["first 2 of 4 variables shown"]


def test_plot_large_tree_warns_and_notes():
    rng = np.random.default_rng(0)
    data = pd.DataFrame(rng.integers(0, 3, size=(200, 9)).astype(str),
                        columns=[f"X{i}" for i in range(9)])
    model = st.full(data)
    with pytest.warns(UserWarning, match="only the first 4 are drawn"):
        ax = plot(model, max_leaves=100)  # 3^4 = 81 <= 100 < 3^5
    coloured, grey, _ = tree_content(ax)
    assert sum(coloured.values()) + grey == 1 + 3 + 9 + 27
    assert [t.get_text() for t in ax.texts if t.get_gid() == "truncation-note"] == [
        "first 4 of 9 variables shown"
    ]


def test_no_legend_past_what_anyone_could_read():
    rng = np.random.default_rng(0)
    data = pd.DataFrame(rng.integers(0, 3, size=(3000, 6)).astype(str),
                        columns=[f"X{i}" for i in range(6)])
    model = st.full(data, join_unobserved=False)  # every situation its own stage
    assert sum(len(set(s)) for s in model.stages().values()) > LEGEND_MAX
    ax = plot(model)
    assert ax.get_legend() is None
    coloured, _, _ = tree_content(ax)
    assert sum(coloured.values()) == 1 + 3 + 9 + 27 + 81 + 243  # every situation still drawn
    assert plot(model, limit=3).get_legend() is not None  # 3 + 9 stages


def test_plot_more_than_ten_variables_warns():
    model = st.sevt({f"X{i}": ["0", "1"] for i in range(11)})
    with pytest.warns(UserWarning, match="at most 10 variables"):
        ax = plot(model, cex_label_edges=0)
    assert len([t for t in ax.texts if t.get_gid() == "variable-name"]) == 10


def drawn_situations(ax):
    """The scatter collections of situations, by gid."""
    return {c.get_gid(): c for c in ax.collections
            if (c.get_gid() or "").startswith(("situations:", "ignored:"))}


def test_stage_names_on_the_situations(titanic_bhc):
    # R's example: plot(mod, cex_label_nodes = 1, cex_nodes = 0)
    ax = plot(titanic_bhc, cex_label_nodes=1, cex_nodes=0)
    labels = [t for t in ax.texts if t.get_gid() == "node-label"]
    colours = make_stages_col(titanic_bhc)
    expected = [("1", "black")] + [
        (s, colours[v][s]) for v in titanic_bhc.variables[1:] for s in st.stages(titanic_bhc, v)
        if s != "UNOBSERVED"
    ]
    got = [(t.get_text(), matplotlib.colors.to_hex(t.get_color())) for t in labels]
    assert sorted(got) == sorted((s, matplotlib.colors.to_hex(c)) for s, c in expected)
    # no marker drawn, so each name is centred on its situation
    assert all(t.get_position() == (0, 0) for t in labels)
    assert all(c.get_sizes()[0] == 0 for c in drawn_situations(ax).values())
    # with markers the names go beside them; none by default (R's cex_label_nodes = 0)
    ax = plot(titanic_bhc, cex_label_nodes=[0, 1])  # recycled: variables 2 and 4
    written = {t.get_text() for t in ax.texts if t.get_gid() == "node-label"}
    assert written == set(st.stages(titanic_bhc, "Sex")) | set(st.stages(titanic_bhc, "Survived")) - {
        "UNOBSERVED"}
    assert all(t.get_position() != (0, 0) for t in ax.texts if t.get_gid() == "node-label")
    assert not [t for t in plot(titanic_bhc).texts if t.get_gid() == "node-label"]


def test_sizes_shapes_and_widths_of_situations(titanic_bhc):
    ax = plot(titanic_bhc, cex_nodes=[1, 3], pch_nodes=1, lwd_nodes=2.5)
    for gid, coll in drawn_situations(ax).items():
        column = titanic_bhc.variables.index(gid.split(":")[1])
        cex = [1, 3][column % 2]  # R's rep(cex_nodes, d)
        assert coll.get_sizes()[0] == pytest.approx((4 * cex) ** 2)
        assert coll.get_linewidths()[0] == 2.5
        assert coll.get_facecolors().shape[0] == 0 or coll.get_facecolors()[0][3] == 0  # open circle
    filled = drawn_situations(plot(titanic_bhc, pch_nodes=15))
    assert all(c.get_facecolors()[0][3] == 1 for c in filled.values())
    # pch 20 is R's small bullet: 2/3 of the circle across
    small = drawn_situations(plot(titanic_bhc, cex_nodes=2, pch_nodes=20))
    assert all(c.get_sizes()[0] == pytest.approx((8 * 2 / 3) ** 2) for c in small.values())
    # a character is drawn as the shape, centred
    marker = drawn_situations(plot(titanic_bhc, pch_nodes="x"))
    vertices = next(iter(marker.values())).get_paths()[0].vertices
    np.testing.assert_allclose((vertices.min(axis=0) + vertices.max(axis=0)) / 2, 0, atol=1e-9)


def test_every_r_shape_draws():
    model = st.sevt({"A": ["a", "b"], "B": ["x", "y"]})
    for pch in range(26):
        coll = next(iter(drawn_situations(plot(model, pch_nodes=pch)).values()))
        assert len(coll.get_paths()[0].vertices) >= 4
        plt.close("all")


def test_edge_label_sizes(titanic_bhc):
    def sizes(ax):
        return {t.get_fontsize() for t in ax.texts if t.get_gid() == "edge-label"}

    fig, ax = plt.subplots(figsize=(8, 6))
    (one,) = sizes(plot(titanic_bhc, ax=ax))
    fig, ax = plt.subplots(figsize=(8, 6))
    (two,) = sizes(plot(titanic_bhc, ax=ax, cex_label_edges=2))
    assert two == pytest.approx(2 * one)
    assert not sizes(plot(titanic_bhc, cex_label_edges=0))


def test_text_writes_the_variable_names_as_r():
    model = st.sevt({v: ["0", "1"] for v in "ABCDE"})
    fig, ax = plt.subplots()
    names = st.text(model, ax=ax, limit=3, xlim=(2, 5), y=-1, color="red")
    # R: text(x = seq(xlim[1], xlim[2], length.out = d + 1)[1:d], y = y, labels = var[1:d])
    assert [t.get_text() for t in names] == ["A", "B", "C"]
    assert [t.get_position() for t in names] == [(2, -1), (3, -1), (4, -1)]
    assert all(t.get_color() == "red" for t in names)
    assert model.text(ax=ax)[-1].get_position() == (0.8, 0)  # default limit 10, y = ylim[0]
    ax = plot(model, var_names=False)
    assert not [t for t in ax.texts if t.get_gid() == "variable-name"]


@pytest.mark.parametrize("kwargs, message", [
    ({"y": "top"}, "`y`"), ({"limit": 0}, "`limit`"), ({"xlim": (1, 1)}, "`xlim`"),
    ({"ax": 3}, "`ax`"),
])
def test_text_bad_arguments(kwargs, message):
    with pytest.raises((TypeError, ValueError), match=message):
        st.text(st.sevt({"A": ["0", "1"], "B": ["0", "1"]}), **kwargs)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"cex_label_nodes": -1}, "`cex_label_nodes`"),
        ({"cex_label_nodes": []}, "`cex_label_nodes`"),
        ({"cex_label_nodes": "big"}, "`cex_label_nodes`"),
        ({"cex_nodes": [1, None]}, "`cex_nodes`"),
        ({"cex_label_edges": float("inf")}, "`cex_label_edges`"),
        ({"pch_nodes": 26}, "`pch_nodes`"),
        ({"pch_nodes": -1}, "`pch_nodes`"),
        ({"pch_nodes": "ab"}, "`pch_nodes`"),
        ({"pch_nodes": " "}, "`pch_nodes`"),
        ({"pch_nodes": 1.5}, "`pch_nodes`"),
        ({"lwd_nodes": -1}, "`lwd_nodes`"),
        ({"layout": {"root": (0, 0)}}, "`layout`"),
        ({"ylim": "12"}, "`ylim`"),
    ],
)
def test_plot_bad_tree_options(titanic_bhc, kwargs, message):
    with pytest.raises((ValueError, TypeError), match=message):
        plot(titanic_bhc, **kwargs)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"limit": 0}, "`limit`"),
        ({"limit": 1.5}, "`limit`"),
        ({"xlim": (1, 0)}, "`xlim`"),
        ({"ylim": "ab"}, "`ylim`"),
        ({"max_leaves": 0}, "`max_leaves`"),
        ({"col": 3}, "`col`"),
        ({"palette": "nope"}, "`palette`"),
        ({"xlim": (0, float("inf"))}, "`xlim`"),
        ({"asp": 0}, "`asp`"),
        ({"asp": -1}, "`asp`"),
        ({"asp": float("nan")}, "`asp`"),
        ({"asp": "x"}, "`asp`"),
        ({"col_edges": "bad"}, "`col_edges`"),
        ({"col_edges": 1}, "`col_edges`"),
    ],
)
def test_plot_bad_arguments(titanic_bhc, kwargs, message):
    with pytest.raises((ValueError, TypeError), match=message):
        plot(titanic_bhc, **kwargs)


def test_plot_bad_axes(titanic_bhc):
    with pytest.raises(TypeError, match="`ax`"):
        plot(titanic_bhc, ax="not axes")
    with pytest.raises(TypeError, match="`x` must be a staged event tree"):
        st.text(None)


def _blank_margins(png):
    """Widths in pixels of the white bands at the left, right, bottom and top of a PNG."""
    from matplotlib.image import imread

    ink = np.any(imread(png)[:, :, :3] < 0.99, axis=2)
    rows, cols = np.flatnonzero(ink.any(axis=1)), np.flatnonzero(ink.any(axis=0))
    return cols[0], ink.shape[1] - 1 - cols[-1], ink.shape[0] - 1 - rows[-1], rows[0]


@pytest.mark.parametrize("draw", [
    lambda m: plot(m),
    lambda m: plot(m, main="a title", sub="a subtitle", asp=1),
    lambda m: plot(ceg(m)),
    lambda m: barplot(m, "Sex", legend=True),
    lambda m: plot(st.full(st.datasets.load("PhDArticles"), lambda_=1)),  # a long legend
], ids=["tree", "titled", "ceg", "barplot", "tall"])
def test_a_plain_savefig_keeps_the_legend_without_blank_bands(titanic_bhc, draw, tmp_path):
    ax = draw(titanic_bhc)
    path = tmp_path / "plain.png"
    ax.figure.savefig(path, dpi=50)
    # something drawn near every edge (the pad, and the legend's own padding
    # at most a quarter inch away), nothing cut at one
    assert FIGURE_PAD < 0.25
    for margin in _blank_margins(path):
        assert 1 <= margin <= 0.25 * 50
    legend = ax.get_legend().get_window_extent()
    figure = ax.figure.bbox
    assert figure.x0 < legend.x0 and legend.x1 < figure.x1
    assert figure.y0 < legend.y0 and legend.y1 < figure.y1


def test_a_given_axes_keeps_its_figure(titanic_bhc):
    fig, ax = plt.subplots(figsize=(8, 6))
    plot(titanic_bhc, ax=ax)
    assert tuple(fig.get_size_inches()) == (8, 6)
    params = fig.subplotpars
    assert ax.get_position().bounds == pytest.approx(
        (params.left, params.bottom, params.right - params.left, params.top - params.bottom))


def test_plot_without_matplotlib(titanic_bhc, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(ImportError, match=r"pip install matplotlib"):
        plot(titanic_bhc)
    with pytest.raises(ImportError, match=r'pip install "pystagedtrees\[plot\]"'):
        st.barplot(titanic_bhc, "Sex")


# -- colours -------------------------------------------------------------------------

def test_make_stages_col_modes(titanic_bhc):
    unique = {v: list(dict.fromkeys(s for s in ss if s != "UNOBSERVED"))
              for v, ss in titanic_bhc.stages().items()}
    default = make_stages_col(titanic_bhc)
    for v, stages in unique.items():
        assert list(default[v]) == stages
        assert list(default[v].values()) == PALETTES["R4"][: len(stages)]
    by_name = make_stages_col(st.stndnaming(titanic_bhc, uniq=True), col="stages")
    # R reads a numeric stage name n as palette colour n (recycled)
    assert by_name["Survived"]["10"] == PALETTES["R4"][(10 - 1) % 8]
    assert make_stages_col(titanic_bhc, col=lambda s: ["red"] * len(s))["Sex"] == dict.fromkeys(unique["Sex"], "red")
    by_var = make_stages_col(titanic_bhc, col=lambda s, v: ["red" if v == "Age" else "blue"] * len(s))
    assert by_var["Age"]["1"] == "red" and by_var["Sex"]["1"] == "blue"
    partial = make_stages_col(titanic_bhc, col={"Sex": {"1": "blue"}})
    assert partial["Sex"] == {"1": "blue", "2": None, "3": None}
    assert partial["Age"] == dict.fromkeys(unique["Age"])
    assert list(make_stages_col(titanic_bhc, limit=2)) == ["Sex"]


@pytest.fixture(scope="module")
def small():
    data = pd.DataFrame({"A": ["a", "b", "a", "b"], "B": ["x", "y", "x", "x"], "C": ["u", "v", "v", "u"]})
    return st.full(data, lambda_=1)


@pytest.fixture(scope="module")
def unobserved():
    """A model with an UNOBSERVED stage of C."""
    return st.full(pd.DataFrame({"A": ["a", "a", "b"], "B": ["x", "y", "x"], "C": ["u", "v", "v"]}), lambda_=1)


COLOUR_ERRORS = [
    ({"palette": ["notacolour"]}, ValueError, r"`palette`\[0\] must be a colour; got 'notacolour'"),
    ({"palette": 1}, TypeError, "`palette` must be one of"),
    ({"palette": [1]}, TypeError, r"`palette`\[0\] must be a colour \(a string\)"),
    ({"col": lambda s: [1] * len(s)}, TypeError, "`col` returns for stage '1' of 'B'"),
    ({"col": lambda s: ["nope"] * len(s)}, ValueError, "`col` returns for stage '1' of 'B' must be a colour"),
    ({"col": lambda s: None}, TypeError, "`col` must return a list of colours"),
    ({"col": lambda s: "red"}, TypeError, "`col` must return a list of colours"),  # not 'r', 'e', 'd'
    ({"col": lambda s: ["red"]}, ValueError, r"`col` must return one colour per stage; for the 2 stages"),
    ({"col": {"B": None}}, TypeError, r"`col`\['B'\] must be a dict"),
    ({"col": {"B": "red"}}, TypeError, r"`col`\['B'\] must be a dict"),
    ({"col": {"Z": {"1": "red"}}}, ValueError, r"`col` maps variables.*\['Z'\]"),
    ({"col": {"B": {1: "red"}}}, ValueError, r"`col`\['B'\] names stages \[1\]"),
    ({"col": {"B": {"1": "nope"}}}, ValueError, r"`col`\['B'\]\['1'\] must be a colour"),
]


@pytest.mark.parametrize("kwargs, error, message", COLOUR_ERRORS)
def test_bad_colours_are_named(small, kwargs, error, message):
    with pytest.raises(error, match=message):
        make_stages_col(small, **kwargs)
    with pytest.raises(error, match=message):
        plot(small, **kwargs)
    with pytest.raises(error, match=message):
        barplot(small, "B", **kwargs)


def test_stage_names_that_are_no_colours(small, unobserved):
    renamed = st.rename_stage(small, "B", "1", "foo")
    message = "`col`='stages' uses stage names as colours: each stage of 'B' must be a colour; got 'foo'"
    for draw in (lambda: plot(renamed, col="stages"), lambda: barplot(renamed, "B", col="stages"),
                 lambda: plot(ceg(renamed), col="stages")):
        with pytest.raises(ValueError, match=message):
            draw()
    # the unobserved stage is ignored by default; coloured by name only on request
    plot(unobserved, col="stages")
    with pytest.raises(ValueError, match="stage of 'C' must be a colour; got 'UNOBSERVED'.*`ignore`"):
        plot(unobserved, col="stages", ignore=[])


def test_dict_col_may_colour_the_root(small):
    ax = plot(small, col={"A": {"1": "red"}, "B": {"1": "blue"}})
    root = [c for c in ax.collections if c.get_gid() == "situations:A:1"][0]
    assert matplotlib.colors.to_hex(root.get_facecolor()[0]) == "#ff0000"


def test_write_tikz_colours(small, unobserved):
    # TikZ knows colours matplotlib does not (xcolor names and mixes): written as given
    text = st.write_tikz(small, col=lambda s: ["red!50!blue"] * len(s))
    assert "fill=red!50!blue" in text
    assert "fill=UNOBSERVED" in st.write_tikz(unobserved, col="stages", ignore=[])
    # what could never be a colour would break the TikZ options
    with pytest.raises(ValueError, match="`col` returns for stage '1' of 'B' must be a colour"):
        st.write_tikz(small, col=lambda s: ["red, draw"] * len(s))
    with pytest.raises(ValueError, match=r"`palette`\[0\] must be a colour"):
        st.to_dot(small, palette=["a b"])


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"file": 1}, TypeError, "`file` must be a path"),
        ({"file": ""}, ValueError, "`file` must be a non-empty path"),
        ({"node_label": 1}, TypeError, "`node_label` must be a function"),
        ({"edge_label": 1}, TypeError, "`edge_label` must be a function"),
        ({"node_label": np.array(["a", "b"])}, TypeError, "`node_label` must be a function"),
        ({"edge_options": "bend left"}, TypeError, "`edge_options` must be a function"),
        ({"edge_label_options": lambda v, lev: 3}, TypeError, "`edge_label_options` must return"),
        ({"edge_options": lambda v, lev: ["a", 1]}, TypeError, "`edge_options` must return"),
        ({"node_text_color": "red, draw"}, ValueError, "`node_text_color` must be a colour"),
        ({"node_text_color": 0}, TypeError, "`node_text_color` must be a colour"),
        ({"normalize_layout": "yes"}, TypeError, "`normalize_layout`"),
        ({"xlim": None, "normalize_layout": False}, ValueError, "`xlim` is None with"),
    ],
)
def test_write_tikz_bad_arguments(small, kwargs, error, message):
    with pytest.raises(error, match=message):
        st.write_tikz(small, **kwargs)


def test_write_tikz_normalize_layout_as_r(small):
    # R: NULL limits with normalize_layout = TRUE are (0, 1); given limits
    # stretch the layout whatever normalize_layout is
    default = st.write_tikz(small)
    assert st.write_tikz(small, xlim=None, ylim=None) == default
    assert st.write_tikz(small, normalize_layout=False) == default
    assert st.write_tikz(small, xlim=(0, 2)) != default


def test_write_tikz_edge_and_text_options(titanic_bhc):
    import re

    def edges(text):
        return [line for line in text.splitlines() if line.startswith("\t\\draw")]

    plain = st.write_tikz(titanic_bhc)
    # R's defaults: no options on the edge, "sloped" on its label, all labels black in R
    # (here black or white by the fill unless node_text_color is given)
    assert all(" to node [sloped]{" in line for line in edges(plain))
    styled = st.write_tikz(
        titanic_bhc, node_text_color="Periwinkle",
        edge_options=lambda var, level: "bend left" if level == "Yes" else "",
        edge_label_options=lambda var, level: ["sloped", "near start"] if var == "Class" else "above",
    )
    lines = edges(styled)
    assert len(lines) == len(edges(plain))
    for line in lines:
        label = re.search(r"\{([^}]*)\} \(", line).group(1)
        assert ("to[bend left]" in line) == (label == "Yes")
        assert ("[sloped,near start]" in line) == (label in titanic_bhc.tree["Class"])
    styles = [line for line in styled.splitlines() if "/.style=" in line and "leaf" not in line]
    assert styles and all("text=Periwinkle" in line for line in styles)


def test_write_tikz_file_is_not_a_folder(small, tmp_path):
    with pytest.raises(ValueError, match="`file` must be a file to write"):
        st.write_tikz(small, file=tmp_path)


def test_classic_colours_only_shared_stages(titanic_bhc):
    classic = make_stages_col(titanic_bhc, col="classic")
    for v, colours in classic.items():
        counts = pd.Series(st.stages(titanic_bhc, v)).value_counts()
        for s, c in colours.items():
            assert (c is None) == (counts[s] == 1)
    named = [c for colours in classic.values() for c in colours.values() if c is not None]
    assert len(set(named)) == len(named)  # distinct across variables
    # what make_stages_col gives, the pictures take (None: uncoloured); the
    # root, which it leaves out, is the first colour of R's palette, black
    root = titanic_bhc.variables[0]
    classic[root] = {"1": "#000000"}
    assert st.to_dot(titanic_bhc, col=classic) == st.to_dot(titanic_bhc, col="classic")
    assert st.write_tikz(titanic_bhc, col=classic) == st.write_tikz(titanic_bhc, col="classic")


def test_many_stages_get_distinct_colours():
    model = st.full(st.datasets.titanic_table(), join_unobserved=False)
    colours = make_stages_col(model)["Survived"]
    assert len(colours) == 16 and len(set(colours.values())) == 16


# -- barplot -----------------------------------------------------------------------

def test_barplot_heights_are_stage_probabilities(titanic_bhc):
    ax = barplot(titanic_bhc, "Survived", legend=True)
    probs = titanic_bhc.stage_prob["Survived"]
    stages = [s for s in dict.fromkeys(st.stages(titanic_bhc, "Survived")) if s != "UNOBSERVED"]
    assert len(ax.patches) == 2 * len(stages)
    for container in ax.containers:
        stage = container.get_label()
        np.testing.assert_allclose([b.get_height() for b in container], probs[stage].to_numpy())
    assert [t.get_text() for t in ax.get_legend().get_texts()] == stages
    assert [t.get_text() for t in ax.get_xticklabels()] == ["No", "Yes"]
    assert (ax.get_ylabel(), ax.get_xlabel()) == ("probability", "")
    assert barplot(titanic_bhc, "Survived").get_legend() is None  # R: legend.text = FALSE


def test_barplot_stacked_bars_sum_the_stages(titanic_bhc):
    ax = barplot(titanic_bhc, "Survived", beside=False, xlab="survived", ylab="P")
    probs = titanic_bhc.stage_prob["Survived"]
    stages = [s for s in dict.fromkeys(st.stages(titanic_bhc, "Survived")) if s != "UNOBSERVED"]
    # one bar per level and stage, all at the level's position, stacked in stage order
    tops = np.zeros(2)
    for container, stage in zip(ax.containers, stages):
        bars = list(container)
        np.testing.assert_allclose([b.get_y() for b in bars], tops)
        np.testing.assert_allclose([b.get_height() for b in bars], probs[stage].to_numpy())
        tops = tops + probs[stage].to_numpy()
    assert tops.sum() == pytest.approx(len(stages))  # each stage's probabilities sum to 1
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("survived", "P")
    with pytest.raises(TypeError, match="`xlab`"):
        barplot(titanic_bhc, "Survived", xlab=3)
    with pytest.raises(TypeError, match="`beside`"):
        barplot(titanic_bhc, "Survived", beside="no")


def test_barplot_horizontal_and_root(titanic_bhc):
    ax = barplot(titanic_bhc, "Class", horiz=True, legend=False)
    widths = [b.get_width() for b in ax.patches]
    np.testing.assert_allclose(widths, titanic_bhc.stage_prob["Class"]["1"].to_numpy())
    assert ax.get_legend() is None


def test_barplot_errors(titanic_bhc):
    with pytest.raises(ValueError, match="`var`"):
        barplot(titanic_bhc, "Nope")
    with pytest.raises(TypeError, match="`width` must be a positive number"):
        barplot(titanic_bhc, "Sex", width="x")
    for width in (-1, 0, float("nan")):
        with pytest.raises(ValueError, match="`width` must be a positive number"):
            barplot(titanic_bhc, "Sex", width=width)
    with pytest.raises(ValueError, match="fit"):
        barplot(st.sevt({"A": ["a", "b"], "B": ["x", "y"]}), "B")


# -- CEG and DAG -------------------------------------------------------------------

def test_plot_ceg_one_node_per_position(titanic_bhc):
    model = ceg(titanic_bhc)
    ax = plot(model)
    vertices = get_vertices(model)
    drawn = {}
    for coll in ax.collections:
        gid = coll.get_gid() or ""
        if gid.startswith("positions:"):
            _, var, stage = gid.split(":", 2)
            drawn[(var, stage)] = drawn.get((var, stage), 0) + len(coll.get_offsets())
    expected = vertices[vertices["name"] != "END"].groupby(["var", "stage"]).size()
    root = model.variables[0]
    assert {k: v for k, v in drawn.items() if k[0] != root} == {
        k: v for k, v in expected.items() if k[0] != root
    }
    assert sum(drawn.values()) == len(vertices) - 1
    labels = {t.get_text() for t in ax.get_legend().get_texts()}
    assert labels == {f"{v}: {s}" for v, s in expected.index if v != root}


def test_plot_dag_arcs_coloured_by_kind(titanic_bhc):
    pl = as_parentslist(titanic_bhc, silent=True)
    ax = plot(pl)
    arcs = [c for c in ax.get_children() if (getattr(c, "get_gid", lambda: None)() or "").startswith("arc:")]
    graph = as_networkx(pl)
    assert sorted(a.get_gid()[4:] for a in arcs) == sorted(d["label"] for _, _, d in graph.edges(data=True))
    names = sorted(t.get_text() for t in ax.texts if (t.get_gid() or "").startswith("variable:"))
    assert names == sorted(pl.variables)


def test_layout_places_ceg_and_dag_nodes(titanic_bhc):
    import networkx as nx

    model = ceg(titanic_bhc)
    graph = as_networkx(model)
    # a given layout is stretched onto xlim and ylim, coordinate by coordinate (R's write_tikz)
    raw = {node: (float(i), float(i % 3)) for i, node in enumerate(graph.nodes)}
    n = len(raw) - 1
    ax = plot(model, layout=raw, xlim=(0, 2), ylim=(-1, 1))
    end = next(c for c in ax.collections if c.get_gid() == "end")
    x_end, y_end = raw["END"]
    np.testing.assert_allclose(end.get_offsets()[0], [2 * x_end / n, -1 + 2 * y_end / 2])
    placed = np.vstack([c.get_offsets() for c in ax.collections
                        if (c.get_gid() or "").startswith("positions:")])
    expected = np.array([[2 * x / n, -1 + y] for node, (x, y) in raw.items() if node != "END"])
    np.testing.assert_allclose(np.sort(placed, axis=0), np.sort(expected, axis=0))
    # or a networkx layout function; the TikZ picture takes it too
    plot(model, layout=nx.circular_layout)
    tikz = st.write_tikz(model, layout=raw, xlim=(0, 2), ylim=(-1, 1))
    assert f"(END) at ({2 * x_end / n:f}, {-1 + y_end:f})" in tikz
    pl = as_parentslist(titanic_bhc, silent=True)
    ax = plot(pl, layout={v: (0, i) for i, v in enumerate(pl.variables)}, ylim=(0, 3))
    boxes = {t.get_text(): t.get_position() for t in ax.texts if (t.get_gid() or "").startswith("variable:")}
    assert boxes == {v: (0.5, float(i)) for i, v in enumerate(pl.variables)}  # one x: the middle


def test_layout_errors(titanic_bhc):
    model = ceg(titanic_bhc)
    with pytest.raises(ValueError, match="`layout` has no place for the node 'Class_1' \\(20 of 20"):
        plot(model, layout={"root": (0, 0)})
    with pytest.raises(TypeError, match="`layout`"):
        plot(model, layout=lambda g: [(0, 0)] * len(g))
    with pytest.raises(ValueError, match="`layout`"):
        plot(model, layout=dict.fromkeys(as_networkx(model).nodes, (0, float("nan"))))
    with pytest.raises(ValueError, match="`layout`"):
        st.write_tikz(titanic_bhc, layout={})
    # options of tree pictures are refused, not ignored
    with pytest.raises(ValueError, match="`var_names`, `pch_nodes` apply only to staged trees"):
        plot(model, pch_nodes=1, var_names=False)
    with pytest.raises(ValueError, match="`cex_nodes` applies only to staged trees; `x` is drawn as a DAG"):
        plot(as_parentslist(titanic_bhc, silent=True), cex_nodes=1)
    plot(model, lwd_edges=1, pch_nodes=16.0)  # the defaults, spelt otherwise, are no change


def test_dag_arc_colours_by_kind(titanic_bhc):
    pl = as_parentslist(titanic_bhc, silent=True)
    kinds = {d["label"] for _, _, d in as_networkx(pl).edges(data=True)}
    kind = sorted(kinds)[0]
    ax = plot(pl, col={kind: "green"})
    for arc in ax.get_children():
        gid = getattr(arc, "get_gid", lambda: None)() or ""
        if gid.startswith("arc:"):
            colour = arc.arrow_patch.get_edgecolor()
            want = "green" if gid[4:] == kind else DAG_EDGE_COLORS[gid[4:]]
            assert matplotlib.colors.to_hex(colour) == matplotlib.colors.to_hex(want)
    with pytest.raises(ValueError, match="`col` names 'strong'"):
        plot(pl, col={"strong": "red"})
    with pytest.raises(ValueError, match=r"`col`\['total'\]"):
        plot(pl, col={"total": "notacolour"})
    with pytest.raises(TypeError, match="`col` of a DAG"):
        plot(pl, col="stages")


def test_save_figure(titanic_bhc, tmp_path, monkeypatch):
    ax = plot(titanic_bhc)
    assert save_figure(ax, "tree", folder=tmp_path) == tmp_path / "tree.png"
    monkeypatch.setenv("PYSTAGEDTREES_FIGURES", str(tmp_path / "env"))
    path = save_figure(ax.figure, "again")
    assert path == tmp_path / "env" / "again.png" and path.stat().st_size > 1000
    with pytest.raises(ValueError, match="`name`"):
        save_figure(ax, "a/b", folder=tmp_path)
    with pytest.raises(TypeError, match="`obj`"):
        save_figure("nope", "x", folder=tmp_path)
    with pytest.raises(TypeError, match="`folder` must be a path"):
        save_figure(ax, "x", folder=1)
    with pytest.raises(TypeError, match="`dpi`"):
        save_figure(ax, "x", folder=tmp_path, dpi="x")
    with pytest.raises(ValueError, match="`dpi`"):
        save_figure(ax, "x", folder=tmp_path, dpi=0)
    with pytest.raises(ValueError, match="`dpi` must be at least 10"):
        save_figure(ax, "x", folder=tmp_path, dpi=2)  # FreeType's RuntimeError before
    assert save_figure(ax, "coarse", folder=tmp_path, dpi=10).stat().st_size > 0


def test_compare_stages_draws_the_differing_situations_red(titanic_bhc):
    fbhc = st.stages_fbhc(st.full(st.datasets.titanic_table(), lambda_=1))
    fig, ax = plt.subplots()
    same = st.compare_stages(titanic_bhc, fbhc, plot=True, ax=ax)
    differences = st.compare_stages(titanic_bhc, fbhc, return_tree=True)
    coloured, _, _ = tree_content(ax)
    root = titanic_bhc.variables[0]  # drawn as its stage "1", uncoloured
    red = {var: n for (var, stage), n in coloured.items() if stage == "1" and var != root}
    # every differing situation is drawn red, none of the others
    assert red == {v: int(d.sum()) for v, d in differences.items() if d.any()}
    assert same is False and sum(red.values()) > 0
    faces = {c.get_gid(): c.get_facecolor()[0].tolist() for c in ax.collections
             if (c.get_gid() or "").endswith(":1")}
    assert all(faces[f"situations:{v}:1"] == [1.0, 0.0, 0.0, 1.0] for v in red)
    plt.close(fig)
    with pytest.raises(TypeError, match="plot=True"):
        st.compare_stages(titanic_bhc, fbhc, main="no picture asked for")
