"""The API reference: every public name, grouped as R stagedtrees' reference
index groups its functions, with its R counterpart.

``conf.py`` writes the reference pages from :data:`GROUPS` when the site is
built, and fails the build if a name of a public ``__all__`` has no page
here or a name here is not public; ``tests/test_docs_site.py`` checks the
same.  A name exported by two modules (``pystagedtrees.sevt_kdb`` is
``pystagedtrees.classifiers.sevt_kdb``) has one page.
An R counterpart of None means the name is new in Python (no R function).
"""

#: The modules whose ``__all__`` the reference documents (an exported module
#: listed in an ``__all__`` stands for its own names).
PUBLIC_MODULES = [
    "pystagedtrees",
    "pystagedtrees.bnc",
    "pystagedtrees.classifiers",
    "pystagedtrees.multilabel",
    "pystagedtrees.multilabel.metrics",
    "pystagedtrees.datasets",
    "pystagedtrees.rng",
    "pystagedtrees.compat",
    "pystagedtrees.study.benchmark",
    "pystagedtrees.study.multilabel",
    "pystagedtrees.study.simulate",
]

_BNCLASSIFY = "bnclassify::"

#: (title, slug, introduction, [(qualified name, R counterpart or None)])
GROUPS = [
    ("Model construction and fitting", "model",
     "Build a staged event tree from data or levels, fit it, score it, and read or edit "
     "its stages.",
     [
         ("pystagedtrees.Sevt", "sevt (class)"),
         ("pystagedtrees.sevt", "sevt"),
         ("pystagedtrees.full", "full"),
         ("pystagedtrees.indep", "indep"),
         ("pystagedtrees.sevt_add", "sevt_add"),
         ("pystagedtrees.copy_sevt", "copy_sevt"),
         ("pystagedtrees.sevt_fit", "sevt_fit"),
         ("pystagedtrees.join_unobserved", "join_unobserved"),
         ("pystagedtrees.make_ctables", "make_ctables (internal)"),
         ("pystagedtrees.logLik", "logLik.sevt"),
         ("pystagedtrees.LogLik", "logLik (class)"),
         ("pystagedtrees.AIC", "AIC"),
         ("pystagedtrees.BIC", "BIC"),
         ("pystagedtrees.sevt_df", "sevt_df"),
         ("pystagedtrees.sevt_nvar", "sevt_nvar"),
         ("pystagedtrees.sevt_varnames", "sevt_varnames"),
         ("pystagedtrees.stages", "stages"),
         ("pystagedtrees.set_stages", "stages<-"),
         ("pystagedtrees.get_stage", "get_stage"),
         ("pystagedtrees.get_path", "get_path"),
         ("pystagedtrees.join_stages", "join_stages"),
         ("pystagedtrees.rename_stage", "rename_stage"),
         ("pystagedtrees.set_stage_prob", None),
         ("pystagedtrees.stndnaming", "stndnaming"),
         ("pystagedtrees.summary", "summary.sevt"),
         ("pystagedtrees.SevtSummary", "summary.sevt (class)"),
     ]),
    ("Structure learning", "learning",
     "Learn the stages of a tree (backward hill-climbing and its variants, clustering, "
     "EM with missing values) and the order of its variables.",
     [
         ("pystagedtrees.stages_bhc", "stages_bhc"),
         ("pystagedtrees.stages_fbhc", "stages_fbhc"),
         ("pystagedtrees.stages_bhcr", "stages_bhcr"),
         ("pystagedtrees.stages_csbhc", "stages_csbhc"),
         ("pystagedtrees.stages_simplebhc", "stages_simplebhc"),
         ("pystagedtrees.stages_bj", "stages_bj"),
         ("pystagedtrees.stages_hc", "stages_hc"),
         ("pystagedtrees.stages_hclust", "stages_hclust"),
         ("pystagedtrees.stages_kmeans", "stages_kmeans"),
         ("pystagedtrees.stages_em", "stages_em"),
         ("pystagedtrees.sevt_fit_em", "sevt_fit_em"),
         ("pystagedtrees.search_best", "search_best"),
         ("pystagedtrees.search_greedy", "search_greedy"),
     ]),
    ("Inference and prediction", "inference",
     "Probabilities of events and predictions from a fitted tree.",
     [
         ("pystagedtrees.prob", "prob"),
         ("pystagedtrees.predict", "predict.sevt"),
         ("pystagedtrees.path_probability", "path_probability (internal)"),
     ]),
    ("Conversions and DAGs", "conversions",
     "Bayesian networks as lists of parents, their staged trees, and the minimal DAG of "
     "a staged tree.",
     [
         ("pystagedtrees.ParentsList", "parentslist (class)"),
         ("pystagedtrees.parentslist", "parentslist"),
         ("pystagedtrees.as_parentslist", "as_parentslist"),
         ("pystagedtrees.as_sevt", "as_sevt"),
         ("pystagedtrees.topo_sort_parentslist", "topo_sort_parentslist"),
         ("pystagedtrees.all_topo_sort", "all_topo_sort"),
         ("pystagedtrees.as_adj_matrix", "as_adj_matrix"),
         ("pystagedtrees.as_bn", "as_bn"),
         ("pystagedtrees.as_networkx", "as_igraph"),
     ]),
    ("Random models and data", "random",
     "Random staged trees, DAGs and samples, the simulated data sets of the papers, and "
     "the data sets shipped with the package.",
     [
         ("pystagedtrees.random_sevt", "random_sevt"),
         ("pystagedtrees.randomize_sevt", "randomize_sevt"),
         ("pystagedtrees.sample_from", "sample_from"),
         ("pystagedtrees.random_parentslist", "random_parentslist"),
         ("pystagedtrees.generate_random_dataset", "generate_random_dataset"),
         ("pystagedtrees.generate_xor_dataset", "generate_xor_dataset"),
         ("pystagedtrees.generate_linear_dataset", "generate_linear_dataset"),
         ("pystagedtrees.datasets.titanic_table", "datasets::Titanic"),
         ("pystagedtrees.datasets.titanic", "as.data.frame(Titanic)"),
         ("pystagedtrees.datasets.load", "data()"),
         ("pystagedtrees.datasets.names", "data(package = ...)"),
         ("pystagedtrees.datasets.splits", None),
         ("pystagedtrees.datasets.train_test", None),
     ]),
    ("Comparison and tests", "compare",
     "Compare the stages of two trees, test nested models, and read context-specific "
     "and interventional quantities.",
     [
         ("pystagedtrees.compare_stages", "compare_stages"),
         ("pystagedtrees.hamming_stages", "hamming_stages"),
         ("pystagedtrees.diff_stages", "diff_stages"),
         ("pystagedtrees.inclusions_stages", "inclusions_stages"),
         ("pystagedtrees.lr_test", "lr_test"),
         ("pystagedtrees.confint", "confint.sevt"),
         ("pystagedtrees.subtree", "subtree"),
         ("pystagedtrees.depsubtree", "depsubtree"),
         ("pystagedtrees.ci_matrices", "ci_matrices"),
         ("pystagedtrees.cid", "cid"),
         ("pystagedtrees.potential_outcomes", "potential_outcomes"),
     ]),
    ("Chain event graphs", "ceg",
     "Chain event graphs: the positions of a staged tree, and simplifying a tree to them.",
     [
         ("pystagedtrees.Ceg", "ceg (class)"),
         ("pystagedtrees.ceg", "ceg"),
         ("pystagedtrees.sevt_simplify", "sevt_simplify"),
         ("pystagedtrees.join_positions", "join_positions"),
         ("pystagedtrees.get_edges", "get_edges"),
         ("pystagedtrees.get_vertices", "get_vertices"),
     ]),
    ("Plotting and export", "plotting",
     "Draw trees, chain event graphs and DAGs with matplotlib; write Graphviz DOT and TikZ.",
     [
         ("pystagedtrees.plot", "plot.sevt, plot.ceg, plot.parentslist"),
         ("pystagedtrees.barplot", "barplot.sevt"),
         ("pystagedtrees.text", "text.sevt"),
         ("pystagedtrees.make_stages_col", "make_stages_col"),
         ("pystagedtrees.write_tikz", "write_tikz"),
         ("pystagedtrees.to_dot", None),
         ("pystagedtrees.save_figure", None),
     ]),
    ("Bayesian network classifiers (bnclassify)", "bnc",
     "The port of R bnclassify: structure learners, parameters, prediction and "
     "cross-validation, and a scikit-learn estimator over them.  ``bnc.RoundingDraws`` is "
     ":class:`pystagedtrees.rng.RRoundingRandom`, R's draws under "
     "``RNGversion(\"3.5.0\")`` as bnclassify's own tests make them.",
     [
         ("pystagedtrees.bnc.nb", _BNCLASSIFY + "nb"),
         ("pystagedtrees.bnc.tan_cl", _BNCLASSIFY + "tan_cl"),
         ("pystagedtrees.bnc.tan_hc", _BNCLASSIFY + "tan_hc"),
         ("pystagedtrees.bnc.tan_hcsp", _BNCLASSIFY + "tan_hcsp"),
         ("pystagedtrees.bnc.kdb", _BNCLASSIFY + "kdb"),
         ("pystagedtrees.bnc.fssj", _BNCLASSIFY + "fssj"),
         ("pystagedtrees.bnc.bsej", _BNCLASSIFY + "bsej"),
         ("pystagedtrees.bnc.aode", _BNCLASSIFY + "aode"),
         ("pystagedtrees.bnc.lp", _BNCLASSIFY + "lp"),
         ("pystagedtrees.bnc.bnc", _BNCLASSIFY + "bnc"),
         ("pystagedtrees.bnc.predict", _BNCLASSIFY + "predict.bnc_fit"),
         ("pystagedtrees.bnc.cv", _BNCLASSIFY + "cv"),
         ("pystagedtrees.bnc.accuracy", _BNCLASSIFY + "accuracy"),
         ("pystagedtrees.bnc.logLik", _BNCLASSIFY + "logLik.bnc_fit"),
         ("pystagedtrees.bnc.cLogLik", _BNCLASSIFY + "cLogLik"),
         ("pystagedtrees.bnc.AIC", _BNCLASSIFY + "AIC.bnc_fit"),
         ("pystagedtrees.bnc.BIC", _BNCLASSIFY + "BIC.bnc_fit"),
         ("pystagedtrees.bnc.cmi", _BNCLASSIFY + "cmi"),
         ("pystagedtrees.bnc.BNCModel", _BNCLASSIFY + "bnc_bn (class)"),
         ("pystagedtrees.bnc.class_var", _BNCLASSIFY + "class_var"),
         ("pystagedtrees.bnc.features", _BNCLASSIFY + "features"),
         ("pystagedtrees.bnc.vars", _BNCLASSIFY + "vars"),
         ("pystagedtrees.bnc.families", _BNCLASSIFY + "families"),
         ("pystagedtrees.bnc.feature_families", _BNCLASSIFY + "feature_families"),
         ("pystagedtrees.bnc.modelstring", _BNCLASSIFY + "modelstring"),
         ("pystagedtrees.bnc.as_parentslist", None),
         ("pystagedtrees.bnc.narcs", _BNCLASSIFY + "narcs"),
         ("pystagedtrees.bnc.nparams", _BNCLASSIFY + "nparams"),
         ("pystagedtrees.bnc.params", _BNCLASSIFY + "params"),
         ("pystagedtrees.bnc.values", _BNCLASSIFY + "values"),
         ("pystagedtrees.bnc.classes", _BNCLASSIFY + "classes"),
         ("pystagedtrees.bnc.is_anb", _BNCLASSIFY + "is_anb"),
         ("pystagedtrees.bnc.is_nb", _BNCLASSIFY + "is_nb"),
         ("pystagedtrees.bnc.is_ode", _BNCLASSIFY + "is_ode"),
         ("pystagedtrees.bnc.is_semi_naive", _BNCLASSIFY + "is_semi_naive"),
         ("pystagedtrees.bnc.awnb_weights", _BNCLASSIFY + "awnb"),
         ("pystagedtrees.bnc.manb_arc_posterior", _BNCLASSIFY + "manb_arc_posterior"),
         ("pystagedtrees.bnc.BNClassifier", None),
     ]),
    ("Staged tree classifiers", "classifiers",
     "Context-specific refinements of Bayesian network classifiers and the naive staged "
     "tree (the papers' methods; no R package exports them), and their scikit-learn "
     "estimator.",
     [
         ("pystagedtrees.sevt_tan_cl", None),
         ("pystagedtrees.sevt_tan_hc", None),
         ("pystagedtrees.sevt_kdb", None),
         ("pystagedtrees.sevt_refine", None),
         ("pystagedtrees.sevt_naive", None),
         ("pystagedtrees.ordering_mi", None),
         ("pystagedtrees.ordering_cmi", None),
         ("pystagedtrees.ordering_ch", None),
         ("pystagedtrees.StagedTreeClassifier", None),
     ]),
    ("Multi-label classification", "multilabel",
     "Classifier chains ordered by a Bayesian network over the labels (BNCC), and the "
     "multi-label scores.",
     [
         ("pystagedtrees.multilabel.BNClassifierChain", None),
         ("pystagedtrees.multilabel.label_dependence", None),
         ("pystagedtrees.multilabel.label_network", None),
         ("pystagedtrees.multilabel.break_cycles", None),
         ("pystagedtrees.multilabel.metrics.multilabel_scores", None),
         ("pystagedtrees.multilabel.metrics.MULTILABEL_SCORES", None),
     ]),
    ("The R bridge", "compat",
     "Move models and data between Python and R (rpy2), and call R.",
     [
         ("pystagedtrees.compat.to_r", None),
         ("pystagedtrees.compat.from_r", None),
         ("pystagedtrees.compat.r_call", None),
         ("pystagedtrees.compat.set_seed", "set.seed"),
         ("pystagedtrees.compat.r_available", None),
         ("pystagedtrees.compat.has_r_package", "requireNamespace"),
     ]),
    ("Randomness", "rng",
     "The random sources every random function draws from: numpy's generator, or R's "
     "replayed draw for draw.",
     [
         ("pystagedtrees.rng.RandomSource", None),
         ("pystagedtrees.rng.NumpySource", None),
         ("pystagedtrees.rng.RRandom", "set.seed"),
         ("pystagedtrees.rng.RRoundingRandom", 'RNGversion("3.5.0")'),
         ("pystagedtrees.rng.resolve_source", None),
         ("pystagedtrees.rng.continues_a_stream", None),
         ("pystagedtrees.rng.check_seed", None),
         ("pystagedtrees.rng.Seed", None),
         ("pystagedtrees.rng.Rng", None),
         ("pystagedtrees.rng.RNG_KINDS", "RNGkind"),
     ]),
    ("The studies", "study",
     "The comparison studies of the papers, run as ``python -m pystagedtrees.study "
     "<name>``; their functions, for running parts of them from Python.",
     [
         ("pystagedtrees.study.benchmark.run_benchmark", None),
         ("pystagedtrees.study.benchmark.run_grid", None),
         ("pystagedtrees.study.benchmark.load_dataset", None),
         ("pystagedtrees.study.benchmark.load_split", None),
         ("pystagedtrees.study.benchmark.classification_scores", None),
         ("pystagedtrees.study.benchmark.summarise", None),
         ("pystagedtrees.study.benchmark.plot_benchmark", None),
         ("pystagedtrees.study.benchmark.add_arguments", None),
         ("pystagedtrees.study.benchmark.run", None),
         ("pystagedtrees.study.benchmark.PAPER_DATASETS", None),
         ("pystagedtrees.study.benchmark.METHODS", None),
         ("pystagedtrees.study.benchmark.DEFAULT_METHODS", None),
         ("pystagedtrees.study.multilabel.compare", None),
         ("pystagedtrees.study.multilabel.compare_repeated", None),
         ("pystagedtrees.study.multilabel.summarise_repeats", None),
         ("pystagedtrees.study.multilabel.summarise_methods", None),
         ("pystagedtrees.study.multilabel.methods_table", None),
         ("pystagedtrees.study.multilabel.plot_methods", None),
         ("pystagedtrees.study.multilabel.METHODS", None),
         ("pystagedtrees.study.multilabel.score_orders", None),
         ("pystagedtrees.study.multilabel.network_orders", None),
         ("pystagedtrees.study.multilabel.base_learners", None),
         ("pystagedtrees.study.multilabel.load_multilabel_csv", None),
         ("pystagedtrees.study.multilabel.split_labels", None),
         ("pystagedtrees.study.multilabel.plot_label_network", None),
         ("pystagedtrees.study.multilabel.add_arguments", None),
         ("pystagedtrees.study.multilabel.run", None),
         ("pystagedtrees.study.simulate.simulate_data", None),
         ("pystagedtrees.study.simulate.run_simulation", None),
         ("pystagedtrees.study.simulate.plot_simulation", None),
         ("pystagedtrees.study.simulate.add_arguments", None),
         ("pystagedtrees.study.simulate.run", None),
         ("pystagedtrees.study.simulate.PROCESSES", None),
         ("pystagedtrees.study.simulate.DEFAULT_METHODS", None),
     ]),
]


