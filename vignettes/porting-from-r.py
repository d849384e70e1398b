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
# # Porting R scripts: stagedtrees and bnclassify calls in Python
#
# Every call of the staged tree papers (the stagedtrees paper, the staged
# tree classifiers and the context-specific refinements of Bayesian network
# classifiers) and of the R packages' vignettes has the same name in Python;
# the site's porting guide (`docs/porting.md`) gives each one's spelling in
# a table.  This vignette runs the differences that matter when porting.
# `st` is `import pystagedtrees as st`.
#
# The staged tree classifiers of the two classification papers have their
# own functions in `pystagedtrees.classifiers` (`sevt_tan_cl`,
# `sevt_tan_hc`, `sevt_kdb`, `sevt_naive`, and the scikit-learn
# `StagedTreeClassifier`): see the `classifiers` vignette.

# %%
import pandas as pd

import pystagedtrees as st
from pystagedtrees.rng import RRandom

titanic = st.datasets.titanic_table()
figures = {}  # this vignette draws nothing

# %% [markdown]
# ## `lambda` and `class` are Python keywords
#
# They are spelled `lambda_` and `class_` everywhere (stagedtrees and
# bnclassify alike).

# %%
smoothed = st.full(titanic, lambda_=1)
print("lambda_ stored on the model:", smoothed.lambda_)
passengers = st.datasets.titanic()
print(st.predict(smoothed, passengers.head(3), class_="Survived", prob=True))

# %% [markdown]
# ## `Inf` is `None`
#
# `max_iter = Inf` (R's default for the hill-climbers) is `max_iter=None`.

# %%
unbounded = st.stages_bhc(st.full(titanic), max_iter=None)
one_step = st.stages_bhc(st.full(titanic), max_iter=1)
print("BIC after one join:", round(st.BIC(one_step), 3), "| to convergence:", round(st.BIC(unbounded), 3))
assert st.BIC(unbounded) <= st.BIC(one_step)

# %% [markdown]
# ## Named vectors are dicts
#
# `c(Survived = "Yes")` is `{"Survived": "Yes"}`; an unnamed path
# `c("1st", "Male")` is a list, read along the tree order.

# %%
tree = st.stndnaming(st.stages_bhc(st.full(titanic)))
print(st.prob(tree, {"Survived": "Yes"}, conditional_on={"Class": "Crew"}))
print(st.get_stage(tree, ["1st", "Male"]))

# %% [markdown]
# ## `ignore` defaults to the unobserved stages
#
# As in R, the learners leave the stages named in `tree.name_unobserved`
# (`"UNOBSERVED"`) alone unless told otherwise: `ignore=None` means
# "R's default", `ignore=[]` means "ignore nothing".

# %%
default = st.stages_bhc(st.full(titanic))
assert "UNOBSERVED" in st.stages(default, "Survived")
nothing_ignored = st.stages_bhc(st.full(titanic), ignore=[])
print("unobserved stage kept by default:", "UNOBSERVED" in st.stages(default, "Survived"))
print("... and when nothing is ignored: ", "UNOBSERVED" in st.stages(nothing_ignored, "Survived"))

# %% [markdown]
# ## `as_sevt` looks parents up by name
#
# R's `as_sevt.parentslist` finds a variable's parents by position, which
# builds a wrong tree when the list is not in topological order.  Here
# parents are found by name, so the order of the dict does not matter.

# %%
levels = {"A": ["a1", "a2"], "B": ["b1", "b2"], "C": ["c1", "c2"]}
in_order = st.as_sevt(st.parentslist({"A": [], "B": ["A"], "C": ["B"]}, values=levels))
shuffled = st.as_sevt(st.parentslist({"C": ["B"], "B": ["A"], "A": []}, values=levels))
print(in_order.tree)
print(st.stages(in_order))
assert st.stages(in_order) == st.stages(shuffled)

# %% [markdown]
# ## R's random numbers on demand
#
# Every random function takes `seed=` with numpy's generator by default,
# or `rng="R", seed=s` to draw what R draws after `set.seed(s)`
# (`rng="R-rounding"` under `RNGversion("3.5.0")`); the scikit-learn
# estimators call the seed `random_state=`, as scikit-learn does.

# %%
sample_numpy = st.sample_from(tree, 5, seed=2024)
sample_r = st.sample_from(tree, 5, rng="R", seed=2024)
print(pd.concat({"numpy": sample_numpy, "R": sample_r}, axis=1))

# %% [markdown]
# A search over variable orders that calls a random learner many times
# replays R only when every call draws from the same stream, as R's global
# generator does: pass one `RRandom` (a fresh `rng="R", seed=1` in each call
# would restart it).

# %%
searched = st.search_best(titanic, alg=st.stages_kmeans, rng=RRandom(1))
print(searched.variables, round(st.BIC(searched), 4))  # R: Class Sex Survived Age, 10439.249

# %% [markdown]
# ## Models are objects with methods
#
# Every function whose first argument is a model is also a method, so R's
# pipes become method chains.

# %%
piped = st.full(titanic).stages_bhc().stndnaming()
assert st.stages(piped) == st.stages(tree)
print(piped)

# %% [markdown]
# ## Ties in prediction
#
# R's `predict` breaks ties between equally probable classes at random; here
# the first class (in level order) wins, so predictions are reproducible.
# To draw among tied classes as R does, pass `rng`: `rng="R", seed=s` gives
# R's draws after `set.seed(s)`.  The imputations of `sevt_fit_em` and
# `stages_em` are predictions and take the same arguments.

# %% [markdown]
# ## A class level never observed, without smoothing
#
# With `lambda = 0`, R stores NA in situations no row reaches, and its
# `predict` returns NA for every row where some class's path crosses one,
# for instance when the class has a level that never occurs.  R means such
# paths to get probability 0 (it does so for NaN); here they do.

# %%
unused_level = passengers[["Survived", "Class", "Sex"]].assign(
    Survived=pd.Categorical(passengers["Survived"], categories=["No", "Yes", "Unknown"])
)
unsmoothed = st.full(unused_level, lambda_=0)
print(st.predict(unsmoothed, unused_level.head(3), prob=True))

# %% [markdown]
# ## Stages set by hand
#
# R assigns into `stages(mod)`, with a context of earlier variables:
# `stages(mod)["Survived", Class = "1st"] <- "C1"`.  Here that is
# `set_stages`, which returns a new model refitted for that variable, and
# `stages(..., context=)` reads the same selection.

# %%
by_hand = st.set_stages(smoothed, "Survived", "C1", context={"Class": "1st"})
print(st.stages(by_hand, "Survived", context={"Class": ["1st", "2nd"]}))
print(by_hand.BIC())
