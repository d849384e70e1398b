"""Run the same pipeline in Python and in R (through rpy2) and compare, function by function.

Usage::

    python -m compat.crosscheck --dataset NAME [--repetition 1] [--functions all]
                                [--lambda 1] [--seed 2024] [--time-limit 120] [--tol 1e-8]
    python -m compat.crosscheck --data FILE.csv [--class answer] [--split IDS.csv] ...

``--dataset`` takes one of the package's benchmark sets
(``pystagedtrees.datasets``, R's level order) and its split
``--repetition``.  A CSV's data are read as strings (every column
categorical), the class column first; both sides get the same factors
(same level order).  With ``--split`` the rows listed in column
``V<repetition>`` of IDS.csv (1-based) are the test set, the others the
training set; without it both are the whole data.  Models are learned on the training set; ``predict``,
``prob`` and ``sample_from`` use R's ``stages_fbhc`` model (``full`` if
that failed) converted to Python, so they compare inference on the very
same model.  The random functions (``stages_kmeans``, ``stages_bhcr``,
``random_sevt``, ``sample_from``) run after R's ``set.seed(--seed)`` and,
in Python, with ``rng="R"`` and the same seed.

One row per function: ``match`` / ``differs`` (with the largest
difference and where) / ``R failed`` (R raised, e.g. its time limit) /
``R missing`` (rpy2, R or the R package is not installed) / ``skipped``
(nothing R can compute, e.g. scores without a complete row).  Structures
(stages, families) must be identical; numbers must agree within ``--tol``
(absolute for probabilities, relative for log-likelihoods and scores).
The exit status is 1 when any function differs, 2 when none could be
compared (every row ``R missing``, ``R failed`` or ``skipped``), else 0.
"""
import argparse
import sys
import time
from dataclasses import dataclass

import numpy as np
import pandas as pd

import pystagedtrees as st
import pystagedtrees.bnc as bnc
from compat._common import (
    R_SCORES_RECOMPUTED,
    R_TREE_OF_FAMILIES,
    add_data_arguments,
    r_function,
    read_dataset,
    shipped_split,
    split_rows,
)
from pystagedtrees import compat
from pystagedtrees.graphs import parentslist, topo_sort_parentslist

MODEL_CHECKS = [
    "full", "indep", "sevt_fit", "stages_bhc", "stages_fbhc", "stages_hc", "stages_bj",
    "stages_hclust", "stages_kmeans", "stages_bhcr", "search_greedy",
]
BNC_CHECKS = ["bnc_nb", "bnc_tan_cl", "as_sevt_nb", "as_sevt_tan_cl"]
RANDOM_CHECKS = ["random_sevt", "sample_from"]
INFERENCE_CHECKS = ["predict", "prob", "logLik_BIC", "bnc_scores"]
ALL_CHECKS = MODEL_CHECKS + BNC_CHECKS + RANDOM_CHECKS + INFERENCE_CHECKS


@dataclass
class Row:
    function: str
    status: str
    detail: str = ""
    py_seconds: float = float("nan")
    r_seconds: float = float("nan")


class Differences:
    """The first structural difference, and the largest numerical one with its place."""

    def __init__(self):
        self.structural = None
        self.largest = 0.0
        self.where = ""

    def same(self, a, b, where):
        if self.structural is None and a != b:
            self.structural = f"{where}: Python {_short(a)} vs R {_short(b)}"

    def values(self, py, r, where, relative=False):
        py, r = np.asarray(py, dtype=float), np.asarray(r, dtype=float)
        if py.shape != r.shape:
            self.same(py.shape, r.shape, f"{where} shape")
            return
        nan_py, nan_r = np.isnan(py), np.isnan(r)
        if (nan_py != nan_r).any():
            j = np.unravel_index(int(np.argmax(nan_py != nan_r)), py.shape)
            self.same(py[j], r[j], f"{where}{[int(x) + 1 for x in j]} (NaN on one side)")
            return
        with np.errstate(invalid="ignore"):
            diff = np.where(nan_py | (py == r), 0.0, np.abs(py - r))
        if relative:  # an infinite R value met by anything else stays an infinite difference
            with np.errstate(invalid="ignore"):
                diff = np.where(np.isinf(r), diff, diff / np.maximum(1.0, np.abs(r)))
        if diff.size and diff.max() > self.largest:
            j = np.unravel_index(int(np.argmax(diff)), diff.shape)
            self.largest = float(diff[j])
            self.where = f"{where}{[int(x) + 1 for x in j] if diff.ndim else ''}"

    def row(self, function, tol):
        if self.structural is not None:
            return Row(function, "differs", self.structural)
        detail = f"largest difference {self.largest:.3g}" + (f" at {self.where}" if self.where else "")
        return Row(function, "differs" if self.largest > tol else "match", detail)


