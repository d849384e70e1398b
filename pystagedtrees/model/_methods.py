"""The methods of a staged event tree: every function of the package whose
first argument is a model, declared here so that ``help(Sevt)``, IDEs and the
documentation see them.

Each method is a thin delegation to its function, imported when called: the
parts that implement them (learners, plotting, ...) stand above the model and
import it, so the model may reach them only at call time (ARCHITECTURE.md).
``model.stages_bhc()`` and ``stages_bhc(model)`` are one implementation.
"""

import numpy as np

from pystagedtrees.rng import Rng, Seed

__all__ = ["SevtMethods"]


class SevtMethods:
    """The public methods of :class:`~pystagedtrees.Sevt` (a mixin)."""

    # -- construction, fitting and scores (fitting) ---------------------
    def AIC(self, *others, k=2, names=None):
        """Akaike information criterion, ``-2 ll + k df``.

        See :func:`pystagedtrees.AIC`.
        """
        from pystagedtrees.fitting import AIC

        return AIC(self, *others, k=k, names=names)

    def BIC(self, *others, names=None):
        """Bayesian information criterion, ``-2 ll + log(nobs) df``.

        See :func:`pystagedtrees.BIC`.
        """
        from pystagedtrees.fitting import BIC

        return BIC(self, *others, names=names)

    def copy_sevt(self, extra=None):
        """A copy of the structure of a staged tree, plus chosen fields (R: ``copy_sevt``).

        See :func:`pystagedtrees.copy_sevt`.
        """
        from pystagedtrees.fitting import copy_sevt

        return copy_sevt(self, extra=extra)

    def join_unobserved(self, fit=True, trace=0, name="UNOBSERVED", scope=None, lambda_=None):
        """Gather the situations that data never reach into one stage (R: ``join_unobserved``).

        See :func:`pystagedtrees.join_unobserved`.
        """
        from pystagedtrees.fitting import join_unobserved

        return join_unobserved(self, fit=fit, trace=trace, name=name, scope=scope, lambda_=lambda_)

    def logLik(self):
        """Log-likelihood of a fitted staged tree (R: ``logLik.sevt``).

        See :func:`pystagedtrees.logLik`.
        """
        from pystagedtrees.fitting import logLik

        return logLik(self)

    def make_ctables(self, data, useNA="ifany"):
        """Contingency tables of ``data`` over the situations of ``object``.

        See :func:`pystagedtrees.make_ctables`.
        """
        from pystagedtrees.fitting import make_ctables

        return make_ctables(self, data=data, useNA=useNA)

    def sevt_add(self, var, data, join_unobserved=True, useNA="ifany"):
        """Append a variable to a fitted staged tree (R: ``sevt_add``).

        See :func:`pystagedtrees.sevt_add`.
        """
        from pystagedtrees.fitting import sevt_add

        return sevt_add(self, var=var, data=data, join_unobserved=join_unobserved, useNA=useNA)

    def sevt_df(self):
        """Number of free parameters: ``(k1 - 1) + sum_i |stages_i| (k_i - 1)``.

        See :func:`pystagedtrees.sevt_df`.
        """
        from pystagedtrees.fitting import sevt_df

        return sevt_df(self)

    def sevt_fit(self, data=None, lambda_=None, scope=None, compute_logLik=True):
        """Estimate the stage probabilities of a staged tree (R: ``sevt_fit``).

        See :func:`pystagedtrees.sevt_fit`.
        """
        from pystagedtrees.fitting import sevt_fit

        return sevt_fit(
            self, data=data, lambda_=lambda_, scope=scope, compute_logLik=compute_logLik
        )

    def sevt_nvar(self):
        """Number of variables in the tree (R: ``sevt_nvar``).

        See :func:`pystagedtrees.sevt_nvar`.
        """
        from pystagedtrees.fitting import sevt_nvar

        return sevt_nvar(self)

    def sevt_varnames(self):
        """Names of the variables in tree order (R: ``sevt_varnames``).

        See :func:`pystagedtrees.sevt_varnames`.
        """
        from pystagedtrees.fitting import sevt_varnames

        return sevt_varnames(self)

    # -- stages (stage_ops) ---------------------------------------------
    def get_path(self, var, stage):
        """The paths (situations) of a variable that lie in given stages (R: ``get_path``).

        See :func:`pystagedtrees.get_path`.
        """
        from pystagedtrees.stage_ops import get_path

        return get_path(self, var=var, stage=stage)

    def get_stage(self, path):
        """Stage of the situation reached by a path (R: ``get_stage``).

        See :func:`pystagedtrees.get_stage`.
        """
        from pystagedtrees.stage_ops import get_stage

        return get_stage(self, path=path)

    def join_stages(self, var, s1, s2):
        """Join two stages of a variable; the result keeps the name ``s1`` (R: ``join_stages``).

        See :func:`pystagedtrees.join_stages`.
        """
        from pystagedtrees.stage_ops import join_stages

        return join_stages(self, var=var, s1=s1, s2=s2)

    def rename_stage(self, var, stage, new):
        """Rename a stage of a variable (R: ``rename_stage``).

        See :func:`pystagedtrees.rename_stage`.
        """
        from pystagedtrees.stage_ops import rename_stage

        return rename_stage(self, var=var, stage=stage, new=new)

    def set_stage_prob(self, var, stage, prob):
        """A copy with one stage's probabilities set by hand (R: ``object$prob[[var]][[stage]] <- prob``).

        See :func:`pystagedtrees.set_stage_prob`.
        """
        from pystagedtrees.stage_ops import set_stage_prob

        return set_stage_prob(self, var=var, stage=stage, prob=prob)

    def set_stages(self, var, value, context=None, fit=True):
        """A copy with some stages of a variable set by hand (R: ``stages(object)[var] <- value``).

        See :func:`pystagedtrees.set_stages`.
        """
        from pystagedtrees.stage_ops import set_stages

        return set_stages(self, var=var, value=value, context=context, fit=fit)

    def stages(self, var=None, context=None):
        """The stage labels of every situation (R: ``stages``, ``object$stages``).

        See :func:`pystagedtrees.stages`.
        """
        from pystagedtrees.stage_ops import stages

        return stages(self, var=var, context=context)

    def stndnaming(self, uniq=False, prefix=False, ignore=None):
        """Rename stages "1", "2", ... in order of first appearance (R: ``stndnaming``).

        See :func:`pystagedtrees.stndnaming`.
        """
        from pystagedtrees.stage_ops import stndnaming

        return stndnaming(self, uniq=uniq, prefix=prefix, ignore=ignore)

    def summary(self):
        """Per-variable tables: stage, number of situations, sample size, probabilities.

        See :func:`pystagedtrees.summary`.
        """
        from pystagedtrees.stage_ops import summary

        return summary(self)

    # -- inference (inference) ------------------------------------------
    def path_probability(self, x, log=False):
        """Probability of complete paths (R's internal ``path_probability``).

        See :func:`pystagedtrees.path_probability`.
        """
        from pystagedtrees.inference import path_probability

        return path_probability(self, x=x, log=log)

    def predict(self, newdata=None, class_=None, prob=False, log=False, seed: Seed = None,
                rng: Rng = None):
        """Predict a variable from the others (R: ``predict.sevt``).

        See :func:`pystagedtrees.predict`.
        """
        from pystagedtrees.inference import predict

        return predict(self, newdata=newdata, class_=class_, prob=prob, log=log, seed=seed, rng=rng)

    def prob(self, x, conditional_on=None, log=False, na0=True):
        """Probability of events, marginal or conditional (R: ``prob``).

        See :func:`pystagedtrees.prob`.
        """
        from pystagedtrees.inference import prob

        return prob(self, x=x, conditional_on=conditional_on, log=log, na0=na0)

    # -- structure learning (learners) ----------------------------------
    def sevt_fit_em(
        self,
        data=None,
        lambda_=None,
        scope=None,
        max_iter=5,
        chain_impute=False,
        seed: Seed = None,
        rng: Rng = None,
    ):
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

    def stages_bhc(self, score=None, max_iter=None, scope=None, ignore=None, trace=0):
        """Backward hill-climbing: join pairs of stages while the score improves (R: ``stages_bhc``).

        See :func:`pystagedtrees.stages_bhc`.
        """
        from pystagedtrees.learners import stages_bhc

        return stages_bhc(
            self, score=score, max_iter=max_iter, scope=scope, ignore=ignore, trace=trace
        )

    def stages_bhcr(self, score=None, max_iter=100, trace=0, seed: Seed = None,
                    rng: Rng = "numpy"):
        """Random backward hill climbing (R: ``stages_bhcr``).

        See :func:`pystagedtrees.stages_bhcr`.
        """
        from pystagedtrees.learners import stages_bhcr

        return stages_bhcr(self, score=score, max_iter=max_iter, trace=trace, seed=seed, rng=rng)

    def stages_bj(self, distance="kullback", thr=0.1, scope=None, ignore=None, trace=0):
        """Backward joining: join the two closest stages while closer than ``thr`` (R: ``stages_bj``).

        See :func:`pystagedtrees.stages_bj`.
        """
        from pystagedtrees.learners import stages_bj

        return stages_bj(self, distance=distance, thr=thr, scope=scope, ignore=ignore, trace=trace)

    def stages_csbhc(self, score=None, max_iter=None, scope=None, ignore=None):
        """Context-specific backward hill climbing (R: ``stages_csbhc``).

        See :func:`pystagedtrees.stages_csbhc`.
        """
        from pystagedtrees.learners import stages_csbhc

        return stages_csbhc(self, score=score, max_iter=max_iter, scope=scope, ignore=ignore)

    def stages_em(
        self,
        data=None,
        stages_alg=None,
        max_iter_em=5,
        incremental=False,
        chain_impute=False,
        seed: Seed = None,
        rng: Rng = None,
        **alg_args,
    ):
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

    def stages_fbhc(self, score=None, max_iter=None, scope=None, ignore=None, trace=0):
        """Fast backward hill-climbing: take the first join that does not lower the score (R: ``stages_fbhc``).

        See :func:`pystagedtrees.stages_fbhc`.
        """
        from pystagedtrees.learners import stages_fbhc

        return stages_fbhc(
            self, score=score, max_iter=max_iter, scope=scope, ignore=ignore, trace=trace
        )

    def stages_hc(self, score=None, max_iter=None, scope=None, ignore=None, trace=0):
        """Hill climbing: move single situations between stages while the score improves (R: ``stages_hc``).

        See :func:`pystagedtrees.stages_hc`.
        """
        from pystagedtrees.learners import stages_hc

        return stages_hc(
            self, score=score, max_iter=max_iter, scope=scope, ignore=ignore, trace=trace
        )

    def stages_hclust(
        self,
        distance="totvar",
        k=None,
        method="complete",
        ignore=None,
        limit=None,
        scope=None,
        score=None,
    ):
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

    def stages_kmeans(
        self,
        k=None,
        algorithm="Hartigan-Wong",
        transform=np.sqrt,
        ignore=None,
        limit=None,
        scope=None,
        nstart=1,
        seed: Seed = None,
        rng: Rng = "numpy",
    ):
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

    def stages_simplebhc(self, score=None, scope=None, max_iter=None, ignore=None):
        """Backward hill climbing over simple staged trees (R: ``stages_simplebhc``).

        See :func:`pystagedtrees.stages_simplebhc`.
        """
        from pystagedtrees.learners import stages_simplebhc

        return stages_simplebhc(self, score=score, scope=scope, max_iter=max_iter, ignore=ignore)

    # -- graphs, conversions and chain event graphs (graphs) ------------
    def as_adj_matrix(self, **kwargs):
        """Adjacency matrix of a DAG or of a chain event graph (R: ``as_adj_matrix``).

        See :func:`pystagedtrees.as_adj_matrix`.
        """
        from pystagedtrees.graphs import as_adj_matrix

        return as_adj_matrix(self, **kwargs)

    def as_bn(self):
        """The DAG of ``x`` as a networkx ``DiGraph`` (R: ``as_bn``, which needs bnlearn).

        See :func:`pystagedtrees.as_bn`.
        """
        from pystagedtrees.graphs import as_bn

        return as_bn(self)

    def as_networkx(self, ignore=None):
        """A networkx graph of a DAG, a staged tree or a CEG (R: ``as_igraph``).

        See :func:`pystagedtrees.as_networkx`.
        """
        from pystagedtrees.graphs import as_networkx

        return as_networkx(self, ignore=ignore)

    def as_parentslist(self, values=None, silent=False):
        """The DAG of ``x`` as a :class:`ParentsList` (R: ``as_parentslist``).

        See :func:`pystagedtrees.as_parentslist`.
        """
        from pystagedtrees.graphs import as_parentslist

        return as_parentslist(self, values=values, silent=silent)

    def ceg(self):
        """The chain event graph of a staged tree (R: ``ceg``).

        See :func:`pystagedtrees.ceg`.
        """
        from pystagedtrees.graphs import ceg

        return ceg(self)

    def get_edges(self, ignore=None):
        """Edges of the tree graph of a staged tree, or of a CEG (R: ``get_edges``).

        See :func:`pystagedtrees.get_edges`.
        """
        from pystagedtrees.graphs import get_edges

        return get_edges(self, ignore=ignore)

    def get_vertices(self, ignore=None):
        """Vertices of the tree graph of a staged tree, or of a CEG (R: ``get_vertices``).

        See :func:`pystagedtrees.get_vertices`.
        """
        from pystagedtrees.graphs import get_vertices

        return get_vertices(self, ignore=ignore)

    def join_positions(self, var, s1, s2):
        """Join two stages and rebuild the downstream stages as positions (R: ``join_positions``).

        See :func:`pystagedtrees.join_positions`.
        """
        from pystagedtrees.graphs import join_positions

        return join_positions(self, var=var, s1=s1, s2=s2)

    def sevt_simplify(self, fit=True):
        """Replace the stages by the positions (R: ``sevt_simplify``).

        See :func:`pystagedtrees.sevt_simplify`.
        """
        from pystagedtrees.graphs import sevt_simplify

        return sevt_simplify(self, fit=fit)

    # -- random models and data (random) --------------------------------
    def random_sevt(self, q=0.5, rfun=None, seed: Seed = None, rng: Rng = None):
        """A staged tree with random stages and probabilities (R: ``random_sevt``).

        See :func:`pystagedtrees.random_sevt`.
        """
        from pystagedtrees.random import random_sevt

        return random_sevt(self, q=q, rfun=rfun, seed=seed, rng=rng)

    def randomize_sevt(self, treatment, p=None, ignore=None):
        """Replace a variable's stages by one randomised stage (R: ``randomize_sevt``).

        See :func:`pystagedtrees.randomize_sevt`.
        """
        from pystagedtrees.random import randomize_sevt

        return randomize_sevt(self, treatment=treatment, p=p, ignore=ignore)

    def sample_from(self, size=1, seed: Seed = None, rng: Rng = None):
        """Draw paths (rows of data) from a staged tree (R: ``sample_from``).

        See :func:`pystagedtrees.sample_from`.
        """
        from pystagedtrees.random import sample_from

        return sample_from(self, size=size, seed=seed, rng=rng)

    # -- comparison and tests (compare) ---------------------------------
    def ci_matrices(self, var):
        """The stages of a variable arranged by each predecessor (R: ``ci_matrices``).

        See :func:`pystagedtrees.ci_matrices`.
        """
        from pystagedtrees.compare import ci_matrices

        return ci_matrices(self, var=var)

    def cid(self, object2, FUN=np.mean):
        """Context-specific interventional discrepancy (R: ``cid``).

        See :func:`pystagedtrees.cid`.
        """
        from pystagedtrees.compare import cid

        return cid(self, object2=object2, FUN=FUN)

    def compare_stages(self, object2, method="naive", return_tree=False, plot=False, **plot_args):
        """Whether two staged trees have the same stages (R: ``compare_stages``).

        See :func:`pystagedtrees.compare_stages`.
        """
        from pystagedtrees.compare import compare_stages

        return compare_stages(
            self, object2=object2, method=method, return_tree=return_tree, plot=plot, **plot_args
        )

    def confint(self, parm=None, level=0.95, method="wald", ignore=None):
        """Confidence intervals for the stage probabilities (R: ``confint.sevt``).

        See :func:`pystagedtrees.confint`.
        """
        from pystagedtrees.compare import confint

        return confint(self, parm=parm, level=level, method=method, ignore=ignore)

    def depsubtree(self, var, other_stages="NA"):
        """The staged tree of a variable over its minimal parents (R: ``depsubtree``).

        See :func:`pystagedtrees.depsubtree`.
        """
        from pystagedtrees.compare import depsubtree

        return depsubtree(self, var=var, other_stages=other_stages)

    def diff_stages(self, object2):
        """Situations whose stages differ between two trees (R: ``diff_stages``).

        See :func:`pystagedtrees.diff_stages`.
        """
        from pystagedtrees.compare import diff_stages

        return diff_stages(self, object2=object2)

    def hamming_stages(self, object2, return_tree=False, FUN=np.sum):
        """Hamming distance between stage partitions (R: ``hamming_stages``).

        See :func:`pystagedtrees.hamming_stages`.
        """
        from pystagedtrees.compare import hamming_stages

        return hamming_stages(self, object2=object2, return_tree=return_tree, FUN=FUN)

    def inclusions_stages(self, object2):
        """How the stages of two trees include each other (R: ``inclusions_stages``).

        See :func:`pystagedtrees.inclusions_stages`.
        """
        from pystagedtrees.compare import inclusions_stages

        return inclusions_stages(self, object2=object2)

    def lr_test(self, *others):
        """Likelihood-ratio tests of nested staged trees (R: ``lr_test``).

        See :func:`pystagedtrees.lr_test`.
        """
        from pystagedtrees.compare import lr_test

        return lr_test(self, *others)

    def potential_outcomes(self, outcome, treatment):
        """Distributions of an outcome under interventions on a treatment (R: ``potential_outcomes``).

        See :func:`pystagedtrees.potential_outcomes`.
        """
        from pystagedtrees.compare import potential_outcomes

        return potential_outcomes(self, outcome=outcome, treatment=treatment)

    def subtree(self, path):
        """The staged tree below a situation (R: ``subtree``).

        See :func:`pystagedtrees.subtree`.
        """
        from pystagedtrees.compare import subtree

        return subtree(self, path=path)

    # -- plotting and export (plotting) ---------------------------------
    def barplot(
        self,
        var,
        ignore=None,
        beside=True,
        horiz=False,
        legend=False,
        col=None,
        palette=None,
        xlab=None,
        ylab=None,
        ax=None,
        main=None,
        width=0.8,
    ):
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

    def make_stages_col(self, col=None, ignore=None, limit=None, palette=None):
        """The colour of every stage (R: ``make_stages_col``).

        See :func:`pystagedtrees.make_stages_col`.
        """
        from pystagedtrees.plotting import make_stages_col

        return make_stages_col(self, col=col, ignore=ignore, limit=limit, palette=palette)

    def plot(
        self,
        limit=None,
        xlim=(0, 1),
        ylim=(0, 1),
        ax=None,
        *,
        main=None,
        sub=None,
        asp=None,
        col=None,
        palette=None,
        ignore=None,
        show_ignored=False,
        cex_label_nodes=0,
        cex_label_edges=None,
        cex_nodes=None,
        cex_tree_y=0.9,
        var_names=True,
        legend=True,
        col_edges="black",
        pch_nodes=16,
        lwd_nodes=1.0,
        lwd_edges=1.0,
        layout=None,
        max_leaves=2000,
    ):
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

    def text(self, y=None, limit=None, xlim=(0, 1), ylim=(0, 1), ax=None, **kwargs):
        """Write the variable names under the columns of a drawn staged tree (R: ``text.sevt``).

        See :func:`pystagedtrees.text`.
        """
        from pystagedtrees.plotting import text

        return text(self, y=y, limit=limit, xlim=xlim, ylim=ylim, ax=ax, **kwargs)

    def to_dot(
        self, limit=None, col=None, palette=None, ignore=None, show_ignored=False, rankdir="LR"
    ):
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

    def write_tikz(
        self,
        file=None,
        limit=None,
        col=None,
        palette=None,
        ignore=None,
        show_ignored=False,
        node_label=None,
        edge_label=None,
        scale=10,
        xlim=(0, 1),
        ylim=(0, 1),
        node_shape="circle",
        node_inner_sep="1mm",
        node_minimum_size="0.3cm",
        node_draw_color="black",
        node_thickness="very thick",
        layout=None,
        edge_options=None,
        edge_label_options=None,
        node_text_color=None,
        normalize_layout=True,
    ):
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
