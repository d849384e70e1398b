# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Staged event trees in Python: a first tour
#
# This is the R stagedtrees README, step by step, in Python.  A *staged
# event tree* describes categorical variables `X1, ..., Xp` taken in an
# order: each *situation* (a path of values of the variables before `Xi`)
# has a distribution for `Xi`, and situations that share that distribution
# are in the same *stage*.  Stages are what the model learns: they encode
# context-specific independences a Bayesian network cannot express.
#
# Run it as a script (`python vignettes/intro.py --figures DIR`) or open it
# as a notebook with jupytext.  Figures go to `--figures DIR`, else to the
# folder in the environment variable `PYSTAGEDTREES_FIGURES`, else to a
# temporary folder.

# %%
import argparse

import pystagedtrees as st
from pystagedtrees.plotting import barplot, plot, save_figure, to_dot, write_tikz

parser = argparse.ArgumentParser(allow_abbrev=False)
parser.add_argument("--figures", default=None, help="folder for the figures")
FIGURES = parser.parse_known_args()[0].figures
figures = {}  # name -> (model drawn, axes); saved at the end, checked by the test suite

# %% [markdown]
# ## The data
#
# R's `Titanic` ships with the package as a table of counts (a pandas
# Series with a MultiIndex), in R's level order.

# %%
titanic = st.datasets.titanic_table()
print(titanic.head(8))
print("passengers:", int(titanic.sum()))

# %% [markdown]
# ## From the saturated tree to a staged tree
#
# R: `tree <- Titanic |> full() |> stages_bhc() |> stndnaming(uniq = TRUE)`.
#
# `full` gives every situation its own stage (the saturated model);
# situations never observed are joined in one stage, `"UNOBSERVED"`.
# `stages_bhc` joins stages by backward hill-climbing on the BIC, exactly
# as R does (same visit order and tie rule), and `stndnaming` renames the
# stages `1, 2, ...` (`uniq=True`: unique across variables).

# %%
saturated = st.full(titanic)
tree = st.stndnaming(st.stages_bhc(saturated), uniq=True)
print(tree)
print("BIC of the saturated tree:", round(st.BIC(saturated), 3))
print("BIC of the staged tree:   ", round(st.BIC(tree), 3))
for var, stages in st.stages(tree).items():
    print(f"{var:9s}", stages)

# %% [markdown]
# Every function whose first argument is a model is also a method, so the
# same pipeline reads `st.full(titanic).stages_bhc().stndnaming(uniq=True)`.

# %%
assert st.stages(st.full(titanic).stages_bhc().stndnaming(uniq=True)) == st.stages(tree)

# %% [markdown]
# ## Probabilities
#
# R: `prob(tree, c(Survived = "Yes"), conditional_on = c(Age = "Adult"))`
# prints `0.3107124`.

# %%
p_survived = st.prob(tree, {"Survived": "Yes"}, conditional_on={"Age": "Adult"})
print(f"P(Survived = Yes | Age = Adult) = {p_survived:.7f}")
assert abs(p_survived - 0.3107124) < 5e-8, "the R README value"

# %% [markdown]
# The stage probabilities, as R's `summary` prints them:

# %%
print(st.summary(tree))

# %% [markdown]
# ## Pictures
#
# R: `plot(tree, col = "stages")` and
# `barplot(tree, var = "Survived", col = "stages", legend.text = TRUE)` with
# the Okabe-Ito palette.  The root is on the left, one column per variable,
# each situation is coloured by its stage (`col="stages"`: a stage named `n`
# takes the palette's `n`-th colour, as in R) and, as in R, the unobserved
# situations are left out (`show_ignored=True` draws them grey).

# %%
ax = plot(tree, col="stages", palette="Okabe-Ito", main="Titanic: staged tree (BHC)")
figures["titanic-tree"] = (tree, ax)

# %%
ax = barplot(tree, "Survived", col="stages", palette="Okabe-Ito", legend=True,
             main="P(Survived | stage)")
figures["titanic-survived-barplot"] = (tree, ax)

# %% [markdown]
# Equal positions give the chain event graph: situations with the same
# stage whose subtrees are also equal collapse into one node.

# %%
graph = st.ceg(tree)
ax = plot(graph, main="Titanic: chain event graph")
figures["titanic-ceg"] = (graph, ax)

# %% [markdown]
# The minimal DAG containing the staged tree (Varando, Carli & Leonelli
# 2024).  Arcs are coloured by the asymmetric independences they hide:
# red context-specific, blue partial.

# %%
dag = st.as_parentslist(tree, silent=True)
print(dag)
ax = plot(dag, main="Titanic: minimal DAG")
figures["titanic-dag"] = (dag, ax)

# %% [markdown]
# ## For papers: TikZ and Graphviz
#
# `write_tikz` writes a `tikzpicture` (one style per stage, so a paper can
# restyle them in one place) and `to_dot` writes Graphviz text that needs no
# Graphviz to produce.

# %%
tikz = write_tikz(tree)
print("\n".join(tikz.splitlines()[:3]), "\n...")
dot = to_dot(tree)
print("\n".join(dot.splitlines()[:5]), "\n...")

# %% [markdown]
# ## Prediction
#
# `predict` gives the most probable class given the other variables (or the
# class probabilities with `prob=True`), vectorised over rows.

# %%
passengers = st.datasets.titanic()
predicted = st.predict(tree, passengers, class_="Survived")
print("accuracy on the passengers:", round(float((predicted == passengers["Survived"]).mean()), 4))

# %% [markdown]
# ## The figures

# %%
for name, (_, axes) in figures.items():
    print(save_figure(axes, name, folder=FIGURES))