def _short(value):
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def compare_models(diff, py, r, scores=True):
    """Structure, probabilities (by stage label) and, with ``scores``, log-likelihoods of two Sevt."""
    diff.same(py.variables, r.variables, "variables")
    diff.same(py.tree, r.tree, "levels")
    if diff.structural:
        return
    for v in py.variables[1:]:
        a, b = py.stages(v), r.stages(v)
        if a != b:
            j = next(j for j, (x, y) in enumerate(zip(a, b)) if x != y)
            diff.same(a[j], b[j], f"stages of {v} at situation {j + 1}")
            return
    diff.same(py.name_unobserved, r.name_unobserved, "name_unobserved")
    diff.same(py.is_fitted, r.is_fitted, "fitted")
    if not (py.is_fitted and r.is_fitted):
        return
    for i, v in enumerate(py.variables):
        labels_py = py.stage_labels(i).tolist()
        labels_r = r.stage_labels(i).tolist()
        diff.same(sorted(labels_py), sorted(labels_r), f"stages of {v}")
        if diff.structural:
            return
        rows = pd.Index(labels_py).get_indexer(labels_r)
        for j, (row, label) in enumerate(zip(rows, labels_r)):  # by label: positions differ
            diff.values(py.stage_probabilities(i)[row], r.stage_probabilities(i)[j],
                        f"prob of {v} stage {label!r}, level ")
            diff.values(py.stage_sizes(i)[row], r.stage_sizes(i)[j], f"n of {v} stage {label!r}")
    compare_counts_and_data(diff, py, r)
    if not scores:
        return
    ll_py, ll_r = st.logLik(py), st.logLik(r)
    diff.same((ll_py.df, ll_py.nobs), (ll_r.df, ll_r.nobs), "(df, nobs)")
    diff.values(float(ll_py), float(ll_r), "logLik", relative=True)


def compare_counts_and_data(diff, py, r):
    """The fields R's refits read: the tables of counts, ``lambda`` and the raw data."""
    diff.same(py.lambda_, r.lambda_, "lambda")
    diff.same(not py.has_counts, not r.has_counts, "has contingency tables")
    if py.has_counts and r.has_counts:
        for i, v in enumerate(py.variables):
            order_py, order_r = np.argsort(py.observed_situations(i)), np.argsort(r.observed_situations(i))
            diff.same(py.observed_situations(i)[order_py].tolist(), r.observed_situations(i)[order_r].tolist(),
                      f"situations counted for {v}")
            if diff.structural:
                return
            diff.values(py.situation_counts(i)[order_py], r.situation_counts(i)[order_r],
                        f"counts of {v} (row, level) ")
    raw_py, raw_r = py.data_raw, r.data_raw
    diff.same(raw_py is None, raw_r is None, "has data_raw")
    if isinstance(raw_py, pd.DataFrame) and isinstance(raw_r, pd.DataFrame):
        diff.same(raw_py.shape, raw_r.shape, "data_raw shape")
        if raw_py.shape == raw_r.shape:
            diff.same(raw_py.astype(str).values.tolist(), raw_r.astype(str).values.tolist(),
                      "data_raw values")


def compare_bnc(diff, py, r_model, test, time_limit=None):
    """Families, CPTs, and test posteriors: Python's against R's own ``predict``
    on the complete test rows (R needs gRain for the others) and against the
    converted R model on every row."""
    r = compat.from_r(r_model)
    diff.same(py.families, r.families, "families")
    if diff.structural:
        return
    for v in py.families:
        diff.values(py.params[v], r.params[v], f"CPT of {v} ")
    diff.values(bnc.predict(py, test, prob=True), bnc.predict(r, test, prob=True), "test_prob ")
    features = test.drop(columns=[py.class_var])
    complete = features.dropna()
    if len(complete):
        r_prob = np.asarray(compat.r_call("predict", r_model, compat.to_r(complete), prob=True,
                                          time_limit=time_limit), dtype=float)
        diff.values(bnc.predict(py, complete, prob=True), r_prob, "test_prob (R's predict) ")


