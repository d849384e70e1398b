"""Drawing staged trees and chain event graphs: matplotlib, Graphviz DOT and TikZ."""
from pystagedtrees.plotting._plotting import (
    barplot,
    make_stages_col,
    plot,
    save_figure,
    text,
    to_dot,
    write_tikz,
)

__all__ = ["barplot", "make_stages_col", "plot", "save_figure", "text", "to_dot", "write_tikz"]
