"""Hypothesis strategies: small categorical data frames, with or without NAs."""
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