class CrossCheck:
    """Results of each step on both sides, computed once and on demand."""

    def __init__(self, train, test, lambda_, seed, time_limit, tol):
        self.class_var = train.columns[0]
        self.train, self.test = train, test
        self.features_test = self.test.drop(columns=[self.class_var])
        self.lambda_, self.seed, self.time_limit, self.tol = lambda_, seed, time_limit, tol
        self._py, self._r = {}, {}
        self._train_r = self._test_r = None

    # -- the two sides -------------------------------------------------------------
    def R(self, name, *args, **kwargs):
        return compat.r_call(name, *args, convert_result=False, time_limit=self.time_limit, **kwargs)

    @property
    def train_r(self):
        if self._train_r is None:
            self._train_r = compat.to_r(self.train)
            self._test_r = compat.to_r(self.features_test)
        return self._train_r

    @property
    def test_r(self):
        _ = self.train_r
        return self._test_r

    def py(self, step):
        if step not in self._py:
            self._py[step] = _timed(getattr(self, f"_py_{step}"))
        return _value(self._py[step])

    def r(self, step):
        if step not in self._r:
            self._r[step] = _timed(getattr(self, f"_r_{step}"))
        return _value(self._r[step])

    def seconds(self, side, step):
        return (self._py if side == "py" else self._r).get(step, (None, float("nan")))[1]

    # -- Python steps --------------------------------------------------------------
    def _py_full(self):
        return st.full(self.train, lambda_=self.lambda_)

    def _py_indep(self):
        return st.indep(self.train, lambda_=self.lambda_)

    def _py_sevt_fit(self):
        return st.sevt_fit(st.sevt(self.train, full=True), data=self.train, lambda_=self.lambda_)

    def _py_stages_bhc(self):
        return st.stages_bhc(self.py("full"))

    def _py_stages_fbhc(self):
        return st.stages_fbhc(self.py("full"))

    def _py_stages_hc(self):
        return st.stages_hc(self.py("indep"))

    def _py_stages_bj(self):
        return st.stages_bj(self.py("full"), distance="kullback", thr=0.2)

    def _py_stages_hclust(self):
        return st.stages_hclust(self.py("full"), k=2, distance="totvar", method="complete")

    def _py_stages_kmeans(self):
        return st.stages_kmeans(self.py("full"), k=2, rng="R", seed=self.seed)

    def _py_stages_bhcr(self):
        return st.stages_bhcr(self.py("full"), rng="R", seed=self.seed)

    def _py_search_greedy(self):
        return st.search_greedy(self.train, alg=st.stages_bhc, lambda_=self.lambda_)

    def _py_random_sevt(self):
        from pystagedtrees.random import random_sevt

        return random_sevt(self.py("full"), q=0.5, seed=self.seed, rng="R")

    def _py_sample_from(self):
        from pystagedtrees.random import sample_from

        _, _, model = self.inference_model()
        return sample_from(model, size=len(self.train), seed=self.seed, rng="R")

    def _py_bnc_nb(self):
        return bnc.lp(bnc.nb(self.class_var, self.train), self.train, smooth=self.lambda_)

    def _py_bnc_tan_cl(self):
        return bnc.lp(bnc.tan_cl(self.class_var, self.train), self.train, smooth=self.lambda_)

    def _py_as_sevt(self, r_step):
        from pystagedtrees.graphs import as_sevt

        structure = compat.from_r(self.r(r_step))
        tree = as_sevt(structure, order=self.tree_order(structure))
        return st.sevt_fit(tree, data=self.train, lambda_=self.lambda_)

    def _py_as_sevt_nb(self):
        return self._py_as_sevt("bnc_nb")

    def _py_as_sevt_tan_cl(self):
        return self._py_as_sevt("bnc_tan_cl")

    # -- R steps -------------------------------------------------------------------
    def _r_full(self):
        return self.R("full", self.train_r, lambda_=self.lambda_)

    def _r_indep(self):
        return self.R("indep", self.train_r, lambda_=self.lambda_)

    def _r_sevt_fit(self):
        tree = self.R("sevt", self.train_r, full=True)
        return self.R("sevt_fit", tree, data=self.train_r, lambda_=self.lambda_)

    def _r_stages_bhc(self):
        return self.R("stages_bhc", self.r("full"))

    def _r_stages_fbhc(self):
        return self.R("stages_fbhc", self.r("full"))

    def _r_stages_hc(self):
        return self.R("stages_hc", self.r("indep"))

    def _r_stages_bj(self):
        return self.R("stages_bj", self.r("full"), distance="kullback", thr=0.2)

    def _r_stages_hclust(self):
        return self.R("stages_hclust", self.r("full"), k=2, distance="totvar", method="complete")

    def _r_stages_kmeans(self):
        full = self.r("full")
        compat.set_seed(self.seed)
        return self.R("stages_kmeans", full, k=2)

    def _r_stages_bhcr(self):
        full = self.r("full")
        compat.set_seed(self.seed)
        return self.R("stages_bhcr", full)

    def _r_search_greedy(self):
        alg = r_function("stagedtrees::stages_bhc")
        return self.R("search_greedy", self.train_r, alg=alg, lambda_=self.lambda_)

    def _r_random_sevt(self):
        full = self.r("full")
        compat.set_seed(self.seed)
        return self.R("random_sevt", full, q=0.5)

    def _r_sample_from(self):
        _, model, _ = self.inference_model()
        return self.R("sample_from", model, size=len(self.train), seed=self.seed)

    def _r_bnc_nb(self):
        return self.R("bnclassify::lp", self.R("bnclassify::nb", self.class_var, self.train_r),
                      self.train_r, smooth=self.lambda_)

    def _r_bnc_tan_cl(self):
        return self.R("bnclassify::lp", self.R("bnclassify::tan_cl", self.class_var, self.train_r),
                      self.train_r, smooth=self.lambda_)

    def _r_as_sevt(self, r_step):
        structure = compat.from_r(self.r(r_step))
        columns = list(self.train.columns)
        families = {v: list(f) for v, f in structure.families.items()}
        levels = {v: list(self.train[v].cat.categories) for v in columns}
        with _r_context():
            tree = r_function(R_TREE_OF_FAMILIES)(compat.to_r(families), compat.to_r(levels),
                                                  compat.to_r(columns))
        return self.R("sevt_fit", tree, data=self.train_r, lambda_=self.lambda_)

    def _r_as_sevt_nb(self):
        return self._r_as_sevt("bnc_nb")

    def _r_as_sevt_tan_cl(self):
        return self._r_as_sevt("bnc_tan_cl")

    def tree_order(self, structure):
        """The topological sort of the classifier's DAG, variables in data order
        (R sorts on its side with its own topo_sort_parentslist)."""
        parents = {v: list(structure.families[v][1:]) for v in self.train.columns}
        return topo_sort_parentslist(parentslist(parents))

    def inference_model(self):
        """R's stages_fbhc model (full if it failed) and its Python conversion."""
        try:
            step, r_model = "stages_fbhc", self.r("stages_fbhc")
        except Exception:  # noqa: BLE001 - R's full is the fallback (its error is reported)
            step, r_model = "full", self.r("full")
        return step, r_model, compat.from_r(r_model)


