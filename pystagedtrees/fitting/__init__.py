"""Counting, fitting and scoring staged trees, and building them from data
(R's ``full``, ``indep``, ``sevt``, ``sevt_fit``, ``make_ctables``, ``logLik``, ...)."""
from pystagedtrees.fitting._construct import copy_sevt, full, indep, sevt, sevt_add
from pystagedtrees.fitting._counting import make_ctables
from pystagedtrees.fitting._fit import join_unobserved, sevt_fit
from pystagedtrees.fitting._scores import AIC, BIC, logLik, sevt_df, sevt_nvar, sevt_varnames

__all__ = [
    "AIC", "BIC", "copy_sevt", "full", "indep", "join_unobserved", "logLik", "make_ctables",
    "sevt", "sevt_add", "sevt_df", "sevt_fit", "sevt_nvar", "sevt_varnames",
]
