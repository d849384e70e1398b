"""What a drawn staged tree shows, read back from matplotlib's artists."""
import pystagedtrees as st


def tree_content(ax):
    """What a tree plot shows: coloured situations per (variable, stage), grey ones, legend."""
    coloured, grey = {}, 0
    for coll in ax.collections:
        gid = coll.get_gid() or ""
        if gid.startswith("situations:"):
            _, var, stage = gid.split(":", 2)
            coloured[(var, stage)] = len(coll.get_offsets())
        elif gid.startswith("ignored:"):
            grey += len(coll.get_offsets())
    legend = ax.get_legend()
    labels = [t.get_text() for t in legend.get_texts()] if legend else []
    return coloured, grey, labels


def expected_situations(model, d, ignore):
    """Situation counts per (variable, stage) from the model's own stage vectors."""
    counts = {(model.variables[0], "1"): 1}
    grey = 0
    for v in model.variables[1:d]:
        for s in st.stages(model, v):
            if s in ignore:
                grey += 1
            else:
                counts[(v, s)] = counts.get((v, s), 0) + 1
    return counts, grey