def _r_context():
    from pystagedtrees.compat._session import r_context

    return r_context()


def _is_r_error(exc):
    from pystagedtrees.compat._session import RRuntimeError

    return isinstance(exc, RRuntimeError)


def _timed(function):
    start = time.perf_counter()
    try:
        value = function()
    except Exception as exc:  # noqa: BLE001 - reported in the table
        value = exc
    return value, time.perf_counter() - start


def _value(result):
    if isinstance(result[0], Exception):
        raise result[0]
    return result[0]


def _first_line(exc):
    """The error in one line: R splits long messages, and the reason (e.g.
    "reached elapsed time limit") often comes after the break."""
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}"[:200]


def _r_step_failed(name, exc, r_seconds=float("nan")):
    """The row of an R step that raised: R's own error, or Python's while reading R's result."""
    if _is_r_error(exc):
        return Row(name, "R failed", _first_line(exc), r_seconds=r_seconds)
    return Row(name, "differs", f"Python raised on R's result: {_first_line(exc)}",
               r_seconds=r_seconds)


def _check_steps(ctx, name, compare):
    """Row of a function computed on both sides by steps of the same name."""
    try:
        r_value = ctx.r(name)
    except Exception as exc:  # noqa: BLE001
        return _r_step_failed(name, exc, ctx.seconds("r", name))
    try:
        py_value = ctx.py(name)
        diff = Differences()
        compare(diff, py_value, r_value)
        row = diff.row(name, ctx.tol)
    except Exception as exc:  # noqa: BLE001
        row = Row(name, "differs", f"Python raised {_first_line(exc)}")
    row.py_seconds, row.r_seconds = ctx.seconds("py", name), ctx.seconds("r", name)
    return row


