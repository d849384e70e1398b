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
# # Staged tree classifiers
#
# Two ideas from the staged tree classification papers:
#
# * **Context-specific refinements of Bayesian network classifiers**
#   (Leonelli & Varando, PGM 2024): learn a Bayesian network classifier
#   (naive Bayes, TAN, k-DB) with `pystagedtrees.bnc`, write its DAG as the
#   equivalent staged tree with the class first, and join stages with
#   `stages_bhc` under BIC.  The refined model only drops dependences, so its
#   minimal DAG is inside the classifier's, and dependences that hold in some
#   contexts only are kept where they matter.
# * **The naive staged tree** (Carli, Leonelli & Varando, KBS 2023): the
#   full tree with the class first and the features ordered by a mutual
#   information heuristic, where the situations of every variable are
#   clustered into as many stages as the class has levels.
#
# The data are `monks1` with the papers' first train/test split, shipped
# with the package (`st.datasets.train_test("monks1")`; R's level order).

# %%
import argparse

import numpy as np
import pandas as pd

import pystagedtrees as st

parser = argparse.ArgumentParser(allow_abbrev=False)
parser.add_argument("--figures", default=None, help="folder for the figures")
args = parser.parse_known_args()[0]
FIGURES = args.figures
figures = {}  # name -> (model drawn, axes); saved at the end, checked by the test suite
SKIPPED = None

try:
    import pystagedtrees.bnc as bnc
    from pystagedtrees import classifiers
    from pystagedtrees.plotting import plot, save_figure
except ImportError as exc:  # an optional part of the package is missing
    SKIPPED = f"this vignette needs pystagedtrees.bnc, pystagedtrees.classifiers and matplotlib ({exc})"
    print("NOTE:", SKIPPED)

# %% [markdown]
# ## Data

# %%
if not SKIPPED:
    name, class_var = "monks1", "answer"
    train, test = st.datasets.train_test(name, repetition=1)
    print(f"{name}: {len(train)} training rows, {len(test)} test rows, class {class_var!r}")
    print(train.head())

# %% [markdown]
# ## Bayesian network classifiers (bnclassify)
#
# R: `lp(nb("answer", train), train, smooth = 1)`, `lp(tan_cl(...), ...)`,
# and the greedy `tan_hc(..., k = 5)` (5-fold cross-validated accuracy);
# test accuracy is `accuracy(predict(model, test), test$answer)` in both.

# %%
def accuracy(predicted):
    return bnc.accuracy(np.asarray(predicted), test[class_var])


if not SKIPPED:
    results = {}
    nb = bnc.lp(bnc.nb(class_var, train), train, smooth=1)
    tan = bnc.lp(bnc.tan_cl(class_var, train), train, smooth=1)
    tan_hc = bnc.lp(bnc.tan_hc(class_var, train, k=5, smooth=1, seed=0), train, smooth=1)
    for label, model in [("nb", nb), ("tan_cl", tan), ("tan_hc", tan_hc)]:
        results[label] = accuracy(bnc.predict(model, test))
        print(f"{label:8s} {bnc.modelstring(model)}  accuracy {results[label]:.3f}")
    # bnclassify's inspection functions: R's is_ode(tan), cLogLik(tan, test), cmi(...)
    first, second = bnc.features(tan)[:2]
    print("TAN is a one-dependence estimator:", bnc.is_ode(tan),
          "| its conditional log-likelihood on the test set:", round(bnc.cLogLik(tan, test), 2),
          f"| I({first}; {second} | {class_var}) = {bnc.cmi(first, second, train, z=class_var):.4f}")

# %% [markdown]
# ## Their context-specific refinements
#
# R (the papers' scripts): `as_sevt(bnlearn::as.bn.fit(as_grain(tan)))`,
# `sevt_fit(lambda = 1)`, then `stages_bhc()`.  In Python one call does the
# three steps; `sevt_refine` refines any classifier structure.

# %%
if not SKIPPED:
    refined = {
        "st_nb": classifiers.sevt_refine(nb, train),
        "st_tan_cl": classifiers.sevt_tan_cl(train, class_=class_var),
        "st_tan_hc": classifiers.sevt_refine(tan_hc, train),
    }
    for label, model in refined.items():
        results[label] = accuracy(st.predict(model, test, class_=class_var))
        print(f"{label:10s} BIC {st.BIC(model):10.2f}  accuracy {results[label]:.3f}")
    # the refinement never has a worse BIC than the classifier's own staged tree
    tan_tree = st.sevt_fit(st.as_sevt(tan, values=train), train, lambda_=1)
    print("BIC of the TAN as a staged tree:", round(st.BIC(tan_tree), 2))
    assert st.BIC(refined["st_tan_cl"]) <= st.BIC(tan_tree) + 1e-9

# %% [markdown]
# ## The naive staged tree and a full tree learned by BHC
#
# Features ordered by conditional mutual information with the class
# (`ordering_cmi`), then k-means with as many stages as classes (the naive
# staged tree) or backward hill-climbing on the full tree.

# %%
if not SKIPPED:
    order = classifiers.ordering_cmi(train, class_=class_var)
    print("feature order (CMI):", order)
    naive = classifiers.sevt_naive(train, class_=class_var, seed=1)
    results["st_naive"] = accuracy(st.predict(naive, test, class_=class_var))
    full_bhc = classifiers.StagedTreeClassifier(method="full_bhc").fit(
        train.drop(columns=class_var), train[class_var]
    )
    results["st_full_bhc"] = float(full_bhc.score(test.drop(columns=class_var), test[class_var]))
    print(f"naive staged tree accuracy {results['st_naive']:.3f}, full BHC {results['st_full_bhc']:.3f}")

# %% [markdown]
# ## Accuracy, as in the papers' comparisons

# %%
if not SKIPPED:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 3.5))
    labels = list(results)
    colours = ["#9E9E9E" if not lab.startswith("st_") else "#2297E6" for lab in labels]
    ax.bar(labels, [results[lab] for lab in labels], color=colours)
    ax.set_ylim(0, 1)
    ax.set_ylabel("test accuracy")
    ax.set_title(f"{name}: Bayesian network classifiers (grey) and staged trees (blue)")
    ax.tick_params(axis="x", rotation=30)
    figures["classifiers-accuracy"] = (None, ax)
    print(pd.Series(results).round(3).to_string())

# %% [markdown]
# ## What the refinement looks like
#
# The refined TAN as a staged tree (class first), and its minimal DAG next
# to the TAN's: arcs that remain are coloured by the kind of asymmetric
# dependence the staged tree has (red context-specific, blue partial,
# purple local).

# %%
if not SKIPPED:
    model = refined["st_tan_cl"]
    ax = plot(model, limit=4, main=f"{name}: refined TAN (BHC), first variables")
    figures["refined-tan-tree"] = (model, ax)
    ax = plot(tan, main="TAN (bnclassify tan_cl)")
    figures["tan-dag"] = (tan, ax)
    minimal = st.as_parentslist(model, silent=True)
    print("minimal DAG of the refinement:", minimal)
    ax = plot(minimal, main="minimal DAG of the refined TAN")
    figures["refined-tan-dag"] = (minimal, ax)

# %% [markdown]
# ## The figures

# %%
if not SKIPPED:
    for fig_name, (_, axes) in figures.items():
        print(save_figure(axes, fig_name, folder=FIGURES))
