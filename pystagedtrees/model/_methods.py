"""The methods of a staged event tree: every function of the package whose
first argument is a model, declared here so that ``help(Sevt)``, IDEs and the
documentation see them.

Each method is a thin delegation to its function, imported when called: the
parts that implement them (learners, plotting, ...) stand above the model and
import it, so the model may reach them only at call time (ARCHITECTURE.md).
``model.stages_bhc()`` and ``stages_bhc(model)`` are one implementation.

The annotations name the types of those parts too: they are imported for
type checkers only (``TYPE_CHECKING``), never when the model loads.
"""
from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd

from pystagedtrees.rng import Rng, Seed

if TYPE_CHECKING:
    import dask.dataframe as dd
    import networkx as nx
    from matplotlib.axes import Axes
    from matplotlib.text import Text

    from pystagedtrees.base import LogLik
    from pystagedtrees.graphs import Ceg, ParentsList
    from pystagedtrees.model._sevt import Sevt
    from pystagedtrees.stage_ops import SevtSummary

__all__ = ["SevtMethods"]


class SevtMethods:
    """The public methods of :class:`~pystagedtrees.Sevt` (a mixin)."""

    # -- construction, fitting and scores (fitting) ---------------------
    def AIC(self, *others: Sevt, k: float = 2,
            names: Sequence[str] | None = None) -> float | pd.DataFrame:
        """Akaike information criterion, ``-2 ll + k df``.

        See :func:`pystagedtrees.AIC`.
        """
        from pystagedtrees.fitting import AIC

        return AIC(self, *others, k=k, names=names)

    def BIC(self, *others: Sevt, names: Sequence[str] | None = None) -> float | pd.DataFrame:
        """Bayesian information criterion, ``-2 ll + log(nobs) df``.

        See :func:`pystagedtrees.BIC`.
        """
        from pystagedtrees.fitting import BIC

        return BIC(self, *others, names=names)

    def copy_sevt(self, extra: str | Sequence[str] | None = None) -> Sevt:
        """A copy of the structure of a staged tree, plus chosen fields (R: ``copy_sevt``).

        See :func:`pystagedtrees.copy_sevt`.
        """
        from pystagedtrees.fitting import copy_sevt

        return copy_sevt(self, extra=extra)

    def join_unobserved(self, fit: bool = True, trace: int = 0,
                        name: str | None = "UNOBSERVED", scope: Sequence[str] | None = None,
                        lambda_: float | None = None) -> Sevt:
        """Gather the situations that data never reach into one stage (R: ``join_unobserved``).

        See :func:`pystagedtrees.join_unobserved`.
        """
        from pystagedtrees.fitting import join_unobserved

        return join_unobserved(self, fit=fit, trace=trace, name=name, scope=scope, lambda_=lambda_)

    def logLik(self) -> LogLik:
        """Log-likelihood of a fitted staged tree (R: ``logLik.sevt``).

        See :func:`pystagedtrees.logLik`.
        """
        from pystagedtrees.fitting import logLik

        return logLik(self)

    def make_ctables(self, data: pd.DataFrame | pd.Series | dd.DataFrame,
                     useNA: Literal["ifany", "no", "always"] = "ifany") -> dict[str, pd.DataFrame]:
        """Contingency tables of ``data`` over the situations of ``object``.

        See :func:`pystagedtrees.make_ctables`.
        """
        from pystagedtrees.fitting import make_ctables

        return make_ctables(self, data=data, useNA=useNA)

    def sevt_add(self, var: str, data: pd.DataFrame | pd.Series, join_unobserved: bool = True,
                 useNA: Literal["ifany", "no", "always"] = "ifany") -> Sevt:
        """Append a variable to a fitted staged tree (R: ``sevt_add``).

        See :func:`pystagedtrees.sevt_add`.
        """
        from pystagedtrees.fitting import sevt_add

        return sevt_add(self, var=var, data=data, join_unobserved=join_unobserved, useNA=useNA)

    def sevt_df(self) -> int:
        """Number of free parameters: ``(k1 - 1) + sum_i |stages_i| (k_i - 1)``.

        See :func:`pystagedtrees.sevt_df`.
        """
        from pystagedtrees.fitting import sevt_df

        return sevt_df(self)

    def sevt_fit(self, data: pd.DataFrame | pd.Series | dd.DataFrame | None = None,
                 lambda_: float | None = None, scope: Sequence[str] | None = None,
                 compute_logLik: bool = True) -> Sevt:
        """Estimate the stage probabilities of a staged tree (R: ``sevt_fit``).

        See :func:`pystagedtrees.sevt_fit`.
        """
        from pystagedtrees.fitting import sevt_fit

        return sevt_fit(
            self, data=data, lambda_=lambda_, scope=scope, compute_logLik=compute_logLik
        )

    def sevt_nvar(self) -> int:
        """Number of variables in the tree (R: ``sevt_nvar``).

        See :func:`pystagedtrees.sevt_nvar`.
        """
        from pystagedtrees.fitting import sevt_nvar

        return sevt_nvar(self)

    def sevt_varnames(self) -> list[str]:
        """Names of the variables in tree order (R: ``sevt_varnames``).

        See :func:`pystagedtrees.sevt_varnames`.
        """
        from pystagedtrees.fitting import sevt_varnames

        return sevt_varnames(self)

    # -- stages (stage_ops) ---------------------------------------------
    def get_path(self, var: str, stage: str | Sequence[str]) -> pd.DataFrame:
        """The paths (situations) of a variable that lie in given stages (R: ``get_path``).

        See :func:`pystagedtrees.get_path`.
        """
        from pystagedtrees.stage_ops import get_path

        return get_path(self, var=var, stage=stage)

    def get_stage(self,
                  path: Mapping[str, str] | Sequence[str] | pd.DataFrame) -> str | list[str]:
        """Stage of the situation reached by a path (R: ``get_stage``).

        See :func:`pystagedtrees.get_stage`.
        """
        from pystagedtrees.stage_ops import get_stage

        return get_stage(self, path=path)

    def join_stages(self, var: str, s1: str, s2: str) -> Sevt:
        """Join two stages of a variable; the result keeps the name ``s1`` (R: ``join_stages``).

        See :func:`pystagedtrees.join_stages`.
        """
        from pystagedtrees.stage_ops import join_stages

        return join_stages(self, var=var, s1=s1, s2=s2)

    def rename_stage(self, var: str, stage: str, new: str) -> Sevt:
        """Rename a stage of a variable (R: ``rename_stage``).

        See :func:`pystagedtrees.rename_stage`.
        """
        from pystagedtrees.stage_ops import rename_stage

        return rename_stage(self, var=var, stage=stage, new=new)

    def set_stage_prob(self, var: str, stage: str,
                       prob: Mapping[str, float] | pd.Series | Sequence[float]) -> Sevt:
        """A copy with one stage's probabilities set by hand (R: ``object$prob[[var]][[stage]] <- prob``).

        See :func:`pystagedtrees.set_stage_prob`.
        """
        from pystagedtrees.stage_ops import set_stage_prob

        return set_stage_prob(self, var=var, stage=stage, prob=prob)

    def set_stages(self, var: str, value: str | Sequence[str],
                   context: Mapping[str, str] | None = None, fit: bool = True) -> Sevt:
        """A copy with some stages of a variable set by hand (R: ``stages(object)[var] <- value``).

        See :func:`pystagedtrees.set_stages`.
        """
        from pystagedtrees.stage_ops import set_stages

        return set_stages(self, var=var, value=value, context=context, fit=fit)

    def stages(self, var: str | Sequence[str] | None = None,
               context: Mapping[str, str] | None = None) -> dict[str, list[str]] | list[str]:
        """The stage labels of every situation (R: ``stages``, ``object$stages``).

        See :func:`pystagedtrees.stages`.
        """
        from pystagedtrees.stage_ops import stages

        return stages(self, var=var, context=context)

    def stndnaming(self, uniq: bool = False, prefix: bool = False,
                   ignore: Sequence[str] | None = None) -> Sevt:
        """Rename stages "1", "2", ... in order of first appearance (R: ``stndnaming``).

        See :func:`pystagedtrees.stndnaming`.
        """
        from pystagedtrees.stage_ops import stndnaming

        return stndnaming(self, uniq=uniq, prefix=prefix, ignore=ignore)

    def summary(self) -> SevtSummary:
        """Per-variable tables: stage, number of situations, sample size, probabilities.

        See :func:`pystagedtrees.summary`.
        """
        from pystagedtrees.stage_ops import summary

        return summary(self)

    # -- inference (inference) ------------------------------------------
    def path_probability(self, x: Mapping[str, str] | Sequence[str] | pd.DataFrame | dd.DataFrame,
                         log: bool = False) -> float | np.ndarray | dd.Series:
        """Probability of complete paths (R's internal ``path_probability``).

        See :func:`pystagedtrees.path_probability`.
        """
        from pystagedtrees.inference import path_probability

        return path_probability(self, x=x, log=log)

    def predict(self, newdata: pd.DataFrame | dd.DataFrame | None = None, class_: str | None = None,
                prob: bool = False, log: bool = False, seed: Seed = None,
                rng: Rng = None) -> pd.Categorical | pd.DataFrame | dd.Series | dd.DataFrame:
        """Predict a variable from the others (R: ``predict.sevt``).

        See :func:`pystagedtrees.predict`.
        """
        from pystagedtrees.inference import predict

        return predict(self, newdata=newdata, class_=class_, prob=prob, log=log, seed=seed, rng=rng)

    def prob(self, x: Mapping[str, str] | pd.DataFrame | dd.DataFrame,
             conditional_on: Mapping[str, str] | pd.DataFrame | None = None, log: bool = False,
             na0: bool = True) -> float | np.ndarray | dd.Series:
        """Probability of events, marginal or conditional (R: ``prob``).

        See :func:`pystagedtrees.prob`.
        """
        from pystagedtrees.inference import prob

        return prob(self, x=x, conditional_on=conditional_on, log=log, na0=na0)

    # -- structure learning (learners) ----------------------------------
    def sevt_fit_em(self, data: pd.DataFrame | None = None, lambda_: float | None = None,
                    scope: Sequence[str] | None = None, max_iter: int = 5,
                    chain_impute: bool = False, seed: Seed = None, rng: Rng = None) -> Sevt:
        """Fit a staged tree to data with missing values by iterated imputation (R: ``sevt_fit_em``).

        See :func:`pystagedtrees.sevt_fit_em`.
        """
        from pystagedtrees.learners import sevt_fit_em

        return sevt_fit_em(
            self,
            data=data,
            lambda_=lambda_,
            scope=scope,
            max_iter=max_iter,
            chain_impute=chain_impute,
            seed=seed,
            rng=rng,
        )

    def stages_bhc(self, score: str | Callable[[Sevt], float] | None = None,
                   max_iter: int | None = None, scope: Sequence[str] | None = None,
                   ignore: Sequence[str] | None = None, trace: int = 0) -> Sevt:
        """Backward hill-climbing: join pairs of stages while the score improves (R: ``stages_bhc``).

        See :func:`pystagedtrees.stages_bhc`.
        """
        from pystagedtrees.learners import stages_bhc

        return stages_bhc(
            self, score=score, max_iter=max_iter, scope=scope, ignore=ignore, trace=trace
        )

    def stages_bhcr(self, score: str | Callable[[Sevt], float] | None = None,
                    max_iter: int = 100, trace: int = 0, seed: Seed = None,
                    rng: Rng = "numpy") -> Sevt:
        """Random backward hill climbing (R: ``stages_bhcr``).

        See :func:`pystagedtrees.stages_bhcr`.
        """
        from pystagedtrees.learners import stages_bhcr

        return stages_bhcr(self, score=score, max_iter=max_iter, trace=trace, seed=seed, rng=rng)

    def stages_bj(self, distance: str = "kullback", thr: float = 0.1,
                  scope: Sequence[str] | None = None, ignore: Sequence[str] | None = None,
                  trace: int = 0) -> Sevt:
        """Backward joining: join the two closest stages while closer than ``thr`` (R: ``stages_bj``).

        See :func:`pystagedtrees.stages_bj`.
        """
        from pystagedtrees.learners import stages_bj

        return stages_bj(self, distance=distance, thr=thr, scope=scope, ignore=ignore, trace=trace)

    def stages_csbhc(self, score: str | Callable[[Sevt], float] | None = None,
                     max_iter: int | None = None, scope: Sequence[str] | None = None,
                     ignore: Sequence[str] | None = None) -> Sevt:
        """Context-specific backward hill climbing (R: ``stages_csbhc``).

        See :func:`pystagedtrees.stages_csbhc`.
        """
        from pystagedtrees.learners import stages_csbhc

        return stages_csbhc(self, score=score, max_iter=max_iter, scope=scope, ignore=ignore)

    def stages_em(self, data: pd.DataFrame | None = None,
                  stages_alg: Callable[..., Sevt] | None = None, max_iter_em: int = 5,
                  incremental: bool = False, chain_impute: bool = False, seed: Seed = None,
                  rng: Rng = None, **alg_args: Any) -> Sevt:
        """Learn stages from data with missing values by iterated imputation (R: ``stages_em``).

        See :func:`pystagedtrees.stages_em`; ``stages_alg=None`` is its default,
        :func:`~pystagedtrees.stages_bhc`.
        """
        from pystagedtrees.learners import stages_em

        if stages_alg is not None:
            alg_args["stages_alg"] = stages_alg
        return stages_em(
            self,
            data=data,
            max_iter_em=max_iter_em,
            incremental=incremental,
            chain_impute=chain_impute,
            seed=seed,
            rng=rng,
            **alg_args,
        )

    def stages_fbhc(self, score: str | Callable[[Sevt], float] | None = None,
                    max_iter: int | None = None, scope: Sequence[str] | None = None,
                    ignore: Sequence[str] | None = None, trace: int = 0) -> Sevt:
        """Fast backward hill-climbing: take the first join that does not lower the score (R: ``stages_fbhc``).

        See :func:`pystagedtrees.stages_fbhc`.
        """
        from pystagedtrees.learners import stages_fbhc

        return stages_fbhc(
            self, score=score, max_iter=max_iter, scope=scope, ignore=ignore, trace=trace
        )

    def stages_hc(self, score: str | Callable[[Sevt], float] | None = None,
                  max_iter: int | None = None, scope: Sequence[str] | None = None,
                  ignore: Sequence[str] | None = None, trace: int = 0) -> Sevt:
        """Hill climbing: move single situations between stages while the score improves (R: ``stages_hc``).

        See :func:`pystagedtrees.stages_hc`.
        """
        from pystagedtrees.learners import stages_hc

        return stages_hc(
            self, score=score, max_iter=max_iter, scope=scope, ignore=ignore, trace=trace
        )

    def stages_hclust(self, distance: str = "totvar",
                      k: int | Sequence[int] | Mapping[str, int] | None = None,
                      method: str = "complete", ignore: Sequence[str] | None = None,
                      limit: int | None = None, scope: Sequence[str] | None = None,
                      score: str | Callable[[Sevt], float] | None = None) -> Sevt:
        """Hierarchical clustering of the stages of each variable (R: ``stages_hclust``).

        See :func:`pystagedtrees.stages_hclust`.
        """
        from pystagedtrees.learners import stages_hclust

        return stages_hclust(
            self,
            distance=distance,
            k=k,
            method=method,
            ignore=ignore,
            limit=limit,
            scope=scope,
            score=score,
        )

    def stages_kmeans(self, k: int | Sequence[int] | Mapping[str, int] | None = None,
                      algorithm: str = "Hartigan-Wong",
                      transform: Callable[[np.ndarray], np.ndarray] | None = np.sqrt,
                      ignore: Sequence[str] | None = None, limit: int | None = None,
                      scope: Sequence[str] | None = None, nstart: int = 1, seed: Seed = None,
                      rng: Rng = "numpy") -> Sevt:
        """k-means clustering of the stages of each variable (R: ``stages_kmeans``).

        See :func:`pystagedtrees.stages_kmeans`.
        """
        from pystagedtrees.learners import stages_kmeans

        return stages_kmeans(
            self,
            k=k,
            algorithm=algorithm,
            transform=transform,
            ignore=ignore,
            limit=limit,
            scope=scope,
            nstart=nstart,
            seed=seed,
            rng=rng,
        )

    def stages_simplebhc(self, score: str | Callable[[Sevt], float] | None = None,
                         scope: Sequence[str] | None = None, max_iter: int | None = None,
                         ignore: Sequence[str] | None = None) -> Sevt:
        """Backward hill climbing over simple staged trees (R: ``stages_simplebhc``).

        See :func:`pystagedtrees.stages_simplebhc`.
        """
        from pystagedtrees.learners import stages_simplebhc

        return stages_simplebhc(self, score=score, scope=scope, max_iter=max_iter, ignore=ignore)

    # -- graphs, conversions and chain event graphs (graphs) ------------
    def as_adj_matrix(self, **kwargs: Any) -> pd.DataFrame:
        """Adjacency matrix of a DAG or of a chain event graph (R: ``as_adj_matrix``).

        See :func:`pystagedtrees.as_adj_matrix`.
        """
        from pystagedtrees.graphs import as_adj_matrix

        return as_adj_matrix(self, **kwargs)

    def as_bn(self) -> nx.DiGraph:
        """The DAG of ``x`` as a networkx ``DiGraph`` (R: ``as_bn``, which needs bnlearn).

        See :func:`pystagedtrees.as_bn`.
        """
        from pystagedtrees.graphs import as_bn

        return as_bn(self)

    def as_networkx(self, ignore: Sequence[str] | None = None) -> nx.DiGraph | nx.MultiDiGraph:
        """A networkx graph of a DAG, a staged tree or a CEG (R: ``as_igraph``).

        See :func:`pystagedtrees.as_networkx`.
        """
        from pystagedtrees.graphs import as_networkx

        return as_networkx(self, ignore=ignore)

    def as_parentslist(self, values: Mapping[str, Sequence[str]] | pd.DataFrame | None = None,
                       silent: bool = False) -> ParentsList:
        """The DAG of ``x`` as a :class:`ParentsList` (R: ``as_parentslist``).

        See :func:`pystagedtrees.as_parentslist`.
        """
        from pystagedtrees.graphs import as_parentslist

        return as_parentslist(self, values=values, silent=silent)

    def ceg(self) -> Ceg:
        """The chain event graph of a staged tree (R: ``ceg``).

        See :func:`pystagedtrees.ceg`.
        """
        from pystagedtrees.graphs import ceg

        return ceg(self)

    def get_edges(self, ignore: Sequence[str] | None = None) -> pd.DataFrame:
        """Edges of the tree graph of a staged tree, or of a CEG (R: ``get_edges``).

        See :func:`pystagedtrees.get_edges`.
        """
        from pystagedtrees.graphs import get_edges

        return get_edges(self, ignore=ignore)

    def get_vertices(self, ignore: Sequence[str] | None = None) -> pd.DataFrame:
        """Vertices of the tree graph of a staged tree, or of a CEG (R: ``get_vertices``).

        See :func:`pystagedtrees.get_vertices`.
        """
        from pystagedtrees.graphs import get_vertices

        return get_vertices(self, ignore=ignore)

    def join_positions(self, var: str, s1: str, s2: str) -> Sevt:
        """Join two stages and rebuild the downstream stages as positions (R: ``join_positions``).

        See :func:`pystagedtrees.join_positions`.
        """
        from pystagedtrees.graphs import join_positions

        return join_positions(self, var=var, s1=s1, s2=s2)

    def sevt_simplify(self, fit: bool = True) -> Sevt:
        """Replace the stages by the positions (R: ``sevt_simplify``).

        See :func:`pystagedtrees.sevt_simplify`.
        """
        from pystagedtrees.graphs import sevt_simplify

        return sevt_simplify(self, fit=fit)

    # -- random models and data (random) --------------------------------
    def random_sevt(self, q: float = 0.5, rfun: Callable[[int, Any], Sequence[float]] | None = None,
                    seed: Seed = None, rng: Rng = None) -> Sevt:
        """A staged tree with random stages and probabilities (R: ``random_sevt``).

        See :func:`pystagedtrees.random_sevt`.
        """
        from pystagedtrees.random import random_sevt

        return random_sevt(self, q=q, rfun=rfun, seed=seed, rng=rng)

    def randomize_sevt(self, treatment: str,
                       p: Sequence[float] | Mapping[str, float] | pd.Series | None = None,
                       ignore: str | Sequence[str] | None = None) -> Sevt:
        """Replace a variable's stages by one randomised stage (R: ``randomize_sevt``).

        See :func:`pystagedtrees.randomize_sevt`.
        """
        from pystagedtrees.random import randomize_sevt

        return randomize_sevt(self, treatment=treatment, p=p, ignore=ignore)

    def sample_from(self, size: int = 1, seed: Seed = None,
                    rng: Rng = None) -> pd.DataFrame:
        """Draw paths (rows of data) from a staged tree (R: ``sample_from``).

        See :func:`pystagedtrees.sample_from`.
        """
        from pystagedtrees.random import sample_from

        return sample_from(self, size=size, seed=seed, rng=rng)

    # -- comparison and tests (compare) ---------------------------------
    def ci_matrices(self, var: str) -> dict[str, pd.DataFrame]:
        """The stages of a variable arranged by each predecessor (R: ``ci_matrices``).

        See :func:`pystagedtrees.ci_matrices`.
        """
        from pystagedtrees.compare import ci_matrices

        return ci_matrices(self, var=var)

    def cid(self, object2: Sevt,
            FUN: Callable[[np.ndarray], float] = np.mean) -> dict[str, Any]:
        """Context-specific interventional discrepancy (R: ``cid``).

        See :func:`pystagedtrees.cid`.
        """
        from pystagedtrees.compare import cid

        return cid(self, object2=object2, FUN=FUN)

    def compare_stages(self, object2: Sevt,
                       method: Literal["naive", "hamming", "stages"] = "naive",
                       return_tree: bool = False, plot: bool = False,
                       **plot_args: Any) -> bool | dict[str, np.ndarray]:
        """Whether two staged trees have the same stages (R: ``compare_stages``).

        See :func:`pystagedtrees.compare_stages`.
        """
        from pystagedtrees.compare import compare_stages

        return compare_stages(
            self, object2=object2, method=method, return_tree=return_tree, plot=plot, **plot_args
        )

    def confint(self, parm: str | Sequence[str] | None = None, level: float = 0.95,
                method: Literal["wald", "waldcc", "wilson", "goodman",
                                "quesenberry-hurst"] = "wald",
                ignore: Sequence[str] | None = None) -> pd.DataFrame:
        """Confidence intervals for the stage probabilities (R: ``confint.sevt``).

        See :func:`pystagedtrees.confint`.
        """
        from pystagedtrees.compare import confint

        return confint(self, parm=parm, level=level, method=method, ignore=ignore)

    def depsubtree(self, var: str,
                   other_stages: Literal["NA", "indep", "full"] = "NA") -> Sevt:
        """The staged tree of a variable over its minimal parents (R: ``depsubtree``).

        See :func:`pystagedtrees.depsubtree`.
        """
        from pystagedtrees.compare import depsubtree

        return depsubtree(self, var=var, other_stages=other_stages)

    def diff_stages(self, object2: Sevt) -> dict[str, np.ndarray]:
        """Situations whose stages differ between two trees (R: ``diff_stages``).

        See :func:`pystagedtrees.diff_stages`.
        """
        from pystagedtrees.compare import diff_stages

        return diff_stages(self, object2=object2)

    def hamming_stages(self, object2: Sevt, return_tree: bool = False,
                       FUN: Callable[[np.ndarray], float] = np.sum,
                       ) -> float | dict[str, np.ndarray]:
        """Hamming distance between stage partitions (R: ``hamming_stages``).

        See :func:`pystagedtrees.hamming_stages`.
        """
        from pystagedtrees.compare import hamming_stages

        return hamming_stages(self, object2=object2, return_tree=return_tree, FUN=FUN)

    def inclusions_stages(self, object2: Sevt) -> dict[str, pd.DataFrame]:
        """How the stages of two trees include each other (R: ``inclusions_stages``).

        See :func:`pystagedtrees.inclusions_stages`.
        """
        from pystagedtrees.compare import inclusions_stages

        return inclusions_stages(self, object2=object2)

    def lr_test(self, *others: Sevt) -> pd.DataFrame:
        """Likelihood-ratio tests of nested staged trees (R: ``lr_test``).

        See :func:`pystagedtrees.lr_test`.
        """
        from pystagedtrees.compare import lr_test

        return lr_test(self, *others)

    def potential_outcomes(self, outcome: str, treatment: str) -> pd.DataFrame:
        """Distributions of an outcome under interventions on a treatment (R: ``potential_outcomes``).

        See :func:`pystagedtrees.potential_outcomes`.
        """
        from pystagedtrees.compare import potential_outcomes

        return potential_outcomes(self, outcome=outcome, treatment=treatment)

    def subtree(self, path: Mapping[str, str] | Sequence[str] | pd.DataFrame) -> Sevt:
        """The staged tree below a situation (R: ``subtree``).

        See :func:`pystagedtrees.subtree`.
        """
        from pystagedtrees.compare import subtree

        return subtree(self, path=path)

    # -- plotting and export (plotting) ---------------------------------
    def barplot(self, var: str, ignore: Sequence[str] | None = None, beside: bool = True,
                horiz: bool = False, legend: bool = False,
                col: str | Callable[..., Sequence[str]] | Mapping[str, Any] | None = None,
                palette: str | Sequence[str] | None = None, xlab: str | None = None,
                ylab: str | None = None, ax: Axes | None = None, main: str | None = None,
                width: float = 0.8) -> Axes:
        """Bar chart of the probabilities of ``var`` in each of its stages (R: ``barplot.sevt``).

        See :func:`pystagedtrees.barplot`.
        """
        from pystagedtrees.plotting import barplot

        return barplot(
            self,
            var=var,
            ignore=ignore,
            beside=beside,
            horiz=horiz,
            legend=legend,
            col=col,
            palette=palette,
            xlab=xlab,
            ylab=ylab,
            ax=ax,
            main=main,
            width=width,
        )

    def make_stages_col(self,
                        col: str | Callable[..., Sequence[str]] | Mapping[str, Any] | None = None,
                        ignore: Sequence[str] | None = None, limit: int | None = None,
                        palette: str | Sequence[str] | None = None) -> dict[str, dict[str, str]]:
        """The colour of every stage (R: ``make_stages_col``).

        See :func:`pystagedtrees.make_stages_col`.
        """
        from pystagedtrees.plotting import make_stages_col

        return make_stages_col(self, col=col, ignore=ignore, limit=limit, palette=palette)

    def plot(self, limit: int | None = None, xlim: tuple[float, float] = (0, 1),
             ylim: tuple[float, float] = (0, 1), ax: Axes | None = None, *,
             main: str | None = None, sub: str | None = None, asp: float | None = None,
             col: str | Callable[..., Sequence[str]] | Mapping[str, Any] | None = None,
             palette: str | Sequence[str] | None = None, ignore: Sequence[str] | None = None,
             show_ignored: bool = False, cex_label_nodes: float | Sequence[float] = 0,
             cex_label_edges: float | None = None,
             cex_nodes: float | Sequence[float] | None = None, cex_tree_y: float = 0.9,
             var_names: bool = True, legend: bool = True, col_edges: str = "black",
             pch_nodes: int | str = 16, lwd_nodes: float = 1.0, lwd_edges: float = 1.0,
             layout: Mapping[Any, tuple[float, float]]
             | Callable[..., Mapping[Any, tuple[float, float]]] | None = None,
             max_leaves: int = 2000) -> Axes:
        """Draw a staged event tree, a chain event graph or a DAG (R: ``plot.sevt``,

        See :func:`pystagedtrees.plot`.
        """
        from pystagedtrees.plotting import plot

        return plot(
            self,
            limit=limit,
            xlim=xlim,
            ylim=ylim,
            ax=ax,
            main=main,
            sub=sub,
            asp=asp,
            col=col,
            palette=palette,
            ignore=ignore,
            show_ignored=show_ignored,
            cex_label_nodes=cex_label_nodes,
            cex_label_edges=cex_label_edges,
            cex_nodes=cex_nodes,
            cex_tree_y=cex_tree_y,
            var_names=var_names,
            legend=legend,
            col_edges=col_edges,
            pch_nodes=pch_nodes,
            lwd_nodes=lwd_nodes,
            lwd_edges=lwd_edges,
            layout=layout,
            max_leaves=max_leaves,
        )

    def text(self, y: float | None = None, limit: int | None = None,
             xlim: tuple[float, float] = (0, 1), ylim: tuple[float, float] = (0, 1),
             ax: Axes | None = None, **kwargs: Any) -> list[Text]:
        """Write the variable names under the columns of a drawn staged tree (R: ``text.sevt``).

        See :func:`pystagedtrees.text`.
        """
        from pystagedtrees.plotting import text

        return text(self, y=y, limit=limit, xlim=xlim, ylim=ylim, ax=ax, **kwargs)

    def to_dot(self, limit: int | None = None,
               col: str | Callable[..., Sequence[str]] | Mapping[str, Any] | None = None,
               palette: str | Sequence[str] | None = None, ignore: Sequence[str] | None = None,
               show_ignored: bool = False, rankdir: Literal["LR", "RL", "TB", "BT"] = "LR") -> str:
        """Graphviz DOT text of a staged tree, a chain event graph or a DAG.

        See :func:`pystagedtrees.to_dot`.
        """
        from pystagedtrees.plotting import to_dot

        return to_dot(
            self,
            limit=limit,
            col=col,
            palette=palette,
            ignore=ignore,
            show_ignored=show_ignored,
            rankdir=rankdir,
        )

    def write_tikz(self, file: str | os.PathLike[str] | None = None, limit: int | None = None,
                   col: str | Callable[..., Sequence[str]] | Mapping[str, Any] | None = None,
                   palette: str | Sequence[str] | None = None, ignore: Sequence[str] | None = None,
                   show_ignored: bool = False, node_label: Callable[[str, str], str] | None = None,
                   edge_label: Callable[[str, str], str] | None = None, scale: float = 10,
                   xlim: tuple[float, float] | None = (0, 1),
                   ylim: tuple[float, float] | None = (0, 1), node_shape: str = "circle",
                   node_inner_sep: str = "1mm", node_minimum_size: str = "0.3cm",
                   node_draw_color: str = "black", node_thickness: str = "very thick",
                   layout: Mapping[Any, tuple[float, float]]
                   | Callable[..., Mapping[Any, tuple[float, float]]] | None = None,
                   edge_options: Callable[[str, str], str | Sequence[str]] | None = None,
                   edge_label_options: Callable[[str, str], str | Sequence[str]] | None = None,
                   node_text_color: str | None = None, normalize_layout: bool = True) -> str:
        """A TikZ picture of a staged tree or a chain event graph (R: ``write_tikz``).

        See :func:`pystagedtrees.write_tikz`.
        """
        from pystagedtrees.plotting import write_tikz

        return write_tikz(
            self,
            file=file,
            limit=limit,
            col=col,
            palette=palette,
            ignore=ignore,
            show_ignored=show_ignored,
            node_label=node_label,
            edge_label=edge_label,
            scale=scale,
            xlim=xlim,
            ylim=ylim,
            node_shape=node_shape,
            node_inner_sep=node_inner_sep,
            node_minimum_size=node_minimum_size,
            node_draw_color=node_draw_color,
            node_thickness=node_thickness,
            layout=layout,
            edge_options=edge_options,
            edge_label_options=edge_label_options,
            node_text_color=node_text_color,
            normalize_layout=normalize_layout,
        )