def check_model(ctx, name):
    return _check_steps(ctx, name, lambda d, py, r: compare_models(d, py, compat.from_r(r)))


def compare_samples(diff, py, r):
    """Two samples (DataFrames of categoricals) drawn from the same model."""
    diff.same(list(py.columns), list(r.columns), "columns")
    diff.same(len(py), len(r), "number of rows")
    if diff.structural:
        return
    for v in py.columns:
        diff.same(list(py[v].cat.categories), list(r[v].cat.categories), f"levels of {v}")
        differ = py[v].cat.codes.to_numpy() != r[v].cat.codes.to_numpy()
        if differ.any():
            j = int(np.argmax(differ))
            diff.same(py[v].iloc[j], r[v].iloc[j], f"{v} of sampled row {j + 1} ({int(differ.sum())} rows differ)")
            return


def check_random(ctx, name):
    if name == "random_sevt":
        # R's random_sevt keeps the start model's stale ctables and ll: compare stages and prob
        return _check_steps(ctx, name, lambda d, py, r: compare_models(d, py, compat.from_r(r), scores=False))
    return _check_steps(ctx, name, lambda d, py, r: compare_samples(d, py, compat.from_r(r)))


def check_bnc(ctx, name):
    return _check_steps(ctx, name,
                        lambda d, py, r: compare_bnc(d, py, r, ctx.test, ctx.time_limit))


def _inference_row(ctx, name, run):
    try:
        step, r_model, py_model = ctx.inference_model()
    except Exception as exc:  # noqa: BLE001
        return _r_step_failed(name, exc)
    diff = Differences()
    start = time.perf_counter()
    try:
        r_seconds = run(diff, r_model, py_model)
    except Exception as exc:  # noqa: BLE001
        return Row(name, "R failed" if _is_r_error(exc) else "differs", _first_line(exc))
    row = diff.row(name, ctx.tol)
    row.detail += f" (model: R's {step})"
    row.r_seconds = r_seconds
    row.py_seconds = time.perf_counter() - start - r_seconds
    return row


def check_predict(ctx):
    def run(diff, r_model, py_model):
        start = time.perf_counter()
        r_prob = np.asarray(ctx.R("predict", r_model, ctx.test_r, class_=ctx.class_var, prob=True))
        r_seconds = time.perf_counter() - start
        py_prob = st.predict(py_model, ctx.features_test, class_=ctx.class_var, prob=True).to_numpy()
        diff.values(py_prob, r_prob, "test row, class ")
        start = time.perf_counter()
        r_class = compat.from_r(ctx.R("predict", r_model, ctx.test_r, class_=ctx.class_var))
        r_seconds += time.perf_counter() - start
        py_class = st.predict(py_model, ctx.features_test, class_=ctx.class_var)
        # R breaks ties at random: compare labels where the top class is unique
        top = np.sort(np.nan_to_num(py_prob, nan=-1.0), axis=1)
        unique = top[:, -1] - top[:, -2] > 1e-12 if py_prob.shape[1] > 1 else np.ones(len(top), bool)
        mismatched = np.flatnonzero(unique & (np.asarray(py_class) != np.asarray(r_class)))
        if len(mismatched):
            j = int(mismatched[0])
            diff.same(py_class[j], r_class[j], f"predicted class of test row {j + 1}")
        return r_seconds

    return _inference_row(ctx, "predict", run)


def _prob_queries(ctx):
    """Events and conditioning events over the class and the first two features."""
    cls, data = ctx.class_var, ctx.train
    features = list(data.columns[1:3])
    queries = []
    for c in data[cls].cat.categories:
        queries.append(({cls: c}, None))
        for f in features:
            queries.append(({cls: c}, {f: data[f].cat.categories[0]}))
    if len(features) == 2:
        f, g = features
        for a in data[f].cat.categories:
            queries.append(({f: a, g: data[g].cat.categories[-1]}, {cls: data[cls].cat.categories[0]}))
    return queries


