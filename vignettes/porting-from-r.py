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
# The calls below are those of the staged tree papers: the stagedtrees paper
# (Carli, Leonelli, Riccomagno & Varando, *Journal of Statistical Software*
# 102(6), 2022), the staged tree classifiers (Carli, Leonelli & Varando,
# *Knowledge-Based Systems* 268, 2023) and the context-specific refinements
# of Bayesian network classifiers (Leonelli & Varando, *PGM* 2024).  Each has
# the same name in Python; the table gives the spelling.  `st` is
# `import pystagedtrees as st`, `bnc` is `import pystagedtrees.bnc as bnc`.
#
# | R | Python |
# |---|---|
# | `full(data, order = o, lambda = 1)` | `st.full(data, order=o, lambda_=1)` |
# | `indep(data, order = o)` | `st.indep(data, order=o)` |
# | `sevt(list(A = c("a", "b"), ...), full = TRUE)` | `st.sevt({"A": ["a", "b"], ...}, full=True)` |
# | `sevt_fit(tree, data, lambda = 1)` | `st.sevt_fit(tree, data, lambda_=1)` |
# | `join_unobserved(tree)` | `st.join_unobserved(tree)` |
# | `stages_bhc(tree)` / `stages_fbhc` / `stages_hc` | `st.stages_bhc(tree)` / `st.stages_fbhc` / `st.stages_hc` |
# | `stages_bhc(tree, max_iter = Inf, scope = "X")` | `st.stages_bhc(tree, max_iter=None, scope=["X"])` |
# | `stages_bhc(tree, score = function(x) -AIC(x))` | `st.stages_bhc(tree, score=lambda m: -st.AIC(m))` |
# | `stages_bj(tree, distance = "kullback", thr = 0.1)` | `st.stages_bj(tree, distance="kullback", thr=0.1)` |
# | `stages_hclust(tree, k = 2, distance = "totvar", method = "complete")` | `st.stages_hclust(tree, k=2, distance="totvar", method="complete")` |
# | `set.seed(1); stages_kmeans(tree, k = 2)` | `st.stages_kmeans(tree, k=2, rng="R", seed=1)` |
# | `set.seed(1); stages_bhcr(tree)` | `st.stages_bhcr(tree, rng="R", seed=1)` |
# | `stages_csbhc(tree)`, `stages_simplebhc(tree)` | `st.stages_csbhc(tree)`, `st.stages_simplebhc(tree)` |
# | `tree$stages$X`, `stages(tree)["X"]` | `st.stages(tree, "X")` |
# | `tree$prob$X`, `tree$ll`, `tree$tree` | `tree.stage_prob["X"]`, `tree.ll`, `tree.tree` |
# | `get_stage(tree, c("a", "x"))`, `get_path(tree, "Y", "2")` | `st.get_stage(tree, ["a", "x"])`, `st.get_path(tree, "Y", "2")` |
# | `sevt_add(tree, "Y", data)`, `copy_sevt(tree, "lambda")` | `st.sevt_add(tree, "Y", data)`, `st.copy_sevt(tree, "lambda")` |
# | `search_greedy(data, alg = stages_fbhc)`, `search_best(data)` | `st.search_greedy(data, alg=st.stages_fbhc)`, `st.search_best(data)` |
# | `set.seed(1); search_best(data, alg = stages_kmeans)` | `st.search_best(data, alg=st.stages_kmeans, rng=RRandom(1))` |
# | `sevt_fit_em(tree)`, `stages_em(tree, stages_alg = stages_fbhc)` | `st.sevt_fit_em(tree)`, `st.stages_em(tree, stages_alg=st.stages_fbhc)` |
# | `join_stages(tree, "X", "1", "2")`, `rename_stage(...)` | `st.join_stages(tree, "X", "1", "2")`, `st.rename_stage(...)` |
# | `stndnaming(tree, uniq = TRUE)` | `st.stndnaming(tree, uniq=True)` |
# | `logLik(tree)`, `BIC(tree)`, `AIC(tree)` | `st.logLik(tree)`, `st.BIC(tree)`, `st.AIC(tree)` |
# | `summary(tree)` | `st.summary(tree)` |
# | `prob(tree, c(Y = "yes"), conditional_on = c(A = "a"))` | `st.prob(tree, {"Y": "yes"}, conditional_on={"A": "a"})` |
# | `predict(tree, newdata, class = "Y", prob = TRUE)` | `st.predict(tree, newdata, class_="Y", prob=True)` |
# | `compare_stages(t1, t2)`, `hamming_stages(t1, t2)` | `st.compare_stages(t1, t2)`, `st.hamming_stages(t1, t2)` |
# | `lr_test(t1, t2)`, `confint(tree)` | `st.lr_test(t1, t2)`, `st.confint(tree)` |
# | `subtree(tree, c("a"))`, `cid(t1, t2)` | `st.subtree(tree, ["a"])`, `st.cid(t1, t2)` |
# | `set.seed(1); sample_from(tree, 100)` | `st.sample_from(tree, 100, rng="R", seed=1)` |
# | `random_sevt(tree, q = 0.5)` | `st.random_sevt(tree, q=0.5, seed=...)` |
# | `ceg(tree)`, `sevt_simplify(tree)` | `st.ceg(tree)`, `st.sevt_simplify(tree)` |
# | `as_parentslist(tree)`, `as_sevt(parentslist)` | `st.as_parentslist(tree)`, `st.as_sevt(parentslist)` |
# | `as_sevt(bnlearn::as.bn.fit(as_grain(bnc_model)))` | `st.as_sevt(bnc_model)` (then `st.sevt_fit(..., lambda_=1)`) |
# | `plot(tree, cex_label_nodes = 1, cex_nodes = 0)`, `text(tree)`, `barplot(tree, "X")`, `write_tikz(tree)` | `plot(tree, cex_label_nodes=1, cex_nodes=0)`, `text(tree)`, `barplot(tree, "X")`, `write_tikz(tree)` from `pystagedtrees.plotting` |
# | `nb("class", data)`, `tan_cl("class", data)` | `bnc.nb("class", data)`, `bnc.tan_cl("class", data)` |
# | `tan_hc("class", data, k = 5, epsilon = 0, smooth = 1)` | `bnc.tan_hc("class", data, k=5, epsilon=0, smooth=1)` |
# | `kdb("class", data, k = 5, kdbk = 3, smooth = 1)` | `bnc.kdb("class", data, k=5, kdbk=3, smooth=1)` |
# | `lp(dag, data, smooth = 1)`, `bnc("tan_cl", "class", data, smooth = 1)` | `bnc.lp(dag, data, smooth=1)`, `bnc.bnc("tan_cl", "class", data, smooth=1)` |
# | `predict(model, data, prob = TRUE)`, `cv(model, data, k = 10)` | `bnc.predict(model, data, prob=True)`, `bnc.cv(model, data, k=10)` |
# | `accuracy(predict(model, test), test$class)`, `cLogLik(model, test)` | `bnc.accuracy(bnc.predict(model, test), test["class"])`, `bnc.cLogLik(model, test)` |
# | `cmi("x", "y", data, "class")`, `is_ode(model)`, `awnb_weights(model)` | `bnc.cmi("x", "y", data, "class")`, `bnc.is_ode(model)`, `bnc.awnb_weights(model)` |
#
# The staged tree classifiers of the two classification papers have their
# own functions in `pystagedtrees.classifiers` (`sevt_tan_cl`,
# `sevt_tan_hc`, `sevt_kdb`, `sevt_naive`, and the scikit-learn
# `StagedTreeClassifier`): see the `classifiers` vignette.
#
# The rest of this vignette runs the differences that matter when porting.

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