def public_objects():
    """Qualified public name -> object: the ``__all__`` of :data:`PUBLIC_MODULES`
    (an exported module stands for its own names)."""
    import importlib
    import inspect

    objects = {}
    for module_name in PUBLIC_MODULES:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            obj = getattr(module, name)
            if not inspect.ismodule(obj):
                objects[f"{module_name}.{name}"] = obj
    return objects


def reference_problems():
    """What keeps the reference from documenting exactly the public API: a public
    object without a page (one page serves an object exported under several
    names), a page whose name is not public, a name listed twice."""
    objects = public_objects()
    documented = documented_names()
    problems = []
    if extra := sorted(set(documented) - set(objects)):
        problems.append(f"names in docs/_ext/reference.py that are not public: {extra}")
    if twice := sorted({n for n in documented if documented.count(n) > 1}):
        problems.append(f"names listed twice in docs/_ext/reference.py: {twice}")
    pages = {id(objects[n]) for n in documented if n in objects}
    if missing := sorted(n for n, obj in objects.items() if id(obj) not in pages):
        problems.append(f"public names missing from docs/_ext/reference.py: {missing}")
    return problems


def documented_names():
    """Every qualified name the reference documents, in reference order."""
    return [name for _, _, _, entries in GROUPS for name, _ in entries]


def r_counterparts():
    """Qualified name -> its R counterpart (None: new in Python)."""
    return {name: r for _, _, _, entries in GROUPS for name, r in entries}