def check_prob(ctx):
    def run(diff, r_model, py_model):
        r_seconds = 0.0
        for j, (x, cond) in enumerate(_prob_queries(ctx)):
            start = time.perf_counter()
            r_value = compat.from_r(ctx.R("prob", r_model, x, conditional_on=cond))
            r_seconds += time.perf_counter() - start
            py_value = st.prob(py_model, x, conditional_on=cond)
            diff.values(py_value, r_value, f"query {j + 1} P({x} | {cond})")
        return r_seconds

    return _inference_row(ctx, "prob", run)


def check_scores(ctx):
    """logLik, df, nobs, BIC and AIC recomputed on each R model, in both languages."""
    diff, r_seconds, start, used = Differences(), 0.0, time.perf_counter(), []
    missing = missing_r(MODEL_CHECKS + ["as_sevt_nb", "as_sevt_tan_cl"])
    for step in MODEL_CHECKS + ["as_sevt_nb", "as_sevt_tan_cl"]:
        if step in missing:
            continue
        try:  # R's model of every step, computed here if no check asked for it yet
            r_model = ctx.r(step)
        except Exception:  # noqa: BLE001 - the step's own row reports it
            continue
        t = time.perf_counter()
        try:
            with _r_context():
                r_scores = np.array(r_function(R_SCORES_RECOMPUTED)(r_model), dtype=float)
            r_seconds += time.perf_counter() - t
            model = compat.from_r(r_model)
        except Exception as exc:  # noqa: BLE001
            return _r_step_failed("logLik_BIC", exc)
        model.ll = None  # recompute it in Python as well
        ll = st.logLik(model)
        diff.same((ll.df, ll.nobs), (int(r_scores[1]), r_scores[2]), f"(df, nobs) of {step}")
        diff.values([float(ll), st.BIC(model), st.AIC(model)], r_scores[[0, 3, 4]],
                    f"{step} (logLik, BIC, AIC) ", relative=True)
        used.append(step)
    if not used:
        return Row("logLik_BIC", "R failed", "no R model to score")
    return _scores_row("logLik_BIC", diff, ctx, f"{len(used)} models", start, r_seconds)


def _scores_row(name, diff, ctx, counted, start, r_seconds):
    """The row of a scores check, with what it counted and both sides' times."""
    row = diff.row(name, ctx.tol)
    row.detail += f" ({counted})"
    row.r_seconds, row.py_seconds = r_seconds, time.perf_counter() - start - r_seconds
    return row


BNC_SCORES = ["logLik", "AIC", "BIC", "cLogLik"]


def check_bnc_scores(ctx):
    """bnclassify's logLik, AIC, BIC and cLogLik of R's nb and tan_cl, in both
    languages, on the training rows with every feature observed (R needs
    gRain for the others)."""
    rows = ctx.train.dropna().reset_index(drop=True)
    if rows.empty:
        return Row("bnc_scores", "skipped", "no complete training row to score (R needs gRain)")
    diff, r_seconds, start, used = Differences(), 0.0, time.perf_counter(), []
    for step in ("bnc_nb", "bnc_tan_cl"):
        try:
            r_model = ctx.r(step)
        except Exception:  # noqa: BLE001 - its own row reports R's error
            continue
        rows_r = compat.to_r(rows)
        t = time.perf_counter()
        try:
            r_scores = [float(np.asarray(compat.r_call(r_name, r_model, rows_r,
                                                       time_limit=ctx.time_limit)).ravel()[0])
                        for r_name in ("stats::logLik", "stats::AIC", "stats::BIC",
                                       "bnclassify::cLogLik")]
            r_seconds += time.perf_counter() - t
            model = compat.from_r(r_model)
        except Exception as exc:  # noqa: BLE001
            return _r_step_failed("bnc_scores", exc)
        try:
            py_scores = [getattr(bnc, name)(model, rows) for name in BNC_SCORES]
        except Exception as exc:  # noqa: BLE001
            return Row("bnc_scores", "differs", f"Python raised {_first_line(exc)}")
        diff.values(py_scores, r_scores, f"{step} ({', '.join(BNC_SCORES)}) ", relative=True)
        used.append(step)
    if not used:
        return Row("bnc_scores", "R failed", "no R classifier to score")
    return _scores_row("bnc_scores", diff, ctx, f"{len(used)} classifiers, {len(rows)} rows",
                       start, r_seconds)


