"""Bayesian network classifiers: a port of R's bnclassify 0.4.8.

Structures (:func:`nb`, :func:`tan_cl`, :func:`tan_hc`, :func:`tan_hcsp`,
:func:`kdb`, :func:`fssj`, :func:`bsej`, :func:`aode`), parameters
(:func:`lp`), and their use (:func:`predict`, :func:`cv`, :func:`logLik`, ...),
plus the scikit-learn estimator :class:`BNClassifier`.

Randomised functions take ``seed=`` (numpy's by default) and ``rng=``, as
every function of the package (the rule: :mod:`pystagedtrees.rng`):
``rng="R", seed=s`` draws exactly what R draws after ``set.seed(s)`` (R >= 3.6
sampling), and ``rng="R-rounding", seed=s`` or ``rng=RoundingDraws(s)``
(:class:`~pystagedtrees.rng.RRoundingRandom`) what it draws under ``RNGversion("3.5.0")``, as
bnclassify's own tests run.  ``random_state=`` is a deprecated alias of ``seed``.

Examples
--------
>>> import pandas as pd
>>> import pystagedtrees.bnc as bnc
>>> d = pd.DataFrame({"c": list("aabbab"), "x": list("uuvvuv"), "y": list("pqqpqq")})
>>> m = bnc.lp(bnc.tan_cl("c", d), d, smooth=1)
>>> bnc.modelstring(m)
'[c] [x|c] [y|x:c]'
"""
from pystagedtrees.bnc._cv import bnc, cv
from pystagedtrees.bnc._estimator import BNClassifier
from pystagedtrees.bnc._model import (
    BNCModel,
    as_parentslist,
    awnb_weights,
    class_var,
    classes,
    families,
    feature_families,
    features,
    is_anb,
    is_nb,
    is_ode,
    is_semi_naive,
    manb_arc_posterior,
    modelstring,
    narcs,
    nparams,
    params,
    values,
    vars,
)
from pystagedtrees.bnc._params import lp
from pystagedtrees.bnc._predict import AIC, BIC, accuracy, cLogLik, logLik, predict
from pystagedtrees.bnc._search import bsej, fssj, kdb, tan_hc, tan_hcsp
from pystagedtrees.bnc._statistics import cmi
from pystagedtrees.bnc._structure import aode, nb, tan_cl
from pystagedtrees.rng import RRoundingRandom as RoundingDraws

__all__ = [
    "accuracy",
    "AIC",
    "aode",
    "as_parentslist",
    "awnb_weights",
    "BIC",
    "bnc",
    "BNClassifier",
    "BNCModel",
    "bsej",
    "class_var",
    "classes",
    "cLogLik",
    "cmi",
    "cv",
    "families",
    "feature_families",
    "features",
    "fssj",
    "is_anb",
    "is_nb",
    "is_ode",
    "is_semi_naive",
    "kdb",
    "logLik",
    "lp",
    "manb_arc_posterior",
    "modelstring",
    "narcs",
    "nb",
    "nparams",
    "params",
    "predict",
    "RoundingDraws",
    "tan_cl",
    "tan_hc",
    "tan_hcsp",
    "values",
    "vars",
]
