"""Bayesian network classifiers: a port of R's bnclassify 0.4.8.

Structures (:func:`nb`, :func:`tan_cl`, :func:`tan_hc`, :func:`tan_hcsp`,
:func:`kdb`, :func:`fssj`, :func:`bsej`, :func:`aode`), parameters
(:func:`lp`), and their use (:func:`predict`, :func:`cv`, :func:`logLik`, ...),
plus the scikit-learn estimator :class:`BNClassifier`.
"""
from pystagedtrees.bnc._model import (
    BNCModel,
    as_parentslist,
    class_var,
    families,
    features,
    modelstring,
    narcs,
    nparams,
    params,
)
from pystagedtrees.bnc._cv import bnc, cv
from pystagedtrees.bnc._estimator import BNClassifier
from pystagedtrees.bnc._params import lp
from pystagedtrees.bnc._predict import AIC, BIC, logLik, predict
from pystagedtrees.bnc._search import bsej, fssj, kdb, tan_hc, tan_hcsp
from pystagedtrees.bnc._structure import aode, nb, tan_cl

__all__ = [
    "BNCModel",
    "BNClassifier",
    "bsej",
    "fssj",
    "kdb",
    "tan_hc",
    "tan_hcsp",
    "AIC",
    "BIC",
    "aode",
    "bnc",
    "cv",
    "as_parentslist",
    "class_var",
    "families",
    "features",
    "logLik",
    "lp",
    "modelstring",
    "narcs",
    "nb",
    "nparams",
    "params",
    "predict",
    "tan_cl",
]