def run_check(ctx, name):
    if name in MODEL_CHECKS:
        return check_model(ctx, name)
    if name in ("bnc_nb", "bnc_tan_cl"):
        return check_bnc(ctx, name)
    if name in RANDOM_CHECKS:
        return check_random(ctx, name)
    if name in ("as_sevt_nb", "as_sevt_tan_cl"):
        return check_model(ctx, name)
    return {"predict": check_predict, "prob": check_prob, "logLik_BIC": check_scores,
            "bnc_scores": check_bnc_scores}[name](ctx)


def missing_r(names):
    """Why each check cannot run in R (the checks that can are absent)."""
    if not compat.r_available():
        return {n: "rpy2 or R not installed" for n in names}
    installed = {pkg: compat.has_r_package(pkg) for pkg in ("stagedtrees", "bnclassify")}
    reasons = {}
    for n in names:
        needed = {"bnc_nb": ["bnclassify"], "bnc_tan_cl": ["bnclassify"],
                  "bnc_scores": ["bnclassify"],
                  "as_sevt_nb": ["stagedtrees", "bnclassify"],
                  "as_sevt_tan_cl": ["stagedtrees", "bnclassify"]}.get(n, ["stagedtrees"])
        absent = [pkg for pkg in needed if not installed[pkg]]
        if absent:
            reasons[n] = f"R package {' and '.join(absent)} not installed"
    return reasons


def format_table(rows):
    def secs(x):
        return "" if np.isnan(x) else f"{x:.3f}"

    header = ("function", "status", "Python s", "R s", "detail")
    lines = [(r.function, r.status, secs(r.py_seconds), secs(r.r_seconds), r.detail) for r in rows]
    widths = [max(len(str(x[j])) for x in [header] + lines) for j in range(4)]
    out = []
    for line in [header] + lines:
        out.append("  ".join(str(line[j]).ljust(widths[j]) for j in range(4)) + "  " + line[4])
    return "\n".join(out)


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="python -m compat.crosscheck", description=__doc__.split("\n")[0])
    add_data_arguments(parser)
    parser.add_argument("--functions", default="all", help=f"'all' or a comma list of {ALL_CHECKS}")
    parser.add_argument("--lambda", dest="lambda_", type=float, default=1.0, help="smoothing (default 1)")
    parser.add_argument("--seed", type=int, default=2024, help="set.seed of the random learners")
    parser.add_argument("--time-limit", type=float, default=120.0, help="seconds per R call (default 120)")
    parser.add_argument("--tol", type=float, default=1e-8, help="largest accepted difference")
    args = parser.parse_args(argv)
    names = ALL_CHECKS if args.functions == "all" else [f.strip() for f in args.functions.split(",")]
    unknown = [n for n in names if n not in ALL_CHECKS]
    if unknown:
        parser.error(f"unknown --functions {unknown}; choose from {ALL_CHECKS}")
    if args.dataset is not None and (args.split or args.class_var):
        parser.error("--split and --class go with --data; a shipped --dataset brings its own split")
    return args, names


def training_and_test(args):
    """``(label, train, test)`` of the data the options name."""
    if args.dataset is not None:
        _, train, test = shipped_split(args.dataset, args.repetition)
        return f"{args.dataset} (split {args.repetition})", train, test
    return args.data, *split_rows(read_dataset(args.data, args.class_var), args.split, args.repetition)


def main(argv=None):
    args, names = parse_args(argv)
    label, train, test = training_and_test(args)
    ctx = CrossCheck(train, test, args.lambda_, args.seed, args.time_limit, args.tol)
    missing = missing_r(names)
    rows = []
    for name in names:
        row = Row(name, "R missing", missing[name]) if name in missing else run_check(ctx, name)
        rows.append(row)
        print(f"{row.function}: {row.status} {row.detail}", file=sys.stderr, flush=True)
    print(f"{label}: {len(ctx.train)} training rows, {len(ctx.test)} test rows, class {ctx.class_var!r}")
    print(format_table(rows))
    if any(r.status == "differs" for r in rows):
        return 1
    # nothing compared (R missing, failed or skipped everywhere) is no pass
    return 0 if any(r.status == "match" for r in rows) else 2


if __name__ == "__main__":
    sys.exit(main())
