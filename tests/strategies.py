"""Test helpers: hypothesis strategies for small categorical frames, and fixed data."""
import numpy as np
import pandas as pd
from hypothesis import strategies as hst


@hst.composite
def categorical_frames(draw, min_vars=2, max_vars=4, max_levels=3, max_rows=30, with_na=True):
    p = draw(hst.integers(min_vars, max_vars))
    n = draw(hst.integers(1, max_rows))
    seed = draw(hst.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    columns = {}
    for j in range(p):
        k = draw(hst.integers(2, max_levels))
        levels = [f"l{a}" for a in range(k)]
        codes = rng.integers(0, k, size=n)
        if with_na and draw(hst.booleans()):
            codes[rng.random(n) < 0.15] = -1
        columns[f"X{j}"] = pd.Categorical.from_codes(codes, levels)
    return pd.DataFrame(columns)


def classification_frame(n, seed=0):
    """Categorical features ``a`` (80% copies the label), ``b``, ``c`` and labels yes/no."""
    rng = np.random.default_rng(seed)
    y = rng.choice(["yes", "no"], n)
    X = pd.DataFrame({
        "a": np.where(rng.random(n) < 0.8, y, rng.choice(["yes", "no"], n)),
        "b": rng.choice(["l", "m", "h"], n),
        "c": pd.Categorical(rng.choice(["p", "q"], n), categories=["q", "p"]),
    })
    return X, y


def small_gain_table():
    """Counts where R's stages_hc moves situation a3 (2 rows) to stage 1 of
    B = {a0, a1}, {a2, a3}: a gain of 5e-5 on a BIC of 5.7e7."""
    counts = {("a0", "b0"): 5e6, ("a0", "b1"): 5e6, ("a1", "b0"): 5e4, ("a1", "b1"): 5e4,
              ("a2", "b0"): 5.025e6, ("a2", "b1"): 4.975e6, ("a3", "b0"): 1, ("a3", "b1"): 1}
    table = pd.Series(counts)
    table.index = pd.MultiIndex.from_tuples(table.index, names=["A", "B"])
    return table
